/*
 * provider-mem.c - an rr_provider over records held in memory, for unit
 * tests and scenarios (filled from "=Pkg:" tag records).
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/name.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/util.h"

struct mem_rel {
	char **requires;
	size_t nrequires;
	size_t cap;
	struct rr_dependency *deps; /* requires parsed, on the first dependencies() */
	bool deps_unknown; /* revealed on the candidate when dependencies() is asked */
};

struct mem_project {
	char *key;
	struct rr_candidate *cands;
	struct mem_rel *rels; /* parallel to cands */
	size_t n;
	size_t cap;
};

struct rr_provider_mem {
	struct mem_project *projects;
	size_t n;
	size_t cap;
	/* handle -> (project, index) */
	size_t *h_proj;
	size_t *h_idx;
	size_t nh;
	size_t caph;
	size_t caph2;
};

struct rr_provider_mem *rr_provider_mem_new(void)
{
	return rr_xcalloc(1, sizeof(struct rr_provider_mem));
}

struct rr_provider_mem *rr_provider_mem_free(struct rr_provider_mem *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n; i++) {
		struct mem_project *p = &m->projects[i];
		for (size_t k = 0; k < p->n; k++) {
			free(p->cands[k].version_text);
			free(p->cands[k].requires_python);
			rr_version_release(&p->cands[k].version);
			rr_dependencies_free(p->rels[k].deps, p->rels[k].nrequires);
			for (size_t r = 0; r < p->rels[k].nrequires; r++)
				free(p->rels[k].requires[r]);
			free(p->rels[k].requires);
		}
		free(p->key);
		free(p->cands);
		free(p->rels);
	}
	free(m->projects);
	free(m->h_proj);
	free(m->h_idx);
	free(m);
	return NULL;
}

static struct mem_project *find(const struct rr_provider_mem *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->projects[i].key, key))
			return &m->projects[i];
	return NULL;
}

static rr_err add(struct rr_provider_mem *m, const char *name, const char *version,
		  bool installed, size_t *ret, rr_error *err)
{
	RR_AUTOFREE char *key = rr_name_normalize(name);
	struct rr_version v = RR_VERSION_INIT;
	struct mem_project *p;
	size_t idx;
	rr_err rc;

	rc = rr_version_parse(version, &v, err);
	if (rc) {
		rr_error_prefix(err, "%s %s: ", name, version);
		return rc;
	}
	p = find(m, key);
	if (!p) {
		p = &RR_PUSH(m->projects, m->n, m->cap);
		memset(p, 0, sizeof(*p));
		p->key = RR_STEAL(key);
	}
	for (idx = 0; idx < p->n; idx++)
		if (rr_version_cmp(&p->cands[idx].version, &v) == 0)
			break;
	if (idx < p->n) {
		/* a later index (or the venv) repeating a version: first record wins */
		rr_version_release(&v);
		p->cands[idx].installed |= installed;
	} else {
		size_t cap2 = p->cap;
		struct rr_candidate *c;
		rr_xgrow((void **)&p->cands, &p->cap, sizeof(*p->cands), p->n + 1);
		rr_xgrow((void **)&p->rels, &cap2, sizeof(*p->rels), p->n + 1);
		c = &p->cands[p->n];
		memset(c, 0, sizeof(*c));
		memset(&p->rels[p->n], 0, sizeof(p->rels[0]));
		c->version_text = rr_xstrdup(version);
		c->version = v;
		c->installed = installed;
		p->n++;
	}
	rr_xgrow((void **)&m->h_proj, &m->caph, sizeof(*m->h_proj), m->nh + 1);
	rr_xgrow((void **)&m->h_idx, &m->caph2, sizeof(*m->h_idx), m->nh + 1);
	m->h_proj[m->nh] = (size_t)(p - m->projects);
	m->h_idx[m->nh] = idx;
	if (ret)
		*ret = m->nh;
	m->nh++;
	return RR_OK;
}

rr_err rr_provider_mem_add(struct rr_provider_mem *m, const char *name, const char *version,
			   size_t *ret, rr_error *err)
{
	return add(m, name, version, false, ret, err);
}

rr_err rr_provider_mem_add_installed(struct rr_provider_mem *m, const char *name,
				     const char *version, rr_error *err)
{
	return add(m, name, version, true, NULL, err);
}

static struct rr_candidate *handle(struct rr_provider_mem *m, size_t h, struct mem_rel **rel)
{
	struct mem_project *p = &m->projects[m->h_proj[h]];
	if (rel)
		*rel = &p->rels[m->h_idx[h]];
	return &p->cands[m->h_idx[h]];
}

void rr_provider_mem_add_requires(struct rr_provider_mem *m, size_t h, const char *req)
{
	struct mem_rel *rel;

	handle(m, h, &rel);
	rel->deps = rr_dependencies_free(rel->deps, rel->nrequires);
	RR_PUSH(rel->requires, rel->nrequires, rel->cap) = rr_xstrdup(req);
}

void rr_provider_mem_set_requires_python(struct rr_provider_mem *m, size_t h, const char *spec)
{
	struct rr_candidate *c = handle(m, h, NULL);

	free(c->requires_python);
	c->requires_python = rr_xstrdup(spec);
}

void rr_provider_mem_set_yanked(struct rr_provider_mem *m, size_t h, bool yanked)
{
	handle(m, h, NULL)->yanked = yanked;
}

void rr_provider_mem_set_sdist(struct rr_provider_mem *m, size_t h)
{
	handle(m, h, NULL)->sdist = true;
}

size_t rr_provider_mem_nrequires(struct rr_provider_mem *m, size_t h)
{
	struct mem_rel *rel;

	handle(m, h, &rel);
	return rel->nrequires;
}

static rr_err mem_candidates(void *ctx, const char *key, const struct rr_candidate **ret,
			     size_t *n, rr_error *err)
{
	struct rr_provider_mem *m = ctx;
	struct mem_project *p = find(m, key);

	if (!p)
		return rr_fail(err, RR_E_NOTFOUND, "no project '%s' in the index", key);
	*ret = p->cands;
	*n = p->n;
	return RR_OK;
}

static rr_err mem_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			       const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	struct rr_provider_mem *m = ctx;
	struct mem_project *p = find(m, key);
	struct mem_rel *rel;

	if (!p || c < p->cands || c >= p->cands + p->n)
		return rr_fail(err, RR_E_INTERNAL, "candidate of '%s' not from this provider", key);
	if (p->rels[c - p->cands].deps_unknown) {
		/* as the index provider does: known only once asked, then no list */
		((struct rr_candidate *)c)->deps_unknown = true;
		*ret = NULL;
		*n = 0;
		return RR_OK;
	}
	rel = &p->rels[c - p->cands];
	if (!rel->deps)
		rel->deps = rr_dependencies_parse((const char *const *)rel->requires, rel->nrequires);
	*ret = rel->deps;
	*n = rel->nrequires;
	return RR_OK;
}

void rr_provider_mem_set_deps_unknown(struct rr_provider_mem *m, size_t h)
{
	struct mem_rel *rel;

	handle(m, h, &rel);
	rel->deps_unknown = true;
}

void rr_provider_mem_get(struct rr_provider_mem *m, struct rr_provider *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ctx = m;
	ret->candidates = mem_candidates;
	ret->dependencies = mem_dependencies;
}

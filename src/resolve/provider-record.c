/*
 * provider-record.c - a provider that passes every question to another one and
 * remembers the answers, for replay on the in-memory provider (testcases).
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/provider.h"
#include "rocm-resolve/strbuf.h"

struct rec_deps {
	const struct rr_candidate *cand;
	char **requires;
	size_t n;
};

struct rec_project {
	char *key;
	const struct rr_candidate *cands; /* the inner provider's, valid while it lives */
	size_t ncands;
	bool missing;
	struct rec_deps *deps;
	size_t ndeps, cap_deps;
};

struct rr_provider_record {
	struct rr_provider inner;
	struct rec_project *projects;
	size_t n, cap;
};

static struct rec_project *project(struct rr_provider_record *r, const char *key)
{
	struct rec_project *p;

	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->projects[i].key, key) == 0)
			return &r->projects[i];
	p = &RR_PUSH(r->projects, r->n, r->cap);
	memset(p, 0, sizeof(*p));
	p->key = rr_xstrdup(key);
	return p;
}

static rr_err rec_candidates(void *ctx, const char *key, const struct rr_candidate **ret,
			     size_t *n, rr_error *err)
{
	struct rr_provider_record *r = ctx;
	rr_err rc = r->inner.candidates(r->inner.ctx, key, ret, n, err);
	struct rec_project *p = project(r, key);

	if (rc == RR_E_NOTFOUND)
		p->missing = true;
	else if (!rc) {
		p->cands = *ret;
		p->ncands = *n;
	}
	return rc;
}

static rr_err rec_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			       const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	struct rr_provider_record *r = ctx;
	rr_err rc = r->inner.dependencies(r->inner.ctx, key, c, ret, n, err);
	struct rec_project *p;
	struct rec_deps *d;

	if (rc)
		return rc;
	p = project(r, key);
	for (size_t i = 0; i < p->ndeps; i++)
		if (p->deps[i].cand == c)
			return rc;
	d = &RR_PUSH(p->deps, p->ndeps, p->cap_deps);
	d->cand = c;
	d->n = *n;
	d->requires = rr_xcalloc(*n + 1, sizeof(char *));
	for (size_t i = 0; i < *n; i++)
		d->requires[i] = rr_xstrdup((*ret)[i].text);
	return rc;
}

static void rec_prefetch(void *ctx, const char *const *keys, size_t n)
{
	struct rr_provider_record *r = ctx;

	if (r->inner.prefetch)
		r->inner.prefetch(r->inner.ctx, keys, n);
}

static void rec_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			      size_t n)
{
	struct rr_provider_record *r = ctx;

	if (r->inner.prefetch_deps)
		r->inner.prefetch_deps(r->inner.ctx, key, cs, n);
}

static void rec_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs,
			 size_t n)
{
	struct rr_provider_record *r = ctx;

	if (r->inner.upcoming)
		r->inner.upcoming(r->inner.ctx, key, cs, n);
}

static void rec_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs,
			  size_t n)
{
	struct rr_provider_record *r = ctx;

	if (r->inner.will_need)
		r->inner.will_need(r->inner.ctx, key, cs, n);
}

struct rr_provider_record *rr_provider_record_new(const struct rr_provider *inner)
{
	struct rr_provider_record *r = rr_xcalloc(1, sizeof(*r));

	r->inner = *inner;
	return r;
}

void rr_provider_record_get(struct rr_provider_record *r, struct rr_provider *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ctx = r;
	ret->candidates = rec_candidates;
	ret->dependencies = rec_dependencies;
	ret->prefetch = rec_prefetch;
	ret->prefetch_deps = rec_prefetch_deps;
	ret->upcoming = rec_upcoming;
	ret->will_need = rec_will_need;
}

void rr_provider_record_format(const struct rr_provider_record *r, struct rr_strbuf *out)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct rec_project *p = &r->projects[i];
		if (p->missing)
			rr_strbuf_addf(out, "# %s: no index has it\n", p->key);
		for (size_t k = 0; k < p->ncands; k++) {
			const struct rr_candidate *c = &p->cands[k];
			rr_strbuf_addf(out, "=Pkg: %s %s\n", p->key, c->version_text);
			if (c->requires_python)
				rr_strbuf_addf(out, "=Pyr: %s\n", c->requires_python);
			if (c->yanked)
				rr_strbuf_adds(out, "=Ynk:\n");
			if (c->deps_unknown)
				rr_strbuf_adds(out, "=Unk:\n");
			if (c->sdist)
				rr_strbuf_adds(out, "=Src:\n");
			if (c->installed)
				rr_strbuf_adds(out, "=Ins:\n");
			for (size_t d = 0; d < p->ndeps; d++) {
				if (p->deps[d].cand != c)
					continue;
				for (size_t q = 0; q < p->deps[d].n; q++)
					rr_strbuf_addf(out, "=Req: %s\n", p->deps[d].requires[q]);
			}
		}
	}
}

struct rr_provider_record *rr_provider_record_free(struct rr_provider_record *r)
{
	if (!r)
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		struct rec_project *p = &r->projects[i];
		for (size_t d = 0; d < p->ndeps; d++) {
			for (size_t q = 0; q < p->deps[d].n; q++)
				free(p->deps[d].requires[q]);
			free(p->deps[d].requires);
		}
		free(p->deps);
		free(p->key);
	}
	free(r->projects);
	free(r);
	return NULL;
}

/*
 * uvfilter.c - exclude-dependencies and override-dependencies of a uv project,
 * applied to what a provider says of each release (uvfilter-private.h): a
 * requirement on an excluded name is dropped, one on an overridden name is
 * replaced by the override (its marker included), as uv does for every package
 * it locks. A release none of whose requirements is touched is handed out as the
 * base provider has it.
 */
#include <stdlib.h>
#include <string.h>

#include "flow/uvfilter-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"

struct filtered {
	const struct rr_candidate *c;
	struct rr_dependency *deps;
	size_t n;
};

struct rr_uv_filter {
	struct rr_provider base;
	char **excludes; /* normalised names */
	size_t nexcludes;
	struct rr_requirement *over;
	const char **over_text;
	size_t nover;
	struct filtered *v;
	size_t n, cap;
};

static bool excluded(const struct rr_uv_filter *uf, const char *key)
{
	for (size_t i = 0; i < uf->nexcludes; i++)
		if (strcmp(uf->excludes[i], key) == 0)
			return true;
	return false;
}

static ssize_t override_of(const struct rr_uv_filter *uf, const char *key)
{
	for (size_t i = 0; i < uf->nover; i++)
		if (uf->over[i].key && strcmp(uf->over[i].key, key) == 0)
			return (ssize_t)i;
	return -1;
}

static rr_err uf_candidates(void *ctx, const char *key, const struct rr_candidate **ret, size_t *n,
			    rr_error *err)
{
	const struct rr_uv_filter *uf = ctx;

	return uf->base.candidates(uf->base.ctx, key, ret, n, err);
}

static rr_err uf_dependencies(void *ctx, const char *key, const struct rr_candidate *c,
			      const struct rr_dependency **ret, size_t *n, rr_error *err)
{
	struct rr_uv_filter *uf = ctx;
	const struct rr_dependency *d;
	struct filtered *f;
	size_t nd, k = 0;
	bool touched = false;
	rr_err rc;

	for (size_t i = 0; i < uf->n; i++)
		if (uf->v[i].c == c) {
			*ret = uf->v[i].deps;
			*n = uf->v[i].n;
			return RR_OK;
		}
	if ((rc = uf->base.dependencies(uf->base.ctx, key, c, &d, &nd, err)))
		return rc;
	for (size_t i = 0; i < nd && !touched; i++)
		touched = d[i].rc == RR_OK && d[i].req.key &&
			  (excluded(uf, d[i].req.key) || override_of(uf, d[i].req.key) >= 0);
	if (!touched) {
		*ret = d;
		*n = nd;
		return RR_OK;
	}
	f = &RR_PUSH(uf->v, uf->n, uf->cap);
	f->c = c;
	f->deps = rr_xcalloc(nd + 1, sizeof(*f->deps));
	for (size_t i = 0; i < nd; i++) {
		ssize_t o = d[i].rc == RR_OK && d[i].req.key ? override_of(uf, d[i].req.key) : -1;
		if (d[i].rc == RR_OK && d[i].req.key && excluded(uf, d[i].req.key))
			continue;
		f->deps[k].text = o >= 0 ? uf->over_text[o] : d[i].text;
		f->deps[k].rc = d[i].rc;
		f->deps[k].why = d[i].why ? rr_xstrdup(d[i].why) : NULL;
		f->deps[k].req = (struct rr_requirement)RR_REQUIREMENT_INIT;
		if (d[i].rc == RR_OK)
			rr_requirement_copy(&f->deps[k].req, o >= 0 ? &uf->over[o] : &d[i].req);
		k++;
	}
	f->n = k;
	*ret = f->deps;
	*n = f->n;
	return RR_OK;
}

static void uf_prefetch(void *ctx, const char *const *keys, size_t n)
{
	const struct rr_uv_filter *uf = ctx;

	uf->base.prefetch(uf->base.ctx, keys, n);
}

static void uf_prefetch_deps(void *ctx, const char *key, const struct rr_candidate *const *cs,
			     size_t n)
{
	const struct rr_uv_filter *uf = ctx;

	uf->base.prefetch_deps(uf->base.ctx, key, cs, n);
}

static void uf_upcoming(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	const struct rr_uv_filter *uf = ctx;

	uf->base.upcoming(uf->base.ctx, key, cs, n);
}

static void uf_will_need(void *ctx, const char *key, const struct rr_candidate *const *cs, size_t n)
{
	const struct rr_uv_filter *uf = ctx;

	uf->base.will_need(uf->base.ctx, key, cs, n);
}

struct rr_uv_filter *rr_uv_filter_new(const struct rr_provider *base, const struct rr_reqset *reqs)
{
	struct rr_uv_filter *uf;

	if (!reqs->nuv_excludes && !reqs->nuv_overrides)
		return NULL;
	uf = rr_xcalloc(1, sizeof(*uf));
	uf->base = *base;
	uf->excludes = reqs->uv_excludes;
	uf->nexcludes = reqs->nuv_excludes;
	uf->over = rr_xcalloc(reqs->nuv_overrides + 1, sizeof(*uf->over));
	uf->over_text = rr_xcalloc(reqs->nuv_overrides + 1, sizeof(*uf->over_text));
	for (size_t i = 0; i < reqs->nuv_overrides; i++) {
		struct rr_requirement r = RR_REQUIREMENT_INIT;
		/* the loader parsed each one already: one that does not parse is skipped */
		if (rr_requirement_parse(reqs->uv_overrides[i], &r, NULL) != RR_OK) {
			rr_requirement_release(&r);
			continue;
		}
		uf->over_text[uf->nover] = reqs->uv_overrides[i];
		uf->over[uf->nover++] = r;
	}
	return uf;
}

void rr_uv_filter_get(struct rr_uv_filter *uf, struct rr_provider *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->ctx = uf;
	ret->candidates = uf_candidates;
	ret->dependencies = uf_dependencies;
	ret->prefetch = uf->base.prefetch ? uf_prefetch : NULL;
	ret->prefetch_deps = uf->base.prefetch_deps ? uf_prefetch_deps : NULL;
	ret->upcoming = uf->base.upcoming ? uf_upcoming : NULL;
	ret->will_need = uf->base.will_need ? uf_will_need : NULL;
}

struct rr_uv_filter *rr_uv_filter_free(struct rr_uv_filter *uf)
{
	if (!uf)
		return NULL;
	for (size_t i = 0; i < uf->n; i++)
		rr_dependencies_free(uf->v[i].deps, uf->v[i].n);
	free(uf->v);
	for (size_t i = 0; i < uf->nover; i++)
		rr_requirement_release(&uf->over[i]);
	free(uf->over);
	free(uf->over_text);
	free(uf);
	return NULL;
}

/*
 * solver.c - Python packaging on top of the PubGrub core: candidates from a
 * provider, specifiers turned into candidate bitsets, markers, extras,
 * Requires-Python, pre-releases, yanked releases, and the ROCm rules (fixed
 * packages, clash groups, forbidden names).
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/name.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

#include "resolve/pubgrub-private.h"

enum rs_kind { RS_PLAIN, RS_FIXED, RS_FORBIDDEN, RS_UNKNOWN };

/* how many of the candidates a walk would try next the provider is told about */
/* how many of a package's next candidates upcoming() is told of (the provider fetches
 * as many of them ahead as its walk has earned) */
#define RS_UPCOMING 32

struct rs_pkg {
	char *key;   /* normalised base name */
	char *extra; /* normalised extra for a virtual "key[extra]" package, else NULL */
	uint32_t base;
	enum rs_kind kind;
	const struct rr_fixed *fixed;
	const char *forbidden; /* reason, NULL when allowed */
	const struct rr_candidate **cands; /* sorted ascending */
	const char **vtext;
	size_t n;
	bool pre_ok;
	struct rr_candidate *fixed_cand; /* RS_FIXED: the only candidate (heap: the array moves) */
};

struct rs {
	const struct rr_provider *prov;
	const struct rr_resolve_request *rq;
	struct rr_marker_env env;
	struct rr_version python;
	bool have_python;
	struct pg_solver *pg;
	struct rs_pkg *pkgs; /* indexed by pubgrub id; [0] is root */
	size_t npkgs;
	size_t cap;
	char **pre_keys; /* keys whose root requirements or constraints name a pre-release */
	size_t npre;
	size_t cappre;
};

struct rr_solution {
	bool ok;
	struct rr_solved *items;
	size_t n;
	char *explain;
	size_t *culprits;
	size_t nculprits;
	size_t *skipped;
	size_t nskipped;
	size_t steps;
	/* owned storage behind items */
	struct rr_candidate *fixed_cands;
	size_t nfixed;
};

/* ---- packages ----------------------------------------------------------- */

static int cmp_cand(const void *a, const void *b)
{
	const struct rr_candidate *x = *(const struct rr_candidate *const *)a;
	const struct rr_candidate *y = *(const struct rr_candidate *const *)b;
	return rr_version_cmp(&x->version, &y->version);
}

static const struct rr_fixed *find_fixed(const struct rr_resolve_request *rq, const char *key)
{
	for (size_t i = 0; i < rq->nfixed; i++)
		if (!strcmp(rq->fixed[i].key, key))
			return &rq->fixed[i];
	return NULL;
}

/* why key may not be installed, or NULL: the request's list first, then its callback */
static const char *find_forbidden(const struct rr_resolve_request *rq, const char *key)
{
	for (size_t i = 0; i < rq->nforbidden; i++)
		if (!strcmp(rq->forbidden[i].key, key))
			return rq->forbidden[i].reason ? rq->forbidden[i].reason : "policy";
	return rq->forbidden_fn ? rq->forbidden_fn(rq->callback_ctx, key) : NULL;
}

/* the fixed member of key's clash group, when that is another package */
static const struct rr_fixed *clash_fixed(const struct rr_resolve_request *rq, const char *key)
{
	for (size_t i = 0; i < rq->nclashes; i++) {
		if (strcmp(rq->clashes[i].key, key))
			continue;
		for (size_t j = 0; j < rq->nclashes; j++) {
			const struct rr_fixed *f;
			if (j == i || strcmp(rq->clashes[j].group, rq->clashes[i].group))
				continue;
			f = find_fixed(rq, rq->clashes[j].key);
			if (f && strcmp(f->key, key))
				return f;
		}
	}
	if (rq->clash_fn) {
		const char *other = rq->clash_fn(rq->callback_ctx, key);
		const struct rr_fixed *f = other ? find_fixed(rq, other) : NULL;
		if (f && strcmp(f->key, key))
			return f;
	}
	return NULL;
}

static bool pre_named(const struct rs *r, const char *key)
{
	for (size_t i = 0; i < r->npre; i++)
		if (!strcmp(r->pre_keys[i], key))
			return true;
	return false;
}

static rr_err marker_holds(const struct rs *r, const struct rr_requirement *req, const char *extra,
			   bool *ret, rr_error *err)
{
	struct rr_marker_env env = r->env;

	if (!req->marker) {
		*ret = true;
		return RR_OK;
	}
	env.vars[RR_MVAR_EXTRA] = extra ? extra : "";
	return rr_marker_eval(req->marker, &env, ret, err);
}

/* Requires-Python and constraints: facts about a package's candidates */
static rr_err add_static_facts(struct rs *r, uint32_t id, rr_error *err)
{
	struct rs_pkg *p = &r->pkgs[id];
	const struct rr_resolve_request *rq = r->rq;

	if (r->have_python) {
		bool *done = rr_xcalloc(p->n + 1, sizeof(*done));
		for (size_t i = 0; i < p->n; i++) {
			const char *rp = p->cands[i]->requires_python;
			enum rr_python_verdict verdict;
			uint64_t *bad;
			bool any = false;
			if (!rp || done[i])
				continue;
			bad = pg_set_new(r->pg, id);
			verdict = rr_requires_python(rp, &r->python,
						     rq->flags & RR_RESOLVE_PYTHON_LOWER);
			if (verdict == RR_PYTHON_INVALID) {
				/* pip skips files whose Requires-Python does not parse */
				for (size_t k = i; k < p->n; k++) {
					if (!rr_str_eq(p->cands[k]->requires_python, rp))
						continue;
					done[k] = true;
					pg_set_add(bad, (uint32_t)k);
				}
				RR_AUTOFREE char *why =
					rr_xasprintf("has an invalid Requires-Python '%s'", rp);
				pg_add_forbidden(r->pg, id, bad, PG_K_UNAVAILABLE, -1, NULL, NULL, why);
				continue;
			}
			for (size_t k = i; k < p->n; k++) {
				if (!rr_str_eq(p->cands[k]->requires_python, rp))
					continue;
				done[k] = true;
				if (!p->cands[k]->installed && verdict == RR_PYTHON_EXCLUDES) {
					pg_set_add(bad, (uint32_t)k);
					any = true;
				}
			}
			if (any) {
				RR_AUTOFREE char *why = rr_xasprintf(
					"requires Python %s (the target has %s)", rp,
					r->env.vars[RR_MVAR_PYTHON_FULL_VERSION]);
				pg_add_forbidden(r->pg, id, bad, PG_K_UNAVAILABLE, -1, NULL, NULL, why);
			}
		}
		free(done);
	}
	for (size_t c = 0; c < rq->nconstraints; c++) {
		const struct rr_requirement *req = rq->constraints[c].req;
		uint64_t *bad;
		bool any = false;
		bool holds;
		rr_err rc;
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		if (strcmp(req->key, p->key))
			continue;
		rc = marker_holds(r, req, NULL, &holds, err);
		if (rc)
			return rc;
		if (!holds)
			continue;
		bad = pg_set_new(r->pg, id);
		for (size_t i = 0; i < p->n; i++) {
			if (!rr_specset_contains(&req->spec, &p->cands[i]->version,
						 RR_PRE_POLICY_ALLOW)) {
				pg_set_add(bad, (uint32_t)i);
				any = true;
			}
		}
		if (!any)
			continue;
		rr_strbuf_adds(&text, req->name);
		rr_specset_format(&req->spec, &text);
		pg_add_forbidden(r->pg, id, bad, PG_K_CONSTRAINT, -1, rq->constraints[c].origin,
				 text.buf, NULL);
	}
	return RR_OK;
}

static int32_t find_pkg(const struct rs *r, const char *key, const char *extra)
{
	for (size_t i = 1; i < r->npkgs; i++)
		if (!strcmp(r->pkgs[i].key, key) && rr_str_eq(r->pkgs[i].extra, extra))
			return (int32_t)i;
	return -1;
}

static rr_err get_pkg(struct rs *r, const char *key, const char *extra, uint32_t *ret,
		      rr_error *err)
{
	int32_t found = find_pkg(r, key, extra);
	struct rs_pkg *p;
	int32_t preferred = -1;
	uint32_t id;
	bool all_pre = true;
	rr_err rc;

	if (found >= 0) {
		*ret = (uint32_t)found;
		return RR_OK;
	}
	if (extra) {
		uint32_t base;
		RR_AUTOFREE char *name = rr_xasprintf("%s[%s]", key, extra);
		rc = get_pkg(r, key, NULL, &base, err);
		if (rc)
			return rc;
		p = &RR_PUSH(r->pkgs, r->npkgs, r->cap);
		*p = r->pkgs[base];
		p->fixed_cand = NULL;
		p->key = rr_xstrdup(key);
		p->extra = rr_xstrdup(extra);
		p->base = base;
		for (size_t i = 0; i < p->n; i++)
			if (p->cands[i]->installed && !(r->rq->flags & RR_RESOLVE_NEWEST))
				preferred = (int32_t)i;
		/* share the base's arrays: they are freed through the base only */
		id = pg_pkg_add(r->pg, name, (uint32_t)p->n, p->vtext, preferred);
		*ret = id;
		return RR_OK;
	}
	p = &RR_PUSH(r->pkgs, r->npkgs, r->cap);
	memset(p, 0, sizeof(*p));
	p->key = rr_xstrdup(key);
	p->base = (uint32_t)(r->npkgs - 1);
	p->fixed = find_fixed(r->rq, key);
	p->forbidden = p->fixed ? NULL : find_forbidden(r->rq, key);
	if (p->fixed) {
		struct rr_candidate *fc = rr_xcalloc(1, sizeof(*fc));
		p->kind = RS_FIXED;
		rc = rr_version_parse(p->fixed->version, &fc->version, err);
		if (rc) {
			rr_error_prefix(err, "fixed package '%s': ", key);
			free(fc);
			r->npkgs--;
			free(p->key);
			return rc;
		}
		fc->version_text = (char *)p->fixed->version;
		fc->installed = true;
		p->fixed_cand = fc;
		p->n = 1;
		p->cands = rr_xmalloc(sizeof(*p->cands));
		p->cands[0] = fc;
	} else if (p->forbidden) {
		p->kind = RS_FORBIDDEN;
	} else {
		const struct rr_candidate *list;
		size_t n = 0;
		rr_error e2 = RR_ERROR_INIT;
		rc = r->prov->candidates(r->prov->ctx, key, &list, &n, &e2);
		if (rc == RR_E_NOTFOUND) {
			rr_error_release(&e2);
			p->kind = RS_UNKNOWN;
		} else if (rc) {
			rr_error_move(err, &e2);
			r->npkgs--;
			free(p->key);
			return rc;
		} else {
			p->n = n;
			p->cands = rr_xmalloc((n ? n : 1) * sizeof(*p->cands));
			for (size_t i = 0; i < n; i++)
				p->cands[i] = &list[i];
			rr_qsort(p->cands, n, sizeof(*p->cands), cmp_cand);
		}
	}
	p->vtext = rr_xmalloc((p->n ? p->n : 1) * sizeof(*p->vtext));
	for (size_t i = 0; i < p->n; i++) {
		p->vtext[i] = p->cands[i]->version_text;
		if (p->cands[i]->installed && (p->kind == RS_FIXED || !(r->rq->flags & RR_RESOLVE_NEWEST)))
			preferred = (int32_t)i;
		if (!rr_version_is_prerelease(&p->cands[i]->version))
			all_pre = false;
	}
	p->pre_ok = (r->rq->flags & RR_RESOLVE_PRERELEASE) || all_pre || pre_named(r, key);
	if (p->kind == RS_PLAIN && p->n && r->prov->prefetch_deps) {
		/* the release most likely to be chosen: the installed one, else the newest */
		const struct rr_candidate *likely = p->cands[preferred >= 0 ? (size_t)preferred
									    : p->n - 1];
		r->prov->prefetch_deps(r->prov->ctx, key, &likely, 1);
	}
	id = pg_pkg_add(r->pg, key, (uint32_t)p->n, p->vtext, preferred);
	rc = add_static_facts(r, id, err);
	if (rc)
		return rc;
	*ret = id;
	return RR_OK;
}

/* ---- requirements -> dependency incompatibilities ----------------------- */

static bool cand_usable(const struct rs_pkg *p, size_t i, const struct rr_specset *spec,
			bool allow_pre)
{
	const struct rr_candidate *c = p->cands[i];

	if (!rr_specset_contains(spec, &c->version, RR_PRE_POLICY_ALLOW))
		return false;
	if (c->installed)
		return true;
	if (!allow_pre && rr_version_is_prerelease(&c->version))
		return false;
	if (c->yanked && !rr_specset_exact(spec))
		return false;
	return true;
}

static char *nomatch_reason(const struct rs *r, const struct rs_pkg *p)
{
	(void)r;
	switch (p->kind) {
	case RS_FIXED:
		return rr_xasprintf("%s is fixed at %s (%s)", p->key, p->fixed->version,
				    p->fixed->reason ? p->fixed->reason : "protected");
	case RS_FORBIDDEN:
		return rr_xasprintf("%s is forbidden (%s)", p->key, p->forbidden);
	case RS_UNKNOWN:
		return rr_xasprintf("%s is not in the index", p->key);
	case RS_PLAIN:
		break;
	}
	if (!p->n)
		return rr_xasprintf("%s has no versions in the index", p->key);
	return rr_xasprintf("no version of %s matches", p->key);
}

/* "name[extras]spec" without the marker, for explanations */
static char *req_text(const struct rr_requirement *req)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_adds(&sb, req->name);
	if (req->nextras) {
		rr_strbuf_addch(&sb, '[');
		for (size_t i = 0; i < req->nextras; i++) {
			if (i)
				rr_strbuf_addch(&sb, ',');
			rr_strbuf_adds(&sb, req->extras[i]);
		}
		rr_strbuf_addch(&sb, ']');
	}
	if (req->url)
		rr_strbuf_addf(&sb, " @ %s", req->url);
	else
		rr_specset_format(&req->spec, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

/* one edge pkg@cand -> target (set over target's candidates) */
static void edge(struct rs *r, uint32_t pkg, uint32_t cand, uint32_t target, const uint64_t *set,
		 int32_t tag, const char *origin, const char *text, const char *nomatch)
{
	if (target == pkg) {
		/* a release requiring itself: fine if it matches, else unusable */
		if (!pg_set_has(set, cand)) {
			RR_AUTOFREE char *why = rr_xasprintf("depends on itself as %s", text);
			uint64_t *me = pg_set_new(r->pg, pkg);
			pg_set_add(me, cand);
			pg_add_forbidden(r->pg, pkg, me, PG_K_UNAVAILABLE, tag, origin, NULL, why);
		}
		return;
	}
	pg_add_dependency(r->pg, pkg, cand, target, set, tag, origin, text, nomatch);
}

static rr_err add_requirement(struct rs *r, uint32_t pkg, uint32_t cand,
			      const struct rr_requirement *req, int32_t tag, const char *origin,
			      rr_error *err)
{
	RR_AUTOFREE char *text = req_text(req);
	const struct rr_fixed *cf = clash_fixed(r->rq, req->key);
	uint32_t target;
	uint64_t *set;
	struct rs_pkg *t;
	bool any = false;
	rr_err rc;

	if (req->url) {
		rc = get_pkg(r, req->key, NULL, &target, err);
		if (rc)
			return rc;
		set = pg_set_new(r->pg, target);
		edge(r, pkg, cand, target, set, tag, origin, text,
				  "direct references are not resolved from the index");
		return RR_OK;
	}
	if (cf) {
		/*
		 * clash group: the import package already comes from a fixed
		 * distribution; compare the requirement with its public version
		 * and never select the other distribution
		 */
		struct rr_version pub;
		rc = get_pkg(r, cf->key, NULL, &target, err);
		if (rc)
			return rc;
		t = &r->pkgs[target];
		set = pg_set_new(r->pg, target);
		pub = t->cands[0]->version;
		pub.local = NULL;
		if (rr_specset_contains(&req->spec, &pub, RR_PRE_POLICY_ALLOW))
			pg_set_add(set, 0);
		{
			RR_AUTOFREE char *why = rr_xasprintf(
				"%s is provided by the fixed %s %s (%s), which does not match",
				req->key, cf->key, cf->version, cf->reason ? cf->reason : "protected");
			edge(r, pkg, cand, target, set, tag, origin, text, why);
		}
		return RR_OK;
	}
	rc = get_pkg(r, req->key, NULL, &target, err);
	if (rc)
		return rc;
	t = &r->pkgs[target];
	set = pg_set_new(r->pg, target);
	for (int pass = 0; pass < 2 && !any; pass++) {
		/* pass 1: pip's fallback to pre-releases when nothing else matches */
		for (size_t i = 0; i < t->n; i++) {
			if (cand_usable(t, i, &req->spec, t->pre_ok || pass)) {
				pg_set_add(set, (uint32_t)i);
				any = true;
			}
		}
	}
	{
		RR_AUTOFREE char *why = NULL;
		if (!any) {
			bool yanked = false;
			for (size_t i = 0; i < t->n && !yanked; i++)
				yanked = t->cands[i]->yanked &&
					 rr_specset_contains(&req->spec, &t->cands[i]->version,
							     RR_PRE_POLICY_ALLOW);
			why = yanked && t->kind == RS_PLAIN
				      ? rr_xasprintf("the matching versions of %s are yanked", t->key)
				      : nomatch_reason(r, t);
		}
		edge(r, pkg, cand, target, set, tag, origin, text, why);
	}
	for (size_t e = 0; e < req->nextras && any; e++) {
		RR_AUTOFREE char *ex = rr_name_normalize(req->extras[e]);
		uint32_t xid;
		rc = get_pkg(r, req->key, ex, &xid, err);
		if (rc)
			return rc;
		/* same candidates, same bit positions */
		edge(r, pkg, cand, xid, set, tag, origin, text, NULL);
	}
	return RR_OK;
}

static void unusable(struct rs *r, uint32_t pkg, uint32_t cand, const char *fmt, const char *what,
		     const rr_error *e)
{
	uint64_t *me = pg_set_new(r->pg, pkg);
	RR_AUTOFREE char *why = rr_xasprintf(fmt, what, e->msg ? e->msg : "?");

	pg_set_add(me, cand);
	pg_add_forbidden(r->pg, pkg, me, PG_K_UNAVAILABLE, -1, NULL, NULL, why);
}

static bool rs_deps_unknown(void *ctx, uint32_t pkg, uint32_t cand)
{
	const struct rs *r = ctx;
	const struct rs_pkg *p = &r->pkgs[pkg];

	return p->kind == RS_PLAIN && cand < p->n && p->cands[cand]->deps_unknown;
}

static rr_err rs_dependencies(void *ctx, struct pg_solver *pg, uint32_t pkg, uint32_t cand,
			      rr_error *err)
{
	struct rs *r = ctx;
	struct rs_pkg *p = &r->pkgs[pkg];
	const struct rr_dependency *deps = NULL;
	struct rr_dependency *owned = NULL; /* a fixed package's lines, parsed here */
	size_t n = 0;
	char *key = p->key;
	char *extra = p->extra;
	const struct rr_candidate *c = p->cands[cand];
	rr_err rc = RR_OK;

	if (extra) {
		/* "name[extra]" is name at the same version plus the extra's requirements */
		uint64_t *same = pg_set_new(r->pg, p->base);
		RR_AUTOFREE char *text = rr_xasprintf("%s==%s", key, c->version_text);
		pg_set_add(same, cand);
		pg_add_dependency(r->pg, pkg, cand, p->base, same, -1, NULL, text, NULL);
	}
	if (p->kind == RS_FIXED) {
		n = p->fixed->nrequires;
		deps = owned = rr_dependencies_parse(p->fixed->requires, n);
	} else if (p->kind == RS_PLAIN) {
		rr_error e2 = RR_ERROR_INIT;
		if (r->prov->upcoming) {
			/* what this package's walk would try next, should this one not fit */
			const struct rr_candidate *next[1 + RS_UPCOMING];
			uint32_t idx[RS_UPCOMING];
			size_t k = pg_next_allowed(pg, pkg, cand, idx, RS_UPCOMING);
			next[0] = c;
			for (size_t i = 0; i < k; i++)
				next[1 + i] = p->cands[idx[i]];
			r->prov->upcoming(r->prov->ctx, key, next, 1 + k);
		}
		rc = r->prov->dependencies(r->prov->ctx, key, c, &deps, &n, &e2);
		if (rc) {
			rr_error_move(err, &e2);
			return rc;
		}
	}
	/* the lines come parsed (the provider parsed each once): for the prefetch hint,
	 * then for the dependencies */
	if (r->prov->prefetch && n) {
		const char **keys = rr_xmalloc(n * sizeof(*keys));
		size_t nk = 0;
		for (size_t i = 0; i < n; i++) {
			/* only lines that will count (marker true here, the extra's own lines
			 * for "name[extra]") and names it will ask the provider about (not
			 * fixed, forbidden or in a fixed clash group): hinting the rest
			 * fetched pages nobody uses */
			const struct rr_requirement *req = &deps[i].req;
			bool holds = false;
			if (deps[i].rc == RR_OK && !find_fixed(r->rq, req->key) &&
			    !find_forbidden(r->rq, req->key) && !clash_fixed(r->rq, req->key) &&
			    (!extra || (req->marker && rr_marker_uses_extra(req->marker))) &&
			    marker_holds(r, req, extra, &holds, NULL) == RR_OK && holds && !req->url)
				keys[nk++] = req->key;
		}
		r->prov->prefetch(r->prov->ctx, keys, nk);
		free(keys);
	}
	for (size_t i = 0; i < n && rc == RR_OK; i++) {
		const struct rr_requirement *req = &deps[i].req;
		rr_error e2 = RR_ERROR_INIT;
		bool holds = false;
		if (deps[i].rc != RR_OK) {
			rc = rr_fail(&e2, deps[i].rc, "%s", deps[i].why);
		} else {
			if (extra)
				holds = req->marker && rr_marker_uses_extra(req->marker);
			else
				holds = true;
			if (holds)
				rc = marker_holds(r, req, extra, &holds, &e2);
		}
		if (rc) {
			/* uv and pip give up on such a release, not on the whole run */
			unusable(r, pkg, cand, "has invalid metadata: '%s': %s", deps[i].text, &e2);
			rr_error_release(&e2);
			rc = RR_OK;
			break;
		}
		if (holds)
			rc = add_requirement(r, pkg, cand, req, -1, NULL, err);
		p = &r->pkgs[pkg];
	}
	rr_dependencies_free(owned, n);
	return rc;
}

static bool rs_cancel(void *ctx)
{
	const struct rs *r = ctx;
	return r->rq->should_cancel(r->rq->cancel_ctx);
}

/* ---- the solution ------------------------------------------------------- */

static int cmp_solved(const void *a, const void *b)
{
	return strcmp(((const struct rr_solved *)a)->key, ((const struct rr_solved *)b)->key);
}

static char *why_chain(const struct rs *r, uint32_t pkg)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	char *parts[8];
	size_t n = 0;
	uint32_t cur = pkg;
	bool cut = false;

	/* the last hops tell most; a long chain starts with "..." */
	for (;;) {
		uint32_t parent;
		const char *origin;
		const char *text;
		if (!pg_reason(r->pg, cur, &parent, &origin, &text, NULL))
			break;
		if (n == RR_ARRAY_LEN(parts)) {
			cut = true;
			break;
		}
		if (parent == PG_ROOT) {
			/* no requirement text kept: name the package, never a bare "?" */
			parts[n++] = rr_xasprintf("%s requires %s", origin ? origin : "the request",
						  text ? text : pg_pkg_name(r->pg, cur));
			break;
		}
		parts[n++] = rr_xasprintf("%s %s requires %s", pg_pkg_name(r->pg, parent),
					  r->pkgs[parent].vtext[pg_decision(r->pg, parent)],
					  text ? text : pg_pkg_name(r->pg, cur));
		cur = parent;
	}
	if (cut)
		rr_strbuf_adds(&sb, "...; ");
	while (n) {
		rr_strbuf_adds(&sb, parts[--n]);
		free(parts[n]);
		if (n)
			rr_strbuf_adds(&sb, "; ");
	}
	return rr_strbuf_detach(&sb, NULL);
}

static void build_solution(struct rs *r, struct rr_solution *sol)
{
	size_t cap = 0;

	for (size_t i = 1; i < r->npkgs; i++) {
		const struct rs_pkg *p = &r->pkgs[i];
		int32_t d = pg_decision(r->pg, (uint32_t)i);
		struct rr_solved *it;
		if (d < 0 || p->extra)
			continue;
		it = &RR_PUSH(sol->items, sol->n, cap);
		memset(it, 0, sizeof(*it));
		it->key = rr_xstrdup(p->key);
		it->version = rr_xstrdup(p->cands[d]->version_text);
		it->candidate = p->kind == RS_FIXED ? NULL : p->cands[d];
		it->fixed = p->kind == RS_FIXED;
		it->installed = p->cands[d]->installed;
		it->why = why_chain(r, (uint32_t)i);
		it->root = -1;
		{
			uint32_t parent;
			const char *origin;
			const char *text;
			int32_t tag = -1;
			if (pg_reason(r->pg, (uint32_t)i, &parent, &origin, &text, &tag)) {
				it->via_req = text ? rr_xstrdup(text) : NULL;
				if (parent == PG_ROOT) {
					it->root = tag;
				} else {
					it->via = rr_xstrdup(r->pkgs[parent].key);
					it->via_version = rr_xstrdup(
						r->pkgs[parent].vtext[pg_decision(r->pg, parent)]);
				}
			}
		}
	}
	for (size_t i = 1; i < r->npkgs; i++) {
		const struct rs_pkg *p = &r->pkgs[i];
		if (!p->extra || pg_decision(r->pg, (uint32_t)i) < 0)
			continue;
		for (size_t k = 0; k < sol->n; k++) {
			struct rr_solved *it = &sol->items[k];
			char **ex;
			if (strcmp(it->key, p->key))
				continue;
			ex = (char **)it->extras;
			ex = rr_xrealloc(ex, (it->nextras + 1) * sizeof(*ex));
			ex[it->nextras++] = rr_xstrdup(p->extra);
			it->extras = (const char *const *)ex;
		}
	}
	rr_qsort(sol->items, sol->n, sizeof(*sol->items), cmp_solved);
	/* fixed candidates live in the solver's scratch; the solution keeps copies */
	sol->fixed_cands = rr_xcalloc(sol->n ? sol->n : 1, sizeof(*sol->fixed_cands));
	for (size_t k = 0; k < sol->n; k++) {
		struct rr_solved *it = &sol->items[k];
		struct rr_candidate *fc;
		if (!it->fixed)
			continue;
		fc = &sol->fixed_cands[sol->nfixed++];
		fc->version_text = (char *)it->version;
		rr_version_copy(&fc->version,
				&r->pkgs[find_pkg(r, it->key, NULL)].fixed_cand->version);
		fc->installed = true;
		it->candidate = fc;
	}
}

static void rs_release(struct rs *r)
{
	for (size_t i = 1; i < r->npkgs; i++) {
		struct rs_pkg *p = &r->pkgs[i];
		free(p->key);
		if (p->extra) {
			free(p->extra);
			continue;
		}
		free(p->cands);
		free(p->vtext);
		if (p->fixed_cand) {
			rr_version_release(&p->fixed_cand->version);
			free(p->fixed_cand);
		}
	}
	if (r->npkgs)
		free(r->pkgs[0].key);
	free(r->pkgs);
	for (size_t i = 0; i < r->npre; i++)
		free(r->pre_keys[i]);
	free(r->pre_keys);
	rr_version_release(&r->python);
	r->pg = pg_free(r->pg);
}

static void note_pre(struct rs *r, const struct rr_root_requirement *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rr_specset_mentions_prerelease(&list[i].req->spec))
			RR_PUSH(r->pre_keys, r->npre, r->cappre) = rr_xstrdup(list[i].req->key);
}

rr_err rr_resolve(const struct rr_provider *prov, const struct rr_resolve_request *rq,
		  struct rr_solution **ret, rr_error *err)
{
	struct rs r;
	struct pg_ops ops;
	struct rr_solution *sol = rr_xcalloc(1, sizeof(*sol));
	size_t capskip = 0;
	bool ok = false;
	rr_err rc = RR_OK;
	const char *pyv;

	memset(&r, 0, sizeof(r));
	r.prov = prov;
	r.rq = rq;
	if (rq->env)
		r.env = *rq->env;
	else
		rr_marker_env_init(&r.env);
	pyv = r.env.vars[RR_MVAR_PYTHON_FULL_VERSION];
	r.have_python = pyv && rr_version_parse(pyv, &r.python, NULL) == RR_OK;
	ops.ctx = &r;
	ops.dependencies = rs_dependencies;
	ops.should_cancel = rq->should_cancel ? rs_cancel : NULL;
	ops.deps_unknown = rs_deps_unknown;
	r.pg = pg_new(&ops);
	RR_PUSH(r.pkgs, r.npkgs, r.cap) = (struct rs_pkg){.key = NULL};
	r.pkgs[0].key = rr_xstrdup("");
	note_pre(&r, rq->reqs, rq->nreqs);
	note_pre(&r, rq->constraints, rq->nconstraints);

	for (size_t i = 0; i < rq->nreqs && !rc; i++) {
		const struct rr_requirement *req = rq->reqs[i].req;
		bool holds;
		rc = marker_holds(&r, req, NULL, &holds, err);
		if (rc)
			break;
		if (!holds) {
			RR_PUSH(sol->skipped, sol->nskipped, capskip) = i;
			continue;
		}
		rc = add_requirement(&r, PG_ROOT, 0, req, (int32_t)i, rq->reqs[i].origin, err);
	}
	if (!rc)
		rc = pg_solve(r.pg, rq->max_steps ? rq->max_steps : 100000, &ok, err);
	if (rc) {
		rs_release(&r);
		rr_solution_free(sol);
		return rc;
	}
	sol->ok = ok;
	sol->steps = pg_steps(r.pg);
	if (ok) {
		build_solution(&r, sol);
		sol->explain = rr_xstrdup("");
	} else {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		int32_t *tags = NULL;
		pg_explain(r.pg, &sb);
		sol->explain = rr_strbuf_detach(&sb, NULL);
		sol->nculprits = pg_culprits(r.pg, &tags);
		sol->culprits = rr_xmalloc((sol->nculprits ? sol->nculprits : 1) * sizeof(size_t));
		for (size_t i = 0; i < sol->nculprits; i++)
			sol->culprits[i] = (size_t)tags[i];
		free(tags);
	}
	rs_release(&r);
	*ret = sol;
	return RR_OK;
}

struct rr_solution *rr_solution_free(struct rr_solution *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++) {
		struct rr_solved *it = &s->items[i];
		free((char *)it->key);
		free((char *)it->version);
		free((char *)it->why);
		free((char *)it->via);
		free((char *)it->via_version);
		free((char *)it->via_req);
		for (size_t k = 0; k < it->nextras; k++)
			free((char *)it->extras[k]);
		free((void *)it->extras);
	}
	for (size_t i = 0; i < s->nfixed; i++)
		rr_version_release(&s->fixed_cands[i].version);
	free(s->fixed_cands);
	free(s->items);
	free(s->explain);
	free(s->culprits);
	free(s->skipped);
	free(s);
	return NULL;
}

bool rr_solution_ok(const struct rr_solution *s)
{
	return s->ok;
}

size_t rr_solution_count(const struct rr_solution *s)
{
	return s->n;
}

const struct rr_solved *rr_solution_at(const struct rr_solution *s, size_t i)
{
	return i < s->n ? &s->items[i] : NULL;
}

const struct rr_solved *rr_solution_find(const struct rr_solution *s, const char *key)
{
	size_t lo = 0;
	size_t hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(s->items[mid].key, key);
		if (!c)
			return &s->items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *rr_solution_explain(const struct rr_solution *s)
{
	return s->explain;
}

size_t rr_solution_culprits(const struct rr_solution *s, const size_t **ret)
{
	*ret = s->culprits;
	return s->nculprits;
}

size_t rr_solution_skipped(const struct rr_solution *s, const size_t **ret)
{
	*ret = s->skipped;
	return s->nskipped;
}

size_t rr_solution_steps(const struct rr_solution *s)
{
	return s->steps;
}

/* ---- one answer per requirement ----------------------------------------- */

rr_err rr_resolve_each(const struct rr_provider *p, const struct rr_resolve_request *rq,
		       struct rr_each_result *ret, rr_error *err)
{
	struct rr_resolve_request sub = *rq;
	struct rr_root_requirement *active = rr_xmalloc((rq->nreqs + 1) * sizeof(*active));
	size_t *index = rr_xmalloc((rq->nreqs + 1) * sizeof(*index));
	struct rr_each_result res = {NULL, NULL, 0};
	size_t cap = 0;
	rr_err rc;

	for (size_t i = 0; i < rq->nreqs; i++) {
		active[i] = rq->reqs[i];
		index[i] = i;
	}
	sub.reqs = active;
	sub.nreqs = rq->nreqs;
	for (;;) {
		const size_t *cul;
		size_t ncul;
		size_t drop;
		struct rr_stripped *st;
		rc = rr_resolve(p, &sub, &res.solution, err);
		if (rc)
			break;
		if (res.solution->ok)
			break;
		ncul = rr_solution_culprits(res.solution, &cul);
		if (!ncul)
			break;
		drop = cul[ncul - 1];
		st = &RR_PUSH(res.stripped, res.nstripped, cap);
		st->index = index[drop];
		st->explanation = rr_xstrdup(res.solution->explain);
		memmove(&active[drop], &active[drop + 1], (sub.nreqs - drop - 1) * sizeof(*active));
		memmove(&index[drop], &index[drop + 1], (sub.nreqs - drop - 1) * sizeof(*index));
		sub.nreqs--;
		res.solution = rr_solution_free(res.solution);
	}
	/* the solution's skipped / culprit / root indices refer to the reduced list */
	if (!rc && res.solution) {
		for (size_t i = 0; i < res.solution->n; i++)
			if (res.solution->items[i].root >= 0)
				res.solution->items[i].root =
					(long)index[res.solution->items[i].root];
		for (size_t i = 0; i < res.solution->nskipped; i++)
			res.solution->skipped[i] = index[res.solution->skipped[i]];
		for (size_t i = 0; i < res.solution->nculprits; i++)
			res.solution->culprits[i] = index[res.solution->culprits[i]];
	}
	free(active);
	free(index);
	if (rc) {
		rr_each_result_release(&res);
		return rc;
	}
	*ret = res;
	return RR_OK;
}

void rr_each_result_release(struct rr_each_result *r)
{
	r->solution = rr_solution_free(r->solution);
	for (size_t i = 0; i < r->nstripped; i++)
		free(r->stripped[i].explanation);
	free(r->stripped);
	r->stripped = NULL;
	r->nstripped = 0;
}

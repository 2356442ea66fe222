/*
 * transitive.c - resolve what the plan keeps, on a provider, with the
 * protected stack fixed, and say for each package what the stack changed.
 *
 * Roots are the reqset items the plan marks resolvable (kept PEP 508
 * requirements whose marker holds; URL, path and editable items are left to
 * the installer, with a warning). The protected stack is fixed at its
 * installed versions; CUDA-only names are forbidden; a dependency on another
 * member of a protected clash group (PyPI triton next to pytorch-triton-rocm)
 * is a conflict too, unless allow_excludes says an installer exclusion will
 * keep it out. rr_resolve_each() strips the requirements that have no safe
 * version, one at a time, keeping the derivation for each.
 *
 * Then, for every resolved package below the newest release that everything
 * in the solution allows (its Requires-Python, yanked state and the
 * specifiers of every package that requires it), the cause is found by
 * looking at that newest release's own dependencies:
 *   - it requires a protected package at another version, a CUDA-only
 *     package, or a clashing one: the stack holds it back, and it is pinned
 *     (a top-level requirement becomes a pin decision, a transitive one a
 *     resolution pin) with that chain as its reason;
 *   - it requires a package that is itself held back for the stack: the same,
 *     with the chain through it;
 *   - its dependencies are unknown without a build: said as unknown;
 *   - otherwise another requirement bounds it, which the installer sees too:
 *     nothing is pinned and nothing claimed.
 * Installed, unprotected versions are not preferred: they are never a reason
 * to hold another package back.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocm-resolve/name.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"

struct incoming {
	const struct rr_specset **v;
	size_t n, cap;
};

struct held {
	const char *key;
	int state; /* 0 unknown, 1 visiting, 2 done */
	char *cause; /* NULL: not held for the stack */
};

struct ctx {
	const struct rr_transitive_input *in;
	const struct rr_provider *prov;
	struct rr_resolution *res;
	struct rr_marker_env env;
	char pybuf[16];
	const struct rr_solution *sol;
	const struct rr_root_requirement *roots;
	size_t nroots;
	const struct rr_root_requirement *cons;
	size_t ncons;
	struct held *held; /* one per solved package, by solution index */
	/* what the solution asks of each solved package, built once: the specifier sets
	 * of every applicable dependency line of every solved release, by solution index */
	struct incoming *in_specs;
	struct rr_requirement **parsed; /* the dependency lines those point into */
	size_t nparsed, cap_parsed;
};

static void warnf(struct rr_resolution *res, char *msg)
{
	RR_PUSH(res->warnings, res->nwarnings, res->cap_warnings) = msg;
}

static struct rr_item_result *item_result(struct rr_resolution *res, size_t item)
{
	struct rr_item_result *r;

	for (size_t i = 0; i < res->nitems; i++)
		if (res->items[i].item == item)
			return &res->items[i];
	r = &RR_PUSH(res->items, res->nitems, res->cap_items);
	memset(r, 0, sizeof(*r));
	r->item = item;
	return r;
}

static void add_exclude(struct rr_resolution *res, const char *key, const char *needed_by,
			const struct rr_protected *over)
{
	for (size_t i = 0; i < res->nexcludes; i++)
		if (strcmp(res->excludes[i], key) == 0)
			return;
	RR_PUSH(res->excludes, res->nexcludes, res->cap_excludes) = rr_xstrdup(key);
	warnf(res, rr_xasprintf("%s depends on %s, which would overwrite the files of the protected "
				"%s %s; kept out by the installer's exclusion list (uv --excludes), "
				"which pip cannot honour",
				needed_by, key, over->name, over->version));
}

/* the member of a protected clash group key would overwrite, or NULL */
static const struct rr_protected *clashes_with(const struct ctx *c, const char *key)
{
	const struct rr_protected *p = rr_stack_clash(c->in->stack, c->in->policy, key);

	if (!p || strcmp(p->key, key) == 0)
		return NULL;
	return p;
}

static bool past_deadline(void *opaque)
{
	const struct ctx *c = opaque;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 > c->in->deadline_ms;
}

/* the resolver asks about every name it meets */
static const char *forbidden_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;
	const char *rule = rr_policy_match_cuda_only(c->in->policy, key);

	if (rule)
		return rule;
	if (!c->in->allow_excludes && clashes_with(c, key))
		return "would overwrite a protected module";
	return NULL;
}

static const char *clash_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;
	const struct rr_protected *p = c->in->allow_excludes ? clashes_with(c, key) : NULL;

	return p ? p->key : NULL;
}

/* ---- why a resolved package is below the newest release ----------------- */

static bool applies(const struct ctx *c, const struct rr_requirement *r, const struct rr_solved *s)
{
	const char *extras[16] = {""};
	size_t n = 1;
	bool yes = false;

	for (size_t e = 0; s && e < s->nextras && n < RR_ARRAY_LEN(extras); e++)
		extras[n++] = s->extras[e];
	if (rr_requirement_applies(r, &c->env, extras, n, &yes, NULL))
		return true;
	return yes;
}

/*
 * does cand's Requires-Python admit the target? As the spec and pip read it
 * (lower_only false), or as uv does (lower_only true): uv ignores upper bounds
 * (<, <=, !=, and the upper half of ~= and ==X.*) and tests only the lower ones
 */
static bool python_admits(const struct ctx *c, const struct rr_candidate *cand, bool lower_only)
{
	struct rr_specset sp = RR_SPECSET_INIT;
	struct rr_version v;
	bool ok = true;

	if (!cand->requires_python || !c->env.vars[RR_MVAR_PYTHON_FULL_VERSION])
		return true;
	if (rr_version_parse(c->env.vars[RR_MVAR_PYTHON_FULL_VERSION], &v, NULL))
		return true;
	if (!rr_specset_parse(cand->requires_python, &sp, NULL)) {
		if (!lower_only) {
			ok = rr_specset_contains(&sp, &v, RR_PRE_POLICY_ALLOW);
		} else {
			for (size_t k = 0; k < sp.n && ok; k++) {
				const struct rr_spec *it = &sp.items[k];
				switch (it->op) {
				case RR_OP_GE:
				case RR_OP_GT:
					ok = rr_spec_match(it, &v);
					break;
				case RR_OP_EQ:
				case RR_OP_COMPAT:
					/* the lower end: X (X.* and ~=X alike) */
					ok = rr_version_cmp(&v, &it->ver) >= 0;
					break;
				default:
					break; /* <, <=, !=, ===: no lower bound */
				}
			}
		}
	}
	rr_specset_release(&sp);
	rr_version_release(&v);
	return ok;
}

static bool python_ok(const struct ctx *c, const struct rr_candidate *cand)
{
	return python_admits(c, cand, false);
}

static size_t solved_index(const struct ctx *c, const char *key);

/* parse every applicable dependency line of the solution once, filed under the package it names */
static void build_incoming(struct ctx *c)
{
	size_t n = rr_solution_count(c->sol);

	c->in_specs = rr_xcalloc(n + 1, sizeof(*c->in_specs));
	for (size_t i = 0; i < n; i++) {
		const struct rr_solved *s = rr_solution_at(c->sol, i);
		const char *const *deps;
		size_t nd;
		rr_error err = RR_ERROR_INIT;

		if (s->fixed || !s->candidate ||
		    c->prov->dependencies(c->prov->ctx, s->key, s->candidate, &deps, &nd, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < nd; k++) {
			struct rr_requirement *dep = rr_xmalloc(sizeof(*dep));
			size_t j;
			*dep = (struct rr_requirement)RR_REQUIREMENT_INIT;
			if (rr_requirement_parse(deps[k], dep, NULL) || !dep->key ||
			    !applies(c, dep, s) || (j = solved_index(c, dep->key)) == (size_t)-1) {
				rr_requirement_release(dep);
				free(dep);
				continue;
			}
			RR_PUSH(c->parsed, c->nparsed, c->cap_parsed) = dep;
			RR_PUSH(c->in_specs[j].v, c->in_specs[j].n, c->in_specs[j].cap) = &dep->spec;
		}
	}
}

static void free_incoming(struct ctx *c)
{
	for (size_t i = 0; i < c->nparsed; i++) {
		rr_requirement_release(c->parsed[i]);
		free(c->parsed[i]);
	}
	free(c->parsed);
	for (size_t i = 0; c->in_specs && i < rr_solution_count(c->sol); i++)
		free(c->in_specs[i].v);
	free(c->in_specs);
	c->parsed = NULL;
	c->in_specs = NULL;
}

/* does every requirement on package j in the solution (roots, constraints, dependencies) allow v? */
static bool allowed_by_solution(const struct ctx *c, size_t j, const char *key,
				const struct rr_version *v)
{
	const struct incoming *in = &c->in_specs[j];

	for (size_t r = 0; r < c->nroots; r++)
		if (strcmp(c->roots[r].req->key, key) == 0 &&
		    !rr_specset_contains(&c->roots[r].req->spec, v, RR_PRE_POLICY_ALLOW))
			return false;
	for (size_t r = 0; r < c->ncons; r++)
		if (strcmp(c->cons[r].req->key, key) == 0 &&
		    !rr_specset_contains(&c->cons[r].req->spec, v, RR_PRE_POLICY_ALLOW))
			return false;
	for (size_t k = 0; k < in->n; k++)
		if (!rr_specset_contains(in->v[k], v, RR_PRE_POLICY_ALLOW))
			return false;
	return true;
}

/* the newest release of s's project that an installer given the same requirements
 * would consider: pip (and the spec), or uv (uv_python: Requires-Python upper
 * bounds ignored) */
static const struct rr_candidate *newest_allowed_as(const struct ctx *c, size_t j,
						    const struct rr_solved *s, bool uv_python)
{
	const struct rr_candidate *cs;
	const struct rr_candidate *best = NULL;
	size_t n;
	rr_error err = RR_ERROR_INIT;
	bool pre = c->in->pre || rr_version_is_prerelease(&s->candidate->version);

	if (c->prov->candidates(c->prov->ctx, s->key, &cs, &n, &err)) {
		rr_error_release(&err);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (cs[i].yanked || (!pre && rr_version_is_prerelease(&cs[i].version)))
			continue;
		if (best && rr_version_cmp(&cs[i].version, &best->version) <= 0)
			continue;
		if (!python_admits(c, &cs[i], uv_python) ||
		    !allowed_by_solution(c, j, s->key, &cs[i].version))
			continue;
		best = &cs[i];
	}
	return best;
}

static const struct rr_candidate *newest_allowed(const struct ctx *c, size_t j,
						 const struct rr_solved *s)
{
	return newest_allowed_as(c, j, s, false);
}

static char *stack_cause(struct ctx *c, const struct rr_solved *s, const struct rr_candidate *newest);

/*
 * where uv parts from the resolution: a newer release that only an upper bound of
 * its Requires-Python keeps out (pip honours such bounds, uv ignores them) and
 * that would break the stack; its cause, or NULL
 */
static char *uv_python_cause(struct ctx *c, size_t i)
{
	const struct rr_solved *s = rr_solution_at(c->sol, i);
	const struct rr_candidate *newer;
	RR_AUTOFREE char *sc = NULL;

	if (s->fixed || !s->candidate || !(newer = newest_allowed_as(c, i, s, true)) ||
	    rr_version_cmp(&newer->version, &s->candidate->version) <= 0 || python_ok(c, newer) ||
	    !(sc = stack_cause(c, s, newer)))
		return NULL;
	return rr_xasprintf("uv ignores the Requires-Python upper bound of %s %s (%s; pip honours "
			    "it) and would install it: %s",
			    s->key, newer->version_text, newer->requires_python, sc);
}

static size_t solved_index(const struct ctx *c, const char *key)
{
	const struct rr_solved *s = rr_solution_find(c->sol, key);

	/* the solution is one sorted array: its index is the offset */
	return s ? (size_t)(s - rr_solution_at(c->sol, 0)) : (size_t)-1;
}

static const char *held_cause(struct ctx *c, size_t i);

/* why newest (a release of s's project) cannot be installed next to the stack, or NULL */
static char *stack_cause(struct ctx *c, const struct rr_solved *s, const struct rr_candidate *newest)
{
	const char *const *deps;
	size_t n;
	rr_error err = RR_ERROR_INIT;
	char *cause = NULL;

	if (c->prov->dependencies(c->prov->ctx, s->key, newest, &deps, &n, &err)) {
		rr_error_release(&err);
		return NULL;
	}
	for (size_t k = 0; !cause && k < n; k++) {
		struct rr_requirement dep = RR_REQUIREMENT_INIT;
		const struct rr_protected *p;
		const char *rule;

		if (rr_requirement_parse(deps[k], &dep, NULL))
			continue;
		if (!dep.key || !applies(c, &dep, s)) {
			rr_requirement_release(&dep);
			continue;
		}
		RR_AUTOFREE char *spec = rr_requirement_to_string(&dep);
		if ((p = rr_stack_lookup(c->in->stack, dep.key))) {
			if (p->dist && p->dist->version_ok &&
			    !rr_specset_contains(&dep.spec, &p->dist->version, RR_PRE_POLICY_ALLOW))
				cause = rr_xasprintf("%s %s requires %s; the protected %s is %s", s->key,
						     newest->version_text, spec, p->name, p->version);
		} else if ((rule = rr_policy_match_cuda_only(c->in->policy, dep.key))) {
			cause = rr_xasprintf("%s %s requires %s, a CUDA-only package", s->key,
					     newest->version_text, spec);
		} else if ((p = clashes_with(c, dep.key)) && !c->in->allow_excludes) {
			cause = rr_xasprintf("%s %s requires %s, which would overwrite the files of the "
					     "protected %s %s",
					     s->key, newest->version_text, spec, p->name, p->version);
		} else {
			size_t j = solved_index(c, dep.key);
			const struct rr_solved *o = j == (size_t)-1 ? NULL : rr_solution_at(c->sol, j);
			const char *sub;
			if (o && o->candidate &&
			    !rr_specset_contains(&dep.spec, &o->candidate->version,
						 RR_PRE_POLICY_ALLOW) &&
			    (sub = held_cause(c, j)))
				cause = rr_xasprintf("%s %s requires %s; %s", s->key,
						     newest->version_text, spec, sub);
		}
		rr_requirement_release(&dep);
	}
	return cause;
}

/* memoised: why solved package i is held back for the stack, NULL when it is not */
static const char *held_cause(struct ctx *c, size_t i)
{
	struct held *h = &c->held[i];
	const struct rr_solved *s = rr_solution_at(c->sol, i);
	const struct rr_candidate *newest;

	if (h->state)
		return h->cause; /* done, or a cycle: not (yet) known to be held */
	h->state = 1;
	h->key = s->key;
	if (!s->fixed && s->candidate && (newest = newest_allowed(c, i, s)) &&
	    rr_version_cmp(&newest->version, &s->candidate->version) > 0)
		h->cause = stack_cause(c, s, newest);
	h->state = 2;
	return h->cause;
}

/* the root item whose requirement names key, or -1 */
static ssize_t root_of(const struct ctx *c, const size_t *root_item, const char *key)
{
	for (size_t r = 0; r < c->nroots; r++)
		if (strcmp(c->roots[r].req->key, key) == 0)
			return (ssize_t)root_item[r];
	return -1;
}

static void add_holds(struct ctx *c, const size_t *root_item)
{
	size_t n = rr_solution_count(c->sol);

	c->held = rr_xcalloc(n + 1, sizeof(*c->held));
	build_incoming(c);
	for (size_t i = 0; i < n; i++) {
		const struct rr_solved *s = rr_solution_at(c->sol, i);
		const char *cause = held_cause(c, i);
		RR_AUTOFREE char *uv_cause = cause ? NULL : uv_python_cause(c, i);
		ssize_t item;

		if (s->candidate && s->candidate->deps_unknown) {
			item = root_of(c, root_item, s->key);
			if (item >= 0)
				item_result(c->res, (size_t)item)->deps_unknown = true;
			warnf(c->res, rr_xasprintf("%s %s: its dependencies are only known after a "
						   "build; nothing about them was checked",
						   s->key, s->version));
		}
		if (!cause && !(cause = uv_cause))
			continue;
		item = root_of(c, root_item, s->key);
		if (item >= 0) {
			struct rr_item_result *r = item_result(c->res, (size_t)item);
			r->pin_version = rr_xstrdup(s->version);
			r->pin_why = rr_xstrdup(cause);
			continue;
		}
		struct rr_resolution_pin *pin =
			&RR_PUSH(c->res->pins, c->res->npins, c->res->cap_pins);
		pin->name = rr_xstrdup(s->key);
		pin->version = rr_xstrdup(s->version);
		pin->why = rr_xstrdup(cause);
		pin->origin = NULL;
		/* the chain from the input: "req.txt:3 requires a; a 1.0 requires b" */
		if (s->why) {
			const char *sp = strchr(s->why, ' ');
			pin->origin = sp ? rr_xstrndup(s->why, (size_t)(sp - s->why)) : NULL;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(c->held[i].cause);
	c->held = rr_free(c->held);
	free_incoming(c);
}

/*
 * with allow_excludes the solution may hold packages that need a clash-group
 * name (PyPI triton); only an installer exclusion keeps it out: collect them
 */
static void find_clash_needs(struct ctx *c)
{
	for (size_t i = 0; i < rr_solution_count(c->sol); i++) {
		const struct rr_solved *s = rr_solution_at(c->sol, i);
		const char *const *deps;
		size_t n;
		rr_error err = RR_ERROR_INIT;

		if (s->fixed || !s->candidate ||
		    c->prov->dependencies(c->prov->ctx, s->key, s->candidate, &deps, &n, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			struct rr_requirement r = RR_REQUIREMENT_INIT;
			const struct rr_protected *over;

			if (rr_requirement_parse(deps[k], &r, NULL))
				continue;
			over = r.key ? clashes_with(c, r.key) : NULL;
			if (over && applies(c, &r, s))
				add_exclude(c->res, r.key, s->key, over);
			rr_requirement_release(&r);
		}
	}
}

static int locked_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rr_locked *)a)->name, ((const struct rr_locked *)b)->name);
}

static void add_locked(const struct rr_transitive_input *in, struct rr_resolution *res,
		       const struct rr_solution *sol)
{
	for (size_t i = 0; i < rr_solution_count(sol); i++) {
		const struct rr_solved *s = rr_solution_at(sol, i);
		struct rr_locked *l = &RR_PUSH(res->locked, res->nlocked, res->cap_locked);

		memset(l, 0, sizeof(*l));
		l->name = rr_xstrdup(s->key);
		l->version = rr_xstrdup(s->version);
		l->fixed = s->fixed;
		if (!s->fixed && in->file_of && s->candidate) {
			const char *sha = NULL;
			const char *url = in->file_of(s->candidate, &sha);
			l->sha256 = sha ? rr_xstrdup(sha) : NULL;
			l->url = url ? rr_redact_credentials(url) : NULL;
		}
	}
	rr_qsort(res->locked, res->nlocked, sizeof(*res->locked), locked_cmp);
}

rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err)
{
	const struct rr_reqset *rs = in->reqs;
	struct rr_resolution res = {0};
	struct ctx c = {0};
	struct rr_root_requirement *roots = rr_xcalloc(rs->nitems + 1, sizeof(*roots));
	struct rr_root_requirement *cons = rr_xcalloc(rs->nitems + 1, sizeof(*cons));
	size_t *root_item = rr_xcalloc(rs->nitems + 1, sizeof(*root_item));
	char **origins = rr_xcalloc(rs->nitems + 1, sizeof(*origins));
	struct rr_fixed *fixed = rr_xcalloc(in->stack->n + 1, sizeof(*fixed));
	size_t nroots = 0;
	size_t ncons = 0;
	struct rr_resolve_request rq = {0};
	struct rr_each_result each = {0};
	const struct rr_provider *prov = in->provider;
	rr_err rc;

	c.in = in;
	c.prov = prov;
	c.res = &res;
	rr_venv_marker_env(in->venv, &c.env, c.pybuf);
	for (size_t i = 0; i < rs->nitems; i++) {
		const struct rr_item *it = &rs->items[i];

		if (!in->resolvable[i] || !it->req.key)
			continue;
		if (it->kind == RR_ITEM_URL || it->req.url || it->editable) {
			if (!it->constraint)
				warnf(&res, rr_xasprintf("%s:%u: the dependencies of '%s' (a URL, path "
							 "or editable) are not resolved; the "
							 "installer will see them first",
							 it->path ? it->path : "-", it->line,
							 it->req.name));
			continue;
		}
		origins[i] = rr_xasprintf("%s:%u", it->path ? it->path : "-", it->line);
		if (it->constraint) {
			cons[ncons].req = &it->req;
			cons[ncons++].origin = origins[i];
		} else {
			root_item[nroots] = i;
			roots[nroots].req = &it->req;
			roots[nroots++].origin = origins[i];
		}
	}
	for (size_t i = 0; i < in->stack->n; i++) {
		const struct rr_protected *p = &in->stack->items[i];
		fixed[i].key = p->key;
		fixed[i].version = p->version;
		fixed[i].reason = "ROCm build";
		if (p->dist) {
			fixed[i].requires = (const char *const *)p->dist->meta.requires_dist;
			fixed[i].nrequires = p->dist->meta.nrequires_dist;
		}
	}
	c.roots = roots;
	c.nroots = nroots;
	c.cons = cons;
	c.ncons = ncons;
	rq.reqs = roots;
	rq.nreqs = nroots;
	rq.constraints = cons;
	rq.nconstraints = ncons;
	rq.fixed = fixed;
	rq.nfixed = in->stack->n;
	rq.forbidden_fn = forbidden_cb;
	rq.clash_fn = clash_cb;
	rq.callback_ctx = &c;
	rq.env = &c.env;
	rq.flags = (in->pre ? RR_RESOLVE_PRERELEASE : 0) | RR_RESOLVE_NEWEST;
	if (in->deadline_ms) {
		rq.should_cancel = past_deadline;
		rq.cancel_ctx = &c;
	}

	if (prov->prefetch && !in->prefetched) {
		/* every root project's page and likely metadata in parallel, before the
		 * resolver starts asking for them one by one */
		const char **keys = rr_xcalloc(nroots + 1, sizeof(*keys));
		for (size_t i = 0; i < nroots; i++)
			keys[i] = roots[i].req->key;
		prov->prefetch(prov->ctx, keys, nroots);
		free(keys);
	}
	rc = rr_resolve_each(prov, &rq, &each, err);
	if (rc == RR_E_LIMIT && in->deadline_ms && past_deadline(&c)) {
		RR_AUTOFREE char *what = rr_xstrdup(err && err->msg ? err->msg : "cancelled");
		rc = rr_fail(err, RR_E_NETWORK, "the resolution did not finish within --timeout (%s)",
			     what);
	}
	if (rc)
		goto out;
	for (size_t i = 0; i < each.nstripped; i++) {
		size_t item = root_item[each.stripped[i].index];
		struct rr_item_result *r = item_result(&res, item);
		const struct rr_candidate *cs;
		size_t n = 0;
		rr_error e2 = RR_ERROR_INIT;

		r->unsat_why = rr_xstrdup(each.stripped[i].explanation);
		/* a project no index has, or whose page lists nothing (a typo, a broken
		 * mirror), is not a stack question; one with no file for this platform is */
		if (prov->candidates(prov->ctx, roots[each.stripped[i].index].req->key, &cs, &n,
				     &e2) == RR_E_NOTFOUND)
			r->not_found = true;
		rr_error_release(&e2);
	}
	if (each.solution && rr_solution_ok(each.solution)) {
		c.sol = each.solution;
		add_holds(&c, root_item);
		if (in->allow_excludes)
			find_clash_needs(&c);
		add_locked(in, &res, each.solution);
		res.steps = rr_solution_steps(each.solution);
	} else if (each.solution) {
		/* a failure no user requirement can be blamed for: a constraint against the stack */
		res.failed = rr_xasprintf("no resolution keeps the stack: %s",
					  rr_solution_explain(each.solution));
	}
out:
	rr_each_result_release(&each);
	free(roots);
	free(cons);
	free(root_item);
	for (size_t i = 0; i < rs->nitems; i++)
		free(origins[i]);
	free(origins);
	free(fixed);
	if (rc) {
		rr_resolution_release(&res);
		return rc;
	}
	*ret = res;
	return RR_OK;
}

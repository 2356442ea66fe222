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
#include <stdint.h>
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
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/venv.h"

struct incoming {
	const struct rr_specset **v;
	size_t n, cap;
};

struct rel_memo;

struct held {
	const char *key;
	int state; /* 0 unknown, 1 visiting, 2 done */
	char *cause; /* NULL: not held for the stack */
	const struct rr_candidate *newest; /* the release it is kept from */
	/* newest_allowed_as's answers, pip's reading [0] and uv's [1], once known_as has
	 * bit 1 << uv set: asked up to four times per package */
	const struct rr_candidate *newest_as[2];
	unsigned known_as;
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
	struct incoming *in_specs; /* pointing into the provider's parsed lines */
	/* the input as written, resolved as pip (and uv) would: where a release outside
	 * the solution is looked up; NULL when not resolved (yet) */
	const struct rr_solution *aw;
	/* why a release outside the solution breaks the stack, memoised */
	struct rel_memo *memo;
	size_t nmemo, cap_memo;
	/* what each Requires-Python text says of the venv's Python, by text: bit 0 set,
	 * bit 1 admitted, bit 2 its lower bounds admit it (pointed to: a const ctx
	 * fills it in) */
	struct rr_strmap *pymemo;
};

struct rel_memo {
	const char *key;	  /* borrowed from the provider */
	const struct rr_candidate *cand;
	int state; /* 1 visiting, 2 done */
	char *cause;
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

/* does dependency line r hold for a release asked for with these extras? */
static bool applies_x(const struct ctx *c, const struct rr_requirement *r, const char *const *ex,
		      size_t nex)
{
	const char *extras[16] = {""};
	size_t n = 1;
	bool yes = false;

	for (size_t e = 0; e < nex && n < RR_ARRAY_LEN(extras); e++)
		extras[n++] = ex[e];
	if (rr_requirement_applies(r, &c->env, extras, n, &yes, NULL))
		return true;
	return yes;
}

static bool applies(const struct ctx *c, const struct rr_requirement *r, const struct rr_solved *s)
{
	return applies_x(c, r, s ? s->extras : NULL, s ? s->nextras : 0);
}

/*
 * does cand's Requires-Python admit the target? As the spec and pip read it
 * (lower_only false), or as uv does (lower_only true): uv ignores upper bounds
 * (<, <=, !=, and the upper half of ~= and ==X.*) and tests only the lower ones
 */
static bool python_admits(const struct ctx *c, const struct rr_candidate *cand, bool lower_only)
{
	struct rr_version v;
	void **slot;
	uintptr_t bits = 1 | 2 | 4;

	if (!cand->requires_python || !c->env.vars[RR_MVAR_PYTHON_FULL_VERSION])
		return true;
	/* a few dozen distinct texts among thousands of releases */
	slot = rr_strmap_find(c->pymemo, cand->requires_python, true);
	if (!*slot) {
		if (!rr_version_parse(c->env.vars[RR_MVAR_PYTHON_FULL_VERSION], &v, NULL)) {
			bits = 1 |
			       (rr_requires_python(cand->requires_python, &v, false) ==
					RR_PYTHON_ADMITS
				    ? 2
				    : 0) |
			       (rr_requires_python(cand->requires_python, &v, true) ==
					RR_PYTHON_ADMITS
				    ? 4
				    : 0);
			rr_version_release(&v);
		}
		*slot = (void *)bits;
	}
	bits = (uintptr_t)*slot;
	return (bits & (lower_only ? 4 : 2)) != 0;
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
		const struct rr_dependency *deps;
		size_t nd;
		rr_error err = RR_ERROR_INIT;

		if (s->fixed || !s->candidate ||
		    c->prov->dependencies(c->prov->ctx, s->key, s->candidate, &deps, &nd, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < nd; k++) {
			const struct rr_requirement *dep = &deps[k].req;
			size_t j;
			if (deps[k].rc || !dep->key || !applies(c, dep, s) ||
			    (j = solved_index(c, dep->key)) == (size_t)-1)
				continue;
			/* the provider's parse, valid as long as it is */
			RR_PUSH(c->in_specs[j].v, c->in_specs[j].n, c->in_specs[j].cap) = &dep->spec;
		}
	}
}

static void free_incoming(struct ctx *c)
{
	for (size_t i = 0; c->in_specs && i < rr_solution_count(c->sol); i++)
		free(c->in_specs[i].v);
	free(c->in_specs);
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
 * bounds ignored); solved package j, memoised in c->held where it is there */
static const struct rr_candidate *newest_allowed_as(const struct ctx *c, size_t j,
						    const struct rr_solved *s, bool uv_python)
{
	const struct rr_candidate *cs;
	const struct rr_candidate *best = NULL;
	size_t n;
	rr_error err = RR_ERROR_INIT;
	bool pre = c->in->pre || rr_version_is_prerelease(&s->candidate->version);
	struct held *h = c->held ? &c->held[j] : NULL;

	if (h && (h->known_as & (1u << uv_python)))
		return h->newest_as[uv_python];
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
	if (h) {
		h->newest_as[uv_python] = best;
		h->known_as |= 1u << uv_python;
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
static char *uv_python_cause(struct ctx *c, size_t i, const struct rr_candidate **ret_newer)
{
	const struct rr_solved *s = rr_solution_at(c->sol, i);
	const struct rr_candidate *newer;
	RR_AUTOFREE char *sc = NULL;

	if (s->fixed || !s->candidate || !(newer = newest_allowed_as(c, i, s, true)) ||
	    rr_version_cmp(&newer->version, &s->candidate->version) <= 0 || python_ok(c, newer) ||
	    !(sc = stack_cause(c, s, newer)))
		return NULL;
	*ret_newer = newer;
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

/* "name[extras]spec", without the marker: a requirement as a chain shows it */
static char *req_text(const struct rr_requirement *r)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_adds(&sb, r->name);
	if (r->nextras) {
		rr_strbuf_addch(&sb, '[');
		for (size_t i = 0; i < r->nextras; i++)
			rr_strbuf_addf(&sb, "%s%s", i ? "," : "", r->extras[i]);
		rr_strbuf_addch(&sb, ']');
	}
	rr_specset_format(&r->spec, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

/* one link of a chain: "P V -> " and the requirement unless it is a bare name */
static void add_link(struct rr_strbuf *sb, const char *key, const char *version, const char *req)
{
	rr_strbuf_addf(sb, "%s %s -> ", key, version);
	if (req && strpbrk(req, "<>=!~[@ ;"))
		rr_strbuf_addf(sb, "%s -> ", req);
}

static char *release_cause(struct ctx *c, const char *key, const char *const *extras,
			   size_t nextras, const struct rr_candidate *rel, int depth);

/*
 * the release of key an installer would take for dep when the solution has none
 * that fits: the input as written's (what pip would install), else the newest
 * that fits (not yanked, Requires-Python admitting the venv)
 */
static const struct rr_candidate *taken_release(const struct ctx *c,
						const struct rr_requirement *dep)
{
	const struct rr_solved *w = c->aw ? rr_solution_find(c->aw, dep->key) : NULL;
	const struct rr_candidate *cs;
	const struct rr_candidate *best = NULL;
	size_t n;
	rr_error err = RR_ERROR_INIT;
	bool pre = c->in->pre || rr_specset_mentions_prerelease(&dep->spec);

	if (w && w->candidate &&
	    rr_specset_contains(&dep->spec, &w->candidate->version, RR_PRE_POLICY_ALLOW))
		return w->candidate;
	if (c->prov->candidates(c->prov->ctx, dep->key, &cs, &n, &err)) {
		rr_error_release(&err);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (cs[i].yanked || (!pre && rr_version_is_prerelease(&cs[i].version)) ||
		    (best && rr_version_cmp(&cs[i].version, &best->version) <= 0) ||
		    !rr_specset_contains(&dep->spec, &cs[i].version, RR_PRE_POLICY_ALLOW) ||
		    !python_ok(c, &cs[i]))
			continue;
		best = &cs[i];
	}
	return best;
}

/*
 * whether release_cause would look for the release an installer takes for dep: a
 * line that applies, names no protected, CUDA-only or clashing package, and that
 * the solution's release of it does not meet
 */
static bool needs_taken(const struct ctx *c, const struct rr_dependency *d,
			const char *const *extras, size_t nextras)
{
	const struct rr_requirement *dep = &d->req;
	size_t j;
	const struct rr_solved *o;

	if (d->rc || !dep->key || !applies_x(c, dep, extras, nextras) ||
	    rr_stack_lookup(c->in->stack, dep->key) ||
	    rr_policy_match_cuda_only(c->in->policy, dep->key) || clashes_with(c, dep->key))
		return false;
	j = solved_index(c, dep->key);
	o = j == (size_t)-1 ? NULL : rr_solution_at(c->sol, j);
	return !(o && o->candidate &&
		 rr_specset_contains(&dep->spec, &o->candidate->version, RR_PRE_POLICY_ALLOW));
}

/* memoised release_cause for a release outside the solution (cycles: not held) */
static const char *outside_cause(struct ctx *c, const char *key, const char *const *extras,
				 size_t nextras, const struct rr_candidate *rel, int depth)
{
	struct rel_memo *m = NULL;

	for (size_t i = 0; i < c->nmemo && !m; i++)
		if (c->memo[i].cand == rel && strcmp(c->memo[i].key, key) == 0)
			m = &c->memo[i];
	if (m)
		return m->state == 2 ? m->cause : NULL;
	if (depth > 64)
		return NULL;
	RR_PUSH(c->memo, c->nmemo, c->cap_memo) = (struct rel_memo){key, rel, 1, NULL};
	{
		char *cause = release_cause(c, key, extras, nextras, rel, depth + 1);
		/* the array may have moved while recursing */
		for (size_t i = 0; i < c->nmemo; i++)
			if (c->memo[i].cand == rel && strcmp(c->memo[i].key, key) == 0) {
				c->memo[i].state = 2;
				c->memo[i].cause = cause;
				return cause;
			}
		free(cause);
	}
	return NULL;
}

/*
 * why release rel of key cannot be installed next to the stack, or NULL: its
 * first dependency that pins another version of a protected package, needs a
 * CUDA-only package or a clashing one, or needs a release (in the solution, or the
 * one an installer would take) that is itself kept out for the stack - the chain
 * however deep: "a 1.1 -> b>=2 -> b 2.0 requires torchaudio==2.4.1; the protected ..."
 */
static char *release_cause(struct ctx *c, const char *key, const char *const *extras,
			   size_t nextras, const struct rr_candidate *rel, int depth)
{
	const struct rr_dependency *deps;
	size_t n;
	rr_error err = RR_ERROR_INIT;
	char *cause = NULL;

	if (c->prov->dependencies(c->prov->ctx, key, rel, &deps, &n, &err)) {
		rr_error_release(&err);
		return NULL;
	}
	for (size_t k = 0; !cause && k < n; k++) {
		const struct rr_requirement *dep = &deps[k].req;
		const struct rr_protected *p;
		const char *rule;

		if (deps[k].rc || !dep->key || !applies_x(c, dep, extras, nextras))
			continue;
		RR_AUTOFREE char *spec = req_text(dep);
		if ((p = rr_stack_lookup(c->in->stack, dep->key))) {
			if (p->dist && p->dist->version_ok &&
			    !rr_specset_contains(&dep->spec, &p->dist->version, RR_PRE_POLICY_ALLOW))
				cause = rr_xasprintf("%s %s requires %s; the protected %s is %s", key,
						     rel->version_text, spec, p->name, p->version);
		} else if ((rule = rr_policy_match_cuda_only(c->in->policy, dep->key))) {
			cause = rr_xasprintf("%s %s requires %s, a CUDA-only package", key,
					     rel->version_text, spec);
		} else if ((p = clashes_with(c, dep->key)) && !c->in->allow_excludes) {
			cause = rr_xasprintf("%s %s requires %s, which would overwrite the files of the "
					     "protected %s %s",
					     key, rel->version_text, spec, p->name, p->version);
		} else {
			size_t j = solved_index(c, dep->key);
			const struct rr_solved *o = j == (size_t)-1 ? NULL : rr_solution_at(c->sol, j);
			const char *sub = NULL;
			if (o && o->candidate &&
			    rr_specset_contains(&dep->spec, &o->candidate->version, RR_PRE_POLICY_ALLOW))
				continue; /* the solution's release fits: not the cause */
			if (o && o->candidate)
				sub = held_cause(c, j);
			if (!sub) {
				/* not in the solution, or held for no stack reason: the release an
				 * installer would take for this line */
				const struct rr_candidate *w = taken_release(c, dep);
				RR_AUTOFREE char **ex = rr_xcalloc(dep->nextras + 1, sizeof(*ex));
				for (size_t e = 0; e < dep->nextras; e++)
					ex[e] = rr_name_normalize(dep->extras[e]);
				if (w)
					sub = outside_cause(c, dep->key, (const char *const *)ex,
							    dep->nextras, w, depth);
				for (size_t e = 0; e < dep->nextras; e++)
					free(ex[e]);
			}
			if (sub) {
				struct rr_strbuf sb = RR_STRBUF_INIT;
				add_link(&sb, key, rel->version_text, spec);
				rr_strbuf_adds(&sb, sub);
				cause = rr_strbuf_detach(&sb, NULL);
			}
		}
	}
	return cause;
}

static char *stack_cause(struct ctx *c, const struct rr_solved *s, const struct rr_candidate *newest)
{
	return release_cause(c, s->key, s->extras, s->nextras, newest, 0);
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
	    rr_version_cmp(&newest->version, &s->candidate->version) > 0) {
		h->cause = stack_cause(c, s, newest);
		h->newest = newest;
	}
	h->state = 2;
	return h->cause;
}

/* a release will_need_ahead asked for, and the extras it is read with */
struct ahead {
	const char *key;
	const struct rr_candidate *rel;
	const char *const *extras;
	size_t nextras;
};

static void ahead_add(const struct ctx *c, struct ahead **v, size_t *n, size_t *cap,
		      const struct ahead *a)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].rel == a->rel)
			return;
	RR_PUSH(*v, *n, *cap) = *a;
	c->prov->will_need(c->prov->ctx, a->key, &a->rel, 1);
}

/*
 * what add_holds will look into, asked for level by level before it starts: each
 * held package's newest release (as pip and as uv read Requires-Python), then the
 * releases an installer would take for their lines that the solution does not
 * meet, and so on (AHEAD_LEVELS deep). A chain costs a round trip per level, not
 * one per release; what lies deeper is asked for as release_cause meets it
 */
#define AHEAD_LEVELS 3
static void will_need_ahead(const struct ctx *c)
{
	struct ahead *v = NULL;
	size_t n = 0, cap = 0, from = 0;

	if (!c->prov->will_need)
		return;
	for (size_t i = 0; i < rr_solution_count(c->sol); i++) {
		const struct rr_solved *s = rr_solution_at(c->sol, i);

		if (s->fixed || !s->candidate)
			continue;
		for (int uv = 0; uv < 2; uv++) {
			const struct rr_candidate *w = newest_allowed_as(c, i, s, uv);
			if (w && rr_version_cmp(&w->version, &s->candidate->version) > 0)
				ahead_add(c, &v, &n, &cap,
					  &(struct ahead){s->key, w, s->extras, s->nextras});
		}
	}
	for (int level = 1; level < AHEAD_LEVELS; level++) {
		size_t to = n;
		for (size_t i = from; i < to; i++) {
			const struct rr_dependency *deps;
			size_t nd;
			rr_error err = RR_ERROR_INIT;

			if (c->prov->dependencies(c->prov->ctx, v[i].key, v[i].rel, &deps, &nd,
						  &err)) {
				rr_error_release(&err);
				continue;
			}
			for (size_t k = 0; k < nd; k++) {
				const struct rr_requirement *dep = &deps[k].req;
				const struct rr_candidate *w;
				if (!needs_taken(c, &deps[k], v[i].extras, v[i].nextras) ||
				    !(w = taken_release(c, dep)))
					continue;
				/* deeper down, a line's extras are not read: fewer bytes */
				ahead_add(c, &v, &n, &cap, &(struct ahead){dep->key, w, NULL, 0});
			}
		}
		from = to;
	}
	free(v);
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
	will_need_ahead(c);
	for (size_t i = 0; i < n; i++) {
		const struct rr_solved *s = rr_solution_at(c->sol, i);
		const char *cause = held_cause(c, i);
		const struct rr_candidate *newest = c->held[i].newest;
		RR_AUTOFREE char *uv_cause = cause ? NULL : uv_python_cause(c, i, &newest);
		ssize_t item;

		if (s->candidate && s->candidate->deps_unknown) {
			c->res->nunknown++;
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
			r->pin_newest = newest ? rr_xstrdup(newest->version_text) : NULL;
			continue;
		}
		struct rr_resolution_pin *pin =
			&RR_PUSH(c->res->pins, c->res->npins, c->res->cap_pins);
		pin->name = rr_xstrdup(s->key);
		pin->version = rr_xstrdup(s->version);
		pin->why = rr_xstrdup(cause);
		pin->newest = newest ? rr_xstrdup(newest->version_text) : NULL;
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
	for (size_t i = 0; i < c->nmemo; i++)
		free(c->memo[i].cause);
	c->memo = rr_free(c->memo);
	c->nmemo = c->cap_memo = 0;
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
		const struct rr_dependency *deps;
		size_t n;
		rr_error err = RR_ERROR_INIT;

		if (s->fixed || !s->candidate ||
		    c->prov->dependencies(c->prov->ctx, s->key, s->candidate, &deps, &n, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			const struct rr_requirement *r;
			const struct rr_protected *over;

			if (deps[k].rc)
				continue;
			r = &deps[k].req;
			over = r->key ? clashes_with(c, r->key) : NULL;
			if (over && applies(c, r, s))
				add_exclude(c->res, r->key, s->key, over);
		}
	}
}

/* ---- the input as written: what uv and pip would do to the stack -------- */

enum change_kind { CH_NONE, CH_PROTECTED, CH_CUDA, CH_CLASH };

/* what installing solved package s (of a resolution without the stack) does to the stack */
static enum change_kind change_of(const struct ctx *c, const struct rr_solved *s,
				  const struct rr_protected **ret_p)
{
	const struct rr_protected *p = rr_stack_lookup(c->in->stack, s->key);

	*ret_p = p;
	if (p)
		return s->installed ? CH_NONE : CH_PROTECTED;
	if (rr_policy_match_cuda_only(c->in->policy, s->key))
		return CH_CUDA;
	if ((*ret_p = clashes_with(c, s->key)))
		return CH_CLASH;
	return CH_NONE;
}

/* the releases from a root requirement down to s, each brought in by the one before
 * it (s last); 0 when the way up is not known */
static size_t path_to(const struct rr_solution *sol, const struct rr_solved *s,
		      const struct rr_solved ***ret)
{
	size_t cap = rr_solution_count(sol) + 1;
	const struct rr_solved **v = rr_xcalloc(cap, sizeof(*v));
	size_t n = 0;

	for (const struct rr_solved *cur = s; cur && n < cap; cur = rr_solution_find(sol, cur->via)) {
		v[n++] = cur;
		if (!cur->via)
			break;
	}
	if (!n || v[n - 1]->via || v[n - 1]->root < 0) {
		free(v);
		return 0;
	}
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		const struct rr_solved *t = v[a];
		v[a] = v[b];
		v[b] = t;
	}
	*ret = v;
	return n;
}

struct aw_run {
	const struct rr_solution *sol;
	const size_t *root_item; /* root index of the request -> reqset item */
	bool uv_only;
};

static bool have_change(const struct rr_resolution *res, size_t item, const char *name)
{
	for (size_t i = 0; i < res->nchanges; i++)
		if (res->changes[i].item == item && strcmp(res->changes[i].name, name) == 0)
			return true;
	return false;
}

/*
 * record one change: the way from the input line (path, top first, the release
 * whose requirement does it last) and the requirement that does it; NULL tail: the
 * last link is the way s was brought in
 */
static void add_change(struct ctx *c, const struct aw_run *run, const struct rr_solved *s,
		       const struct rr_solved **path, size_t n, const char *req, const char *tail)
{
	size_t item = run->root_item[path[0]->root];
	struct rr_strbuf sb = RR_STRBUF_INIT;
	struct rr_stack_change *ch;

	for (size_t i = 0; i < n; i++) {
		if (change_of(c, path[i], &(const struct rr_protected *){NULL}) != CH_NONE)
			return; /* it follows from another change, which is reported */
	}
	if (have_change(c->res, item, s->key))
		return;
	for (size_t i = 0; i + 1 < n; i++)
		add_link(&sb, path[i]->key, path[i]->version, path[i + 1]->via_req);
	rr_strbuf_addf(&sb, "%s %s requires %s%s", path[n - 1]->key, path[n - 1]->version, req, tail);
	ch = &RR_PUSH(c->res->changes, c->res->nchanges, c->res->cap_changes);
	memset(ch, 0, sizeof(*ch));
	ch->item = item;
	ch->name = rr_xstrdup(s->key);
	ch->version = rr_xstrdup(s->version);
	ch->why = rr_strbuf_detach(&sb, NULL);
	ch->uv_only = run->uv_only;
	ch->chain = rr_xcalloc(n + 1, sizeof(*ch->chain));
	for (size_t i = 0; i < n; i++)
		ch->chain[ch->nchain++] = rr_xstrdup(path[i]->key);
}

/*
 * a protected package the installer would replace: every release in the
 * resolution whose requirement leaves its installed build out is a cause (the
 * first requirer alone may be satisfied by the build: accelerate's torch>=2.0)
 */
static void protected_changes(struct ctx *c, const struct aw_run *run, const struct rr_solved *s,
			      const struct rr_protected *p)
{
	for (size_t i = 0; i < rr_solution_count(run->sol); i++) {
		const struct rr_solved *r = rr_solution_at(run->sol, i);
		const struct rr_dependency *deps;
		size_t nd;
		rr_error err = RR_ERROR_INIT;

		if (r == s || !r->candidate ||
		    c->prov->dependencies(c->prov->ctx, r->key, r->candidate, &deps, &nd, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < nd; k++) {
			const struct rr_requirement *dep;
			const struct rr_solved **path = NULL;
			size_t n;
			if (deps[k].rc || !(dep = &deps[k].req)->key ||
			    strcmp(dep->key, s->key) != 0 || !applies(c, dep, r) || !p->dist ||
			    !p->dist->version_ok ||
			    rr_specset_contains(&dep->spec, &p->dist->version, RR_PRE_POLICY_ALLOW) ||
			    !(n = path_to(run->sol, r, &path)))
				continue;
			RR_AUTOFREE char *req = req_text(dep);
			RR_AUTOFREE char *tail =
				rr_xasprintf("; the protected %s is %s", p->name, p->version);
			add_change(c, run, s, path, n, req, tail);
			free(path);
		}
	}
}

static void find_changes(struct ctx *c, const struct aw_run *run)
{
	for (size_t i = 0; i < rr_solution_count(run->sol); i++) {
		const struct rr_solved *s = rr_solution_at(run->sol, i);
		const struct rr_protected *p = NULL;
		const struct rr_solved **path = NULL;
		enum change_kind k = change_of(c, s, &p);
		size_t n;

		if (k == CH_PROTECTED) {
			protected_changes(c, run, s, p);
			continue;
		}
		/* a CUDA-only or clashing package: the way it was brought in; one the input
		 * names itself is a decision of its own */
		if (k == CH_NONE || !s->via_req || !(n = path_to(run->sol, s, &path)))
			continue;
		if (n >= 2) {
			RR_AUTOFREE char *tail =
				k == CH_CUDA ? rr_xstrdup(", a CUDA-only package")
					     : rr_xasprintf(", which would overwrite the files of the "
							    "protected %s %s",
							    p->name, p->version);
			add_change(c, run, s, path, n - 1, s->via_req, tail);
		}
		free(path);
	}
}

/* does a newer release of some package of sol than the one chosen fail only an upper
 * bound of its Requires-Python (pip honours those, uv does not: the two part ways)? */
static bool uv_may_differ(const struct ctx *c, const struct rr_solution *sol)
{
	for (size_t i = 0; i < rr_solution_count(sol); i++) {
		const struct rr_solved *s = rr_solution_at(sol, i);
		const struct rr_candidate *cs;
		size_t n;
		rr_error err = RR_ERROR_INIT;

		if (!s->candidate || s->fixed ||
		    c->prov->candidates(c->prov->ctx, s->key, &cs, &n, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < n; k++)
			if (!cs[k].yanked && rr_version_cmp(&cs[k].version, &s->candidate->version) > 0 &&
			    python_admits(c, &cs[k], true) && !python_admits(c, &cs[k], false))
				return true;
	}
	return false;
}

static rr_err resolve_as_written(struct ctx *c, const struct rr_resolve_request *base, bool uv,
				 struct rr_solution **ret, rr_error *err)
{
	struct rr_resolve_request rq = *base;
	struct rr_provider prov = *c->prov;
	rr_err rc;

	/* most pages are there from the plan's resolution (the stack's came with its
	 * first batch). The pages of what a release it takes requires are asked for at
	 * once (a torch from the index names a dozen CUDA projects the plan never met:
	 * one round trip, not a dozen in a row); the crawl follows those it does not
	 * skip. The resolver's guess of a release to fetch ahead is not asked for: the
	 * newest, where an installer prefers the installed version */
	prov.prefetch_deps = NULL;
	/* the stack is what is installed, preferred like every installed version and
	 * replaceable like them; nothing is forbidden */
	rq.fixed = NULL;
	rq.nfixed = 0;
	rq.clashes = NULL;
	rq.nclashes = 0;
	rq.forbidden = NULL;
	rq.nforbidden = 0;
	rq.forbidden_fn = NULL;
	rq.clash_fn = NULL;
	rq.flags = (c->in->pre ? RR_RESOLVE_PRERELEASE : 0) | (uv ? RR_RESOLVE_PYTHON_LOWER : 0);
	rc = rr_resolve(&prov, &rq, ret, err);
	return rc;
}

/*
 * the input as written, as pip would resolve it (and uv, where Requires-Python
 * upper bounds can make it choose otherwise): its changes to the stack, or why it
 * cannot be installed at all. *ret_pip stays for the held-back analysis (which
 * release an installer takes outside the plan's solution)
 */
static void as_written(struct ctx *c, const struct rr_resolve_request *base, const size_t *root_item,
		       struct rr_solution **ret_pip)
{
	struct rr_solution *pip = NULL;
	struct rr_solution *uv = NULL;
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	rc = resolve_as_written(c, base, false, &pip, &err);
	/* uv parts from pip only over Requires-Python upper bounds: where pip's answer
	 * rests on one (a failure the solver explains by a Requires-Python, a newer
	 * release only an upper bound keeps out), ask again as uv reads them */
	if (!rc && (rr_solution_ok(pip) ? uv_may_differ(c, pip)
					: strstr(rr_solution_explain(pip), "requires Python") != NULL))
		rc = resolve_as_written(c, base, true, &uv, &err);
	if (rc) {
		c->res->as_written_unknown = rr_xstrdup(err.msg ? err.msg : rr_err_to_string(rc));
		rr_error_release(&err);
		rr_solution_free(uv);
		rr_solution_free(pip);
		return;
	}
	c->res->as_written = true;
	if (rr_solution_ok(pip)) {
		struct aw_run run = {pip, root_item, false};
		find_changes(c, &run);
	}
	if (uv && rr_solution_ok(uv)) {
		struct aw_run run = {uv, root_item, true};
		size_t before = c->res->nchanges;
		find_changes(c, &run);
		/* what pip does too is not uv's alone */
		for (size_t i = before; i < c->res->nchanges && rr_solution_ok(pip); i++)
			for (size_t k = 0; k < before; k++)
				if (c->res->changes[k].item == c->res->changes[i].item &&
				    strcmp(c->res->changes[k].name, c->res->changes[i].name) == 0)
					c->res->changes[i].uv_only = false;
	}
	/* pip refuses the input: the user's error, whatever uv (which ignores Requires-Python
	 * upper bounds) would do; a plan must install with both */
	if (!rr_solution_ok(pip)) {
		const size_t *cul;
		size_t n = rr_solution_culprits(pip, &cul);
		c->res->conflict = rr_xstrdup(rr_solution_explain(pip));
		c->res->conflict_items = rr_xcalloc(n + 1, sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			c->res->conflict_items[c->res->nconflict_items++] = root_item[cul[i]];
		c->res->conflict_uv_ok = uv && rr_solution_ok(uv);
	}
	rr_solution_free(uv);
	*ret_pip = pip;
}

/* ---- a build that needs torch ------------------------------------------- */

/* does the release sol holds of from need to, itself or through its dependencies? */
static bool reaches(const struct ctx *c, const struct rr_solution *sol, const char *from,
		    const char *to, bool *seen)
{
	const struct rr_solved *s = rr_solution_find(sol, from);
	const struct rr_dependency *deps;
	size_t n;
	size_t idx;
	rr_error err = RR_ERROR_INIT;
	bool found = false;

	if (!s)
		return false;
	idx = (size_t)(s - rr_solution_at(sol, 0));
	if (seen[idx])
		return false;
	seen[idx] = true;
	if (strcmp(from, to) == 0)
		return true;
	if (s->fixed || !s->candidate ||
	    c->prov->dependencies(c->prov->ctx, s->key, s->candidate, &deps, &n, &err)) {
		rr_error_release(&err);
		return false;
	}
	for (size_t k = 0; k < n && !found; k++) {
		const struct rr_requirement *dep = &deps[k].req;
		if (!deps[k].rc && dep->key && applies(c, dep, s))
			found = reaches(c, sol, dep->key, to, seen);
	}
	return found;
}

/* what to do instead of the line root, whose closure holds b (a build that needs
 * torch): the command first, then the policy's word on it */
static char *build_why(const char *root, const struct rr_solved *b,
		       const struct rr_policy_rule *rule)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	if (strcmp(root, b->key) == 0)
		rr_strbuf_adds(&sb, "no wheel here, and its build needs torch: ");
	else
		rr_strbuf_addf(&sb, "needs %s, which has no wheel here and builds against torch: ",
			       b->key);
	rr_strbuf_addf(&sb, "pip install --no-build-isolation %s==%s%s\n%s", b->key, b->version,
		       strcmp(root, b->key) ? " first" : "", rule->reason);
	if (rule->rocm)
		rr_strbuf_addf(&sb, "; on ROCm: %s", rule->rocm);
	return rr_strbuf_detach(&sb, NULL);
}

/*
 * a release the plan would have the installer build (no wheel for the venv) whose
 * build needs torch (policy torch_build): in its own isolated environment the
 * installer builds it against PyPI's torch, gigabytes and (without CUDA) a failed
 * build that takes the whole install down. Every root line that needs it is taken
 * out of the plan, with the command that builds it against the installed torch;
 * the number of lines taken out
 */
static size_t drop_torch_builds(struct ctx *c, const struct rr_root_requirement *roots,
				size_t nroots, const size_t *items, bool *gone)
{
	const struct rr_solution *sol = c->sol;
	size_t nsol = rr_solution_count(sol);
	size_t dropped = 0;

	for (size_t t = 0; t < nsol; t++) {
		const struct rr_solved *b = rr_solution_at(sol, t);
		const struct rr_policy_rule *rule;

		if (b->fixed || !b->candidate || !b->candidate->sdist || b->candidate->installed ||
		    !(rule = rr_policy_match_torch_build(c->in->policy, b->key)))
			continue;
		for (size_t r = 0; r < nroots; r++) {
			bool *seen = rr_xcalloc(nsol + 1, sizeof(bool));
			bool needs = reaches(c, sol, roots[r].req->key, b->key, seen);
			struct rr_item_result *ir;
			free(seen);
			if (!needs || gone[r])
				continue;
			gone[r] = true;
			dropped++;
			ir = item_result(c->res, items[r]);
			free(ir->build_why);
			ir->build_why = build_why(roots[r].req->key, b, rule);
		}
	}
	return dropped;
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
		l->size = -1;
		if (!s->fixed && in->file_of && s->candidate) {
			struct rr_locked_file f = {0};
			if (in->file_of(s->candidate, &f) && f.url) {
				l->sha256 = f.sha256 ? rr_xstrdup(f.sha256) : NULL;
				/* a lock names files for the installer, which brings its own
				 * credentials (netrc, keyring): none are written */
				l->url = rr_strip_credentials(f.url, NULL);
				l->filename = f.filename ? rr_xstrdup(f.filename) : NULL;
				l->index_url = f.index_url ? rr_strip_credentials(f.index_url, NULL) : NULL;
				l->size = f.size;
				l->is_wheel = f.is_wheel;
			}
		}
		if (!s->fixed && in->find_links_of && s->candidate) {
			const char *loc = in->find_links_of(s->candidate);
			l->find_links = loc ? rr_xstrdup(loc) : NULL;
		}
	}
	rr_qsort(res->locked, res->nlocked, sizeof(*res->locked), locked_cmp);
}

/*
 * the stripped roots whose item may be relaxed (a locked version the stack cannot have,
 * still on the index) are resolved as their bare name from now on; how many were
 */
static size_t relax_stripped(struct ctx *c, const struct rr_each_result *each,
			     const size_t *active_root, const size_t *root_item,
			     struct rr_root_requirement *roots, struct rr_requirement *bare)
{
	const struct rr_provider *prov = c->prov;
	size_t n = 0;

	for (size_t i = 0; c->in->relax && i < each->nstripped; i++) {
		size_t r = active_root[each->stripped[i].index];
		size_t item = root_item[r];
		const struct rr_candidate *cs;
		size_t ncs = 0;
		rr_error e2 = RR_ERROR_INIT;
		bool found;

		if (!c->in->relax[item] || roots[r].req == &bare[r])
			continue;
		found = prov->candidates(prov->ctx, roots[r].req->key, &cs, &ncs, &e2) !=
			RR_E_NOTFOUND;
		rr_error_release(&e2);
		if (!found || rr_requirement_parse(roots[r].req->name, &bare[r], NULL))
			continue;
		roots[r].req = &bare[r];
		item_result(c->res, item)->relaxed = true;
		n++;
	}
	return n;
}

rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err)
{
	const struct rr_reqset *rs = in->reqs;
	struct rr_resolution res = {0};
	struct ctx c = {0};
	struct rr_strmap pymemo = {0};
	struct rr_root_requirement *roots = rr_xcalloc(rs->nitems + 1, sizeof(*roots));
	struct rr_root_requirement *cons = rr_xcalloc(rs->nitems + 1, sizeof(*cons));
	/* the roots as written (the input as written resolves them), and the bare forms of
	 * the relaxed ones */
	struct rr_root_requirement *written = rr_xcalloc(rs->nitems + 1, sizeof(*written));
	struct rr_requirement *bare = rr_xcalloc(rs->nitems + 1, sizeof(*bare));
	size_t *root_item = rr_xcalloc(rs->nitems + 1, sizeof(*root_item));
	/* the roots the plan resolves: all, less those taken out for a torch build */
	struct rr_root_requirement *active = rr_xcalloc(rs->nitems + 1, sizeof(*active));
	size_t *active_item = rr_xcalloc(rs->nitems + 1, sizeof(*active_item));
	size_t *active_root = rr_xcalloc(rs->nitems + 1, sizeof(*active_root));
	bool *gone = rr_xcalloc(rs->nitems + 1, sizeof(*gone));
	char **origins = rr_xcalloc(rs->nitems + 1, sizeof(*origins));
	struct rr_fixed *fixed = rr_xcalloc(in->stack->n + 1, sizeof(*fixed));
	struct rr_solution *aw = NULL;
	size_t nroots = 0;
	size_t ncons = 0;
	size_t nactive = 0;
	struct rr_resolve_request rq = {0};
	struct rr_each_result each = {0};
	const struct rr_provider *prov = in->provider;
	rr_err rc;

	c.in = in;
	c.prov = prov;
	c.res = &res;
	rr_venv_marker_env(in->venv, &c.env, c.pybuf);
	c.pymemo = &pymemo;
	for (size_t i = 0; i < rs->nitems; i++) {
		const struct rr_item *it = &rs->items[i];

		const struct rr_requirement *local = in->local_roots ? in->local_roots[i] : NULL;

		if (!in->resolvable[i] || !(it->req.key || local))
			continue;
		if (local && !it->constraint) {
			/* a local project read from its metadata: resolved like any requirement */
			origins[i] = rr_xasprintf("%s:%u", it->path ? it->path : "-", it->line);
			root_item[nroots] = i;
			roots[nroots].req = local;
			roots[nroots++].origin = origins[i];
			continue;
		}
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
	c.cons = cons;
	c.ncons = ncons;
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
	memcpy(written, roots, nroots * sizeof(*roots));
	/* the plan's resolution; again with the relaxed locked versions, and again without
	 * the lines a torch build takes out */
	for (int round = 0;; round++) {
		nactive = 0;
		for (size_t i = 0; i < nroots; i++) {
			if (gone[i])
				continue;
			active_root[nactive] = i;
			active_item[nactive] = root_item[i];
			active[nactive++] = roots[i];
		}
		rq.reqs = active;
		rq.nreqs = nactive;
		rc = rr_resolve_each(prov, &rq, &each, err);
		if (rc == RR_E_LIMIT && in->deadline_ms && past_deadline(&c)) {
			RR_AUTOFREE char *what = rr_xstrdup(err && err->msg ? err->msg : "cancelled");
			rc = rr_fail(err, RR_E_NETWORK,
				     "the resolution did not finish within --timeout (%s)", what);
		}
		if (rc)
			goto out;
		if (relax_stripped(&c, &each, active_root, root_item, roots, bare)) {
			rr_each_result_release(&each);
			round--; /* each root is relaxed once: no bound needed */
			continue;
		}
		if (round == 4 || !each.solution || !rr_solution_ok(each.solution))
			break;
		c.sol = each.solution;
		{
			bool *g = rr_xcalloc(nactive + 1, sizeof(bool));
			size_t dropped = drop_torch_builds(&c, active, nactive, active_item, g);
			for (size_t i = 0; i < nactive; i++)
				gone[active_root[i]] |= g[i];
			free(g);
			if (!dropped)
				break;
		}
		rr_each_result_release(&each);
	}
	c.roots = active;
	c.nroots = nactive;
	for (size_t i = 0; i < each.nstripped; i++) {
		size_t item = active_item[each.stripped[i].index];
		struct rr_item_result *r = item_result(&res, item);
		const struct rr_candidate *cs;
		size_t n = 0;
		rr_error e2 = RR_ERROR_INIT;

		r->unsat_why = rr_xstrdup(each.stripped[i].explanation);
		/* a project no index has, or whose page lists nothing (a typo, a broken
		 * mirror), is not a stack question; one with no file for this platform is */
		if (prov->candidates(prov->ctx, active[each.stripped[i].index].req->key, &cs, &n,
				     &e2) == RR_E_NOTFOUND) {
			r->not_found = true;
			/* a page that lists only what the index may not say (issue 19) */
			if (e2.msg && strstr(e2.msg, "the index page of"))
				r->not_found_why = rr_xstrdup(e2.msg);
		}
		rr_error_release(&e2);
	}
	/* the input as written, every root line: what uv and pip would install */
	{
		struct rr_resolve_request all = rq;
		all.reqs = written;
		all.nreqs = nroots;
		as_written(&c, &all, root_item, &aw);
		c.aw = aw && rr_solution_ok(aw) ? aw : NULL;
	}
	if (each.solution && rr_solution_ok(each.solution)) {
		c.sol = each.solution;
		add_holds(&c, active_item);
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
	rr_solution_free(aw);
	rr_each_result_release(&each);
	rr_strmap_release(&pymemo, NULL);
	free(roots);
	free(written);
	for (size_t i = 0; i < rs->nitems; i++)
		rr_requirement_release(&bare[i]);
	free(bare);
	free(cons);
	free(root_item);
	free(active);
	free(active_item);
	free(active_root);
	free(gone);
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

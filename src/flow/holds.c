/*
 * holds.c - why a resolved package is below its newest release: held back
 * for the stack, with the chain (see transitive-private.h)
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
#include "flow/transitive-private.h"

static bool python_ok(const struct ctx *c, const struct rr_candidate *cand)
{
	return rr_transitive_python_admits(c, cand, false);
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
			if (deps[k].rc || !dep->key || !rr_transitive_applies(c, dep, s) ||
			    (j = solved_index(c, dep->key)) == (size_t)-1)
				continue;
			/* the provider's parse, valid as long as it is */
			RR_PUSH(c->in_specs[j].v, c->in_specs[j].n,
				c->in_specs[j].cap) = &dep->spec;
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
		if (!rr_transitive_python_admits(c, &cs[i], uv_python) ||
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

static char *stack_cause(struct ctx *c, const struct rr_solved *s,
			 const struct rr_candidate *newest);

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

	if (d->rc || !dep->key || !rr_transitive_applies_x(c, dep, extras, nextras) ||
	    rr_stack_lookup(c->in->stack, dep->key) ||
	    rr_policy_match_cuda_only(c->in->policy, dep->key) || rr_transitive_clash(c, dep->key))
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

		if (deps[k].rc || !dep->key || !rr_transitive_applies_x(c, dep, extras, nextras))
			continue;
		RR_AUTOFREE char *spec = rr_transitive_req_text(dep);
		if ((p = rr_stack_lookup(c->in->stack, dep->key))) {
			if (p->dist && p->dist->version_ok &&
			    !rr_specset_contains(&dep->spec, &p->dist->version,
						 RR_PRE_POLICY_ALLOW))
				cause = rr_xasprintf("%s %s requires %s; the protected %s is %s",
						     key, rel->version_text, spec, p->name,
						     p->version);
		} else if ((rule = rr_policy_match_cuda_only(c->in->policy, dep->key))) {
			cause = rr_xasprintf("%s %s requires %s, a CUDA-only package", key,
					     rel->version_text, spec);
		} else if ((p = rr_transitive_clash(c, dep->key)) && !c->in->allow_excludes) {
			cause = rr_xasprintf(
			    "%s %s requires %s, which would overwrite the files of the "
			    "protected %s %s",
			    key, rel->version_text, spec, p->name, p->version);
		} else {
			size_t j = solved_index(c, dep->key);
			const struct rr_solved *o = j == (size_t)-1 ? NULL
								    : rr_solution_at(c->sol, j);
			const char *sub = NULL;
			if (o && o->candidate &&
			    rr_specset_contains(&dep->spec, &o->candidate->version,
						RR_PRE_POLICY_ALLOW))
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
				rr_transitive_add_link(&sb, key, rel->version_text, spec);
				rr_strbuf_adds(&sb, sub);
				cause = rr_strbuf_detach(&sb, NULL);
			}
		}
	}
	return cause;
}

static char *stack_cause(struct ctx *c, const struct rr_solved *s,
			 const struct rr_candidate *newest)
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

void rr_holds_add(struct ctx *c, const size_t *root_item)
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
				rr_transitive_item(c->res, (size_t)item)->deps_unknown = true;
			rr_transitive_warn(
			    c->res, rr_xasprintf("%s %s: its dependencies are only known after a "
						 "build; nothing about them was checked",
						 s->key, s->version));
		}
		if (!cause && !(cause = uv_cause))
			continue;
		item = root_of(c, root_item, s->key);
		if (item >= 0) {
			struct rr_item_result *r = rr_transitive_item(c->res, (size_t)item);
			r->pin_version = rr_xstrdup(s->version);
			r->pin_why = rr_xstrdup(cause);
			r->pin_newest = newest ? rr_xstrdup(newest->version_text) : NULL;
			continue;
		}
		struct rr_resolution_pin *pin = &RR_PUSH(c->res->pins, c->res->npins,
							 c->res->cap_pins);
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
void rr_holds_clash_needs(struct ctx *c)
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
			over = r->key ? rr_transitive_clash(c, r->key) : NULL;
			if (over && rr_transitive_applies(c, r, s))
				rr_transitive_exclude(c->res, r->key, s->key, over);
		}
	}
}

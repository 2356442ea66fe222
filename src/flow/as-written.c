/*
 * as-written.c - the input as written: what uv and pip would do to the stack
 * (see transitive-private.h)
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
	if ((*ret_p = rr_transitive_clash(c, s->key)))
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

	for (const struct rr_solved *cur = s; cur && n < cap;
	     cur = rr_solution_find(sol, cur->via)) {
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
		rr_transitive_add_link(&sb, path[i]->key, path[i]->version, path[i + 1]->via_req);
	rr_strbuf_addf(&sb, "%s %s requires %s%s", path[n - 1]->key, path[n - 1]->version, req,
		       tail);
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
			    strcmp(dep->key, s->key) != 0 || !rr_transitive_applies(c, dep, r) ||
			    !p->dist || !p->dist->version_ok ||
			    rr_specset_contains(&dep->spec, &p->dist->version,
						RR_PRE_POLICY_ALLOW) ||
			    !(n = path_to(run->sol, r, &path)))
				continue;
			RR_AUTOFREE char *req = rr_transitive_req_text(dep);
			RR_AUTOFREE char *tail = rr_xasprintf("; the protected %s is %s", p->name,
							      p->version);
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
			if (!cs[k].yanked &&
			    rr_version_cmp(&cs[k].version, &s->candidate->version) > 0 &&
			    rr_transitive_python_admits(c, &cs[k], true) &&
			    !rr_transitive_python_admits(c, &cs[k], false))
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
void rr_as_written(struct ctx *c, const struct rr_resolve_request *base, const size_t *root_item,
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
	if (!rc &&
	    (rr_solution_ok(pip) ? uv_may_differ(c, pip)
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

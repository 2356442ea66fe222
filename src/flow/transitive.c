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
#include "flow/transitive-private.h"

void rr_transitive_warn(struct rr_resolution *res, char *msg)
{
	RR_PUSH(res->warnings, res->nwarnings, res->cap_warnings) = msg;
}

struct rr_item_result *rr_transitive_item(struct rr_resolution *res, size_t item)
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

void rr_transitive_exclude(struct rr_resolution *res, const char *key, const char *needed_by,
			   const struct rr_protected *over)
{
	for (size_t i = 0; i < res->nexcludes; i++)
		if (strcmp(res->excludes[i], key) == 0)
			return;
	RR_PUSH(res->excludes, res->nexcludes, res->cap_excludes) = rr_xstrdup(key);
	rr_transitive_warn(
	    res, rr_xasprintf("%s depends on %s, which would overwrite the files of the protected "
			      "%s %s; kept out by the installer's exclusion list (uv --excludes), "
			      "which pip cannot honour",
			      needed_by, key, over->name, over->version));
}

/* the member of a protected clash group key would overwrite, or NULL */
const struct rr_protected *rr_transitive_clash(const struct ctx *c, const char *key)
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
	if (!c->in->allow_excludes && rr_transitive_clash(c, key))
		return "would overwrite a protected module";
	return NULL;
}

static const char *clash_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;
	const struct rr_protected *p = c->in->allow_excludes ? rr_transitive_clash(c, key) : NULL;

	return p ? p->key : NULL;
}

/* does dependency line r hold for a release asked for with these extras? */
bool rr_transitive_applies_x(const struct ctx *c, const struct rr_requirement *r,
			     const char *const *ex, size_t nex)
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

bool rr_transitive_applies(const struct ctx *c, const struct rr_requirement *r,
			   const struct rr_solved *s)
{
	return rr_transitive_applies_x(c, r, s ? s->extras : NULL, s ? s->nextras : 0);
}

/*
 * does cand's Requires-Python admit the target? As the spec and pip read it
 * (lower_only false), or as uv does (lower_only true): uv ignores upper bounds
 * (<, <=, !=, and the upper half of ~= and ==X.*) and tests only the lower ones
 */
bool rr_transitive_python_admits(const struct ctx *c, const struct rr_candidate *cand,
				 bool lower_only)
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

/* "name[extras]spec", without the marker: a requirement as a chain shows it */
char *rr_transitive_req_text(const struct rr_requirement *r)
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
void rr_transitive_add_link(struct rr_strbuf *sb, const char *key, const char *version,
			    const char *req)
{
	rr_strbuf_addf(sb, "%s %s -> ", key, version);
	if (req && strpbrk(req, "<>=!~[@ ;"))
		rr_strbuf_addf(sb, "%s -> ", req);
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
			     struct rr_root_requirement *roots, struct rr_requirement *bare,
			     size_t *alt_at)
{
	const struct rr_provider *prov = c->prov;
	size_t n = 0;

	for (size_t i = 0; i < each->nstripped; i++) {
		size_t r = active_root[each->stripped[i].index];
		size_t item = root_item[r];
		const struct rr_alternatives *alts = c->in->alternatives
							 ? &c->in->alternatives[item]
							 : NULL;
		const struct rr_candidate *cs;
		size_t ncs = 0;
		rr_error e2 = RR_ERROR_INIT;
		bool found;

		/* the next alternative, if there is one */
		if (alts && alts->n && alt_at[r] + 1 < alts->n) {
			roots[r].req = &alts->reqs[++alt_at[r]];
			n++;
			continue;
		}
		if (!c->in->relax || !c->in->relax[item] || roots[r].req == &bare[r])
			continue;
		found = prov->candidates(prov->ctx, roots[r].req->key, &cs, &ncs, &e2) !=
			RR_E_NOTFOUND;
		rr_error_release(&e2);
		if (!found || rr_requirement_parse(roots[r].req->name, &bare[r], NULL))
			continue;
		roots[r].req = &bare[r];
		rr_transitive_item(c->res, item)->relaxed = true;
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
	/* per root with alternatives: the one it is resolved as now */
	size_t *alt_at = rr_xcalloc(rs->nitems + 1, sizeof(*alt_at));
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
			written[nroots] = (struct rr_root_requirement){local, origins[i]};
			roots[nroots].req = local;
			roots[nroots++].origin = origins[i];
			continue;
		}
		if (it->kind == RR_ITEM_URL || it->req.url || it->editable) {
			if (!it->constraint)
				rr_transitive_warn(
				    &res, rr_xasprintf(
					      "%s:%u: the dependencies of '%s' (a URL, path "
					      "or editable) are not resolved; the "
					      "installer will see them first",
					      it->path ? it->path : "-", it->line, it->req.name));
			continue;
		}
		origins[i] = rr_xasprintf("%s:%u", it->path ? it->path : "-", it->line);
		if (it->constraint) {
			cons[ncons].req = &it->req;
			cons[ncons++].origin = origins[i];
		} else {
			const struct rr_alternatives *alts = in->alternatives ? &in->alternatives[i]
									      : NULL;
			root_item[nroots] = i;
			written[nroots].req = &it->req;
			written[nroots].origin = origins[i];
			/* a CUDA-only line with ROCm builds: resolved as the first of them */
			roots[nroots].req = alts && alts->n ? &alts->reqs[0] : &it->req;
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
		if (relax_stripped(&c, &each, active_root, root_item, roots, bare, alt_at)) {
			rr_each_result_release(&each);
			round--; /* each root is relaxed once: no bound needed */
			continue;
		}
		if (round == 4 || !each.solution || !rr_solution_ok(each.solution))
			break;
		c.sol = each.solution;
		{
			bool *g = rr_xcalloc(nactive + 1, sizeof(bool));
			size_t dropped = rr_torch_builds_drop(&c, active, nactive, active_item, g);
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
		struct rr_item_result *r = rr_transitive_item(&res, item);
		const struct rr_candidate *cs;
		size_t n = 0;
		rr_error e2 = RR_ERROR_INIT;

		r->unsat_why = rr_xstrdup(each.stripped[i].explanation);
		/* a project no index has, or whose page lists nothing (a typo, a broken
		 * mirror), is not a stack question; one with no file for this platform is.
		 * A ROCm build no index has is one more thing the line cannot have */
		if ((!in->alternatives || !in->alternatives[item].n) &&
		    prov->candidates(prov->ctx, active[each.stripped[i].index].req->key, &cs, &n,
				     &e2) == RR_E_NOTFOUND) {
			r->not_found = true;
			/* a page that lists only what the index may not say (issue 19) */
			if (e2.msg && strstr(e2.msg, "the index page of"))
				r->not_found_why = rr_xstrdup(e2.msg);
		}
		rr_error_release(&e2);
	}
	/* which alternative each line that has them was resolved as (0: none could be) */
	for (size_t a = 0; in->alternatives && a < nactive; a++) {
		size_t item = active_item[a];
		bool stripped = false;
		if (!in->alternatives[item].n)
			continue;
		for (size_t k = 0; k < each.nstripped && !stripped; k++)
			stripped = each.stripped[k].index == a;
		rr_transitive_item(&res, item)->alternative = stripped ? 0
								       : alt_at[active_root[a]] + 1;
	}
	/* the input as written, every root line: what uv and pip would install */
	{
		struct rr_resolve_request all = rq;
		all.reqs = written;
		all.nreqs = nroots;
		rr_as_written(&c, &all, root_item, &aw);
		c.aw = aw && rr_solution_ok(aw) ? aw : NULL;
	}
	if (each.solution && rr_solution_ok(each.solution)) {
		c.sol = each.solution;
		rr_holds_add(&c, active_item);
		if (in->allow_excludes)
			rr_holds_clash_needs(&c);
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
	free(alt_at);
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

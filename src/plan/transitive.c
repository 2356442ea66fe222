/*
 * transitive.c - resolve what the offline plan kept, against the index, with
 * the protected stack fixed.
 *
 * Roots are the kept PEP 508 requirements whose marker holds (URL, path and
 * editable items cannot be resolved without fetching them and are left to the
 * installer, with a warning). The protected stack is fixed at its installed
 * versions; CUDA-only names are forbidden; names that share an import module
 * with a protected distribution resolve against it. rr_resolve_each() strips
 * the requirements that have no safe version, one at a time, keeping the
 * explanation for each. Then:
 *   - a pin for every resolved package whose choice differs from the newest
 *     release its direct requirements allow, because an installer left to
 *     itself could pick the newer one and break the stack;
 *   - the closure with hashes (--lock) and the names to exclude (--uv-excludes).
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/index.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/resolve.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "provider-index.h"

struct ctx {
	const struct rr_transitive_input *in;
	struct rr_resolution *res;
	struct rr_marker_env env;
	char pybuf[16];
};

static void add_exclude(struct rr_resolution *res, const char *key, const char *needed_by,
			const struct rr_protected *over)
{
	for (size_t i = 0; i < res->nexcludes; i++)
		if (strcmp(res->excludes[i], key) == 0)
			return;
	RR_PUSH(res->excludes, res->nexcludes, res->cap_excludes) = rr_xstrdup(key);
	RR_PUSH(res->warnings, res->nwarnings, res->cap_warnings) = rr_xasprintf(
		"%s depends on %s, which would overwrite the files of the protected %s %s; a "
		"requirements file cannot keep it out on its own: install with `rocm-resolve "
		"install`, or `uv pip install --excludes FILE` with the file --uv-excludes writes",
		needed_by, key, over->name, over->version);
}

/* the resolver asks about every name it meets */
static const char *forbidden_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;
	return rr_policy_match_cuda_only(c->in->policy, key);
}

static const char *clash_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;
	const struct rr_protected *p = rr_stack_clash(c->in->stack, c->in->policy, key);

	if (!p || strcmp(p->key, key) == 0)
		return NULL;
	return p->key;
}

/* the crawl never fetches fixed, forbidden or clashing names: the resolver never asks for them */
static bool skip_cb(void *opaque, const char *key)
{
	struct ctx *c = opaque;

	return rr_stack_lookup(c->in->stack, key) || forbidden_cb(c, key) || clash_cb(c, key);
}

/* newest candidate of key allowed by every root requirement naming it */
static const struct rr_candidate *newest_allowed(const struct rr_provider *prov, const char *key,
						 const struct rr_root_requirement *roots,
						 size_t nroots, bool pre)
{
	const struct rr_candidate *cs;
	const struct rr_candidate *best = NULL;
	size_t n;
	rr_error err = RR_ERROR_INIT;

	if (prov->candidates(prov->ctx, key, &cs, &n, &err)) {
		rr_error_release(&err);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		bool ok = !cs[i].yanked && (pre || !rr_version_is_prerelease(&cs[i].version));
		for (size_t r = 0; ok && r < nroots; r++)
			if (strcmp(roots[r].req->key, key) == 0)
				ok = rr_specset_contains(&roots[r].req->spec, &cs[i].version,
							 RR_PRE_POLICY_ALLOW);
		if (ok && (!best || rr_version_cmp(&cs[i].version, &best->version) > 0))
			best = &cs[i];
	}
	return best;
}

static void add_pins(struct ctx *c, const struct rr_provider *prov, const struct rr_solution *sol,
		     const struct rr_root_requirement *roots, size_t nroots)
{
	struct rr_resolution *res = c->res;

	for (size_t i = 0; i < rr_solution_count(sol); i++) {
		const struct rr_solved *s = rr_solution_at(sol, i);
		const struct rr_candidate *newest;

		if (s->fixed || s->installed)
			continue; /* held by the stack pins, or already there and kept */
		newest = newest_allowed(prov, s->key, roots, nroots, c->in->pre);
		if (!newest || rr_version_cmp(&newest->version, &s->candidate->version) == 0)
			continue;
		struct rr_resolution_pin *pin = &RR_PUSH(res->pins, res->npins, res->cap_pins);
		pin->name = rr_xstrdup(s->key);
		pin->version = rr_xstrdup(s->version);
		pin->why = rr_xasprintf("newest %s %s does not fit the protected stack (%s)", s->key,
					newest->version_text, s->why ? s->why : "resolved");
	}
}

/*
 * the solution is safe as resolved, but an installer given only the plan
 * still installs a clash-group name (PyPI triton) that a resolved package
 * requires, because the protected member has another name: collect those
 */
static void find_clash_needs(struct ctx *c, const struct rr_provider *prov,
			     const struct rr_solution *sol)
{
	for (size_t i = 0; i < rr_solution_count(sol); i++) {
		const struct rr_solved *s = rr_solution_at(sol, i);
		const char *const *deps;
		size_t n;
		rr_error err = RR_ERROR_INIT;

		if (s->fixed || !s->candidate ||
		    prov->dependencies(prov->ctx, s->key, s->candidate, &deps, &n, &err)) {
			rr_error_release(&err);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			struct rr_requirement r = RR_REQUIREMENT_INIT;
			const struct rr_protected *over;
			const char *extras[16] = {""};
			size_t nextras = 1;
			bool applies = false;

			if (rr_requirement_parse(deps[k], &r, NULL))
				continue;
			for (size_t e = 0; e < s->nextras && nextras < RR_ARRAY_LEN(extras); e++)
				extras[nextras++] = s->extras[e];
			over = rr_stack_clash(c->in->stack, c->in->policy, r.key);
			if (over && strcmp(over->key, r.key) != 0 &&
			    !rr_requirement_applies(&r, &c->env, extras, nextras, &applies, NULL) &&
			    applies)
				add_exclude(c->res, r.key, s->key, over);
			rr_requirement_release(&r);
		}
	}
}

static int locked_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rr_locked *)a)->name, ((const struct rr_locked *)b)->name);
}

static void add_locked(struct rr_resolution *res, const struct rr_solution *sol)
{
	for (size_t i = 0; i < rr_solution_count(sol); i++) {
		const struct rr_solved *s = rr_solution_at(sol, i);
		const struct rr_index_file *f = rr_index_provider_file(s->candidate);
		struct rr_locked *l = &RR_PUSH(res->locked, res->nlocked, res->cap_locked);

		memset(l, 0, sizeof(*l));
		l->name = rr_xstrdup(s->key);
		l->version = rr_xstrdup(s->version);
		l->fixed = s->fixed;
		if (!s->fixed && f) {
			l->sha256 = f->sha256 ? rr_xstrdup(f->sha256) : NULL;
			l->url = rr_redact_credentials(f->url);
		}
	}
	rr_qsort(res->locked, res->nlocked, sizeof(*res->locked), locked_cmp);
}

rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err)
{
	const struct rr_reqset *rs = in->reqs;
	const struct rr_plan *plan = in->plan;
	struct rr_resolution res = {0};
	struct ctx c = {in, &res, {{0}}, {0}};
	struct rr_root_requirement *roots = rr_xcalloc(rs->nitems + 1, sizeof(*roots));
	struct rr_root_requirement *cons = rr_xcalloc(rs->nitems + 1, sizeof(*cons));
	size_t *root_item = rr_xcalloc(rs->nitems + 1, sizeof(*root_item));
	struct rr_fixed *fixed = rr_xcalloc(in->stack->n + 1, sizeof(*fixed));
	size_t nroots = 0;
	size_t ncons = 0;
	struct rr_resolve_request rq = {0};
	struct rr_each_result each = {0};
	struct rr_index_provider *ip = NULL;
	struct rr_provider prov;
	char *const *pw;
	size_t npw;
	rr_err rc;

	rr_venv_marker_env(in->venv, &c.env, c.pybuf);
	res.nitems = rs->nitems;
	res.unsat_why = rr_xcalloc(rs->nitems + 1, sizeof(char *));
	for (size_t i = 0; i < rs->nitems && i < plan->ndecisions; i++) {
		const struct rr_item *it = &rs->items[i];
		const struct rr_decision *d = &plan->decisions[i];

		if (d->action != RR_ACT_KEEP || d->reason == RR_WHY_MARKER_FALSE || !it->req.key)
			continue;
		if (it->kind == RR_ITEM_URL || it->req.url || it->editable) {
			if (!it->constraint)
				RR_PUSH(res.warnings, res.nwarnings, res.cap_warnings) = rr_xasprintf(
					"%s: the dependencies of '%s' (a URL, path or editable) are not "
					"resolved; the installer will see them first",
					d->source, d->requirement);
			continue;
		}
		if (it->constraint) {
			cons[ncons].req = &it->req;
			cons[ncons++].origin = d->source;
		} else {
			root_item[nroots] = i;
			roots[nroots].req = &it->req;
			roots[nroots++].origin = d->source;
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
	rq.flags = in->pre ? RR_RESOLVE_PRERELEASE : 0;

	ip = rr_index_provider_new(in->client, in->venv, skip_cb, &c);
	rr_index_provider_get(ip, &prov);
	{
		/* every root project's page and likely metadata in parallel, before the
		 * resolver starts asking for them one by one */
		const char **keys = rr_xcalloc(nroots + 1, sizeof(*keys));
		for (size_t i = 0; i < nroots; i++)
			keys[i] = roots[i].req->key;
		prov.prefetch(prov.ctx, keys, nroots);
		free(keys);
	}
	rc = rr_resolve_each(&prov, &rq, &each, err);
	if (rc)
		goto out;
	for (size_t i = 0; i < each.nstripped; i++) {
		size_t item = root_item[each.stripped[i].index];
		res.unsat_why[item] = rr_xstrdup(each.stripped[i].explanation);
	}
	if (each.solution && rr_solution_ok(each.solution)) {
		add_pins(&c, &prov, each.solution, roots, nroots);
		find_clash_needs(&c, &prov, each.solution);
		add_locked(&res, each.solution);
		res.steps = rr_solution_steps(each.solution);
	} else if (each.solution) {
		/* a failure no user requirement can be blamed for: a constraint against the stack */
		RR_PUSH(res.warnings, res.nwarnings, res.cap_warnings) =
			rr_xasprintf("no resolution keeps the stack: %s",
				     rr_solution_explain(each.solution));
	}
	npw = rr_index_provider_warnings(ip, &pw);
	for (size_t i = 0; i < npw; i++)
		RR_PUSH(res.warnings, res.nwarnings, res.cap_warnings) = rr_xstrdup(pw[i]);
out:
	rr_each_result_release(&each);
	rr_index_provider_free(ip);
	free(roots);
	free(cons);
	free(root_item);
	free(fixed);
	if (rc) {
		rr_resolution_release(&res);
		return rc;
	}
	*ret = res;
	return RR_OK;
}

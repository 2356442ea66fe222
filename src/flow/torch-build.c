/*
 * torch-build.c - a line whose closure an installer would build against
 * PyPI's torch (see transitive-private.h)
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
		if (!deps[k].rc && dep->key && rr_transitive_applies(c, dep, s))
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
		rr_strbuf_addf(
		    &sb, "needs %s, which has no wheel here and builds against torch: ", b->key);
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
size_t rr_torch_builds_drop(struct ctx *c, const struct rr_root_requirement *roots, size_t nroots,
			    const size_t *items, bool *gone)
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
			ir = rr_transitive_item(c->res, items[r]);
			free(ir->build_why);
			ir->build_why = build_why(roots[r].req->key, b, rule);
		}
	}
	return dropped;
}

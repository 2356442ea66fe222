/*
 * resolve.h - dependency resolution (PubGrub) over a provider, with the
 * ROCm stack held fixed.
 *
 *   struct rr_root_requirement reqs[] = {{&req, "req.txt:3"}};
 *   struct rr_resolve_request rq = {.reqs = reqs, .nreqs = 1, .fixed = fx, .nfixed = n};
 *   struct rr_solution *sol;
 *   rc = rr_resolve(&provider, &rq, &sol, err);       errors: provider I/O, step cap
 *   if (rr_solution_ok(sol))
 *           for (i = 0; i < rr_solution_count(sol); i++) ... rr_solution_at(sol, i)
 *   else
 *           puts(rr_solution_explain(sol));           a derivation, one sentence a line
 *   sol = rr_solution_free(sol);
 *
 * "No solution" is a result, not an error: rr_resolve returns RR_OK and the
 * solution says why. Everything in the request is borrowed for the call.
 *
 * Rules (see man/rocm-resolve-scenario.5 for the scenario view of them):
 * - fixed: only the given version of the key exists, whatever the index
 *   has (the index is not even asked); its requires are resolved too.
 * - clash groups: distributions that install the same import package
 *   (triton, pytorch-triton-rocm, triton-rocm). A requirement on a member
 *   of a group that has a FIXED member (other than itself) is checked
 *   against the fixed member: satisfied when the fixed version's public part
 *   (local label ignored) matches the specifier, else a conflict. The other
 *   member is never selected, because installing it would overwrite the
 *   fixed package's files.
 * - forbidden: any requirement on the key whose marker holds is a conflict.
 * - constraints: narrow a key only if something else brings it in.
 * - extras: "name[extra]" is a virtual package that pins name to the same
 *   version and adds the extra's requirements.
 * - candidates: Requires-Python is tested against python_full_version;
 *   pre-releases are used when RR_RESOLVE_PRERELEASE is set, when a root
 *   requirement or constraint on the key names one, when the key only has
 *   pre-releases, or when a specifier matches nothing else; yanked releases
 *   only for an exact pin (== / ===); installed versions are preferred when
 *   allowed, otherwise the newest.
 */
#ifndef RR_RESOLVE_H
#define RR_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/provider.h"
#include "rocm-resolve/requirement.h"

struct rr_strbuf;

struct rr_root_requirement {
	const struct rr_requirement *req;
	const char *origin; /* "req.txt:3", shown in explanations; may be NULL */
};

struct rr_fixed {
	const char *key;	/* normalised name */
	const char *version;	/* exact installed version text */
	const char *reason;	/* "ROCm build" */
	const char *const *requires; /* its Requires-Dist, may be NULL */
	size_t nrequires;
};

struct rr_clash_member {
	const char *key;
	const char *group; /* import package name, "triton" */
};

struct rr_forbidden {
	const char *key;
	const char *reason; /* "CUDA-only" */
};

enum {
	RR_RESOLVE_PRERELEASE = 1 << 0, /* allow pre-releases everywhere */
	RR_RESOLVE_NEWEST = 1 << 1,     /* installed versions are not preferred: newest first */
	/* Requires-Python read as uv reads it: upper bounds (<, <=, !=) ignored */
	RR_RESOLVE_PYTHON_LOWER = 1 << 2,
};

struct rr_resolve_request {
	const struct rr_root_requirement *reqs;
	size_t nreqs;
	const struct rr_root_requirement *constraints;
	size_t nconstraints;
	const struct rr_fixed *fixed;
	size_t nfixed;
	const struct rr_clash_member *clashes;
	size_t nclashes;
	const struct rr_forbidden *forbidden;
	size_t nforbidden;
	/*
	 * optional callbacks for names not listed above (policy patterns match
	 * names the resolver only meets on the way): the reason key is
	 * forbidden, and the key of the fixed package key clashes with; NULL
	 * for none. Returned strings must outlive the resolve.
	 */
	const char *(*forbidden_fn)(void *ctx, const char *key);
	const char *(*clash_fn)(void *ctx, const char *key);
	void *callback_ctx;
	const struct rr_marker_env *env; /* NULL: rr_marker_env_init defaults */
	unsigned flags;
	size_t max_steps; /* decisions before giving up with RR_E_LIMIT; 0 = 100000 */
	bool (*should_cancel)(void *ctx); /* polled once per decision */
	void *cancel_ctx;
};

struct rr_solved {
	const char *key;
	const char *version; /* candidate's version text */
	const struct rr_candidate *candidate; /* the provider's, or the fixed one */
	bool fixed;
	bool installed;
	const char *why; /* "req:1 requires torchvision; torchvision 0.24.1 requires torch==2.9.1" */
	/* the same, one edge: the release whose requirement first brought it in (NULL
	 * for a root requirement, or when unknown), and that requirement ("bb>=2") */
	const char *via;
	const char *via_version;
	const char *via_req;
	long root; /* brought in by a root requirement: its index into rq->reqs, else -1 */
	const char *const *extras; /* extras that were asked for, normalised */
	size_t nextras;
};

struct rr_solution;

rr_err rr_resolve(const struct rr_provider *p, const struct rr_resolve_request *rq,
		  struct rr_solution **ret, rr_error *err) RR_WUR;
struct rr_solution *rr_solution_free(struct rr_solution *s);
bool rr_solution_ok(const struct rr_solution *s);
/* packages of a solution, sorted by key; 0 on failure */
size_t rr_solution_count(const struct rr_solution *s);
const struct rr_solved *rr_solution_at(const struct rr_solution *s, size_t i);
const struct rr_solved *rr_solution_find(const struct rr_solution *s, const char *key);
/* on failure: the derivation, lines separated by '\n'; "" on success */
const char *rr_solution_explain(const struct rr_solution *s);
/* on failure: indices into rq->reqs of the root requirements the failure rests on */
size_t rr_solution_culprits(const struct rr_solution *s, const size_t **ret);
/* indices into rq->reqs whose marker is false in the environment */
size_t rr_solution_skipped(const struct rr_solution *s, const size_t **ret);
size_t rr_solution_steps(const struct rr_solution *s);

/*
 * Per-requirement answers for the plan: resolve; while that fails because of
 * root requirements, strip the culprit with the highest index (later lines
 * give way to earlier ones), keep its explanation, and resolve again. The
 * final solution holds the newest safe version of every kept requirement.
 * A failure that rests on no root requirement (a constraint against a fixed
 * package) ends the loop with a failed solution.
 */
struct rr_stripped {
	size_t index;	   /* into rq->reqs */
	char *explanation; /* why it had to go */
};

struct rr_each_result {
	struct rr_solution *solution;
	struct rr_stripped *stripped;
	size_t nstripped;
};

rr_err rr_resolve_each(const struct rr_provider *p, const struct rr_resolve_request *rq,
		       struct rr_each_result *ret, rr_error *err) RR_WUR;
void rr_each_result_release(struct rr_each_result *r);

#endif

/*
 * resolution.h - what the transitive resolution tells the plan.
 *
 * rr_transitive_resolve() runs the resolver over the requirements the offline
 * plan kept, with the protected stack fixed, against an index-backed provider,
 * and fills a struct rr_resolution; rr_plan_apply_resolution() folds it into
 * the plan. Plain data, owned by whoever created it; release with
 * rr_resolution_release().
 */
#ifndef RR_RESOLUTION_H
#define RR_RESOLUTION_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_plan;
struct rr_reqset;
struct rr_venv;
struct rr_policy;
struct rr_stack;
struct rr_index_client;

struct rr_resolution_pin {
	char *name;
	char *version;
	char *why;
};

struct rr_locked {
	char *name;
	char *version;
	char *sha256; /* of the chosen file; NULL when the index gave none */
	char *url;    /* redacted */
	bool fixed;   /* a protected, installed build: not re-installed */
};

struct rr_resolution {
	char **unsat_why; /* one per reqset item: NULL = installable, else the explanation */
	size_t nitems;
	struct rr_resolution_pin *pins; /* packages pinned so the installer cannot pick a bad one */
	size_t npins, cap_pins;
	struct rr_locked *locked; /* the whole closure, sorted by name */
	size_t nlocked, cap_locked;
	char **excludes; /* names that must never be installed (CUDA-only, clashing) */
	size_t nexcludes, cap_excludes;
	char **warnings;
	size_t nwarnings, cap_warnings;
	size_t steps; /* resolver decisions, for -v */
};

struct rr_transitive_input {
	const struct rr_reqset *reqs;
	const struct rr_plan *plan; /* the offline plan: only what it kept is resolved */
	const struct rr_venv *venv;
	const struct rr_policy *policy;
	const struct rr_stack *stack;
	struct rr_index_client *client;
	bool pre; /* allow pre-releases everywhere */
};

/* RR_E_NETWORK / RR_E_HTTP when the index fails; "no solution" is not an error */
rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err) RR_WUR;
void rr_resolution_release(struct rr_resolution *r);

#endif

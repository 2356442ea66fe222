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
struct rr_provider;
struct rr_candidate;

struct rr_resolution_pin {
	char *name;
	char *version;
	char *why;    /* the real cause, one line: "newest foo 2.0 requires torch==2.8.0; ..." */
	char *origin; /* "req.txt:3": the input line whose requirement brings it in */
};

/* what the resolution says about one input item (by its index in the reqset) */
struct rr_item_result {
	size_t item;
	char *unsat_why;   /* no safe version: the resolver's derivation (lines), else NULL */
	char *pin_version; /* held back below the newest allowed release for the stack, else NULL */
	char *pin_why;     /* the cause of that hold, one line */
	bool deps_unknown; /* the chosen release's dependencies are only known after a build */
	bool not_found;	   /* no index has the project, or its page lists no file */
};

struct rr_locked {
	char *name;
	char *version;
	char *sha256; /* of the chosen file; NULL when the index gave none */
	char *url;    /* redacted */
	bool fixed;   /* a protected, installed build: not re-installed */
};

struct rr_resolution {
	struct rr_item_result *items; /* only items the resolution has something to say about */
	size_t nitems, cap_items;
	/* transitive packages held back for the stack: pinned so the installer cannot pick
	 * the release that would break it (top-level ones are item results instead) */
	struct rr_resolution_pin *pins;
	size_t npins, cap_pins;
	struct rr_locked *locked; /* the whole closure, sorted by name */
	size_t nlocked, cap_locked;
	char **excludes; /* names that must never be installed (CUDA-only, clashing) */
	size_t nexcludes, cap_excludes;
	char **warnings;
	size_t nwarnings, cap_warnings;
	size_t steps; /* resolver decisions, for -v */
	char *failed; /* no resolution at all (a constraint against the stack): why, else NULL */
};

struct rr_transitive_input {
	const struct rr_reqset *reqs;
	const bool *resolvable; /* per reqset item: the plan keeps it as a requirement to resolve */
	const struct rr_venv *venv;
	const struct rr_policy *policy;
	const struct rr_stack *stack;
	const struct rr_provider *provider; /* the world: index-backed or in-memory */
	bool pre;	     /* allow pre-releases everywhere */
	bool allow_excludes; /* clash-group dependencies kept out by an exclusion, not a conflict */
	bool prefetched;     /* the caller already started the provider's crawl */
	/* CLOCK_MONOTONIC milliseconds after which the resolution gives up (--timeout
	 * bounds the CPU work as well as the network), 0 = none */
	long long deadline_ms;
	/* the URL (and sha256, may stay NULL) of the file behind a candidate, for --lock;
	 * NULL when the provider has no files (in-memory worlds) */
	const char *(*file_of)(const struct rr_candidate *c, const char **sha256);
};

/* RR_E_NETWORK / RR_E_HTTP when the index fails; "no solution" is not an error */
rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err) RR_WUR;
void rr_resolution_release(struct rr_resolution *r);
/* the result for reqset item i, NULL when the resolution has nothing to say about it */
const struct rr_item_result *rr_resolution_item(const struct rr_resolution *r, size_t i);

#endif

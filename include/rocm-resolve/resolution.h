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
	char *newest; /* the release it is kept from (the newest one allowed) */
	/* the real cause, one line, the chain however deep: "foo 2.0 -> bar>=2 -> bar 2.0
	 * requires torch==2.8.0; the protected torch is ..." */
	char *why;
	char *origin; /* "req.txt:3": the input line whose requirement brings it in */
};

/*
 * what installing the input as written would do to the protected stack: the
 * requirements resolved as uv and pip resolve them (the stack not fixed,
 * installed versions preferred, CUDA-only names allowed), compared with the
 * stack. One entry per input line and package it would replace or add; what
 * follows from another change (torch 2.8.0's nvidia-* wheels) is not repeated.
 */
struct rr_stack_change {
	size_t item;   /* the reqset item whose requirement leads to it */
	char *name;    /* the package replaced or added */
	char *version; /* the release the installer would install */
	/* one line: "aa 1.1 -> bb>=2 -> bb 2.0 requires torchaudio==2.4.1; the protected
	 * torchaudio is 2.9.0+rocm7.2.0" */
	char *why;
	char **chain; /* the releases on the way from the input line, "aa", "bb" */
	size_t nchain;
	bool uv_only; /* uv would, pip would not (uv ignores Requires-Python upper bounds) */
};

/* what the resolution says about one input item (by its index in the reqset) */
struct rr_item_result {
	size_t item;
	char *unsat_why;   /* no safe version: the resolver's derivation (lines), else NULL */
	char *pin_version; /* held back below the newest allowed release for the stack, else NULL */
	char *pin_why;     /* the cause of that hold, one line */
	bool deps_unknown; /* the chosen release's dependencies are only known after a build */
	/* no wheel for this venv, and its build needs torch (policy torch_build): the
	 * installer would build it in isolation against PyPI's torch; what to do instead,
	 * one line, else NULL */
	char *build_why;
	char *pin_newest;  /* with pin_version: the release it is kept from */
	/* a locked version (exact, from a lock file) the stack leaves no release of, resolved
	 * as the bare name instead: the plan holds the newest release that can stay */
	bool relaxed;
	/* with alternatives for the item (ROCm counterparts): which was resolved, 1-based;
	 * 0 when none could be (every one stripped: unsat_why says why the last was) */
	size_t alternative;
	/* with a torch-bound alternative (policy torch_bound) resolved: its wheel's extensions
	 * checked against the installed torch: 1 they fit, -1 they do not (symbols_why names
	 * what is missing), 0 not known (symbols_why says why, NULL: not read) */
	int symbols;
	char *symbols_why;
	bool not_found;	   /* no index has the project, or its page lists no file */
	char *not_found_why; /* the index's own word on it when it has one, else NULL */
};

struct rr_locked {
	char *name;
	char *version;
	char *sha256; /* of the chosen file; NULL when the index gave none */
	char *url;    /* credentials removed (the installer brings its own); NULL: installed */
	char *filename;	 /* of the chosen file */
	char *index_url; /* the index that served it, credentials removed; NULL when unknown */
	long long size;	 /* -1 when unknown */
	bool is_wheel;
	bool fixed; /* a protected, installed build: not re-installed */
	char *find_links; /* the --find-links location its file comes from (redacted), or NULL */
};

/* a deep copy of from into to; the strings of l freed (not l itself) */
void rr_locked_copy(struct rr_locked *to, const struct rr_locked *from);
void rr_locked_release(struct rr_locked *l);

/* the file behind a candidate, as a provider with files knows it (borrowed) */
struct rr_locked_file {
	const char *url, *sha256, *filename, *index_url;
	long long size;
	bool is_wheel;
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
	/* the index's file of an installed version a lock keeps (rr_plan_kept_list) that no
	 * direct_url.json names: a pylock.toml entry names it; found after the resolution */
	struct rr_locked *installed_files;
	size_t ninstalled_files, cap_installed_files;
	char **excludes; /* names that must never be installed (CUDA-only, clashing) */
	size_t nexcludes, cap_excludes;
	char **warnings;
	size_t nwarnings, cap_warnings;
	size_t steps; /* resolver decisions, for -v */
	/* chosen releases whose dependencies are only known after a build (each warned) */
	size_t nunknown;
	char *failed; /* no resolution at all (a constraint against the stack): why, else NULL */
	/* the input as written (see struct rr_stack_change): resolved when as_written is
	 * true; else as_written_unknown says why not (the index failed), and the plan's
	 * own changes stand in for the verdict */
	bool as_written;
	char *as_written_unknown;
	struct rr_stack_change *changes;
	size_t nchanges, cap_changes;
	/* the input as written cannot be installed at all, stack or not (a version no
	 * index has, two requirements that exclude each other; as pip reads
	 * Requires-Python): the derivation, and the reqset items it rests on; NULL when
	 * it can */
	char *conflict;
	size_t *conflict_items;
	size_t nconflict_items;
	bool conflict_uv_ok; /* pip refuses it, uv (Requires-Python upper bounds ignored) would not */
};

struct rr_alternatives {
	const struct rr_requirement *reqs;
	size_t n;
};

struct rr_transitive_input {
	const struct rr_reqset *reqs;
	const bool *resolvable; /* per reqset item: the plan keeps it as a requirement to resolve */
	/* per reqset item (may be NULL): a locked version that, when the stack leaves it no
	 * release, is resolved as the bare name (its item result says relaxed) */
	const bool *relax;
	/* per reqset item (may be NULL): requirements resolved in its place, tried in order,
	 * the next one when the stack leaves the one before no release or no index has it
	 * (the ROCm builds of a CUDA-only project); n == 0: none */
	const struct rr_alternatives *alternatives;
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
	/* the file behind a candidate, for --lock: false when there is none (installed);
	 * NULL when the provider has no files (in-memory worlds) */
	bool (*file_of)(const struct rr_candidate *c, struct rr_locked_file *ret);
	/* per reqset item (may be NULL): the requirement a local project (a path, a file://
	 * URL, -e) resolves as, the provider offering its metadata; NULL entries: none */
	const struct rr_requirement *const *local_roots;
	/* the --find-links location (redacted) the file behind a candidate comes from, NULL
	 * when an index served it; NULL: no find-links */
	const char *(*find_links_of)(const struct rr_candidate *c);
};

/*
 * the resolution with the stack fixed (what the plan installs), then the input
 * as written without it (what uv and pip would install, for check).
 * RR_E_NETWORK / RR_E_HTTP when the index fails; "no solution" is not an error
 */
rr_err rr_transitive_resolve(const struct rr_transitive_input *in, struct rr_resolution *ret,
			     rr_error *err) RR_WUR;
void rr_resolution_release(struct rr_resolution *r);
/* the result for reqset item i, NULL when the resolution has nothing to say about it */
const struct rr_item_result *rr_resolution_item(const struct rr_resolution *r, size_t i);

#endif

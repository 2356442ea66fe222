/*
 * plan.h - the answer object: one decision per input item, the protected
 * pins, and the writers that turn it into a requirements file or JSON.
 *
 * struct rr_plan *p; rc = rr_plan_build(&in, &p, err);
 * rr_plan_format_text(p, &sb) / rr_plan_format_json(p, &sb); p = rr_plan_free(p);
 *
 * The plan never refers back to the inputs after it is built: every string in
 * it is owned by the plan. Building never prints; warnings are collected in
 * plan->warnings for the CLI to show.
 */
#ifndef RR_PLAN_H
#define RR_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"

struct rr_strbuf;
struct rr_reqset;
struct rr_venv;
struct rr_policy;
struct rr_stack;
struct rr_resolution;
struct rr_locked;
struct rr_alternatives;
struct rr_policy_rule;

#define RR_ACTION_LIST(X)                                                                          \
	X(RR_ACT_KEEP, "keep")                                                                     \
	X(RR_ACT_PIN, "pin")                                                                       \
	X(RR_ACT_STRIP, "strip")

#define RR_ACTION_ENUM_(sym, str) sym,
typedef enum rr_action { RR_ACTION_LIST(RR_ACTION_ENUM_) RR_ACT__MAX } rr_action;
#undef RR_ACTION_ENUM_

const char *rr_action_to_string(rr_action a);

/* why a decision was taken: stable codes for scenarios and JSON */
#define RR_REASON_LIST(X)                                                                          \
	X(RR_WHY_OK, "ok")                                                                         \
	X(RR_WHY_MARKER_FALSE, "marker-false")                                                     \
	X(RR_WHY_PROTECTED, "protected")                                                           \
	X(RR_WHY_PROTECTED_URL, "protected-url")                                                   \
	X(RR_WHY_CLASH, "module-clash")                                                            \
	X(RR_WHY_CUDA_ONLY, "cuda-only")                                                           \
	X(RR_WHY_CUDA_INDEX, "cuda-index")                                                         \
	X(RR_WHY_CONSTRAINT, "constraint")                                                         \
	X(RR_WHY_NO_SAFE_VERSION, "no-safe-version")                                               \
	X(RR_WHY_HELD_BACK, "held-back")                                                           \
	X(RR_WHY_DEPS_UNKNOWN, "deps-unknown")                                                     \
	X(RR_WHY_BUILD_NEEDS_TORCH, "build-needs-torch")                                           \
	X(RR_WHY_FIND_LINKS, "find-links")                                                         \
	X(RR_WHY_COUNTERPART, "counterpart")

#define RR_REASON_ENUM_(sym, str) sym,
typedef enum rr_reason { RR_REASON_LIST(RR_REASON_ENUM_) RR_WHY__MAX } rr_reason;
#undef RR_REASON_ENUM_

const char *rr_reason_to_string(rr_reason r);

/*
 * why a decision was taken: one sentence that names the root cause (what a comment or a
 * one-line report shows), then the derivation behind it, a line each (a resolver's
 * explanation; none for most rules)
 */
struct rr_cause {
	char *head;
	char **lines;
	size_t nlines;
};

/* the cause as one text: the head, then each derivation line after a newline (caller frees) */
char *rr_cause_text(const struct rr_cause *c);

struct rr_decision {
	size_t item;       /* the reqset item it decides (decisions[i].item == i) */
	char *source;	   /* "file:line" */
	char *requirement; /* the input as written (credentials redacted) */
	char *name;	   /* project name, NULL when unknown (a bare URL without #egg=) */
	/* the release the plan line pins: the installed build (protected), the release held
	 * back for the stack, the file --find-links gives; NULL for keep and strip */
	char *version;
	rr_action action;
	rr_reason reason;
	char *output; /* the line written to the plan, NULL when stripped (writers only) */
	struct rr_cause cause;
	bool constraint;
	bool breaks_stack; /* installing the input as written would damage the ROCm stack */
	bool conditional;  /* the line keeps the input's environment marker */
};

/*
 * what installing one input line as written would do to the stack (uv's and pip's
 * choices, resolved without the stack fixed), and what the plan does instead
 */
struct rr_plan_change {
	size_t decision;   /* the decision of its line, SIZE_MAX when unknown */
	char *source;	   /* "file:line", "-" when unknown */
	char *requirement; /* the line as written */
	char *name;	   /* the package replaced or added */
	char *version;	   /* the release the installer would take */
	char *why;	   /* the chain, one line */
	char *instead;	   /* what the plan does instead, one line */
	bool uv_only;	   /* uv would, pip would not */
};

struct rr_plan_pin {
	char *name;
	char *version;
	char *why;	 /* every reason the stack gave */
	char *short_why; /* the first one, for comments */
	char *clash_group; /* the import package it shares ("triton"), or NULL */
	char *bridge;	   /* the bridged site it is reached through, or NULL */
	bool in_requirements; /* already pinned by a decision line: not repeated */
};

/* an index the plan was resolved against, as the plan names it */
struct rr_plan_index {
	char *url;    /* as written for the installer: credentials removed, ${VAR} kept */
	char *origin; /* "--index-url", "requirements.txt:3", "UV_INDEX", "default" */
	bool primary; /* the default index (--index-url); the rest are extra indexes */
	bool credentials_removed;
	/* the plan writes it (given on the command line or in the inputs); one from the
	 * installer's configuration, or PyPI by default, is left to the installer */
	bool written;
};

/*
 * a package the resolution took from a --find-links location (a locally built ROCm wheel,
 * say): pinned exactly, local label included, so both installers take that file and
 * never a newer release an index has (which they would build); a top-level one is a
 * find-links decision instead
 */
struct rr_plan_link {
	char *name;
	char *version;
	char *location; /* the --find-links location (redacted) */
};

/*
 * an installed distribution a lock must list so that syncing to it (`uv pip sync`,
 * pip-sync: both uninstall what a lock does not list) keeps it: the protected stack and
 * what it needs as installed, and what the resolution kept as installed. Never one
 * reached through a .pth bridge or the base interpreter (uv neither sees nor removes
 * those), never one the resolution installs a file of
 */
struct rr_plan_kept {
	char *name;
	char *version;
	char *why; /* "protected ROCm build", "needed by the protected torchvision 0.24.0" */
	/* the file it was installed from, where that is known with its sha256: as
	 * direct_url.json records it, else the index's file of this very version (the
	 * resolution's res->installed_files); credentials removed. NULL: unknown */
	char *url, *sha256, *filename, *index_url;
};

/*
 * the installed distributions a lock keeps (see struct rr_plan_kept), from the venv, its
 * protected stack and the resolved closure (res->locked; NULL: none): *ret sorted by name,
 * url/sha256 as direct_url.json records them; free with rr_plan_kept_release
 */
size_t rr_plan_kept_list(const struct rr_venv *v, const struct rr_stack *st,
			 const struct rr_resolution *res, struct rr_plan_kept **ret);
void rr_plan_kept_release(struct rr_plan_kept *k, size_t n);

/* a transitive package the resolution holds back for the stack */
struct rr_plan_hold {
	char *name;
	char *version;
	char *why;    /* the chain: "foo 2.0 requires torch==2.8.0; the protected torch is ..." */
	char *origin; /* the input line that brings it in, NULL when unknown */
	char *newest; /* the release it is kept from, NULL when unknown */
};

struct rr_plan {
	char *venv;
	char *python;
	char *rocm;
	bool rocm_stack;  /* a ROCm build is protected (else NGC's CUDA torch: "the protected
			  * stack" in the text, never "the ROCm stack") */
	char *torch;	  /* "2.9.1+rocm... (hip ...)", for the header */
	char *torch_version, *torch_hip, *torch_cuda; /* the same parts, for JSON */
	char **inputs;
	size_t ninputs;
	char **option_lines; /* kept global options, in order */
	size_t noption_lines;
	char **stripped_options; /* "file:line: option: reason" comments */
	size_t *stripped_option_at; /* in file order, each before decisions[at] */
	size_t nstripped_options;
	struct rr_decision *decisions;
	size_t ndecisions;
	struct rr_plan_pin *pins; /* the protected stack */
	size_t npins;
	struct rr_plan_hold *holds; /* transitive pins chosen by the resolution, with their cause */
	size_t nholds;
	struct rr_plan_link *links; /* transitive packages taken from --find-links */
	size_t nlinks;
	/* the input as written, resolved as uv and pip would (as_written), and what that
	 * would do to the stack; without it (the index failed) the plan's own changes
	 * stand in for the verdict, and as_written_unknown says why */
	bool as_written;
	char *as_written_unknown;
	struct rr_plan_change *changes;
	size_t nchanges;
	struct rr_plan_index *indexes; /* in priority order: extra indexes first, then the default */
	size_t nindexes;
	const char *installer; /* "uv" or "pip" (static): the installer the plan is for */
	bool no_index;	 /* the requirements say --no-index: the plan names no index */
	bool resolved;	 /* dependencies were resolved against the indexes */
	char *unresolved; /* why not, when !resolved ("--no-index"), else NULL */
	char **constraint_lines; /* "-c <abs path>" lines */
	size_t nconstraint_lines;
	char **warnings;
	size_t nwarnings;
	/* names the resolved packages need that would overwrite a protected module
	 * (PyPI triton next to pytorch-triton-rocm): only an installer's exclusion
	 * list keeps them out, so the plan says so */
	char **excludes;
	size_t nexcludes;
	/* the resolved closure, one file per package, sorted by name (the lock writers'
	 * data): protected builds marked fixed, installed ones without a URL */
	struct rr_locked *files;
	size_t nfiles;
	/* chosen releases whose dependencies are only known after a build */
	size_t nunknown;
	/* with a resolution: what a lock keeps as installed, by name */
	struct rr_plan_kept *kept;
	size_t nkept;
	/* protected distributions reached through a .pth bridge (a project .venv over
	 * /opt/venv): pip sees them, uv does not, so uv must be told to exclude them */
	char **bridged;
	size_t nbridged;
	char *bridge_site; /* the first bridged site, for the header */
	/* protected distributions inherited from the base interpreter (a venv made with
	 * --system-site-packages over the image's Python): pip sees them, uv does not */
	char **inherited;
	size_t ninherited;
	char *base_site; /* the first base site, for the header */
	size_t counts[RR_ACT__MAX];
};

/* a local project a line names (a path, a file:// URL, -e), as its metadata says */
struct rr_plan_local {
	const char *name; /* NULL: the line names no local project that could be read */
	const char *key;
	const char *source;    /* the file read (its pyproject.toml, the wheel, the sdist) */
	const char *unknown;   /* its dependencies are only known after a build: why */
	const char *conflicts; /* its own lines against the stack, with file:line, or NULL */
};

struct rr_plan_input {
	const struct rr_reqset *reqs;
	const struct rr_venv *venv;
	const struct rr_policy *policy;
	const struct rr_stack *stack;
	/* where a filtered copy of a constraint file may be written (atomically); NULL: keep
	 * constraint entries out of the plan entirely when a file needed filtering */
	const char *scratch_dir;
	const char *scratch_hint;        /* what to set when scratch_dir cannot be made, or NULL */
	const struct rr_resolution *res; /* NULL: not resolved (unresolved says why) */
	const char *unresolved;
	const struct rr_plan_index *indexes; /* copied into the plan */
	size_t nindexes;
	const char *installer; /* "uv" or "pip": whose configuration the indexes come from */
	const struct rr_plan_local *local; /* per reqset item, or NULL */
	/* per reqset item, or NULL: the ROCm builds a CUDA-only line is resolved as, in order,
	 * and the policy rule that names them (its reason says what they are) */
	const struct rr_alternatives *alternatives;
	const struct rr_policy_rule *const *alternative_rules;
};

/*
 * which reqset items are requirements to resolve (kept, marker true, named):
 * resolvable[i] for each item; the same rules rr_plan_build applies
 */
void rr_plan_classify(const struct rr_plan_input *in, bool *resolvable);
/* the plan, built once: one decision per reqset item, in item order, from the
 * rules and (when in->res is given) the resolution */
rr_err rr_plan_build(const struct rr_plan_input *in, struct rr_plan **ret, rr_error *err) RR_WUR;
/* --lock: every package of the closure pinned with its hash */
void rr_plan_format_lock(const struct rr_plan *p, struct rr_strbuf *out);
/*
 * --lock --format pylock: the same closure as a PEP 751 pylock.toml (one file per
 * package, with its index, URL, size and sha256), and what it keeps as installed
 * (p->kept) named by the file each was installed from; the stack, the strips and the
 * holds recorded in [tool.rocm-resolve] (src/plan/pylock.c). Refuse first where
 * rr_plan_pylock_unnamed finds one whose file is unknown
 */
void rr_plan_format_pylock(const struct rr_plan *p, struct rr_strbuf *out);
/*
 * a distribution the lock keeps as installed whose file is unknown (no direct_url.json
 * hash, no index file of that version), else NULL: a pylock.toml entry must name a file,
 * and without the entry `uv pip sync` would remove it, so no pylock.toml is written then
 */
const struct rr_plan_kept *rr_plan_pylock_unnamed(const struct rr_plan *p);
/* true when installing the inputs as written would damage the stack (for `check`):
 * a line that does (a CUDA-only line, another torch, a CUDA index option), a line
 * whose dependencies do as uv or pip would resolve them (p->changes), an exclusion
 * the plan needs; without the as-written resolution, a package held back for the
 * stack too */
bool rr_plan_breaks_stack(const struct rr_plan *p);
void rr_plan_format_text(const struct rr_plan *p, struct rr_strbuf *out);
/*
 * the second wall behind the readers' own (rr_text_check): RR_E_INTERNAL when any text
 * the writers put into a plan line as it is (a requirement, an option, an index URL, a
 * name, a version, a path of the header) holds a character that ends a line for pip
 * (str.splitlines) or uv, or an index URL a blank; rr_plan_build ends with it, so no
 * such plan is ever built
 */
rr_err rr_plan_check_lines(const struct rr_plan *p, rr_error *err) RR_WUR;
void rr_plan_format_json(const struct rr_plan *p, struct rr_strbuf *out);
/*
 * the names that must never be installed next to the stack, one a line, each
 * once: stripped CUDA-only and clashing requirements, then what the resolution
 * found resolved packages need (p->excludes), then the protected names uv cannot see
 * (bridged through a .pth file, inherited from the base interpreter); the uv
 * --excludes format
 */
void rr_plan_format_excludes(const struct rr_plan *p, struct rr_strbuf *out);
/* the `check` report: one line per decision that breaks the stack */
void rr_plan_format_check(const struct rr_plan *p, struct rr_strbuf *out);
/*
 * the outcome as scenario result lines (man/rocm-resolve-scenario.5): "plan LINE",
 * "decision SOURCE ACTION REASON OUTPUT|-", "check breaks|intact", "check LINE",
 * "exclude NAME"; the runner compares them, --write-testcase writes them
 */
void rr_plan_format_outcome(const struct rr_plan *p, struct rr_strbuf *out);
struct rr_plan *rr_plan_free(struct rr_plan *p);

#endif

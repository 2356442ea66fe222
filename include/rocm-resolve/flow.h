/*
 * flow.h - the one pipeline from inputs to a plan. Every command that needs a
 * plan (plan, check, install) runs it; the CLI only parses arguments, calls,
 * prints and maps exit codes.
 *
 *   struct rr_flow_opts o = {.inputs = files, .ninputs = n, .want_inputs = true};
 *   struct rr_flow *f;
 *   rc = rr_flow_open(&o, &f, err);       policy, inputs, venv, protected stack
 *   rc = rr_flow_plan(f, &o, err);        index list, resolution, the plan (built once)
 *   plan = rr_flow_take_plan(f);          the answer, the caller's now
 *   rr_plan_format_text(plan, &sb); rr_plan_breaks_stack(plan); rr_plan_free(plan);
 *   f = rr_flow_free(f);
 *
 * The steps, in order:
 *   1. policy: the embedded data/policy.json, then every --policy file;
 *   2. inputs: requirements files / pyproject.toml, flattened into one reqset;
 *      lock files (uv.lock, pylock.toml) are read and checked here, and what they
 *      install in the environment is added to the reqset once step 3 knows it;
 *   3. environment: --venv, else discovery; its protected stack;
 *   4. indexes (see rr_flow_indexes): the list the resolver asks and the plan names;
 *   5. resolution with the stack fixed, on opts->provider or an index-backed one;
 *   6. the plan, built once from the inputs and that resolution.
 * Warnings of every step are collected in order (rr_flow_warnings). struct rr_flow is
 * the flow's own (src/flow/flow-private.h): everyone else reads it through accessors.
 */
#ifndef RR_FLOW_H
#define RR_FLOW_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/config.h"
#include "rocm-resolve/error.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/resolution.h"

struct rr_policy;
struct rr_venv;
struct rr_stack;
struct rr_plan;
struct rr_provider;
struct rr_plan_index;
struct rr_index_event;
struct rr_local;
struct rr_plan_local;
struct rr_lock;

struct rr_flow_opts {
	/* inputs */
	const char *const *inputs;
	size_t ninputs;
	const char *const *constraints; /* -c FILE on the command line: constraints files */
	size_t nconstraints;
	/* -e PATH on the command line: local projects, read as a requirements file's
	 * `-e PATH` line is (relative to the working directory) */
	const char *const *editables;
	size_t neditables;
	bool want_inputs; /* plan/check/install: at least one INPUT is required */
	const char *const *extras;
	size_t nextras;
	bool all_extras;
	const char *const *groups;
	size_t ngroups;
	bool all_groups;
	bool all_members; /* a uv workspace: every member (rr_input_sel) */
	bool uv_settings; /* a uv project: its [tool.uv] dependency settings applied */
	/* environment */
	const char *command; /* for messages */
	const char *venv;    /* --venv; NULL: $VIRTUAL_ENV, $CONDA_PREFIX, /opt/venv, /opt/conda
			      * (none found with $PRE_COMMIT set: the error says to name it in
			      * the hook's args) */
	const char *stack_file; /* --stack: a stack file written by `inspect --format json` */
	bool needs_live_env;    /* verify, install: a stack file will not do */
	const char *sysroot; /* prefix for absolute system paths (tests) */
	const char *const *policies;
	size_t npolicies;
	const char *const *protect;
	size_t nprotect;
	/* resolution */
	bool no_index;
	/* the installer the plan is for, whose configuration is read ("uv" or "pip");
	 * NULL: uv when it is on PATH, else pip */
	const char *installer;
	const char *cwd; /* uv's project configuration is searched from here; NULL: getcwd */
	/* the installer's configuration as given, instead of read from its files and
	 * variables (a replayed testcase); NULL: read it (config.h) */
	const struct rr_installer_config *config;
	const char *index_url; /* --default-index / --index-url */
	const char *const *extra_index_urls; /* --index, then --extra-index-url */
	size_t nextra_index_urls;
	const char *cache_dir; /* NULL: $XDG_CACHE_HOME/rocm-resolve, else ~/.cache/rocm-resolve */
	/* where a filtered copy of a constraints file the plan names is kept: data, not
	 * cache, so a saved plan still works after the cache is cleaned; NULL:
	 * $XDG_DATA_HOME/rocm-resolve, else ~/.local/share/rocm-resolve */
	const char *data_dir;
	bool no_cache, offline, refresh, pre;
	long timeout_ms;
	const char *ca_file; /* --cert: a CA bundle (else $SSL_CERT_FILE ...; $SSL_CERT_DIR) */
	/* a dependency on a clash-group member (PyPI triton next to pytorch-triton-rocm)
	 * may be kept out by an installer exclusion instead of being a conflict: only
	 * `install` with uv and --uv-excludes can honour that */
	bool allow_excludes;
	/* the answer is a lock (--lock): the index's file of each installed version it keeps
	 * is looked up after the resolution (rr_resolution.installed_files) */
	bool lock;
	/* the environment variables (tests); NULL: getenv */
	const char *(*getenv_fn)(const char *name);
	/* the world to resolve against; NULL: the indexes, through the HTTP cache */
	const struct rr_provider *provider;
	const char *user_agent;
	bool record; /* keep every answer of the world in f->world (--write-testcase) */
	/* check (the pre-commit hook): when the index cannot be reached or keeps failing
	 * (HTTP 5xx after the retries), answer from the cache; when the cache lacks something too (or, with offline, when it lacks
	 * something at all), judge the lines alone and say that the dependencies were not
	 * checked (a warning, never a silent pass) */
	bool offline_fallback;
	/* with offline_fallback: "not checked" (the index unusable, the cache short) is an
	 * error, RR_E_NETWORK (CI: $ROCM_RESOLVE_REQUIRE_INDEX) */
	bool require_index;
	/* the index client's transfers and progress (rr_index_opts.observe), or NULL */
	void (*observe)(void *ctx, const struct rr_index_event *ev);
	void *observe_ctx;
};

/*
 * the one table of a run's options (src/flow/options.c): each word of the command line
 * that sets a field of struct rr_flow_opts, its kind, whether it changes the answer
 * (the resolution or the plan), and how --write-testcase carries it into case.t for
 * rr-testcase to replay. The CLI's parser stores through it, the testcase writer
 * writes from it and the testcase reader reads back through it.
 */
enum rr_run_option_kind {
	RR_RUNOPT_FLAG,    /* bool */
	RR_RUNOPT_VALUE,   /* const char *, the last one given */
	RR_RUNOPT_LIST,    /* const char *const *, with its count, repeatable */
	RR_RUNOPT_SECONDS, /* long milliseconds; the word's value is whole seconds */
};

enum rr_run_option_replay {
	RR_REPLAY_AS_GIVEN, /* the words as given */
	RR_REPLAY_FILE,     /* a file it names, copied beside case.t and named by its copy */
	/* what the run found instead: the environment (stack.json), the indexes with their
	 * origins, the installer whose configuration was read */
	RR_REPLAY_FOUND,
	/* how answers are fetched, not what they are (a replay asks no index) */
	RR_REPLAY_NONE,
};

struct rr_run_option {
	const char *word;  /* "--all-extras" */
	const char *alias; /* another spelling ("--index-url"), or NULL */
	enum rr_run_option_kind kind;
	size_t field;  /* offsetof(struct rr_flow_opts, ...) */
	size_t count;  /* lists: offsetof the count */
	bool resolves; /* it changes the resolution or the plan */
	enum rr_run_option_replay replay;
};

const struct rr_run_option *rr_run_options(size_t *n);
/* the entry for word (or an alias of it), NULL when none */
const struct rr_run_option *rr_run_option_find(const char *word);
/* store value (borrowed; ignored for a flag) in o: a list grows (rr_run_options_release) */
void rr_run_option_set(struct rr_flow_opts *o, const struct rr_run_option *d, const char *value);
/* whether o has d set, and *n how many values (1 for a flag or a value) */
bool rr_run_option_given(const struct rr_flow_opts *o, const struct rr_run_option *d, size_t *n);
/* the i-th value of d in o (a value or a list), NULL for a flag */
const char *rr_run_option_value(const struct rr_flow_opts *o, const struct rr_run_option *d,
				size_t i);
/* free the list arrays rr_run_option_set grew (their strings are borrowed) */
void rr_run_options_release(struct rr_flow_opts *o);

/* a run of the pipeline: opaque, read through the accessors below */
struct rr_flow;

/* what the resolution cost, for -v */
struct rr_flow_stats {
	bool resolved;            /* the dependencies were resolved against the indexes */
	size_t packages;          /* the closure's size */
	size_t steps;             /* resolver decisions */
	size_t requests;          /* HTTP transfers */
	unsigned long long bytes; /* response bytes received */
	size_t cache_hits, range_requests, whole_files;
	/* pages asked as predictions, those needed after all, the others' bytes */
	size_t guesses, guesses_used;
	unsigned long long guess_bytes_unused;
};

/* steps 1-3; RR_E_USAGE for bad input, RR_E_ENV for the environment */
rr_err rr_flow_open(const struct rr_flow_opts *o, struct rr_flow **ret, rr_error *err) RR_WUR;
/* steps 4-6 (4-5 skipped with no_index or a requirements-file --no-index) */
rr_err rr_flow_plan(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err) RR_WUR;
/*
 * step 4 alone: the indexes in the order the installer the plan is for will
 * ask them, first wins per project (rocm-resolve's rule; uv's too). The
 * plan's own indexes are --index and --extra-index-url, then the inputs'
 * --extra-index-url lines, and --default-index (else the inputs' -i); the
 * installer's configuration (config.h) comes with them:
 *   uv:  the configured indexes, then the plan's; the default is the
 *        configured one, else the plan's (uv ranks its configuration above a
 *        requirements file's options);
 *   pip: a plan that names a default replaces pip's configured indexes (pip
 *        lets a file's --index-url do so); otherwise the configured indexes,
 *        then the plan's, and the configured default.
 * No default anywhere: PyPI, which the plan does not write (the installer's
 * default too). Indexes the policy marks as CUDA wheel indexes are left out
 * with a warning. RR_E_PARSE for a configuration file the installer refuses.
 */
rr_err rr_flow_indexes(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err) RR_WUR;
struct rr_flow *rr_flow_free(struct rr_flow *f);

/*
 * step 3 again, for a venv an installer has changed since rr_flow_open: the environment
 * and its protected stack are read anew (the plan and warnings stay as they were)
 */
rr_err rr_flow_reload_env(struct rr_flow *f, const struct rr_flow_opts *o, rr_error *err) RR_WUR;

/*
 * the directories of the XDG base directory rule, the one rule for each (caller frees;
 * NULL when none can be found): explicit_dir when given, else $XDG_<X>_HOME/rocm-resolve
 * when that is absolute, else ~/<fallback>/rocm-resolve. Cache: what can be fetched again
 * ($XDG_CACHE_HOME, ~/.cache). State: what cannot, and must survive `rm -rf ~/.cache`
 * (the install store; $XDG_STATE_HOME, ~/.local/state)
 */
char *rr_flow_cache_dir(const char *explicit_dir, const char *(*getenv_fn)(const char *));
char *rr_flow_state_dir(const char *explicit_dir, const char *(*getenv_fn)(const char *));

/*
 * what a flow holds, borrowed until rr_flow_free (the plan until it is taken): the policy,
 * the inputs flattened, the environment and its stack (steps 1-3), the plan (step 6; NULL
 * before or when it failed), the warnings of every step in order
 */
const struct rr_policy *rr_flow_policy(const struct rr_flow *f);
const struct rr_reqset *rr_flow_reqs(const struct rr_flow *f);
const struct rr_venv *rr_flow_venv(const struct rr_flow *f);
const struct rr_stack *rr_flow_stack(const struct rr_flow *f);
const struct rr_plan *rr_flow_get_plan(const struct rr_flow *f);
/* the plan, now the caller's (rr_plan_free); the flow holds none after */
struct rr_plan *rr_flow_take_plan(struct rr_flow *f);
char *const *rr_flow_warnings(const struct rr_flow *f, size_t *n);
void rr_flow_stats(const struct rr_flow *f, struct rr_flow_stats *st);
/* with opts->record: the world's answers as scenario "=Pkg:" lines, else NULL */
const char *rr_flow_world(const struct rr_flow *f);
/* the data directory (absolute), NULL when none was found */
const char *rr_flow_data_dir(const struct rr_flow *f);
/* the installer the plan is for, and the indexes of step 4 in priority order: as the plan
 * names them, and (rr_flow_index_written) as given, ${VAR} kept (redact before showing) */
enum rr_installer rr_flow_installer(const struct rr_flow *f);
const struct rr_plan_index *rr_flow_index_list(const struct rr_flow *f, size_t *n);
const char *rr_flow_index_written(const struct rr_flow *f, size_t i);

#endif

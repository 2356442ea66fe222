/*
 * project.h - the [tool.uv] settings that make `uv lock`, `uv sync` and `uv add`
 * keep the protected stack, derived from the one resolution of the project.
 *
 *   struct rr_project *p;
 *   rc = rr_project_open(&o, "pyproject.toml", &p, err);  the file, its settings, the flow
 *   rc = rr_project_plan(p, &o, err);                     resolve with the stack fixed
 *   if (p->nunmet) ... an error: requirements no release can meet with the stack (where
 *                      only the requirement's own bound is in the way - the lower bound
 *                      `uv add` writes - the release that fits is named, and the edit)
 *   rr_project_format(p, &sb);                            the [tool.uv] table, as TOML
 *   rc = rr_project_edit(p, &text, &len, err);            the file with its keys replaced
 *   rr_project_compare(p, &why);                          false when missing or stale
 *   p = rr_project_free(p);
 *
 * The settings (keys of [tool.uv] this module owns):
 *   exclude-dependencies: every protected distribution, the other members of its clash
 *     group (pytorch-triton-rocm next to a protected triton), and CUDA-only packages
 *     the project asks for: uv never locks or installs them;
 *   constraint-dependencies: what uv can no longer see once those are excluded - every
 *     package the stack holds below its newest release, pinned where the resolution
 *     with the stack fixed put it ("rr-speech==1.0"), and the protected distributions'
 *     own requirements on the rest ("numpy<2" of a ROCm torchvision).
 * Each entry carries its cause as a comment that starts with RR_PROJECT_MARK (and names
 * no path or line: a second edit changes nothing); an entry of those keys without it is
 * the user's and is kept where and as it is (a constraint of the user's also bounds the
 * resolution, as uv will apply it): rr_project_edit replaces only the marked entries
 * (rr_tomledit_set_ours). The keys go into pyproject.toml also with a uv.toml beside it,
 * the only place `uv lock` applies them (a warning says so).
 *
 * The project is resolved as `uv lock` locks it: in a uv workspace (workspace.h) every
 * member, found from the root or from any member; [project] dependencies, every extra,
 * every dependency group (and [tool.uv] dev-dependencies), against the indexes uv
 * reads there: its configuration (config.h) as found from the root's directory,
 * [[tool.uv.index]] of the root included (explicit ones aside). The settings are the
 * root's: uv reads them there alone.
 */
#ifndef RR_PROJECT_H
#define RR_PROJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tomledit.h"
#include "rocm-resolve/workspace.h"

struct rr_flow;
struct rr_flow_opts;

#define RR_PROJECT_MARK "rocm-resolve:"

struct rr_project_entry {
	char *value;
	char *comment; /* without '#'; ours start with RR_PROJECT_MARK; NULL: none */
	bool ours;
};

struct rr_project_list {
	struct rr_project_entry *v;
	size_t n, cap;
};

struct rr_project {
	char *path;  /* the pyproject.toml the settings live in: the workspace root's */
	char *dir;   /* its directory: uv's configuration is read from there */
	char *asked; /* the pyproject.toml asked about (a member's, or the same) */
	struct rr_workspace *ws;
	struct rr_strbuf text;
	struct rr_toml_array cur_excludes, cur_constraints; /* as the file has them */
	struct rr_flow *flow;
	/* what the file should hold: ours (sorted), then the user's entries as they were */
	struct rr_project_list excludes, constraints;
	/* "pyproject.toml:5: 'rr-x>=2': <why>": requirements no release can meet with the
	 * stack; the settings are no answer then */
	char **unmet;
	size_t nunmet;
	size_t *unmet_item; /* the reqset item of each, SIZE_MAX when none */
	char **warnings;
	size_t nwarnings;
};

/*
 * the environment uv's project commands use, against the protected one. `uv sync` is
 * exact (it uninstalls what uv.lock does not hold; no setting changes that, `--inexact`
 * does), and the lock holds none of the stack: where that environment is the
 * protected one, plain `uv sync` uninstalls the stack (`uv remove` too; `uv run` and
 * `uv add` sync inexactly)
 */
struct rr_project_env {
	char *path; /* $UV_PROJECT_ENVIRONMENT (relative: to the project's root), else ROOT/.venv */
	const char *how; /* "UV_PROJECT_ENVIRONMENT" or ".venv" */
	bool exists;
	bool is_protected; /* it is the protected environment (the same directory, or a link to it) */
	/* $VIRTUAL_ENV when it names the protected environment and path does not: what
	 * `uv sync --active` syncs into; NULL otherwise */
	char *active;
};

/*
 * where uv syncs the project whose root (workspace root) is root; protected_root is the
 * protected environment's directory; getenv_fn NULL: getenv
 */
void rr_project_env_find(struct rr_project_env *e, const char *root, const char *protected_root,
			 const char *(*getenv_fn)(const char *));
/*
 * what syncing there does to the stack, one message, or NULL when nothing: *fatal when
 * plain `uv sync` (or `uv sync --active` with no project venv) would uninstall it; the
 * message then names the one safe command. Caller frees
 */
char *rr_project_env_hazard(const struct rr_project_env *e, const struct rr_project *p,
			    bool *fatal);
void rr_project_env_release(struct rr_project_env *e);

/* read the project file and open the flow on it (policy, inputs, environment, stack) */
rr_err rr_project_open(const struct rr_flow_opts *o, const char *pyproject, struct rr_project **ret,
		       rr_error *err) RR_WUR;
/*
 * does uv, left alone, reach the stack here? false when the resolution holds no
 * protected build, nothing held back, stripped or excluded, and no package the stack
 * itself requires: then no setting is needed (the project hook demands none). Not
 * resolved against an index (none usable): by the lines alone
 */
bool rr_project_reaches_stack(const struct rr_project *p);
/*
 * the first uv release that honours every key the file will hold, and the key that needs
 * it (NULL when none: no key written). Measured with real uv: 0.9.8 for
 * exclude-dependencies (0.9.0 to 0.9.7 warn that they do not know it and drop the whole
 * [tool.uv] table, [[tool.uv.index]] included; a required-version beside it is dropped
 * with it)
 */
const char *rr_project_uv_needed(const struct rr_project *p, const char **key);
/* resolve and derive the settings */
rr_err rr_project_plan(struct rr_project *p, const struct rr_flow_opts *o, rr_error *err) RR_WUR;
/* the settings as a [tool.uv] table with a comment naming what they keep */
void rr_project_format(const struct rr_project *p, struct rr_strbuf *out);
/* "resolved against URL (origin), ..." or "not resolved against an index (why)" */
void rr_project_indexes(const struct rr_project *p, struct rr_strbuf *out);
/* the file with the two keys set and every other byte as it was (checked with toml++) */
rr_err rr_project_edit(const struct rr_project *p, char **ret, size_t *retlen, rr_error *err) RR_WUR;
/* do the file's keys hold what they should? why not, one line each, into why */
bool rr_project_compare(const struct rr_project *p, struct rr_strbuf *why);
struct rr_project *rr_project_free(struct rr_project *p);

#endif

/*
 * reqfile.h - requirements files (pip syntax) and pyproject.toml into one set.
 *
 * struct rr_reqset set = RR_REQSET_INIT;
 * rc = rr_input_load(&set, "requirements.txt", NULL, err);     // or a dir, or *.toml
 * rc = rr_input_load(&set, "pyproject.toml", &sel, err);       // more inputs, same set
 * for (size_t i = 0; i < set.nitems; i++) ... set.items[i].req, .path, .line ...
 * rr_reqset_release(&set);
 *
 * The requirements grammar is pip 23.0's req_file.py, rule for rule: Python
 * splitlines() line breaks, `\` continuations (not after a comment line), `#`
 * comments at line start or after whitespace, ${VAR} expansion (only
 * [A-Z0-9_], unset or empty left as is; see "Secrets" below), args/options split at the first
 * space-separated token starting with '-', shlex + optparse for the options
 * (long-option prefixes, `--opt=v`, `-xv`). Options on a requirement line
 * other than the per-requirement ones are ignored, as pip does; `-r`/`-c`
 * include only the first file named on a line. Includes resolve relative to
 * the including file; URLs are refused (we never fetch). Beyond pip 23.0:
 * `--config-settings` is accepted per requirement (pip >= 23.1, uv) and
 * `--use-feature` accepts any value.
 *
 * On failure the set keeps whatever was added before the error; release it.
 *
 * Secrets: ${VAR} is how pip users keep a token out of the file
 * (`-i https://${USER}:${TOKEN}@host/simple`), and the installers expand it
 * themselves. The expanded value is used (to reach the index, to parse the
 * requirement) but never printed: every field meant for output keeps the text
 * as written, and the expanded form sits next to it with an `_expanded`
 * suffix. Print `text`, `url_written`, `options`, rr_optline.value and
 * error messages; use `text_expanded`, `req` (parsed from the expanded text,
 * req.url included), rr_optline.value_expanded and the set's index_url,
 * extra_index_urls, find_links, trusted_hosts (all expanded: never print
 * those). A value that appears literally elsewhere on the same line is shown
 * as its ${VAR} there too (the written form replaces every occurrence of each
 * expanded value by its reference).
 */
#ifndef RR_REQFILE_H
#define RR_REQFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/requirement.h"

/* a requirements file larger than this is refused (RR_E_LIMIT) */
#define RR_REQFILE_MAX_SIZE (16u << 20)
/* -r/-c nesting deeper than this is refused (RR_E_LIMIT) */
#define RR_REQFILE_MAX_DEPTH 32

enum rr_item_kind {
	RR_ITEM_REQ, /* PEP 508 line (including "name @ url") */
	RR_ITEM_URL, /* bare URL / local path / -e target */
};

struct rr_item {
	char *path;    /* origin file (as opened, "-" for stdin) */
	unsigned line; /* 1-based line of the first physical line */
	unsigned col;  /* 1-based byte column where the requirement starts */
	/* requirement as written: continuations joined, comment stripped, ${VAR}
	 * NOT expanded, per-requirement options removed; what to print */
	char *text;
	/* the same with ${VAR} expanded, what req was parsed from; never print it.
	 * Never NULL; the same pointer as text when nothing was expanded */
	char *text_expanded;
	bool constraint; /* came from a -c file */
	/* a lock entry "name==version": an installed version other than exactly this one
	 * (2.9.1+rocm7.2 for 2.9.1) is replaced, as `uv sync` replaces it */
	bool exact_version;
	bool editable;	 /* -e */
	enum rr_item_kind kind;
	/* RR_ITEM_REQ: parsed; RR_ITEM_URL: req.url = the URL/path as written,
	 * req.extras from "path[extra]", req.marker from "url ; marker",
	 * req.name/key when derivable (#egg=, wheel or sdist filename) else NULL */
	struct rr_requirement req;
	/* req.url as written (${VAR} kept) for printing; NULL when req.url is; may be req.url */
	char *url_written;
	char **hashes; /* "sha256:<hex>" from --hash, in file order */
	size_t nhashes;
	char **options; /* other per-requirement options as written, "--global-option=x" */
	size_t noptions;
};

/*
 * a global option as found: name the long spelling "--index-url"; value as written (${VAR}
 * kept: print this), value_expanded with ${VAR} expanded (use this: never print it); both
 * NULL for an option without a value; value_expanded may be the same pointer as value
 */
struct rr_optline {
	char *path;
	unsigned line;
	char *name;
	char *value;
	char *value_expanded;
};

struct rr_reqset {
	struct rr_item *items;
	size_t nitems, cap_items;
	struct rr_optline *opts; /* all global options, in file order */
	size_t nopts, cap_opts;
	/* last -i/--index-url seen, NULL if none; this and the three lists below are expanded
	 * (${VAR}): use them, never print them (print rr_optline.value) */
	char *index_url;
	char **extra_index_urls;
	size_t nextra_index_urls;
	char **find_links;
	size_t nfind_links;
	char **trusted_hosts;
	size_t ntrusted_hosts;
	bool no_index, pre, prefer_binary, require_hashes;
	char **files; /* every file read, in order */
	size_t nfiles;
	char **warnings; /* "path:line: ..." notes for the user */
	size_t nwarnings;
	char **notes; /* what -v says: how the inputs were read */
	size_t nnotes;
	/* a uv project input (workspace.h): its root's directory, where uv reads its
	 * configuration; NULL when none */
	char *uv_root;
	/* with rr_input_sel.uv_settings: the [tool.uv] settings uv applies to the whole
	 * resolution - names it never installs, requirements that replace every requirement
	 * on their name (constraint-dependencies are constraint items) */
	char **uv_excludes;
	size_t nuv_excludes;
	char **uv_overrides;
	size_t nuv_overrides;
};

#define RR_REQSET_INIT {0}

struct rr_input_sel {
	const char *const *extras;
	size_t nextras;
	bool all_extras;
	const char *const *groups;
	size_t ngroups;
	bool all_groups; /* every PEP 735 group (and a lock's every dependency group) */
	/* a uv workspace: every member's requirements, as `uv lock` locks the union */
	bool all_members;
	/* a uv project: its [tool.uv] exclude-, constraint- and override-dependencies
	 * applied, as uv applies them (workspace.h) */
	bool uv_settings;
};

/* read and parse a requirements file ("-" = stdin) and everything it includes */
rr_err rr_reqfile_load(struct rr_reqset *set, const char *path, rr_error *err) RR_WUR;
/* parse text (len bytes) as if read from path; includes resolve relative to path */
rr_err rr_reqfile_parse(struct rr_reqset *set, const char *path, const char *text, size_t len,
			bool constraint, rr_error *err) RR_WUR;
/* [project] dependencies plus the selected extras and PEP 735 groups */
rr_err rr_pyproject_load(struct rr_reqset *set, const char *path, const struct rr_input_sel *sel,
			 rr_error *err) RR_WUR;
/* same, from memory */
rr_err rr_pyproject_parse(struct rr_reqset *set, const char *path, const char *text, size_t len,
			  const struct rr_input_sel *sel, rr_error *err) RR_WUR;
/* a local project's static [project] facts, for reading it as a requirement */
struct rr_pyproject_info {
	char *name;
	char *version;	       /* NULL when dynamic or absent */
	char *requires_python; /* NULL when absent */
	bool deps_dynamic;     /* "dependencies" in [project] dynamic: only a build knows them */
	bool extras_dynamic;   /* the same for "optional-dependencies" */
};
/* RR_E_UNSUPPORTED when there is no [project] (a setup.py project: only a build knows) */
rr_err rr_pyproject_info_parse(const char *path, const char *text, size_t len,
			       struct rr_pyproject_info *ret, rr_error *err) RR_WUR;
void rr_pyproject_info_release(struct rr_pyproject_info *info);
/*
 * a pyproject.toml's [project] table as core metadata (PEP 621: a field not listed in
 * `dynamic` is static, and a build may not change it): Metadata-Version 2.2 text with
 * Name, Version (the table's, else version), Requires-Python (the table's, else
 * requires_python when not NULL), Requires-Dist and Provides-Extra. RR_E_UNSUPPORTED,
 * with why, where only a build knows the dependencies: no [project], dependencies or
 * optional-dependencies dynamic, a line that is not PEP 508, a file toml++ cannot read
 */
rr_err rr_pyproject_core_metadata(const char *path, const char *text, size_t len,
				  const char *version, const char *requires_python,
				  struct rr_strbuf *out, rr_error *err) RR_WUR;

/*
 * a directory means its pyproject.toml (if it has [project]) else its
 * requirements.txt; *.toml means pyproject; anything else requirements syntax
 */
rr_err rr_input_load(struct rr_reqset *set, const char *path, const struct rr_input_sel *sel,
		     rr_error *err) RR_WUR;
void rr_reqset_release(struct rr_reqset *set);
/*
 * s with every ${VAR} reference (pip's rule: NAME in [A-Z0-9_]) replaced by its value
 * from getenv_fn (NULL: getenv); unset or empty ones stay as written. For values given
 * outside a requirements file (options, the environment) that use the same form. The
 * result may hold a secret: never print it. Caller frees.
 */
char *rr_reqfile_expand(const char *s, const char *(*getenv_fn)(const char *));

/* internal to src/input: append an item (fields moved in) / a warning */
struct rr_item *rr_reqset_add_item(struct rr_reqset *set);
void rr_reqset_add_warning(struct rr_reqset *set, const char *fmt, ...) RR_PRINTF(2, 3);
void rr_reqset_add_file(struct rr_reqset *set, const char *path);
void rr_reqset_add_note(struct rr_reqset *set, const char *fmt, ...) RR_PRINTF(2, 3);
/* take item i out of the set (the later ones move up) */
void rr_reqset_drop_item(struct rr_reqset *set, size_t i);

#endif

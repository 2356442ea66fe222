/*
 * config.h - where the installer looks: pip's and uv's configuration files and
 * environment variables, read with the precedence the installer itself uses,
 * for the indexes, find-links, certificates and offline mode a plan is
 * resolved with.
 *
 *   struct rr_config_env e = {.sysroot = NULL, .cwd = NULL, .venv = "/opt/venv"};
 *   struct rr_installer_config c;
 *   rc = rr_config_load(RR_INSTALLER_PIP, &e, &c, err);
 *   c.default_index.value ... c.indexes[i].value, .origin ("/etc/pip.conf:3", "UV_INDEX")
 *   rr_config_release(&c);
 *
 * pip (pip 23's configuration.py and its option parser): files, later ones
 * winning: $XDG_CONFIG_DIRS/pip/pip.conf (default /etc/xdg), /etc/pip.conf;
 * ~/.pip/pip.conf, $XDG_CONFIG_HOME/pip/pip.conf (default ~/.config; both
 * skipped when PIP_CONFIG_FILE names a file that exists); VENV/pip.conf;
 * PIP_CONFIG_FILE (/dev/null: no file at all). A key of [install] beats the
 * same key of [global] whatever files they are in; a PIP_* variable beats
 * both (PIP_EXTRA_INDEX_URL replaces the files' extra-index-url). Keys are
 * index-url, extra-index-url, find-links, no-index, cert.
 *
 * uv (checked against uv 0.13): the project's uv.toml, else its pyproject.toml
 * with a [tool.uv] table, in the working directory or the nearest parent that
 * has one; $XDG_CONFIG_HOME/uv/uv.toml (default ~/.config); the first of
 * $XDG_CONFIG_DIRS/uv/uv.toml and /etc/uv/uv.toml. UV_CONFIG_FILE replaces
 * them all, UV_NO_CONFIG turns them off. A scalar comes from the first of
 * project, user, system; arrays are joined in that order. For `uv pip`, the
 * [pip] table's keys come before the top-level ones. Indexes, in the order uv
 * asks them: UV_INDEX, UV_EXTRA_INDEX_URL, the files' [[index]] entries
 * (explicit ones left out), [pip] extra-index-url, extra-index-url. The
 * default: UV_DEFAULT_INDEX, UV_INDEX_URL, the first [[index]] with
 * default = true, [pip] index-url, index-url. Also find-links (UV_FIND_LINKS
 * first), no-index, offline (UV_OFFLINE beats the files).
 *
 * What the requirements file (the plan) says is not here: pip lets a file's
 * --index-url replace the configured indexes, uv ranks the file's indexes
 * below its configuration (rr_flow_indexes puts the two together).
 */
#ifndef RR_CONFIG_H
#define RR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

enum rr_installer { RR_INSTALLER_UV, RR_INSTALLER_PIP };

/* a value and where it was set: "path:line" or the variable's name */
struct rr_config_value {
	char *value; /* NULL: not set */
	char *origin;
};

/* where to look; tests point every field at a temporary tree */
struct rr_config_env {
	const char *sysroot; /* prefix of /etc (NULL: none) */
	const char *cwd;     /* where uv's search for project configuration starts (NULL: getcwd) */
	const char *venv;    /* the target environment: pip reads VENV/pip.conf (NULL: none) */
	const char *(*getenv_fn)(const char *name); /* NULL: getenv */
};

struct rr_installer_config {
	enum rr_installer installer;
	struct rr_config_value default_index;
	struct rr_config_value *indexes; /* asked before the default, in order */
	size_t nindexes;
	struct rr_config_value *find_links;
	size_t nfind_links;
	struct rr_config_value no_index; /* value "true" when set */
	struct rr_config_value offline;	 /* uv: value "true" when set */
	struct rr_config_value cert;	 /* pip: the CA bundle */
	char **files;			 /* every configuration file read, in precedence order */
	size_t nfiles;
};

const char *rr_installer_name(enum rr_installer inst);

/*
 * read inst's configuration; a file the installer would refuse (no section
 * header, a line without '=', a bad boolean, TOML errors) is RR_E_PARSE at
 * its line, as the installer would fail on it too
 */
rr_err rr_config_load(enum rr_installer inst, const struct rr_config_env *env,
		      struct rr_installer_config *ret, rr_error *err) RR_WUR;
void rr_config_release(struct rr_installer_config *c);
/* a deep copy of src into *dst (dst's old content is not released) */
void rr_config_copy(struct rr_installer_config *dst, const struct rr_installer_config *src);

#endif

/*
 * venv.h - inspect an installed Python environment.
 *
 * struct rr_venv *v;
 * struct rr_venv_opts o = {0};
 * rc = rr_venv_load("/opt/venv", &o, &v, err);     RR_E_ENV when the venv is missing
 * const struct rr_dist *d = rr_venv_lookup(v, "torch");
 * ... v = rr_venv_free(v);
 *
 * What is read, and nothing more (no RECORD hashing, no imports):
 *   - pyvenv.cfg: `version_info` (uv) or `version` (venv), `home`,
 *     `include-system-site-packages`;
 *   - <root>/lib/pythonX.Y/site-packages and lib64/... (same directory counted once);
 *     when the root holds no lib/python*, a root that itself contains *.dist-info is
 *     taken as a site-packages directory; a system prefix (/usr, as in NGC images) has
 *     none: its local/lib/pythonX.Y/dist-packages, lib/python3/dist-packages and
 *     lib/pythonX.Y/dist-packages, in Python's order;
 *   - include-system-site-packages = true: the base interpreter's sites (the prefix above
 *     pyvenv.cfg's home, under opts->sysroot: lib/pythonX.Y/site-packages and the Debian
 *     directories), after the venv's own; their dists are `inherited`;
 *   - *.pth files of each site: lines naming an existing directory that holds
 *     distributions become bridged sites (relative paths resolve against the site,
 *     as Python's site module does; absolute paths are prefixed with opts->sysroot);
 *     `import` lines and comments are ignored;
 *   - every *.dist-info (METADATA, INSTALLER, direct_url.json, RECORD top-level names)
 *     and *.egg-info (PKG-INFO, requires.txt, top_level.txt; also the single-file form);
 *   - torch/version.py of the site holding torch (`__version__`, `hip`, `cuda`);
 *   - ROCm: opts->rocm_path, else $ROCM_PATH, else <sysroot>/opt/rocm; the version from
 *     .info/version or include/rocm-core/rocm_version.h;
 *   - pip constraint: $PIP_CONSTRAINT (whitespace-separated files), else
 *     <sysroot>/etc/pip/constraint.txt if present; each requirement line with its line.
 *
 * A broken distribution (no METADATA, malformed METADATA, unreadable file, over a size
 * cap) is kept with `problem` set and a warning added; it never fails the load.
 * A directory with no site-packages (no lib/python3.X/site-packages, no distributions
 * at its top) and no pyvenv.cfg, conda-meta or bin/python is no environment: RR_E_ENV.
 * Strings are owned by the venv; rr_dist pointers live as long as the venv.
 *
 * A stack file (`inspect --format json`, include/rocm-resolve/stack-file.h) reads back
 * into the same struct; v->stack_file names it.
 */
#ifndef RR_VENV_H
#define RR_VENV_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/version.h"

struct rr_dist {
	char *name, *key;	/* as in METADATA (else from the directory name); PEP 503 */
	char *version_text;	/* as in METADATA */
	struct rr_version version;
	bool version_ok;	/* version_text is a valid PEP 440 version */
	char *path;		/* the .dist-info / .egg-info directory (or file) */
	char *site;		/* the site-packages it lives in */
	char *installer;	/* INSTALLER contents (trimmed) or NULL */
	char *direct_url;	/* url from direct_url.json, credentials redacted, or NULL */
	/* the sha256 direct_url.json records of that archive (64 hex digits), or NULL */
	char *direct_url_sha256;
	bool editable, egg_info;
	struct rr_metadata meta; /* parsed METADATA (requires_dist etc.) */
	char **top_level;	/* sorted top-level import names from RECORD (or top_level.txt) */
	size_t ntop_level;
	char *problem;		/* non-NULL: why this dist is unusable ("METADATA missing") */
	bool bridged;		/* site is a bridged site (reached through a .pth file) */
	bool inherited;		/* site is the base interpreter's (include-system-site-packages) */
};

/* a requirement line of a pip constraint file in force */
struct rr_venv_constraint {
	char *file; /* as read (with the sysroot prefix) */
	unsigned line;
	char *requirement; /* the line, trimmed, its comment cut */
};

struct rr_venv {
	char *root;
	char *python_version; /* "3.12.3" from pyvenv.cfg, else "3.12" from lib/python3.12; or NULL */
	char *home;	      /* pyvenv.cfg `home`, or NULL */
	bool system_site_packages; /* include-system-site-packages = true */
	char *site_packages;  /* the venv's own site-packages, or NULL when none was found */
	char **bridged_sites; /* other site-packages reached through .pth files */
	size_t nbridged_sites;
	/* with system_site_packages: the base interpreter's site directories, scanned after
	 * the venv's own (their dists are inherited) */
	char **base_sites;
	size_t nbase_sites;
	struct rr_dist *dists; /* sorted by key; the first site wins on duplicates */
	size_t ndists;
	char *torch_version, *torch_hip, *torch_cuda; /* torch/version.py; NULL when absent/None */
	char *rocm_version, *rocm_path;	 /* rocm_path NULL when the directory does not exist */
	char *pip_constraint;		 /* constraint file(s) in force, or NULL */
	struct rr_venv_constraint *constraints; /* their requirement lines */
	size_t nconstraints;
	/* marker variables that differ from rr_marker_env_init's (stack file); NULL = default */
	char *markers[RR_MVAR__MAX];
	char *machine;	/* wheel platform (stack file): uname machine and glibc "2.35"; NULL = */
	char *glibc;	/* this host's (rr_target_host) */
	char *stack_file; /* the stack file this was loaded from, NULL for a live venv */
	char **warnings;
	size_t nwarnings;
};

/* where the environment was found: rr_venv_locate */
enum rr_venv_origin {
	RR_VENV_FROM_OPTION,	   /* --venv */
	RR_VENV_FROM_VIRTUAL_ENV,  /* $VIRTUAL_ENV */
	RR_VENV_FROM_CONDA_PREFIX, /* $CONDA_PREFIX */
	RR_VENV_FROM_OPT_VENV,	   /* /opt/venv exists (rocm/pytorch images) */
	RR_VENV_FROM_OPT_CONDA,	   /* /opt/conda, or its env under envs/ that holds torch */
	RR_VENV_FROM_SYSTEM,	   /* /usr: the system Python holds torch (NGC images) */
};

struct rr_venv_opts {
	const char *sysroot;   /* prefix for /opt/rocm, /etc/pip and absolute .pth paths; NULL = "/" */
	const char *rocm_path; /* overrides $ROCM_PATH */
};

/* caps on what is read; larger files make the dist a problem entry */
#define RR_VENV_MAX_METADATA (16u << 20)
#define RR_VENV_MAX_RECORD (64u << 20)
#define RR_VENV_MAX_SMALL (1u << 20)
#define RR_VENV_MAX_SITES 16

struct rr_target;

rr_err rr_venv_load(const char *root, const struct rr_venv_opts *opts, struct rr_venv **ret,
		    rr_error *err) RR_WUR;
/*
 * the environment to use: option (--venv) when set, else virtual_env, else
 * conda_prefix (the callers pass getenv("VIRTUAL_ENV"), getenv("CONDA_PREFIX");
 * empty strings count as unset), else /opt/venv, else /opt/conda (or the one env in
 * /opt/conda/envs/ whose site-packages holds torch), else /usr when the system
 * Python's dist-packages hold torch (NGC images), those three under sysroot
 * (NULL = "/"). *ret_path is allocated; *ret_origin says which rule found it.
 * RR_E_ENV with a hint (--venv, activate, --stack) when no rule finds one.
 */
rr_err rr_venv_locate(const char *option, const char *virtual_env, const char *conda_prefix,
		      const char *sysroot, char **ret_path, enum rr_venv_origin *ret_origin,
		      rr_error *err) RR_WUR;
/* "--venv", "$VIRTUAL_ENV", "$CONDA_PREFIX", "/opt/venv", "/opt/conda" */
const char *rr_venv_origin_name(enum rr_venv_origin o);
/* key must be PEP 503-normalised; NULL when not installed */
const struct rr_dist *rr_venv_lookup(const struct rr_venv *v, const char *key);
/*
 * linux x86_64 CPython environment for v->python_version (pybuf holds "3.12"), with
 * v->markers over it (a stack file's recorded environment); env borrows from v
 */
void rr_venv_marker_env(const struct rr_venv *v, struct rr_marker_env *env, char pybuf[16]);
/* the wheel platform to resolve for: v->machine/glibc when set, else this host's */
void rr_venv_target(const struct rr_venv *v, struct rr_target *t);
struct rr_venv *rr_venv_free(struct rr_venv *v);

#endif

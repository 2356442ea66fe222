/*
 * lockfile.h - uv.lock and pylock.toml (PEP 751) as inputs.
 *
 *   struct rr_lock lk = RR_LOCK_INIT;
 *   rc = rr_lock_load(&lk, "uv.lock", err);                 parse and check the whole file
 *   rc = rr_lock_select(&lk, &env, &sel, &set, err);        what installing it would install
 *   rr_lock_release(&lk);
 *
 * Loading reads the whole file with toml++ and checks it: a TOML syntax error, a
 * missing or mistyped key, a marker that does not parse, a dependency that names no
 * package of the lock - each is RR_E_PARSE with "file:line:col" and the offending line.
 *
 * Selecting answers "what would the installer put in this environment", for the
 * marker environment given:
 *   - uv.lock, as `uv sync` does: from the project (the package whose source is the
 *     lock's directory; without one, every workspace member of [manifest]) along its
 *     dependencies, the optional dependencies of the extras asked for (sel) and the
 *     dependency groups asked for plus the default ones (the `default-groups` of
 *     [tool.uv] in the pyproject.toml beside the lock, else "dev"); an edge whose
 *     marker is false here is not followed, an edge naming a version (a package the
 *     universal lock holds at several versions) leads to that version, and an edge
 *     without one to the version whose resolution-markers hold here;
 *   - pylock.toml, as PEP 751 installers do: every package whose marker holds here,
 *     with `extras` and `dependency_groups` the sets asked for (sel; groups default to
 *     the file's default-groups). The file's `environments` and `requires-python`
 *     are checked against the environment (a warning when they exclude it).
 * Each selected package becomes one item of set (path = the lock file, line:col = its
 * `name`): "name==version" from an index, "name @ URL" from a URL, a git commit or a
 * path (resolved against the lock's directory), editable ones with -e; the project's
 * own packages (workspace members, virtual roots) are not items. exact_version is set
 * on "name==version" items: the installer replaces an installed distribution whose
 * version is not exactly that one (2.9.1+rocm7.2 is not 2.9.1 to `uv sync`). Every
 * index the selected packages come from becomes an --index-url / --extra-index-url
 * option line of set (PyPI, else the first, as the default), so the plan names them.
 */
#ifndef RR_LOCKFILE_H
#define RR_LOCKFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_marker;
struct rr_marker_env;
struct rr_reqset;
struct rr_input_sel;

enum rr_lock_format { RR_LOCK_NONE, RR_LOCK_UV, RR_LOCK_PYLOCK };

/* where a locked package comes from */
#define RR_LOCK_SOURCE_LIST(X)                                                                     \
	X(RR_LSRC_NONE, "none")                                                                    \
	X(RR_LSRC_REGISTRY, "registry")                                                            \
	X(RR_LSRC_VIRTUAL, "virtual")                                                              \
	X(RR_LSRC_EDITABLE, "editable")                                                            \
	X(RR_LSRC_DIRECTORY, "directory")                                                          \
	X(RR_LSRC_PATH, "path")                                                                    \
	X(RR_LSRC_GIT, "git")                                                                      \
	X(RR_LSRC_URL, "url")

#define RR_LOCK_SOURCE_ENUM_(sym, str) sym,
enum rr_lock_source { RR_LOCK_SOURCE_LIST(RR_LOCK_SOURCE_ENUM_) RR_LSRC__MAX };
#undef RR_LOCK_SOURCE_ENUM_

/* an edge of uv.lock's graph: { name, version?, source?, marker?, extra? } */
struct rr_lock_dep {
	char *key;	   /* PEP 503-normalised name */
	char *version;	   /* set when the lock names one (the name has several versions) */
	enum rr_lock_source source_kind; /* RR_LSRC_NONE when the edge names no source */
	char *source;			 /* the source's value when named */
	struct rr_marker *marker;	 /* NULL: always */
	char **extras;			 /* extras of the target to activate, normalised */
	size_t nextras;
	unsigned line, col;
};

/* optional-dependencies or dev-dependencies: one list per extra or group */
struct rr_lock_group {
	char *name; /* normalised */
	struct rr_lock_dep *deps;
	size_t ndeps;
};

struct rr_lock_pkg {
	char *name;    /* as written */
	char *key;     /* normalised */
	char *version; /* NULL when the lock gives none */
	enum rr_lock_source kind;
	char *source;	    /* registry or index URL, path, URL, git URL (without ?query#commit) */
	char *commit;	    /* git: the locked commit */
	char *subdirectory; /* git, URL, archive: the subdirectory of the project, or NULL */
	/* pylock: the first wheel's or the sdist's URL or path (a package without version) */
	char *file;
	/* uv.lock: the forks of a universal resolution this version belongs to (none: all) */
	struct rr_marker **forks;
	size_t nforks;
	/* pylock: when to install it, as written (may use `extras` / `dependency_groups`) */
	char *marker_text;
	unsigned marker_line, marker_col; /* where that string's text starts */
	struct rr_lock_dep *deps;
	size_t ndeps;
	struct rr_lock_group *extras;
	size_t nextras;
	struct rr_lock_group *groups;
	size_t ngroups;
	unsigned line, col; /* of its name */
};

struct rr_lock {
	enum rr_lock_format format;
	char *path;
	char *dir;	       /* the directory paths in it are relative to (absolute when known) */
	char *requires_python; /* NULL when none */
	struct rr_lock_pkg *pkgs;
	size_t npkgs;
	char **members; /* uv.lock [manifest] members, normalised */
	size_t nmembers;
	char **default_groups; /* normalised; see above */
	size_t ndefault_groups;
	bool default_groups_all; /* default-groups = "all" */
	/* pylock: environments markers (as written) and where each is */
	char **environments;
	size_t nenvironments;
	unsigned env_line, env_col;
	char **warnings; /* notes for the user, "path:line: ..." */
	size_t nwarnings;
	/* the packages by name: indexes into pkgs ordered by key, then by place in the file
	 * (made by the reader; rr_lock_find looks a name up in it) */
	size_t *by_key;
};

#define RR_LOCK_INIT {0}

/* the lock format a file name says (uv.lock; pylock.toml, pylock.NAME.toml), else NONE */
enum rr_lock_format rr_lock_format_of(const char *path);
/* read and check a lock file whose format its name says */
rr_err rr_lock_load(struct rr_lock *lk, const char *path, rr_error *err) RR_WUR;
/*
 * the same from memory, as if read from path (relative paths in it and the
 * pyproject.toml of uv.lock's default groups resolve against path's directory)
 */
rr_err rr_lock_parse(struct rr_lock *lk, const char *path, const char *text, size_t len,
		     enum rr_lock_format format, rr_error *err) RR_WUR;
/* append the items installing the lock into env would install (see above) */
rr_err rr_lock_select(const struct rr_lock *lk, const struct rr_marker_env *env,
		      const struct rr_input_sel *sel, struct rr_reqset *set, rr_error *err) RR_WUR;
void rr_lock_release(struct rr_lock *lk);
/*
 * the packages named key (normalised), in file order: *n of them at lk->by_key[ret..],
 * found in O(log n) so that reading a lock stays linear in its edges
 */
size_t rr_lock_find(const struct rr_lock *lk, const char *key, size_t *n);

/*
 * pylock markers may test `'name' in extras` and `'name' in dependency_groups`
 * (PEP 751): the copy of text with each such test replaced by a constant one,
 * `extra == ''` (name, normalised, is in the set given; SIZE_MAX: every name is) or
 * `extra != ''`, padded to the same length, so that the rest parses as PEP 508 and
 * error columns still point into text. Evaluate with `extra` "". Caller frees.
 */
char *rr_lock_marker_bind(const char *text, const char *const *extras, size_t nextras,
			  const char *const *groups, size_t ngroups);

#endif

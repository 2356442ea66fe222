/*
 * workspace.h - uv projects and workspaces as `uv lock` sees them.
 *
 *   struct rr_workspace *ws;
 *   rc = rr_workspace_find("packages/kern/pyproject.toml", &ws, err);
 *   ws->root ... ws->members[ws->self] ... ws->uv_project
 *   rc = rr_workspace_load(&set, ws, &sel, err);   the requirements, as uv reads them
 *   ws = rr_workspace_free(ws);
 *
 * The root: the file itself when it has [tool.uv.workspace], else the nearest
 * directory above whose pyproject.toml has one and whose `members` globs match the
 * file's directory and whose `exclude` globs do not; else the file is its own root.
 * Members: the root when it has [project] (a root without one is virtual), then every
 * directory the member globs match that holds a pyproject.toml, minus the excluded
 * ones (uv 0.13 skips a matched directory without pyproject.toml too).
 *
 * Loading: the file's own requirements (the selection's extras and groups), or with
 * sel->all_members (and for a virtual root) every member's, as `uv lock` locks the
 * union. A requirement on a member stands for that member's own [project]
 * dependencies (with its extras; its marker is not carried): those are read in its
 * place, never looked up on an index. [tool.uv.sources] (the file's own, then the
 * root's) turn a path source into a file:// requirement, a git or url source into that
 * URL. sel->uv_settings applies the root's exclude-, constraint- and
 * override-dependencies as uv applies them (the root's alone, as uv reads them):
 * constraints become constraint lines, an excluded name's lines are dropped with a
 * note, and set->uv_excludes / set->uv_overrides carry them for the resolution.
 * set->uv_root is the root's directory: uv reads its configuration from there.
 */
#ifndef RR_WORKSPACE_H
#define RR_WORKSPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_reqset;
struct rr_input_sel;

struct rr_workspace_member {
	char *dir;       /* absolute */
	char *pyproject; /* as shown: relative to the working directory when below it */
	char *key;       /* normalised [project] name; NULL for a virtual root */
};

struct rr_workspace {
	char *root;           /* the root's directory (absolute) */
	char *root_pyproject; /* as shown */
	bool workspace;       /* the root has [tool.uv.workspace] */
	bool virtual_root;    /* the root has no [project] */
	/* a uv project: uv.lock beside the root, [tool.uv] in the root or in the file, or a
	 * workspace */
	bool uv_project;
	bool has_lock;
	struct rr_workspace_member *members; /* [0] is the root, virtual or not */
	size_t nmembers;
	size_t self; /* the member the file asked about is */
	void *files; /* each member's facts (private) */
};

rr_err rr_workspace_find(const char *pyproject, struct rr_workspace **ret, rr_error *err) RR_WUR;
/* the requirements into set (see above); RR_E_PARSE etc. as for rr_pyproject_load */
rr_err rr_workspace_load(struct rr_reqset *set, const struct rr_workspace *ws,
			 const struct rr_input_sel *sel, rr_error *err) RR_WUR;
/* "has nothing to read": no [project], no [dependency-groups], not a workspace root
 * (a [build-system] + [tool.black] file) */
bool rr_workspace_nothing_to_read(const struct rr_workspace *ws);
struct rr_workspace *rr_workspace_free(struct rr_workspace *ws);

#endif

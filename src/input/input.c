/*
 * input.c - the requirement set and input dispatch: a directory, a
 * pyproject.toml or a requirements file all land in one struct rr_reqset.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/workspace.h"

struct rr_item *rr_reqset_add_item(struct rr_reqset *set)
{
	struct rr_item *it = &RR_PUSH(set->items, set->nitems, set->cap_items);

	memset(it, 0, sizeof(*it));
	it->req = (struct rr_requirement)RR_REQUIREMENT_INIT;
	return it;
}

void rr_reqset_add_warning(struct rr_reqset *set, const char *fmt, ...)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	set->warnings = rr_xrealloc(set->warnings, (set->nwarnings + 1) * sizeof(char *));
	set->warnings[set->nwarnings++] = rr_strbuf_detach(&sb, NULL);
}

void rr_reqset_add_note(struct rr_reqset *set, const char *fmt, ...)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	set->notes = rr_xrealloc(set->notes, (set->nnotes + 1) * sizeof(char *));
	set->notes[set->nnotes++] = rr_strbuf_detach(&sb, NULL);
}

void rr_reqset_add_file(struct rr_reqset *set, const char *path)
{
	set->files = rr_xrealloc(set->files, (set->nfiles + 1) * sizeof(char *));
	set->files[set->nfiles++] = rr_xstrdup(path);
}

static void item_release(struct rr_item *it)
{
	free(it->path);
	if (it->text_expanded != it->text)
		free(it->text_expanded);
	free(it->text);
	if (it->url_written != it->req.url)
		free(it->url_written);
	rr_requirement_release(&it->req);
	rr_strv_free_array(it->hashes, it->nhashes);
	rr_strv_free_array(it->options, it->noptions);
}

void rr_reqset_drop_item(struct rr_reqset *set, size_t i)
{
	item_release(&set->items[i]);
	memmove(&set->items[i], &set->items[i + 1], (set->nitems - i - 1) * sizeof(*set->items));
	set->nitems--;
}

void rr_reqset_release(struct rr_reqset *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->nitems; i++)
		item_release(&set->items[i]);
	free(set->items);
	for (size_t i = 0; i < set->nopts; i++) {
		free(set->opts[i].path);
		free(set->opts[i].name);
		if (set->opts[i].value_expanded != set->opts[i].value)
			free(set->opts[i].value_expanded);
		free(set->opts[i].value);
	}
	free(set->opts);
	free(set->index_url);
	rr_strv_free_array(set->extra_index_urls, set->nextra_index_urls);
	rr_strv_free_array(set->find_links, set->nfind_links);
	rr_strv_free_array(set->trusted_hosts, set->ntrusted_hosts);
	rr_strv_free_array(set->files, set->nfiles);
	rr_strv_free_array(set->warnings, set->nwarnings);
	rr_strv_free_array(set->notes, set->nnotes);
	free(set->uv_root);
	rr_strv_free_array(set->uv_excludes, set->nuv_excludes);
	rr_strv_free_array(set->uv_overrides, set->nuv_overrides);
	memset(set, 0, sizeof(*set));
}

/*
 * a pyproject.toml: as uv reads a uv project (its workspace, sources and settings),
 * else its [project]; a file with nothing to read (tool configuration alone) adds
 * nothing, and says so under -v. *read: something was read
 */
static rr_err load_pyproject(struct rr_reqset *set, const char *path,
			     const struct rr_input_sel *sel, bool *read, rr_error *err)
{
	struct rr_workspace *ws = NULL;
	rr_err rc = rr_workspace_find(path, &ws, err);

	*read = false;
	if (rc)
		return rc;
	if (rr_workspace_nothing_to_read(ws) && !(sel && sel->ngroups)) {
		rr_reqset_add_file(set, path);
		rr_reqset_add_note(set,
				   "%s: no [project] table and no [dependency-groups]: no "
				   "dependencies to read",
				   path);
	} else if (ws->uv_project) {
		rc = rr_workspace_load(set, ws, sel, err);
		*read = true;
	} else {
		rc = rr_pyproject_load(set, path, sel, err);
		*read = true;
	}
	rr_workspace_free(ws);
	return rc;
}

rr_err rr_input_load(struct rr_reqset *set, const char *path, const struct rr_input_sel *sel,
		     rr_error *err)
{
	struct stat st;
	bool read = false;
	rr_err rc;

	if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		RR_AUTOFREE char *pp = rr_xasprintf("%s/pyproject.toml", path);
		RR_AUTOFREE char *rq = rr_xasprintf("%s/requirements.txt", path);
		bool has_pp = stat(pp, &st) == 0 && S_ISREG(st.st_mode);
		bool has_rq = stat(rq, &st) == 0 && S_ISREG(st.st_mode);

		/* both files: both are read (a requirements file beside a project is what
		 * someone installs too), and -v says so */
		if (has_pp && (rc = load_pyproject(set, pp, sel, &read, err)))
			return rc;
		if (has_rq && read)
			rr_reqset_add_note(set,
					   "%s: both pyproject.toml and requirements.txt are "
					   "read",
					   path);
		if (has_rq)
			return rr_reqfile_load(set, rq, err);
		if (has_pp)
			return RR_OK;
		/* a wrong input path is a usage error (exit 2), like a missing file */
		return rr_fail(err, RR_E_USAGE,
			       "'%s' has neither a pyproject.toml nor a requirements.txt", path);
	}
	if (rr_str_endswith(path, ".toml"))
		return load_pyproject(set, path, sel, &read, err);
	return rr_reqfile_load(set, path, err);
}

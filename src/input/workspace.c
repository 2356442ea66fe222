/*
 * workspace.c - uv projects and workspaces as `uv lock` sees them (workspace.h):
 * the root, its members, and their requirements with [tool.uv.sources] and the
 * root's dependency settings applied.
 */
#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/workspace.h"
#include "uvproject.h"

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_empty_dir(const char *p)
{
	DIR *d = opendir(p);
	struct dirent *de;
	bool empty = true;

	if (!d)
		return false;
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
}

static rr_err read_facts(const char *path, struct rr_uvproject_file *f, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_err rc = rr_strbuf_read_file(&sb, path, RR_REQFILE_MAX_SIZE, err);

	return rc ? rc : rr_uvproject_parse(path, sb.buf, sb.len, f, err);
}

/* a directory's pyproject.toml as shown: relative to the working directory below it */
static char *shown_path(const char *dir)
{
	char cwd[PATH_MAX];
	size_t n;

	if (getcwd(cwd, sizeof(cwd))) {
		n = strlen(cwd);
		if (strcmp(dir, cwd) == 0)
			return rr_xstrdup("pyproject.toml");
		if (strncmp(dir, cwd, n) == 0 && dir[n] == '/')
			return rr_xasprintf("%s/pyproject.toml", dir + n + 1);
	}
	return rr_xasprintf("%s/pyproject.toml", dir);
}

/* every directory the root's globs name (realpath), in glob order */
static void expand(const char *root, char *const *globs, size_t n, struct rr_strv *out)
{
	for (size_t i = 0; i < n; i++) {
		RR_AUTOFREE char *pat = rr_xasprintf("%s/%s", root, globs[i]);
		glob_t g;
		if (glob(pat, 0, NULL, &g) == 0)
			for (size_t k = 0; k < g.gl_pathc; k++) {
				char *r = realpath(g.gl_pathv[k], NULL);
				if (r && rr_file_is_dir(r))
					rr_strv_push_unique(out, r);
				free(r);
			}
		globfree(&g);
	}
}

/* is dir a member of the workspace at root (root's own facts f)? */
static bool member_of(const char *root, const struct rr_uvproject_file *f, const char *dir)
{
	struct rr_strv in = RR_STRV_INIT, out = RR_STRV_INIT;
	bool yes;

	expand(root, f->members, f->nmembers, &in);
	expand(root, f->exclude, f->nexclude, &out);
	yes = rr_strv_find(&in, dir) >= 0 && rr_strv_find(&out, dir) < 0;
	rr_strv_release(&in);
	rr_strv_release(&out);
	return yes;
}

static void add_member(struct rr_workspace *ws, struct rr_uvproject_file **files, const char *dir,
		       const char *shown, struct rr_uvproject_file *f)
{
	struct rr_workspace_member *m;

	ws->members = rr_xrealloc(ws->members, (ws->nmembers + 1) * sizeof(*ws->members));
	*files = rr_xrealloc(*files, (ws->nmembers + 1) * sizeof(**files));
	m = &ws->members[ws->nmembers];
	m->dir = rr_xstrdup(dir);
	m->pyproject = shown ? rr_xstrdup(shown) : shown_path(dir);
	m->key = f->has_project && f->name ? rr_name_normalize(f->name) : NULL;
	(*files)[ws->nmembers++] = *f;
	memset(f, 0, sizeof(*f));
}

rr_err rr_workspace_find(const char *pyproject, struct rr_workspace **ret, rr_error *err)
{
	struct rr_workspace *ws = rr_xcalloc(1, sizeof(*ws));
	struct rr_uvproject_file self = {0}, rootf = {0};
	struct rr_uvproject_file *files = NULL;
	RR_AUTOFREE char *real = realpath(pyproject, NULL);
	RR_AUTOFREE char *dir = NULL;
	RR_AUTOFREE char *rootdir = NULL;
	bool self_tool_uv;
	rr_err rc;

	if (!real) {
		free(ws);
		return rr_fail(err, RR_E_USAGE, "'%s': no such file", pyproject);
	}
	if ((rc = read_facts(pyproject, &self, err))) {
		free(ws);
		return rc;
	}
	dir = rr_xstrndup(real, (size_t)(strrchr(real, '/') - real));
	if (!*dir) {
		free(dir);
		dir = rr_xstrdup("/");
	}
	self_tool_uv = self.has_tool_uv;
	/* the root: this file, or the nearest workspace above that takes it in */
	if (!self.has_workspace) {
		RR_AUTOFREE char *up = rr_xstrdup(dir);
		char *slash;
		while ((slash = strrchr(up, '/')) && slash != up) {
			RR_AUTOFREE char *cand = NULL;
			struct rr_uvproject_file f = {0};
			rr_error e = RR_ERROR_INIT;
			*slash = '\0';
			cand = rr_xasprintf("%s/pyproject.toml", up);
			if (!is_file(cand))
				continue;
			/* a parent uv would refuse is not ours to judge: the file stands alone */
			if (read_facts(cand, &f, &e)) {
				rr_error_release(&e);
				break;
			}
			if (!f.has_workspace) {
				rr_uvproject_release(&f);
				continue;
			}
			if (member_of(up, &f, dir)) {
				rootdir = rr_xstrdup(up);
				rootf = f;
			} else {
				rr_uvproject_release(&f);
			}
			break;
		}
	}
	if (!rootdir) {
		rootdir = rr_xstrdup(dir);
		rootf = self;
		memset(&self, 0, sizeof(self));
	}
	ws->root = rr_xstrdup(rootdir);
	ws->workspace = rootf.has_workspace;
	ws->virtual_root = !rootf.has_project;
	{
		RR_AUTOFREE char *lock = rr_xasprintf("%s/uv.lock", rootdir);
		ws->has_lock = is_file(lock);
	}
	ws->uv_project = ws->has_lock || rootf.has_tool_uv || self_tool_uv || ws->workspace;
	/* [0]: the root; then the members the globs find, each once */
	{
		bool root_is_self = strcmp(rootdir, dir) == 0;
		struct rr_strv dirs = RR_STRV_INIT, out = RR_STRV_INIT;
		add_member(ws, &files, rootdir, root_is_self ? pyproject : NULL, &rootf);
		ws->root_pyproject = rr_xstrdup(ws->members[0].pyproject);
		expand(rootdir, files[0].members, files[0].nmembers, &dirs);
		expand(rootdir, files[0].exclude, files[0].nexclude, &out);
		for (size_t i = 0; i < dirs.n; i++) {
			RR_AUTOFREE char *pp = rr_xasprintf("%s/pyproject.toml", dirs.v[i]);
			struct rr_uvproject_file f = {0};
			bool is_self = strcmp(dirs.v[i], dir) == 0;
			if (strcmp(dirs.v[i], rootdir) == 0 || rr_strv_find(&out, dirs.v[i]) >= 0)
				continue;
			/* uv skips an empty directory and refuses any other without a project */
			if (!is_file(pp)) {
				if (is_empty_dir(dirs.v[i]))
					continue;
				rc = rr_fail(
				    err, RR_E_USAGE,
				    "%s: the workspace member %s has no pyproject.toml (its "
				    "[tool.uv.workspace] members match it; uv refuses the "
				    "workspace too)",
				    ws->root_pyproject, dirs.v[i]);
				rr_strv_release(&dirs);
				rr_strv_release(&out);
				ws->files = files;
				rr_workspace_free(ws);
				return rc;
			}
			if (is_self) {
				f = self;
				memset(&self, 0, sizeof(self));
			} else if ((rc = read_facts(pp, &f, err))) {
				rr_strv_release(&dirs);
				rr_strv_release(&out);
				ws->files = files;
				rr_workspace_free(ws);
				return rc;
			}
			if (is_self)
				ws->self = ws->nmembers;
			add_member(ws, &files, dirs.v[i], is_self ? pyproject : NULL, &f);
		}
		rr_strv_release(&dirs);
		rr_strv_release(&out);
	}
	rr_uvproject_release(&self);
	ws->files = files;
	*ret = ws;
	return RR_OK;
}

bool rr_workspace_nothing_to_read(const struct rr_workspace *ws)
{
	const struct rr_uvproject_file *f = &(
	    (const struct rr_uvproject_file *)ws->files)[ws->self];

	return !f->has_project && !f->has_groups && !f->has_poetry &&
	       !(ws->self == 0 && ws->workspace);
}

struct rr_workspace *rr_workspace_free(struct rr_workspace *ws)
{
	struct rr_uvproject_file *files;

	if (!ws)
		return NULL;
	files = ws->files;
	for (size_t i = 0; i < ws->nmembers; i++) {
		free(ws->members[i].dir);
		free(ws->members[i].pyproject);
		free(ws->members[i].key);
		if (files)
			rr_uvproject_release(&files[i]);
	}
	free(files);
	free(ws->members);
	free(ws->root);
	free(ws->root_pyproject);
	free(ws);
	return NULL;
}

/* ---- loading -------------------------------------------------------------- */

struct loader {
	struct rr_reqset *set;
	const struct rr_workspace *ws;
	const struct rr_uvproject_file *files;
	/* per item of the set from `first` on: the member whose file it came from */
	size_t first;
	size_t *from;
	size_t nfrom;
	struct rr_strv done; /* "member|line" of every item taken, so none is taken twice */
};

static ssize_t member_by_key(const struct rr_workspace *ws, const char *key)
{
	for (size_t i = 0; i < ws->nmembers; i++)
		if (ws->members[i].key && strcmp(ws->members[i].key, key) == 0)
			return (ssize_t)i;
	return -1;
}

static ssize_t member_by_dir(const struct rr_workspace *ws, const char *dir)
{
	RR_AUTOFREE char *r = realpath(dir, NULL);

	for (size_t i = 0; r && i < ws->nmembers; i++)
		if (strcmp(ws->members[i].dir, r) == 0)
			return (ssize_t)i;
	return -1;
}

/* member m's requirements (sel), those not taken before */
static rr_err load_member(struct loader *L, size_t m, const struct rr_input_sel *sel, rr_error *err)
{
	struct rr_reqset tmp = RR_REQSET_INIT;
	const struct rr_uvproject_file *f = &L->files[m];
	rr_err rc;

	/* a virtual root, or a member that only configures: nothing of its own to read but
	 * its groups */
	if (!f->has_project && !(f->has_groups && sel && (sel->all_groups || sel->ngroups)))
		return RR_OK;
	rc = rr_pyproject_load(&tmp, L->ws->members[m].pyproject, sel, err);
	if (rc) {
		rr_reqset_release(&tmp);
		return rc;
	}
	for (size_t i = 0; i < tmp.nitems; i++) {
		RR_AUTOFREE char *id = rr_xasprintf("%zu|%u|%s", m, tmp.items[i].line,
						    tmp.items[i].text);
		struct rr_item *it;
		if (!rr_strv_push_unique(&L->done, id))
			continue;
		it = rr_reqset_add_item(L->set);
		*it = tmp.items[i];
		memset(&tmp.items[i], 0, sizeof(tmp.items[i]));
		tmp.items[i].req = (struct rr_requirement)RR_REQUIREMENT_INIT;
		L->from = rr_xrealloc(L->from, (L->set->nitems - L->first) * sizeof(*L->from));
		L->from[L->set->nitems - L->first - 1] = m;
	}
	for (size_t i = 0; i < tmp.nwarnings; i++)
		rr_reqset_add_warning(L->set, "%s", tmp.warnings[i]);
	for (size_t i = 0; i < tmp.nfiles; i++)
		rr_reqset_add_file(L->set, tmp.files[i]);
	rr_reqset_release(&tmp);
	return RR_OK;
}

/* the source uv takes for key in member m's file: its own, then the root's */
static const struct rr_uvproject_source *source_of(const struct loader *L, size_t m,
						   const char *key, size_t *declared_in)
{
	const size_t where[] = {m, 0};

	for (size_t w = 0; w < (m ? 2 : 1); w++) {
		const struct rr_uvproject_file *f = &L->files[where[w]];
		for (size_t i = 0; i < f->nsources; i++)
			if (strcmp(f->sources[i].key, key) == 0) {
				*declared_in = where[w];
				return &f->sources[i];
			}
	}
	return NULL;
}

/* the item as `name[extras] @ url ; marker`: what uv installs for it */
static void to_url(struct rr_item *it, char *url_owned)
{
	RR_AUTOFREE char *text = NULL;

	rr_specset_release(&it->req.spec);
	it->req.spec = (struct rr_specset)RR_SPECSET_INIT;
	if (it->url_written != it->req.url)
		free(it->url_written);
	free(it->req.url);
	it->req.url = url_owned;
	it->url_written = it->req.url;
	text = rr_requirement_to_string(&it->req);
	if (it->text_expanded != it->text)
		free(it->text_expanded);
	free(it->text);
	it->text = RR_STEAL(text);
	it->text_expanded = it->text;
}

/*
 * from item i on: a requirement on a member is read as that member's requirements (or,
 * loading the union, is already there); sources become URLs
 */
static rr_err apply_sources(struct loader *L, bool expand_members, rr_error *err)
{
	rr_err rc;

	for (size_t i = L->first; i < L->set->nitems;) {
		struct rr_item *it = &L->set->items[i];
		size_t m = L->from[i - L->first], decl = 0;
		const struct rr_uvproject_source *src;
		ssize_t target = -1;

		if (it->constraint || !it->req.key || it->req.url) {
			i++;
			continue;
		}
		src = source_of(L, m, it->req.key, &decl);
		if (src && src->path) {
			RR_AUTOFREE char *p = src->path[0] == '/'
						  ? rr_xstrdup(src->path)
						  : rr_xasprintf("%s/%s", L->ws->members[decl].dir,
								 src->path);
			target = member_by_dir(L->ws, p);
			if (target < 0) {
				RR_AUTOFREE char *r = realpath(p, NULL);
				to_url(it, rr_xasprintf("file://%s", r ? r : p));
				i++;
				continue;
			}
		} else if (src && src->url) {
			to_url(it, src->subdirectory ? rr_xasprintf("%s#subdirectory=%s", src->url,
								    src->subdirectory)
						     : rr_xstrdup(src->url));
			i++;
			continue;
		}
		if (target < 0)
			target = member_by_key(L->ws, it->req.key);
		if (target < 0) {
			i++;
			continue;
		}
		/* a member: its own requirements stand in for it */
		if (expand_members) {
			struct rr_input_sel sel = {.extras = (const char *const *)it->req.extras,
						   .nextras = it->req.nextras};
			rr_reqset_add_note(L->set,
					   "%s:%u: '%s' is the workspace member %s: its own "
					   "requirements are read instead",
					   it->path, it->line, it->text,
					   L->ws->members[target].pyproject);
			rc = load_member(L, (size_t)target, &sel, err);
			if (rc)
				return rc;
			it = &L->set->items[i];
		}
		memmove(&L->from[i - L->first], &L->from[i - L->first + 1],
			(L->set->nitems - i - 1) * sizeof(*L->from));
		rr_reqset_drop_item(L->set, i);
	}
	return RR_OK;
}

static rr_err settings_error(rr_error *err, const char *path, unsigned line, const char *key,
			     const char *value)
{
	rr_error_prefix(err, "[tool.uv] %s entry '%s': ", key, value);
	rr_error_set_origin(err, path, line, 0, NULL);
	return err->code;
}

/* the root's exclude-, constraint- and override-dependencies, as uv applies them */
static rr_err apply_settings(struct loader *L, rr_error *err)
{
	const struct rr_uvproject_file *f = &L->files[0];
	const char *root = L->ws->root_pyproject;
	rr_err rc;

	for (size_t k = 0; k < f->nset[RR_UVSET_EXCLUDE]; k++) {
		RR_AUTOFREE char *key = rr_name_normalize(f->set[RR_UVSET_EXCLUDE][k].value);
		L->set->uv_excludes = rr_xrealloc(L->set->uv_excludes,
						  (L->set->nuv_excludes + 1) * sizeof(char *));
		L->set->uv_excludes[L->set->nuv_excludes++] = rr_xstrdup(key);
		for (size_t i = L->first; i < L->set->nitems;) {
			struct rr_item *it = &L->set->items[i];
			if (it->req.key && strcmp(it->req.key, key) == 0) {
				rr_reqset_add_note(L->set,
						   "%s:%u: '%s': excluded by [tool.uv] "
						   "exclude-dependencies (%s:%u): uv never "
						   "installs it",
						   it->path, it->line, it->text, root,
						   f->set[RR_UVSET_EXCLUDE][k].line);
				rr_reqset_drop_item(L->set, i);
			} else {
				i++;
			}
		}
	}
	for (size_t k = 0; k < f->nset[RR_UVSET_OVERRIDE]; k++) {
		const struct rr_uvproject_entry *e = &f->set[RR_UVSET_OVERRIDE][k];
		struct rr_requirement over = RR_REQUIREMENT_INIT;
		if ((rc = rr_requirement_parse(e->value, &over, err)))
			return settings_error(err, root, e->line, "override-dependencies",
					      e->value);
		L->set->uv_overrides = rr_xrealloc(L->set->uv_overrides,
						   (L->set->nuv_overrides + 1) * sizeof(char *));
		L->set->uv_overrides[L->set->nuv_overrides++] = rr_xstrdup(e->value);
		for (size_t i = L->first; i < L->set->nitems; i++) {
			struct rr_item *it = &L->set->items[i];
			struct rr_requirement copy = RR_REQUIREMENT_INIT;
			if (it->constraint || !it->req.key || !over.key ||
			    strcmp(it->req.key, over.key) != 0)
				continue;
			if (rr_requirement_parse(e->value, &copy, NULL))
				continue;
			rr_reqset_add_note(L->set,
					   "%s:%u: '%s': replaced by [tool.uv] "
					   "override-dependencies '%s' (%s:%u), as uv does",
					   it->path, it->line, it->text, e->value, root, e->line);
			rr_requirement_release(&it->req);
			it->req = copy;
			if (it->url_written != it->req.url)
				free(it->url_written);
			it->url_written = it->req.url;
		}
		rr_requirement_release(&over);
	}
	for (size_t k = 0; k < f->nset[RR_UVSET_CONSTRAINT]; k++) {
		const struct rr_uvproject_entry *e = &f->set[RR_UVSET_CONSTRAINT][k];
		struct rr_requirement req = RR_REQUIREMENT_INIT;
		struct rr_item *it;
		if ((rc = rr_requirement_parse(e->value, &req, err)))
			return settings_error(err, root, e->line, "constraint-dependencies",
					      e->value);
		it = rr_reqset_add_item(L->set);
		it->path = rr_xstrdup(root);
		it->line = e->line;
		it->col = 1;
		it->text = rr_xstrdup(e->value);
		it->text_expanded = it->text;
		it->constraint = true;
		it->kind = RR_ITEM_REQ;
		it->req = req;
		it->url_written = it->req.url;
	}
	if (f->nset[RR_UVSET_EXCLUDE] || f->nset[RR_UVSET_CONSTRAINT] || f->nset[RR_UVSET_OVERRIDE])
		rr_reqset_add_note(L->set,
				   "%s: as uv applies its [tool.uv] settings: %zu "
				   "exclude-dependencies, %zu constraint-dependencies, %zu "
				   "override-dependencies",
				   root, f->nset[RR_UVSET_EXCLUDE], f->nset[RR_UVSET_CONSTRAINT],
				   f->nset[RR_UVSET_OVERRIDE]);
	return RR_OK;
}

rr_err rr_workspace_load(struct rr_reqset *set, const struct rr_workspace *ws,
			 const struct rr_input_sel *sel, rr_error *err)
{
	struct loader L = {.set = set, .ws = ws, .files = ws->files, .first = set->nitems};
	bool all = (sel && sel->all_members) || (ws->self == 0 && ws->virtual_root);
	rr_err rc = RR_OK;

	if (all) {
		for (size_t m = 0; !rc && m < ws->nmembers; m++)
			rc = load_member(&L, m, sel, err);
		if (ws->workspace && sel && sel->all_members)
			rr_reqset_add_note(set,
					   "%s: the workspace's %zu member%s, as uv lock locks "
					   "them",
					   ws->root_pyproject, ws->nmembers - ws->virtual_root,
					   ws->nmembers - ws->virtual_root == 1 ? "" : "s");
	} else {
		rc = load_member(&L, ws->self, sel, err);
	}
	if (!rc)
		rc = apply_sources(&L, !all, err);
	if (!rc && sel && sel->uv_settings)
		rc = apply_settings(&L, err);
	if (!rc && !set->uv_root)
		set->uv_root = rr_xstrdup(ws->root);
	free(L.from);
	rr_strv_release(&L.done);
	return rc;
}

/*
 * lock.c - what installing a lock file would install in one environment (see
 * include/rocm-resolve/lockfile.h), turned into requirement items.
 *
 * uv.lock is a graph: `uv sync` walks it from the project along the edges whose
 * marker holds, into the extras an edge activates, choosing between the versions of
 * a universal lock by the edge's version or the package's resolution-markers.
 * pylock.toml is a list: each package's marker decides on its own.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/version.h"

enum rr_lock_format rr_lock_format_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	if (strcmp(base, "uv.lock") == 0)
		return RR_LOCK_UV;
	/* PEP 751: pylock.toml, or pylock.<name>.toml with a name that has no dot */
	if (strcmp(base, "pylock.toml") == 0)
		return RR_LOCK_PYLOCK;
	n = strlen(base);
	if (n > 13 && strncmp(base, "pylock.", 7) == 0 && rr_str_endswith(base, ".toml") &&
	    !memchr(base + 7, '.', n - 7 - 5))
		return RR_LOCK_PYLOCK;
	return RR_LOCK_NONE;
}

rr_err rr_lock_load(struct rr_lock *lk, const char *path, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	enum rr_lock_format f = rr_lock_format_of(path);
	rr_err rc;

	if (f == RR_LOCK_NONE)
		return rr_fail(err, RR_E_USAGE, "'%s' is not a lock file (uv.lock, pylock.toml)", path);
	rc = rr_strbuf_read_file(&sb, path, RR_REQFILE_MAX_SIZE, err);
	if (rc)
		return rc;
	return rr_lock_parse(lk, path, sb.buf, sb.len, f, err);
}

/* ---- pylock markers: `'x' in extras`, `'x' in dependency_groups` ---------- */

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.';
}

/* the word w at s[i..], not part of a longer identifier; returns its end or 0 */
static size_t word_at(const char *s, size_t n, size_t i, const char *w)
{
	size_t l = strlen(w);

	if (i + l > n || memcmp(s + i, w, l) != 0)
		return 0;
	if (i + l < n && ident_char(s[i + l]))
		return 0;
	return i + l;
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static bool in_set(const char *name, size_t len, const char *const *set, size_t nset)
{
	RR_AUTOFREE char *key = rr_name_normalize_n(name, len);

	if (nset == SIZE_MAX)
		return true;
	for (size_t i = 0; i < nset; i++)
		if (rr_name_eq(set[i], key))
			return true;
	return false;
}

char *rr_lock_marker_bind(const char *text, const char *const *extras, size_t nextras,
			  const char *const *groups, size_t ngroups)
{
	size_t n = strlen(text);
	char *out = rr_xstrdup(text);
	size_t i = 0;

	while (i < n) {
		char q = text[i];
		const char *close;
		size_t qs, qe, j, end;
		bool neg = false;
		bool yes;
		const char *const *set;
		size_t nset;

		if (q != '\'' && q != '"') {
			i++;
			continue;
		}
		close = memchr(text + i + 1, q, n - i - 1);
		if (!close)
			break;
		qs = i;
		qe = (size_t)(close - text);
		i = qe + 1;
		j = skip_ws(text, n, i);
		if ((end = word_at(text, n, j, "not"))) {
			neg = true;
			j = skip_ws(text, n, end);
		}
		if (!(end = word_at(text, n, j, "in")))
			continue;
		j = skip_ws(text, n, end);
		if ((end = word_at(text, n, j, "extras"))) {
			set = extras;
			nset = nextras;
		} else if ((end = word_at(text, n, j, "dependency_groups"))) {
			set = groups;
			nset = ngroups;
		} else {
			continue;
		}
		yes = in_set(text + qs + 1, qe - qs - 1, set, nset) != neg;
		/* a constant test (`extra` is "" where locks are selected) of at most the
		 * length of the one it replaces, padded: later columns do not move */
		memset(out + qs, ' ', end - qs);
		memcpy(out + qs, yes ? "extra == ''" : "extra != ''", 11);
		i = end;
	}
	return out;
}

/* ---- selection ------------------------------------------------------------ */

struct walk {
	const struct rr_lock *lk;
	const struct rr_marker_env *env;
	struct rr_reqset *set;
	bool *seen;	 /* per package */
	bool *root;	 /* per package: the project itself */
	char ***done_extras; /* per package: extras already followed */
	size_t *ndone;
	size_t *queue;
	size_t nqueue, cap_queue;
};

static bool marker_holds(struct walk *w, const struct rr_marker *m, unsigned line)
{
	bool yes = true;
	rr_error e = RR_ERROR_INIT;

	if (!m)
		return true;
	if (rr_marker_eval(m, w->env, &yes, &e)) {
		rr_reqset_add_warning(w->set, "%s:%u: cannot evaluate marker (%s); followed as if true",
				      w->lk->path, line, e.msg);
		yes = true;
	}
	rr_error_release(&e);
	return yes;
}

static bool forks_hold(struct walk *w, const struct rr_lock_pkg *p)
{
	if (!p->nforks)
		return true;
	for (size_t i = 0; i < p->nforks; i++)
		if (marker_holds(w, p->forks[i], p->line))
			return true;
	return false;
}

size_t rr_lock_find(const struct rr_lock *lk, const char *key, size_t *n)
{
	size_t lo = 0, hi = lk->by_key ? lk->npkgs : 0, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(lk->pkgs[lk->by_key[mid]].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	end = lo;
	while (lk->by_key && end < lk->npkgs && strcmp(lk->pkgs[lk->by_key[end]].key, key) == 0)
		end++;
	*n = end - lo;
	return lo;
}

/* the package an edge leads to: its version, else the one for this environment */
static ssize_t target_of(struct walk *w, const struct rr_lock_dep *d)
{
	ssize_t first = -1;
	size_t n, at = rr_lock_find(w->lk, d->key, &n);

	for (size_t k = at; k < at + n; k++) {
		size_t i = w->lk->by_key[k];
		const struct rr_lock_pkg *p = &w->lk->pkgs[i];
		if (d->version && !rr_str_eq(p->version, d->version))
			continue;
		if (d->source_kind != RR_LSRC_NONE &&
		    (p->kind != d->source_kind || !rr_str_eq(p->source, d->source)))
			continue;
		if (first < 0)
			first = (ssize_t)i;
		if (forks_hold(w, p))
			return (ssize_t)i;
	}
	return first;
}

static void enqueue(struct walk *w, size_t i)
{
	if (w->seen[i])
		return;
	w->seen[i] = true;
	RR_PUSH(w->queue, w->nqueue, w->cap_queue) = i;
}

static void follow(struct walk *w, const struct rr_lock_dep *deps, size_t n);

static void activate_extra(struct walk *w, size_t i, const char *extra)
{
	const struct rr_lock_pkg *p = &w->lk->pkgs[i];

	for (size_t k = 0; k < w->ndone[i]; k++)
		if (strcmp(w->done_extras[i][k], extra) == 0)
			return;
	w->done_extras[i] = rr_xrealloc(w->done_extras[i], (w->ndone[i] + 1) * sizeof(char *));
	w->done_extras[i][w->ndone[i]++] = rr_xstrdup(extra);
	for (size_t g = 0; g < p->nextras; g++)
		if (strcmp(p->extras[g].name, extra) == 0)
			follow(w, p->extras[g].deps, p->extras[g].ndeps);
}

static void follow(struct walk *w, const struct rr_lock_dep *deps, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		const struct rr_lock_dep *d = &deps[k];
		ssize_t t;

		if (!marker_holds(w, d->marker, d->line))
			continue;
		t = target_of(w, d);
		if (t < 0)
			continue; /* checked at load: not reached */
		enqueue(w, (size_t)t);
		for (size_t e = 0; e < d->nextras; e++)
			activate_extra(w, (size_t)t, d->extras[e]);
	}
}

static bool is_member(const struct rr_lock *lk, const struct rr_lock_pkg *p)
{
	for (size_t i = 0; i < lk->nmembers; i++)
		if (strcmp(lk->members[i], p->key) == 0)
			return p->kind == RR_LSRC_VIRTUAL || p->kind == RR_LSRC_EDITABLE ||
			       p->kind == RR_LSRC_DIRECTORY;
	return false;
}

static bool is_project_root(const struct rr_lock_pkg *p)
{
	return (p->kind == RR_LSRC_VIRTUAL || p->kind == RR_LSRC_EDITABLE ||
		p->kind == RR_LSRC_DIRECTORY) &&
	       p->source && (strcmp(p->source, ".") == 0 || strcmp(p->source, "./") == 0);
}

static bool named(const char *const *names, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (rr_name_eq(names[i], key))
			return true;
	return false;
}

/* every --extra / --group asked for must exist on a root, as uv sync requires */
static rr_err check_asked(const struct walk *w, const char *what, const char *const *asked,
			  size_t nasked, bool groups, rr_error *err)
{
	for (size_t a = 0; a < nasked; a++) {
		bool found = false;
		for (size_t i = 0; i < w->lk->npkgs && !found; i++) {
			const struct rr_lock_pkg *p = &w->lk->pkgs[i];
			const struct rr_lock_group *g = groups ? p->groups : p->extras;
			size_t ng = groups ? p->ngroups : p->nextras;
			if (!w->root[i])
				continue;
			for (size_t k = 0; k < ng && !found; k++)
				found = rr_name_eq(g[k].name, asked[a]);
		}
		if (!found)
			return rr_fail(err, RR_E_USAGE, "%s '%s' is not in %s (the project's lock has no "
							"such %s)",
				       what, asked[a], w->lk->path, groups ? "dependency group" : "extra");
	}
	return RR_OK;
}

static rr_err walk_uv(struct walk *w, const struct rr_input_sel *sel, rr_error *err)
{
	const struct rr_lock *lk = w->lk;
	bool any_root = false;
	rr_err rc;

	for (size_t i = 0; i < lk->npkgs; i++)
		if (is_project_root(&lk->pkgs[i]))
			w->root[i] = any_root = true;
	for (size_t i = 0; !any_root && i < lk->npkgs; i++)
		if (is_member(lk, &lk->pkgs[i]))
			w->root[i] = true;
	if (sel && (rc = check_asked(w, "--extra", sel->extras, sel->nextras, false, err)))
		return rc;
	if (sel && (rc = check_asked(w, "--group", sel->groups, sel->ngroups, true, err)))
		return rc;
	for (size_t i = 0; i < lk->npkgs; i++) {
		const struct rr_lock_pkg *p = &lk->pkgs[i];
		if (!w->root[i])
			continue;
		enqueue(w, i);
		for (size_t g = 0; g < p->ngroups; g++) {
			const char *gn = p->groups[g].name;
			if ((sel && sel->all_groups) || lk->default_groups_all ||
			    named((const char *const *)lk->default_groups, lk->ndefault_groups, gn) ||
			    (sel && named(sel->groups, sel->ngroups, gn)))
				follow(w, p->groups[g].deps, p->groups[g].ndeps);
		}
		for (size_t e = 0; e < p->nextras; e++)
			if (sel && (sel->all_extras || named(sel->extras, sel->nextras, p->extras[e].name)))
				activate_extra(w, i, p->extras[e].name);
	}
	for (size_t q = 0; q < w->nqueue; q++) {
		const struct rr_lock_pkg *p = &lk->pkgs[w->queue[q]];
		follow(w, p->deps, p->ndeps);
	}
	return RR_OK;
}

static void add_option(struct rr_reqset *set, const struct rr_lock *lk, const struct rr_lock_pkg *p,
		       const char *name, const char *url)
{
	struct rr_optline *o = &RR_PUSH(set->opts, set->nopts, set->cap_opts);

	memset(o, 0, sizeof(*o));
	o->path = rr_xstrdup(lk->path);
	o->line = p->line;
	o->name = rr_xstrdup(name);
	o->value = rr_xstrdup(url);
	o->value_expanded = o->value;
}

static bool is_pypi(const char *url)
{
	return strcmp(url, "https://pypi.org/simple") == 0 ||
	       strcmp(url, "https://pypi.org/simple/") == 0;
}

/* the indexes the selected packages come from: PyPI (else the first) is the default */
static void add_indexes(struct rr_reqset *set, const struct rr_lock *lk, const bool *chosen)
{
	ssize_t primary = -1;

	for (size_t i = 0; i < lk->npkgs; i++)
		if (chosen[i] && lk->pkgs[i].kind == RR_LSRC_REGISTRY && lk->pkgs[i].source &&
		    (primary < 0 || (is_pypi(lk->pkgs[i].source) &&
				     !is_pypi(lk->pkgs[primary].source))))
			primary = (ssize_t)i;
	if (primary < 0)
		return;
	for (size_t i = 0; i < lk->npkgs; i++) {
		const struct rr_lock_pkg *p = &lk->pkgs[i];
		bool dup = false;
		if (!chosen[i] || p->kind != RR_LSRC_REGISTRY || !p->source ||
		    strcmp(p->source, lk->pkgs[primary].source) == 0)
			continue;
		for (size_t k = 0; k < set->nextra_index_urls && !dup; k++)
			dup = strcmp(set->extra_index_urls[k], p->source) == 0;
		if (dup)
			continue;
		add_option(set, lk, p, "--extra-index-url", p->source);
		set->extra_index_urls = rr_xrealloc(set->extra_index_urls,
						    (set->nextra_index_urls + 1) * sizeof(char *));
		set->extra_index_urls[set->nextra_index_urls++] = rr_xstrdup(p->source);
	}
	add_option(set, lk, &lk->pkgs[primary], "--index-url", lk->pkgs[primary].source);
	free(set->index_url);
	set->index_url = rr_xstrdup(lk->pkgs[primary].source);
}

/* a path of the lock as a file: URL (relative ones against the lock's directory) */
static char *file_url(const struct rr_lock *lk, const char *path)
{
	if (strstr(path, "://"))
		return rr_xstrdup(path);
	if (path[0] == '/')
		return rr_xasprintf("file://%s", path);
	if (strcmp(path, ".") == 0)
		return rr_xasprintf("file://%s", lk->dir);
	return rr_xasprintf("file://%s/%s", lk->dir, strncmp(path, "./", 2) == 0 ? path + 2 : path);
}

/* the requirement text an installer would be given for p */
static char *item_text(const struct rr_lock *lk, const struct rr_lock_pkg *p)
{
	RR_AUTOFREE char *url = NULL;

	switch (p->kind) {
	case RR_LSRC_GIT:
		if (p->subdirectory)
			return rr_xasprintf("%s @ %s%s@%s#subdirectory=%s", p->name,
					    strncmp(p->source, "git+", 4) == 0 ? "" : "git+", p->source,
					    p->commit, p->subdirectory);
		return rr_xasprintf("%s @ %s%s@%s", p->name,
				    strncmp(p->source, "git+", 4) == 0 ? "" : "git+", p->source,
				    p->commit);
	case RR_LSRC_URL:
		url = file_url(lk, p->source);
		if (p->subdirectory)
			return rr_xasprintf("%s @ %s#subdirectory=%s", p->name, url, p->subdirectory);
		return rr_xasprintf("%s @ %s", p->name, url);
	case RR_LSRC_PATH:
	case RR_LSRC_DIRECTORY:
	case RR_LSRC_EDITABLE:
		url = file_url(lk, p->source);
		return rr_xasprintf("%s @ %s", p->name, url);
	case RR_LSRC_REGISTRY:
	default:
		if (p->version)
			return rr_xasprintf("%s==%s", p->name, p->version);
		if (p->file) {
			url = file_url(lk, p->file);
			return rr_xasprintf("%s @ %s", p->name, url);
		}
		return rr_xstrdup(p->name);
	}
}

static rr_err add_item(struct rr_reqset *set, const struct rr_lock *lk, const struct rr_lock_pkg *p,
		       rr_error *err)
{
	RR_AUTOFREE char *text = item_text(lk, p);
	struct rr_requirement req = RR_REQUIREMENT_INIT;
	struct rr_item *it;
	rr_err rc;
	rr_error e = RR_ERROR_INIT;

	if (rr_requirement_parse(text, &req, &e)) {
		/* a name or version the lock holds that PEP 508 refuses */
		rc = rr_fail_at(err, RR_E_PARSE, lk->path, p->line, p->col, NULL,
				"package '%s': '%s' is not a valid requirement: %s", p->name, text,
				e.msg ? e.msg : "?");
		rr_error_release(&e);
		return rc;
	}
	it = rr_reqset_add_item(set);
	it->path = rr_xstrdup(lk->path);
	it->line = p->line;
	it->col = p->col;
	it->kind = RR_ITEM_REQ;
	it->req = req;
	it->url_written = it->req.url;
	it->exact_version = p->kind == RR_LSRC_REGISTRY && p->version;
	if (p->kind == RR_LSRC_EDITABLE) {
		/* "-e <path>", as pip and uv take an editable */
		const char *at = strstr(text, " @ file://");
		it->editable = true;
		it->kind = RR_ITEM_URL;
		it->text = rr_xstrdup(at ? at + 10 : text);
		free(it->req.url);
		it->req.url = rr_xstrdup(it->text);
		it->url_written = it->req.url;
	} else {
		it->text = RR_STEAL(text);
	}
	it->text_expanded = it->text;
	return RR_OK;
}

/* does the environment's interpreter satisfy spec? (unknown: yes) */
static bool python_in(const struct rr_marker_env *env, const char *spec)
{
	struct rr_specset sp = RR_SPECSET_INIT;
	struct rr_version v;
	bool ok = true;

	if (!spec || !env->vars[RR_MVAR_PYTHON_FULL_VERSION] ||
	    rr_version_parse(env->vars[RR_MVAR_PYTHON_FULL_VERSION], &v, NULL))
		return true;
	if (rr_specset_parse(spec, &sp, NULL) == RR_OK)
		ok = rr_specset_contains(&sp, &v, RR_PRE_POLICY_ALLOW);
	rr_specset_release(&sp);
	rr_version_release(&v);
	return ok;
}

static void check_environment(const struct rr_lock *lk, const struct rr_marker_env *env,
			      struct rr_reqset *set)
{
	const char *py = env->vars[RR_MVAR_PYTHON_FULL_VERSION];
	bool any = lk->nenvironments == 0;

	if (!python_in(env, lk->requires_python))
		rr_reqset_add_warning(set, "%s: requires-python '%s' excludes this environment's "
					   "Python %s: the installer would refuse the lock",
				      lk->path, lk->requires_python, py ? py : "?");
	for (size_t i = 0; i < lk->nenvironments && !any; i++) {
		struct rr_marker *m = NULL;
		bool yes = true;
		if (rr_marker_parse(lk->environments[i], SIZE_MAX, &m, NULL) == RR_OK &&
		    rr_marker_eval(m, env, &yes, NULL) == RR_OK)
			any = yes;
		else
			any = true;
		rr_marker_free(m);
	}
	if (!any)
		rr_reqset_add_warning(set, "%s:%u: none of the lock's environments is this one: an "
					   "installer refuses it here",
				      lk->path, lk->env_line);
}

static void select_pylock(const struct rr_lock *lk, const struct rr_marker_env *env,
			  const struct rr_input_sel *sel, struct rr_reqset *set, bool *chosen)
{
	const char *const *groups = (const char *const *)lk->default_groups;
	size_t ngroups = lk->ndefault_groups;
	const char *const *extras = NULL;
	size_t nextras = 0;

	if (sel && (sel->ngroups || sel->all_groups)) {
		groups = sel->groups;
		ngroups = sel->all_groups ? SIZE_MAX : sel->ngroups;
	}
	if (sel) {
		extras = sel->extras;
		nextras = sel->all_extras ? SIZE_MAX : sel->nextras;
	}
	struct rr_marker_env here = *env;

	here.vars[RR_MVAR_EXTRA] = ""; /* what the bound tests compare with */
	for (size_t i = 0; i < lk->npkgs; i++) {
		const struct rr_lock_pkg *p = &lk->pkgs[i];
		struct rr_marker *m = NULL;
		bool yes = true;
		rr_error e = RR_ERROR_INIT;

		if (p->marker_text) {
			RR_AUTOFREE char *bound =
				rr_lock_marker_bind(p->marker_text, extras, nextras, groups, ngroups);
			if (rr_marker_parse(bound, SIZE_MAX, &m, &e) || rr_marker_eval(m, &here, &yes, &e)) {
				rr_reqset_add_warning(set, "%s:%u: cannot evaluate marker (%s); taken "
							   "as true",
						      lk->path, p->marker_line, e.msg);
				yes = true;
			}
			rr_marker_free(m);
			rr_error_release(&e);
		}
		chosen[i] = yes;
	}
}

rr_err rr_lock_select(const struct rr_lock *lk, const struct rr_marker_env *env,
		      const struct rr_input_sel *sel, struct rr_reqset *set, rr_error *err)
{
	struct walk w = {lk, env, set, NULL, NULL, NULL, NULL, NULL, 0, 0};
	RR_AUTOFREE bool *chosen = rr_xcalloc(lk->npkgs + 1, sizeof(bool));
	rr_err rc = RR_OK;

	for (size_t i = 0; i < lk->nwarnings; i++)
		rr_reqset_add_warning(set, "%s", lk->warnings[i]);
	check_environment(lk, env, set);
	if (lk->format == RR_LOCK_PYLOCK) {
		select_pylock(lk, env, sel, set, chosen);
	} else {
		w.seen = rr_xcalloc(lk->npkgs + 1, sizeof(bool));
		w.root = rr_xcalloc(lk->npkgs + 1, sizeof(bool));
		w.done_extras = rr_xcalloc(lk->npkgs + 1, sizeof(char **));
		w.ndone = rr_xcalloc(lk->npkgs + 1, sizeof(size_t));
		rc = walk_uv(&w, sel, err);
		for (size_t i = 0; i < lk->npkgs; i++)
			chosen[i] = w.seen[i] && !w.root[i] && !is_member(lk, &lk->pkgs[i]);
		for (size_t i = 0; i < lk->npkgs; i++)
			rr_strv_free_array(w.done_extras[i], w.ndone[i]);
		free(w.done_extras);
		free(w.ndone);
		free(w.seen);
		free(w.root);
		free(w.queue);
		if (rc)
			return rc;
	}
	add_indexes(set, lk, chosen);
	for (size_t i = 0; i < lk->npkgs && !rc; i++)
		if (chosen[i])
			rc = add_item(set, lk, &lk->pkgs[i], err);
	return rc;
}

/* ---- release -------------------------------------------------------------- */

static void free_deps(struct rr_lock_dep *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].key);
		free(d[i].version);
		free(d[i].source);
		rr_marker_free(d[i].marker);
		rr_strv_free_array(d[i].extras, d[i].nextras);
	}
	free(d);
}

static void free_groups(struct rr_lock_group *g, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(g[i].name);
		free_deps(g[i].deps, g[i].ndeps);
	}
	free(g);
}

void rr_lock_release(struct rr_lock *lk)
{
	if (!lk)
		return;
	for (size_t i = 0; i < lk->npkgs; i++) {
		struct rr_lock_pkg *p = &lk->pkgs[i];
		free(p->name);
		free(p->key);
		free(p->version);
		free(p->source);
		free(p->commit);
		free(p->subdirectory);
		free(p->file);
		free(p->marker_text);
		for (size_t k = 0; k < p->nforks; k++)
			rr_marker_free(p->forks[k]);
		free(p->forks);
		free_deps(p->deps, p->ndeps);
		free_groups(p->extras, p->nextras);
		free_groups(p->groups, p->ngroups);
	}
	free(lk->pkgs);
	free(lk->path);
	free(lk->dir);
	free(lk->requires_python);
	free(lk->by_key);
	rr_strv_free_array(lk->members, lk->nmembers);
	rr_strv_free_array(lk->default_groups, lk->ndefault_groups);
	rr_strv_free_array(lk->environments, lk->nenvironments);
	rr_strv_free_array(lk->warnings, lk->nwarnings);
	memset(lk, 0, sizeof(*lk));
}

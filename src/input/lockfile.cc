/*
 * lockfile.cc - uv.lock and pylock.toml (PEP 751) read with toml++ into the plain
 * structures of lockfile.h, every key checked; src/input/lock.c selects from them.
 *
 * uv.lock (uv 0.13: version = 1, revision 1-3): [[package]] tables with name,
 * version, source = { registry | virtual | editable | directory | path | git | url },
 * resolution-markers, dependencies = [{ name, version?, source?, marker?, extra? }],
 * optional-dependencies and dev-dependencies (tables of such lists); [manifest]
 * members. pylock.toml (PEP 751, lock-version 1.x): [[packages]] with name, version?,
 * marker?, index?, and one of vcs / directory / archive or sdist and/or wheels;
 * environments, default-groups. Keys not named here are ignored, as both formats
 * allow (sdist and wheel lists of uv.lock, [package.metadata], tool tables).
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "toml-private.hh"

extern "C" {
#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
}

namespace {

struct ctx {
	rr_toml::source src;
	rr_lock *lk;
};

char *norm_dup(std::string_view s)
{
	return rr_name_normalize_n(s.data(), s.size());
}

char *dup(std::string_view s)
{
	return rr_xstrndup(s.data(), s.size());
}

/* a string value of t[key], or nullptr when absent; a value of another type fails, and
 * so does one that could end a plan line (one that must be a single token: token) */
rr_err opt_string(const ctx &c, const toml::table &t, const char *key, const std::string &what,
		  const toml::value<std::string> **ret, rr_error *err, bool token = false)
{
	const toml::node *n = t.get(key);
	*ret = nullptr;
	if (!n)
		return RR_OK;
	if (!n->is_string())
		return c.src.fail(RR_E_PARSE, *n, err, what + " '" + key + "' must be a string");
	*ret = n->as_string();
	return c.src.check_text(*n, std::string("'") + key + "' of " + what, err, token);
}

rr_err req_string(const ctx &c, const toml::table &t, const toml::node &where, const char *key,
		  const std::string &what, const toml::value<std::string> **ret, rr_error *err)
{
	rr_err rc = opt_string(c, t, key, what, ret, err);
	if (!rc && !*ret)
		return c.src.fail(RR_E_PARSE, where, err, what + " has no '" + key + "'");
	return rc;
}

/* a marker string: parsed here so that a bad one is an error at its place in the file */
rr_err parse_marker(const ctx &c, const toml::value<std::string> &v, rr_marker **ret,
		    rr_error *err)
{
	const std::string &s = v.get();
	rr_err rc = rr_marker_parse(s.data(), s.size(), ret, err);
	if (rc) {
		unsigned line = (unsigned)v.source().begin.line;
		std::string lt = c.src.line_text(line);
		rr_error_set_origin(err, c.src.path, line, c.src.string_col(v), lt.c_str());
	}
	return rc;
}

/* the strings of an array (normalised names when norm), or an error at the first non-string */
rr_err string_list(const ctx &c, const toml::node &n, const std::string &what, bool norm,
		   char ***ret, size_t *nret, rr_error *err)
{
	const toml::array *a = n.as_array();
	if (!a)
		return c.src.fail(RR_E_PARSE, n, err, what + " must be an array of strings");
	for (const toml::node &e : *a) {
		if (!e.is_string())
			return c.src.fail(RR_E_PARSE, e, err, what + " must be an array of strings");
		if (rr_err rc = c.src.check_text(e, "an entry of " + what, err))
			return rc;
		const std::string &s = e.as_string()->get();
		*ret = (char **)rr_xrealloc(*ret, (*nret + 1) * sizeof(char *));
		(*ret)[(*nret)++] = norm ? norm_dup(s) : dup(s);
	}
	return RR_OK;
}

/* a package table's name (required: where the package is named) and version */
rr_err name_version(const ctx &c, const toml::node &n, const char *table, const std::string &what,
		    rr_lock_pkg *p, rr_error *err)
{
	const toml::table *t = n.as_table();
	const toml::value<std::string> *s;
	rr_err rc;

	if (!t)
		return c.src.fail(RR_E_PARSE, n, err, std::string(table) + " must be a table");
	if ((rc = req_string(c, *t, n, "name", what, &s, err)))
		return rc;
	p->name = dup(s->get());
	p->key = norm_dup(s->get());
	p->line = (unsigned)s->source().begin.line;
	p->col = (unsigned)s->source().begin.column;
	if ((rc = opt_string(c, *t, "version", what, &s, err)))
		return rc;
	if (s)
		p->version = dup(s->get());
	return RR_OK;
}

/* ---- uv.lock -------------------------------------------------------------- */

/* source = { registry = "url" } and its kin: exactly one known key */
rr_err uv_source(const ctx &c, const toml::node &n, rr_lock_source *kind, char **value,
		 char **commit, char **subdir, bool *editable, rr_error *err)
{
	static const struct {
		const char *key;
		rr_lock_source kind;
	} kinds[] = {{"registry", RR_LSRC_REGISTRY}, {"virtual", RR_LSRC_VIRTUAL},
		     {"editable", RR_LSRC_EDITABLE}, {"directory", RR_LSRC_DIRECTORY},
		     {"path", RR_LSRC_PATH},	     {"git", RR_LSRC_GIT},
		     {"url", RR_LSRC_URL}};
	const toml::table *t = n.as_table();
	if (!t)
		return c.src.fail(RR_E_PARSE, n, err, "a source must be a table such as { registry = \"URL\" }");
	const toml::node *found = nullptr;
	const char *found_key = nullptr;
	rr_err rc;
	for (const auto &k : kinds) {
		const toml::node *v = t->get(k.key);
		if (!v)
			continue;
		if (found)
			return c.src.fail(RR_E_PARSE, *v, err, "a source names more than one kind");
		if (!v->is_string())
			return c.src.fail(RR_E_PARSE, *v, err, std::string("source '") + k.key + "' must be a string");
		found = v;
		found_key = k.key;
		*kind = k.kind;
	}
	/* a registry is an option's value: one token */
	if (found && (rc = c.src.check_text(*found, std::string("source '") + found_key + "'", err,
					    *kind == RR_LSRC_REGISTRY)))
		return rc;
	if (!found)
		return c.src.fail(RR_E_PARSE, n, err,
				  "unknown source kind (expected registry, virtual, editable, "
				  "directory, path, git or url)");
	std::string v = found->as_string()->get();
	if (editable)
		*editable = *kind == RR_LSRC_EDITABLE;
	if (*kind == RR_LSRC_GIT && commit) {
		/* "https://host/repo?rev=x&subdirectory=y#<commit>" */
		size_t hash = v.find('#');
		if (hash == std::string::npos || hash + 1 == v.size())
			return c.src.fail(RR_E_PARSE, *found, err, "a git source has no '#<commit>'");
		*commit = dup(std::string_view(v).substr(hash + 1));
		v.resize(hash);
		size_t q = v.find('?');
		if (q != std::string::npos) {
			std::string query = v.substr(q + 1);
			v.resize(q);
			size_t at = query.find("subdirectory=");
			if (at != std::string::npos && (at == 0 || query[at - 1] == '&') && subdir) {
				std::string sd = query.substr(at + 13);
				sd = sd.substr(0, sd.find('&'));
				*subdir = dup(sd);
			}
		}
	} else if (*kind == RR_LSRC_URL && subdir) {
		if (const toml::node *sd = t->get("subdirectory"); sd && sd->is_string()) {
			if ((rc = c.src.check_text(*sd, "source 'subdirectory'", err)))
				return rc;
			*subdir = dup(sd->as_string()->get());
		}
	}
	*value = dup(v);
	return RR_OK;
}

rr_err uv_dep(const ctx &c, const toml::node &n, rr_lock_dep *d, rr_error *err)
{
	const toml::table *t = n.as_table();
	const toml::value<std::string> *s;
	rr_err rc;

	*d = rr_lock_dep{};
	d->line = (unsigned)n.source().begin.line;
	d->col = (unsigned)n.source().begin.column;
	if (!t)
		return c.src.fail(RR_E_PARSE, n, err, "a dependency must be a table { name = \"...\" }");
	if ((rc = req_string(c, *t, n, "name", "a dependency", &s, err)))
		return rc;
	d->key = norm_dup(s->get());
	if ((rc = opt_string(c, *t, "version", "a dependency", &s, err)))
		return rc;
	if (s)
		d->version = dup(s->get());
	if (const toml::node *src = t->get("source")) {
		if ((rc = uv_source(c, *src, &d->source_kind, &d->source, nullptr, nullptr, nullptr, err)))
			return rc;
	}
	if ((rc = opt_string(c, *t, "marker", "a dependency", &s, err)))
		return rc;
	if (s && (rc = parse_marker(c, *s, &d->marker, err)))
		return rc;
	if (const toml::node *ex = t->get("extra"))
		if ((rc = string_list(c, *ex, "'extra'", true, &d->extras, &d->nextras, err)))
			return rc;
	return RR_OK;
}

rr_err uv_dep_list(const ctx &c, const toml::node &n, const std::string &what, rr_lock_dep **ret,
		   size_t *nret, rr_error *err)
{
	const toml::array *a = n.as_array();
	if (!a)
		return c.src.fail(RR_E_PARSE, n, err, what + " must be an array of tables");
	*ret = (rr_lock_dep *)rr_xcalloc(a->size() + 1, sizeof(**ret));
	for (const toml::node &e : *a) {
		rr_err rc = uv_dep(c, e, &(*ret)[*nret], err);
		(*nret)++; /* counted even when it failed: released with the rest */
		if (rc)
			return rc;
	}
	return RR_OK;
}

rr_err uv_groups(const ctx &c, const toml::node &n, const std::string &what, rr_lock_group **ret,
		 size_t *nret, rr_error *err)
{
	const toml::table *t = n.as_table();
	if (!t)
		return c.src.fail(RR_E_PARSE, n, err, what + " must be a table of dependency lists");
	*ret = (rr_lock_group *)rr_xcalloc(t->size() + 1, sizeof(**ret));
	for (const auto &kv : *t) {
		rr_lock_group *g = &(*ret)[(*nret)++];
		g->name = norm_dup(kv.first.str());
		rr_err rc = uv_dep_list(c, kv.second, what + " '" + std::string(kv.first.str()) + "'",
					&g->deps, &g->ndeps, err);
		if (rc)
			return rc;
	}
	return RR_OK;
}

rr_err uv_package(const ctx &c, const toml::node &n, rr_lock_pkg *p, rr_error *err)
{
	const toml::table *t = n.as_table();
	rr_err rc;

	if ((rc = name_version(c, n, "[[package]]", "a [[package]]", p, err)))
		return rc;
	if (const toml::node *src = t->get("source")) {
		bool editable = false;
		if ((rc = uv_source(c, *src, &p->kind, &p->source, &p->commit, &p->subdirectory,
				    &editable, err)))
			return rc;
	} else {
		return c.src.fail(RR_E_PARSE, n, err, "package '" + std::string(p->name) + "' has no source");
	}
	if (const toml::node *rm = t->get("resolution-markers")) {
		const toml::array *a = rm->as_array();
		if (!a)
			return c.src.fail(RR_E_PARSE, *rm, err, "'resolution-markers' must be an array of strings");
		p->forks = (rr_marker **)rr_xcalloc(a->size() + 1, sizeof(rr_marker *));
		for (const toml::node &e : *a) {
			if (!e.is_string())
				return c.src.fail(RR_E_PARSE, e, err, "'resolution-markers' must be an array of strings");
			if ((rc = c.src.check_text(e, "an entry of 'resolution-markers'", err)))
				return rc;
			if ((rc = parse_marker(c, *e.as_string(), &p->forks[p->nforks], err)))
				return rc;
			p->nforks++;
		}
	}
	if (const toml::node *d = t->get("dependencies"))
		if ((rc = uv_dep_list(c, *d, "'dependencies'", &p->deps, &p->ndeps, err)))
			return rc;
	if (const toml::node *d = t->get("optional-dependencies"))
		if ((rc = uv_groups(c, *d, "'optional-dependencies'", &p->extras, &p->nextras, err)))
			return rc;
	if (const toml::node *d = t->get("dev-dependencies"))
		if ((rc = uv_groups(c, *d, "'dev-dependencies'", &p->groups, &p->ngroups, err)))
			return rc;
	return RR_OK;
}

/* lk->by_key: the packages ordered by name, then by place in the file */
void index_by_key(rr_lock *lk)
{
	lk->by_key = (size_t *)rr_xcalloc(lk->npkgs + 1, sizeof(size_t));
	for (size_t i = 0; i < lk->npkgs; i++)
		lk->by_key[i] = i;
	std::stable_sort(lk->by_key, lk->by_key + lk->npkgs, [lk](size_t a, size_t b) {
		return strcmp(lk->pkgs[a].key, lk->pkgs[b].key) < 0;
	});
}

/* does an edge's target exist? (a lock that points nowhere is damaged) */
rr_err uv_check_edges(const ctx &c, const toml::table &root, rr_error *err)
{
	const rr_lock *lk = c.lk;
	auto check = [&](const rr_lock_dep &d) -> rr_err {
		size_t n, at = rr_lock_find(lk, d.key, &n);
		for (size_t k = at; k < at + n; k++) {
			const rr_lock_pkg &p = lk->pkgs[lk->by_key[k]];
			if (!d.version || (p.version && strcmp(p.version, d.version) == 0))
				return RR_OK;
		}
		std::string t = c.src.line_text(d.line);
		return rr_fail_at(err, RR_E_PARSE, c.src.path, d.line, d.col, t.c_str(),
				  "dependency '%s%s%s' names no [[package]] of the lock", d.key,
				  d.version ? " " : "", d.version ? d.version : "");
	};
	(void)root;
	for (size_t i = 0; i < lk->npkgs; i++) {
		const rr_lock_pkg &p = lk->pkgs[i];
		for (size_t k = 0; k < p.ndeps; k++)
			if (rr_err rc = check(p.deps[k]))
				return rc;
		for (size_t g = 0; g < p.nextras; g++)
			for (size_t k = 0; k < p.extras[g].ndeps; k++)
				if (rr_err rc = check(p.extras[g].deps[k]))
					return rc;
		for (size_t g = 0; g < p.ngroups; g++)
			for (size_t k = 0; k < p.groups[g].ndeps; k++)
				if (rr_err rc = check(p.groups[g].deps[k]))
					return rc;
	}
	return RR_OK;
}

/* uv sync's default groups: [tool.uv] default-groups of the pyproject.toml beside the lock */
void uv_default_groups(ctx &c)
{
	rr_lock *lk = c.lk;
	std::string pp = std::string(lk->dir ? lk->dir : ".") + "/pyproject.toml";
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	bool set = false;

	if (rr_strbuf_read_file(&sb, pp.c_str(), RR_REQFILE_MAX_SIZE, &e) == RR_OK &&
	    rr_toml::check_bytes(std::string_view(sb.buf, sb.len), pp.c_str(), &e) == RR_OK) {
		try {
			toml::table root = toml::parse(std::string_view(sb.buf, sb.len), pp);
			const toml::node *dg = root.at_path("tool.uv.default-groups").node();
			if (dg && dg->is_string() && dg->as_string()->get() == "all") {
				lk->default_groups_all = true;
				set = true;
			} else if (dg && dg->is_array()) {
				set = true;
				for (const toml::node &g : *dg->as_array())
					if (g.is_string()) {
						lk->default_groups = (char **)rr_xrealloc(
							lk->default_groups,
							(lk->ndefault_groups + 1) * sizeof(char *));
						lk->default_groups[lk->ndefault_groups++] =
							norm_dup(g.as_string()->get());
					}
			}
		} catch (const toml::parse_error &) {
			/* not ours to judge here: the default applies */
		}
	}
	rr_error_release(&e);
	rr_strbuf_release(&sb);
	if (!set) {
		lk->default_groups = (char **)rr_xcalloc(2, sizeof(char *));
		lk->default_groups[lk->ndefault_groups++] = rr_xstrdup("dev");
	}
}

rr_err load_uv(ctx &c, const toml::table &root, rr_error *err)
{
	rr_lock *lk = c.lk;
	rr_err rc;
	const toml::node *ver = root.get("version");

	if (!ver)
		return rr_fail_at(err, RR_E_PARSE, c.src.path, 1, 1, nullptr,
				  "not a uv.lock: no 'version' key");
	if (!ver->is_integer() || ver->as_integer()->get() != 1)
		return c.src.fail(RR_E_UNSUPPORTED, *ver, err,
				  "unsupported uv.lock version (this reads version 1, as uv 0.13 writes)");
	if (const toml::node *rp = root.get("requires-python")) {
		if (!rp->is_string())
			return c.src.fail(RR_E_PARSE, *rp, err, "'requires-python' must be a string");
		if ((rc = c.src.check_text(*rp, "'requires-python'", err)))
			return rc;
		lk->requires_python = dup(rp->as_string()->get());
	}
	if (const toml::node *m = root.at_path("manifest.members").node())
		if ((rc = string_list(c, *m, "[manifest] members", true, &lk->members, &lk->nmembers, err)))
			return rc;
	const toml::node *pk = root.get("package");
	if (pk) {
		const toml::array *a = pk->as_array();
		if (!a)
			return c.src.fail(RR_E_PARSE, *pk, err, "'package' must be an array of tables ([[package]])");
		lk->pkgs = (rr_lock_pkg *)rr_xcalloc(a->size() + 1, sizeof(rr_lock_pkg));
		for (const toml::node &e : *a) {
			rc = uv_package(c, e, &lk->pkgs[lk->npkgs], err);
			lk->npkgs++;
			if (rc)
				return rc;
		}
	}
	index_by_key(lk);
	if ((rc = uv_check_edges(c, root, err)))
		return rc;
	uv_default_groups(c);
	return RR_OK;
}

/* ---- pylock.toml ---------------------------------------------------------- */

/* "url" (else "path") of a file table: sdist, archive or a wheel */
rr_err file_location(const ctx &c, const toml::node &n, const std::string &what, char **ret,
		     rr_error *err)
{
	const toml::table *t = n.as_table();
	const toml::value<std::string> *u, *p;
	rr_err rc;

	if (!t)
		return c.src.fail(RR_E_PARSE, n, err, what + " must be a table");
	if ((rc = opt_string(c, *t, "url", what, &u, err)) || (rc = opt_string(c, *t, "path", what, &p, err)))
		return rc;
	if (!u && !p)
		return c.src.fail(RR_E_PARSE, n, err, what + " has neither 'url' nor 'path'");
	if (!*ret)
		*ret = dup(u ? u->get() : p->get());
	return RR_OK;
}

rr_err py_package(const ctx &c, const toml::node &n, rr_lock_pkg *p, rr_error *err)
{
	const toml::table *t = n.as_table();
	const toml::value<std::string> *s;
	rr_err rc;

	if ((rc = name_version(c, n, "[[packages]]", "a [[packages]] entry", p, err)))
		return rc;
	if ((rc = opt_string(c, *t, "marker", "a [[packages]] entry", &s, err)))
		return rc;
	if (s) {
		/* checked now with every set empty; bound to the selection when selected */
		p->marker_text = dup(s->get());
		p->marker_line = (unsigned)s->source().begin.line;
		p->marker_col = c.src.string_col(*s);
		RR_AUTOFREE char *bound = rr_lock_marker_bind(p->marker_text, nullptr, 0, nullptr, 0);
		rr_marker *m = nullptr;
		rc = rr_marker_parse(bound, strlen(bound), &m, err);
		rr_marker_free(m);
		if (rc) {
			std::string lt = c.src.line_text(p->marker_line);
			rr_error_set_origin(err, c.src.path, p->marker_line, p->marker_col, lt.c_str());
			return rc;
		}
	}
	/* an option's value: one token */
	if ((rc = opt_string(c, *t, "index", "a [[packages]] entry", &s, err, true)))
		return rc;
	if (s)
		p->source = dup(s->get());

	const toml::node *vcs = t->get("vcs"), *dir = t->get("directory"), *arc = t->get("archive"),
			 *sd = t->get("sdist"), *wh = t->get("wheels");
	int kinds = (vcs != nullptr) + (dir != nullptr) + (arc != nullptr) + (sd || wh ? 1 : 0);
	if (kinds == 0)
		return c.src.fail(RR_E_PARSE, n, err,
				  "package '" + std::string(p->name) +
					  "' has none of vcs, directory, archive, sdist or wheels");
	if (kinds > 1)
		return c.src.fail(RR_E_PARSE, n, err,
				  "package '" + std::string(p->name) +
					  "' has more than one of vcs, directory, archive and sdist/wheels");
	if (vcs) {
		const toml::table *v = vcs->as_table();
		const toml::value<std::string> *type, *url, *path, *commit;
		if (!v)
			return c.src.fail(RR_E_PARSE, *vcs, err, "'vcs' must be a table");
		if ((rc = req_string(c, *v, *vcs, "type", "'vcs'", &type, err)) ||
		    (rc = opt_string(c, *v, "url", "'vcs'", &url, err)) ||
		    (rc = opt_string(c, *v, "path", "'vcs'", &path, err)) ||
		    (rc = req_string(c, *v, *vcs, "commit-id", "'vcs'", &commit, err)))
			return rc;
		if (!url && !path)
			return c.src.fail(RR_E_PARSE, *vcs, err, "'vcs' has neither 'url' nor 'path'");
		p->kind = RR_LSRC_GIT;
		free(p->source);
		std::string prefix = type->get() + "+";
		p->source = dup(prefix + (url ? url->get() : "file://" + path->get()));
		p->commit = dup(commit->get());
		if ((rc = opt_string(c, *v, "subdirectory", "'vcs'", &s, err)))
			return rc;
		if (s)
			p->subdirectory = dup(s->get());
	} else if (dir) {
		const toml::table *d = dir->as_table();
		const toml::value<std::string> *path;
		if (!d)
			return c.src.fail(RR_E_PARSE, *dir, err, "'directory' must be a table");
		if ((rc = req_string(c, *d, *dir, "path", "'directory'", &path, err)))
			return rc;
		const toml::node *ed = d->get("editable");
		p->kind = ed && ed->value_or(false) ? RR_LSRC_EDITABLE : RR_LSRC_DIRECTORY;
		free(p->source);
		p->source = dup(path->get());
	} else if (arc) {
		p->kind = RR_LSRC_URL;
		free(p->source);
		p->source = nullptr;
		if ((rc = file_location(c, *arc, "'archive'", &p->source, err)))
			return rc;
		if (const toml::table *a = arc->as_table())
			if (const toml::node *sdir = a->get("subdirectory");
			    sdir && sdir->is_string()) {
				if ((rc = c.src.check_text(*sdir, "'subdirectory' of 'archive'",
							   err)))
					return rc;
				p->subdirectory = dup(sdir->as_string()->get());
			}
	} else {
		p->kind = RR_LSRC_REGISTRY;
		if (wh) {
			const toml::array *a = wh->as_array();
			if (!a)
				return c.src.fail(RR_E_PARSE, *wh, err, "'wheels' must be an array of tables");
			for (const toml::node &w : *a)
				if ((rc = file_location(c, w, "a wheel", &p->file, err)))
					return rc;
		}
		if (sd && (rc = file_location(c, *sd, "'sdist'", &p->file, err)))
			return rc;
		if (!p->version && !p->file)
			return c.src.fail(RR_E_PARSE, n, err, "package '" + std::string(p->name) + "' has no file");
	}
	return RR_OK;
}

rr_err load_pylock(ctx &c, const toml::table &root, rr_error *err)
{
	rr_lock *lk = c.lk;
	rr_err rc;
	const toml::node *lv = root.get("lock-version");

	if (!lv)
		return rr_fail_at(err, RR_E_PARSE, c.src.path, 1, 1, nullptr,
				  "not a pylock.toml: no 'lock-version' key");
	if (!lv->is_string())
		return c.src.fail(RR_E_PARSE, *lv, err, "'lock-version' must be a string");
	{
		const std::string &v = lv->as_string()->get();
		if (v != "1" && v.rfind("1.", 0) != 0)
			return c.src.fail(RR_E_UNSUPPORTED, *lv, err,
					  "unsupported lock-version '" + v + "' (PEP 751 version 1.x is read)");
	}
	if (const toml::node *rp = root.get("requires-python")) {
		if (!rp->is_string())
			return c.src.fail(RR_E_PARSE, *rp, err, "'requires-python' must be a string");
		if ((rc = c.src.check_text(*rp, "'requires-python'", err)))
			return rc;
		lk->requires_python = dup(rp->as_string()->get());
	}
	if (const toml::node *en = root.get("environments")) {
		const toml::array *a = en->as_array();
		if (!a)
			return c.src.fail(RR_E_PARSE, *en, err, "'environments' must be an array of strings");
		lk->env_line = (unsigned)en->source().begin.line;
		lk->env_col = (unsigned)en->source().begin.column;
		for (const toml::node &e : *a) {
			rr_marker *m = nullptr;
			if (!e.is_string())
				return c.src.fail(RR_E_PARSE, e, err, "'environments' must be an array of strings");
			if ((rc = c.src.check_text(e, "an entry of 'environments'", err)))
				return rc;
			rc = parse_marker(c, *e.as_string(), &m, err);
			rr_marker_free(m);
			if (rc)
				return rc;
			lk->environments = (char **)rr_xrealloc(lk->environments,
							       (lk->nenvironments + 1) * sizeof(char *));
			lk->environments[lk->nenvironments++] = dup(e.as_string()->get());
		}
	}
	if (const toml::node *dg = root.get("default-groups"))
		if ((rc = string_list(c, *dg, "'default-groups'", true, &lk->default_groups,
				      &lk->ndefault_groups, err)))
			return rc;
	const toml::node *pk = root.get("packages");
	if (pk) {
		const toml::array *a = pk->as_array();
		if (!a)
			return c.src.fail(RR_E_PARSE, *pk, err, "'packages' must be an array of tables ([[packages]])");
		lk->pkgs = (rr_lock_pkg *)rr_xcalloc(a->size() + 1, sizeof(rr_lock_pkg));
		for (const toml::node &e : *a) {
			rc = py_package(c, e, &lk->pkgs[lk->npkgs], err);
			lk->npkgs++;
			if (rc)
				return rc;
		}
	}
	index_by_key(lk);
	return RR_OK;
}

} // namespace

extern "C" rr_err rr_lock_parse(struct rr_lock *lk, const char *path, const char *text, size_t len,
				enum rr_lock_format format, rr_error *err)
{
	ctx c;

	if (len > RR_REQFILE_MAX_SIZE)
		return rr_fail_at(err, RR_E_LIMIT, path, 0, 0, nullptr,
				  "lock file is larger than %u bytes", RR_REQFILE_MAX_SIZE);
	if (format != RR_LOCK_UV && format != RR_LOCK_PYLOCK)
		return rr_fail(err, RR_E_USAGE, "'%s' is not a lock file (uv.lock, pylock.toml)", path);
	lk->format = format;
	free(lk->path);
	lk->path = rr_xstrdup(path);
	if (!lk->dir) {
		const char *slash = strrchr(path, '/');
		std::string d = slash ? std::string(path, (size_t)(slash - path)) : std::string(".");
		if (d.empty())
			d = "/";
		char *abs = realpath(d.c_str(), nullptr);
		lk->dir = abs ? abs : dup(d);
	}
	c.src.path = path;
	c.src.text = std::string_view(text, len);
	c.lk = lk;
	return c.src.parse(err, [&](const toml::table &root) {
		return format == RR_LOCK_UV ? load_uv(c, root, err) : load_pylock(c, root, err);
	});
}

/*
 * uvproject.cc - a pyproject.toml as uv's project commands read it besides its
 * dependencies (uvproject.h), with toml++. No exception crosses into C.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "toml-private.hh"

extern "C" {
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"
#include "uvproject.h"
}

namespace
{

struct reader {
	rr_toml::source src;
	rr_uvproject_file *out;
	rr_error *err;
};

rr_err bad(const reader &r, const toml::node &n, const std::string &what)
{
	return r.src.fail(RR_E_PARSE, n, r.err, what);
}

rr_err strings(reader &r, const toml::table &t, const char *key, char ***v, size_t *n)
{
	const toml::node *a = t.get(key);
	if (!a)
		return RR_OK;
	if (!a->is_array())
		return bad(r, *a,
			   std::string("[tool.uv.workspace] ") + key +
			       " must be an array of strings");
	for (const toml::node &e : *a->as_array()) {
		if (!e.is_string())
			return bad(r, e,
				   std::string("[tool.uv.workspace] ") + key +
				       " must be an array of strings");
		*v = (char **)rr_xrealloc(*v, (*n + 1) * sizeof(char *));
		(*v)[(*n)++] = rr_xstrdup(e.as_string()->get().c_str());
	}
	return RR_OK;
}

rr_err setting(reader &r, const toml::table &uv, const char *key, rr_uvset k)
{
	const toml::node *a = uv.get(key);
	if (!a)
		return RR_OK;
	std::string want = std::string("[tool.uv] ") + key + " must be an array of strings";
	if (!a->is_array())
		return bad(r, *a, want);
	for (const toml::node &e : *a->as_array()) {
		if (!e.is_string())
			return bad(r, e, want);
		auto &v = r.out->set[k];
		v = (rr_uvproject_entry *)rr_xrealloc(v, (r.out->nset[k] + 1) * sizeof(*v));
		v[r.out->nset[k]].value = rr_xstrdup(e.as_string()->get().c_str());
		v[r.out->nset[k]++].line = (unsigned)e.source().begin.line;
	}
	return RR_OK;
}

const char *opt_string(const toml::table &t, const char *key)
{
	const toml::node *n = t.get(key);
	return n && n->is_string() ? n->as_string()->get().c_str() : nullptr;
}

/* one [tool.uv.sources] entry: a table, or an array of them (by marker; the first that
 * names a place is taken) */
rr_err source(reader &r, const toml::key &k, const toml::node &n)
{
	const toml::table *t = n.as_table();
	if (const toml::array *a = n.as_array()) {
		for (const toml::node &e : *a)
			if (e.is_table()) {
				t = e.as_table();
				break;
			}
	}
	if (!t)
		return bad(r, n, "a [tool.uv.sources] entry must be a table");
	rr_uvproject_source s = {};
	const toml::node *ws = t->get("workspace");
	const char *path = opt_string(*t, "path"), *url = opt_string(*t, "url");
	const char *git = opt_string(*t, "git"), *sub = opt_string(*t, "subdirectory");
	if (ws && !ws->is_boolean())
		return bad(r, *ws, "[tool.uv.sources] workspace must be true or false");
	s.workspace = ws && ws->as_boolean()->get();
	if (!s.workspace && !path && !url && !git)
		return RR_OK; /* an index source, or one this reader does not follow */
	s.key = rr_name_normalize_n(k.str().data(), k.str().size());
	s.path = path ? rr_xstrdup(path) : nullptr;
	if (git) {
		const char *ref = opt_string(*t, "rev");
		if (!ref)
			ref = opt_string(*t, "tag");
		if (!ref)
			ref = opt_string(*t, "branch");
		s.url = ref ? rr_xasprintf("git+%s@%s", git, ref) : rr_xasprintf("git+%s", git);
	} else if (url) {
		s.url = rr_xstrdup(url);
	}
	s.subdirectory = sub ? rr_xstrdup(sub) : nullptr;
	s.line = (unsigned)n.source().begin.line;
	auto &v = r.out->sources;
	v = (rr_uvproject_source *)rr_xrealloc(v, (r.out->nsources + 1) * sizeof(*v));
	v[r.out->nsources++] = s;
	return RR_OK;
}

rr_err read(reader &r, const toml::table &root)
{
	rr_uvproject_file *o = r.out;
	rr_err rc = RR_OK;

	if (const toml::table *p = root["project"].as_table()) {
		o->has_project = true;
		if (const toml::node *nm = p->get("name"); nm && nm->is_string())
			o->name = rr_xstrdup(nm->as_string()->get().c_str());
	}
	o->has_groups = root["dependency-groups"].is_table();
	o->has_poetry = root["tool"]["poetry"].is_table();
	const toml::table *uv = root["tool"]["uv"].as_table();
	if (!uv)
		return RR_OK;
	o->has_tool_uv = true;
	if (const toml::node *w = uv->get("workspace")) {
		if (!w->is_table())
			return bad(r, *w, "[tool.uv.workspace] must be a table");
		o->has_workspace = true;
		rc = strings(r, *w->as_table(), "members", &o->members, &o->nmembers);
		if (!rc)
			rc = strings(r, *w->as_table(), "exclude", &o->exclude, &o->nexclude);
	}
	if (const toml::node *s = uv->get("sources"); s && !rc) {
		if (!s->is_table())
			return bad(r, *s, "[tool.uv.sources] must be a table");
		for (const auto &kv : *s->as_table())
			if ((rc = source(r, kv.first, kv.second)))
				break;
	}
	if (!rc)
		rc = setting(r, *uv, "exclude-dependencies", RR_UVSET_EXCLUDE);
	if (!rc)
		rc = setting(r, *uv, "constraint-dependencies", RR_UVSET_CONSTRAINT);
	if (!rc)
		rc = setting(r, *uv, "override-dependencies", RR_UVSET_OVERRIDE);
	return rc;
}

} // namespace

extern "C" rr_err rr_uvproject_parse(const char *path, const char *text, size_t len,
				     struct rr_uvproject_file *ret, rr_error *err)
{
	reader r;
	rr_uvproject_file f = {};
	r.src.path = path;
	r.src.text = std::string_view(text, len);
	r.out = &f;
	r.err = err;
	rr_err rc = r.src.parse(err, [&](const toml::table &root) { return read(r, root); });
	if (rc) {
		rr_uvproject_release(&f);
		return rc;
	}
	*ret = f;
	return RR_OK;
}

extern "C" void rr_uvproject_release(struct rr_uvproject_file *f)
{
	free(f->name);
	for (size_t i = 0; i < f->nmembers; i++)
		free(f->members[i]);
	free(f->members);
	for (size_t i = 0; i < f->nexclude; i++)
		free(f->exclude[i]);
	free(f->exclude);
	for (size_t i = 0; i < f->nsources; i++) {
		free(f->sources[i].key);
		free(f->sources[i].path);
		free(f->sources[i].url);
		free(f->sources[i].subdirectory);
	}
	free(f->sources);
	for (auto k = 0; k < RR_UVSET__COUNT; k++) {
		for (size_t i = 0; i < f->nset[k]; i++)
			free(f->set[k][i].value);
		free(f->set[k]);
	}
	memset(f, 0, sizeof(*f));
}

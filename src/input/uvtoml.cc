/*
 * uvtoml.cc - the index settings of a uv.toml or [tool.uv] (uvtoml.h), read
 * with toml++. A value of the wrong type is an error at its line, as uv
 * refuses such a file too. No exception crosses into C.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "input/toml-private.hh"

extern "C" {
#include "rocm-resolve/util.h"
#include "uvtoml.h"
}

namespace {

struct reader {
	const char *path;
	std::string_view text;
	rr_uvtoml *out;
	rr_error *err;
};

std::string line_of(const reader &r, unsigned line)
{
	size_t start = 0;
	for (unsigned l = 1; l < line && start < r.text.size(); l++) {
		size_t nl = r.text.find('\n', start);
		if (nl == std::string_view::npos)
			return "";
		start = nl + 1;
	}
	size_t end = r.text.find('\n', start);
	std::string s(r.text.substr(start, end == std::string_view::npos ? std::string_view::npos
									 : end - start));
	if (!s.empty() && s.back() == '\r')
		s.pop_back();
	return s;
}

rr_err bad(const reader &r, const toml::node &n, const char *key, const char *want)
{
	unsigned line = (unsigned)n.source().begin.line;
	std::string t = line_of(r, line);
	return rr_fail_at(r.err, RR_E_PARSE, r.path, line, (unsigned)n.source().begin.column,
			  t.c_str(), "uv setting '%s' must be %s", key, want);
}

/* a value of key, checked where it is read: no control character, and an index URL
 * one token (find-links may name a directory with a space in its name) */
rr_err add(reader &r, rr_uvkey k, const std::string &v, const toml::node &n, const char *key)
{
	bool token = strcmp(key, "find-links") != 0;
	if (rr_err rc = rr_text_check(v.data(), v.size(), token,
				      (std::string("uv setting '") + key + "'").c_str(), r.err)) {
		unsigned line = (unsigned)n.source().begin.line;
		std::string t = line_of(r, line);
		rr_error_set_origin(r.err, r.path, line, (unsigned)n.source().begin.column + 1,
				    t.c_str());
		return rc;
	}
	auto &slot = r.out->key[k];
	slot.v = (char **)rr_xrealloc(slot.v, (slot.n + 1) * sizeof(char *));
	slot.line = (unsigned *)rr_xrealloc(slot.line, (slot.n + 1) * sizeof(unsigned));
	slot.v[slot.n] = rr_xstrdup(v.c_str());
	slot.line[slot.n] = (unsigned)n.source().begin.line;
	slot.n++;
	return RR_OK;
}

rr_err string_key(reader &r, const toml::table &t, const char *key, rr_uvkey k)
{
	const toml::node *n = t.get(key);
	if (!n)
		return RR_OK;
	if (!n->is_string())
		return bad(r, *n, key, "a string");
	return add(r, k, n->as_string()->get(), *n, key);
}

rr_err bool_key(reader &r, const toml::table &t, const char *key, rr_uvkey k)
{
	const toml::node *n = t.get(key);
	if (!n)
		return RR_OK;
	if (!n->is_boolean())
		return bad(r, *n, key, "true or false");
	return add(r, k, n->as_boolean()->get() ? "true" : "false", *n, key);
}

rr_err list_key(reader &r, const toml::table &t, const char *key, rr_uvkey k)
{
	const toml::node *n = t.get(key);
	if (!n)
		return RR_OK;
	if (!n->is_array())
		return bad(r, *n, key, "an array of strings");
	for (const toml::node &e : *n->as_array()) {
		if (!e.is_string())
			return bad(r, e, key, "an array of strings");
		if (rr_err rc = add(r, k, e.as_string()->get(), e, key))
			return rc;
	}
	return RR_OK;
}

rr_err read_indexes(reader &r, const toml::table &t)
{
	const toml::node *n = t.get("index");
	if (!n)
		return RR_OK;
	if (!n->is_array_of_tables())
		return bad(r, *n, "index", "an array of tables ([[index]])");
	for (const toml::node &e : *n->as_array()) {
		const toml::table &ix = *e.as_table();
		const toml::node *url = ix.get("url");
		const toml::node *def = ix.get("default");
		const toml::node *expl = ix.get("explicit");
		if (!url || !url->is_string())
			return bad(r, url ? *url : e, "index.url", "a string");
		if (def && !def->is_boolean())
			return bad(r, *def, "index.default", "true or false");
		if (expl && !expl->is_boolean())
			return bad(r, *expl, "index.explicit", "true or false");
		/* an explicit index serves only the packages pinned to it in [tool.uv.sources],
		 * which uv pip does not read */
		if (expl && expl->as_boolean()->get())
			continue;
		if (rr_err rc = add(
			r, def && def->as_boolean()->get() ? RR_UVK_INDEX_DEFAULT : RR_UVK_INDEX,
			url->as_string()->get(), *url, "index.url"))
			return rc;
	}
	return RR_OK;
}

rr_err read_settings(reader &r, const toml::table &t)
{
	rr_err rc = read_indexes(r, t);
	if (!rc)
		rc = string_key(r, t, "index-url", RR_UVK_INDEX_URL);
	if (!rc)
		rc = list_key(r, t, "extra-index-url", RR_UVK_EXTRA_INDEX_URL);
	if (!rc)
		rc = list_key(r, t, "find-links", RR_UVK_FIND_LINKS);
	if (!rc)
		rc = bool_key(r, t, "no-index", RR_UVK_NO_INDEX);
	if (!rc)
		rc = bool_key(r, t, "offline", RR_UVK_OFFLINE);
	if (rc)
		return rc;
	if (const toml::node *pip = t.get("pip")) {
		if (!pip->is_table())
			return bad(r, *pip, "pip", "a table");
		const toml::table &p = *pip->as_table();
		rc = string_key(r, p, "index-url", RR_UVK_PIP_INDEX_URL);
		if (!rc)
			rc = list_key(r, p, "extra-index-url", RR_UVK_PIP_EXTRA_INDEX_URL);
		if (!rc)
			rc = list_key(r, p, "find-links", RR_UVK_PIP_FIND_LINKS);
		if (!rc)
			rc = bool_key(r, p, "no-index", RR_UVK_PIP_NO_INDEX);
	}
	return rc;
}

} // namespace

extern "C" rr_err rr_uvtoml_parse(const char *path, const char *text, size_t len, bool pyproject,
				  struct rr_uvtoml *out, rr_error *err)
{
	reader r{path, std::string_view(text, len), out, err};

	if (rr_toml::check_bytes(r.text, path, err))
		return RR_E_PARSE;
	try {
		toml::table root = toml::parse(r.text, std::string_view(path));
		const toml::table *t = &root;
		if (pyproject) {
			const toml::node *tool = root.get("tool");
			const toml::node *uv = tool && tool->is_table() ? tool->as_table()->get("uv")
									: nullptr;
			if (!uv || !uv->is_table())
				return RR_OK;
			t = uv->as_table();
		}
		out->found = true;
		return read_settings(r, *t);
	} catch (const toml::parse_error &e) {
		unsigned line = (unsigned)e.source().begin.line;
		std::string t = line_of(r, line);
		std::string d(e.description());
		return rr_fail_at(err, RR_E_PARSE, path, line, (unsigned)e.source().begin.column,
				  t.c_str(), "%s", d.c_str());
	} catch (const std::bad_alloc &) {
		fputs("rocm-resolve: out of memory\n", stderr);
		abort();
	} catch (const std::exception &e) {
		return rr_fail(err, RR_E_INTERNAL, "%s: %s", path, e.what());
	}
}

extern "C" void rr_uvtoml_release(struct rr_uvtoml *t)
{
	for (auto &k : t->key) {
		for (size_t i = 0; i < k.n; i++)
			free(k.v[i]);
		free(k.v);
		free(k.line);
	}
	memset(t, 0, sizeof(*t));
}

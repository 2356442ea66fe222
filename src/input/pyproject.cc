/*
 * pyproject.cc - [project] dependencies, optional-dependencies and PEP 735
 * [dependency-groups] of a pyproject.toml, behind the C API of reqfile.h.
 *
 * The one C++ file of rocm-resolve: it exists only to use toml++. No
 * exception crosses into C; toml++ parse errors become "file:line:col:
 * message" from the parser's source region.
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
#include "rocm-resolve/marker.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tomledit.h"
#include "rocm-resolve/version.h"
}

namespace {

/* a PEP 735 group or extra may not be expanded deeper than this */
constexpr size_t max_nesting = 64;

struct ctx {
	rr_reqset *set;
	const char *path;
	rr_toml::source src;
	std::string self_key; /* normalised [project] name, "" when none */
	const toml::table *optdeps = nullptr;
	std::vector<std::string> chain;	   /* groups / extras being expanded */
	std::vector<std::string> expanded; /* "extra|marker" already done */
	size_t added = 0;
};

std::string normalize(std::string_view s)
{
	char *n = rr_name_normalize_n(s.data(), s.size());
	std::string r(n);
	free(n);
	return r;
}

rr_err fail_node(const ctx &c, rr_err code, const toml::node &n, rr_error *err, const char *msg)
{
	return c.src.fail(code, n, err, msg);
}

std::string marker_string(const rr_marker *m)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_marker_format(m, &sb);
	std::string s(sb.buf);
	rr_strbuf_release(&sb);
	return s;
}

rr_err expand_extra(ctx &c, const std::string &extra, const std::string &pmarker,
		    const toml::node &where, rr_error *err);

/*
 * one dependency string; pmarker is the marker of the self-reference that
 * led here ("" when none) and is ANDed onto the requirement's own
 */
rr_err add_dep(ctx &c, const toml::node &n, const std::string &pmarker, const char *what,
	       rr_error *err)
{
	const toml::value<std::string> *sv = n.as_string();
	if (!sv)
		return fail_node(c, RR_E_PARSE, n, err, "dependency must be a string");
	if (rr_err rc = c.src.check_text(n, std::string("an entry of ") + what, err))
		return rc;
	const std::string &s = sv->get();
	unsigned line = (unsigned)n.source().begin.line;
	std::string lt = c.src.line_text(line);
	unsigned col0 = c.src.string_col(n);

	struct rr_requirement req = RR_REQUIREMENT_INIT;
	rr_err rc = rr_requirement_parse(s.c_str(), &req, err);
	if (rc) {
		rr_error_set_origin(err, c.path, line, col0, lt.c_str());
		return rc;
	}
	if (!c.self_key.empty() && req.key && c.self_key == req.key) {
		/* "project[extra]" inside the project's own lists: pull those extras in */
		std::string m = pmarker;
		if (req.marker) {
			std::string own = marker_string(req.marker);
			m = m.empty() ? own : "(" + own + ") and (" + m + ")";
		}
		if (req.nextras == 0)
			rr_reqset_add_warning(c.set, "%s:%u: '%s' names the project itself; ignored",
					      c.path, line, s.c_str());
		for (size_t i = 0; i < req.nextras && rc == RR_OK; i++)
			rc = expand_extra(c, normalize(req.extras[i]), m, n, err);
		rr_requirement_release(&req);
		return rc;
	}

	std::string text = s;
	if (!pmarker.empty()) {
		/* rebuild as "<requirement without marker>; (own) and (inherited)" */
		struct rr_marker *own = req.marker;
		req.marker = nullptr;
		char *base = rr_requirement_to_string(&req);
		text = std::string(base) + "; ";
		text += own ? "(" + marker_string(own) + ") and (" + pmarker + ")" : pmarker;
		free(base);
		rr_marker_free(own);
		rr_requirement_release(&req);
		req = RR_REQUIREMENT_INIT;
		rc = rr_requirement_parse(text.c_str(), &req, err);
		if (rc) {
			rr_error_set_origin(err, c.path, line, col0, lt.c_str());
			return rc;
		}
	}
	struct rr_item *it = rr_reqset_add_item(c.set);
	it->path = rr_xstrdup(c.path);
	it->line = line;
	it->col = col0;
	it->text = rr_xstrdup(text.c_str());
	it->text_expanded = it->text; /* pyproject has no ${VAR} */
	it->kind = RR_ITEM_REQ;
	it->req = req;
	it->url_written = it->req.url;
	c.added++;
	return RR_OK;
}

rr_err add_array(ctx &c, const toml::node &n, const std::string &pmarker, const char *what,
		 rr_error *err)
{
	const toml::array *a = n.as_array();
	if (!a) {
		std::string msg = std::string(what) + " must be an array of strings";
		return fail_node(c, RR_E_PARSE, n, err, msg.c_str());
	}
	for (const toml::node &e : *a) {
		rr_err rc = add_dep(c, e, pmarker, what, err);
		if (rc)
			return rc;
	}
	return RR_OK;
}

/* keys of a table in file order (toml++ keeps them sorted) */
std::vector<std::pair<const toml::key *, const toml::node *>> in_file_order(const toml::table &t)
{
	std::vector<std::pair<const toml::key *, const toml::node *>> v;
	for (const auto &kv : t)
		v.emplace_back(&kv.first, &kv.second);
	std::stable_sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
		const auto &x = a.first->source().begin, &y = b.first->source().begin;
		return x.line != y.line ? x.line < y.line : x.column < y.column;
	});
	return v;
}

const toml::node *find_normalized(const toml::table &t, const std::string &key)
{
	for (const auto &kv : t)
		if (normalize(kv.first.str()) == key)
			return &kv.second;
	return nullptr;
}

rr_err expand_extra(ctx &c, const std::string &extra, const std::string &pmarker,
		    const toml::node &where, rr_error *err)
{
	const toml::node *deps = c.optdeps ? find_normalized(*c.optdeps, extra) : nullptr;
	if (!deps) {
		rr_reqset_add_warning(c.set, "%s:%u: extra '%s' is not defined in [project.optional-dependencies]",
				      c.path, (unsigned)where.source().begin.line, extra.c_str());
		return RR_OK;
	}
	std::string key = extra + "|" + pmarker;
	if (std::find(c.expanded.begin(), c.expanded.end(), key) != c.expanded.end())
		return RR_OK; /* already in (this also ends self-referencing loops) */
	if (c.chain.size() >= max_nesting)
		return fail_node(c, RR_E_LIMIT, where, err, "extras nested too deeply");
	c.expanded.push_back(key);
	c.chain.push_back(extra);
	std::string what = "[project.optional-dependencies] '" + extra + "'";
	rr_err rc = add_array(c, *deps, pmarker, what.c_str(), err);
	c.chain.pop_back();
	return rc;
}

rr_err expand_group(ctx &c, const toml::table &groups, const std::string &name,
		    const toml::node &where, rr_error *err)
{
	if (std::find(c.chain.begin(), c.chain.end(), name) != c.chain.end()) {
		std::string msg = "dependency group cycle: ";
		auto it = std::find(c.chain.begin(), c.chain.end(), name);
		for (; it != c.chain.end(); ++it)
			msg += *it + " -> ";
		msg += name;
		return fail_node(c, RR_E_PARSE, where, err, msg.c_str());
	}
	if (c.chain.size() >= max_nesting)
		return fail_node(c, RR_E_LIMIT, where, err, "dependency groups nested too deeply");
	const toml::node *g = find_normalized(groups, name);
	if (!g) {
		std::string msg = "dependency group '" + name + "' is not defined";
		return fail_node(c, RR_E_USAGE, where, err, msg.c_str());
	}
	const toml::array *a = g->as_array();
	if (!a)
		return fail_node(c, RR_E_PARSE, *g, err, "a dependency group must be an array");
	c.chain.push_back(name);
	rr_err rc = RR_OK;
	for (const toml::node &e : *a) {
		if (const toml::table *t = e.as_table()) {
			const toml::node *inc = t->get("include-group");
			if (!inc || !inc->is_string() || t->size() != 1) {
				rc = fail_node(c, RR_E_PARSE, e, err,
					       "a dependency group table must be {include-group = \"name\"}");
				break;
			}
			rc = expand_group(c, groups, normalize(inc->as_string()->get()), *inc, err);
		} else {
			rc = add_dep(c, e, "", ("dependency group '" + name + "'").c_str(), err);
		}
		if (rc)
			break;
	}
	c.chain.pop_back();
	return rc;
}

bool is_dynamic(const toml::table &project, const char *field)
{
	const toml::array *d = project["dynamic"].as_array();
	if (!d)
		return false;
	for (const toml::node &e : *d)
		if (e.is_string() && e.as_string()->get() == field)
			return true;
	return false;
}

rr_err load(ctx &c, const toml::table &root, const rr_input_sel *sel, rr_error *err)
{
	const toml::table *project = root["project"].as_table();
	const toml::table *groups = root["dependency-groups"].as_table();
	bool dyn = false;
	rr_err rc;

	if (root.contains("dependency-groups") && !groups)
		return fail_node(c, RR_E_PARSE, *root.get("dependency-groups"), err,
				 "[dependency-groups] must be a table");
	if (!project) {
		if (root.contains("project"))
			return fail_node(c, RR_E_PARSE, *root.get("project"), err,
					 "[project] must be a table");
		/* [dependency-groups] alone is a valid source (PEP 735); nothing at all is not */
		if (!sel || !sel->ngroups) {
			const toml::node *poetry = root.at_path("tool.poetry").node();
			if (poetry)
				return fail_node(c, RR_E_USAGE, *poetry, err,
						 "no [project] table, only [tool.poetry] (Poetry's own "
						 "format is not read): export a requirements file with "
						 "`poetry export` and give that");
			return rr_fail_at(err, RR_E_USAGE, c.path, 1, 1, nullptr,
					  "no [project] table: no dependencies to read; give a "
					  "requirements file instead, or --group NAME for "
					  "[dependency-groups]");
		}
	} else {
		if (const toml::node *nm = project->get("name"); nm && nm->is_string())
			c.self_key = normalize(nm->as_string()->get());
		if (const toml::node *od = project->get("optional-dependencies")) {
			c.optdeps = od->as_table();
			if (!c.optdeps)
				return fail_node(c, RR_E_PARSE, *od,
						 err, "[project.optional-dependencies] must be a table");
		}
		dyn = is_dynamic(*project, "dependencies");
		if (dyn)
			rr_reqset_add_warning(c.set,
					      "%s: dependencies are dynamic (computed by the build "
					      "backend); they cannot be read without a build",
					      c.path);
		if (const toml::node *deps = project->get("dependencies")) {
			rc = add_array(c, *deps, "", "[project] dependencies", err);
			if (rc)
				return rc;
		}
		bool want_extras = sel && (sel->all_extras || sel->nextras);
		if (want_extras && is_dynamic(*project, "optional-dependencies"))
			rr_reqset_add_warning(c.set,
					      "%s: optional-dependencies are dynamic; extras cannot "
					      "be read without a build",
					      c.path);
		if (sel && sel->all_extras && c.optdeps) {
			for (const auto &kv : in_file_order(*c.optdeps)) {
				rc = expand_extra(c, normalize(kv.first->str()), "", *kv.second, err);
				if (rc)
					return rc;
			}
		} else if (sel && !sel->all_extras) {
			for (size_t i = 0; i < sel->nextras; i++) {
				/* an extra asked for on the command line that the project does not
				 * define is a usage error, not a quiet empty set */
				if (!is_dynamic(*project, "optional-dependencies") &&
				    !(c.optdeps && find_normalized(*c.optdeps, normalize(sel->extras[i])))) {
					std::string known;
					if (c.optdeps)
						for (const auto &kv : in_file_order(*c.optdeps))
							known += (known.empty() ? "" : ", ") +
								 std::string(kv.first->str());
					return rr_fail_at(err, RR_E_USAGE, c.path, 0, 0, nullptr,
							  "--extra '%s' is not defined in "
							  "[project.optional-dependencies] (defined: %s)",
							  sel->extras[i],
							  known.empty() ? "none" : known.c_str());
				}
				rc = expand_extra(c, normalize(sel->extras[i]), "", *project, err);
				if (rc)
					return rc;
			}
		}
	}
	for (size_t i = 0; sel && i < sel->ngroups; i++) {
		if (!groups)
			return rr_fail_at(err, RR_E_USAGE, c.path, 0, 0, nullptr,
					  "dependency group '%s' requested but there is no "
					  "[dependency-groups] table",
					  sel->groups[i]);
		c.chain.clear();
		rc = expand_group(c, *groups, normalize(sel->groups[i]), *groups, err);
		if (rc)
			return rc;
	}
	if (sel && sel->all_groups) {
		/* every group, as `uv lock` locks them all; uv's older [tool.uv]
		 * dev-dependencies are its "dev" group */
		for (const auto &kv : groups ? in_file_order(*groups) : decltype(in_file_order(root)){}) {
			c.chain.clear();
			rc = expand_group(c, *groups, normalize(kv.first->str()), *kv.second, err);
			if (rc)
				return rc;
		}
		if (const toml::node *dd = root.at_path("tool.uv.dev-dependencies").node()) {
			rc = add_array(c, *dd, "", "[tool.uv] dev-dependencies", err);
			if (rc)
				return rc;
		}
	}
	if (dyn && c.added == 0)
		return rr_fail_at(err, RR_E_UNSUPPORTED, c.path, 0, 0, nullptr,
				  "[project] dependencies are dynamic; they cannot be read without "
				  "running the build backend (list them in a requirements file)");
	return RR_OK;
}

} // namespace

/* every pyproject.toml read is bounded */
static rr_err size_ok(const char *path, size_t len, rr_error *err)
{
	if (len > RR_REQFILE_MAX_SIZE)
		return rr_fail_at(err, RR_E_LIMIT, path, 0, 0, nullptr,
				  "pyproject.toml is larger than %u bytes", RR_REQFILE_MAX_SIZE);
	return RR_OK;
}

extern "C" rr_err rr_pyproject_parse(struct rr_reqset *set, const char *path, const char *text,
				     size_t len, const struct rr_input_sel *sel, rr_error *err)
{
	if (rr_err rc = size_ok(path, len, err))
		return rc;
	rr_reqset_add_file(set, path);
	ctx c;
	c.set = set;
	c.path = path;
	c.src.path = path;
	c.src.text = std::string_view(text, len);
	return c.src.parse(err, [&](const toml::table &root) { return load(c, root, sel, err); });
}

extern "C" rr_err rr_pyproject_load(struct rr_reqset *set, const char *path,
				    const struct rr_input_sel *sel, rr_error *err)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_err rc = rr_strbuf_read_file(&sb, path, RR_REQFILE_MAX_SIZE, err);
	if (rc == RR_OK)
		rc = rr_pyproject_parse(set, path, sb.buf, sb.len, sel, err);
	rr_strbuf_release(&sb);
	return rc;
}

/* a pyproject.toml from memory, bounded, parsed: load(root) */
template <class F>
static rr_err parse_pyproject(const char *path, const char *text, size_t len, rr_error *err,
			      F &&load)
{
	rr_toml::source src;

	if (rr_err rc = size_ok(path, len, err))
		return rc;
	src.path = path;
	src.text = std::string_view(text, len);
	return src.parse(err, load);
}

extern "C" rr_err rr_pyproject_info_parse(const char *path, const char *text, size_t len,
					  struct rr_pyproject_info *ret, rr_error *err)
{
	return parse_pyproject(path, text, len, err, [&](const toml::table &root) {
		const toml::table *project = root["project"].as_table();
		struct rr_pyproject_info info = {};
		if (!project)
			return rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
					  "no [project] table: the project's metadata is only known "
					  "to its build backend");
		const toml::node *nm = project->get("name");
		if (!nm || !nm->is_string())
			return rr_fail_at(err, RR_E_PARSE, path, 0, 0, nullptr,
					  "[project] has no name");
		info.name = rr_xstrdup(nm->as_string()->get().c_str());
		if (const toml::node *v = project->get("version"); v && v->is_string())
			info.version = rr_xstrdup(v->as_string()->get().c_str());
		if (const toml::node *rp = project->get("requires-python"); rp && rp->is_string())
			info.requires_python = rr_xstrdup(rp->as_string()->get().c_str());
		info.deps_dynamic = is_dynamic(*project, "dependencies");
		info.extras_dynamic = is_dynamic(*project, "optional-dependencies");
		*ret = info;
		return RR_OK;
	});
}

/* one PEP 508 line of [project] as a Requires-Dist value, under extra when given; false
 * when it is not PEP 508 (a build would refuse it) */
static bool requires_dist(const toml::node &n, const char *extra, struct rr_strbuf *out)
{
	struct rr_requirement r = {};
	rr_error e = RR_ERROR_INIT;
	struct rr_marker *m;

	if (!n.is_string() || rr_requirement_parse(n.as_string()->get().c_str(), &r, &e) != RR_OK) {
		rr_error_release(&e);
		return false;
	}
	m = r.marker;
	r.marker = nullptr;
	size_t at = out->len;
	rr_strbuf_adds(out, "Requires-Dist: ");
	rr_requirement_format(&r, out);
	if (m || extra) {
		rr_strbuf_adds(out, "; ");
		if (m && extra)
			rr_strbuf_adds(out, "(");
		if (m)
			rr_marker_format(m, out);
		if (m && extra)
			rr_strbuf_adds(out, ") and ");
		if (extra)
			rr_strbuf_addf(out, "extra == \"%s\"", extra);
	}
	r.marker = m;
	rr_requirement_release(&r);
	/* a quoted marker value may hold a line break: not a header line any more */
	if (memchr(out->buf + at, '\n', out->len - at) ||
	    memchr(out->buf + at, '\r', out->len - at)) {
		out->len = at;
		out->buf[at] = '\0';
		return false;
	}
	rr_strbuf_adds(out, "\n");
	return true;
}

/* a header value: one line, printable */
static bool one_line(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

extern "C" rr_err rr_pyproject_core_metadata(const char *path, const char *text, size_t len,
					     const char *version, const char *requires_python,
					     struct rr_strbuf *out, rr_error *err)
{
	static const char *const unknown = "the dependencies are only known after a build";

	rr_err res = parse_pyproject(path, text, len, err, [&](const toml::table &root) {
		const toml::table *project = root["project"].as_table();
		const toml::node *nm = project ? project->get("name") : nullptr;
		const toml::node *deps = project ? project->get("dependencies") : nullptr;
		const toml::node *opt = project ? project->get("optional-dependencies") : nullptr;
		const toml::node *v = project ? project->get("version") : nullptr;
		const toml::node *rp = project ? project->get("requires-python") : nullptr;
		struct rr_strbuf md = RR_STRBUF_INIT;
		rr_err rc = RR_OK;

		if (!project || !nm || !nm->is_string())
			return rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
					  "no [project] name: %s", unknown);
		if (is_dynamic(*project, "dependencies") ||
		    is_dynamic(*project, "optional-dependencies"))
			return rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
					  "[project] lists them as dynamic: %s", unknown);
		if ((deps && !deps->is_array()) || (opt && !opt->is_table()) ||
		    (v && !v->is_string()) || (rp && !rp->is_string()))
			return rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
					  "[project] is malformed: %s", unknown);
		if (v)
			version = v->as_string()->get().c_str();
		if (rp)
			requires_python = rp->as_string()->get().c_str();
		{
			const std::string &name = nm->as_string()->get();
			struct rr_specset pyspec = {};
			struct rr_version vv = RR_VERSION_INIT;
			rr_error e = RR_ERROR_INIT;
			bool pyok = !requires_python ||
				    rr_specset_parse(requires_python, &pyspec, &e) == RR_OK;
			/* PEP 621: a PEP 440 version ("Version:  " is no metadata at all) */
			bool vok = version && one_line(version) &&
				   rr_version_parse(version, &vv, nullptr) == RR_OK;
			rr_specset_release(&pyspec);
			rr_version_release(&vv);
			rr_error_release(&e);
			if (!rr_name_is_valid(name.data(), name.size()) || !vok || !pyok)
				return rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
						  "[project] is malformed: %s", unknown);
		}
		rr_strbuf_addf(&md, "Metadata-Version: 2.2\nName: %s\nVersion: %s\n",
			       nm->as_string()->get().c_str(), version);
		if (requires_python)
			rr_strbuf_addf(&md, "Requires-Python: %s\n", requires_python);
		for (const toml::node &d : deps ? *deps->as_array() : toml::array{})
			if (!rc && !requires_dist(d, nullptr, &md))
				rc = rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
						"a dependency is not PEP 508: %s", unknown);
		for (auto &&[k, lines] : opt ? *opt->as_table() : toml::table{}) {
			std::string extra = normalize(k.str());
			if (rc)
				break;
			if (!lines.is_array() ||
			    !rr_name_is_valid(k.str().data(), k.str().size())) {
				rc = rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
						"[project] is malformed: %s", unknown);
				break;
			}
			rr_strbuf_addf(&md, "Provides-Extra: %s\n", extra.c_str());
			for (const toml::node &d : *lines.as_array())
				if (!rc && !requires_dist(d, extra.c_str(), &md))
					rc = rr_fail_at(err, RR_E_UNSUPPORTED, path, 0, 0, nullptr,
							"a dependency is not PEP 508: %s", unknown);
		}
		if (!rc) {
			rr_strbuf_reset(out);
			rr_strbuf_add(out, md.buf, md.len);
		}
		rr_strbuf_release(&md);
		return rc;
	});

	/* a pyproject.toml that does not parse: its build would fail, as good as unknown */
	if (res == RR_E_PARSE) {
		if (err) {
			err->code = RR_E_UNSUPPORTED;
			rr_error_prefix(err, "%s: ", unknown);
		}
		res = RR_E_UNSUPPORTED;
	}
	return res;
}

extern "C" void rr_pyproject_info_release(struct rr_pyproject_info *info)
{
	free(info->name);
	free(info->version);
	free(info->requires_python);
	*info = {};
}

/* ---- checks for src/input/tomledit.c's edits ----------------------------- */

namespace {

toml::table *subtable(toml::table &root, const char *const *table, size_t ntable)
{
	toml::table *t = &root;
	for (size_t i = 0; t && i < ntable; i++)
		t = (*t)[table[i]].as_table();
	return t;
}

/* take the keys out, and the tables on the way that hold nothing else and were made for them */
void strip_keys(toml::table &root, const char *const *table, size_t ntable, const char *const *keys,
		size_t nkeys, const toml::table *keep_shape)
{
	toml::table *t = subtable(root, table, ntable);
	if (!t)
		return;
	for (size_t k = 0; k < nkeys; k++)
		t->erase(keys[k]);
	for (size_t depth = ntable; depth > 0; depth--) {
		toml::table *parent = subtable(root, table, depth - 1);
		toml::table *self = subtable(root, table, depth);
		bool existed = keep_shape && subtable(*const_cast<toml::table *>(keep_shape), table, depth);
		if (!parent || !self || !self->empty() || existed)
			break;
		parent->erase(table[depth - 1]);
	}
}

} // namespace

extern "C" rr_err rr_toml_check(const char *path, const char *text, size_t len, rr_error *err)
{
	rr_toml::source src;
	src.path = path;
	src.text = std::string_view(text, len);
	rr_err rc = rr_toml::check_bytes(src.text, path, err);
	if (rc)
		return rc;
	try {
		toml::table root = toml::parse(src.text, std::string_view(path));
		(void)root;
		return RR_OK;
	} catch (const toml::parse_error &e) {
		return src.syntax(e, err);
	} catch (const std::bad_alloc &) {
		fputs("rocm-resolve: out of memory\n", stderr);
		abort();
	}
}

extern "C" rr_err rr_toml_check_edit(const char *path, const char *before, size_t nbefore,
				     const char *after, size_t nafter, const char *const *table,
				     size_t ntable, const char *const *keys,
				     const char *const *const *values, const size_t *nvalues,
				     size_t nkeys, rr_error *err)
{
	if (rr_toml::check_bytes(std::string_view(before, nbefore), path, err) ||
	    rr_toml::check_bytes(std::string_view(after, nafter), path, err))
		return rr_fail(err, RR_E_INTERNAL, "%s: not TOML's bytes: not written", path);
	try {
		toml::table a = toml::parse(std::string_view(before, nbefore), std::string_view(path));
		toml::table b;
		try {
			b = toml::parse(std::string_view(after, nafter), std::string_view(path));
		} catch (const toml::parse_error &e) {
			std::string d(e.description());
			return rr_fail(err, RR_E_INTERNAL,
				       "%s: the edited file would not parse (%s at line %u): not written",
				       path, d.c_str(), (unsigned)e.source().begin.line);
		}
		toml::table *bt = subtable(b, table, ntable);
		for (size_t k = 0; k < nkeys; k++) {
			if (!values[k])
				continue;
			/* the strings values[k] and no others, in any order (the user's entries stay
			 * where they are) */
			const toml::array *arr = bt ? (*bt)[keys[k]].as_array() : nullptr;
			/* no array holds no entry: right when none was intended (the key not
			 * written) */
			if (!arr && nvalues[k] == 0 && !(bt && bt->contains(keys[k])))
				continue;
			bool same = arr != nullptr;
			for (size_t i = 0; same && i < arr->size(); i++) {
				const toml::node *n = arr->get(i);
				same = n && n->is_string();
				bool known = false;
				for (size_t j = 0; same && !known && j < nvalues[k]; j++)
					known = n->as_string()->get() == values[k][j];
				same = same && known;
			}
			for (size_t j = 0; same && j < nvalues[k]; j++) {
				bool there = false;
				for (size_t i = 0; !there && i < arr->size(); i++)
					there = arr->get(i)->as_string()->get() == values[k][j];
				same = there;
			}
			if (!same)
				return rr_fail(err, RR_E_INTERNAL,
					       "%s: the edited file would not hold the intended '%s': "
					       "not written",
					       path, keys[k]);
		}
		toml::table a_orig = a;
		/* the keys out of both; the tables only the edit made, out of the new one */
		strip_keys(a, table, ntable, keys, nkeys, &a_orig);
		strip_keys(b, table, ntable, keys, nkeys, &a_orig);
		if (!(a == b))
			return rr_fail(err, RR_E_INTERNAL,
				       "%s: the edit would change more than the keys it owns: not "
				       "written",
				       path);
		return RR_OK;
	} catch (const toml::parse_error &e) {
		rr_toml::source src;
		src.path = path;
		src.text = std::string_view(before, nbefore);
		return src.syntax(e, err);
	} catch (const std::bad_alloc &) {
		fputs("rocm-resolve: out of memory\n", stderr);
		abort();
	}
}

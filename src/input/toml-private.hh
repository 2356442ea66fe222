/*
 * toml-private.hh - what the toml++ files of src/input share: a source text that
 * maps toml++ positions back to lines for error messages. Include only from the
 * C++ files that use toml++ (pyproject.cc, lockfile.cc); nothing outside src/input.
 */
#ifndef RR_INPUT_TOML_PRIVATE_HH
#define RR_INPUT_TOML_PRIVATE_HH

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

extern "C" {
#include "rocm-resolve/error.h"
}

namespace rr_toml {

/* one TOML document being read: its path and bytes, for "file:line:col" errors */
struct source {
	const char *path;
	std::string_view text;
	/* offset of each line's start, built on first use */
	mutable std::vector<size_t> lstart;

	/* line (1-based) as written, without its line break ("" past the end) */
	std::string line_text(unsigned line) const
	{
		if (lstart.empty()) {
			lstart.push_back(0);
			for (size_t i = 0; i < text.size(); i++)
				if (text[i] == '\n')
					lstart.push_back(i + 1);
		}
		if (line == 0)
			line = 1;
		if (line > lstart.size())
			return std::string();
		size_t pos = lstart[line - 1];
		size_t end = text.find('\n', pos);
		std::string s(text.substr(pos, end == std::string_view::npos ? end : end - pos));
		if (!s.empty() && s.back() == '\r')
			s.pop_back();
		return s;
	}

	rr_err fail(rr_err code, const toml::node &n, rr_error *err, const std::string &msg) const
	{
		unsigned line = (unsigned)n.source().begin.line;
		unsigned col = (unsigned)n.source().begin.column;
		std::string t = line_text(line);
		return rr_fail_at(err, code, path, line, col, t.c_str(), "%s", msg.c_str());
	}

	/* the column of a string value's first character (after its opening quote or quotes) */
	unsigned string_col(const toml::node &n) const
	{
		unsigned line = (unsigned)n.source().begin.line;
		unsigned qcol = (unsigned)n.source().begin.column;
		std::string lt = line_text(line);
		if (qcol >= 1 && lt.size() >= qcol + 2 &&
		    (lt.compare(qcol - 1, 3, "\"\"\"") == 0 || lt.compare(qcol - 1, 3, "'''") == 0))
			return qcol + 3;
		return qcol + 1;
	}

	/*
	 * a string value that goes into a plan line, an option or a file name: RR_E_PARSE
	 * at its place, naming field, when it holds what could end a line there (a control
	 * character, U+2028/9; a space too when token), as rr_text_check says
	 */
	rr_err check_text(const toml::node &n, const std::string &field, rr_error *err,
			  bool token = false) const
	{
		const std::string &s = n.as_string()->get();
		rr_err rc = rr_text_check(s.data(), s.size(), token, field.c_str(), err);
		if (rc) {
			unsigned line = (unsigned)n.source().begin.line;
			std::string lt = line_text(line);
			rr_error_set_origin(err, path, line, string_col(n), lt.c_str());
		}
		return rc;
	}

	/* a toml++ syntax error as "file:line:col: description" */
	rr_err syntax(const toml::parse_error &e, rr_error *err) const
	{
		unsigned line = (unsigned)e.source().begin.line;
		unsigned col = (unsigned)e.source().begin.column;
		std::string t = line_text(line);
		std::string d(e.description());
		return rr_fail_at(err, RR_E_PARSE, path, line, col, t.c_str(), "%s", d.c_str());
	}

	/* parse the text and hand the table to load(root); a syntax error is
	 * "file:line:col", and no exception leaves for the C side */
	template <class F> rr_err parse(rr_error *err, F &&load) const
	{
		try {
			toml::table root = toml::parse(text, std::string_view(path));
			return load(root);
		} catch (const toml::parse_error &e) {
			return syntax(e, err);
		} catch (const std::bad_alloc &) {
			fputs("rocm-resolve: out of memory\n", stderr);
			abort();
		} catch (const std::exception &e) {
			return rr_fail(err, RR_E_INTERNAL, "%s: %s", path, e.what());
		}
	}
};

} // namespace rr_toml

#endif

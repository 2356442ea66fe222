/*
 * tomledit.h - read and replace one key of a TOML document without touching any
 * other byte: comments, order, layout, quoting and line endings stay as written.
 *
 *   const char *tbl[] = {"tool", "uv"};
 *   struct rr_toml_array a;
 *   rc = rr_tomledit_get_array(path, text, len, tbl, 2, "constraint-dependencies", &a, err);
 *   ... a.found, a.v[i].value, a.v[i].comment ...
 *   rr_toml_array_release(&a);
 *   rc = rr_tomledit_set(path, text, len, tbl, 2, "constraint-dependencies",
 *                        "[\n    \"numpy<2\",\n]", &out, &outlen, err);
 *
 * The document must be valid TOML (the caller checks it with a real parser first:
 * rr_pyproject_check_edit). The key is found however the file spells it: in a
 * [tool.uv] table, as a dotted key (`tool.uv.x = ...` at the top, `uv.x = ...` in
 * [tool]), quoted or bare. Setting it replaces only its value's bytes; a missing key
 * is added after the last key of the table it belongs to (in the same dotted form,
 * with the same indentation), a missing [tool.uv] table before its first sub-table or
 * at the end. The value text uses "\n"; it is written with the document's line ending
 * (CRLF when the document's first line ends so). A table defined as an inline table
 * (`uv = { ... }`) is not edited: RR_E_UNSUPPORTED naming where it is.
 */
#ifndef RR_TOMLEDIT_H
#define RR_TOMLEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

/* one string of an array, as written */
struct rr_toml_entry {
	char *value;   /* the string, escapes decoded */
	char *comment; /* the comment after it on its line, '#' and blanks stripped; NULL when none */
	unsigned line, col;
};

struct rr_toml_array {
	bool found; /* the key exists (its value may be empty) */
	struct rr_toml_entry *v;
	size_t n;
	unsigned line, col; /* of the value */
};

rr_err rr_tomledit_get_array(const char *path, const char *text, size_t len,
			     const char *const *table, size_t ntable, const char *key,
			     struct rr_toml_array *ret, rr_error *err) RR_WUR;
/* *ret: a new document (malloc'd, NUL-terminated, *retlen bytes) */
rr_err rr_tomledit_set(const char *path, const char *text, size_t len, const char *const *table,
		       size_t ntable, const char *key, const char *value, char **ret,
		       size_t *retlen, rr_error *err) RR_WUR;
/*
 * the tool's own entries of the array at table.key: those whose comment (right after
 * the string and its comma, on the same line) starts with mark. They are replaced by
 * lines (each one entry as TOML, `"torch",  # rocm-resolve: why`, without indentation
 * or line break), put where the first of them was, else at the array's start (on lines
 * of their own before the user's first entry when that sits on the '[' line), indented
 * as the user's entries are. Every other byte stays: the user's entries, their comments,
 * commented-out entries, blank lines, the layout, a comment after the ']'. A missing key
 * is added as rr_tomledit_set adds it (nothing when there are no lines). With the lines
 * it made, a second call changes nothing.
 */
rr_err rr_tomledit_set_ours(const char *path, const char *text, size_t len,
			    const char *const *table, size_t ntable, const char *key,
			    const char *mark, const char *const *lines, size_t nlines, char **ret,
			    size_t *retlen, rr_error *err) RR_WUR;
void rr_toml_array_release(struct rr_toml_array *a);

/* text parses as TOML (toml++): RR_E_PARSE with file:line:col otherwise */
rr_err rr_toml_check(const char *path, const char *text, size_t len, rr_error *err) RR_WUR;
/*
 * an edit did what it meant and nothing else, as a real parser sees it: after holds,
 * at table.keys[k], the strings values[k] and no others, in any order (or, with NULL
 * values[k], what before held there), and before and after are equal once those keys are taken out
 * (with the tables the edit created for them); RR_E_INTERNAL naming what differs
 */
rr_err rr_toml_check_edit(const char *path, const char *before, size_t nbefore, const char *after,
			  size_t nafter, const char *const *table, size_t ntable,
			  const char *const *keys, const char *const *const *values,
			  const size_t *nvalues, size_t nkeys, rr_error *err) RR_WUR;

/* a TOML basic string for s (quotes included), escaping what must be */
char *rr_toml_quote(const char *s);

#endif

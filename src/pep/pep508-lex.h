/*
 * pep508-lex.h - private: the context-sensitive tokenizer shared by marker.c
 * and requirement.c.
 *
 * Each rr_lex_* function tests one token kind at lx->pos and returns the
 * end offset of the match, or (size_t)-1 when the token does not match
 * there; nothing is consumed. The token rules reproduce packaging's
 * _tokenizer.DEFAULT_RULES (regular expressions tried with re.match), with
 * Python's semantics for \s (Unicode white space), \b and $ (which also
 * matches before a final newline), so that both accept the same inputs and
 * report errors at the same offsets. Non-ASCII bytes count as word
 * characters for \b.
 */
#ifndef RR_PEP508_LEX_H
#define RR_PEP508_LEX_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"

#define RR_LEX_NO ((size_t)-1)

struct rr_lex {
	const char *s;
	size_t n;
	size_t pos;
};

/* [ \t]* */
void rr_lex_ws(struct rr_lex *lx);
bool rr_lex_end(const struct rr_lex *lx);
/* \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b */
size_t rr_lex_identifier(const struct rr_lex *lx);
/* Specifier operator + version, as packaging's SPECIFIER rule */
size_t rr_lex_specifier(const char *s, size_t n, size_t pos);
/*
 * would packaging's Specifier(s) accept all of s? On success the operator
 * ends at *oe (it starts after leading white space) and [*vs, *ve) is the
 * stripped version
 */
bool rr_lex_spec_valid(const char *s, size_t n, size_t *oe, size_t *vs, size_t *ve);
/* byte length of the Unicode white-space character at s[i] (Python's \s), 0 if none */
size_t rr_lex_pyspace(const char *s, size_t n, size_t i);
/* Python's str.strip(): trim Unicode white space at both ends */
void rr_lex_strip(const char *s, size_t n, size_t *start, size_t *end);

/* failure at byte offset pos of the input (column pos + 1) */
rr_err rr_lex_fail(rr_error *err, size_t pos, const char *fmt, ...) RR_PRINTF(3, 4);

/*
 * parse a marker expression starting at lx->pos (packaging's _parse_marker:
 * stops before anything that is not 'and' / 'or'), then apply PEP 685
 * normalisation of the first item as packaging does
 */
rr_err rr_marker_parse_lex(struct rr_lex *lx, struct rr_marker **ret, rr_error *err) RR_WUR;

#endif

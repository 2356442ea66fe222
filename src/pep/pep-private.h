/*
 * pep-private.h - helpers shared by the src/pep modules (and their tests).
 *
 * Python's str.strip() and the "\s" of packaging's regular expressions both
 * treat every Unicode whitespace code point as blank, not only ASCII: a
 * no-break space (U+00A0) around "1.0" still parses. rr_pep_space_len() says
 * how many bytes of UTF-8 whitespace start at s, so every parser in this
 * layer skips exactly what packaging skips.
 */
#ifndef RR_PEP_PRIVATE_H
#define RR_PEP_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

/* bytes of one whitespace code point (as str.isspace()) at s, 0 if none */
size_t rr_pep_space_len(const char *s, size_t n);
/* advance *i past whitespace in s[0..n) */
void rr_pep_skip_space(const char *s, size_t n, size_t *i);
/* shrink [*s, *s + *n) by leading and trailing whitespace (str.strip()) */
void rr_pep_strip(const char **s, size_t *n);

static inline bool rr_pep_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline char rr_pep_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static inline bool rr_pep_is_alnum(char c)
{
	char l = rr_pep_lower(c);
	return rr_pep_is_digit(c) || (l >= 'a' && l <= 'z');
}

struct rr_version;
/* rr_version_parse_n(), with surrounding whitespace allowed only when space is true */
rr_err rr_pep_version_parse(const char *s, size_t len, bool space, struct rr_version *ret,
			    rr_error *err) RR_WUR;

/* rr_fail() plus a 1-based column (inside the parsed fragment) */
rr_err rr_pep_fail_col(rr_error *err, rr_err code, size_t col, const char *fmt, ...)
	RR_PRINTF(4, 5);

#endif

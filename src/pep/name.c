/*
 * name.c - PEP 503 name normalisation, PEP 508 name validity, and the small
 * lexical helpers (Unicode whitespace, column errors) the pep layer shares.
 */
#include <string.h>

#include "pep/pep-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

size_t rr_pep_space_len(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n == 0)
		return 0;
	/* \t \n \v \f \r and the ASCII separators FS GS RS US, as str.isspace() */
	if (u[0] == ' ' || (u[0] >= 0x09 && u[0] <= 0x0d) || (u[0] >= 0x1c && u[0] <= 0x1f))
		return 1;
	if (u[0] < 0x80)
		return 0;
	if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
		return 2; /* NEL, NO-BREAK SPACE */
	if (n >= 3 && u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
		return 3; /* OGHAM SPACE MARK */
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x80 &&
	    ((u[2] >= 0x80 && u[2] <= 0x8a) || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
		return 3; /* U+2000..U+200A, LINE/PARAGRAPH SEPARATOR, NARROW NBSP */
	if (n >= 3 && u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
		return 3; /* MEDIUM MATHEMATICAL SPACE */
	if (n >= 3 && u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
		return 3; /* IDEOGRAPHIC SPACE */
	return 0;
}

void rr_pep_skip_space(const char *s, size_t n, size_t *i)
{
	size_t k;

	while (*i < n && (k = rr_pep_space_len(s + *i, n - *i)) != 0)
		*i += k;
}

/* true when the n bytes before end form one whitespace code point */
static size_t space_len_before(const char *s, size_t end)
{
	for (size_t k = 1; k <= 3 && k <= end; k++)
		if (rr_pep_space_len(s + end - k, k) == k)
			return k;
	return 0;
}

void rr_pep_strip(const char **s, size_t *n)
{
	size_t i = 0;
	size_t k;

	rr_pep_skip_space(*s, *n, &i);
	*s += i;
	*n -= i;
	while (*n > 0 && (k = space_len_before(*s, *n)) != 0)
		*n -= k;
}

rr_err rr_pep_fail_col(rr_error *err, rr_err code, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rr_vfail(err, code, fmt, ap);
	va_end(ap);
	if (err)
		err->col = (unsigned)col;
	return code;
}

static bool is_name_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

void rr_name_normalize_into(const char *name, size_t len, struct rr_strbuf *out)
{
	rr_strbuf_grow(out, len);
	for (size_t i = 0; i < len; i++) {
		if (is_name_sep(name[i])) {
			/* a run of separators collapses into one '-' */
			while (i + 1 < len && is_name_sep(name[i + 1]))
				i++;
			rr_strbuf_addch(out, '-');
		} else {
			rr_strbuf_addch(out, rr_pep_lower(name[i]));
		}
	}
}

char *rr_name_normalize_n(const char *name, size_t len)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_name_normalize_into(name, len, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

char *rr_name_normalize(const char *name)
{
	return rr_name_normalize_n(name, strlen(name));
}

bool rr_name_is_valid(const char *name, size_t len)
{
	if (len == 0 || !rr_pep_is_alnum(name[0]) || !rr_pep_is_alnum(name[len - 1]))
		return false;
	for (size_t i = 1; i + 1 < len; i++)
		if (!rr_pep_is_alnum(name[i]) && !is_name_sep(name[i]))
			return false;
	return true;
}

bool rr_name_eq(const char *a, const char *b)
{
	/* walk both names in normalised form without allocating */
	size_t i = 0;
	size_t j = 0;

	for (;;) {
		char ca;
		char cb;

		if (is_name_sep(a[i])) {
			while (is_name_sep(a[i]))
				i++;
			ca = '-';
		} else {
			ca = rr_pep_lower(a[i]);
			if (a[i])
				i++;
		}
		if (is_name_sep(b[j])) {
			while (is_name_sep(b[j]))
				j++;
			cb = '-';
		} else {
			cb = rr_pep_lower(b[j]);
			if (b[j])
				j++;
		}
		if (ca != cb)
			return false;
		if (ca == '\0')
			return true;
	}
}

uint64_t rr_name_hash(const char *name)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; name[i];) {
		unsigned char c;
		if (is_name_sep(name[i])) {
			while (is_name_sep(name[i]))
				i++;
			c = '-';
		} else {
			c = (unsigned char)rr_pep_lower(name[i++]);
		}
		h = (h ^ c) * 0x100000001b3u;
	}
	return h;
}

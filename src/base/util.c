#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/util.h"

static void oom(size_t n)
{
	fprintf(stderr, "rocm-resolve: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *rr_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *rr_xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *rr_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *rr_xstrdup(const char *s)
{
	return rr_xstrndup(s, strlen(s));
}

char *rr_xstrndup(const char *s, size_t n)
{
	char *p = rr_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *rr_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_list ap2;
	char probe[1];
	int n;
	char *p;

	va_start(ap, fmt);
	va_copy(ap2, ap);
	/* gcc's sanitizer builds see a NULL-format path otherwise (-Wformat-truncation) */
	if (!fmt)
		abort();
	n = vsnprintf(probe, sizeof(probe), fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	p = rr_xmalloc((size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	return p;
}

void rr_xgrow(void **items, size_t *cap, size_t elem, size_t need)
{
	size_t ncap;

	if (need <= *cap)
		return;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			oom(SIZE_MAX);
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		oom(SIZE_MAX);
	*items = rr_xrealloc(*items, ncap * elem);
	*cap = ncap;
}

void *rr_free(void *p)
{
	free(p);
	return NULL;
}

bool rr_str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool rr_str_endswith(const char *s, const char *suffix)
{
	size_t ls = strlen(s);
	size_t lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int rr_str_casecmp(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = lower((unsigned char)*a);
		int cb = lower((unsigned char)*b);
		if (ca != cb || !ca)
			return ca - cb;
	}
}

bool rr_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool rr_parse_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d;
		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*ret = v;
	return true;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

static bool bytes_eq(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

size_t rr_strv_dedupe(char **v, size_t n, bool (*eq)(const char *, const char *),
		      uint64_t (*hash)(const char *))
{
	size_t cap = 16, out = 0;
	size_t *slots; /* index + 1 of a kept string, 0 when empty */

	if (n < 2)
		return n;
	if (!eq) {
		eq = bytes_eq;
		hash = fnv1a;
	}
	while (cap < n * 2)
		cap *= 2;
	slots = rr_xcalloc(cap, sizeof(*slots));
	for (size_t i = 0; i < n; i++) {
		size_t at = (size_t)hash(v[i]) & (cap - 1);
		bool dup = false;
		for (; slots[at]; at = (at + 1) & (cap - 1))
			if (eq(v[slots[at] - 1], v[i])) {
				dup = true;
				break;
			}
		if (dup) {
			free(v[i]);
			continue;
		}
		v[out] = v[i];
		slots[at] = ++out;
	}
	free(slots);
	return out;
}

int rr_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t rr_text_unsafe(const char *s, size_t n, bool token, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n; i++) {
		uint32_t c = p[i];
		if (c < 0x20 || c == 0x7f || (token && c == ' ')) {
			/* C0, DEL; a space where one token is wanted */
		} else if (c == 0xc2 && i + 1 < n && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f) {
			c = p[i + 1]; /* C1: U+0080..U+009F, NEL among them */
		} else if (c == 0xe2 && i + 2 < n && p[i + 1] == 0x80 &&
			   (p[i + 2] == 0xa8 || p[i + 2] == 0xa9)) {
			/* U+2028 LINE, U+2029 PARAGRAPH SEPARATOR */
			c = 0x2000 + (p[i + 2] - 0x80);
		} else {
			continue;
		}
		if (cp)
			*cp = c;
		return i;
	}
	return SIZE_MAX;
}

/*
 * util.h - allocation wrappers, cleanup macros and small helpers.
 *
 * Every allocation in rocm-resolve goes through rr_x*(): on out-of-memory they
 * print one line to stderr and abort(), so callers never check for NULL and
 * error paths exist only for real failures.
 *
 * Scope-bound cleanup uses __attribute__((cleanup)):
 *   RR_AUTOFREE char *s = rr_xstrdup("x");   freed when s leaves scope
 *   return RR_STEAL(s);                       hands ownership to the caller
 */
#ifndef RR_UTIL_H
#define RR_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define RR_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define RR_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define RR_WUR __attribute__((warn_unused_result))
#define RR_UNUSED __attribute__((unused))

void *rr_xmalloc(size_t n);
void *rr_xcalloc(size_t nmemb, size_t size);
void *rr_xrealloc(void *p, size_t n);
char *rr_xstrdup(const char *s);
char *rr_xstrndup(const char *s, size_t n);
char *rr_xasprintf(const char *fmt, ...) RR_PRINTF(1, 2);
/* grows *items (of elem bytes each) so that at least need fit; doubles capacity */
void rr_xgrow(void **items, size_t *cap, size_t elem, size_t need);
/* NULL-safe free returning NULL: p = rr_free(p); */
void *rr_free(void *p);

static inline void rr_freep(void *pp)
{
	void **p = (void **)pp;
	rr_free(*p);
	*p = NULL;
}

#define RR_AUTOFREE __attribute__((cleanup(rr_freep)))
#define RR_STEAL(p)                                                                                \
	({                                                                                         \
		__typeof__(p) rr_steal_tmp_ = (p);                                                 \
		(p) = NULL;                                                                        \
		rr_steal_tmp_;                                                                     \
	})

/* append one element to a growable array: RR_PUSH(arr, n, cap) = value; */
#define RR_PUSH(arr, n, cap)                                                                       \
	(*({                                                                                       \
		rr_xgrow((void **)&(arr), &(cap), sizeof(*(arr)), (n) + 1);                        \
		&(arr)[(n)++];                                                                     \
	}))

/* qsort that accepts an empty (possibly NULL) array, which qsort itself must not get */
static inline void rr_qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

bool rr_str_startswith(const char *s, const char *prefix);
bool rr_str_endswith(const char *s, const char *suffix);
/* ASCII-only case-insensitive compare (locale-independent) */
int rr_str_casecmp(const char *a, const char *b);
bool rr_str_eq(const char *a, const char *b); /* NULL-safe equality */
/* the value of a hex digit (either case), -1 when c is none */
int rr_hex_digit(int c);
/*
 * drop the later duplicates from v[0..n) (malloc'd strings; duplicates are freed), keeping
 * the first of each in order; eq == NULL compares bytes, else eq(a, b) with hash(s) equal
 * for equal strings (e.g. PEP 503 names). Expected linear time. Returns the new count.
 */
size_t rr_strv_dedupe(char **v, size_t n, bool (*eq)(const char *, const char *),
		      uint64_t (*hash)(const char *));
/*
 * the one rule for text read from structured inputs (TOML, JSON) that becomes part of a
 * plan line, an option or a file name: the offset of its first character that could end
 * a line there or is no text - a C0 control character (NUL and tab among them), DEL, a C1
 * control character (U+0085 among them), U+2028, U+2029, and a space when token (a URL
 * that is an option's value) - with that character's code point in *cp (may be NULL);
 * SIZE_MAX when there is none. pip splits requirement files with str.splitlines(): VT,
 * FF, \x1c-\x1e, U+0085 and U+2028/9 end a line as LF and CR do.
 */
size_t rr_text_unsafe(const char *s, size_t n, bool token, uint32_t *cp);
/* parse a decimal unsigned integer occupying all of [s, s+len); false on overflow/garbage */
bool rr_parse_u64(const char *s, size_t len, uint64_t *ret);

/*
 * the userinfo of the first URL in text, the one rule every caller uses: it sits between
 * "://" and the last '@' that comes before any '/', '?', '#', whitespace or quote.
 * Returns the "://" (NULL when text holds no URL); *ret_start is the byte after it and
 * *ret_at the '@' (NULL when the URL has no userinfo).
 */
const char *rr_url_userinfo(const char *text, const char **ret_start, const char **ret_at);
/* [s, end) is made only of ${VAR} references and ':' (and is not empty) */
bool rr_url_only_variables(const char *s, const char *end);
/*
 * copy of text with the userinfo of every URL in it ("https://user:pass@host")
 * replaced by "***@"; used for every message and comment that shows an index URL.
 * A secret given as ${VAR} references is no secret and stays ("__token__:${TOKEN}@").
 * The caller frees the result.
 */
char *rr_redact_credentials(const char *text);
/* the same, pip's way (direct_url.json): the user kept, the password "****" */
char *rr_redact_password(const char *text);
/*
 * copy of text with the userinfo of every URL in it removed, for what the
 * installer is given (a plan): "https://user:pass@host" becomes "https://host";
 * userinfo whose secret is ${VAR} references ("${TOKEN}@", "__token__:${TOKEN}@") is
 * kept: the installers expand it. *removed (may be NULL) says whether anything was
 * removed. Caller frees.
 */
char *rr_strip_credentials(const char *text, bool *removed);
/*
 * url without its userinfo (*ret_url, allocated) and that userinfo percent-decoded as
 * "user:password" for the transfer (*ret_userpwd, NULL when none); either may be NULL
 */
void rr_url_split_userinfo(const char *url, char **ret_url, char **ret_userpwd);

#endif

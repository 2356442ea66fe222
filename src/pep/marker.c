/*
 * marker.c - PEP 508 environment markers, bit-compatible with
 * packaging.markers 23.0 (see marker.h), plus the tokenizer that
 * requirement.c shares (pep508-lex.h).
 *
 * The tree mirrors packaging's nested lists: a list is a sequence of items
 * joined by 'and' / 'or', an item is either a comparison or a parenthesised
 * list. Keeping that shape (instead of a binary and/or tree) is what makes
 * str(Marker) and the evaluation order come out identical, quirks included:
 * every comparison is evaluated (no short-circuit, so an error anywhere is an
 * error), and only the first top-level comparison gets its extra value
 * normalised in the stored form.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep/pep508-lex.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

/* nesting deeper than this is refused instead of risking the C stack */
#define MAX_DEPTH 100

/* ------------------------------------------------------------------------ */
/* lexical helpers                                                          */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_digit(c) || is_alpha(c);
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Python's \w, approximated for non-ASCII: every non-ASCII byte is a letter */
static bool is_word(unsigned char c)
{
	return is_alnum((char)c) || c == '_' || c >= 0x80;
}

size_t rr_lex_pyspace(const char *s, size_t n, size_t i)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned cp;

	if (i >= n)
		return 0;
	if ((u[i] >= 0x09 && u[i] <= 0x0d) || (u[i] >= 0x1c && u[i] <= 0x20))
		return 1;
	if (u[i] == 0xc2 && i + 1 < n && (u[i + 1] == 0x85 || u[i + 1] == 0xa0))
		return 2;
	if (u[i] == 0xe1 && i + 2 < n && u[i + 1] == 0x9a && u[i + 2] == 0x80)
		return 3; /* U+1680 */
	if ((u[i] == 0xe2 || u[i] == 0xe3) && i + 2 < n) {
		cp = ((u[i] & 0x0fu) << 12) | ((u[i + 1] & 0x3fu) << 6) | (u[i + 2] & 0x3fu);
		if ((u[i + 1] & 0xc0) != 0x80 || (u[i + 2] & 0xc0) != 0x80)
			return 0;
		if ((cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
		    cp == 0x202f || cp == 0x205f || cp == 0x3000)
			return 3;
	}
	return 0;
}

static size_t skip_pyspace(const char *s, size_t n, size_t i)
{
	size_t k;

	while ((k = rr_lex_pyspace(s, n, i)) != 0)
		i += k;
	return i;
}

void rr_lex_strip(const char *s, size_t n, size_t *start, size_t *end)
{
	size_t b = skip_pyspace(s, n, *start), e = *end;

	/* scan forward so multi-byte spaces are recognised from their first byte */
	for (size_t i = b, last = b; i <= e; ) {
		size_t k = i < e ? rr_lex_pyspace(s, e, i) : 0;
		if (i == e) {
			e = last;
			break;
		}
		if (k)
			i += k;
		else
			last = ++i;
	}
	if (e < b)
		e = b;
	*start = b;
	*end = e;
}

void rr_lex_ws(struct rr_lex *lx)
{
	while (lx->pos < lx->n && (lx->s[lx->pos] == ' ' || lx->s[lx->pos] == '\t'))
		lx->pos++;
}

/* Python's $: end of input, or just before a final newline */
bool rr_lex_end(const struct rr_lex *lx)
{
	return lx->pos == lx->n || (lx->pos + 1 == lx->n && lx->s[lx->pos] == '\n');
}

static bool boundary(const char *s, size_t n, size_t i)
{
	bool before = i > 0 && is_word((unsigned char)s[i - 1]);
	bool after = i < n && is_word((unsigned char)s[i]);
	return before != after;
}

/* \bWORD\b at pos */
static size_t lex_word(const struct rr_lex *lx, const char *w)
{
	size_t k = strlen(w);

	if (lx->n - lx->pos < k || memcmp(lx->s + lx->pos, w, k) != 0)
		return RR_LEX_NO;
	if (!boundary(lx->s, lx->n, lx->pos) || !boundary(lx->s, lx->n, lx->pos + k))
		return RR_LEX_NO;
	return lx->pos + k;
}

size_t rr_lex_identifier(const struct rr_lex *lx)
{
	size_t i = lx->pos, e;

	if (i >= lx->n || !is_alnum(lx->s[i]) || !boundary(lx->s, lx->n, i))
		return RR_LEX_NO;
	e = i + 1;
	while (e < lx->n && (is_alnum(lx->s[e]) || lx->s[e] == '.' || lx->s[e] == '_' ||
			     lx->s[e] == '-'))
		e++;
	/* the regex backtracks until the trailing \b holds */
	for (; e > i; e--)
		if (boundary(lx->s, lx->n, e))
			return e;
	return RR_LEX_NO;
}

rr_err rr_lex_fail(rr_error *err, size_t pos, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return RR_E_PARSE;
	va_start(ap, fmt);
	rr_vfail(err, RR_E_PARSE, fmt, ap);
	va_end(ap);
	err->col = (unsigned)(pos + 1);
	return RR_E_PARSE;
}

/* ------------------------------------------------------------------------ */
/* packaging's Specifier regex (operator + version), IGNORECASE            */

static size_t digits(const char *s, size_t n, size_t i)
{
	while (i < n && is_digit(s[i]))
		i++;
	return i;
}

static bool is_sep(const char *s, size_t n, size_t i)
{
	return i < n && (s[i] == '-' || s[i] == '_' || s[i] == '.');
}

/* case-insensitive keyword at i; returns end or RR_LEX_NO */
static size_t kw(const char *s, size_t n, size_t i, const char *w)
{
	size_t k = strlen(w);

	if (n - i < k)
		return RR_LEX_NO;
	for (size_t j = 0; j < k; j++)
		if (lower(s[i + j]) != w[j])
			return RR_LEX_NO;
	return i + k;
}

/* first keyword of the list that matches at i (alternation order) */
static size_t kw_any(const char *s, size_t n, size_t i, const char *const *ws, size_t nws,
		     size_t *which)
{
	for (size_t k = 0; k < nws; k++) {
		size_t e = kw(s, n, i, ws[k]);
		if (e != RR_LEX_NO) {
			if (which)
				*which = k;
			return e;
		}
	}
	return RR_LEX_NO;
}

static const char *const pre_words[] = {"alpha", "beta", "preview", "pre", "a", "b", "c", "rc"};
static const char *const post_words[] = {"post", "rev", "r"};

/* [-_\.]?(pre-word)[-_\.]?[0-9]* */
static size_t opt_pre(const char *s, size_t n, size_t i)
{
	size_t j = i, e;

	if (is_sep(s, n, j))
		j++;
	e = kw_any(s, n, j, pre_words, RR_ARRAY_LEN(pre_words), NULL);
	if (e == RR_LEX_NO)
		return i;
	if (is_sep(s, n, e))
		e++;
	return digits(s, n, e);
}

/* (?:-[0-9]+)|(?:[-_\.]?(post|rev|r)[-_\.]?[0-9]*) */
static size_t opt_post(const char *s, size_t n, size_t i)
{
	size_t j = i, e;

	if (i + 1 < n && s[i] == '-' && is_digit(s[i + 1]))
		return digits(s, n, i + 1);
	if (is_sep(s, n, j))
		j++;
	e = kw_any(s, n, j, post_words, RR_ARRAY_LEN(post_words), NULL);
	if (e == RR_LEX_NO)
		return i;
	if (is_sep(s, n, e))
		e++;
	return digits(s, n, e);
}

/* [-_\.]?dev[-_\.]?[0-9]* */
static size_t opt_dev(const char *s, size_t n, size_t i)
{
	size_t j = i, e;

	if (is_sep(s, n, j))
		j++;
	e = kw(s, n, j, "dev");
	if (e == RR_LEX_NO)
		return i;
	if (is_sep(s, n, e))
		e++;
	return digits(s, n, e);
}

/* \+[a-z0-9]+(?:[-_\.][a-z0-9]+)* */
static size_t opt_local(const char *s, size_t n, size_t i)
{
	size_t e;

	if (i + 1 >= n || s[i] != '+' || !is_alnum(s[i + 1]))
		return i;
	e = i + 1;
	while (e < n && is_alnum(s[e]))
		e++;
	while (is_sep(s, n, e) && e + 1 < n && is_alnum(s[e + 1])) {
		e++;
		while (e < n && is_alnum(s[e]))
			e++;
	}
	return e;
}

enum spec_alt { ALT_EQ, ALT_COMPAT, ALT_OTHER };

/* \s* v? (?:[0-9]+!)? [0-9]+(?:\.[0-9]+)* ... for the B/C/D alternatives */
static size_t version_body(const char *s, size_t n, size_t i, enum spec_alt alt)
{
	size_t start, e, rel;

	i = skip_pyspace(s, n, i);
	if (i < n && lower(s[i]) == 'v')
		i++;
	start = i;
	for (int with_epoch = 1; with_epoch >= 0; with_epoch--) {
		i = start;
		if (with_epoch) {
			e = digits(s, n, i);
			if (e == i || e >= n || s[e] != '!')
				continue;
			i = e + 1;
		}
		e = digits(s, n, i);
		if (e == i)
			continue;
		rel = 1;
		while (e + 1 < n && s[e] == '.' && is_digit(s[e + 1])) {
			e = digits(s, n, e + 1);
			rel++;
		}
		if (alt == ALT_COMPAT && rel < 2)
			continue;
		if (alt == ALT_EQ && e + 1 < n && s[e] == '.' && s[e + 1] == '*')
			return e + 2;
		e = opt_pre(s, n, e);
		e = opt_post(s, n, e);
		e = opt_dev(s, n, e);
		if (alt == ALT_EQ)
			e = opt_local(s, n, e);
		return e;
	}
	return RR_LEX_NO;
}

/* (?<====)\s*[^\s;)]* */
static size_t arbitrary_body(const char *s, size_t n, size_t i)
{
	i = skip_pyspace(s, n, i);
	while (i < n && s[i] != ';' && s[i] != ')' && !rr_lex_pyspace(s, n, i))
		i++;
	return i;
}

static const char *const spec_ops[] = {"~=", "==", "!=", "<=", ">=", "<", ">", "==="};

static bool behind(const char *s, size_t p, const char *w)
{
	size_t k = strlen(w);
	return p >= k && memcmp(s + p - k, w, k) == 0;
}

/*
 * every way the regex can match at pos, in the order the regex engine tries
 * them; each yields the greedy end of that branch. Calls visit() until it
 * returns true; returns that end, or RR_LEX_NO.
 */
static size_t spec_branches(const char *s, size_t n, size_t pos,
			    bool (*visit)(const char *s, size_t n, size_t end, void *ctx), void *ctx,
			    size_t *opend)
{
	for (size_t k = 0; k < RR_ARRAY_LEN(spec_ops); k++) {
		size_t ol = strlen(spec_ops[k]), p = pos + ol, e;

		if (n - pos < ol || memcmp(s + pos, spec_ops[k], ol) != 0)
			continue;
		if (behind(s, p, "===")) {
			e = arbitrary_body(s, n, p);
			if (visit(s, n, e, ctx))
				goto found;
		}
		if (behind(s, p, "==") || behind(s, p, "!=")) {
			e = version_body(s, n, p, ALT_EQ);
			if (e != RR_LEX_NO && visit(s, n, e, ctx))
				goto found;
		}
		if (behind(s, p, "~=")) {
			e = version_body(s, n, p, ALT_COMPAT);
			if (e != RR_LEX_NO && visit(s, n, e, ctx))
				goto found;
		}
		if (!behind(s, p, "==") && !behind(s, p, "!=") && !behind(s, p, "~=")) {
			e = version_body(s, n, p, ALT_OTHER);
			if (e != RR_LEX_NO && visit(s, n, e, ctx))
				goto found;
		}
		continue;
found:
		if (opend)
			*opend = p;
		return e;
	}
	return RR_LEX_NO;
}

static bool visit_any(const char *s, size_t n, size_t end, void *ctx)
{
	(void)s, (void)n, (void)end, (void)ctx;
	return true;
}

static bool visit_to_end(const char *s, size_t n, size_t end, void *ctx)
{
	(void)ctx;
	return skip_pyspace(s, n, end) == n;
}

size_t rr_lex_specifier(const char *s, size_t n, size_t pos)
{
	return spec_branches(s, n, pos, visit_any, NULL, NULL);
}

bool rr_lex_spec_valid(const char *s, size_t n, size_t *oe, size_t *vs, size_t *ve)
{
	size_t start = skip_pyspace(s, n, 0), e;

	e = spec_branches(s, n, start, visit_to_end, NULL, oe);
	if (e == RR_LEX_NO)
		return false;
	*vs = *oe;
	*ve = e;
	rr_lex_strip(s, n, vs, ve);
	return true;
}

/* ------------------------------------------------------------------------ */
/* non-allocating Version() for the environment side of a comparison        */

/*
 * 1: parsed into v (release in rel[]), 0: not a valid version, -1: valid
 * shape but needs the full parser (local label, huge numbers, long release)
 */
static bool num(const char *s, size_t a, size_t b, uint64_t *out)
{
	if (a == b) {
		*out = 0;
		return true;
	}
	return rr_parse_u64(s + a, b - a, out);
}

static int version_fast(const char *s, size_t n, struct rr_version *v, uint64_t *rel,
			size_t relcap)
{
	size_t i = skip_pyspace(s, n, 0), e, j, w;
	uint64_t x;

	*v = (struct rr_version)RR_VERSION_INIT;
	if (i < n && lower(s[i]) == 'v')
		i++;
	e = digits(s, n, i);
	if (e > i && e < n && s[e] == '!' && e + 1 < n && is_digit(s[e + 1])) {
		if (!num(s, i, e, &v->epoch))
			return -1;
		i = e + 1;
	}
	e = digits(s, n, i);
	if (e == i)
		return 0;
	v->release = rel;
	for (;;) {
		if (v->nrelease == relcap || !num(s, i, e, &x))
			return -1;
		rel[v->nrelease++] = x;
		if (e + 1 < n && s[e] == '.' && is_digit(s[e + 1])) {
			i = e + 1;
			e = digits(s, n, i);
		} else {
			break;
		}
	}
	i = e;
	/* pre: [-_\.]?(a|b|c|rc|alpha|beta|pre|preview)[-_\.]?[0-9]* (longest word wins) */
	j = i + (is_sep(s, n, i) ? 1 : 0);
	{
		static const char *const words[] = {"preview", "alpha", "beta", "pre", "rc",
						    "a", "b", "c"};
		static const enum rr_pre_kind kinds[] = {RR_PRE_RC, RR_PRE_A, RR_PRE_B, RR_PRE_RC,
							 RR_PRE_RC, RR_PRE_A, RR_PRE_B, RR_PRE_RC};
		e = kw_any(s, n, j, words, RR_ARRAY_LEN(words), &w);
		if (e != RR_LEX_NO) {
			v->pre = kinds[w];
			if (is_sep(s, n, e))
				e++;
			j = digits(s, n, e);
			if (!num(s, e, j, &v->pre_n))
				return -1;
			i = j;
		}
	}
	/* post */
	if (i + 1 < n && s[i] == '-' && is_digit(s[i + 1])) {
		j = digits(s, n, i + 1);
		v->has_post = true;
		if (!num(s, i + 1, j, &v->post))
			return -1;
		i = j;
	} else {
		j = i + (is_sep(s, n, i) ? 1 : 0);
		e = kw_any(s, n, j, post_words, RR_ARRAY_LEN(post_words), NULL);
		if (e != RR_LEX_NO) {
			if (is_sep(s, n, e))
				e++;
			j = digits(s, n, e);
			v->has_post = true;
			if (!num(s, e, j, &v->post))
				return -1;
			i = j;
		}
	}
	/* dev */
	j = i + (is_sep(s, n, i) ? 1 : 0);
	e = kw(s, n, j, "dev");
	if (e != RR_LEX_NO) {
		if (is_sep(s, n, e))
			e++;
		j = digits(s, n, e);
		v->has_dev = true;
		if (!num(s, e, j, &v->dev))
			return -1;
		i = j;
	}
	if (i < n && s[i] == '+')
		return -1;
	return skip_pyspace(s, n, i) == n ? 1 : 0;
}

/* ------------------------------------------------------------------------ */
/* the tree                                                                 */

enum mop { MOP_LT, MOP_LE, MOP_EQ, MOP_NE, MOP_GE, MOP_GT, MOP_COMPAT, MOP_ARB, MOP_IN,
	   MOP_NOT_IN };

static const char *const mop_names[] = {"<", "<=", "==", "!=", ">=", ">", "~=", "===", "in",
					"not in"};

struct mval {
	bool var;
	enum rr_marker_var v; /* when var */
	char *s;	      /* literal value, owned, may contain NUL bytes */
	size_t len;
};

enum spec_state { SPEC_UNKNOWN, SPEC_YES, SPEC_NO };

struct matom {
	struct mval lhs, rhs;
	enum mop op;
	/*
	 * when the left side is a variable the right side is constant, so
	 * packaging's Specifier(op + rhs) attempt is made once, here
	 */
	enum spec_state pre;
	struct rr_spec spec;
};

struct mitem {
	bool or_before; /* joined to the previous item by 'or' (else 'and') */
	struct rr_marker *list; /* parenthesised group, or NULL for a comparison */
	struct matom atom;
};

struct rr_marker {
	struct mitem *items;
	size_t n, cap;
};

static const char *const var_names[RR_MVAR__MAX] = {
	[RR_MVAR_OS_NAME] = "os_name",
	[RR_MVAR_SYS_PLATFORM] = "sys_platform",
	[RR_MVAR_PLATFORM_MACHINE] = "platform_machine",
	[RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION] = "platform_python_implementation",
	[RR_MVAR_PLATFORM_RELEASE] = "platform_release",
	[RR_MVAR_PLATFORM_SYSTEM] = "platform_system",
	[RR_MVAR_PLATFORM_VERSION] = "platform_version",
	[RR_MVAR_PYTHON_VERSION] = "python_version",
	[RR_MVAR_PYTHON_FULL_VERSION] = "python_full_version",
	[RR_MVAR_IMPLEMENTATION_NAME] = "implementation_name",
	[RR_MVAR_IMPLEMENTATION_VERSION] = "implementation_version",
	[RR_MVAR_EXTRA] = "extra",
};

const char *rr_marker_var_to_string(enum rr_marker_var v)
{
	return (unsigned)v < RR_MVAR__MAX ? var_names[v] : "?";
}

/* the spellings the VARIABLE token accepts, in the regex's order */
static const struct {
	const char *text;
	enum rr_marker_var v;
} var_spellings[] = {
	{"python_version", RR_MVAR_PYTHON_VERSION},
	{"python_full_version", RR_MVAR_PYTHON_FULL_VERSION},
	{"os_name", RR_MVAR_OS_NAME},
	{"os.name", RR_MVAR_OS_NAME},
	{"sys_platform", RR_MVAR_SYS_PLATFORM},
	{"sys.platform", RR_MVAR_SYS_PLATFORM},
	{"platform_release", RR_MVAR_PLATFORM_RELEASE},
	{"platform_system", RR_MVAR_PLATFORM_SYSTEM},
	{"platform_version", RR_MVAR_PLATFORM_VERSION},
	{"platform.version", RR_MVAR_PLATFORM_VERSION},
	{"platform_machine", RR_MVAR_PLATFORM_MACHINE},
	{"platform.machine", RR_MVAR_PLATFORM_MACHINE},
	{"platform_python_implementation", RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION},
	{"platform.python_implementation", RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION},
	{"python_implementation", RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION},
	{"implementation_name", RR_MVAR_IMPLEMENTATION_NAME},
	{"implementation_version", RR_MVAR_IMPLEMENTATION_VERSION},
	{"extra", RR_MVAR_EXTRA},
};

/* environment key named by a string value ("python_version" == "3.8" looks it up) */
static bool var_by_key(const char *s, size_t len, enum rr_marker_var *ret)
{
	for (int v = 0; v < RR_MVAR__MAX; v++)
		if (strlen(var_names[v]) == len && memcmp(var_names[v], s, len) == 0) {
			*ret = (enum rr_marker_var)v;
			return true;
		}
	return false;
}

static void list_free(struct rr_marker *m);

static void atom_release(struct matom *a)
{
	free(a->lhs.s);
	free(a->rhs.s);
	if (a->pre == SPEC_YES)
		rr_spec_release(&a->spec);
	a->pre = SPEC_UNKNOWN;
}

static void list_free(struct rr_marker *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		if (m->items[i].list)
			list_free(m->items[i].list);
		else
			atom_release(&m->items[i].atom);
	}
	free(m->items);
	free(m);
}

struct rr_marker *rr_marker_free(struct rr_marker *m)
{
	list_free(m);
	return NULL;
}

/* PEP 503 normalisation into out (capacity >= len + 1); returns the new length */
static size_t canon(const char *s, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '-' || s[i] == '_' || s[i] == '.') {
			if (o == 0 || out[o - 1] != '-' || i == 0 ||
			    !(s[i - 1] == '-' || s[i - 1] == '_' || s[i - 1] == '.'))
				out[o++] = '-';
		} else {
			out[o++] = lower(s[i]);
		}
	}
	out[o] = '\0';
	return o;
}

static void mval_set_str(struct mval *v, const char *s, size_t len)
{
	free(v->s);
	v->var = false;
	v->s = rr_xmalloc(len + 1);
	memcpy(v->s, s, len);
	v->s[len] = '\0';
	v->len = len;
}

/*
 * try packaging's Specifier(op + rhs); *ret gets the specifier when it is
 * one. RR_OK with *is_spec false means "compare as strings".
 */
static rr_err make_spec(enum mop op, const char *rhs, size_t rlen, bool *is_spec,
			struct rr_spec *ret, rr_error *err)
{
	char stackbuf[256];
	RR_AUTOFREE char *heap = NULL;
	char *buf = stackbuf;
	size_t ol, oe, vs, ve, n;

	*is_spec = false;
	if (op == MOP_IN || op == MOP_NOT_IN)
		return RR_OK;
	ol = strlen(mop_names[op]);
	n = ol + rlen;
	if (n + 1 > sizeof(stackbuf))
		buf = heap = rr_xmalloc(n + 1);
	memcpy(buf, mop_names[op], ol);
	memcpy(buf + ol, rhs, rlen);
	buf[n] = '\0';
	if (!rr_lex_spec_valid(buf, n, &oe, &vs, &ve))
		return RR_OK;
	/* hand the parser the canonical "op" + stripped version */
	memmove(buf + ol, buf + vs, ve - vs);
	buf[ol + ve - vs] = '\0';
	if (rr_spec_parse(buf, ol + ve - vs, ret, err))
		return err ? err->code : RR_E_PARSE;
	*is_spec = true;
	return RR_OK;
}

static void atom_precompute(struct matom *a)
{
	char stackbuf[256];
	RR_AUTOFREE char *heap = NULL;
	const char *r;
	size_t rl;
	bool is_spec = false;

	a->pre = SPEC_UNKNOWN;
	if (!a->lhs.var)
		return;
	r = a->rhs.var ? var_names[a->rhs.v] : a->rhs.s;
	rl = a->rhs.var ? strlen(r) : a->rhs.len;
	if (a->lhs.v == RR_MVAR_EXTRA) {
		char *b = rl + 1 > sizeof(stackbuf) ? (heap = rr_xmalloc(rl + 1)) : stackbuf;
		rl = canon(r, rl, b);
		r = b;
	}
	/* a specifier the spec parser refuses (e.g. numbers too large) is decided at eval time */
	if (make_spec(a->op, r, rl, &is_spec, &a->spec, NULL) != RR_OK)
		return;
	a->pre = is_spec ? SPEC_YES : SPEC_NO;
}

static struct rr_marker *list_clone(const struct rr_marker *m)
{
	struct rr_marker *c = rr_xcalloc(1, sizeof(*c));

	c->items = rr_xcalloc(m->n ? m->n : 1, sizeof(*c->items));
	c->n = c->cap = m->n;
	for (size_t i = 0; i < m->n; i++) {
		const struct mitem *src = &m->items[i];
		struct mitem *dst = &c->items[i];

		dst->or_before = src->or_before;
		if (src->list) {
			dst->list = list_clone(src->list);
			continue;
		}
		dst->atom.op = src->atom.op;
		dst->atom.lhs = src->atom.lhs;
		dst->atom.rhs = src->atom.rhs;
		dst->atom.lhs.s = NULL;
		dst->atom.rhs.s = NULL;
		if (!src->atom.lhs.var)
			mval_set_str(&dst->atom.lhs, src->atom.lhs.s, src->atom.lhs.len);
		if (!src->atom.rhs.var)
			mval_set_str(&dst->atom.rhs, src->atom.rhs.s, src->atom.rhs.len);
		atom_precompute(&dst->atom);
	}
	return c;
}

struct rr_marker *rr_marker_clone(const struct rr_marker *m)
{
	return m ? list_clone(m) : NULL;
}

/* ------------------------------------------------------------------------ */
/* string literals: what ast.literal_eval makes of '...' / "..."            */

static void add_utf8(struct rr_strbuf *sb, uint32_t cp)
{
	char b[4];

	if (cp < 0x80) {
		rr_strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		rr_strbuf_add(sb, b, 2);
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		rr_strbuf_add(sb, b, 3);
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		rr_strbuf_add(sb, b, 4);
	}
}

/* s[a..b) is the text between the quotes; the opening quote is at a - 1 */
static rr_err unquote(const char *s, size_t a, size_t b, struct rr_strbuf *out, rr_error *err)
{
	for (size_t i = a; i < b; i++) {
		char c = s[i];

		if (c == '\0')
			return rr_lex_fail(err, i, "string literal contains a NUL byte");
		if (c == '\n' || c == '\r')
			return rr_lex_fail(err, a - 1, "unterminated string (line break inside quotes)");
		if (c != '\\') {
			rr_strbuf_addch(out, c);
			continue;
		}
		if (++i >= b)
			return rr_lex_fail(err, a - 1, "unterminated string (escaped closing quote)");
		c = s[i];
		switch (c) {
		case '\n':
			break; /* line continuation */
		case '\r':
			if (i + 1 < b && s[i + 1] == '\n')
				i++;
			break;
		case '\\': case '\'': case '"':
			rr_strbuf_addch(out, c);
			break;
		case 'a': rr_strbuf_addch(out, '\a'); break;
		case 'b': rr_strbuf_addch(out, '\b'); break;
		case 'f': rr_strbuf_addch(out, '\f'); break;
		case 'n': rr_strbuf_addch(out, '\n'); break;
		case 'r': rr_strbuf_addch(out, '\r'); break;
		case 't': rr_strbuf_addch(out, '\t'); break;
		case 'v': rr_strbuf_addch(out, '\v'); break;
		case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
			uint32_t cp = 0;
			size_t k = 0;
			for (; k < 3 && i < b && s[i] >= '0' && s[i] <= '7'; k++, i++)
				cp = cp * 8 + (uint32_t)(s[i] - '0');
			i--;
			add_utf8(out, cp);
			break;
		}
		case 'x': case 'u': case 'U': {
			size_t k = c == 'x' ? 2 : c == 'u' ? 4 : 8;
			uint32_t cp = 0;
			for (size_t j = 0; j < k; j++) {
				int h = i + 1 + j < b ? rr_hex_digit(s[i + 1 + j]) : -1;
				if (h < 0)
					return rr_lex_fail(err, i - 1, "truncated \\%c escape in string", c);
				cp = cp * 16 + (uint32_t)h;
			}
			if (cp > 0x10ffff)
				return rr_lex_fail(err, i - 1, "escape \\%c out of Unicode range", c);
			i += k;
			add_utf8(out, cp);
			break;
		}
		case 'N':
			return rr_lex_fail(err, i - 1, "unsupported \\N{...} escape in string");
		default:
			/* unknown escapes stay as written, as in Python */
			rr_strbuf_addch(out, '\\');
			rr_strbuf_addch(out, c);
		}
	}
	return RR_OK;
}

/* ------------------------------------------------------------------------ */
/* parser                                                                   */

static rr_err parse_list(struct rr_lex *lx, int depth, struct rr_marker **ret, rr_error *err);

static rr_err parse_var(struct rr_lex *lx, struct mval *ret, rr_error *err)
{
	char q;
	size_t e;
	rr_err rc;

	for (size_t k = 0; k < RR_ARRAY_LEN(var_spellings); k++) {
		if (lex_word(lx, var_spellings[k].text) != RR_LEX_NO) {
			lx->pos += strlen(var_spellings[k].text);
			ret->var = true;
			ret->v = var_spellings[k].v;
			ret->s = NULL;
			ret->len = 0;
			return RR_OK;
		}
	}
	q = lx->pos < lx->n ? lx->s[lx->pos] : '\0';
	if (q == '\'' || q == '"') {
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		const char *close = memchr(lx->s + lx->pos + 1, q, lx->n - lx->pos - 1);
		if (!close)
			return rr_lex_fail(err, lx->pos, "unterminated string");
		e = (size_t)(close - lx->s);
		rc = unquote(lx->s, lx->pos + 1, e, &sb, err);
		if (rc)
			return rc;
		ret->var = false;
		ret->len = sb.len;
		ret->s = rr_strbuf_detach(&sb, NULL);
		lx->pos = e + 1;
		return RR_OK;
	}
	return rr_lex_fail(err, lx->pos, "expected a marker variable or quoted string");
}

static rr_err parse_op(struct rr_lex *lx, enum mop *ret, rr_error *err)
{
	static const struct {
		const char *text;
		enum mop op;
	} ops[] = {{"===", MOP_ARB}, {"==", MOP_EQ}, {"~=", MOP_COMPAT}, {"!=", MOP_NE},
		   {"<=", MOP_LE},   {">=", MOP_GE}, {"<", MOP_LT},	   {">", MOP_GT}};
	size_t e;

	if ((e = lex_word(lx, "in")) != RR_LEX_NO) {
		lx->pos = e;
		*ret = MOP_IN;
		return RR_OK;
	}
	if ((e = lex_word(lx, "not")) != RR_LEX_NO) {
		lx->pos = e;
		if (lx->pos >= lx->n || (lx->s[lx->pos] != ' ' && lx->s[lx->pos] != '\t'))
			return rr_lex_fail(err, lx->pos, "expected whitespace after 'not'");
		rr_lex_ws(lx);
		if ((e = lex_word(lx, "in")) == RR_LEX_NO)
			return rr_lex_fail(err, lx->pos, "expected 'in' after 'not'");
		lx->pos = e;
		*ret = MOP_NOT_IN;
		return RR_OK;
	}
	for (size_t k = 0; k < RR_ARRAY_LEN(ops); k++) {
		size_t l = strlen(ops[k].text);
		if (lx->n - lx->pos >= l && memcmp(lx->s + lx->pos, ops[k].text, l) == 0) {
			lx->pos += l;
			*ret = ops[k].op;
			return RR_OK;
		}
	}
	return rr_lex_fail(err, lx->pos,
			   "expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in");
}

static rr_err parse_item(struct rr_lex *lx, struct matom *a, rr_error *err)
{
	rr_err rc;

	rr_lex_ws(lx);
	if ((rc = parse_var(lx, &a->lhs, err)))
		return rc;
	rr_lex_ws(lx);
	if ((rc = parse_op(lx, &a->op, err)))
		return rc;
	rr_lex_ws(lx);
	if ((rc = parse_var(lx, &a->rhs, err)))
		return rc;
	rr_lex_ws(lx);
	return RR_OK;
}

static rr_err parse_atom(struct rr_lex *lx, int depth, struct mitem *it, rr_error *err)
{
	rr_err rc;

	rr_lex_ws(lx);
	if (lx->pos < lx->n && lx->s[lx->pos] == '(') {
		if (depth >= MAX_DEPTH)
			return rr_lex_fail(err, lx->pos, "marker nested more than %d levels deep",
					   MAX_DEPTH);
		lx->pos++;
		rr_lex_ws(lx);
		if ((rc = parse_list(lx, depth + 1, &it->list, err)))
			return rc;
		rr_lex_ws(lx);
		if (lx->pos >= lx->n || lx->s[lx->pos] != ')')
			return rr_lex_fail(err, lx->pos, "expected ')'");
		lx->pos++;
	} else {
		if ((rc = parse_item(lx, &it->atom, err)))
			return rc;
	}
	rr_lex_ws(lx);
	return RR_OK;
}

static rr_err parse_list(struct rr_lex *lx, int depth, struct rr_marker **ret, rr_error *err)
{
	struct rr_marker *m = rr_xcalloc(1, sizeof(*m));
	bool or_before = false;
	rr_err rc;

	for (;;) {
		struct mitem *it = &RR_PUSH(m->items, m->n, m->cap);
		size_t e;

		memset(it, 0, sizeof(*it));
		it->or_before = or_before;
		if ((rc = parse_atom(lx, depth, it, err))) {
			list_free(m);
			return rc;
		}
		if (!it->list)
			atom_precompute(&it->atom);
		if ((e = lex_word(lx, "or")) != RR_LEX_NO)
			or_before = true;
		else if ((e = lex_word(lx, "and")) != RR_LEX_NO)
			or_before = false;
		else
			break;
		lx->pos = e;
	}
	/* most markers are one or two comparisons; the growth slack was 2 KB a requirement */
	if (m->cap > m->n) {
		m->items = rr_xrealloc(m->items, m->n * sizeof(*m->items));
		m->cap = m->n;
	}
	*ret = m;
	return RR_OK;
}

/* packaging's _normalize_extra_values: only the first top-level comparison */
static void normalize_first(struct rr_marker *m)
{
	struct matom *a;
	struct mval *target = NULL;
	const char *src;
	size_t len;
	char *b;

	if (!m->n || m->items[0].list)
		return;
	a = &m->items[0].atom;
	if (a->lhs.var && a->lhs.v == RR_MVAR_EXTRA)
		target = &a->rhs;
	else if (a->rhs.var && a->rhs.v == RR_MVAR_EXTRA)
		target = &a->lhs;
	if (!target)
		return;
	src = target->var ? var_names[target->v] : target->s;
	len = target->var ? strlen(src) : target->len;
	b = rr_xmalloc(len + 1);
	len = canon(src, len, b);
	mval_set_str(target, b, len);
	free(b);
	if (a->pre == SPEC_YES)
		rr_spec_release(&a->spec);
	atom_precompute(a);
}

rr_err rr_marker_parse_lex(struct rr_lex *lx, struct rr_marker **ret, rr_error *err)
{
	struct rr_marker *m;
	rr_err rc = parse_list(lx, 0, &m, err);

	if (rc)
		return rc;
	normalize_first(m);
	*ret = m;
	return RR_OK;
}

rr_err rr_marker_parse(const char *s, size_t len, struct rr_marker **ret, rr_error *err)
{
	struct rr_lex lx = {s, len == SIZE_MAX ? strlen(s) : len, 0};
	struct rr_marker *m;
	rr_err rc = rr_marker_parse_lex(&lx, &m, err);

	if (rc)
		return rc;
	/*
	 * packaging 23.0 ignores what follows the last complete comparison
	 * ("os_name == 'nt' garbage"); 23.1 and later reject it, and so do we
	 */
	rr_lex_ws(&lx);
	if (!rr_lex_end(&lx)) {
		list_free(m);
		return rr_lex_fail(err, lx.pos, "expected 'and', 'or' or end of marker");
	}
	*ret = m;
	return RR_OK;
}

/* ------------------------------------------------------------------------ */
/* formatting: str(Marker)                                                  */

static void format_val(const struct mval *v, struct rr_strbuf *out)
{
	if (v->var) {
		rr_strbuf_adds(out, var_names[v->v]);
		return;
	}
	/*
	 * packaging prints every value between double quotes, even one holding a
	 * double quote, which then reads back as something else (pip rejects
	 * `x; os_name == "a"b"`); such a value goes between single quotes
	 */
	char q = memchr(v->s, '"', v->len) && !memchr(v->s, '\'', v->len) ? '\'' : '"';
	rr_strbuf_addch(out, q);
	rr_strbuf_add(out, v->s, v->len);
	rr_strbuf_addch(out, q);
}

static void format_list(const struct rr_marker *m, bool first, struct rr_strbuf *out)
{
	/* a one-element list is printed as its element, without parentheses */
	if (m->n == 1) {
		if (m->items[0].list) {
			format_list(m->items[0].list, true, out);
		} else {
			const struct matom *a = &m->items[0].atom;
			format_val(&a->lhs, out);
			rr_strbuf_addf(out, " %s ", mop_names[a->op]);
			format_val(&a->rhs, out);
		}
		return;
	}
	if (!first)
		rr_strbuf_addch(out, '(');
	for (size_t i = 0; i < m->n; i++) {
		const struct mitem *it = &m->items[i];
		if (i)
			rr_strbuf_adds(out, it->or_before ? " or " : " and ");
		if (it->list) {
			format_list(it->list, false, out);
		} else {
			format_val(&it->atom.lhs, out);
			rr_strbuf_addf(out, " %s ", mop_names[it->atom.op]);
			format_val(&it->atom.rhs, out);
		}
	}
	if (!first)
		rr_strbuf_addch(out, ')');
}

void rr_marker_format(const struct rr_marker *m, struct rr_strbuf *out)
{
	format_list(m, true, out);
}

bool rr_marker_uses_extra(const struct rr_marker *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct mitem *it = &m->items[i];
		if (it->list) {
			if (rr_marker_uses_extra(it->list))
				return true;
			continue;
		}
		if ((it->atom.lhs.var && it->atom.lhs.v == RR_MVAR_EXTRA) ||
		    (it->atom.rhs.var && it->atom.rhs.v == RR_MVAR_EXTRA))
			return true;
		/* '"x" == "extra"' looks the environment up by the right-hand string */
		if (!it->atom.lhs.var && !it->atom.rhs.var && it->atom.rhs.len == 5 &&
		    memcmp(it->atom.rhs.s, "extra", 5) == 0)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------ */
/* evaluation                                                               */

/* Python's str comparison: code point order, which UTF-8 byte order preserves */
static int str_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);

	if (c)
		return c;
	return al < bl ? -1 : al > bl;
}

static bool str_in(const char *needle, size_t nl, const char *hay, size_t hl)
{
	if (nl == 0)
		return true;
	for (size_t i = 0; i + nl <= hl; i++)
		if (hay[i] == needle[0] && memcmp(hay + i, needle, nl) == 0)
			return true;
	return false;
}

static rr_err eval_op(const char *l, size_t ll, enum mop op, const char *r, size_t rl,
		      const struct rr_spec *spec, enum spec_state state, rr_error *err, bool *ret)
{
	struct rr_spec tmp;
	bool is_spec;
	rr_err rc;

	if (state == SPEC_UNKNOWN) {
		/* rare shapes (string on the left): packaging builds the specifier here too */
		if ((rc = make_spec(op, r, rl, &is_spec, &tmp, err)))
			return rc;
		if (is_spec) {
			rc = eval_op(l, ll, op, r, rl, &tmp, SPEC_YES, err, ret);
			rr_spec_release(&tmp);
			return rc;
		}
		state = SPEC_NO;
	}
	if (state == SPEC_YES) {
		uint64_t rel[16];
		struct rr_version v;
		int fast = version_fast(l, ll, &v, rel, RR_ARRAY_LEN(rel));

		if (fast == 0 || memchr(l, '\0', ll))
			return rr_fail(err, RR_E_DATA, "invalid version '%.*s' compared with '%s%.*s'",
				       (int)ll, l, mop_names[op], (int)rl, r);
		if (fast < 0) {
			/* local labels and huge numbers: the full parser, which allocates */
			RR_AUTOFREE char *z = rr_xstrndup(l, ll);
			if ((rc = rr_version_parse(z, &v, err)))
				return rc;
			*ret = rr_spec_match(spec, &v);
			rr_version_release(&v);
			return RR_OK;
		}
		*ret = rr_spec_match(spec, &v);
		return RR_OK;
	}
	switch (op) {
	case MOP_IN: *ret = str_in(l, ll, r, rl); break;
	case MOP_NOT_IN: *ret = !str_in(l, ll, r, rl); break;
	case MOP_LT: *ret = str_cmp(l, ll, r, rl) < 0; break;
	case MOP_LE: *ret = str_cmp(l, ll, r, rl) <= 0; break;
	case MOP_EQ: *ret = str_cmp(l, ll, r, rl) == 0; break;
	case MOP_NE: *ret = str_cmp(l, ll, r, rl) != 0; break;
	case MOP_GE: *ret = str_cmp(l, ll, r, rl) >= 0; break;
	case MOP_GT: *ret = str_cmp(l, ll, r, rl) > 0; break;
	default:
		return rr_fail(err, RR_E_DATA, "undefined comparison '%s' on '%.*s' and '%.*s'",
			       mop_names[op], (int)ll, l, (int)rl, r);
	}
	return RR_OK;
}

static rr_err eval_atom(const struct matom *a, const struct rr_marker_env *env, bool *ret,
			rr_error *err)
{
	enum rr_marker_var key;
	const char *l, *r;
	size_t ll, rl;
	char lb[256], rb[256];
	RR_AUTOFREE char *lh = NULL;
	RR_AUTOFREE char *rh = NULL;
	enum spec_state state = SPEC_UNKNOWN;

	if (a->lhs.var) {
		key = a->lhs.v;
		l = env->vars[key];
		if (!l)
			return rr_fail(err, RR_E_ENV, "marker variable '%s' is not defined",
				       var_names[key]);
		ll = strlen(l);
		r = a->rhs.var ? var_names[a->rhs.v] : a->rhs.s;
		rl = a->rhs.var ? strlen(r) : a->rhs.len;
		state = a->pre;
	} else {
		if (a->rhs.var) {
			key = a->rhs.v;
		} else if (!var_by_key(a->rhs.s, a->rhs.len, &key)) {
			return rr_fail(err, RR_E_ENV, "'%.*s' is not a marker variable",
				       (int)a->rhs.len, a->rhs.s);
		}
		r = env->vars[key];
		if (!r)
			return rr_fail(err, RR_E_ENV, "marker variable '%s' is not defined",
				       var_names[key]);
		rl = strlen(r);
		l = a->lhs.s;
		ll = a->lhs.len;
	}
	if (key == RR_MVAR_EXTRA) {
		/* PEP 685: both sides normalised (the constant side was at parse time) */
		char *lbuf = ll + 1 > sizeof(lb) ? (lh = rr_xmalloc(ll + 1)) : lb;
		ll = canon(l, ll, lbuf);
		l = lbuf;
		char *rbuf = rl + 1 > sizeof(rb) ? (rh = rr_xmalloc(rl + 1)) : rb;
		rl = canon(r, rl, rbuf);
		r = rbuf;
	}
	return eval_op(l, ll, a->op, r, rl, &a->spec, state, err, ret);
}

static rr_err eval_list(const struct rr_marker *m, const struct rr_marker_env *env, bool *ret,
			rr_error *err)
{
	bool any = false, all = true;

	/* packaging evaluates every comparison, so an error anywhere is an error */
	for (size_t i = 0; i < m->n; i++) {
		const struct mitem *it = &m->items[i];
		bool b;
		rr_err rc;

		if (i && it->or_before) {
			any = any || all;
			all = true;
		}
		rc = it->list ? eval_list(it->list, env, &b, err) : eval_atom(&it->atom, env, &b, err);
		if (rc)
			return rc;
		all = all && b;
	}
	*ret = any || all;
	return RR_OK;
}

rr_err rr_marker_eval(const struct rr_marker *m, const struct rr_marker_env *env, bool *ret,
		      rr_error *err)
{
	return eval_list(m, env, ret, err);
}

/* ------------------------------------------------------------------------ */
/* environments                                                             */

void rr_marker_env_init(struct rr_marker_env *env)
{
	memset(env, 0, sizeof(*env));
	env->vars[RR_MVAR_OS_NAME] = "posix";
	env->vars[RR_MVAR_SYS_PLATFORM] = "linux";
	env->vars[RR_MVAR_PLATFORM_MACHINE] = "x86_64";
	env->vars[RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION] = "CPython";
	env->vars[RR_MVAR_PLATFORM_RELEASE] = "6.8.0-generic";
	env->vars[RR_MVAR_PLATFORM_SYSTEM] = "Linux";
	env->vars[RR_MVAR_PLATFORM_VERSION] = "#1 SMP PREEMPT_DYNAMIC";
	env->vars[RR_MVAR_PYTHON_VERSION] = "3.12";
	env->vars[RR_MVAR_PYTHON_FULL_VERSION] = "3.12.3";
	env->vars[RR_MVAR_IMPLEMENTATION_NAME] = "cpython";
	env->vars[RR_MVAR_IMPLEMENTATION_VERSION] = "3.12.3";
	env->vars[RR_MVAR_EXTRA] = "";
}

void rr_marker_env_set_python(struct rr_marker_env *env, const char *full_version,
			      char short_buf[16])
{
	/* ".".join(platform.python_version_tuple()[:2]): everything before the second dot */
	const char *dot = strchr(full_version, '.');
	size_t n = dot ? strcspn(dot + 1, ".") + (size_t)(dot + 1 - full_version)
		       : strlen(full_version);

	if (n > 15)
		n = 15;
	memcpy(short_buf, full_version, n);
	short_buf[n] = '\0';
	env->vars[RR_MVAR_PYTHON_VERSION] = short_buf;
	env->vars[RR_MVAR_PYTHON_FULL_VERSION] = full_version;
	env->vars[RR_MVAR_IMPLEMENTATION_VERSION] = full_version;
}

/*
 * version.c - PEP 440 versions, parsed by hand to the language of
 * packaging.version.VERSION_PATTERN (matched case-insensitively between
 * optional whitespace), normalised and ordered as packaging 23.0 does.
 *
 * The regular expression is a chain of optional parts, each of which may
 * begin with an optional separator. Every part starts with a distinct
 * keyword, so a greedy scan that restores its position when a part does not
 * match accepts exactly what the backtracking regex accepts (the only label
 * pairs sharing a prefix, "a"/"alpha", "pre"/"preview", "r"/"rev", never let
 * the shorter one succeed where the longer one matched).
 */
#include <string.h>

#include "pep/pep-private.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

struct cursor {
	const char *s;
	size_t n;
	size_t i;
	bool space; /* surrounding whitespace allowed (Version), or not (inside a specifier) */
	size_t overflow; /* 1-based column of the first number past uint64, 0 if none */
};

static bool at_sep(const struct cursor *c)
{
	return c->i < c->n && (c->s[c->i] == '-' || c->s[c->i] == '_' || c->s[c->i] == '.');
}

static bool at_digit(const struct cursor *c)
{
	return c->i < c->n && rr_pep_is_digit(c->s[c->i]);
}

/* case-insensitive keyword at the cursor; advances on success */
static bool take_word(struct cursor *c, const char *w)
{
	size_t k = strlen(w);

	if (c->n - c->i < k)
		return false;
	for (size_t j = 0; j < k; j++)
		if (rr_pep_lower(c->s[c->i + j]) != w[j])
			return false;
	c->i += k;
	return true;
}

/*
 * digits at the cursor (caller checked at_digit). A number past uint64 is
 * remembered, not failed on at once, so that text which is no version at all
 * still reports RR_E_PARSE as packaging would; a well-formed version with a
 * huge number fails with RR_E_LIMIT at the end.
 */
static rr_err take_number(struct cursor *c, uint64_t *ret, rr_error *err)
{
	size_t start = c->i;
	uint64_t v = 0;
	bool over = false;

	(void)err;
	while (at_digit(c)) {
		unsigned d = (unsigned)(c->s[c->i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			over = true;
		v = v * 10 + d;
		c->i++;
	}
	if (over && !c->overflow)
		c->overflow = start + 1;
	*ret = v;
	return RR_OK;
}

static rr_err parse_release(struct cursor *c, struct rr_version *v, uint64_t first,
			    rr_error *err)
{
	size_t cap = 4;
	rr_err rc;

	v->release = rr_xmalloc(cap * sizeof(*v->release));
	v->nrelease = 0;
	v->release[v->nrelease++] = first;
	while (c->i + 1 < c->n && c->s[c->i] == '.' && rr_pep_is_digit(c->s[c->i + 1])) {
		uint64_t x;
		c->i++;
		rc = take_number(c, &x, err);
		if (rc)
			return rc;
		RR_PUSH(v->release, v->nrelease, cap) = x;
	}
	return RR_OK;
}

static void take_opt_sep(struct cursor *c)
{
	if (at_sep(c))
		c->i++;
}

static rr_err parse_pre(struct cursor *c, struct rr_version *v, rr_error *err)
{
	static const struct {
		const char *w;
		enum rr_pre_kind k;
	} words[] = {
		/* longest first: "alpha" before "a", "preview" before "pre" */
		{"preview", RR_PRE_RC}, {"alpha", RR_PRE_A}, {"beta", RR_PRE_B},
		{"pre", RR_PRE_RC},	{"rc", RR_PRE_RC},   {"a", RR_PRE_A},
		{"b", RR_PRE_B},	{"c", RR_PRE_RC},
	};
	size_t save = c->i;

	take_opt_sep(c);
	for (size_t k = 0; k < RR_ARRAY_LEN(words); k++) {
		if (take_word(c, words[k].w)) {
			v->pre = words[k].k;
			v->pre_n = 0;
			take_opt_sep(c);
			return at_digit(c) ? take_number(c, &v->pre_n, err) : RR_OK;
		}
	}
	c->i = save;
	return RR_OK;
}

static rr_err parse_post(struct cursor *c, struct rr_version *v, rr_error *err)
{
	static const char *const words[] = {"post", "rev", "r"};
	size_t save = c->i;

	/* implicit post release: "1.0-1" */
	if (c->i + 1 < c->n && c->s[c->i] == '-' && rr_pep_is_digit(c->s[c->i + 1])) {
		c->i++;
		v->has_post = true;
		return take_number(c, &v->post, err);
	}
	take_opt_sep(c);
	for (size_t k = 0; k < RR_ARRAY_LEN(words); k++) {
		if (take_word(c, words[k])) {
			v->has_post = true;
			v->post = 0;
			take_opt_sep(c);
			return at_digit(c) ? take_number(c, &v->post, err) : RR_OK;
		}
	}
	c->i = save;
	return RR_OK;
}

static rr_err parse_dev(struct cursor *c, struct rr_version *v, rr_error *err)
{
	size_t save = c->i;

	take_opt_sep(c);
	if (take_word(c, "dev")) {
		v->has_dev = true;
		v->dev = 0;
		take_opt_sep(c);
		return at_digit(c) ? take_number(c, &v->dev, err) : RR_OK;
	}
	c->i = save;
	return RR_OK;
}

/*
 * local label: [a-z0-9]+([-_.][a-z0-9]+)*, stored lower-case with '.'
 * separators and numeric segments without leading zeros (packaging keeps
 * them as ints, so "+007" prints as "+7")
 */
static rr_err parse_local(struct cursor *c, struct rr_version *v, rr_error *err)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	size_t plus = c->i;

	c->i++; /* '+' */
	for (;;) {
		size_t start = c->i;
		bool numeric = true;

		while (c->i < c->n && rr_pep_is_alnum(c->s[c->i])) {
			numeric = numeric && rr_pep_is_digit(c->s[c->i]);
			c->i++;
		}
		if (c->i == start) {
			rr_strbuf_release(&sb);
			return rr_pep_fail_col(err, RR_E_PARSE, c->i + 1,
					       "expected a letter or digit in local version label "
					       "'%.*s'",
					       (int)(c->n - plus), c->s + plus);
		}
		if (sb.len)
			rr_strbuf_addch(&sb, '.');
		if (numeric) {
			while (start + 1 < c->i && c->s[start] == '0')
				start++;
			rr_strbuf_add(&sb, c->s + start, c->i - start);
		} else {
			for (size_t j = start; j < c->i; j++)
				rr_strbuf_addch(&sb, rr_pep_lower(c->s[j]));
		}
		if (!at_sep(c) || c->i + 1 >= c->n || !rr_pep_is_alnum(c->s[c->i + 1]))
			break;
		c->i++;
	}
	v->local = rr_strbuf_detach(&sb, NULL);
	return RR_OK;
}

static rr_err parse_body(struct cursor *c, struct rr_version *v, rr_error *err)
{
	uint64_t first;
	rr_err rc;

	if (c->space)
		rr_pep_skip_space(c->s, c->n, &c->i);
	if (c->i < c->n && (c->s[c->i] == 'v' || c->s[c->i] == 'V'))
		c->i++;
	if (!at_digit(c))
		return rr_pep_fail_col(err, RR_E_PARSE, c->i + 1,
				       "invalid version '%.*s': expected a digit", (int)c->n, c->s);
	rc = take_number(c, &first, err);
	if (rc)
		return rc;
	if (c->i < c->n && c->s[c->i] == '!') {
		v->epoch = first;
		c->i++;
		if (!at_digit(c))
			return rr_pep_fail_col(err, RR_E_PARSE, c->i + 1,
					       "invalid version '%.*s': expected a digit after the "
					       "epoch",
					       (int)c->n, c->s);
		rc = take_number(c, &first, err);
		if (rc)
			return rc;
	}
	if ((rc = parse_release(c, v, first, err)) || (rc = parse_pre(c, v, err)) ||
	    (rc = parse_post(c, v, err)) || (rc = parse_dev(c, v, err)))
		return rc;
	if (c->i < c->n && c->s[c->i] == '+' && (rc = parse_local(c, v, err)))
		return rc;
	if (c->space)
		rr_pep_skip_space(c->s, c->n, &c->i);
	if (c->i != c->n)
		return rr_pep_fail_col(err, RR_E_PARSE, c->i + 1,
				       "invalid version '%.*s': unexpected '%c'", (int)c->n, c->s,
				       c->s[c->i]);
	if (c->overflow)
		return rr_pep_fail_col(err, RR_E_LIMIT, c->overflow,
				       "version '%.*s' has a number too large for 64 bits",
				       (int)c->n, c->s);
	return RR_OK;
}

rr_err rr_pep_version_parse(const char *s, size_t len, bool space, struct rr_version *ret,
			    rr_error *err)
{
	struct rr_version v = RR_VERSION_INIT;
	struct cursor c = {s, len, 0, space, 0};
	rr_err rc;

	rc = parse_body(&c, &v, err);
	if (rc) {
		rr_version_release(&v);
		return rc;
	}
	*ret = v;
	return RR_OK;
}

rr_err rr_version_parse_n(const char *s, size_t len, struct rr_version *ret, rr_error *err)
{
	return rr_pep_version_parse(s, len, true, ret, err);
}

rr_err rr_version_parse(const char *s, struct rr_version *ret, rr_error *err)
{
	return rr_version_parse_n(s, strlen(s), ret, err);
}

void rr_version_release(struct rr_version *v)
{
	if (!v)
		return;
	rr_free(v->release);
	rr_free(v->local);
	*v = (struct rr_version)RR_VERSION_INIT;
}

void rr_version_copy(struct rr_version *dst, const struct rr_version *src)
{
	*dst = *src;
	if (src->release) {
		dst->release = rr_xmalloc(src->nrelease * sizeof(*src->release));
		memcpy(dst->release, src->release, src->nrelease * sizeof(*src->release));
	}
	dst->local = src->local ? rr_xstrdup(src->local) : NULL;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int cmp_release(const struct rr_version *a, const struct rr_version *b)
{
	/* trailing zeros are insignificant: compare as if zero-padded */
	size_t n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;

	for (size_t i = 0; i < n; i++) {
		uint64_t x = i < a->nrelease ? a->release[i] : 0;
		uint64_t y = i < b->nrelease ? b->release[i] : 0;
		if (x != y)
			return cmp_u64(x, y);
	}
	return 0;
}

/*
 * packaging's _cmpkey for the pre-release slot: a bare dev release
 * ("1.0.dev0") sorts before every pre-release, a version without a
 * pre-release after them all
 */
static int pre_rank(const struct rr_version *v)
{
	if (v->pre != RR_PRE_NONE)
		return 0;
	if (!v->has_post && v->has_dev)
		return -1;
	return 1;
}

static size_t seg_len(const char *s)
{
	size_t k = 0;

	while (s[k] && s[k] != '.')
		k++;
	return k;
}

static bool seg_numeric(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!rr_pep_is_digit(s[i]))
			return false;
	return true;
}

/*
 * local labels compare segment by segment: numeric segments as numbers
 * (stored without leading zeros, so longer is larger), alphanumeric ones as
 * strings, a numeric segment above an alphanumeric one, and a label that is
 * a prefix of another below it
 */
static int cmp_local(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	for (;;) {
		size_t na;
		size_t nb;
		bool da;
		bool db;
		int r;

		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		na = seg_len(a);
		nb = seg_len(b);
		da = seg_numeric(a, na);
		db = seg_numeric(b, nb);
		if (da != db)
			return da ? 1 : -1;
		if (da && na != nb)
			return na < nb ? -1 : 1;
		r = memcmp(a, b, na < nb ? na : nb);
		if (r)
			return r < 0 ? -1 : 1;
		if (na != nb)
			return na < nb ? -1 : 1;
		a += na;
		b += nb;
		if (*a)
			a++;
		if (*b)
			b++;
		/* "1.0+a." cannot happen: labels never end with a separator */
	}
}

int rr_version_cmp_public(const struct rr_version *a, const struct rr_version *b)
{
	int r;

	if (a->epoch != b->epoch)
		return cmp_u64(a->epoch, b->epoch);
	if ((r = cmp_release(a, b)))
		return r;
	{
		int ra = pre_rank(a);
		int rb = pre_rank(b);
		if (ra != rb)
			return ra < rb ? -1 : 1;
		if (ra == 0) {
			if (a->pre != b->pre)
				return a->pre < b->pre ? -1 : 1;
			if (a->pre_n != b->pre_n)
				return cmp_u64(a->pre_n, b->pre_n);
		}
	}
	if (a->has_post != b->has_post)
		return a->has_post ? 1 : -1;
	if (a->has_post && a->post != b->post)
		return cmp_u64(a->post, b->post);
	if (a->has_dev != b->has_dev)
		return a->has_dev ? -1 : 1;
	if (a->has_dev && a->dev != b->dev)
		return cmp_u64(a->dev, b->dev);
	return 0;
}

int rr_version_cmp(const struct rr_version *a, const struct rr_version *b)
{
	int r = rr_version_cmp_public(a, b);

	return r ? r : cmp_local(a->local, b->local);
}

void rr_version_format_public(const struct rr_version *v, struct rr_strbuf *out)
{
	static const char *const pre[] = {"", "a", "b", "rc"};

	if (v->epoch)
		rr_strbuf_addf(out, "%llu!", (unsigned long long)v->epoch);
	for (size_t i = 0; i < v->nrelease; i++)
		rr_strbuf_addf(out, i ? ".%llu" : "%llu", (unsigned long long)v->release[i]);
	if (v->pre != RR_PRE_NONE)
		rr_strbuf_addf(out, "%s%llu", pre[v->pre], (unsigned long long)v->pre_n);
	if (v->has_post)
		rr_strbuf_addf(out, ".post%llu", (unsigned long long)v->post);
	if (v->has_dev)
		rr_strbuf_addf(out, ".dev%llu", (unsigned long long)v->dev);
}

void rr_version_format(const struct rr_version *v, struct rr_strbuf *out)
{
	rr_version_format_public(v, out);
	if (v->local) {
		rr_strbuf_addch(out, '+');
		rr_strbuf_adds(out, v->local);
	}
}

char *rr_version_to_string(const struct rr_version *v)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_version_format(v, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

bool rr_version_is_prerelease(const struct rr_version *v)
{
	return v->pre != RR_PRE_NONE || v->has_dev;
}

bool rr_version_is_postrelease(const struct rr_version *v)
{
	return v->has_post;
}

bool rr_version_is_devrelease(const struct rr_version *v)
{
	return v->has_dev;
}

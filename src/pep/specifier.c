/*
 * specifier.c - PEP 440 version specifiers with packaging 23.0's semantics.
 *
 * Parsing follows packaging.specifiers.Specifier._regex: the operator picks
 * which version grammar applies (=== takes any run of non-blank characters
 * other than ';' and ')'; == and != allow ".*" or a local label; ~= needs two
 * release segments and no local label; the ordered comparisons allow neither).
 *
 * Matching mirrors packaging's code rather than an idealised PEP 440 where
 * the two differ, because the differential tests hold us to packaging:
 * prefix matching ("==1.0.*") compares the dotted tokens of the canonical
 * forms, zero-padding only a leading run of pure-number tokens (so an epoch
 * disables padding), and "~=" derives its prefix from the specifier text as
 * written. Nothing here allocates per comparison.
 */
#include <stdio.h>
#include <string.h>

#include "pep/pep-private.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

const char *rr_spec_op_to_string(enum rr_spec_op op)
{
	static const char *const names[] = {"==", "!=", "<", "<=", ">", ">=", "~=", "==="};

	return (size_t)op < RR_ARRAY_LEN(names) ? names[op] : "?";
}

/* ---- parsing ---------------------------------------------------------- */

static bool has_suffix_parts(const struct rr_version *v)
{
	return v->pre != RR_PRE_NONE || v->has_post || v->has_dev || v->local;
}

static bool item_is_suffix(const char *s, size_t n)
{
	/* packaging's _is_not_suffix, case-sensitive as there */
	static const char *const pfx[] = {"dev", "a", "b", "rc", "post"};

	for (size_t k = 0; k < RR_ARRAY_LEN(pfx); k++) {
		size_t m = strlen(pfx[k]);
		if (n >= m && memcmp(s, pfx[k], m) == 0)
			return true;
	}
	return false;
}

/* length of the leading digits of an item matching ^[0-9]+(a|b|c|rc)[0-9]+$, else 0 */
static size_t item_split_at(const char *s, size_t n)
{
	size_t i = 0;
	size_t j;

	while (i < n && rr_pep_is_digit(s[i]))
		i++;
	if (i == 0 || i == n)
		return 0;
	j = i;
	if (n - j >= 2 && s[j] == 'r' && s[j + 1] == 'c')
		j += 2;
	else if (s[j] == 'a' || s[j] == 'b' || s[j] == 'c')
		j++;
	else
		return 0;
	if (j == n)
		return 0;
	for (size_t k = j; k < n; k++)
		if (!rr_pep_is_digit(s[k]))
			return 0;
	return i;
}

/*
 * "~=X" is ">=X" and "==P.*" where packaging builds P from the text of X:
 * split on '.', split "5a4"-style items in two, keep items up to the first
 * that starts with dev/a/b/rc/post (case-sensitive), drop the last kept one.
 * "~=1.0.c1" therefore keeps "c1" ("1.0.*") while "~=1.0rc1" gives "1.*".
 */
static void compat_prefix(const char *text, size_t n, struct rr_version *ret)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	size_t last_start = 0; /* where the last kept item starts in sb */
	size_t kept = 0;
	size_t i = 0;

	while (i <= n) {
		size_t e = i;
		size_t cut;
		const char *pieces[2];
		size_t lens[2];
		size_t np;
		bool stop = false;

		while (e < n && text[e] != '.')
			e++;
		cut = item_split_at(text + i, e - i);
		if (cut) {
			pieces[0] = text + i;
			lens[0] = cut;
			pieces[1] = text + i + cut;
			lens[1] = e - i - cut;
			np = 2;
		} else {
			pieces[0] = text + i;
			lens[0] = e - i;
			np = 1;
		}
		for (size_t k = 0; k < np; k++) {
			if (item_is_suffix(pieces[k], lens[k])) {
				stop = true;
				break;
			}
			last_start = sb.len;
			if (kept++)
				rr_strbuf_addch(&sb, '.');
			rr_strbuf_add(&sb, pieces[k], lens[k]);
		}
		if (stop)
			break;
		i = e + 1;
	}
	/* drop the last kept item (and the '.' before it) */
	rr_strbuf_setlen(&sb, last_start);
	*ret = (struct rr_version)RR_VERSION_INIT;
	if (kept >= 2 && rr_pep_version_parse(sb.buf, sb.len, false, ret, NULL) != RR_OK)
		*ret = (struct rr_version)RR_VERSION_INIT;
	rr_strbuf_release(&sb);
}

static rr_err parse_op(const char *s, size_t n, size_t *i, enum rr_spec_op *op)
{
	static const struct {
		const char *t;
		enum rr_spec_op op;
	} ops[] = {
		{"===", RR_OP_ARB}, {"~=", RR_OP_COMPAT}, {"==", RR_OP_EQ}, {"!=", RR_OP_NE},
		{"<=", RR_OP_LE},   {">=", RR_OP_GE},	  {"<", RR_OP_LT},  {">", RR_OP_GT},
	};

	for (size_t k = 0; k < RR_ARRAY_LEN(ops); k++) {
		size_t m = strlen(ops[k].t);
		if (n - *i >= m && memcmp(s + *i, ops[k].t, m) == 0) {
			*i += m;
			*op = ops[k].op;
			return RR_OK;
		}
	}
	return RR_E_PARSE;
}

static bool arb_char_ok(const char *s, size_t n)
{
	return *s != ';' && *s != ')' && rr_pep_space_len(s, n) == 0;
}

rr_err rr_spec_parse(const char *s, size_t len, struct rr_spec *ret, rr_error *err)
{
	struct rr_spec sp = {0};
	const char *vt;
	size_t vn;
	size_t i = 0;
	rr_err rc;

	rr_pep_skip_space(s, len, &i);
	if (parse_op(s, len, &i, &sp.op))
		return rr_pep_fail_col(err, RR_E_PARSE, i + 1,
				       "invalid specifier '%.*s': expected an operator "
				       "(==, !=, <=, >=, <, >, ~=, ===)",
				       (int)len, s);
	rr_pep_skip_space(s, len, &i);
	vt = s + i;
	vn = len - i;
	rr_pep_strip(&vt, &vn);
	if (sp.op == RR_OP_ARB) {
		for (size_t j = 0; j < vn; j++)
			if (!arb_char_ok(vt + j, vn - j))
				return rr_pep_fail_col(err, RR_E_PARSE, (size_t)(vt - s) + j + 1,
						       "invalid specifier '%.*s': unexpected '%c' "
						       "after '==='",
						       (int)len, s, vt[j]);
		sp.text = rr_xstrndup(vt, vn);
		sp.text_len = vn;
		sp.ver = (struct rr_version)RR_VERSION_INIT;
		sp.prefix = (struct rr_version)RR_VERSION_INIT;
		{
			/* packaging asks Version(text).is_prerelease; text that is no
			 * version names no pre-release (packaging would raise there) */
			struct rr_version tmp;
			if (rr_pep_version_parse(vt, vn, false, &tmp, NULL) == RR_OK) {
				sp.prereleases = rr_version_is_prerelease(&tmp);
				rr_version_release(&tmp);
			}
		}
		*ret = sp;
		return RR_OK;
	}
	if ((sp.op == RR_OP_EQ || sp.op == RR_OP_NE) && vn >= 2 && vt[vn - 2] == '.' &&
	    vt[vn - 1] == '*') {
		sp.wildcard = true;
		rc = rr_pep_version_parse(vt, vn - 2, false, &sp.ver, err);
		if (rc == RR_OK && has_suffix_parts(&sp.ver)) {
			rr_version_release(&sp.ver);
			return rr_pep_fail_col(err, RR_E_PARSE, (size_t)(vt - s) + 1,
					       "invalid specifier '%.*s': a '.*' prefix match takes "
					       "only a release number",
					       (int)len, s);
		}
	} else {
		rc = rr_pep_version_parse(vt, vn, false, &sp.ver, err);
	}
	if (rc) {
		if (err && err->col)
			err->col += (unsigned)(vt - s);
		if (err && rc == RR_E_PARSE)
			rr_error_prefix(err, "invalid specifier '%.*s': ", (int)len, s);
		return rc;
	}
	if (sp.ver.local && sp.op != RR_OP_EQ && sp.op != RR_OP_NE) {
		rr_version_release(&sp.ver);
		return rr_pep_fail_col(err, RR_E_PARSE, (size_t)(vt - s) + 1,
				       "invalid specifier '%.*s': a local version label is only "
				       "allowed with == and !=",
				       (int)len, s);
	}
	if (sp.op == RR_OP_COMPAT && sp.ver.nrelease < 2) {
		rr_version_release(&sp.ver);
		return rr_pep_fail_col(err, RR_E_PARSE, (size_t)(vt - s) + 1,
				       "invalid specifier '%.*s': '~=' needs at least two release "
				       "segments",
				       (int)len, s);
	}
	sp.text = rr_xstrndup(vt, vn);
	sp.text_len = vn;
	sp.prefix = (struct rr_version)RR_VERSION_INIT;
	if (sp.op == RR_OP_COMPAT)
		compat_prefix(vt, vn, &sp.prefix);
	sp.prereleases = (sp.op == RR_OP_EQ || sp.op == RR_OP_LE || sp.op == RR_OP_GE ||
			  sp.op == RR_OP_COMPAT) &&
			 rr_version_is_prerelease(&sp.ver);
	*ret = sp;
	return RR_OK;
}

void rr_spec_release(struct rr_spec *sp)
{
	if (!sp)
		return;
	sp->text = rr_free(sp->text);
	rr_version_release(&sp->ver);
	rr_version_release(&sp->prefix);
}

static void spec_copy(struct rr_spec *dst, const struct rr_spec *src)
{
	*dst = *src;
	dst->text = rr_xstrndup(src->text, src->text_len);
	rr_version_copy(&dst->ver, &src->ver);
	rr_version_copy(&dst->prefix, &src->prefix);
}

rr_err rr_specset_parse_n(const char *s, size_t len, struct rr_specset *ret, rr_error *err)
{
	struct rr_specset set = RR_SPECSET_INIT;
	size_t i = 0;

	while (i <= len) {
		size_t e = i;
		const char *it;
		size_t in;
		struct rr_spec sp;
		rr_err rc;

		while (e < len && s[e] != ',')
			e++;
		it = s + i;
		in = e - i;
		rr_pep_strip(&it, &in);
		if (in) {
			rc = rr_spec_parse(it, in, &sp, err);
			if (rc) {
				if (err && err->col)
					err->col += (unsigned)(it - s);
				rr_specset_release(&set);
				return rc;
			}
			RR_PUSH(set.items, set.n, set.cap) = sp;
		}
		i = e + 1;
	}
	*ret = set;
	return RR_OK;
}

rr_err rr_specset_parse(const char *s, struct rr_specset *ret, rr_error *err)
{
	return rr_specset_parse_n(s, strlen(s), ret, err);
}

void rr_specset_release(struct rr_specset *set)
{
	if (!set)
		return;
	for (size_t k = 0; k < set->n; k++)
		rr_spec_release(&set->items[k]);
	rr_free(set->items);
	*set = (struct rr_specset)RR_SPECSET_INIT;
}

void rr_specset_copy(struct rr_specset *dst, const struct rr_specset *src)
{
	*dst = (struct rr_specset)RR_SPECSET_INIT;
	rr_specset_add_all(dst, src);
}

void rr_specset_add_all(struct rr_specset *a, const struct rr_specset *b)
{
	size_t n = b->n; /* b may be a */

	for (size_t k = 0; k < n; k++) {
		struct rr_spec sp;
		spec_copy(&sp, &b->items[k]);
		RR_PUSH(a->items, a->n, a->cap) = sp;
	}
}

void rr_specset_format(const struct rr_specset *set, struct rr_strbuf *out)
{
	for (size_t k = 0; k < set->n; k++) {
		if (k)
			rr_strbuf_addch(out, ',');
		rr_strbuf_adds(out, rr_spec_op_to_string(set->items[k].op));
		rr_strbuf_add(out, set->items[k].text, set->items[k].text_len);
	}
}

const struct rr_spec *rr_specset_exact(const struct rr_specset *set)
{
	const struct rr_spec *found = NULL;

	/* other items may narrow the set further (even to nothing): callers still
	 * test candidates with rr_specset_contains() */
	for (size_t k = 0; k < set->n; k++) {
		const struct rr_spec *sp = &set->items[k];
		if ((sp->op == RR_OP_EQ && !sp->wildcard) || sp->op == RR_OP_ARB) {
			if (found)
				return NULL;
			found = sp;
		}
	}
	return found;
}

bool rr_specset_contains_lower(const struct rr_specset *set, const struct rr_version *v)
{
	for (size_t k = 0; k < set->n; k++) {
		const struct rr_spec *it = &set->items[k];
		switch (it->op) {
		case RR_OP_GE:
		case RR_OP_GT:
			if (!rr_spec_match(it, v))
				return false;
			break;
		case RR_OP_EQ:
		case RR_OP_COMPAT:
			/* the lower end: X (X.* and ~=X alike) */
			if (rr_version_cmp(v, &it->ver) < 0)
				return false;
			break;
		default:
			break; /* <, <=, !=, ===: no lower bound */
		}
	}
	return true;
}

bool rr_specset_mentions_prerelease(const struct rr_specset *set)
{
	for (size_t k = 0; k < set->n; k++)
		if (set->items[k].prereleases)
			return true;
	return false;
}

/* ---- matching --------------------------------------------------------- */

/*
 * One dotted token of packaging's _version_split(canonical form). With a
 * non-zero epoch the first token is "E!R0" (with the pre-release glued on
 * when the release has one segment), which is not a number.
 */
enum tok_kind { TOK_NUM, TOK_EPOCH, TOK_PRE, TOK_POST, TOK_DEV };

struct tok {
	enum tok_kind kind;
	uint64_t a;		 /* number, epoch, or pre/post/dev number */
	uint64_t b;		 /* TOK_EPOCH: first release segment */
	enum rr_pre_kind pre;	 /* TOK_PRE, TOK_EPOCH (glued pre-release) */
	uint64_t pre_n;
};

struct toks {
	const struct rr_version *v;
	size_t nrel;  /* release segments in the canonical form */
	size_t count; /* tokens */
	size_t rel;   /* leading all-digit tokens */
};

static void toks_init(struct toks *t, const struct rr_version *v, bool strip_zeros)
{
	t->v = v;
	t->nrel = v->nrelease;
	if (strip_zeros)
		while (t->nrel > 1 && v->release[t->nrel - 1] == 0)
			t->nrel--;
	if (v->epoch) {
		/* "E!R0[pre]" + R1.. (+ pre split off the last when nrel > 1) */
		t->count = t->nrel + (v->pre != RR_PRE_NONE && t->nrel > 1);
		t->rel = 0;
	} else {
		t->count = t->nrel + (v->pre != RR_PRE_NONE);
		t->rel = t->nrel;
	}
	t->count += v->has_post + v->has_dev;
}

static struct tok tok_at(const struct toks *t, size_t i)
{
	const struct rr_version *v = t->v;
	struct tok k = {TOK_NUM, 0, 0, RR_PRE_NONE, 0};
	size_t pre_idx;

	if (v->epoch && i == 0) {
		k.kind = TOK_EPOCH;
		k.a = v->epoch;
		k.b = v->release[0];
		if (t->nrel == 1) {
			k.pre = v->pre;
			k.pre_n = v->pre_n;
		}
		return k;
	}
	if (i < t->nrel) {
		k.a = v->release[i];
		return k;
	}
	pre_idx = t->nrel;
	if (v->pre != RR_PRE_NONE && !(v->epoch && t->nrel == 1)) {
		if (i == pre_idx) {
			k.kind = TOK_PRE;
			k.pre = v->pre;
			k.pre_n = v->pre_n;
			return k;
		}
		pre_idx++;
	}
	if (v->has_post) {
		if (i == pre_idx) {
			k.kind = TOK_POST;
			k.a = v->post;
			return k;
		}
		pre_idx++;
	}
	k.kind = TOK_DEV;
	k.a = v->dev;
	return k;
}

static bool tok_eq(const struct tok *x, const struct tok *y)
{
	return x->kind == y->kind && x->a == y->a && x->b == y->b && x->pre == y->pre &&
	       x->pre_n == y->pre_n;
}

/* packaging's _compare_equal for "==S.*": v's public part against prefix s */
static bool prefix_match(const struct rr_version *v, const struct rr_version *s)
{
	struct toks pt;
	struct toks st;
	size_t pad;

	if (!s->release)
		return false;
	toks_init(&pt, v, true);
	toks_init(&st, s, false);
	pad = st.rel > pt.rel ? st.rel - pt.rel : 0;
	if (pt.count + pad < st.count)
		return false;
	for (size_t i = 0; i < st.count; i++) {
		struct tok a;
		struct tok b = tok_at(&st, i);
		if (i < pt.rel)
			a = tok_at(&pt, i);
		else if (i < pt.rel + pad)
			a = (struct tok){TOK_NUM, 0, 0, RR_PRE_NONE, 0};
		else
			a = tok_at(&pt, i - pad);
		if (!tok_eq(&a, &b))
			return false;
	}
	return true;
}

/* Version(a.base_version) == Version(b.base_version) */
static bool base_eq(const struct rr_version *a, const struct rr_version *b)
{
	struct rr_version x = *a;
	struct rr_version y = *b;

	x.pre = y.pre = RR_PRE_NONE;
	x.pre_n = y.pre_n = 0;
	x.has_post = y.has_post = false;
	x.has_dev = y.has_dev = false;
	return rr_version_cmp_public(&x, &y) == 0;
}

/* str(v) into buf when it fits (the usual case); returns its length or 0 */
static size_t format_small(const struct rr_version *v, char *buf, size_t cap)
{
	static const char *const pre[] = {"", "a", "b", "rc"};
	size_t n = 0;
	int k;

#define ADDF(...)                                                                                  \
	do {                                                                                       \
		k = snprintf(buf + n, cap - n, __VA_ARGS__);                                       \
		if (k < 0 || (size_t)k >= cap - n)                                                 \
			return 0;                                                                  \
		n += (size_t)k;                                                                    \
	} while (0)
	if (v->epoch)
		ADDF("%llu!", (unsigned long long)v->epoch);
	for (size_t i = 0; i < v->nrelease; i++)
		ADDF(i ? ".%llu" : "%llu", (unsigned long long)v->release[i]);
	if (v->pre != RR_PRE_NONE)
		ADDF("%s%llu", pre[v->pre], (unsigned long long)v->pre_n);
	if (v->has_post)
		ADDF(".post%llu", (unsigned long long)v->post);
	if (v->has_dev)
		ADDF(".dev%llu", (unsigned long long)v->dev);
	if (v->local)
		ADDF("+%s", v->local);
#undef ADDF
	return n;
}

/* str(v).lower() == text.lower(); str(v) is lower-case ASCII already */
/* str(version) == text, case-insensitively, over all text_len bytes of text */
static bool arbitrary_eq(const struct rr_version *v, const char *text, size_t text_len)
{
	char buf[256];
	struct rr_strbuf sb = RR_STRBUF_INIT;
	const char *s = buf;
	size_t n = format_small(v, buf, sizeof(buf));
	size_t j = 0;
	bool eq = true;

	if (n == 0) {
		rr_version_format(v, &sb);
		s = sb.buf;
		n = sb.len;
	}
	for (size_t i = 0; i < n && eq; i++) {
		const unsigned char *t = (const unsigned char *)text + j;
		if (j + 3 <= text_len && t[0] == 0xe2 && t[1] == 0x84 && t[2] == 0xaa) {
			/* KELVIN SIGN: str.lower() turns it into ASCII 'k' */
			eq = s[i] == 'k';
			j += 3;
		} else {
			eq = j < text_len && rr_pep_lower(text[j]) == s[i];
			j++;
		}
	}
	eq = eq && j == text_len;
	rr_strbuf_release(&sb);
	return eq;
}

bool rr_spec_match(const struct rr_spec *sp, const struct rr_version *v)
{
	const struct rr_version *s = &sp->ver;
	int c;

	switch (sp->op) {
	case RR_OP_EQ:
	case RR_OP_NE: {
		bool eq;
		if (sp->wildcard)
			eq = prefix_match(v, s);
		else if (s->local)
			eq = rr_version_cmp(v, s) == 0;
		else
			eq = rr_version_cmp_public(v, s) == 0;
		return sp->op == RR_OP_EQ ? eq : !eq;
	}
	case RR_OP_LE:
		return rr_version_cmp_public(v, s) <= 0;
	case RR_OP_GE:
		return rr_version_cmp_public(v, s) >= 0;
	case RR_OP_LT:
		/* "<3.1" does not admit 3.1.dev0 or 3.1a1, unless it names a pre-release */
		if (rr_version_cmp_public(v, s) >= 0)
			return false;
		return !(!rr_version_is_prerelease(s) && rr_version_is_prerelease(v) &&
			 base_eq(v, s));
	case RR_OP_GT:
		/* ">3.1" admits neither 3.1.post1 (unless it names a post release)
		 * nor 3.1+local */
		c = rr_version_cmp(v, s);
		if (c <= 0)
			return false;
		if (!rr_version_is_postrelease(s) && rr_version_is_postrelease(v) && base_eq(v, s))
			return false;
		return !(v->local && base_eq(v, s));
	case RR_OP_COMPAT:
		return rr_version_cmp_public(v, s) >= 0 && prefix_match(v, &sp->prefix);
	case RR_OP_ARB:
		return arbitrary_eq(v, sp->text, sp->text_len);
	}
	return false;
}

bool rr_specset_contains(const struct rr_specset *set, const struct rr_version *v,
			 enum rr_pre_policy pre)
{
	bool allow;

	switch (pre) {
	case RR_PRE_POLICY_ALLOW:
		allow = true;
		break;
	case RR_PRE_POLICY_DENY:
		allow = false;
		break;
	default:
		/* an empty set has prereleases=None, which rejects pre-releases too */
		allow = rr_specset_mentions_prerelease(set);
		break;
	}
	if (!allow && rr_version_is_prerelease(v))
		return false;
	for (size_t k = 0; k < set->n; k++)
		if (!rr_spec_match(&set->items[k], v))
			return false;
	return true;
}

enum rr_python_verdict rr_requires_python(const char *text, const struct rr_version *python,
					  bool lower_only)
{
	struct rr_specset set = RR_SPECSET_INIT;
	bool ok;

	if (!text)
		return RR_PYTHON_ADMITS;
	if (rr_specset_parse(text, &set, NULL)) {
		rr_specset_release(&set);
		return RR_PYTHON_INVALID;
	}
	ok = lower_only ? rr_specset_contains_lower(&set, python)
			: rr_specset_contains(&set, python, RR_PRE_POLICY_ALLOW);
	rr_specset_release(&set);
	return ok ? RR_PYTHON_ADMITS : RR_PYTHON_EXCLUDES;
}

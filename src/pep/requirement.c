/*
 * requirement.c - PEP 508 dependency specifications, accepting exactly what
 * packaging.requirements.Requirement 23.0 accepts (see requirement.h).
 *
 * The parser walks packaging's grammar token by token with the shared
 * tokenizer (pep508-lex.h), so error offsets are the ones packaging reports.
 * What Requirement() checks after parsing is reproduced too: the URL through
 * the parts of urllib.parse.urlparse that decide acceptance, and the
 * specifier text through SpecifierSet (split on ',', strip, one Specifier
 * each, duplicates by canonical form dropped).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/pep508-lex.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

void rr_requirement_release(struct rr_requirement *r)
{
	free(r->name);
	free(r->key);
	for (size_t i = 0; i < r->nextras; i++)
		free(r->extras[i]);
	free(r->extras);
	rr_specset_release(&r->spec);
	free(r->url);
	rr_marker_free(r->marker);
	*r = (struct rr_requirement)RR_REQUIREMENT_INIT;
}

void rr_requirement_copy(struct rr_requirement *dst, const struct rr_requirement *src)
{
	*dst = (struct rr_requirement)RR_REQUIREMENT_INIT;
	dst->name = src->name ? rr_xstrdup(src->name) : NULL;
	dst->key = src->key ? rr_xstrdup(src->key) : NULL;
	if (src->nextras) {
		dst->extras = rr_xcalloc(src->nextras, sizeof(*dst->extras));
		for (size_t i = 0; i < src->nextras; i++)
			dst->extras[i] = rr_xstrdup(src->extras[i]);
		dst->nextras = src->nextras;
	}
	rr_specset_copy(&dst->spec, &src->spec);
	dst->url = src->url ? rr_xstrdup(src->url) : NULL;
	dst->marker = rr_marker_clone(src->marker);
}

/* ------------------------------------------------------------------------ */
/* URL acceptance: Requirement() runs urllib.parse.urlparse on it           */

static bool hex_ok(const char *s, size_t n)
{
	if (n < 1 || n > 4)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

static bool ipv4_ok(const char *s, size_t n)
{
	size_t i = 0;

	for (int oct = 0; oct < 4; oct++) {
		size_t b = i;
		unsigned v = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9' && i - b < 4)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i == b || i - b > 3 || v > 255 || (i - b > 1 && s[b] == '0'))
			return false;
		if (oct < 3) {
			if (i >= n || s[i] != '.')
				return false;
			i++;
		}
	}
	return i == n;
}

/* ipaddress.IPv6Address(s) accepts s (with an optional %scope) */
static bool ipv6_ok(const char *s, size_t n)
{
	const char *pct = memchr(s, '%', n);
	size_t starts[16], lens[16], np = 0, i = 0, skip = 0, hi, lo, groups;
	bool have_skip = false;

	if (pct) {
		size_t rest = n - (size_t)(pct - s) - 1;
		if (rest == 0 || memchr(pct + 1, '%', rest))
			return false;
		n = (size_t)(pct - s);
	}
	for (;;) {
		const char *c = memchr(s + i, ':', n - i);
		size_t e = c ? (size_t)(c - s) : n;
		if (np == RR_ARRAY_LEN(starts))
			return false;
		starts[np] = i;
		lens[np++] = e - i;
		if (!c)
			break;
		i = e + 1;
	}
	if (np < 3)
		return false;
	groups = 0;
	if (memchr(s + starts[np - 1], '.', lens[np - 1])) {
		if (!ipv4_ok(s + starts[np - 1], lens[np - 1]))
			return false;
		lens[np - 1] = 4; /* stands for two hextets */
		starts[np - 1] = SIZE_MAX;
		groups = 1;
	}
	if (np + groups > 9)
		return false;
	for (size_t k = 1; k + 1 < np; k++)
		if (lens[k] == 0) {
			if (have_skip)
				return false;
			have_skip = true;
			skip = k;
		}
	if (have_skip) {
		hi = skip;
		lo = np + groups - skip - 1;
		if (lens[0] == 0 && --hi)
			return false;
		if (lens[np - 1] == 0 && --lo)
			return false;
		if (hi + lo >= 8)
			return false;
	} else {
		if (np + groups != 8 || lens[0] == 0 || lens[np - 1] == 0)
			return false;
	}
	for (size_t k = 0; k < np; k++) {
		if (starts[k] == SIZE_MAX || lens[k] == 0)
			continue;
		if (!hex_ok(s + starts[k], lens[k]))
			return false;
	}
	return true;
}

static bool bracketed_netloc_ok(const char *nl, size_t n)
{
	const char *at = NULL, *hp, *ob, *cb, *host;
	size_t hn, hostn;

	for (size_t i = 0; i < n; i++)
		if (nl[i] == '@')
			at = nl + i;
	hp = at ? at + 1 : nl;
	hn = n - (size_t)(hp - nl);
	ob = memchr(hp, '[', hn);
	if (ob) {
		if (ob != hp)
			return false;
		host = ob + 1;
		cb = memchr(host, ']', hn - 1);
		hostn = cb ? (size_t)(cb - host) : hn - 1;
		if (cb && cb + 1 < hp + hn && cb[1] != ':')
			return false;
	} else {
		const char *colon = memchr(hp, ':', hn);
		host = hp;
		hostn = colon ? (size_t)(colon - hp) : hn;
	}
	if (hostn && host[0] == 'v') {
		/* \Av[a-fA-F0-9]+\..+\Z */
		size_t i = 1;
		while (i < hostn && hex_ok(host + i, 1))
			i++;
		if (i == 1 || i >= hostn || host[i] != '.' || i + 1 >= hostn)
			return false;
		return memchr(host + i + 1, '\n', hostn - i - 1) == NULL;
	}
	return ipv6_ok(host, hostn);
}

static bool url_ok(const char *url, size_t n)
{
	RR_AUTO_STRBUF struct rr_strbuf c = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf back = RR_STRBUF_INIT;
	size_t i = 0, colon, netn = 0, pathb, pathe, qb = 0, qe = 0, fb = 0, fe = 0;
	const char *p, *net = NULL;
	char scheme[64] = "";
	bool has_q = false, has_f = false, schemed = false;
	size_t on = n;

	/* lstrip C0 controls and space; drop tab, CR and LF */
	while (i < n && (unsigned char)url[i] <= 0x20)
		i++;
	for (; i < n; i++)
		if (url[i] != '\t' && url[i] != '\r' && url[i] != '\n')
			rr_strbuf_addch(&c, url[i]);
	p = c.buf;
	n = c.len;
	i = 0;
	p = memchr(c.buf, ':', c.len);
	colon = p ? (size_t)(p - c.buf) : 0;
	if (colon > 0 && ((c.buf[0] | 0x20) >= 'a' && (c.buf[0] | 0x20) <= 'z')) {
		bool ok = true;
		for (size_t k = 0; k < colon; k++) {
			char ch = c.buf[k];
			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.'))
				ok = false;
		}
		if (ok) {
			schemed = true;
			for (size_t k = 0; k < colon && k + 1 < sizeof(scheme); k++)
				scheme[k] = (char)((c.buf[k] >= 'A' && c.buf[k] <= 'Z') ? c.buf[k] + 32
											: c.buf[k]);
			scheme[colon < sizeof(scheme) - 1 ? colon : sizeof(scheme) - 1] = '\0';
			if (colon >= sizeof(scheme) - 1)
				scheme[0] = '?'; /* absurdly long: never "file" */
			i = colon + 1;
		}
	}
	if (n - i >= 2 && c.buf[i] == '/' && c.buf[i + 1] == '/') {
		size_t e = i + 2;
		while (e < n && c.buf[e] != '/' && c.buf[e] != '?' && c.buf[e] != '#')
			e++;
		net = c.buf + i + 2;
		netn = e - i - 2;
		i = e;
		bool ob = memchr(net, '[', netn) != NULL, cb = memchr(net, ']', netn) != NULL;
		if (ob != cb)
			return false;
		if (ob && !bracketed_netloc_ok(net, netn))
			return false;
	}
	pathb = i;
	pathe = n;
	p = memchr(c.buf + i, '#', n - i);
	if (p) {
		has_f = true;
		fb = (size_t)(p - c.buf) + 1;
		fe = n;
		pathe = fb - 1;
	}
	p = memchr(c.buf + pathb, '?', pathe - pathb);
	if (p) {
		has_q = true;
		qb = (size_t)(p - c.buf) + 1;
		qe = pathe;
		pathe = qb - 1;
	}
	if (!schemed || strcmp(scheme, "file") != 0)
		return schemed && scheme[0] && netn > 0;
	/* file: URLs must survive urlunparse(urlparse(url)) unchanged */
	{
		const char *path = c.buf + pathb;
		size_t pn = pathe - pathb;
		rr_strbuf_adds(&back, "file:");
		if (netn || !(pn >= 2 && path[0] == '/' && path[1] == '/')) {
			rr_strbuf_adds(&back, "//");
			rr_strbuf_add(&back, net ? net : "", netn);
			if (pn && path[0] != '/')
				rr_strbuf_addch(&back, '/');
		}
		rr_strbuf_add(&back, path, pn);
		if (has_q && qe > qb) {
			rr_strbuf_addch(&back, '?');
			rr_strbuf_add(&back, c.buf + qb, qe - qb);
		}
		if (has_f && fe > fb) {
			rr_strbuf_addch(&back, '#');
			rr_strbuf_add(&back, c.buf + fb, fe - fb);
		}
	}
	return back.len == on && memcmp(back.buf, url, on) == 0;
}

/* ------------------------------------------------------------------------ */
/* specifiers: SpecifierSet(text) of the concatenated SPECIFIER tokens      */

/* packaging's Specifier._canonical_spec, as one string "op version" */
static void canonical_spec(const char *op, const char *ver, struct rr_strbuf *out)
{
	struct rr_version v = RR_VERSION_INIT;
	bool strip = strcmp(op, "~=") != 0;
	size_t nrel;
	static const char *const pre[] = {"", "a", "b", "rc"};

	rr_strbuf_adds(out, op);
	rr_strbuf_addch(out, ' ');
	if (rr_version_parse(ver, &v, NULL) != RR_OK) {
		rr_strbuf_adds(out, ver);
		return;
	}
	if (v.epoch)
		rr_strbuf_addf(out, "%llu!", (unsigned long long)v.epoch);
	nrel = v.nrelease;
	while (strip && nrel > 1 && v.release[nrel - 1] == 0)
		nrel--;
	for (size_t i = 0; i < nrel; i++)
		rr_strbuf_addf(out, "%s%llu", i ? "." : "", (unsigned long long)v.release[i]);
	if (v.pre != RR_PRE_NONE)
		rr_strbuf_addf(out, "%s%llu", pre[v.pre], (unsigned long long)v.pre_n);
	if (v.has_post)
		rr_strbuf_addf(out, ".post%llu", (unsigned long long)v.post);
	if (v.has_dev)
		rr_strbuf_addf(out, ".dev%llu", (unsigned long long)v.dev);
	if (v.local)
		rr_strbuf_addf(out, "+%s", v.local);
	rr_version_release(&v);
}

/* str(Specifier): the operator and the version as written, both stripped */
static void spec_str(const struct rr_spec *sp, struct rr_strbuf *out)
{
	size_t tl = strlen(sp->text);

	rr_strbuf_adds(out, rr_spec_op_to_string(sp->op));
	rr_strbuf_adds(out, sp->text);
	if (sp->wildcard && !(tl >= 2 && sp->text[tl - 2] == '.' && sp->text[tl - 1] == '*'))
		rr_strbuf_adds(out, ".*");
}

struct piece {
	const char *s; /* into the concatenated text */
	size_t n;
	size_t col0;   /* offset in the input of the token it came from */
};

/* the canonical forms seen so far, found by hash: a set of 100k specifiers is linear */
struct keyset {
	struct rr_strbuf keys; /* each NUL-terminated */
	size_t *slots;         /* offset + 1 into keys, 0: empty */
	size_t cap, n;
};

static uint64_t key_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* false when key is in the set already, else it is added */
static bool keyset_add(struct keyset *ks, const char *key, size_t len)
{
	size_t at;

	if ((ks->n + 1) * 2 > ks->cap) {
		size_t *old = ks->slots, ocap = ks->cap;
		ks->cap = ocap ? ocap * 2 : 16;
		ks->slots = rr_xcalloc(ks->cap, sizeof(*ks->slots));
		for (size_t j = 0; j < ocap; j++) {
			const char *k;
			if (!old[j])
				continue;
			k = ks->keys.buf + old[j] - 1;
			at = (size_t)key_hash(k, strlen(k)) & (ks->cap - 1);
			while (ks->slots[at])
				at = (at + 1) & (ks->cap - 1);
			ks->slots[at] = old[j];
		}
		free(old);
	}
	at = (size_t)key_hash(key, len) & (ks->cap - 1);
	for (; ks->slots[at]; at = (at + 1) & (ks->cap - 1)) {
		const char *k = ks->keys.buf + ks->slots[at] - 1;
		if (strlen(k) == len && memcmp(k, key, len) == 0)
			return false;
	}
	ks->slots[at] = ks->keys.len + 1;
	rr_strbuf_add(&ks->keys, key, len);
	rr_strbuf_addch(&ks->keys, '\0');
	ks->n++;
	return true;
}

static rr_err build_specset(const char *text, size_t n, const size_t *tok_off,
			    const size_t *tok_start, size_t ntok, struct rr_specset *ret,
			    rr_error *err)
{
	struct rr_specset set = RR_SPECSET_INIT;
	struct keyset seen = {.keys = RR_STRBUF_INIT};
	size_t i = 0;
	size_t t = 0; /* the token the current specifier starts in: only ever moves on */
	rr_err rc = RR_OK;

	while (i <= n) {
		const char *c = memchr(text + i, ',', n - i);
		size_t e = c ? (size_t)(c - text) : n, b = i, oe, vs, ve;
		RR_AUTO_STRBUF struct rr_strbuf one = RR_STRBUF_INIT;
		RR_AUTO_STRBUF struct rr_strbuf key = RR_STRBUF_INIT;
		struct rr_spec sp;

		rr_lex_strip(text, e, &b, &e);
		i = (c ? (size_t)(c - text) : n) + 1;
		if (b == e)
			continue;
		while (t + 1 < ntok && tok_off[t + 1] <= b)
			t++;
		if (!rr_lex_spec_valid(text + b, e - b, &oe, &vs, &ve)) {
			rc = rr_lex_fail(err, tok_start[t], "invalid specifier '%.*s'", (int)(e - b),
					 text + b);
			break;
		}
		/* Specifier() keeps group("operator").strip() + group("version").strip() */
		{
			size_t os = 0, oend = oe;
			RR_AUTOFREE char *op = NULL;
			RR_AUTOFREE char *ver = rr_xstrndup(text + b + vs, ve - vs);
			rr_lex_strip(text + b, e - b, &os, &oend);
			op = rr_xstrndup(text + b + os, oend - os);
			canonical_spec(op, ver, &key);
			rr_strbuf_adds(&one, op);
			rr_strbuf_adds(&one, ver);
		}
		/* a set: a specifier equal (canonically) to an earlier one is dropped */
		if (!keyset_add(&seen, key.buf, key.len))
			continue;
		if ((rc = rr_spec_parse(one.buf, one.len, &sp, err))) {
			if (err)
				err->col = (unsigned)tok_start[t] + 1;
			break;
		}
		RR_PUSH(set.items, set.n, set.cap) = sp;
	}
	rr_strbuf_release(&seen.keys);
	free(seen.slots);
	if (rc) {
		rr_specset_release(&set);
		return rc;
	}
	/* no growth slack kept per requirement (1.5 KB each for a typical one or two specs) */
	if (set.cap > set.n && set.n) {
		set.items = rr_xrealloc(set.items, set.n * sizeof(*set.items));
		set.cap = set.n;
	}
	*ret = set;
	return RR_OK;
}

/* ------------------------------------------------------------------------ */
/* the parser                                                               */

static rr_err parse_extras(struct rr_lex *lx, struct rr_requirement *r, rr_error *err)
{
	size_t cap = 0, e;

	lx->pos++; /* '[' */
	rr_lex_ws(lx);
	if ((e = rr_lex_identifier(lx)) != RR_LEX_NO) {
		for (;;) {
			/* duplicates go after the list is read: a hash set, not a pairwise scan */
			RR_PUSH(r->extras, r->nextras, cap) = rr_xstrndup(lx->s + lx->pos, e - lx->pos);
			lx->pos = e;
			rr_lex_ws(lx);
			if (rr_lex_identifier(lx) != RR_LEX_NO)
				return rr_lex_fail(err, lx->pos, "expected ',' between extra names");
			if (lx->pos >= lx->n || lx->s[lx->pos] != ',')
				break;
			lx->pos++;
			rr_lex_ws(lx);
			if ((e = rr_lex_identifier(lx)) == RR_LEX_NO)
				return rr_lex_fail(err, lx->pos, "expected extra name after ','");
		}
	}
	r->nextras = rr_strv_dedupe(r->extras, r->nextras, NULL, NULL);
	rr_lex_ws(lx);
	if (lx->pos >= lx->n || lx->s[lx->pos] != ']')
		return rr_lex_fail(err, lx->pos, "expected ']' to close the extras");
	lx->pos++;
	return RR_OK;
}

static rr_err parse_marker_part(struct rr_lex *lx, struct rr_requirement *r, const char *after,
				rr_error *err)
{
	rr_err rc;

	if (lx->pos >= lx->n || lx->s[lx->pos] != ';')
		return rr_lex_fail(err, lx->pos, "expected end or ';' after %s", after);
	lx->pos++;
	if ((rc = rr_marker_parse_lex(lx, &r->marker, err)))
		return rc;
	rr_lex_ws(lx);
	return RR_OK;
}

static rr_err parse_req(const char *s, size_t n, struct rr_requirement *r, rr_error *err)
{
	struct rr_lex lx = {s, n, 0};
	size_t e, url_at = 0;
	rr_err rc;

	rr_lex_ws(&lx);
	if ((e = rr_lex_identifier(&lx)) == RR_LEX_NO)
		return rr_lex_fail(err, lx.pos, "expected package name at the start of dependency specifier");
	r->name = rr_xstrndup(s + lx.pos, e - lx.pos);
	r->key = rr_name_normalize_n(s + lx.pos, e - lx.pos);
	lx.pos = e;
	rr_lex_ws(&lx);
	if (lx.pos < n && s[lx.pos] == '[' && (rc = parse_extras(&lx, r, err)))
		return rc;
	rr_lex_ws(&lx);

	if (lx.pos < n && s[lx.pos] == '@') {
		size_t ub;
		lx.pos++;
		rr_lex_ws(&lx);
		ub = lx.pos;
		while (lx.pos < n && s[lx.pos] != ' ' && s[lx.pos] != '\t')
			lx.pos++;
		if (lx.pos == ub)
			return rr_lex_fail(err, ub, "expected URL after '@'");
		r->url = rr_xstrndup(s + ub, lx.pos - ub);
		url_at = ub;
		if (!rr_lex_end(&lx)) {
			/* the URL token ends at a blank, so a blank is what follows */
			rr_lex_ws(&lx);
			if (!rr_lex_end(&lx) &&
			    (rc = parse_marker_part(&lx, r, "URL and whitespace", err)))
				return rc;
		}
	} else {
		RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
		RR_AUTOFREE size_t *off = NULL;
		RR_AUTOFREE size_t *start = NULL;
		size_t ntok = 0, n1 = 0, cap1 = 0, cap2 = 0;
		bool paren = lx.pos < n && s[lx.pos] == '(';

		if (paren)
			lx.pos++;
		rr_lex_ws(&lx);
		while ((e = rr_lex_specifier(s, n, lx.pos)) != RR_LEX_NO) {
			RR_PUSH(off, n1, cap1) = text.len;
			RR_PUSH(start, ntok, cap2) = lx.pos;
			rr_strbuf_add(&text, s + lx.pos, e - lx.pos);
			lx.pos = e;
			rr_lex_ws(&lx);
			if (lx.pos >= n || s[lx.pos] != ',')
				break;
			rr_strbuf_addch(&text, ',');
			lx.pos++;
			rr_lex_ws(&lx);
		}
		rr_lex_ws(&lx);
		if (paren) {
			if (lx.pos >= n || s[lx.pos] != ')')
				return rr_lex_fail(err, lx.pos, "expected ')' to close the version specifier");
			lx.pos++;
		}
		if (ntok && (rc = build_specset(text.buf, text.len, off, start, ntok, &r->spec, err)))
			return rc;
		rr_lex_ws(&lx);
		if (!rr_lex_end(&lx)) {
			if (!ntok && !paren && s[lx.pos] != ';')
				return rr_lex_fail(err, lx.pos,
						   "expected version specifier or '@' after name");
			if ((rc = parse_marker_part(&lx, r, ntok ? "version specifier" : "name", err)))
				return rc;
		}
	}
	if (!rr_lex_end(&lx))
		return rr_lex_fail(err, lx.pos, "expected 'and', 'or' or end of marker");
	/* Requirement() looks at the URL only once the whole line has parsed */
	if (r->url && !url_ok(r->url, strlen(r->url)))
		return rr_lex_fail(err, url_at, "invalid URL '%s'", r->url);
	return RR_OK;
}

rr_err rr_requirement_parse_n(const char *s, size_t len, struct rr_requirement *ret,
			      rr_error *err)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	rr_err rc = parse_req(s, len, &r, err);

	if (rc) {
		rr_requirement_release(&r);
		return rc;
	}
	*ret = r;
	return RR_OK;
}

rr_err rr_requirement_parse(const char *s, struct rr_requirement *ret, rr_error *err)
{
	return rr_requirement_parse_n(s, strlen(s), ret, err);
}

/* ------------------------------------------------------------------------ */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rr_requirement_format(const struct rr_requirement *r, struct rr_strbuf *out)
{
	rr_strbuf_adds(out, r->name);
	if (r->nextras) {
		RR_AUTOFREE const char **sorted = rr_xcalloc(r->nextras, sizeof(*sorted));
		for (size_t i = 0; i < r->nextras; i++)
			sorted[i] = r->extras[i];
		rr_qsort(sorted, r->nextras, sizeof(*sorted), cmp_str);
		rr_strbuf_addch(out, '[');
		for (size_t i = 0; i < r->nextras; i++) {
			if (i)
				rr_strbuf_addch(out, ',');
			rr_strbuf_adds(out, sorted[i]);
		}
		rr_strbuf_addch(out, ']');
	}
	if (r->spec.n) {
		/* str(SpecifierSet) sorts its members' strings */
		char **strs = rr_xcalloc(r->spec.n, sizeof(*strs));
		for (size_t i = 0; i < r->spec.n; i++) {
			struct rr_strbuf sb = RR_STRBUF_INIT;
			spec_str(&r->spec.items[i], &sb);
			strs[i] = rr_strbuf_detach(&sb, NULL);
		}
		rr_qsort(strs, r->spec.n, sizeof(*strs), cmp_str);
		for (size_t i = 0; i < r->spec.n; i++) {
			if (i)
				rr_strbuf_addch(out, ',');
			rr_strbuf_adds(out, strs[i]);
			free(strs[i]);
		}
		free(strs);
	}
	if (r->url) {
		/* packaging 23.0 writes "name@ url" */
		rr_strbuf_addf(out, "@ %s", r->url);
		if (r->marker)
			rr_strbuf_addch(out, ' ');
	}
	if (r->marker) {
		rr_strbuf_adds(out, "; ");
		rr_marker_format(r->marker, out);
	}
}

char *rr_requirement_to_string(const struct rr_requirement *r)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_requirement_format(r, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

rr_err rr_requirement_applies(const struct rr_requirement *r, const struct rr_marker_env *env,
			      const char *const *extras, size_t nextras, bool *ret, rr_error *err)
{
	struct rr_marker_env e;
	static const char *const none[] = {""};

	if (!r->marker) {
		*ret = true;
		return RR_OK;
	}
	if (!nextras) {
		extras = none;
		nextras = 1;
	}
	e = *env;
	for (size_t i = 0; i < nextras; i++) {
		bool yes;
		rr_err rc;

		e.vars[RR_MVAR_EXTRA] = extras[i];
		if ((rc = rr_marker_eval(r->marker, &e, &yes, err)))
			return rc;
		if (yes) {
			*ret = true;
			return RR_OK;
		}
	}
	*ret = false;
	return RR_OK;
}

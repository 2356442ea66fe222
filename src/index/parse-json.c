/*
 * parse-json.c - PEP 691 JSON project pages from memory into struct
 * rr_index_project, with a strict streaming scanner. No I/O; fuzzed
 * (tests/fuzz/fuzz-simple-json.c, against the Jansson reference reader).
 *
 * A PEP 691 page is read in two steps: the JSON is reduced to one "view" per
 * file (each field's JSON kind and value), then rr_jconv_take() turns each view
 * into a file with the PEP's rules (rr_jpage_finish() checks the page's meta). Two
 * readers fill the views: a strict streaming scanner (the production path:
 * Jansson builds a DOM and reads a byte at a time, ~10x slower on a 1 MB torch
 * page) and Jansson itself (the reference, kept so tests and the fuzzer can
 * check the scanner against it).
 * Both accept exactly RFC 8259 JSON as Jansson does with flags 0: no \u0000,
 * strict UTF-8, depth <= 2048, integers within long long, finite reals, last
 * duplicate key wins.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "index/json-view.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

static rr_err json_fail(rr_error *err, const char *page_url, const char *what, size_t i)
{
	RR_AUTOFREE char *u = rr_url_redact(page_url);
	return rr_fail(err, RR_E_PARSE, "%s: files[%zu]: %s", u, i, what);
}

void rr_jval_clear(struct rr_jval *v)
{
	free(v->s);
	memset(v, 0, sizeof(*v));
}

void rr_jfile_clear(struct rr_jfile *f)
{
	rr_jval_clear(&f->filename);
	rr_jval_clear(&f->url);
	rr_jval_clear(&f->rp);
	rr_jval_clear(&f->yanked);
	rr_jval_clear(&f->size);
	rr_jval_clear(&f->hash_sha256);
	rr_jval_clear(&f->core.v);
	rr_jval_clear(&f->core.sha);
	rr_jval_clear(&f->ddim.v);
	rr_jval_clear(&f->ddim.sha);
	rr_jval_clear(&f->dim.v);
	rr_jval_clear(&f->dim.sha);
	f->hashes = RR_JK_ABSENT;
	f->k = RR_JK_ABSENT;
}

static void jpage_files_clear(struct rr_jpage *p)
{
	/* a later "files" replaces an earlier one, files, error and all */
	rr_index_project_release(&p->conv.p);
	rr_error_release(&p->conv.err);
	p->conv.cap = 0;
	p->conv.seen = 0;
	p->conv.rc = RR_OK;
}

void rr_jpage_release(struct rr_jpage *p)
{
	jpage_files_clear(p); /* the converted files and their error too */
	rr_jval_clear(&p->api_version);
	rr_jval_clear(&p->name);
}

static void meta_from_view(const struct rr_jmeta *m, bool *has, char **sha)
{
	if (m->v.k == RR_JK_TRUE) {
		*has = true;
	} else if (m->v.k == RR_JK_OBJ) {
		*has = true;
		if (m->sha.k == RR_JK_STR && rr_index_is_hex64(m->sha.s, m->sha.n))
			*sha = rr_index_lower_hex(m->sha.s, 64);
	}
}

/* is the file the view o (the i-th) names one cv->keep leaves out? Then it is counted,
 * or the page's error when its "url" or "hashes" breaks a rule (as for a file that
 * stays) */
static bool json_skips(struct rr_jconv *cv, const struct rr_jfile *o, size_t i)
{
	char *u = NULL;
	bool skip;

	if (!rr_index_href_plain(o->url.s) &&
	    !(u = rr_index_resolve_href(cv->page_url, o->url.s, NULL)))
		return false; /* the reader says why */
	skip = rr_index_keep_skips(cv->keep, o->filename.s, o->filename.n, u ? u : o->url.s);
	free(u);
	if (!skip)
		return false;
	if (o->hashes != RR_JK_ABSENT && o->hashes != RR_JK_OBJ)
		cv->rc = json_fail(&cv->err, cv->page_url, "\"hashes\" must be an object", i);
	else
		cv->p.nforeign++;
	return true;
}

void rr_jconv_take(struct rr_jconv *cv, struct rr_jfile *o)
{
	struct rr_index_file *f;
	const struct rr_jmeta *md;
	size_t i = cv->seen++;
	char *abs;

	if (cv->rc)
		return;
	if (o->k != RR_JK_OBJ) {
		cv->rc = json_fail(&cv->err, cv->page_url, "not an object", i);
		return;
	}
	if (o->filename.k != RR_JK_STR || o->url.k != RR_JK_STR || !o->filename.n) {
		cv->rc = json_fail(&cv->err, cv->page_url, "\"filename\" and \"url\" must be strings",
				   i);
		return;
	}
	if (cv->keep && json_skips(cv, o, i))
		return;
	abs = rr_index_resolve_href(cv->page_url, o->url.s, NULL);
	if (!abs) {
		cv->rc = json_fail(&cv->err, cv->page_url, "bad \"url\"", i);
		return;
	}
	f = rr_index_project_add_file(&cv->p, &cv->cap, RR_STEAL(o->filename.s), abs,
				      cv->index_url);
	if (!f)
		return;
	if (o->hashes != RR_JK_ABSENT && o->hashes != RR_JK_OBJ) {
		cv->rc = json_fail(&cv->err, cv->page_url, "\"hashes\" must be an object", i);
		return;
	}
	if (o->hash_sha256.k == RR_JK_STR && rr_index_is_hex64(o->hash_sha256.s, o->hash_sha256.n))
		f->sha256 = rr_index_lower_hex(o->hash_sha256.s, 64);
	if (o->rp.k == RR_JK_STR && o->rp.n)
		f->requires_python = RR_STEAL(o->rp.s);
	if (o->yanked.k == RR_JK_TRUE) {
		f->yanked = true;
	} else if (o->yanked.k == RR_JK_STR) {
		/* PEP 592: a string is a reason and means yanked, even when empty */
		f->yanked = true;
		if (o->yanked.n)
			f->yanked_reason = RR_STEAL(o->yanked.s);
	}
	/* PEP 714: prefer core-metadata, fall back to the older spellings */
	md = o->core.v.k != RR_JK_ABSENT ? &o->core
	     : o->ddim.v.k != RR_JK_ABSENT ? &o->ddim
					: &o->dim;
	meta_from_view(md, &f->has_metadata, &f->metadata_sha256);
	if (o->size.k == RR_JK_INT && o->size.i >= 0)
		f->size = o->size.i;
}

rr_err rr_jpage_finish(struct rr_jpage *jp, struct rr_index_project *out, rr_error *err)
{
	struct rr_jconv *cv = &jp->conv;
	rr_err rc;

	if (jp->have_meta) {
		if (jp->meta_k != RR_JK_OBJ || jp->api_version.k != RR_JK_STR) {
			RR_AUTOFREE char *u = rr_url_redact(cv->page_url);
			return rr_fail(err, RR_E_PARSE, "%s: meta.api-version missing", u);
		}
		if ((rc = rr_index_check_api_version(jp->api_version.s, cv->page_url, err)))
			return rc;
	}
	if (jp->files_k != RR_JK_ARR) {
		RR_AUTOFREE char *u = rr_url_redact(cv->page_url);
		return rr_fail(err, RR_E_PARSE, "%s: no \"files\" array", u);
	}
	if (cv->rc) {
		rr_error_move(err, &cv->err);
		return cv->rc;
	}
	rr_index_project_release(out);
	*out = cv->p;
	memset(&cv->p, 0, sizeof(cv->p));
	if (jp->name.k == RR_JK_STR)
		out->key = rr_name_normalize(jp->name.s);
	return RR_OK;
}

void rr_jpage_init(struct rr_jpage *jp, const char *page_url, const char *index_url)
{
	memset(jp, 0, sizeof(*jp));
	jp->conv.page_url = page_url;
	jp->conv.index_url = index_url;
	jp->conv.err = (rr_error)RR_ERROR_INIT;
}

/* ---- the reader: a strict streaming scanner ---- */

struct jscan {
	const unsigned char *p, *end, *start;
	int depth;
	const char *why;
	struct rr_strbuf sb; /* scratch for decoded strings */
};

#define JMAX_DEPTH 2048

static void jws(struct jscan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool j4hex(struct jscan *s, unsigned *v)
{
	*v = 0;
	if (s->end - s->p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		int d = rr_hex_digit(s->p[i]);
		if (d < 0)
			return false;
		*v = *v * 16 + (unsigned)d;
	}
	s->p += 4;
	return true;
}

/* length of a valid UTF-8 sequence at p (first byte >= 0x80), 0 when invalid */
static size_t jutf8_len(const unsigned char *p, const unsigned char *end)
{
	unsigned char c = p[0];
	size_t n;
	unsigned long cp;

	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

/*
 * at '"': validate the string; when keep, its decoded bytes are in s->sb.
 * Plain runs are copied in bulk: escapes are rare in index pages.
 */
static bool jstring(struct jscan *s, bool keep)
{
	s->p++;
	if (keep)
		rr_strbuf_reset(&s->sb);
	for (;;) {
		const unsigned char *run = s->p;
		while (s->p < s->end && *s->p >= 0x20 && *s->p != '"' && *s->p != '\\' && *s->p < 0x80)
			s->p++;
		if (keep && s->p > run)
			rr_strbuf_add(&s->sb, run, (size_t)(s->p - run));
		if (s->p >= s->end)
			return s->why = "unterminated string", false;
		if (*s->p == '"') {
			s->p++;
			return true;
		}
		if (*s->p < 0x20)
			return s->why = "control character in string", false;
		if (*s->p >= 0x80) {
			size_t n = jutf8_len(s->p, s->end);
			if (!n)
				return s->why = "invalid UTF-8", false;
			if (keep)
				rr_strbuf_add(&s->sb, s->p, n);
			s->p += n;
			continue;
		}
		/* backslash */
		s->p++;
		if (s->p >= s->end)
			return s->why = "unterminated string", false;
		{
			unsigned char e = *s->p++;
			unsigned v, lo;
			char ch;
			switch (e) {
			case '"': ch = '"'; break;
			case '\\': ch = '\\'; break;
			case '/': ch = '/'; break;
			case 'b': ch = '\b'; break;
			case 'f': ch = '\f'; break;
			case 'n': ch = '\n'; break;
			case 'r': ch = '\r'; break;
			case 't': ch = '\t'; break;
			case 'u':
				if (!j4hex(s, &v))
					return s->why = "invalid escape", false;
				if (v == 0)
					return s->why = "\\u0000 is not allowed", false;
				if (v >= 0xDC00 && v <= 0xDFFF)
					return s->why = "invalid Unicode escape", false;
				if (v >= 0xD800 && v <= 0xDBFF) {
					if (s->end - s->p < 6 || s->p[0] != '\\' || s->p[1] != 'u')
						return s->why = "invalid Unicode escape", false;
					s->p += 2;
					if (!j4hex(s, &lo))
						return s->why = "invalid escape", false;
					if (lo < 0xDC00 || lo > 0xDFFF)
						return s->why = "invalid Unicode escape", false;
					if (keep)
						rr_index_utf8_put(&s->sb, 0x10000 + (((unsigned long)v - 0xD800) << 10) +
								      (lo - 0xDC00));
				} else if (keep) {
					rr_index_utf8_put(&s->sb, v);
				}
				continue;
			default:
				return s->why = "invalid escape", false;
			}
			if (keep)
				rr_strbuf_addch(&s->sb, ch);
		}
	}
}

static bool jnumber(struct jscan *s, struct rr_jval *out)
{
	const unsigned char *st = s->p;
	bool real = false;
	char buf[64];
	RR_AUTOFREE char *big = NULL;
	char *num;
	size_t n;

	if (*s->p == '-')
		s->p++;
	if (s->p >= s->end)
		return s->why = "invalid number", false;
	if (*s->p == '0') {
		s->p++;
		if (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			return s->why = "invalid number", false;
	} else if (*s->p >= '1' && *s->p <= '9') {
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	} else {
		return s->why = "invalid number", false;
	}
	if (s->p < s->end && *s->p == '.') {
		real = true;
		s->p++;
		if (s->p >= s->end || *s->p < '0' || *s->p > '9')
			return s->why = "invalid number", false;
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		real = true;
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (s->p >= s->end || *s->p < '0' || *s->p > '9')
			return s->why = "invalid number", false;
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	}
	n = (size_t)(s->p - st);
	if (n < sizeof(buf)) {
		memcpy(buf, st, n);
		buf[n] = '\0';
		num = buf;
	} else {
		num = big = rr_xstrndup((const char *)st, n);
	}
	errno = 0;
	if (real) {
		double d = strtod(num, NULL);
		if (errno == ERANGE && (d > 1 || d < -1))
			return s->why = "real number overflow", false;
		if (out)
			out->k = RR_JK_REAL;
	} else {
		long long v = strtoll(num, NULL, 10);
		if (errno == ERANGE)
			return s->why = "too big integer", false;
		if (out) {
			out->k = RR_JK_INT;
			out->i = v;
		}
	}
	return true;
}

static bool jlit(struct jscan *s, const char *w, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, w, n) != 0)
		return s->why = "invalid token", false;
	s->p += n;
	/* Jansson lexes a run of letters as one token */
	if (s->p < s->end && ((*s->p >= 'a' && *s->p <= 'z') || (*s->p >= 'A' && *s->p <= 'Z')))
		return s->why = "invalid token", false;
	return true;
}

/* what to do with the members of an object being scanned */
typedef bool (*jmember_fn)(struct jscan *s, const char *key, size_t klen, void *ud);

static bool jvalue(struct jscan *s, struct rr_jval *out, jmember_fn on_member, void *ud);

static bool jobject(struct jscan *s, jmember_fn on_member, void *ud)
{
	s->p++;
	jws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		/* the key lives in s->sb until the member's value is scanned: callbacks
		 * look at it before they scan anything */
		const char *key;
		size_t klen;
		jws(s);
		if (s->p >= s->end || *s->p != '"')
			return s->why = "string or '}' expected", false;
		if (!jstring(s, on_member != NULL))
			return false;
		klen = s->sb.len;
		key = s->sb.buf;
		jws(s);
		if (s->p >= s->end || *s->p != ':')
			return s->why = "':' expected", false;
		s->p++;
		jws(s);
		if (on_member) {
			if (!on_member(s, key, klen, ud))
				return false;
		} else if (!jvalue(s, NULL, NULL, NULL)) {
			return false;
		}
		jws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			return true;
		}
		return s->why = "',' or '}' expected", false;
	}
}

typedef bool (*jelem_fn)(struct jscan *s, void *ud);

static bool jarray(struct jscan *s, jelem_fn on_elem, void *ud)
{
	s->p++;
	jws(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return true;
	}
	for (;;) {
		jws(s);
		if (on_elem) {
			if (!on_elem(s, ud))
				return false;
		} else if (!jvalue(s, NULL, NULL, NULL)) {
			return false;
		}
		jws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return true;
		}
		return s->why = "',' or ']' expected", false;
	}
}

/* any value; out (may be NULL) gets its kind and, for strings/ints, its value */
static bool jvalue(struct jscan *s, struct rr_jval *out, jmember_fn on_member, void *ud)
{
	bool ok;

	if (++s->depth > JMAX_DEPTH)
		return s->why = "maximum parsing depth reached", false;
	if (out)
		rr_jval_clear(out);
	if (s->p >= s->end)
		return s->why = "unexpected end of input", false;
	switch (*s->p) {
	case '{':
		ok = jobject(s, on_member, ud);
		if (out)
			out->k = RR_JK_OBJ;
		break;
	case '[':
		ok = jarray(s, NULL, NULL);
		if (out)
			out->k = RR_JK_ARR;
		break;
	case '"':
		ok = jstring(s, out != NULL);
		if (ok && out) {
			out->k = RR_JK_STR;
			out->n = s->sb.len;
			out->s = rr_xstrndup(s->sb.buf, s->sb.len);
		}
		break;
	case 't':
		ok = jlit(s, "true", 4);
		if (out)
			out->k = RR_JK_TRUE;
		break;
	case 'f':
		ok = jlit(s, "false", 5);
		if (out)
			out->k = RR_JK_FALSE;
		break;
	case 'n':
		ok = jlit(s, "null", 4);
		if (out)
			out->k = RR_JK_NULL;
		break;
	default:
		ok = jnumber(s, out);
		break;
	}
	s->depth--;
	return ok;
}

#define KEYIS(lit) (klen == sizeof(lit) - 1 && memcmp(key, lit, sizeof(lit) - 1) == 0)

/* inside {"sha256": ...} objects: remember sha256 */
static bool jm_sha(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct rr_jval *sha = ud;
	if (KEYIS("sha256"))
		return jvalue(s, sha, NULL, NULL);
	return jvalue(s, NULL, NULL, NULL);
}

static bool jm_metafield(struct jscan *s, struct rr_jmeta *m)
{
	rr_jval_clear(&m->sha);
	/* an object value: its sha256 is read while scanning it */
	if (s->p < s->end && *s->p == '{')
		return jvalue(s, &m->v, jm_sha, &m->sha);
	return jvalue(s, &m->v, NULL, NULL);
}

static bool jm_file(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct rr_jfile *f = ud;

	if (KEYIS("filename"))
		return jvalue(s, &f->filename, NULL, NULL);
	if (KEYIS("url"))
		return jvalue(s, &f->url, NULL, NULL);
	if (KEYIS("requires-python"))
		return jvalue(s, &f->rp, NULL, NULL);
	if (KEYIS("yanked"))
		return jvalue(s, &f->yanked, NULL, NULL);
	if (KEYIS("size"))
		return jvalue(s, &f->size, NULL, NULL);
	if (KEYIS("hashes")) {
		struct rr_jval k = {0};
		bool ok;
		rr_jval_clear(&f->hash_sha256);
		ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_sha : NULL, &f->hash_sha256);
		f->hashes = k.k;
		rr_jval_clear(&k);
		return ok;
	}
	if (KEYIS("core-metadata"))
		return jm_metafield(s, &f->core);
	if (KEYIS("data-dist-info-metadata"))
		return jm_metafield(s, &f->ddim);
	if (KEYIS("dist-info-metadata"))
		return jm_metafield(s, &f->dim);
	return jvalue(s, NULL, NULL, NULL);
}

static bool je_file(struct jscan *s, void *ud)
{
	struct rr_jpage *p = ud;
	struct rr_jfile f;
	struct rr_jval k = {0};
	bool ok;

	/* into a file at once: a page's views never all exist together (a 7 MB page
	 * held ~11 MB of them) */
	memset(&f, 0, sizeof(f));
	ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_file : NULL, &f);
	f.k = k.k;
	rr_jval_clear(&k);
	if (ok)
		rr_jconv_take(&p->conv, &f);
	rr_jfile_clear(&f);
	return ok;
}

static bool jm_meta(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct rr_jpage *p = ud;
	if (KEYIS("api-version"))
		return jvalue(s, &p->api_version, NULL, NULL);
	return jvalue(s, NULL, NULL, NULL);
}

static bool jm_root(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct rr_jpage *p = ud;
	struct rr_jval k = {0};
	bool ok;

	if (KEYIS("meta")) {
		p->have_meta = true;
		rr_jval_clear(&p->api_version); /* a later "meta" replaces an earlier one */
		ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_meta : NULL, p);
		p->meta_k = k.k;
		rr_jval_clear(&k);
		return ok;
	}
	if (KEYIS("name"))
		return jvalue(s, &p->name, NULL, NULL);
	if (KEYIS("files")) {
		jpage_files_clear(p);
		if (s->p < s->end && *s->p == '[') {
			if (++s->depth > JMAX_DEPTH)
				return s->why = "maximum parsing depth reached", false;
			ok = jarray(s, je_file, p);
			s->depth--;
			p->files_k = RR_JK_ARR;
			return ok;
		}
		ok = jvalue(s, &k, NULL, NULL);
		p->files_k = k.k;
		rr_jval_clear(&k);
		return ok;
	}
	return jvalue(s, NULL, NULL, NULL);
}

#undef KEYIS

rr_err rr_index_parse_json(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err)
{
	return rr_index_parse_json_keep(data, len, page_url, index_url, NULL, out, err);
}

rr_err rr_index_parse_json_keep(const char *data, size_t len, const char *page_url,
				const char *index_url, struct rr_index_keep *keep,
				struct rr_index_project *out, rr_error *err)
{
	struct jscan s = {.p = (const unsigned char *)data,
			  .end = (const unsigned char *)data + len,
			  .start = (const unsigned char *)data,
			  .sb = RR_STRBUF_INIT};
	struct rr_jpage jp;
	struct rr_jval root = {0};
	bool ok;
	rr_err rc;

	rr_jpage_init(&jp, page_url, index_url);
	jp.conv.keep = keep;
	jws(&s);
	if (s.p < s.end && *s.p != '{' && *s.p != '[') {
		ok = false;
		s.why = "'[' or '{' expected";
	} else {
		ok = jvalue(&s, &root, jm_root, &jp);
		if (ok) {
			jws(&s);
			if (s.p != s.end) {
				ok = false;
				s.why = "end of file expected";
			}
		}
	}
	rr_strbuf_release(&s.sb);
	if (!ok) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		size_t line = 1, col = 1;
		for (const unsigned char *q = s.start; q < s.p && q < s.end; q++) {
			if (*q == '\n')
				line++, col = 1;
			else
				col++;
		}
		rr_jpage_release(&jp);
		rr_jval_clear(&root);
		return rr_fail(err, RR_E_PARSE, "%s: invalid JSON at line %zu column %zu: %s", u,
			       line, col, s.why);
	}
	if (root.k != RR_JK_OBJ) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		rr_jpage_release(&jp);
		return rr_fail(err, RR_E_PARSE, "%s: expected a JSON object", u);
	}
	rc = rr_jpage_finish(&jp, out, err);
	rr_jpage_release(&jp);
	return rc;
}

/*
 * parse.c - project pages from memory: PEP 691 JSON, PEP 503 HTML and the
 * Warehouse JSON API, into struct rr_index_project. No I/O; fuzzed.
 *
 * Files whose names are neither wheels nor sdists (.egg, .exe, ...) are
 * skipped: nothing downstream can use them. Malformed pages are errors that
 * name the page URL; we never guess at what a broken page meant.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index/index-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

static void file_release(struct rr_index_file *f)
{
	free(f->filename);
	free(f->url);
	free(f->sha256);
	free(f->requires_python);
	free(f->yanked_reason);
	free(f->metadata_sha256);
	free(f->version);
}

void rr_index_project_release(struct rr_index_project *p)
{
	for (size_t i = 0; !p->arena && i < p->nfiles; i++)
		file_release(&p->files[i]);
	free(p->arena);
	free(p->files);
	free(p->key);
	free(p->index_url);
	memset(p, 0, sizeof(*p));
}

static bool is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return false;
	return true;
}

static char *lower_hex(const char *s, size_t n)
{
	char *r = rr_xstrndup(s, n);
	for (char *p = r; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

/* UTF-8 encode a code point (<= 0x10FFFF) */
static void jutf8(struct rr_strbuf *sb, unsigned long cp)
{
	if (cp < 0x80) {
		rr_strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		rr_strbuf_addch(sb, (char)(0xC0 | (cp >> 6)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		rr_strbuf_addch(sb, (char)(0xE0 | (cp >> 12)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else {
		rr_strbuf_addch(sb, (char)(0xF0 | (cp >> 18)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
		rr_strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		rr_strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	}
}

/* "sha256=<hex>" -> hex; anything else (other algorithms, "true") -> NULL */
static char *hash_from_attr(const char *v)
{
	if (strncasecmp(v, "sha256=", 7) == 0 && is_hex64(v + 7, strlen(v + 7)))
		return lower_hex(v + 7, 64);
	return NULL;
}

/*
 * Classify by filename and take the version text out of it: wheel
 * "{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl"; sdist "{name}-{ver}.<ext>".
 * Returns false for files we don't handle.
 */
static bool classify(const char *fn, bool *is_wheel, char **version)
{
	static const char *const sdist_ext[] = {".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz",
						".tar"};
	size_t n = strlen(fn);

	if (strchr(fn, '/'))
		return false;
	if (n > 4 && strcasecmp(fn + n - 4, ".whl") == 0) {
		const char *d1 = strchr(fn, '-');
		const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
		int dashes = 0;
		for (const char *p = fn; *p; p++)
			dashes += *p == '-';
		if (!d2 || d2 == d1 + 1 || d1 == fn || (dashes != 4 && dashes != 5))
			return false;
		*is_wheel = true;
		*version = rr_xstrndup(d1 + 1, (size_t)(d2 - d1 - 1));
		return true;
	}
	for (size_t i = 0; i < RR_ARRAY_LEN(sdist_ext); i++) {
		size_t k = strlen(sdist_ext[i]);
		const char *dash;
		size_t stem;
		if (n <= k || strcasecmp(fn + n - k, sdist_ext[i]) != 0)
			continue;
		stem = n - k;
		dash = NULL;
		for (size_t j = 0; j < stem; j++)
			if (fn[j] == '-')
				dash = fn + j;
		if (!dash || dash == fn || (size_t)(dash - fn) + 1 >= stem)
			return false;
		*is_wheel = false;
		*version = rr_xstrndup(dash + 1, stem - (size_t)(dash - fn) - 1);
		return true;
	}
	return false;
}

/* takes ownership of filename and url (absolute, fragment stripped) */
static struct rr_index_file *add_file(struct rr_index_project *p, size_t *cap, char *filename,
				      char *url, const char *index_url)
{
	bool wheel;
	char *version;
	struct rr_index_file *f;

	if (!classify(filename, &wheel, &version)) {
		free(filename);
		free(url);
		return NULL;
	}
	f = &RR_PUSH(p->files, p->nfiles, *cap);
	memset(f, 0, sizeof(*f));
	f->filename = filename;
	f->url = url;
	f->is_wheel = wheel;
	f->version = version;
	f->size = -1;
	f->index_url = index_url;
	return f;
}

/* absolute URL, fragment split off into *frag (may be NULL) */
static bool plain_absolute(const char *u)
{
	/* already absolute and free of anything curl would rewrite: skip the URL parser,
	 * which dominates parse time on big pages */
	if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0)
		return false;
	for (const char *p = u; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '\\' || *p == '@' || (unsigned char)*p >= 0x7f)
			return false;
	return !strstr(u, "/./") && !strstr(u, "/../");
}

static char *resolve(const char *page_url, const char *href, char **frag)
{
	char *abs = plain_absolute(href) ? rr_xstrdup(href) : rr_url_join(page_url, href);
	char *hash;

	if (!abs)
		return NULL;
	hash = strchr(abs, '#');
	if (frag)
		*frag = hash ? rr_xstrdup(hash + 1) : NULL;
	if (hash)
		*hash = '\0';
	return abs;
}

/* ---- PEP 691 JSON ---- */

static rr_err json_fail(rr_error *err, const char *page_url, const char *what, size_t i)
{
	RR_AUTOFREE char *u = rr_url_redact(page_url);
	return rr_fail(err, RR_E_PARSE, "%s: files[%zu]: %s", u, i, what);
}

static rr_err check_api_version(const char *v, const char *page_url, rr_error *err)
{
	char *end;
	long major = strtol(v, &end, 10);

	if (end == v || (*end && *end != '.')) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		return rr_fail(err, RR_E_PARSE, "%s: bad repository version '%s'", u, v);
	}
	/* PEP 629: a major version we don't know means we must not guess */
	if (major != 1) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		return rr_fail(err, RR_E_UNSUPPORTED, "%s: unsupported repository version '%s'",
			       u, v);
	}
	return RR_OK;
}

static rr_err json_load(const char *data, size_t len, const char *page_url, json_t **ret,
			rr_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(data, len, 0, &je);

	if (!root) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		return rr_fail(err, RR_E_PARSE, "%s: invalid JSON at line %d column %d: %s", u,
			       je.line, je.column, je.text);
	}
	if (!json_is_object(root)) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		json_decref(root);
		return rr_fail(err, RR_E_PARSE, "%s: expected a JSON object", u);
	}
	*ret = root;
	return RR_OK;
}

/*
 * A PEP 691 page is read in two steps: the JSON is reduced to one "view" per
 * file (each field's JSON kind and value), then take_file() turns each view
 * into a file with the PEP's rules (finish_files() checks the page's meta). Two
 * readers fill the views: a strict streaming scanner (the production path:
 * Jansson builds a DOM and reads a byte at a time, ~10x slower on a 1 MB torch
 * page) and Jansson itself (the reference, kept so tests and the fuzzer can
 * check the scanner against it).
 * Both accept exactly RFC 8259 JSON as Jansson does with flags 0: no \u0000,
 * strict UTF-8, depth <= 2048, integers within long long, finite reals, last
 * duplicate key wins.
 */
enum jk { JK_ABSENT, JK_NULL, JK_FALSE, JK_TRUE, JK_INT, JK_REAL, JK_STR, JK_OBJ, JK_ARR };

struct jval {
	enum jk k;
	char *s; /* JK_STR: owned, NUL-free */
	size_t n;
	long long i;
};

/* a metadata-ish field: bool or {"sha256": ...} */
struct jmeta {
	struct jval v;
	struct jval sha; /* JK_OBJ only: its "sha256" */
};

struct jfile {
	enum jk k; /* the element itself */
	struct jval filename, url, rp, yanked, size;
	enum jk hashes;
	struct jval hash_sha256;
	struct jmeta core, ddim, dim; /* core-metadata, data-dist-info-metadata, dist-info-metadata */
};

/* views turned into files as they come: the first file that breaks a rule is kept
 * as the error (reported once the page is known to be valid JSON with a valid meta) */
struct jconv {
	const char *page_url, *index_url;
	struct rr_index_project p;
	size_t cap;
	size_t seen; /* views offered so far: the next one's index */
	rr_err rc;
	rr_error err;
};

struct jpage {
	bool have_meta;
	enum jk meta_k;
	struct jval api_version; /* meta."api-version" */
	struct jval name;
	enum jk files_k;
	struct jfile *files; /* the Jansson reader's views (the scanner converts at once) */
	size_t nfiles, cap;
	struct jconv conv;
};

static void jval_clear(struct jval *v)
{
	free(v->s);
	memset(v, 0, sizeof(*v));
}

static void jfile_clear(struct jfile *f)
{
	jval_clear(&f->filename);
	jval_clear(&f->url);
	jval_clear(&f->rp);
	jval_clear(&f->yanked);
	jval_clear(&f->size);
	jval_clear(&f->hash_sha256);
	jval_clear(&f->core.v);
	jval_clear(&f->core.sha);
	jval_clear(&f->ddim.v);
	jval_clear(&f->ddim.sha);
	jval_clear(&f->dim.v);
	jval_clear(&f->dim.sha);
	f->hashes = JK_ABSENT;
	f->k = JK_ABSENT;
}

static void jpage_files_clear(struct jpage *p)
{
	for (size_t i = 0; i < p->nfiles; i++)
		jfile_clear(&p->files[i]);
	p->nfiles = 0;
	/* a later "files" replaces an earlier one, files, error and all */
	rr_index_project_release(&p->conv.p);
	rr_error_release(&p->conv.err);
	p->conv.cap = 0;
	p->conv.seen = 0;
	p->conv.rc = RR_OK;
}

static void jpage_release(struct jpage *p)
{
	jpage_files_clear(p); /* the converted files and their error too */
	free(p->files);
	jval_clear(&p->api_version);
	jval_clear(&p->name);
}

static void meta_from_view(const struct jmeta *m, bool *has, char **sha)
{
	if (m->v.k == JK_TRUE) {
		*has = true;
	} else if (m->v.k == JK_OBJ) {
		*has = true;
		if (m->sha.k == JK_STR && is_hex64(m->sha.s, m->sha.n))
			*sha = lower_hex(m->sha.s, 64);
	}
}

/* one view, the next in the array: into the project, or the page's first error */
static void take_file(struct jconv *cv, struct jfile *o)
{
	struct rr_index_file *f;
	const struct jmeta *md;
	size_t i = cv->seen++;
	char *abs;

	if (cv->rc)
		return;
	if (o->k != JK_OBJ) {
		cv->rc = json_fail(&cv->err, cv->page_url, "not an object", i);
		return;
	}
	if (o->filename.k != JK_STR || o->url.k != JK_STR || !o->filename.n) {
		cv->rc = json_fail(&cv->err, cv->page_url, "\"filename\" and \"url\" must be strings",
				   i);
		return;
	}
	abs = resolve(cv->page_url, o->url.s, NULL);
	if (!abs) {
		cv->rc = json_fail(&cv->err, cv->page_url, "bad \"url\"", i);
		return;
	}
	f = add_file(&cv->p, &cv->cap, RR_STEAL(o->filename.s), abs, cv->index_url);
	if (!f)
		return;
	if (o->hashes != JK_ABSENT && o->hashes != JK_OBJ) {
		cv->rc = json_fail(&cv->err, cv->page_url, "\"hashes\" must be an object", i);
		return;
	}
	if (o->hash_sha256.k == JK_STR && is_hex64(o->hash_sha256.s, o->hash_sha256.n))
		f->sha256 = lower_hex(o->hash_sha256.s, 64);
	if (o->rp.k == JK_STR && o->rp.n)
		f->requires_python = RR_STEAL(o->rp.s);
	if (o->yanked.k == JK_TRUE) {
		f->yanked = true;
	} else if (o->yanked.k == JK_STR) {
		/* PEP 592: a string is a reason and means yanked, even when empty */
		f->yanked = true;
		if (o->yanked.n)
			f->yanked_reason = RR_STEAL(o->yanked.s);
	}
	/* PEP 714: prefer core-metadata, fall back to the older spellings */
	md = o->core.v.k != JK_ABSENT ? &o->core
	     : o->ddim.v.k != JK_ABSENT ? &o->ddim
					: &o->dim;
	meta_from_view(md, &f->has_metadata, &f->metadata_sha256);
	if (o->size.k == JK_INT && o->size.i >= 0)
		f->size = o->size.i;
}

/* the page read: its meta checked, then its files (or their first error) handed out */
static rr_err finish_files(struct jpage *jp, struct rr_index_project *out, rr_error *err)
{
	struct jconv *cv = &jp->conv;
	rr_err rc;

	if (jp->have_meta) {
		if (jp->meta_k != JK_OBJ || jp->api_version.k != JK_STR) {
			RR_AUTOFREE char *u = rr_url_redact(cv->page_url);
			return rr_fail(err, RR_E_PARSE, "%s: meta.api-version missing", u);
		}
		if ((rc = check_api_version(jp->api_version.s, cv->page_url, err)))
			return rc;
	}
	if (jp->files_k != JK_ARR) {
		RR_AUTOFREE char *u = rr_url_redact(cv->page_url);
		return rr_fail(err, RR_E_PARSE, "%s: no \"files\" array", u);
	}
	if (cv->rc) {
		if (err) {
			rr_error_release(err);
			*err = cv->err;
			cv->err = (rr_error)RR_ERROR_INIT;
		}
		return cv->rc;
	}
	rr_index_project_release(out);
	*out = cv->p;
	memset(&cv->p, 0, sizeof(cv->p));
	if (jp->name.k == JK_STR)
		out->key = rr_name_normalize(jp->name.s);
	return RR_OK;
}

static void jpage_init(struct jpage *jp, const char *page_url, const char *index_url)
{
	memset(jp, 0, sizeof(*jp));
	jp->conv.page_url = page_url;
	jp->conv.index_url = index_url;
	jp->conv.err = (rr_error)RR_ERROR_INIT;
}

/* ---- the reference reader: Jansson ---- */

static void view_of(json_t *v, struct jval *out)
{
	jval_clear(out);
	if (!v)
		out->k = JK_ABSENT;
	else if (json_is_string(v)) {
		out->k = JK_STR;
		out->n = json_string_length(v);
		out->s = rr_xstrndup(json_string_value(v), out->n);
	} else if (json_is_integer(v)) {
		out->k = JK_INT;
		out->i = json_integer_value(v);
	} else if (json_is_real(v))
		out->k = JK_REAL;
	else if (json_is_true(v))
		out->k = JK_TRUE;
	else if (json_is_false(v))
		out->k = JK_FALSE;
	else if (json_is_null(v))
		out->k = JK_NULL;
	else if (json_is_object(v))
		out->k = JK_OBJ;
	else
		out->k = JK_ARR;
}

static void meta_view_of(json_t *v, struct jmeta *m)
{
	view_of(v, &m->v);
	if (json_is_object(v))
		view_of(json_object_get(v, "sha256"), &m->sha);
}

rr_err rr_index_parse_json_jansson(const char *data, size_t len, const char *page_url,
				   const char *index_url, struct rr_index_project *out,
				   rr_error *err)
{
	json_t *root;
	json_t *meta, *files;
	struct jpage jp;
	struct jval tmp = {0};
	rr_err rc;

	if ((rc = json_load(data, len, page_url, &root, err)))
		return rc;
	jpage_init(&jp, page_url, index_url);
	meta = json_object_get(root, "meta");
	jp.have_meta = meta != NULL;
	view_of(meta, &tmp);
	jp.meta_k = tmp.k;
	view_of(json_object_get(meta, "api-version"), &jp.api_version);
	view_of(json_object_get(root, "name"), &jp.name);
	files = json_object_get(root, "files");
	view_of(files, &tmp);
	jp.files_k = tmp.k;
	jval_clear(&tmp);
	for (size_t i = 0; json_is_array(files) && i < json_array_size(files); i++) {
		json_t *o = json_array_get(files, i);
		struct jfile *f = &RR_PUSH(jp.files, jp.nfiles, jp.cap);
		json_t *h;
		memset(f, 0, sizeof(*f));
		view_of(o, &tmp);
		f->k = tmp.k;
		jval_clear(&tmp);
		if (!json_is_object(o))
			continue;
		view_of(json_object_get(o, "filename"), &f->filename);
		view_of(json_object_get(o, "url"), &f->url);
		view_of(json_object_get(o, "requires-python"), &f->rp);
		view_of(json_object_get(o, "yanked"), &f->yanked);
		view_of(json_object_get(o, "size"), &f->size);
		h = json_object_get(o, "hashes");
		view_of(h, &tmp);
		f->hashes = tmp.k;
		jval_clear(&tmp);
		if (json_is_object(h))
			view_of(json_object_get(h, "sha256"), &f->hash_sha256);
		meta_view_of(json_object_get(o, "core-metadata"), &f->core);
		meta_view_of(json_object_get(o, "data-dist-info-metadata"), &f->ddim);
		meta_view_of(json_object_get(o, "dist-info-metadata"), &f->dim);
	}
	json_decref(root);
	for (size_t i = 0; i < jp.nfiles; i++)
		take_file(&jp.conv, &jp.files[i]);
	rc = finish_files(&jp, out, err);
	jpage_release(&jp);
	return rc;
}

/* ---- the production reader: a strict streaming scanner ---- */

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

static int jhex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool j4hex(struct jscan *s, unsigned *v)
{
	*v = 0;
	if (s->end - s->p < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		int d = jhex(s->p[i]);
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
						jutf8(&s->sb, 0x10000 + (((unsigned long)v - 0xD800) << 10) +
								      (lo - 0xDC00));
				} else if (keep) {
					jutf8(&s->sb, v);
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

static bool jnumber(struct jscan *s, struct jval *out)
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
			out->k = JK_REAL;
	} else {
		long long v = strtoll(num, NULL, 10);
		if (errno == ERANGE)
			return s->why = "too big integer", false;
		if (out) {
			out->k = JK_INT;
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

static bool jvalue(struct jscan *s, struct jval *out, jmember_fn on_member, void *ud);

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
static bool jvalue(struct jscan *s, struct jval *out, jmember_fn on_member, void *ud)
{
	bool ok;

	if (++s->depth > JMAX_DEPTH)
		return s->why = "maximum parsing depth reached", false;
	if (out)
		jval_clear(out);
	if (s->p >= s->end)
		return s->why = "unexpected end of input", false;
	switch (*s->p) {
	case '{':
		ok = jobject(s, on_member, ud);
		if (out)
			out->k = JK_OBJ;
		break;
	case '[':
		ok = jarray(s, NULL, NULL);
		if (out)
			out->k = JK_ARR;
		break;
	case '"':
		ok = jstring(s, out != NULL);
		if (ok && out) {
			out->k = JK_STR;
			out->n = s->sb.len;
			out->s = rr_xstrndup(s->sb.buf, s->sb.len);
		}
		break;
	case 't':
		ok = jlit(s, "true", 4);
		if (out)
			out->k = JK_TRUE;
		break;
	case 'f':
		ok = jlit(s, "false", 5);
		if (out)
			out->k = JK_FALSE;
		break;
	case 'n':
		ok = jlit(s, "null", 4);
		if (out)
			out->k = JK_NULL;
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
	struct jval *sha = ud;
	if (KEYIS("sha256"))
		return jvalue(s, sha, NULL, NULL);
	return jvalue(s, NULL, NULL, NULL);
}

static bool jm_metafield(struct jscan *s, struct jmeta *m)
{
	jval_clear(&m->sha);
	/* an object value: its sha256 is read while scanning it */
	if (s->p < s->end && *s->p == '{')
		return jvalue(s, &m->v, jm_sha, &m->sha);
	return jvalue(s, &m->v, NULL, NULL);
}

static bool jm_file(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct jfile *f = ud;

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
		struct jval k = {0};
		bool ok;
		jval_clear(&f->hash_sha256);
		ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_sha : NULL, &f->hash_sha256);
		f->hashes = k.k;
		jval_clear(&k);
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
	struct jpage *p = ud;
	struct jfile f;
	struct jval k = {0};
	bool ok;

	/* into a file at once: a page's views never all exist together (a 7 MB page
	 * held ~11 MB of them) */
	memset(&f, 0, sizeof(f));
	ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_file : NULL, &f);
	f.k = k.k;
	jval_clear(&k);
	if (ok)
		take_file(&p->conv, &f);
	jfile_clear(&f);
	return ok;
}

static bool jm_meta(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct jpage *p = ud;
	if (KEYIS("api-version"))
		return jvalue(s, &p->api_version, NULL, NULL);
	return jvalue(s, NULL, NULL, NULL);
}

static bool jm_root(struct jscan *s, const char *key, size_t klen, void *ud)
{
	struct jpage *p = ud;
	struct jval k = {0};
	bool ok;

	if (KEYIS("meta")) {
		p->have_meta = true;
		jval_clear(&p->api_version); /* a later "meta" replaces an earlier one */
		ok = jvalue(s, &k, (s->p < s->end && *s->p == '{') ? jm_meta : NULL, p);
		p->meta_k = k.k;
		jval_clear(&k);
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
			p->files_k = JK_ARR;
			return ok;
		}
		ok = jvalue(s, &k, NULL, NULL);
		p->files_k = k.k;
		jval_clear(&k);
		return ok;
	}
	return jvalue(s, NULL, NULL, NULL);
}

#undef KEYIS

rr_err rr_index_parse_json(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err)
{
	struct jscan s = {.p = (const unsigned char *)data,
			  .end = (const unsigned char *)data + len,
			  .start = (const unsigned char *)data,
			  .sb = RR_STRBUF_INIT};
	struct jpage jp;
	struct jval root = {0};
	bool ok;
	rr_err rc;

	jpage_init(&jp, page_url, index_url);
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
		jpage_release(&jp);
		jval_clear(&root);
		return rr_fail(err, RR_E_PARSE, "%s: invalid JSON at line %zu column %zu: %s", u,
			       line, col, s.why);
	}
	if (root.k != JK_OBJ) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		jpage_release(&jp);
		return rr_fail(err, RR_E_PARSE, "%s: expected a JSON object", u);
	}
	rc = finish_files(&jp, out, err);
	jpage_release(&jp);
	return rc;
}

/* ---- Warehouse JSON API: /pypi/<name>/json ---- */

rr_err rr_index_parse_jsonapi(const char *data, size_t len, const char *page_url,
			      const char *index_url, struct rr_index_project *out, rr_error *err)
{
	json_t *root;
	json_t *info, *releases;
	struct rr_index_project p = {0};
	size_t cap = 0;
	const char *ver;
	json_t *list;
	rr_err rc;

	if ((rc = json_load(data, len, page_url, &root, err)))
		return rc;
	info = json_object_get(root, "info");
	releases = json_object_get(root, "releases");
	if (!json_is_object(info) || !json_is_object(releases)) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		json_decref(root);
		return rr_fail(err, RR_E_PARSE, "%s: expected \"info\" and \"releases\"", u);
	}
	if (json_is_string(json_object_get(info, "name")))
		p.key = rr_name_normalize(json_string_value(json_object_get(info, "name")));
	json_object_foreach(releases, ver, list)
	{
		for (size_t i = 0; json_is_array(list) && i < json_array_size(list); i++) {
			json_t *o = json_array_get(list, i);
			json_t *fn = json_object_get(o, "filename");
			json_t *url = json_object_get(o, "url");
			json_t *dg = json_object_get(o, "digests");
			json_t *rp = json_object_get(o, "requires_python");
			json_t *yr = json_object_get(o, "yanked_reason");
			json_t *sz = json_object_get(o, "size");
			struct rr_index_file *f;
			char *abs;

			if (!json_is_string(fn) || !json_is_string(url))
				continue;
			abs = resolve(page_url, json_string_value(url), NULL);
			if (!abs)
				continue;
			f = add_file(&p, &cap, rr_xstrdup(json_string_value(fn)), abs, index_url);
			if (!f)
				continue;
			if (json_is_object(dg)) {
				json_t *h = json_object_get(dg, "sha256");
				if (json_is_string(h) &&
				    is_hex64(json_string_value(h), json_string_length(h)))
					f->sha256 = lower_hex(json_string_value(h), 64);
			}
			if (json_is_string(rp) && json_string_length(rp))
				f->requires_python = rr_xstrdup(json_string_value(rp));
			f->yanked = json_is_true(json_object_get(o, "yanked"));
			if (f->yanked && json_is_string(yr) && json_string_length(yr))
				f->yanked_reason = rr_xstrdup(json_string_value(yr));
			if (json_is_integer(sz) && json_integer_value(sz) >= 0)
				f->size = json_integer_value(sz);
		}
	}
	json_decref(root);
	rr_index_project_release(out);
	*out = p;
	return RR_OK;
}

/* ---- PEP 503 HTML ---- */

/* decode the HTML character references the index generators emit */
static void html_unescape(const char *s, size_t n, struct rr_strbuf *out)
{
	static const struct {
		const char *name;
		char ch;
	} named[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};

	rr_strbuf_reset(out);
	for (size_t i = 0; i < n; i++) {
		size_t semi;
		bool done = false;
		if (s[i] != '&') {
			rr_strbuf_addch(out, s[i]);
			continue;
		}
		for (semi = i + 1; semi < n && semi < i + 12 && s[semi] != ';'; semi++)
			;
		if (semi < n && s[semi] == ';') {
			const char *e = s + i + 1;
			size_t k = semi - i - 1;
			if (k >= 2 && e[0] == '#') {
				unsigned long cp = 0;
				bool hex = e[1] == 'x' || e[1] == 'X';
				size_t j = hex ? 2 : 1;
				bool ok = j < k;
				for (; j < k && ok; j++) {
					char c = e[j];
					int d = c >= '0' && c <= '9'   ? c - '0'
						: hex && c >= 'a' && c <= 'f' ? c - 'a' + 10
						: hex && c >= 'A' && c <= 'F' ? c - 'A' + 10
									      : -1;
					if (d < 0 || cp > 0x10FFFF)
						ok = false;
					else
						cp = cp * (hex ? 16 : 10) + (unsigned long)d;
				}
				if (ok && cp > 0 && cp <= 0x10FFFF) {
					jutf8(out, cp);
					done = true;
				}
			} else {
				for (size_t j = 0; j < RR_ARRAY_LEN(named); j++) {
					if (strlen(named[j].name) == k &&
					    strncmp(e, named[j].name, k) == 0) {
						rr_strbuf_addch(out, named[j].ch);
						done = true;
						break;
					}
				}
			}
		}
		if (done)
			i = semi;
		else
			rr_strbuf_addch(out, '&');
	}
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

struct attr {
	const char *name;
	size_t nlen;
	const char *val; /* NULL: attribute without a value */
	size_t vlen;
};

/*
 * Parse the attributes of a start tag beginning at p (just after the tag
 * name); returns the position after '>' or NULL when the tag never ends.
 */
static const char *parse_attrs(const char *p, const char *end, struct attr *attrs, size_t max,
			       size_t *nattrs)
{
	*nattrs = 0;
	while (p < end) {
		struct attr a = {0};
		while (p < end && (is_space(*p) || *p == '/'))
			p++;
		if (p >= end)
			return NULL;
		if (*p == '>')
			return p + 1;
		a.name = p;
		while (p < end && !is_space(*p) && *p != '=' && *p != '>' && *p != '/')
			p++;
		a.nlen = (size_t)(p - a.name);
		if (a.nlen == 0) {
			p++;
			continue;
		}
		while (p < end && is_space(*p))
			p++;
		if (p < end && *p == '=') {
			p++;
			while (p < end && is_space(*p))
				p++;
			if (p < end && (*p == '"' || *p == '\'')) {
				char q = *p++;
				a.val = p;
				while (p < end && *p != q)
					p++;
				if (p >= end)
					return NULL;
				a.vlen = (size_t)(p - a.val);
				p++;
			} else {
				a.val = p;
				while (p < end && !is_space(*p) && *p != '>')
					p++;
				a.vlen = (size_t)(p - a.val);
			}
		}
		if (*nattrs < max)
			attrs[(*nattrs)++] = a;
	}
	return NULL;
}

static const struct attr *find_attr(const struct attr *a, size_t n, const char *name)
{
	size_t k = strlen(name);
	for (size_t i = 0; i < n; i++)
		if (a[i].nlen == k && strncasecmp(a[i].name, name, k) == 0)
			return &a[i];
	return NULL;
}

static bool tag_is(const char *p, const char *end, const char *name)
{
	size_t k = strlen(name);
	return (size_t)(end - p) > k && strncasecmp(p, name, k) == 0 &&
	       (is_space(p[k]) || p[k] == '>' || p[k] == '/');
}

rr_err rr_index_parse_html(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err)
{
	const char *p = data;
	const char *end = data + len;
	struct rr_index_project pr = {0};
	size_t cap = 0;
	RR_AUTOFREE char *base = rr_xstrdup(page_url);
	RR_AUTO_STRBUF struct rr_strbuf v = RR_STRBUF_INIT;
	rr_err rc = RR_OK;

	while (p < end) {
		struct attr attrs[16];
		size_t na;
		const char *lt = memchr(p, '<', (size_t)(end - p));
		if (!lt)
			break;
		p = lt + 1;
		if ((size_t)(end - p) >= 3 && memcmp(p, "!--", 3) == 0) {
			const char *q = p + 3;
			while (q + 2 < end && memcmp(q, "-->", 3) != 0)
				q++;
			p = q + 3 <= end ? q + 3 : end;
			continue;
		}
		if (tag_is(p, end, "meta")) {
			const struct attr *n, *c;
			const char *after = parse_attrs(p + 4, end, attrs, RR_ARRAY_LEN(attrs), &na);
			if (!after)
				break;
			p = after;
			n = find_attr(attrs, na, "name");
			c = find_attr(attrs, na, "content");
			if (n && c && n->val && c->val && n->vlen == 23 &&
			    strncasecmp(n->val, "pypi:repository-version", 23) == 0) {
				html_unescape(c->val, c->vlen, &v);
				if ((rc = check_api_version(v.buf, page_url, err)))
					goto out;
			}
			continue;
		}
		if (tag_is(p, end, "base")) {
			const struct attr *h;
			const char *after = parse_attrs(p + 4, end, attrs, RR_ARRAY_LEN(attrs), &na);
			if (!after)
				break;
			p = after;
			h = find_attr(attrs, na, "href");
			if (h && h->val) {
				char *nb;
				html_unescape(h->val, h->vlen, &v);
				nb = rr_url_join(page_url, v.buf);
				if (nb) {
					free(base);
					base = nb;
				}
			}
			continue;
		}
		if (tag_is(p, end, "a")) {
			const struct attr *h, *a;
			const char *after = parse_attrs(p + 1, end, attrs, RR_ARRAY_LEN(attrs), &na);
			char *frag = NULL;
			char *abs;
			char *fn;
			struct rr_index_file *f;
			if (!after)
				break;
			p = after;
			h = find_attr(attrs, na, "href");
			if (!h || !h->val)
				continue;
			html_unescape(h->val, h->vlen, &v);
			if (memchr(v.buf, '\0', v.len))
				continue;
			abs = resolve(base, v.buf, &frag);
			if (!abs) {
				free(frag);
				continue;
			}
			/* the filename is the URL's last segment (%2B -> '+'), as pip does */
			fn = rr_url_basename(abs);
			f = add_file(&pr, &cap, fn, abs, index_url);
			if (!f) {
				free(frag);
				continue;
			}
			if (frag)
				f->sha256 = hash_from_attr(frag);
			free(frag);
			if ((a = find_attr(attrs, na, "data-requires-python")) && a->val && a->vlen) {
				html_unescape(a->val, a->vlen, &v);
				if (v.len && !memchr(v.buf, '\0', v.len))
					f->requires_python = rr_xstrdup(v.buf);
			}
			if ((a = find_attr(attrs, na, "data-yanked"))) {
				f->yanked = true;
				if (a->val && a->vlen) {
					html_unescape(a->val, a->vlen, &v);
					if (v.len && !memchr(v.buf, '\0', v.len))
						f->yanked_reason = rr_xstrdup(v.buf);
				}
			}
			/* PEP 714: data-core-metadata first, data-dist-info-metadata second */
			a = find_attr(attrs, na, "data-core-metadata");
			if (!a)
				a = find_attr(attrs, na, "data-dist-info-metadata");
			if (a) {
				html_unescape(a->val ? a->val : "", a->val ? a->vlen : 0, &v);
				if (strcasecmp(v.buf, "false") != 0) {
					f->has_metadata = true;
					f->metadata_sha256 = hash_from_attr(v.buf);
				}
			}
			continue;
		}
	}
	rr_index_project_release(out);
	*out = pr;
	memset(&pr, 0, sizeof(pr));
out:
	rr_index_project_release(&pr);
	return rc;
}

/* ---- digests: a parsed page as the cache keeps it ---- */

/*
 * A page is parsed once, when it arrives; the cache keeps what the parse
 * found, not the page: a warm run loads it with one bounds-checked pass and
 * no allocation per string (a 7 MB JSON page took ~25 ms to scan; its digest
 * ~1 ms). Layout, little-endian:
 *   "rr-digest 1\n", u32 nfiles, u32 nforeign, then per file: u8 flags (1 yanked, 2 has
 *   metadata, 4 wheel), i64 size, then 7 strings (filename, url, sha256,
 *   requires_python, yanked_reason, metadata_sha256, version), each a u32
 *   length (0xffffffff: none) and that many bytes and a NUL.
 * The loaded project's strings point into one copy of the digest (its arena).
 */
static const char digest_magic[] = "rr-digest 1\n";
#define DIGEST_NONE 0xffffffffu
#define DIGEST_NSTR 7

static char **file_strings(struct rr_index_file *f, char **v[DIGEST_NSTR])
{
	v[0] = &f->filename;
	v[1] = &f->url;
	v[2] = &f->sha256;
	v[3] = &f->requires_python;
	v[4] = &f->yanked_reason;
	v[5] = &f->metadata_sha256;
	v[6] = &f->version;
	return v[0];
}

static void put_u32(struct rr_strbuf *sb, uint32_t x)
{
	unsigned char b[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16),
			      (unsigned char)(x >> 24)};
	rr_strbuf_add(sb, b, 4);
}

void rr_index_project_digest(const struct rr_index_project *p, struct rr_strbuf *out)
{
	rr_strbuf_add(out, digest_magic, sizeof(digest_magic) - 1);
	put_u32(out, (uint32_t)p->nfiles);
	put_u32(out, (uint32_t)p->nforeign);
	for (size_t i = 0; i < p->nfiles; i++) {
		struct rr_index_file f = p->files[i];
		char **v[DIGEST_NSTR];
		unsigned char flags = (unsigned char)((f.yanked ? 1 : 0) | (f.has_metadata ? 2 : 0) |
						      (f.is_wheel ? 4 : 0));
		uint64_t sz = (uint64_t)f.size;
		rr_strbuf_addch(out, (char)flags);
		put_u32(out, (uint32_t)sz);
		put_u32(out, (uint32_t)(sz >> 32));
		file_strings(&f, v);
		for (size_t k = 0; k < DIGEST_NSTR; k++) {
			const char *str = *v[k];
			size_t n = str ? strlen(str) : 0;
			put_u32(out, str ? (uint32_t)n : DIGEST_NONE);
			if (str)
				rr_strbuf_add(out, str, n + 1);
		}
	}
}

static bool get_u32(const unsigned char **p, const unsigned char *end, uint32_t *x)
{
	if ((size_t)(end - *p) < 4)
		return false;
	*x = (uint32_t)(*p)[0] | (uint32_t)(*p)[1] << 8 | (uint32_t)(*p)[2] << 16 |
	     (uint32_t)(*p)[3] << 24;
	*p += 4;
	return true;
}

bool rr_index_is_digest(const char *data, size_t len)
{
	return len >= sizeof(digest_magic) - 1 &&
	       memcmp(data, digest_magic, sizeof(digest_magic) - 1) == 0;
}

rr_err rr_index_parse_digest(const char *data, size_t len, const char *page_url,
			     const char *index_url, struct rr_index_project *out, rr_error *err)
{
	char *copy = rr_xmalloc(len ? len : 1);

	memcpy(copy, data, len);
	return rr_index_parse_digest_take(copy, len, page_url, index_url, out, err);
}

rr_err rr_index_parse_digest_take(char *data, size_t len, const char *page_url,
				  const char *index_url, struct rr_index_project *out,
				  rr_error *err)
{
	struct rr_index_project p = {0};
	const unsigned char *q, *end;
	uint32_t n, nforeign;

	/* the block becomes the project's arena: its strings stay where they are */
	p.arena = data;
	if (!rr_index_is_digest(data, len))
		goto bad;
	q = (const unsigned char *)p.arena + sizeof(digest_magic) - 1;
	end = (const unsigned char *)p.arena + len;
	if (!get_u32(&q, end, &n) || !get_u32(&q, end, &nforeign) ||
	    n > len / (1 + 8 + 4 * DIGEST_NSTR))
		goto bad;
	p.nforeign = nforeign;
	p.files = rr_xcalloc(n ? n : 1, sizeof(*p.files));
	for (uint32_t i = 0; i < n; i++) {
		struct rr_index_file *f = &p.files[i];
		char **v[DIGEST_NSTR];
		uint32_t lo, hi;
		unsigned flags;
		if (q >= end)
			goto bad;
		flags = *q++;
		if ((flags & ~7u) || !get_u32(&q, end, &lo) || !get_u32(&q, end, &hi))
			goto bad;
		f->yanked = flags & 1;
		f->has_metadata = flags & 2;
		f->is_wheel = flags & 4;
		f->size = (long long)((uint64_t)hi << 32 | lo);
		f->index_url = index_url;
		file_strings(f, v);
		for (size_t k = 0; k < DIGEST_NSTR; k++) {
			uint32_t sl;
			if (!get_u32(&q, end, &sl))
				goto bad;
			if (sl == DIGEST_NONE)
				continue;
			if ((size_t)(end - q) <= sl || q[sl] != '\0' || memchr(q, '\0', sl))
				goto bad;
			*v[k] = (char *)q;
			q += sl + 1;
		}
		p.nfiles = i + 1;
		/* what the parsers guarantee, the digest must too */
		if (!f->filename || !f->url || !f->version)
			goto bad;
	}
	if (q != end)
		goto bad;
	rr_index_project_release(out);
	*out = p;
	return RR_OK;
bad:
	rr_index_project_release(&p);
	return rr_fail(err, RR_E_DATA, "%s: damaged page digest", page_url);
}

void rr_index_project_pack(struct rr_index_project *p)
{
	size_t total = 0;
	char *arena, *w;

	if (p->arena || !p->nfiles)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		char **v[DIGEST_NSTR];
		file_strings(&p->files[i], v);
		for (size_t k = 0; k < DIGEST_NSTR; k++)
			total += *v[k] ? strlen(*v[k]) + 1 : 0;
	}
	arena = w = rr_xmalloc(total ? total : 1);
	for (size_t i = 0; i < p->nfiles; i++) {
		char **v[DIGEST_NSTR];
		file_strings(&p->files[i], v);
		for (size_t k = 0; k < DIGEST_NSTR; k++) {
			size_t n;
			if (!*v[k])
				continue;
			n = strlen(*v[k]) + 1;
			memcpy(w, *v[k], n);
			free(*v[k]);
			*v[k] = w;
			w += n;
		}
	}
	p->arena = arena;
}

/* does some part of the dot-separated tag set start with one of the prefixes? */
static bool tag_set_has(const char *s, size_t n, const char *const *prefixes)
{
	const char *end = s + n;

	while (s < end) {
		const char *dot = memchr(s, '.', (size_t)(end - s));
		size_t len = (size_t)((dot ? dot : end) - s);
		for (const char *const *pf = prefixes; *pf; pf++)
			if (len >= strlen(*pf) && memcmp(s, *pf, strlen(*pf)) == 0)
				return true;
		s += len + 1;
	}
	return false;
}

/*
 * a wheel no Linux CPython can install whatever the venv: its platform tags
 * name no "any", linux_* or manylinux* platform, or its python tags no cp* or
 * py* one (rr_wheel_score ranks nothing else), or its name has not the shape
 * of a wheel's. A superset of what the ranking accepts is kept.
 */
static bool foreign_wheel(const struct rr_index_file *f)
{
	static const char *const plats[] = {"any", "linux_", "manylinux", NULL};
	static const char *const pys[] = {"cp", "py", NULL};
	const char *base = strrchr(f->filename, '/');
	const char *dash[3] = {NULL, NULL, NULL};
	size_t len;

	if (!f->is_wheel)
		return false;
	base = base ? base + 1 : f->filename;
	len = strlen(base);
	if (len < 5 || memcmp(base + len - 4, ".whl", 4) != 0)
		return true;
	len -= 4;
	for (size_t i = len, k = 3; i-- > 0 && k;)
		if (base[i] == '-')
			dash[--k] = base + i;
	if (!dash[0])
		return true;
	return !tag_set_has(dash[2] + 1, (size_t)(base + len - dash[2] - 1), plats) ||
	       !tag_set_has(dash[0] + 1, (size_t)(dash[1] - dash[0] - 1), pys);
}

void rr_index_project_drop_foreign(struct rr_index_project *p)
{
	size_t w = 0;

	for (size_t i = 0; i < p->nfiles; i++) {
		if (foreign_wheel(&p->files[i])) {
			if (!p->arena)
				file_release(&p->files[i]);
			p->nforeign++;
			continue;
		}
		p->files[w++] = p->files[i];
	}
	p->nfiles = w;
	/* the array is kept as long as the project: give back what the others took */
	if (p->nforeign)
		p->files = rr_xrealloc(p->files, (w ? w : 1) * sizeof(*p->files));
}

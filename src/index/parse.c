/*
 * parse.c - project pages from memory: PEP 691 JSON, PEP 503 HTML and the
 * Warehouse JSON API, into struct rr_index_project. No I/O; fuzzed.
 *
 * Files whose names are neither wheels nor sdists (.egg, .exe, ...) are
 * skipped: nothing downstream can use them. Malformed pages are errors that
 * name the page URL; we never guess at what a broken page meant.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index/index-private.h"
#include "rocm-resolve/util.h"

char *rr_index_normalize(const char *name)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	bool sep = false;

	for (const char *p = name; *p; p++) {
		char ch = *p;
		if (ch == '-' || ch == '_' || ch == '.') {
			sep = true;
			continue;
		}
		if (sep && sb.len)
			rr_strbuf_addch(&sb, '-');
		sep = false;
		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		rr_strbuf_addch(&sb, ch);
	}
	return rr_strbuf_detach(&sb, NULL);
}

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
	for (size_t i = 0; i < p->nfiles; i++)
		file_release(&p->files[i]);
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

/* PEP 658/714: value false/true, or {"sha256": hex} */
static void json_metadata(json_t *v, bool *has, char **sha)
{
	if (json_is_true(v)) {
		*has = true;
	} else if (json_is_object(v)) {
		json_t *h = json_object_get(v, "sha256");
		*has = true;
		if (json_is_string(h) && is_hex64(json_string_value(h), json_string_length(h)))
			*sha = lower_hex(json_string_value(h), 64);
	}
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

rr_err rr_index_parse_json(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err)
{
	json_t *root;
	json_t *meta, *files, *name;
	struct rr_index_project p = {0};
	size_t cap = 0;
	rr_err rc = RR_OK;

	if ((rc = json_load(data, len, page_url, &root, err)))
		return rc;
	meta = json_object_get(root, "meta");
	if (meta) {
		json_t *av = json_object_get(meta, "api-version");
		if (!json_is_string(av)) {
			RR_AUTOFREE char *u = rr_url_redact(page_url);
			rc = rr_fail(err, RR_E_PARSE, "%s: meta.api-version missing", u);
			goto out;
		}
		if ((rc = check_api_version(json_string_value(av), page_url, err)))
			goto out;
	}
	name = json_object_get(root, "name");
	if (json_is_string(name))
		p.key = rr_index_normalize(json_string_value(name));
	files = json_object_get(root, "files");
	if (!json_is_array(files)) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		rc = rr_fail(err, RR_E_PARSE, "%s: no \"files\" array", u);
		goto out;
	}
	for (size_t i = 0; i < json_array_size(files); i++) {
		json_t *o = json_array_get(files, i);
		json_t *fn, *url, *hashes, *rp, *y, *md, *sz;
		struct rr_index_file *f;
		char *abs;

		if (!json_is_object(o)) {
			rc = json_fail(err, page_url, "not an object", i);
			goto out;
		}
		fn = json_object_get(o, "filename");
		url = json_object_get(o, "url");
		if (!json_is_string(fn) || !json_is_string(url) || !json_string_length(fn) ||
		    memchr(json_string_value(fn), 0, json_string_length(fn)) ||
		    memchr(json_string_value(url), 0, json_string_length(url))) {
			rc = json_fail(err, page_url, "\"filename\" and \"url\" must be strings", i);
			goto out;
		}
		abs = resolve(page_url, json_string_value(url), NULL);
		if (!abs) {
			rc = json_fail(err, page_url, "bad \"url\"", i);
			goto out;
		}
		f = add_file(&p, &cap, rr_xstrdup(json_string_value(fn)), abs, index_url);
		if (!f)
			continue;
		hashes = json_object_get(o, "hashes");
		if (hashes && !json_is_object(hashes)) {
			rc = json_fail(err, page_url, "\"hashes\" must be an object", i);
			goto out;
		}
		if (hashes) {
			json_t *h = json_object_get(hashes, "sha256");
			if (json_is_string(h) && is_hex64(json_string_value(h), json_string_length(h)))
				f->sha256 = lower_hex(json_string_value(h), 64);
		}
		rp = json_object_get(o, "requires-python");
		if (json_is_string(rp) && json_string_length(rp) &&
		    !memchr(json_string_value(rp), 0, json_string_length(rp)))
			f->requires_python = rr_xstrdup(json_string_value(rp));
		y = json_object_get(o, "yanked");
		if (json_is_true(y)) {
			f->yanked = true;
		} else if (json_is_string(y)) {
			/* PEP 592: a string is a reason and means yanked, even when empty */
			f->yanked = true;
			if (json_string_length(y) && !memchr(json_string_value(y), 0, json_string_length(y)))
				f->yanked_reason = rr_xstrdup(json_string_value(y));
		}
		/* PEP 714: prefer core-metadata, fall back to the older spellings */
		md = json_object_get(o, "core-metadata");
		if (!md)
			md = json_object_get(o, "data-dist-info-metadata");
		if (!md)
			md = json_object_get(o, "dist-info-metadata");
		json_metadata(md, &f->has_metadata, &f->metadata_sha256);
		sz = json_object_get(o, "size");
		if (json_is_integer(sz) && json_integer_value(sz) >= 0)
			f->size = json_integer_value(sz);
	}
	rr_index_project_release(out);
	*out = p;
	memset(&p, 0, sizeof(p));
out:
	rr_index_project_release(&p);
	json_decref(root);
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
		p.key = rr_index_normalize(json_string_value(json_object_get(info, "name")));
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
					/* UTF-8 encode */
					if (cp < 0x80) {
						rr_strbuf_addch(out, (char)cp);
					} else if (cp < 0x800) {
						rr_strbuf_addch(out, (char)(0xC0 | (cp >> 6)));
						rr_strbuf_addch(out, (char)(0x80 | (cp & 0x3F)));
					} else if (cp < 0x10000) {
						rr_strbuf_addch(out, (char)(0xE0 | (cp >> 12)));
						rr_strbuf_addch(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
						rr_strbuf_addch(out, (char)(0x80 | (cp & 0x3F)));
					} else {
						rr_strbuf_addch(out, (char)(0xF0 | (cp >> 18)));
						rr_strbuf_addch(out, (char)(0x80 | ((cp >> 12) & 0x3F)));
						rr_strbuf_addch(out, (char)(0x80 | ((cp >> 6) & 0x3F)));
						rr_strbuf_addch(out, (char)(0x80 | (cp & 0x3F)));
					}
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

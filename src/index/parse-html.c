/*
 * parse-html.c - PEP 503 HTML project pages (and flat --find-links pages) from
 * memory into struct rr_index_project: every <a href> whose last segment names
 * a wheel or an sdist, its #sha256= fragment, data-requires-python, data-yanked
 * and the PEP 714 metadata attributes; <base href> and the repository version
 * meta. No I/O; fuzzed (tests/fuzz/fuzz-simple-html.c).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/index-private.h"
#include "rocm-resolve/util.h"

/* "sha256=<hex>" -> hex; anything else (other algorithms, "true") -> NULL */
static char *hash_from_attr(const char *v)
{
	if (strncasecmp(v, "sha256=", 7) == 0 && rr_index_is_hex64(v + 7, strlen(v + 7)))
		return rr_index_lower_hex(v + 7, 64);
	return NULL;
}

static void html_unescape(const char *s, size_t n, struct rr_strbuf *out)
{
	static const struct {
		const char *name;
		char ch;
	} named[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};

	rr_strbuf_reset(out);
	if (!memchr(s, '&', n)) {
		/* nothing to unescape (almost every href): one copy, not one call per byte */
		rr_strbuf_add(out, s, n);
		return;
	}
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
					int d = hex                    ? rr_hex_digit(c)
						: c >= '0' && c <= '9' ? c - '0'
								       : -1;
					if (d < 0 || cp > 0x10FFFF)
						ok = false;
					else
						cp = cp * (hex ? 16 : 10) + (unsigned long)d;
				}
				if (ok && cp > 0 && cp <= 0x10FFFF) {
					rr_index_utf8_put(out, cp);
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
				/* values are long (an href with its hash): memchr, not a byte loop */
				p = memchr(p, q, (size_t)(end - p));
				if (!p)
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

/* name: lowercase. The first letter is compared before the call: most attributes
 * and tags of a page are not the one looked for (a page's <a> is met as "meta" and
 * "base" first), and the call was 10 % of a page's parse */
static const struct attr *find_attr(const struct attr *a, size_t n, const char *name)
{
	size_t k = strlen(name);
	for (size_t i = 0; i < n; i++)
		if (a[i].nlen == k && (a[i].name[0] | 0x20) == name[0] &&
		    strncasecmp(a[i].name + 1, name + 1, k - 1) == 0)
			return &a[i];
	return NULL;
}

static bool tag_is(const char *p, const char *end, const char *name)
{
	size_t k = strlen(name);
	return (size_t)(end - p) > k && (p[0] | 0x20) == name[0] &&
	       strncasecmp(p + 1, name + 1, k - 1) == 0 &&
	       (is_space(p[k]) || p[k] == '>' || p[k] == '/');
}

/* does keep leave out the file href (resolved against base) names? From the href
 * itself when it is a plain absolute URL with nothing to decode (PyPI's links), else
 * from its resolved URL's name, as the file would be named */
static bool html_skips(struct rr_index_keep *keep, const char *base, const char *href)
{
	size_t start, end = rr_url_segment(href, &start);
	char *abs, *fn;
	bool skip;

	if (rr_index_href_plain(href) && !memchr(href + start, '%', end - start))
		return rr_index_keep_skips(keep, href + start, end - start, href);
	if (!(abs = rr_index_resolve_href(base, href, NULL)))
		return false;
	fn = rr_url_basename(abs);
	skip = rr_index_keep_skips(keep, fn, strlen(fn), abs);
	free(fn);
	free(abs);
	return skip;
}

rr_err rr_index_parse_html(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err)
{
	return rr_index_parse_html_keep(data, len, page_url, index_url, NULL, out, err);
}

rr_err rr_index_parse_html_keep(const char *data, size_t len, const char *page_url,
				const char *index_url, struct rr_index_keep *keep,
				struct rr_index_project *out, rr_error *err)
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
				if ((rc = rr_index_check_api_version(v.buf, page_url, err)))
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
			if (keep && html_skips(keep, base, v.buf)) {
				pr.nforeign++;
				continue;
			}
			abs = rr_index_resolve_href(base, v.buf, &frag);
			if (!abs) {
				free(frag);
				continue;
			}
			/* the filename is the URL's last segment (%2B -> '+'), as pip does */
			fn = rr_url_basename(abs);
			f = rr_index_project_add_file(&pr, &cap, fn, abs, index_url);
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

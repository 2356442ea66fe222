/*
 * project.c - the page model every reader shares (index-private.h): a file is
 * taken from a page only when its name is a wheel's or an sdist's (the version
 * comes out of the name), links resolve against the page, hashes are lowercase
 * hex; a project's strings may be packed into one block (its arena), the wheels
 * no Linux CPython can install are left out, and so is what a page may not list
 * (another project's files, links that are not http(s) on a remote page). The readers themselves:
 * parse-json.c (PEP 691), parse-html.c (PEP 503), parse-jsonapi.c (the Warehouse
 * JSON API), digest.c (a parsed page as the cache keeps it).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/index-private.h"
#include "rocm-resolve/tags.h"
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

bool rr_index_is_hex64(const char *s, size_t n)
{
	unsigned char bad = 0;

	if (n != 64)
		return false;
	/* branch-free over the 64 bytes: every page holds one or two per file */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i], l = c | 0x20;
		bad |= (unsigned char)!((c >= '0' && c <= '9') | (l >= 'a' && l <= 'f'));
	}
	return !bad;
}

char *rr_index_lower_hex(const char *s, size_t n)
{
	char *r = rr_xstrndup(s, n);
	for (char *p = r; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

/* UTF-8 encode a code point (<= 0x10FFFF) */
void rr_index_utf8_put(struct rr_strbuf *sb, unsigned long cp)
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


/*
 * Classify by filename and take the version text out of it: wheel
 * "{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl"; sdist "{name}-{ver}.<ext>".
 * Returns false for files we don't handle.
 */
/*
 * fn[0..n) a name classify takes for a wheel: "*.whl" (any case), no '/' or NUL, four or
 * five dashes, a name before the first and a version between the first two
 */
static bool wheel_shaped(const char *fn, size_t n)
{
	const char *d1;
	size_t dashes = 0;

	if (n <= 4 || strncasecmp(fn + n - 4, ".whl", 4) != 0 || memchr(fn, '/', n) ||
	    memchr(fn, '\0', n))
		return false;
	for (size_t i = 0; i < n; i++)
		dashes += fn[i] == '-';
	d1 = memchr(fn, '-', n);
	return (dashes == 4 || dashes == 5) && d1 != fn && d1[1] != '-';
}

static bool classify(const char *fn, bool *is_wheel, char **version)
{
	static const char *const sdist_ext[] = {".tar.gz", ".zip", ".tar.bz2", ".tar.xz", ".tgz",
						".tar"};
	size_t n = strlen(fn);

	if (strchr(fn, '/'))
		return false;
	if (n > 4 && strcasecmp(fn + n - 4, ".whl") == 0) {
		const char *d1 = strchr(fn, '-');
		const char *d2;
		if (!wheel_shaped(fn, n))
			return false;
		d2 = strchr(d1 + 1, '-');
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

struct rr_index_file *rr_index_project_add_file(struct rr_index_project *p, size_t *cap,
						char *filename, char *url, const char *index_url)
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

/* eight bytes at a time: does any byte of x lie outside '!'..'~', or equal '\\' or '@'? */
static bool word_unplain(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t lt = (x - ones * 0x21) & ~x & highs;          /* a byte < 0x21 */
	uint64_t gt = ((x + ones * (127 - 0x7e)) | x) & highs; /* a byte > 0x7e */
	uint64_t bs = x ^ (ones * '\\'), at = x ^ (ones * '@');

	return lt | gt | ((bs - ones) & ~bs & highs) | ((at - ones) & ~at & highs);
}

static bool plain_absolute(const char *u)
{
	size_t n, i = 0;
	const char *dot;

	/* already absolute and free of anything curl would rewrite: skip the URL parser,
	 * which dominates parse time on big pages (and this runs once per link) */
	if (strncmp(u, "https://", 8) != 0 && strncmp(u, "http://", 7) != 0)
		return false;
	n = strlen(u);
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, u + i, 8);
		if (word_unplain(w))
			return false;
	}
	for (; i < n; i++) {
		unsigned char c = (unsigned char)u[i];
		if (c <= ' ' || c == '\\' || c == '@' || c >= 0x7f)
			return false;
	}
	/* "/./" or "/../": a segment the URL parser would remove */
	for (dot = u; (dot = memchr(dot, '.', n - (size_t)(dot - u))); dot++)
		if (dot[-1] == '/' && (dot[1] == '/' || (dot[1] == '.' && dot[2] == '/')))
			return false;
	return true;
}

bool rr_index_href_plain(const char *href)
{
	return plain_absolute(href);
}

char *rr_index_resolve_href(const char *page_url, const char *href, char **frag)
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

rr_err rr_index_check_api_version(const char *v, const char *page_url, rr_error *err)
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

char **rr_index_file_strings(struct rr_index_file *f, char **v[RR_INDEX_FILE_NSTR])
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

/* into one block; from_arena: the strings live in an arena the caller frees */
static void pack(struct rr_index_project *p, bool from_arena)
{
	size_t total = 0;
	char *arena, *w;

	for (size_t i = 0; i < p->nfiles; i++) {
		char **v[RR_INDEX_FILE_NSTR];
		rr_index_file_strings(&p->files[i], v);
		for (size_t k = 0; k < RR_INDEX_FILE_NSTR; k++)
			total += *v[k] ? strlen(*v[k]) + 1 : 0;
	}
	arena = w = rr_xmalloc(total ? total : 1);
	for (size_t i = 0; i < p->nfiles; i++) {
		char **v[RR_INDEX_FILE_NSTR];
		rr_index_file_strings(&p->files[i], v);
		for (size_t k = 0; k < RR_INDEX_FILE_NSTR; k++) {
			size_t n;
			if (!*v[k])
				continue;
			n = strlen(*v[k]) + 1;
			memcpy(w, *v[k], n);
			if (!from_arena)
				free(*v[k]);
			*v[k] = w;
			w += n;
		}
	}
	p->arena = arena;
}

void rr_index_project_pack(struct rr_index_project *p)
{
	if (!p->arena && p->nfiles)
		pack(p, false);
}

static void pack_again(struct rr_index_project *p)
{
	pack(p, true);
}

struct prefix {
	const char *s;
	size_t n;
};

/* does some part of the dot-separated tag set start with one of the prefixes? */
static bool tag_set_has(const char *s, size_t n, const struct prefix *prefixes)
{
	const char *end = s + n;

	while (s < end) {
		const char *dot = memchr(s, '.', (size_t)(end - s));
		size_t len = (size_t)((dot ? dot : end) - s);
		for (const struct prefix *pf = prefixes; pf->s; pf++)
			if (len >= pf->n && memcmp(s, pf->s, pf->n) == 0)
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
static bool foreign_name(const char *base, size_t len)
{
	static const struct prefix plats[] = {{"any", 3}, {"linux_", 6}, {"manylinux", 9}, {0}};
	static const struct prefix pys[] = {{"cp", 2}, {"py", 2}, {0}};
	const char *dash[3] = {NULL, NULL, NULL};

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

static bool foreign_wheel(const struct rr_index_file *f)
{
	const char *base = strrchr(f->filename, '/');

	if (!f->is_wheel)
		return false;
	base = base ? base + 1 : f->filename;
	return foreign_name(base, strlen(base));
}

/* the files drop() says no to leave p; returns how many */
static size_t drop_files(struct rr_index_project *p,
			 bool (*drop)(const struct rr_index_file *f, void *ctx), void *ctx)
{
	size_t w = 0, n = p->nfiles;

	for (size_t i = 0; i < p->nfiles; i++) {
		if (drop(&p->files[i], ctx)) {
			if (!p->arena)
				file_release(&p->files[i]);
			continue;
		}
		p->files[w++] = p->files[i];
	}
	p->nfiles = w;
	/* the array is kept as long as the project: give back what the others took */
	if (w < n)
		p->files = rr_xrealloc(p->files, (w ? w : 1) * sizeof(*p->files));
	return n - w;
}

static bool drop_foreign(const struct rr_index_file *f, void *ctx)
{
	(void)ctx;
	return foreign_wheel(f);
}

void rr_index_project_drop_foreign(struct rr_index_project *p)
{
	p->nforeign += drop_files(p, drop_foreign, NULL);
}

/* can k's target install the wheel base (a NUL-terminated filename)? Its tag triple
 * is ranked once per page: a page repeats a few (numpy: ~20 over ~3000 files) */
static bool installable(struct rr_index_keep *k, const char *base)
{
	const char *tags = NULL;
	size_t dashes = 0, n = strlen(base), tlen = 0;
	struct rr_wheel_name w;
	bool ok;

	for (size_t i = n; i-- > 0 && dashes < 3;)
		if (base[i] == '-' && ++dashes == 3) {
			tags = base + i + 1;
			tlen = n - i - 1;
		}
	for (size_t i = 0; tags && i < k->nmemo; i++)
		if (k->memo[i].len == tlen && memcmp(k->memo[i].tags, tags, tlen) == 0)
			return k->memo[i].ok;
	/* a name rr_wheel_name_parse refuses is no candidate either */
	ok = rr_wheel_name_parse(base, &w, NULL) == RR_OK;
	if (ok) {
		ok = rr_wheel_score(&w, k->target) >= 0;
		rr_wheel_name_release(&w);
	}
	if (tags && k->nmemo < RR_ARRAY_LEN(k->memo)) {
		k->memo[k->nmemo].tags = rr_xstrdup(tags);
		k->memo[k->nmemo].len = tlen;
		k->memo[k->nmemo++].ok = ok;
	}
	return ok;
}

void rr_index_keep_release(struct rr_index_keep *k)
{
	for (size_t i = 0; i < k->nmemo; i++)
		free(k->memo[i].tags);
	k->nmemo = 0;
	rr_strbuf_release(&k->name);
	rr_strbuf_release(&k->norm);
}

/*
 * does rr_index_project_keep keep a file at url whose name part is name[0..n) (n 0: it
 * has none)? Only an http(s) URL (or file://, with allow_file) and, with key, only
 * the project's own files; buf: scratch
 */
static bool kept(const char *url, const char *name, size_t n, const char *key, bool allow_file,
		 struct rr_strbuf *buf)
{
	if (strncasecmp(url, "https://", 8) != 0 && strncasecmp(url, "http://", 7) != 0 &&
	    !(allow_file && strncasecmp(url, "file://", 7) == 0))
		return false;
	if (!key)
		return true;
	if (!n)
		return false;
	rr_strbuf_reset(buf);
	rr_name_normalize_into(name, n, buf);
	return strcmp(buf->buf, key) == 0;
}

bool rr_index_keep_skips(struct rr_index_keep *k, const char *name, size_t len, const char *url)
{
	/* only what add_file would take for a wheel */
	if (!wheel_shaped(name, len))
		return false;
	if (foreign_name(name, len))
		return true;
	/* the target's judgement comes after the page's own (another project's file, a
	 * local path: ignored, not foreign), as when the page is read whole; a wheel's
	 * name part runs to its first '-' */
	if (!k->target || !kept(url, name, (size_t)((const char *)memchr(name, '-', len) - name),
				k->key, k->allow_file, &k->norm))
		return false;
	rr_strbuf_reset(&k->name);
	rr_strbuf_add(&k->name, name, len);
	return !installable(k, k->name.buf);
}

static bool drop_uninstallable(const struct rr_index_file *f, void *ctx)
{
	const char *base = strrchr(f->filename, '/');

	if (!f->is_wheel)
		return false;
	return !installable(ctx, base ? base + 1 : f->filename);
}

size_t rr_index_project_keep_installable(struct rr_index_project *p, const struct rr_target *t)
{
	struct rr_index_keep k = {.target = t, .name = RR_STRBUF_INIT, .norm = RR_STRBUF_INIT};
	size_t n = drop_files(p, drop_uninstallable, &k);
	char *old = p->arena;

	rr_index_keep_release(&k);
	p->nforeign += n;
	if (n && old) {
		/* the strings of the files that went are still in the arena: pack again */
		p->arena = NULL;
		pack_again(p);
		free(old);
	}
	return n;
}

/*
 * the length of the name part of a dist's filename, 0 when it has none: a wheel's
 * name runs to its first '-', an sdist's to the '-' before its version (the last
 * place the version the name gave stands)
 */
static size_t name_len(const struct rr_index_file *f)
{
	const char *fn = f->filename;
	const char *cut;
	size_t vlen = f->version ? strlen(f->version) : 0;

	if (f->is_wheel)
		cut = strchr(fn, '-');
	else
		cut = vlen && strlen(fn) > vlen + 1 ? strstr(fn, f->version) : NULL;
	if (!cut || cut == fn)
		return 0;
	if (!f->is_wheel) {
		const char *q = cut;
		while ((q = strstr(q + 1, f->version)))
			cut = q;
		if (cut[-1] != '-')
			return 0;
		cut--;
	}
	return (size_t)(cut - fn);
}

char *rr_index_file_project(const struct rr_index_file *f)
{
	size_t n = name_len(f);

	return n ? rr_name_normalize_n(f->filename, n) : NULL;
}

struct keep {
	const char *key;
	bool allow_file;
	struct rr_strbuf name;
};

static bool drop_unlisted(const struct rr_index_file *f, void *ctx)
{
	struct keep *k = ctx;

	return !kept(f->url, f->filename, k->key ? name_len(f) : 0, k->key, k->allow_file,
		     &k->name);
}

size_t rr_index_project_keep(struct rr_index_project *p, const char *key, bool allow_file)
{
	struct keep k = {.key = key, .allow_file = allow_file, .name = RR_STRBUF_INIT};
	size_t n = drop_files(p, drop_unlisted, &k);

	rr_strbuf_release(&k.name);
	p->nignored += n;
	return n;
}

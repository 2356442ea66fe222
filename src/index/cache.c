/*
 * cache.c - on-disk HTTP cache.
 *
 * One file per (accept class, URL): <dir>/http-v2/<k0>/<sha256 hex>, where the
 * key hashes the class and the credential-free URL. Sixteen shards, not 256: a cold
 * run stores a few hundred entries, and each directory it makes is an inode the
 * filesystem must find (on the benchmark machine's ext4, DeepSpeed's dev file spent
 * 0.17 s more system time with 256; http-v1 had them). The file is a short
 * "name: value" header block (status, etag, last-modified, content-type, the
 * time it was stored, max-age, no-cache, body length and body sha256), a blank
 * line, then the body. Keeping headers and body in one file makes replacing
 * an entry a single rename(2): writers fill a temp file in the same directory
 * and rename it over the old one, so concurrent readers see either the old or
 * the new entry, never a mix. The length and check value make a reader reject
 * anything damaged (a crash before the data reached the disk) as a miss; the
 * cache is rebuilt from the index, so it is not fsync'd (an fsync per entry
 * cost a cold run ~3 % of its time).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index/index-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define CACHE_MAX_ENTRY (1ull << 31)

void rr_cache_entry_release(struct rr_cache_entry *e)
{
	e->etag = rr_free(e->etag);
	e->last_modified = rr_free(e->last_modified);
	e->content_type = rr_free(e->content_type);
	e->url = rr_free(e->url);
	e->final_url = rr_free(e->final_url);
	rr_strbuf_release(&e->body);
}

char *rr_cache_path(const char *dir, const char *klass, const char *url)
{
	struct rr_sha256 h;
	unsigned char d[32];
	char hex[65];

	rr_sha256_init(&h);
	rr_sha256_update(&h, klass, strlen(klass));
	rr_sha256_update(&h, "\n", 1);
	rr_sha256_update(&h, url, strlen(url));
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_hex(d, hex);
	return rr_xasprintf("%s/http-v2/%.1s/%s", dir, hex, hex);
}

void rr_cache_control_parse(const char *cc, long long *max_age, bool *no_store, bool *no_cache)
{
	const char *p = cc;

	*max_age = -1;
	*no_store = false;
	*no_cache = false;
	while (p && *p) {
		size_t n;
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		n = strcspn(p, ",");
		if (n >= 8 && strncasecmp(p, "no-store", 8) == 0 && (n == 8 || p[8] == ' '))
			*no_store = true;
		else if (n >= 8 && strncasecmp(p, "no-cache", 8) == 0)
			*no_cache = true;
		else if (n > 8 && strncasecmp(p, "max-age=", 8) == 0) {
			char *end;
			long long v = strtoll(p + 8, &end, 10);
			if (end != p + 8 && v >= 0)
				*max_age = v;
		}
		p += n;
	}
}

bool rr_cache_fresh(const struct rr_cache_entry *e, long long now)
{
	if (e->no_cache || e->max_age < 0)
		return false;
	return now >= e->stored && now - e->stored < e->max_age;
}

static void put(struct rr_strbuf *sb, const char *name, const char *v)
{
	if (!v)
		return;
	rr_strbuf_addf(sb, "%s: ", name);
	for (; *v; v++)
		rr_strbuf_addch(sb, *v == '\n' || *v == '\r' ? ' ' : *v);
	rr_strbuf_addch(sb, '\n');
}

/*
 * the body's check value: corruption detection, not security (anyone who can
 * write the entry can rewrite its check too, whatever the hash), so a fast
 * word-at-a-time 64-bit mix instead of SHA-256, which cost a third of a warm run
 */
static uint64_t body_check(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (uint64_t)len;
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h ^= w;
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p, len);
	h ^= w;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 29;
	return h;
}

/* everything but the body, which starts at *body_off and runs to the end */
static rr_err cache_parse(const char *data, size_t len, struct rr_cache_entry *e,
			  size_t *body_off, rr_error *err)
{
	struct rr_cache_entry t = {.max_age = -1, .body = RR_STRBUF_INIT};
	const char *p = data;
	const char *end = data + len;
	unsigned long long blen = 0;
	bool have_len = false;
	char sha[65] = "";
	char got[65];
	static const char magic[] = "rr-cache 2\n";

	if (len < sizeof(magic) - 1 || memcmp(data, magic, sizeof(magic) - 1) != 0)
		return rr_fail(err, RR_E_DATA, "not a cache entry");
	p += sizeof(magic) - 1;
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *colon;
		RR_AUTOFREE char *v = NULL;
		if (!nl)
			goto bad;
		if (nl == p) {
			p++;
			break;
		}
		colon = memchr(p, ':', (size_t)(nl - p));
		if (!colon || colon + 1 >= nl || colon[1] != ' ')
			goto bad;
		v = rr_xstrndup(colon + 2, (size_t)(nl - colon - 2));
#define KEY(k) ((size_t)(colon - p) == strlen(k) && memcmp(p, k, strlen(k)) == 0)
		if (KEY("status"))
			t.status = strtol(v, NULL, 10);
		else if (KEY("url"))
			free(t.url), t.url = RR_STEAL(v);
		else if (KEY("final-url"))
			free(t.final_url), t.final_url = RR_STEAL(v);
		else if (KEY("etag"))
			free(t.etag), t.etag = RR_STEAL(v);
		else if (KEY("last-modified"))
			free(t.last_modified), t.last_modified = RR_STEAL(v);
		else if (KEY("content-type"))
			free(t.content_type), t.content_type = RR_STEAL(v);
		else if (KEY("stored"))
			t.stored = strtoll(v, NULL, 10);
		else if (KEY("max-age"))
			t.max_age = strtoll(v, NULL, 10);
		else if (KEY("no-cache"))
			t.no_cache = strcmp(v, "1") == 0;
		else if (KEY("heuristic"))
			t.heuristic = strcmp(v, "1") == 0;
		else if (KEY("length"))
			have_len = rr_parse_u64(v, strlen(v), (uint64_t *)&blen);
		else if (KEY("check") && strlen(v) == 16)
			memcpy(sha, v, 17);
#undef KEY
		p = nl + 1;
	}
	if (!have_len || !sha[0] || (unsigned long long)(end - p) != blen)
		goto bad;
	snprintf(got, sizeof(got), "%016llx", (unsigned long long)body_check(p, blen));
	if (strcmp(got, sha) != 0)
		goto bad;
	*body_off = (size_t)(p - data);
	rr_cache_entry_release(e);
	*e = t;
	return RR_OK;
bad:
	rr_cache_entry_release(&t);
	return rr_fail(err, RR_E_DATA, "damaged cache entry");
}

rr_err rr_cache_parse(const char *data, size_t len, struct rr_cache_entry *e, rr_error *err)
{
	size_t off = 0;
	rr_err rc = cache_parse(data, len, e, &off, err);

	if (rc == RR_OK)
		rr_strbuf_add(&e->body, data + off, len - off);
	return rc;
}

rr_err rr_cache_load(const char *dir, const char *klass, const char *url, struct rr_cache_entry *e,
		     rr_error *err)
{
	RR_AUTOFREE char *path = rr_cache_path(dir, klass, url);
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error e2 = RR_ERROR_INIT;
	size_t off = 0;

	if (rr_strbuf_read_file(&sb, path, CACHE_MAX_ENTRY, &e2) != RR_OK)
		return rr_fail(err, RR_E_NOTFOUND, "not cached: %s", url);
	if (cache_parse(sb.buf, sb.len, e, &off, &e2) != RR_OK)
		return rr_fail(err, RR_E_NOTFOUND, "not cached (%s): %s", e2.msg, url);
	/* the body moves to the front of what was read, which becomes the entry's:
	 * a warm run's pages are tens of MB, and a second copy cost a fault per page */
	memmove(sb.buf, sb.buf + off, sb.len - off);
	rr_strbuf_setlen(&sb, sb.len - off);
	rr_strbuf_release(&e->body);
	e->body = sb;
	rr_strbuf_init(&sb);
	return RR_OK;
}

rr_err rr_cache_store(const char *dir, const char *klass, const struct rr_cache_entry *e,
		      rr_error *err)
{
	return rr_cache_store_keyed(dir, klass, e->url, e, err);
}

rr_err rr_cache_store_keyed(const char *dir, const char *klass, const char *key_url,
			    const struct rr_cache_entry *e, rr_error *err)
{
	RR_AUTOFREE char *path = rr_cache_path(dir, klass, key_url);
	RR_AUTOFREE char *tmp = NULL;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	char hex[65];
	char *slash;
	int fd;
	size_t off = 0;

	rr_strbuf_adds(&sb, "rr-cache 2\n");
	rr_strbuf_addf(&sb, "status: %ld\n", e->status);
	put(&sb, "url", e->url);
	put(&sb, "final-url", e->final_url);
	put(&sb, "etag", e->etag);
	put(&sb, "last-modified", e->last_modified);
	put(&sb, "content-type", e->content_type);
	rr_strbuf_addf(&sb, "stored: %lld\nmax-age: %lld\nno-cache: %d\n", e->stored, e->max_age,
		       e->no_cache ? 1 : 0);
	if (e->heuristic)
		rr_strbuf_adds(&sb, "heuristic: 1\n");
	snprintf(hex, sizeof(hex), "%016llx",
		 (unsigned long long)body_check(e->body.buf, e->body.len));
	rr_strbuf_addf(&sb, "length: %zu\ncheck: %s\n\n", e->body.len, hex);
	rr_strbuf_add(&sb, e->body.buf, e->body.len);

	tmp = rr_xasprintf("%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0 && errno == ENOENT) {
		/* the first entry of its directory: make it (the common case costs nothing) */
		slash = strrchr(path, '/');
		*slash = '\0';
		if (rr_mkdir_p(path, 0755) != 0)
			return rr_fail(err, RR_E_IO, "cannot create cache directory '%s': %s",
				       path, strerror(errno));
		*slash = '/';
		free(tmp);
		tmp = rr_xasprintf("%s.tmp.XXXXXX", path);
		fd = mkstemp(tmp);
	}
	if (fd < 0)
		return rr_fail(err, RR_E_IO, "cannot create '%s': %s", tmp, strerror(errno));
	while (off < sb.len) {
		ssize_t w = write(fd, sb.buf + off, sb.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int saved = errno;
			close(fd);
			unlink(tmp);
			return rr_fail(err, RR_E_IO, "cannot write '%s': %s", tmp, strerror(saved));
		}
		off += (size_t)w;
	}
	/* mkstemp makes 0600; the cache is as readable as any other file of the user */
	(void)fchmod(fd, 0644);
	/* no fsync: rename(2) keeps readers from ever seeing a half-written entry, and
	 * an entry a crash left damaged fails its length and check and is a miss */
	if (close(fd) != 0) {
		int saved = errno;
		unlink(tmp);
		return rr_fail(err, RR_E_IO, "cannot write '%s': %s", tmp, strerror(saved));
	}
	if (rename(tmp, path) != 0) {
		int saved = errno;
		unlink(tmp);
		return rr_fail(err, RR_E_IO, "cannot rename into '%s': %s", path, strerror(saved));
	}
	return RR_OK;
}

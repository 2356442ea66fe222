/*
 * dist.c - the one place that uses libarchive (bound on first use, dl-archive.c):
 * core metadata out of a wheel (*.dist-info/METADATA) or an sdist
 * (<top>/PKG-INFO), from memory.
 * Members are read with a size cap so a hostile archive cannot make us
 * allocate without bound.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/dl-private.h"
#include "index/index-private.h"
#include "rocm-resolve/util.h"

#define MAX_MEMBER (16u << 20)
/*
 * How far into an archive we look for the member: the bytes of the members
 * passed over on the way (each is inflated to be skipped in a .tar.gz). A
 * 4 MiB .tar.gz can hold 4 GiB of zeros; PKG-INFO sits at the start of
 * setuptools sdists and near the end of others, so the bound is generous but
 * finite (about half a second of inflating).
 */
#define MAX_SCAN (256ull << 20)

/* which member do we want? returns a rank (higher = better), 0 = no */
typedef int (*member_pick)(const char *path, const char *want_prefix);

static int pick_metadata(const char *path, const char *want_prefix)
{
	const char *slash = strchr(path, '/');
	size_t top;

	if (!slash || strcmp(slash + 1, "METADATA") != 0)
		return 0;
	top = (size_t)(slash - path);
	if (top < 10 || memcmp(slash - 10, ".dist-info", 10) != 0)
		return 0;
	/* a wheel may (wrongly) carry several dist-infos; prefer its own name */
	if (want_prefix && strncasecmp(path, want_prefix, strlen(want_prefix)) == 0)
		return 2;
	return 1;
}

static int pick_pkginfo(const char *path, const char *want_prefix)
{
	const char *slash = strchr(path, '/');

	(void)want_prefix;
	if (!slash || strchr(slash + 1, '/') || strcmp(slash + 1, "PKG-INFO") != 0)
		return 0;
	return 1;
}

/* data/len in memory, or fd >= 0 */
static rr_err extract(const void *data, size_t len, int fd, const char *filename,
		      const char *want_prefix, member_pick pick, int enough, const char *what,
		      struct rr_strbuf *out, rr_error *err)
{
	struct archive *a;
	struct archive_entry *ent;
	int best = 0;
	int r;
	rr_err rc = RR_OK;
	unsigned long long passed = 0;
	RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;

	if (rr_archive_load(err) != RR_OK)
		return RR_E_ENV;
	a = rr_archive.read_new();
	rr_archive.read_support_filter_all(a);
	rr_archive.read_support_format_zip(a);
	rr_archive.read_support_format_tar(a);
	if ((fd >= 0 ? rr_archive.read_open_fd(a, fd, 65536)
		     : rr_archive.read_open_memory(a, data, len)) != ARCHIVE_OK) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: not a readable archive: %s", filename,
			     rr_archive.error_string(a));
		goto out;
	}
	while ((r = rr_archive.read_next_header(a, &ent)) == ARCHIVE_OK) {
		const char *path = rr_archive.entry_pathname(ent);
		int rank;
		la_int64_t size;
		if (!path)
			continue;
		if (path[0] == '.' && path[1] == '/')
			path += 2;
		rank = pick(path, want_prefix);
		size = rr_archive.entry_size_is_set(ent) ? rr_archive.entry_size(ent) : -1;
		if (rank <= best) {
			/* skipping it may mean inflating it: bounded */
			passed += size > 0 ? (unsigned long long)size : 0;
			if (passed > MAX_SCAN) {
				rc = rr_fail(err, RR_E_LIMIT,
					     "%s: no %s within the first %llu MiB of its content",
					     filename, what, MAX_SCAN >> 20);
				goto out;
			}
			continue;
		}
		if (size > (la_int64_t)MAX_MEMBER) {
			rc = rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %u bytes", filename,
				     path, MAX_MEMBER);
			goto out;
		}
		rr_strbuf_reset(&got);
		for (;;) {
			char buf[16384];
			la_ssize_t n = rr_archive.read_data(a, buf, sizeof(buf));
			if (n == 0)
				break;
			if (n < 0) {
				rc = rr_fail(err, RR_E_ARCHIVE, "%s: cannot read %s: %s", filename,
					     path, rr_archive.error_string(a));
				goto out;
			}
			if (got.len + (size_t)n > MAX_MEMBER) {
				rc = rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %u bytes",
					     filename, path, MAX_MEMBER);
				goto out;
			}
			rr_strbuf_add(&got, buf, (size_t)n);
		}
		best = rank;
		if (rank >= enough)
			break; /* nothing after it can be better: never inflate the rest */
	}
	if (r != ARCHIVE_EOF && r != ARCHIVE_OK && best == 0) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: damaged archive: %s", filename,
			     rr_archive.error_string(a));
		goto out;
	}
	if (!best) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: no %s inside", filename, what);
		goto out;
	}
	rr_strbuf_reset(out);
	rr_strbuf_add(out, got.buf, got.len);
out:
	rr_archive.read_free(a);
	return rc;
}

rr_err rr_dist_wheel_metadata(const void *data, size_t len, const char *filename,
			      struct rr_strbuf *out, rr_error *err)
{
	/* "{name}-{version}-..." -> "{name}-{version}.dist-info/" */
	RR_AUTOFREE char *prefix = NULL;
	const char *d1 = strchr(filename, '-');
	const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;

	if (d2)
		prefix = rr_xasprintf("%.*s.dist-info/", (int)(d2 - filename), filename);
	return extract(data, len, -1, filename, prefix, pick_metadata, 2, "*.dist-info/METADATA",
		       out, err);
}

rr_err rr_dist_sdist_pkginfo(const void *data, size_t len, const char *filename,
			     struct rr_strbuf *out, rr_error *err)
{
	return extract(data, len, -1, filename, NULL, pick_pkginfo, 1, "PKG-INFO", out, err);
}

rr_err rr_dist_sdist_pkginfo_fd(int fd, const char *filename, struct rr_strbuf *out,
				rr_error *err)
{
	if (lseek(fd, 0, SEEK_SET) != 0)
		return rr_fail(err, RR_E_IO, "%s: cannot rewind the download: %s", filename,
			       strerror(errno));
	return extract(NULL, 0, fd, filename, NULL, pick_pkginfo, 1, "PKG-INFO", out, err);
}

/* len bytes at off, exactly */
static rr_err read_at(int fd, void *buf, size_t len, unsigned long long off, rr_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return rr_fail(err, r < 0 ? RR_E_IO : RR_E_ARCHIVE, "%s",
				       r < 0 ? strerror(errno) : "truncated zip file");
		done += (size_t)r;
	}
	return RR_OK;
}

char *rr_dist_wheel_prefix(const char *filename)
{
	const char *d1 = strchr(filename, '-');
	const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;

	return d2 ? rr_xasprintf("%.*s.dist-info/", (int)(d2 - filename), filename) : NULL;
}

/*
 * A downloaded wheel: the zip's own directory says where METADATA is, so only
 * the tail, the central directory and that member are read (as with ranges).
 */
rr_err rr_dist_wheel_metadata_fd(int fd, const char *filename, struct rr_strbuf *out,
				 rr_error *err)
{
	RR_AUTOFREE char *prefix = rr_dist_wheel_prefix(filename);
	RR_AUTOFREE unsigned char *buf = NULL;
	off_t end = lseek(fd, 0, SEEK_END);
	size_t tl;
	struct rr_zip_cd cd;
	struct rr_zip_member m;
	size_t data_off = 0, need = 0;
	rr_err rc;

	if (end < 0)
		return rr_fail(err, RR_E_IO, "%s: %s", filename, strerror(errno));
	tl = (unsigned long long)end < 65536 + 22 ? (size_t)end : 65536 + 22;
	buf = rr_xmalloc(tl ? tl : 1);
	if ((rc = read_at(fd, buf, tl, (unsigned long long)end - tl, err)) ||
	    (rc = rr_zip_find_cd(buf, tl, (unsigned long long)end, &cd, err)))
		goto fail;
	if (cd.size > RR_ZIP_MAX_CD) {
		rc = rr_fail(err, RR_E_LIMIT, "central directory larger than %u bytes",
			     RR_ZIP_MAX_CD);
		goto fail;
	}
	free(buf);
	buf = rr_xmalloc(cd.size ? cd.size : 1);
	if ((rc = read_at(fd, buf, cd.size, cd.offset, err)) ||
	    (rc = rr_zip_find_metadata(buf, cd.size, prefix, &m, err)))
		goto fail;
	if (m.csize > MAX_MEMBER || m.usize > MAX_MEMBER) {
		rc = rr_fail(err, RR_E_LIMIT, "METADATA is larger than %u bytes", MAX_MEMBER);
		goto fail;
	}
	free(buf);
	need = 30 + 2 * 65535 + (size_t)m.csize;
	if (m.local_off > (unsigned long long)end) {
		rc = rr_fail(err, RR_E_ARCHIVE, "METADATA outside the file");
		goto fail;
	}
	if (need > (unsigned long long)end - m.local_off)
		need = (size_t)((unsigned long long)end - m.local_off);
	buf = rr_xmalloc(need ? need : 1);
	if ((rc = read_at(fd, buf, need, m.local_off, err)) ||
	    (rc = rr_zip_local_data(buf, need, &m, &data_off, &need, err)))
		goto fail;
	if (need) {
		rc = rr_fail(err, RR_E_ARCHIVE, "METADATA runs past the end of the file");
		goto fail;
	}
	return rr_dist_zip_member(&m, buf + data_off, filename, "METADATA", out, err);
fail:
	rr_error_prefix(err, "%s: ", filename);
	return rc;
}

/*
 * Inflating without linking zlib: raw deflate data wrapped in a gzip header and
 * trailer (the CRC-32 and size from the central directory) is a gzip stream,
 * which libarchive's "raw" format reads; its gzip filter checks the CRC.
 */
rr_err rr_dist_zip_member(const struct rr_zip_member *m, const void *data, const char *filename,
			  const char *what, struct rr_strbuf *out, rr_error *err)
{
	static const unsigned char gz_head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
	RR_AUTO_STRBUF struct rr_strbuf gz = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;
	unsigned char trailer[8];
	struct archive *a;
	struct archive_entry *ent;
	rr_err rc = RR_OK;

	if (m->csize > MAX_MEMBER || m->usize > MAX_MEMBER)
		return rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %u bytes", filename, what,
			       MAX_MEMBER);
	if (m->method == 0) {
		rr_strbuf_reset(out);
		rr_strbuf_add(out, data, (size_t)m->csize);
		return RR_OK;
	}
	if (rr_archive_load(err) != RR_OK)
		return RR_E_ENV;
	for (int i = 0; i < 4; i++) {
		trailer[i] = (unsigned char)(m->crc >> (8 * i));
		trailer[4 + i] = (unsigned char)(m->usize >> (8 * i));
	}
	rr_strbuf_add(&gz, gz_head, sizeof(gz_head));
	rr_strbuf_add(&gz, data, (size_t)m->csize);
	rr_strbuf_add(&gz, trailer, sizeof(trailer));
	a = rr_archive.read_new();
	rr_archive.read_support_filter_all(a);
	rr_archive.read_support_format_raw(a);
	if (rr_archive.read_open_memory(a, gz.buf, gz.len) != ARCHIVE_OK ||
	    rr_archive.read_next_header(a, &ent) != ARCHIVE_OK) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: cannot inflate %s: %s", filename, what,
			     rr_archive.error_string(a));
		goto out;
	}
	for (;;) {
		char buf[16384];
		la_ssize_t n = rr_archive.read_data(a, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			rc = rr_fail(err, RR_E_ARCHIVE, "%s: cannot inflate %s: %s", filename, what,
				     rr_archive.error_string(a));
			goto out;
		}
		if (got.len + (size_t)n > m->usize) {
			rc = rr_fail(err, RR_E_ARCHIVE, "%s: %s inflates past its size",
				     filename, what);
			goto out;
		}
		rr_strbuf_add(&got, buf, (size_t)n);
	}
	if (got.len != m->usize) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: %s inflates to %zu bytes, not %llu",
			     filename, what, got.len, m->usize);
		goto out;
	}
	rr_strbuf_reset(out);
	rr_strbuf_add(out, got.buf, got.len);
out:
	rr_archive.read_free(a);
	return rc;
}

/* header lines of an RFC 822 style block, up to the first blank line */
bool rr_dist_pkginfo_static(const char *text, size_t len, const char **why)
{
	const char *p = text;
	const char *end = text + len;
	int major = -1;
	int minor = -1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n == 0)
			break;
		if (n > 17 && strncasecmp(p, "Metadata-Version:", 17) == 0) {
			const char *v = p + 17;
			while (*v == ' ' || *v == '\t')
				v++;
			if (sscanf(v, "%d.%d", &major, &minor) != 2)
				major = -1;
		} else if (n > 8 && strncasecmp(p, "Dynamic:", 8) == 0) {
			const char *v = p + 8;
			size_t k;
			while (*v == ' ' || *v == '\t')
				v++;
			k = (size_t)(p + n - v);
			while (k && (v[k - 1] == ' ' || v[k - 1] == '\t'))
				k--;
			if ((k == 13 && strncasecmp(v, "Requires-Dist", 13) == 0) ||
			    (k == 15 && strncasecmp(v, "Requires-Python", 15) == 0) ||
			    (k == 14 && strncasecmp(v, "Provides-Extra", 14) == 0)) {
				*why = "its PKG-INFO marks the dependencies as dynamic (PEP 643)";
				return false;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (major < 0) {
		*why = "its PKG-INFO has no Metadata-Version";
		return false;
	}
	if (major < 2 || (major == 2 && minor < 2)) {
		*why = "its PKG-INFO predates Metadata-Version 2.2, so the dependencies may be "
		       "computed at build time";
		return false;
	}
	*why = NULL;
	return true;
}

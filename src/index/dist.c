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
#include <strings.h>
#include <unistd.h>

#include "index/dl-private.h"
#include "index/index-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/reqfile.h"
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

static int pick_pyproject(const char *path, const char *want_prefix)
{
	const char *slash = strchr(path, '/');

	(void)want_prefix;
	return slash && !strchr(slash + 1, '/') && strcmp(slash + 1, "pyproject.toml") == 0;
}

/* a member extract() looks for: the best found so far (rank), its content */
struct member {
	member_pick pick;
	const char *prefix;
	int enough; /* a rank nothing after it can beat */
	const char *what;
	int best;
	struct rr_strbuf got;
};

/* the members found so far are what the caller needs: read no further */
typedef bool (*members_done)(const struct member *ms, size_t n);

static bool first_done(const struct member *ms, size_t n)
{
	(void)n;
	return ms[0].best >= ms[0].enough;
}

/* data/len in memory, or fd >= 0: the members ms[0..n) (ms[0] must be found); reading
 * stops at deadline_ms (rr_fetch_now_ms time, 0: none) as a transfer would */
static rr_err extract(const void *data, size_t len, int fd, const char *filename, struct member *ms,
		      size_t n, members_done done, long long deadline_ms, rr_error *err)
{
	struct archive *a;
	struct archive_entry *ent;
	int r;
	rr_err rc = RR_OK;
	unsigned long long passed = 0;

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
		struct member *m = NULL;
		int rank = 0;
		la_int64_t size;
		if (deadline_ms && rr_fetch_now_ms() >= deadline_ms) {
			rc = rr_fail(err, RR_E_NETWORK,
				     "%s: the time allowed for index requests ran out (--timeout) "
				     "while it was read",
				     filename);
			goto out;
		}
		if (!path)
			continue;
		if (path[0] == '.' && path[1] == '/')
			path += 2;
		for (size_t i = 0; i < n && !m; i++) {
			rank = ms[i].pick(path, ms[i].prefix);
			if (rank > ms[i].best)
				m = &ms[i];
		}
		size = rr_archive.entry_size_is_set(ent) ? rr_archive.entry_size(ent) : -1;
		if (!m) {
			/* skipping it may mean inflating it: bounded */
			passed += size > 0 ? (unsigned long long)size : 0;
			if (passed > MAX_SCAN) {
				rc = rr_fail(err, RR_E_LIMIT,
					     "%s: no %s within the first %llu MiB of its content",
					     filename, ms[0].what, MAX_SCAN >> 20);
				goto out;
			}
			continue;
		}
		if (size > (la_int64_t)MAX_MEMBER) {
			rc = rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %u bytes", filename,
				     path, MAX_MEMBER);
			goto out;
		}
		rr_strbuf_reset(&m->got);
		for (;;) {
			char buf[16384];
			la_ssize_t k = rr_archive.read_data(a, buf, sizeof(buf));
			if (k == 0)
				break;
			if (k < 0) {
				/* cut off (a head): as if never met */
				if (m != ms)
					break;
				rc = rr_fail(err, RR_E_ARCHIVE, "%s: cannot read %s: %s", filename,
					     path, rr_archive.error_string(a));
				goto out;
			}
			if (m->got.len + (size_t)k > MAX_MEMBER) {
				rc = rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %u bytes",
					     filename, path, MAX_MEMBER);
				goto out;
			}
			rr_strbuf_add(&m->got, buf, (size_t)k);
		}
		if (m != ms && size >= 0 && m->got.len != (size_t)size)
			continue;
		m->best = rank;
		if (done(ms, n))
			break; /* never inflate the rest */
	}
	if (r != ARCHIVE_EOF && r != ARCHIVE_OK && ms[0].best == 0) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: damaged archive: %s", filename,
			     rr_archive.error_string(a));
		goto out;
	}
	if (!ms[0].best)
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: no %s inside", filename, ms[0].what);
out:
	rr_archive.read_free(a);
	return rc;
}

/* one member, the best-ranked */
static rr_err extract_one(const void *data, size_t len, int fd, const char *filename,
			  const char *prefix, member_pick pick, int enough, const char *what,
			  struct rr_strbuf *out, rr_error *err)
{
	struct member m = {pick, prefix, enough, what, 0, RR_STRBUF_INIT};
	rr_err rc = extract(data, len, fd, filename, &m, 1, first_done, 0, err);

	if (!rc) {
		rr_strbuf_reset(out);
		rr_strbuf_add(out, m.got.buf, m.got.len);
	}
	rr_strbuf_release(&m.got);
	return rc;
}

/* an sdist: PKG-INFO, and its pyproject.toml unless PKG-INFO can be trusted */
static bool sdist_done(const struct member *ms, size_t n)
{
	const char *why;

	(void)n;
	return ms[0].best &&
	       (ms[1].best || rr_dist_pkginfo_static(ms[0].got.buf, ms[0].got.len, &why));
}

/* the version an sdist's filename carries: "{name}-{version}.tar.gz" */
static char *sdist_version(const char *filename)
{
	const char *dash = strrchr(filename, '-');
	size_t n = dash ? strlen(dash + 1) : 0;

	if (n > 7 && strcmp(dash + 1 + n - 7, ".tar.gz") == 0)
		n -= 7;
	else if (n > 4 && strcasecmp(dash + 1 + n - 4, ".zip") == 0)
		n -= 4;
	return dash ? rr_xstrndup(dash + 1, n) : rr_xstrdup("0");
}

/* a header of an RFC 822 block: its value (first line), or NULL */
static char *header_value(const char *text, size_t len, const char *name)
{
	size_t k = strlen(name);
	const char *p = text, *end = text + len;

	while (p < end && *p != '\n' && *p != '\r') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if ((size_t)(e - p) > k && strncasecmp(p, name, k) == 0 && p[k] == ':') {
			const char *v = p + k + 1;
			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t'))
				e--;
			return rr_xstrndup(v, (size_t)(e - v));
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* does the Name of metadata text name the project of the sdist filename (PEP 625:
 * "{name}-{version}.tar.gz")? A pyproject.toml of another project is no word on this one */
static bool names_this_sdist(const char *text, size_t len, const char *filename)
{
	RR_AUTOFREE char *name = header_value(text, len, "Name");
	const char *dash = strrchr(filename, '-');
	RR_AUTOFREE char *a = name ? rr_name_normalize(name) : NULL;
	RR_AUTOFREE char *b = dash ? rr_name_normalize_n(filename, (size_t)(dash - filename))
				   : NULL;

	return a && b && strcmp(a, b) == 0;
}

/*
 * an sdist's core metadata: its PKG-INFO where the dependencies in it are static (PEP
 * 643); else, where its pyproject.toml has a [project] table whose dependencies are
 * not dynamic, that table (PEP 621: a build may not change them; meson-python and
 * older setuptools write Metadata-Version 2.1, and meson-python writes PKG-INFO last);
 * else PKG-INFO as it is (the dependencies unknown). With no PKG-INFO found (a head
 * that stops before it), a static pyproject.toml is enough.
 */
static rr_err sdist_meta(const void *data, size_t len, int fd, const char *filename,
			 long long deadline_ms, struct rr_strbuf *out, rr_error *err)
{
	struct member ms[2] = {
	    {pick_pkginfo, NULL, 1, "PKG-INFO", 0, RR_STRBUF_INIT},
	    {pick_pyproject, NULL, 1, "pyproject.toml", 0, RR_STRBUF_INIT},
	};
	const char *why;
	rr_err rc = extract(data, len, fd, filename, ms, 2, sdist_done, deadline_ms, err);

	if ((!rc && !rr_dist_pkginfo_static(ms[0].got.buf, ms[0].got.len, &why)) ||
	    (rc == RR_E_ARCHIVE && !ms[0].best)) {
		RR_AUTOFREE char *version = ms[0].best ? header_value(ms[0].got.buf, ms[0].got.len,
								      "Version")
						       : NULL;
		RR_AUTOFREE char *pyreq = ms[0].best ? header_value(ms[0].got.buf, ms[0].got.len,
								    "Requires-Python")
						     : NULL;
		RR_AUTOFREE char *path = rr_xasprintf("%s/pyproject.toml", filename);
		RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
		if (!version)
			version = sdist_version(filename);
		if (ms[1].best &&
		    rr_pyproject_core_metadata(path, ms[1].got.buf, ms[1].got.len, version, pyreq,
					       &md, NULL) == RR_OK &&
		    names_this_sdist(md.buf, md.len, filename)) {
			if (rc && err)
				rr_error_release(err);
			rc = RR_OK;
			rr_strbuf_reset(&ms[0].got);
			rr_strbuf_add(&ms[0].got, md.buf, md.len);
		}
	}
	if (!rc) {
		rr_strbuf_reset(out);
		rr_strbuf_add(out, ms[0].got.buf, ms[0].got.len);
	}
	rr_strbuf_release(&ms[0].got);
	rr_strbuf_release(&ms[1].got);
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
	return extract_one(data, len, -1, filename, prefix, pick_metadata, 2,
			   "*.dist-info/METADATA", out, err);
}

rr_err rr_dist_sdist_pkginfo(const void *data, size_t len, const char *filename,
			     struct rr_strbuf *out, rr_error *err)
{
	return sdist_meta(data, len, -1, filename, 0, out, err);
}

rr_err rr_dist_sdist_pkginfo_fd(int fd, const char *filename, long long deadline_ms,
				struct rr_strbuf *out, rr_error *err)
{
	if (lseek(fd, 0, SEEK_SET) != 0)
		return rr_fail(err, RR_E_IO, "%s: cannot rewind the download: %s", filename,
			       strerror(errno));
	return sdist_meta(NULL, 0, fd, filename, deadline_ms, out, err);
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
	return rr_dist_zip_member_max(m, data, filename, what, MAX_MEMBER, out, err);
}

rr_err rr_dist_zip_member_max(const struct rr_zip_member *m, const void *data, const char *filename,
			      const char *what, unsigned long long max, struct rr_strbuf *out,
			      rr_error *err)
{
	static const unsigned char gz_head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
	RR_AUTO_STRBUF struct rr_strbuf gz = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;
	unsigned char trailer[8];
	struct archive *a;
	struct archive_entry *ent;
	rr_err rc = RR_OK;

	if (m->csize > max || m->usize > max)
		return rr_fail(err, RR_E_LIMIT, "%s: %s is larger than %llu bytes", filename, what,
			       max);
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

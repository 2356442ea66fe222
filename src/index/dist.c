/*
 * dist.c - the one place that uses libarchive (bound on first use, dl-archive.c):
 * core metadata out of a wheel (*.dist-info/METADATA) or an sdist
 * (<top>/PKG-INFO), from memory.
 * Members are read with a size cap so a hostile archive cannot make us
 * allocate without bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index/dl-private.h"
#include "index/index-private.h"
#include "rocm-resolve/util.h"

#define MAX_MEMBER (16u << 20)

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

static rr_err extract(const void *data, size_t len, const char *filename, const char *want_prefix,
		      member_pick pick, const char *what, struct rr_strbuf *out, rr_error *err)
{
	struct archive *a;
	struct archive_entry *ent;
	int best = 0;
	int r;
	rr_err rc = RR_OK;
	RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;

	if (rr_archive_load(err) != RR_OK)
		return RR_E_ENV;
	a = rr_archive.read_new();
	rr_archive.read_support_filter_all(a);
	rr_archive.read_support_format_zip(a);
	rr_archive.read_support_format_tar(a);
	if (rr_archive.read_open_memory(a, data, len) != ARCHIVE_OK) {
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
		if (rank <= best)
			continue;
		size = rr_archive.entry_size_is_set(ent) ? rr_archive.entry_size(ent) : -1;
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
		if (rank >= 2)
			break;
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
	return extract(data, len, filename, prefix, pick_metadata, "*.dist-info/METADATA", out,
		       err);
}

rr_err rr_dist_sdist_pkginfo(const void *data, size_t len, const char *filename,
			     struct rr_strbuf *out, rr_error *err)
{
	return extract(data, len, filename, NULL, pick_pkginfo, "PKG-INFO", out, err);
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

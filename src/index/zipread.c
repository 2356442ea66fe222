/*
 * zipread.c - just enough of the zip format (APPNOTE.TXT 6.3) to find a wheel's
 * *.dist-info/METADATA from pieces fetched with HTTP range requests: the end of
 * central directory record (and its ZIP64 form) in the file's tail, the
 * central directory, then the member's local header. Pure byte parsing from
 * memory, no I/O, every offset bounds-checked (fuzzed: tests/fuzz/fuzz-zip.c).
 * Inflating the member is dist.c's job.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "index/index-private.h"
#include "rocm-resolve/util.h"

#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define SIG_CDH 0x02014b50u
#define SIG_LFH 0x04034b50u

static unsigned long long le(const unsigned char *p, int n)
{
	unsigned long long v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

rr_err rr_zip_find_cd(const unsigned char *tail, size_t len, unsigned long long total,
		      struct rr_zip_cd *cd, rr_error *err)
{
	size_t i;

	if (len < 22 || len > total)
		return rr_fail(err, RR_E_ARCHIVE, "not a zip file (too short)");
	/* the record is 22 bytes plus a comment of at most 65535: search backwards */
	for (i = len - 22;; i--) {
		const unsigned char *p = tail + i;
		if (le(p, 4) == SIG_EOCD && i + 22 + le(p + 20, 2) == len) {
			unsigned long long entries = le(p + 10, 2);
			unsigned long long size = le(p + 12, 4);
			unsigned long long off = le(p + 16, 4);
			unsigned long long base = total - len; /* file offset of tail[0] */
			if (entries == 0xffff || size == 0xffffffffu || off == 0xffffffffu) {
				/* ZIP64: a locator right before, pointing at the ZIP64 record */
				const unsigned char *l;
				unsigned long long r64;
				if (i < 20 || le(tail + i - 20, 4) != SIG_LOC64)
					return rr_fail(err, RR_E_ARCHIVE,
						       "ZIP64 archive without its locator");
				l = tail + i - 20;
				r64 = le(l + 8, 8);
				/* no sum that can wrap: a locator pointing near 2^64 must fail */
				if (r64 < base || r64 - base > len || len - (r64 - base) < 56)
					return rr_fail(err, RR_E_UNSUPPORTED,
						       "ZIP64 end record outside the fetched tail");
				p = tail + (r64 - base);
				if (le(p, 4) != SIG_EOCD64)
					return rr_fail(err, RR_E_ARCHIVE, "damaged ZIP64 end record");
				entries = le(p + 32, 8);
				size = le(p + 40, 8);
				off = le(p + 48, 8);
			}
			if (off > total || size > total - off)
				return rr_fail(err, RR_E_ARCHIVE,
					       "central directory outside the file");
			cd->offset = off;
			cd->size = size;
			cd->entries = entries;
			return RR_OK;
		}
		if (i == 0 || len - i > 22 + 65535)
			break;
	}
	return rr_fail(err, RR_E_ARCHIVE, "not a zip file (no end of central directory)");
}

/* "<top>.dist-info/METADATA" with nothing else in the path */
static int metadata_rank(const unsigned char *name, size_t n, const char *want_prefix)
{
	const unsigned char *slash = memchr(name, '/', n);
	size_t top;

	if (!slash || (size_t)(name + n - slash - 1) != 8 || memcmp(slash + 1, "METADATA", 8) != 0)
		return 0;
	top = (size_t)(slash - name);
	if (top < 10 || memcmp(slash - 10, ".dist-info", 10) != 0)
		return 0;
	if (want_prefix && strlen(want_prefix) == top + 1 &&
	    strncasecmp((const char *)name, want_prefix, top + 1) == 0)
		return 2;
	return 1;
}

/* "<top>/PKG-INFO", nothing deeper: an sdist's own core metadata */
static int pkginfo_rank(const unsigned char *name, size_t n, const char *want_prefix)
{
	const unsigned char *slash = memchr(name, '/', n);

	(void)want_prefix;
	return slash && slash > name && (size_t)(name + n - slash - 1) == 8 &&
	       memcmp(slash + 1, "PKG-INFO", 8) == 0;
}

/* one central directory entry at p (46 bytes and its name, extra and comment within len):
 * its sizes, offset, method (ZIP64 fields read from the extra field) */
static rr_err cd_entry(const unsigned char *p, size_t nlen, size_t xlen, struct rr_zip_member *m,
		       rr_error *err)
{
	struct rr_zip_member t = {
	    .flags = (unsigned)le(p + 8, 2),
	    .method = (unsigned)le(p + 10, 2),
	    .crc = (unsigned long)le(p + 16, 4),
	    .csize = le(p + 20, 4),
	    .usize = le(p + 24, 4),
	    .local_off = le(p + 42, 4),
	};
	/* ZIP64 extra field: the 0xffffffff fields, in this order, 8 bytes each */
	const unsigned char *x = p + 46 + nlen;
	size_t xp = 0;

	while (xp + 4 <= xlen) {
		size_t id = (size_t)le(x + xp, 2), sz = (size_t)le(x + xp + 2, 2);
		size_t q = xp + 4;
		if (xp + 4 + sz > xlen)
			break;
		if (id == 1) {
			unsigned long long *f[] = {&t.usize, &t.csize, &t.local_off};
			for (size_t k = 0; k < 3; k++) {
				if (*f[k] != 0xffffffffu)
					continue;
				if (q + 8 > xp + 4 + sz)
					return rr_fail(err, RR_E_ARCHIVE,
						       "damaged ZIP64 extra field");
				*f[k] = le(x + q, 8);
				q += 8;
			}
		}
		xp += 4 + sz;
	}
	*m = t;
	return RR_OK;
}

/* a member we can read: not encrypted, stored or deflated */
static rr_err member_readable(const struct rr_zip_member *m, const char *what, rr_error *err)
{
	if (m->flags & 1)
		return rr_fail(err, RR_E_UNSUPPORTED, "%s is encrypted", what);
	if (m->method != 0 && m->method != 8)
		return rr_fail(err, RR_E_UNSUPPORTED, "%s uses compression method %u", what,
			       m->method);
	if (m->method == 0 && m->csize != m->usize)
		return rr_fail(err, RR_E_ARCHIVE, "stored %s with two sizes", what);
	return RR_OK;
}

static rr_err find_member(const unsigned char *cd, size_t len,
			  int (*rank_of)(const unsigned char *, size_t, const char *),
			  const char *want_prefix, const char *what, struct rr_zip_member *m,
			  rr_error *err)
{
	size_t pos = 0;
	int best = 0;
	rr_err rc;

	while (pos + 46 <= len && le(cd + pos, 4) == SIG_CDH) {
		const unsigned char *p = cd + pos;
		size_t nlen = (size_t)le(p + 28, 2);
		size_t xlen = (size_t)le(p + 30, 2);
		size_t clen = (size_t)le(p + 32, 2);
		int rank;

		if (pos + 46 + nlen + xlen + clen > len)
			break;
		rank = rank_of(p + 46, nlen, want_prefix);
		if (rank > best) {
			if ((rc = cd_entry(p, nlen, xlen, m, err)))
				return rc;
			best = rank;
			if (rank >= 2)
				break;
		}
		pos += 46 + nlen + xlen + clen;
	}
	if (!best)
		return rr_fail(err, RR_E_ARCHIVE, "no %s in the central directory", what);
	return member_readable(m, what, err);
}

rr_err rr_zip_list(const unsigned char *cd, size_t len,
		   bool (*want)(const unsigned char *name, size_t n), struct rr_zip_entry **ret,
		   size_t *nret, rr_error *err)
{
	struct rr_zip_entry *v = NULL;
	size_t n = 0, cap = 0, pos = 0;
	rr_err rc = RR_OK;

	while (pos + 46 <= len && le(cd + pos, 4) == SIG_CDH) {
		const unsigned char *p = cd + pos;
		size_t nlen = (size_t)le(p + 28, 2);
		size_t xlen = (size_t)le(p + 30, 2);
		size_t clen = (size_t)le(p + 32, 2);
		struct rr_zip_member m;

		if (pos + 46 + nlen + xlen + clen > len)
			break;
		if (want(p + 46, nlen)) {
			char *name = rr_xstrndup((const char *)p + 46, nlen);
			if ((rc = cd_entry(p, nlen, xlen, &m, err)) ||
			    (rc = member_readable(&m, name, err))) {
				free(name);
				break;
			}
			RR_PUSH(v, n, cap) = (struct rr_zip_entry){name, m};
		}
		pos += 46 + nlen + xlen + clen;
	}
	if (rc) {
		rr_zip_list_free(v, n);
		return rc;
	}
	*ret = v;
	*nret = n;
	return RR_OK;
}

void rr_zip_list_free(struct rr_zip_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

rr_err rr_zip_find_metadata(const unsigned char *cd, size_t len, const char *want_prefix,
			    struct rr_zip_member *m, rr_error *err)
{
	return find_member(cd, len, metadata_rank, want_prefix, "*.dist-info/METADATA", m, err);
}

rr_err rr_zip_find_pkginfo(const unsigned char *cd, size_t len, struct rr_zip_member *m,
			   rr_error *err)
{
	return find_member(cd, len, pkginfo_rank, NULL, "<top>/PKG-INFO", m, err);
}

bool rr_zip_metadata_in_head(const unsigned char *head, size_t len, const char *want_prefix,
			     struct rr_zip_member *m)
{
	size_t pos = 0;

	/* a handful of members at most: dist-info first is the case worth a look */
	for (int k = 0; k < 64 && pos + 30 <= len && le(head + pos, 4) == SIG_LFH; k++) {
		const unsigned char *p = head + pos;
		unsigned flags = (unsigned)le(p + 6, 2);
		unsigned long long csize = le(p + 18, 4);
		size_t nlen = (size_t)le(p + 26, 2), xlen = (size_t)le(p + 28, 2);

		/* sizes after the data (a data descriptor) or in a ZIP64 field: the
		 * central directory knows them, not this header */
		if ((flags & 8) || csize == 0xffffffffu || pos + 30 + nlen + xlen > len)
			return false;
		if (metadata_rank(p + 30, nlen, want_prefix) == 2) {
			if (pos + 30 + nlen + xlen + csize > len)
				return false;
			*m = (struct rr_zip_member){
			    .local_off = pos,
			    .csize = csize,
			    .usize = le(p + 22, 4),
			    .method = (unsigned)le(p + 8, 2),
			    .flags = flags,
			    .crc = (unsigned long)le(p + 14, 4),
			};
			return !(flags & 1) &&
			       (m->method == 8 || (m->method == 0 && csize == m->usize));
		}
		if (csize > len - pos - 30 - nlen - xlen)
			return false;
		pos += 30 + nlen + xlen + (size_t)csize;
	}
	return false;
}

rr_err rr_zip_local_data(const unsigned char *p, size_t len, const struct rr_zip_member *m,
			 size_t *data_off, size_t *need, rr_error *err)
{
	unsigned long long off;

	*need = 0;
	if (len < 30) {
		*need = 30 + 65535 * 2 + (size_t)m->csize;
		return RR_OK;
	}
	if (le(p, 4) != SIG_LFH)
		return rr_fail(err, RR_E_ARCHIVE, "no local header where the directory points");
	off = 30 + le(p + 26, 2) + le(p + 28, 2);
	if (m->csize > (unsigned long long)SIZE_MAX - off)
		return rr_fail(err, RR_E_ARCHIVE, "METADATA larger than memory");
	if (off + m->csize > len) {
		*need = (size_t)(off + m->csize);
		return RR_OK;
	}
	*data_off = (size_t)off;
	return RR_OK;
}

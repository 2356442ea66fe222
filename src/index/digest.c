/*
 * digest.c - the page digest, a parsed page as the cache keeps it: its writer
 * and its reader side by side (index-private.h). Fuzzed (tests/fuzz/fuzz-digest.c).
 *
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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/index-private.h"
#include "rocm-resolve/util.h"

static const char digest_magic[] = "rr-digest 1\n";
#define DIGEST_NONE 0xffffffffu

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
		char **v[RR_INDEX_FILE_NSTR];
		unsigned char flags = (unsigned char)((f.yanked ? 1 : 0) | (f.has_metadata ? 2 : 0) |
						      (f.is_wheel ? 4 : 0));
		uint64_t sz = (uint64_t)f.size;
		rr_strbuf_addch(out, (char)flags);
		put_u32(out, (uint32_t)sz);
		put_u32(out, (uint32_t)(sz >> 32));
		rr_index_file_strings(&f, v);
		for (size_t k = 0; k < RR_INDEX_FILE_NSTR; k++) {
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
	    n > len / (1 + 8 + 4 * RR_INDEX_FILE_NSTR))
		goto bad;
	p.nforeign = nforeign;
	p.files = rr_xcalloc(n ? n : 1, sizeof(*p.files));
	for (uint32_t i = 0; i < n; i++) {
		struct rr_index_file *f = &p.files[i];
		char **v[RR_INDEX_FILE_NSTR];
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
		rr_index_file_strings(f, v);
		for (size_t k = 0; k < RR_INDEX_FILE_NSTR; k++) {
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

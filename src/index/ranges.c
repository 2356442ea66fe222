/*
 * ranges.c - core metadata out of remote dists without PEP 658, by range
 * requests, one file's steps at a time (each step is asked the moment the one
 * before is answered; metadata.c runs the jobs). A wheel is read as uv does:
 * its end (the end of the central directory, usually the whole directory and,
 * for a small wheel, METADATA); when the directory starts earlier, a longer end
 * that holds it and, most likely, METADATA (which lies just before it); then
 * only the METADATA member if it is still missing - never the whole wheel. The end asked
 * for is 32 KiB (TAIL_BYTES) for a project's first wheel; once one wheel of the
 * project was read, the next one's tail is sized from it to bring METADATA
 * along (one request) when that is not much more than the directory, else the
 * directory (two). A project's first platform wheel also has its start asked
 * beside its end (SPEC_HEAD_BYTES): where its dist-info comes first, METADATA is in
 * that answer. A server that ignores Range (200) or has no Content-Range
 * gets a whole download, streamed to an unlinked temp file and read from
 * there. A .zip sdist is read like a wheel (its member is <top>/PKG-INFO). A
 * .tar.gz has no directory: its first 60 KiB are asked for, and PKG-INFO, which
 * setuptools writes among the first members, is read out of that truncated
 * stream; when it is not there the head grows (to 256 KiB: Pillow 9.5.0's
 * sdist has 185 KB of CHANGES before it; then to 1 MiB), and past that the rest
 * comes in growing chunks (builders other than setuptools write PKG-INFO last).
 * Where PKG-INFO does not make the dependencies static, a pyproject.toml whose
 * [project] does is read instead (dist.c): scikit-image 0.21.0's meson-python
 * sdist is 22.7 MB, and its pyproject.toml lies within the first MiB.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "index/client-private.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define DIST_MAX (2ull << 30)

enum {
	ST_HEAD,
	ST_CHUNK,
	ST_ZIPHEAD,
	ST_TAIL,
	ST_CD,
	ST_MEMBER,
	ST_WHOLE,
	ST_DONE,
	ST_WAIT /* the member lies in the start asked beside the end, still out */
};

/* the start asked beside the end (rr_index_dist_job_spec) */
enum { SPEC_NONE, SPEC_OUT, SPEC_IN, SPEC_GONE };

struct rr_index_dist_job {
	const struct rr_index_file *f;
	const char *what; /* the member: "METADATA" or "PKG-INFO" */
	int stage;
	int member_tries;
	int rounds;
	unsigned char *tail; /* the last tail_len bytes */
	size_t tail_len;
	size_t want_tail; /* the tail asked for */
	bool longer_tail; /* a second, longer tail was asked for (the directory started earlier) */
	unsigned long long total;
	struct rr_zip_cd cd;
	struct rr_zip_member m;
	size_t need; /* bytes wanted from the member's local header on */
	struct rr_strbuf head; /* a .tar.gz's first bytes so far */
	size_t want_head;      /* the head's end asked for */
	/* past HEAD_MAX, the head so far is in a temp file, and grows in chunks */
	int acc_fd;
	unsigned long long acc_len, want_end;
	int spec;
	unsigned char *spec_head; /* SPEC_IN: the first spec_len bytes */
	size_t spec_len;
	unsigned long long spec_total; /* the size its answer gave the file */
};

/* what one wheel of a project taught about the next: how far from the end its
 * METADATA and its central directory began, and, when its dist-info came first, how
 * far from the start METADATA ended */
struct tail_hint {
	unsigned long long need, cd, head;
};

/*
 * the first range asked of a wheel: its end, where the central directory (and,
 * for a small wheel, METADATA itself) lies. 16 KiB holds the directory of most
 * wheels; 32 KiB brings METADATA along for about 40 % of those whose METADATA
 * 16 KiB missed (LLaMA-Factory, real mirror: 157 -> 141 metadata requests for
 * 117 files, 48.4 -> 49.4 MB; every request saved is a round trip on the way
 * to the pages of what that release requires). Under
 * HTTP/2's default 64 KiB stream window in any case: with 64 KiB + 22 bytes,
 * libcurl 7.88 against this machine's mirror stalled ~200 bytes short in about
 * 1 run in 5.
 */
#define TAIL_BYTES (32u * 1024)
/*
 * a later wheel of a project whose METADATA lay within this of the end (or
 * within 1.5 times its directory) gets a tail that brings METADATA too; else
 * one that brings the directory. Chosen on the -vv logs of the real mirror
 * (DeepSpeed dev, ComfyUI, generative-models): DeepSpeed 381 -> 253 requests
 * for 1.2 MB more, generative-models 1325 -> 891 for 5.7 MB more; a fixed tail
 * of 128 KiB instead cost 13 and 45 MB more.
 */
#define TAIL_ONE_FIT (128u * 1024)
/* past the directory and half its size (RECORD), a longer tail reaches back this far
 * more for METADATA (a long description deflated) */
#define LONGER_TAIL_EXTRA (32u * 1024)
#define TAIL_MAX (1u << 20)
/* the first range asked of a .tar.gz sdist: PKG-INFO was within the first 24 KiB
 * of every setuptools sdist looked at (pandas 1.5.3, jieba 0.42.1, encodec) */
#define HEAD_BYTES (60u * 1024)
/* a wheel whose METADATA ended within this of its start (pdm-backend writes the
 * dist-info first: fastapi) teaches the next wheel of its project to ask for its start
 * instead of its end: METADATA in one request, not the end's then the member's */
#define ZIPHEAD_MAX (64u * 1024)
/*
 * the start of a platform wheel asked beside its end, when no wheel of its project
 * was read yet: its METADATA is then in one answer whichever end it is at. Older
 * maturin and auditwheel builds write the dist-info first (the diffusers server file,
 * fully pinned to 2024 releases: 10 of its 15 platform wheels, among them tokenizers
 * and pydantic-core; webui-forge 6 of 51, LLaMA-Factory 4 of 38), and there the end
 * only names where METADATA is: a second round trip, 50-90 ms on the real mirror,
 * on the way to the pages of what the release requires. Pure wheels are left alone
 * (most are small, and their builders write the dist-info last). The METADATA
 * members found at the start ended within 16 KiB in 34 of 42 cases seen
 */
#define SPEC_HEAD_BYTES (32u * 1024)
/* the head grows to 256 KiB, then to this, in memory, while neither PKG-INFO nor a
 * static pyproject.toml is in it. scikit-image 0.21.0's meson-python sdist (22.7 MB,
 * PKG-INFO last, Metadata-Version 2.1) has its pyproject.toml about 0.8 MB in:
 * webui-forge fetched the whole file to learn nothing */
#define HEAD_MAX (1u << 20)
/* past it, the rest comes in chunks that each end CHUNK_GROWTH times further in, kept
 * in a temp file and read again after each: scipy 1.9-1.11's sdists (42-56 MB) have
 * their pyproject.toml 10-12 MB in, and a walk down them under numpy<1.20 fetched
 * eight whole. Where nothing is found the chunks add up to the file, in two or three
 * more round trips than one whole download */
#define CHUNK_GROWTH 4

/* the project a dist's filename names (its first part, normalised as a key) */
static char *hint_key(const struct rr_index_file *f)
{
	const char *fn = f->filename;
	size_t n = strcspn(fn, "-");

	return rr_name_normalize_n(fn, n);
}

/* what an earlier wheel of f's project taught: NULL when none has been read (with
 * create, a new hint to fill) */
static struct tail_hint *hint_of(struct rr_index_client *c, const struct rr_index_file *f,
				 bool create)
{
	RR_AUTOFREE char *k = hint_key(f);
	struct tail_hint **h = (struct tail_hint **)rr_strmap_find(&c->tail_hints, k, create);

	if (h && !*h && create)
		*h = rr_xcalloc(1, sizeof(**h));
	return h ? *h : NULL;
}

void rr_index_tail_hint_seed(struct rr_index_client *c, const char *key,
			     const unsigned long long v[3])
{
	struct tail_hint **h = (struct tail_hint **)rr_strmap_find(&c->tail_hints, key, true);

	/* what a wheel of this run taught stands */
	if (*h)
		return;
	*h = rr_xcalloc(1, sizeof(**h));
	(*h)->need = v[0];
	(*h)->cd = v[1];
	(*h)->head = v[2] <= ZIPHEAD_MAX ? v[2] : 0;
}

bool rr_index_tail_hint(struct rr_index_client *c, const char *key, unsigned long long v[3])
{
	struct tail_hint **h = (struct tail_hint **)rr_strmap_find(&c->tail_hints, key, false);

	if (!h || !*h || (!(*h)->need && !(*h)->cd && !(*h)->head))
		return false;
	v[0] = (*h)->need;
	v[1] = (*h)->cd;
	v[2] = (*h)->head;
	return true;
}

static size_t tail_for(const struct tail_hint *h)
{
	unsigned long long t;

	if (!h)
		return TAIL_BYTES;
	t = h->need + h->need / 10 + 4096;
	if (t > TAIL_ONE_FIT && t > h->cd + h->cd / 2)
		t = h->cd + h->cd / 10 + 4096;
	return t < TAIL_BYTES ? TAIL_BYTES : t > TAIL_MAX ? TAIL_MAX : (size_t)t;
}

/* the start of a wheel to ask for (ST_ZIPHEAD), or 0: its end */
static size_t ziphead_for(const struct tail_hint *h)
{
	return h && h->head ? (size_t)(h->head + h->head / 4 + 2048) : 0;
}

static void tail_learn(struct rr_index_client *c, const struct rr_index_dist_job *j)
{
	struct tail_hint *h = hint_of(c, j->f, true);
	unsigned long long head = j->m.local_off + j->m.csize + 30 + 512;

	h->need = j->total - j->m.local_off;
	if (j->cd.size)
		h->cd = j->total - j->cd.offset;
	h->head = head <= ZIPHEAD_MAX ? head : 0;
}

static bool is_zip_name(const char *filename)
{
	size_t n = strlen(filename);

	return n > 4 && strcasecmp(filename + n - 4, ".zip") == 0;
}

/* the member located: inflate it from what we have, or say what to fetch */
static rr_err job_member(struct rr_index_client *c, struct rr_index_dist_job *j, const unsigned char *p,
			 size_t len, rr_error *err)
{
	size_t data_off = 0, need = 0;
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;

	if (j->m.local_off >= j->total)
		return rr_fail(err, RR_E_ARCHIVE, "%s: %s outside the file", j->f->filename,
			       j->what);
	if (!p && j->spec == SPEC_IN && j->spec_total == j->total && j->m.local_off < j->spec_len) {
		/* the start asked beside the end holds the member, or how it begins */
		p = j->spec_head + j->m.local_off;
		len = j->spec_len - (size_t)j->m.local_off;
	} else if (!p && j->spec == SPEC_OUT &&
		   j->m.local_off + 30 + 1024 + j->m.csize <= SPEC_HEAD_BYTES) {
		j->stage = ST_WAIT;
		return RR_OK;
	}
	if (p && (rc = rr_zip_local_data(p, len, &j->m, &data_off, &need, err)))
		return rc;
	if (!p || need) {
		unsigned long long room = j->total - j->m.local_off;
		if (!p)
			need = 30 + 1024 + (size_t)j->m.csize; /* names and extras are short */
		if (++j->member_tries > 2 || (p && need > room))
			return rr_fail(err, RR_E_ARCHIVE, "%s: %s runs past the end of the file",
				       j->f->filename, j->what);
		j->need = need < room ? need : (size_t)room;
		j->stage = ST_MEMBER;
		return RR_OK;
	}
	if ((rc = rr_dist_zip_member(&j->m, p + data_off, j->f->filename, j->what, &md, err)))
		return rc;
	rr_index_meta_absorb(c, j->f, &md);
	tail_learn(c, j);
	j->stage = ST_DONE;
	return RR_OK;
}

/* the central directory (cd bytes at file offset cd.offset) is here */
static rr_err job_cd(struct rr_index_client *c, struct rr_index_dist_job *j, const unsigned char *cd,
		     rr_error *err)
{
	RR_AUTOFREE char *prefix = j->f->is_wheel ? rr_dist_wheel_prefix(j->f->filename) : NULL;
	unsigned long long base = j->total - j->tail_len;
	rr_err rc = j->f->is_wheel
			    ? rr_zip_find_metadata(cd, (size_t)j->cd.size, prefix, &j->m, err)
			    : rr_zip_find_pkginfo(cd, (size_t)j->cd.size, &j->m, err);

	if (rc == RR_E_UNSUPPORTED) {
		if (err)
			rr_error_release(err);
		j->stage = ST_WHOLE; /* libarchive may still manage */
		return RR_OK;
	}
	if (rc) {
		rr_error_prefix(err, "%s: ", j->f->filename);
		return rc;
	}
	if (j->m.csize > (16u << 20) || j->m.usize > (16u << 20))
		return rr_fail(err, RR_E_LIMIT, "%s: %s is larger than 16 MiB", j->f->filename,
			       j->what);
	if (j->m.local_off >= base)
		return job_member(c, j, j->tail + (j->m.local_off - base),
				  (size_t)(j->total - j->m.local_off), err);
	return job_member(c, j, NULL, 0, err);
}

/* len bytes onto the end of the temp file (reading it moves its offset) */
static rr_err acc_write(struct rr_index_dist_job *j, const char *buf, size_t len, rr_error *err)
{
	if (lseek(j->acc_fd, (off_t)j->acc_len, SEEK_SET) < 0 ||
	    rr_file_write_all(j->acc_fd, buf, len))
		return rr_fail(err, RR_E_IO, "%s: cannot write a temporary file: %s",
			       j->f->filename, strerror(errno));
	j->acc_len += len;
	return RR_OK;
}

static void next_chunk(struct rr_index_dist_job *j)
{
	j->want_end = j->acc_len * CHUNK_GROWTH < j->total ? j->acc_len * CHUNK_GROWTH : j->total;
}

/* the head (not enough) moves to a temp file, to grow there in chunks */
static rr_err chunks_start(struct rr_index_dist_job *j, unsigned long long total, rr_error *err)
{
	rr_err rc;

	j->acc_fd = rr_fetch_temp_fd();
	if (j->acc_fd < 0)
		return rr_fail(err, RR_E_IO, "%s: cannot make a temporary file: %s", j->f->filename,
			       strerror(errno));
	if ((rc = acc_write(j, j->head.buf, j->head.len, err)))
		return rc;
	rr_strbuf_release(&j->head);
	j->total = total;
	next_chunk(j);
	j->stage = ST_CHUNK;
	return RR_OK;
}

/* a chunk came, spilled to fd: onto the end of the temp file */
static rr_err chunk_append(struct rr_index_dist_job *j, int fd, rr_error *err)
{
	char buf[65536];

	if (lseek(fd, 0, SEEK_SET) != 0)
		return rr_fail(err, RR_E_IO, "%s: cannot rewind a download: %s", j->f->filename,
			       strerror(errno));
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		rr_err rc;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rr_fail(err, RR_E_IO, "%s: cannot read a download: %s",
				       j->f->filename, strerror(errno));
		if (r == 0)
			return RR_OK;
		if ((rc = acc_write(j, buf, (size_t)r, err)))
			return rc;
	}
}

/* the file so far holds what we need, or is whole: done; else a further chunk */
static rr_err chunk_read(struct rr_index_client *c, struct rr_index_dist_job *j, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;

	if (j->acc_len == j->total) {
		/* the whole file came: read as any whole download, hash checked */
		j->stage = ST_DONE;
		return rr_index_meta_absorb_file(c, j->f, j->acc_fd, err);
	}
	rc = rr_dist_sdist_pkginfo_fd(j->acc_fd, j->f->filename, c->deadline_ms, &md, err);
	if (rc == RR_OK || rc == RR_E_LIMIT) {
		j->stage = ST_DONE;
		return rr_index_meta_absorb_extract(c, j->f, rc, &md, err);
	}
	/* not in what came so far (the archive stops short): another chunk. Any other
	 * failure (the temp file, libarchive itself) is said now */
	if (rc != RR_E_ARCHIVE)
		return rc;
	if (err)
		rr_error_release(err);
	next_chunk(j);
	return RR_OK;
}

/* a range answer that holds the whole file: its hash (when the page gave one) must match */
static rr_err whole_in_range_ok(const struct rr_index_dist_job *j, const void *data, size_t len,
				const char *u, rr_error *err)
{
	char got[65];

	if (!j->f->sha256 || rr_index_sha_matches(j->f->sha256, data, len))
		return RR_OK;
	rr_sha256_hex(data, len, got);
	return rr_fail(err, RR_E_DATA, "%s: sha256 mismatch: expected %s, got %s", u, j->f->sha256,
		       got);
}

static rr_err job_step(struct rr_index_client *c, struct rr_index_dist_job *j, struct rr_index_get *g,
		       rr_error *err)
{
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (g->status == 200 && g->have_fd) {
		/* the whole file came: the server ignores Range, or we asked for it all */
		j->stage = ST_DONE;
		return rr_index_meta_absorb_file(c, j->f, g->fd, err);
	}
	if ((j->stage == ST_TAIL || j->stage == ST_HEAD || j->stage == ST_ZIPHEAD) &&
	    g->status == 416) {
		j->stage = ST_WHOLE;
		return RR_OK;
	}
	if (g->status != 206 && g->status != 200)
		return rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
	if (g->status == 200 || g->total_size < 0) {
		/* a 200 held in memory cannot happen with spill; no total: no ranges */
		j->stage = ST_WHOLE;
		return RR_OK;
	}
	switch (j->stage) {
	case ST_HEAD: {
		RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
		unsigned long long total = (unsigned long long)g->total_size;
		rr_err rc, rc2;
		if (g->body.len > j->want_head - j->head.len || g->body.len > total ||
		    j->head.len + g->body.len > total)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		rr_strbuf_add(&j->head, g->body.buf, g->body.len);
		rc = rr_dist_sdist_pkginfo(j->head.buf, j->head.len, j->f->filename, &md, err);
		if (j->head.len == total) {
			/* the whole file came: read as any whole download, hash checked */
			if ((rc2 = whole_in_range_ok(j, j->head.buf, j->head.len, u, err)))
				return rc2;
			j->stage = ST_DONE;
			return rr_index_meta_absorb_extract(c, j->f, rc, &md, err);
		}
		if (rc) {
			/* not within the head (or cut off in it): a larger head, then
			 * chunks of the rest (chunks_start) */
			if (err)
				rr_error_release(err);
			if (j->want_head >= HEAD_MAX)
				return chunks_start(j, total, err);
			j->want_head = j->want_head <= HEAD_BYTES ? 256u << 10 : j->want_head * 4;
			if (j->want_head > HEAD_MAX)
				j->want_head = HEAD_MAX;
			return RR_OK;
		}
		rr_index_meta_absorb(c, j->f, &md);
		j->stage = ST_DONE;
		return RR_OK;
	}
	case ST_CHUNK: {
		unsigned long long was = j->acc_len;
		rr_err rc = g->have_fd ? chunk_append(j, g->fd, err)
				       : acc_write(j, g->body.buf, g->body.len, err);
		if (rc)
			return rc;
		if ((unsigned long long)g->total_size != j->total || j->acc_len != j->want_end)
			return rr_fail(err, RR_E_HTTP,
				       "%s: the server sent a range we did not ask for "
				       "(%llu bytes from %llu)",
				       u, j->acc_len - was, was);
		return chunk_read(c, j, err);
	}
	case ST_ZIPHEAD: {
		RR_AUTOFREE char *prefix = rr_dist_wheel_prefix(j->f->filename);
		const unsigned char *p = (const unsigned char *)g->body.buf;
		rr_err rc;
		j->total = (unsigned long long)g->total_size;
		if (g->body.len > j->total || g->body.len > j->want_head)
			return rr_fail(err, RR_E_HTTP,
				       "%s: the server sent a range we did not ask for", u);
		if (g->body.len == j->total &&
		    (rc = whole_in_range_ok(j, g->body.buf, g->body.len, u, err)))
			return rc;
		if (rr_zip_metadata_in_head(p, g->body.len, prefix, &j->m))
			return job_member(c, j, p + j->m.local_off,
					  g->body.len - (size_t)j->m.local_off, err);
		/* not so for this one: its end, as for any wheel */
		j->stage = ST_TAIL;
		return RR_OK;
	}
	case ST_TAIL: {
		rr_err rc;
		j->total = (unsigned long long)g->total_size;
		if (g->body.len > j->total || g->body.len > j->want_tail)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		/* a small wheel came whole: its hash can be checked after all */
		if (g->body.len == j->total &&
		    (rc = whole_in_range_ok(j, g->body.buf, g->body.len, u, err)))
			return rc;
		j->tail = rr_xmalloc(g->body.len ? g->body.len : 1);
		memcpy(j->tail, g->body.buf, g->body.len);
		j->tail_len = g->body.len;
		rc = rr_zip_find_cd(j->tail, j->tail_len, j->total, &j->cd, err);
		if (rc == RR_E_UNSUPPORTED) {
			if (err)
				rr_error_release(err);
			j->stage = ST_WHOLE;
			return RR_OK;
		}
		if (rc) {
			rr_error_prefix(err, "%s: ", j->f->filename);
			return rc;
		}
		if (j->cd.size > RR_ZIP_MAX_CD)
			return rr_fail(err, RR_E_LIMIT, "%s: central directory larger than %u bytes",
				       j->f->filename, RR_ZIP_MAX_CD);
		if (j->cd.offset >= j->total - j->tail_len)
			return job_cd(c, j, j->tail + (j->cd.offset - (j->total - j->tail_len)), err);
		if (!j->longer_tail) {
			/* the directory starts earlier: ask for a tail that holds it and, most
			 * likely, METADATA too (dist-info comes last, before the directory;
			 * RECORD, its last member, deflates to about half the directory's size)
			 * - one request instead of the directory's and then the member's */
			unsigned long long want = j->total - j->cd.offset + j->cd.size / 2 +
						  LONGER_TAIL_EXTRA;
			j->longer_tail = true;
			j->want_tail = want > j->total ? (size_t)j->total : (size_t)want;
			free(j->tail);
			j->tail = NULL;
			j->tail_len = 0;
			return RR_OK;
		}
		j->stage = ST_CD;
		return RR_OK;
	}
	case ST_CD:
		if (g->body.len != j->cd.size)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		return job_cd(c, j, (const unsigned char *)g->body.buf, err);
	case ST_MEMBER:
		if (g->body.len != j->need)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		return job_member(c, j, (const unsigned char *)g->body.buf, g->body.len, err);
	default:
		return rr_fail(err, RR_E_INTERNAL, "%s: unexpected download state", u);
	}
}

struct rr_index_dist_job *rr_index_dist_job_new(struct rr_index_client *c,
					       const struct rr_index_file *f)
{
	struct rr_index_dist_job *j = rr_xcalloc(1, sizeof(*j));

	j->f = f;
	j->what = f->is_wheel ? "METADATA" : "PKG-INFO";
	j->stage = f->is_wheel || is_zip_name(f->filename) ? ST_TAIL : ST_HEAD;
	j->want_head = HEAD_BYTES;
	if (j->stage == ST_TAIL) {
		const struct tail_hint *h = hint_of(c, f, false);
		size_t start = f->is_wheel ? ziphead_for(h) : 0;
		j->want_tail = tail_for(h);
		if (start) {
			j->stage = ST_ZIPHEAD;
			j->want_head = start;
		}
	}
	rr_strbuf_init(&j->head);
	j->acc_fd = -1;
	return j;
}

struct rr_index_dist_job *rr_index_dist_job_free(struct rr_index_dist_job *j)
{
	if (j) {
		free(j->spec_head);
		free(j->tail);
		rr_strbuf_release(&j->head);
		if (j->acc_fd >= 0)
			close(j->acc_fd);
		free(j);
	}
	return NULL;
}

/* a request for a range of j's file (g->range still to be set) */
static void dist_get(struct rr_index_client *c, const struct rr_index_dist_job *j,
		     struct rr_index_get *g, size_t max_body)
{
	memset(g, 0, sizeof(*g));
	g->url = rr_xstrdup(j->f->url);
	g->userpwd = rr_index_userpwd_for(c, j->f->url);
	g->klass = "dist";
	g->max_body = max_body;
}

void rr_index_dist_job_request(struct rr_index_client *c, struct rr_index_dist_job *j,
			       struct rr_index_get *g)
{
	dist_get(c, j, g, DIST_MAX);
	g->spill = true;
	if (j->stage == ST_TAIL)
		g->range = rr_xasprintf("-%zu", j->want_tail);
	else if (j->stage == ST_HEAD)
		g->range = rr_xasprintf("%zu-%zu", j->head.len, j->want_head - 1);
	else if (j->stage == ST_CHUNK) {
		g->range = rr_xasprintf("%llu-%llu", j->acc_len, j->want_end - 1);
		g->spill_partial = true;
	} else if (j->stage == ST_ZIPHEAD)
		g->range = rr_xasprintf("0-%zu", j->want_head - 1);
	else if (j->stage == ST_CD)
		g->range = rr_xasprintf("%llu-%llu", j->cd.offset, j->cd.offset + j->cd.size - 1);
	else if (j->stage == ST_MEMBER)
		g->range = rr_xasprintf("%llu-%llu", j->m.local_off, j->m.local_off + j->need - 1);
}

rr_err rr_index_dist_job_answer(struct rr_index_client *c, struct rr_index_dist_job *j,
				struct rr_index_get *g, bool *done, rr_error *err)
{
	int was = j->stage;
	rr_err rc;

	*done = false;
	if (g->rc != RR_OK)
		return rr_index_get_take_error(g, err);
	rc = job_step(c, j, g, err);
	if (rc)
		rr_index_blame_url(err, j->f);
	if (rc == RR_OK && was == ST_WHOLE && j->stage != ST_DONE) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
	}
	/* a handful of steps at most: tail, directory, member (twice), heads, whole; or
	 * three heads and chunks up to DIST_MAX */
	if (rc == RR_OK && j->stage != ST_DONE && ++j->rounds >= 16)
		rc = rr_fail(err, RR_E_INTERNAL, "%s: metadata not obtained", j->f->filename);
	*done = rc == RR_OK && j->stage == ST_DONE;
	return rc;
}

static bool is_platform_wheel(const struct rr_index_file *f)
{
	size_t n = strlen(f->filename);

	return f->is_wheel && !(n > 8 && strcasecmp(f->filename + n - 8, "-any.whl") == 0);
}

bool rr_index_dist_job_spec(struct rr_index_client *c, struct rr_index_dist_job *j,
			    struct rr_index_get *g)
{
	if (j->stage != ST_TAIL || !is_platform_wheel(j->f) || hint_of(c, j->f, false))
		return false;
	/* one guess per project: the wheel it reads teaches the next (tail_learn); until
	 * then the hint, all zero, asks what no hint asks */
	(void)hint_of(c, j->f, true);
	j->spec = SPEC_OUT;
	/* a server that ignores Range sends the whole file: cut off, not kept */
	dist_get(c, j, g, SPEC_HEAD_BYTES);
	g->speculative = true;
	g->range = rr_xasprintf("0-%u", SPEC_HEAD_BYTES - 1);
	return true;
}

bool rr_index_dist_job_waiting(const struct rr_index_dist_job *j)
{
	return j->stage == ST_WAIT;
}

rr_err rr_index_dist_job_spec_answer(struct rr_index_client *c, struct rr_index_dist_job *j,
				     struct rr_index_get *g, bool *done, rr_error *err)
{
	RR_AUTOFREE char *prefix = NULL;
	const unsigned char *p;
	unsigned long long total = (unsigned long long)g->total_size;
	struct rr_zip_member m;
	rr_err rc = RR_OK;

	*done = false;
	if (j->stage == ST_DONE)
		return RR_OK;
	if (g->rc != RR_OK || g->status != 206 || g->total_size < 0 || !g->body.len ||
	    g->body.len > SPEC_HEAD_BYTES || g->body.len > total ||
	    (j->total && total != j->total)) {
		/* a guess that came to nothing: the end's steps go on as they would have */
		j->spec = SPEC_GONE;
		if (j->stage == ST_WAIT)
			rc = job_member(c, j, NULL, 0, err);
	} else {
		/* the answer is the caller's to release: its body is kept, not copied */
		j->spec_head = (unsigned char *)rr_strbuf_detach(&g->body, &j->spec_len);
		p = j->spec_head;
		j->spec_total = total;
		j->spec = SPEC_IN;
		prefix = rr_dist_wheel_prefix(j->f->filename);
		if (j->stage == ST_WAIT) {
			rc = job_member(c, j, NULL, 0, err);
		} else if (rr_zip_metadata_in_head(p, j->spec_len, prefix, &m)) {
			/* ahead of the end: what it brings when it comes is not needed. A
			 * member the start cannot give (its local header disagrees with
			 * itself) is left to the end's steps, which are still out */
			struct rr_zip_member was_m = j->m;
			unsigned long long was_total = j->total;
			int was_stage = j->stage;
			j->m = m;
			j->total = total;
			rc = job_member(c, j, p + m.local_off, j->spec_len - (size_t)m.local_off,
					err);
			if (rc != RR_OK || j->stage != ST_DONE) {
				if (rc && err)
					rr_error_release(err);
				rc = RR_OK;
				j->m = was_m;
				j->total = was_total;
				j->stage = was_stage;
				j->spec = SPEC_GONE;
			}
		}
	}
	if (rc)
		rr_index_blame_url(err, j->f);
	*done = rc == RR_OK && j->stage == ST_DONE;
	return rc;
}

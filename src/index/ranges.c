/*
 * ranges.c - core metadata out of remote dists without PEP 658, by range
 * requests; each round asks the next step of every file at once
 * (client-private.h). A wheel is read as uv does: its last 16 KiB (TAIL_BYTES: the end of the central
 * directory, usually the whole directory and, for a small wheel, METADATA),
 * then the central directory if it starts earlier, then only the METADATA
 * member - never the whole wheel. A server that ignores Range (200) or has no
 * Content-Range gets a whole download, streamed to an unlinked temp file and
 * read from there. A .zip sdist is read like a wheel (its member is
 * <top>/PKG-INFO). A .tar.gz has no directory: its first 60 KiB are asked for,
 * and PKG-INFO, which setuptools writes among the first members, is read out of
 * that truncated stream; only when it is not there does the whole file come.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/client-private.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define DIST_MAX (2ull << 30)

enum { ST_HEAD, ST_TAIL, ST_CD, ST_MEMBER, ST_WHOLE, ST_DONE };

struct dist_job {
	const struct rr_index_file *f;
	const char *what; /* the member: "METADATA" or "PKG-INFO" */
	int stage;
	int member_tries;
	unsigned char *tail; /* the last tail_len bytes */
	size_t tail_len;
	unsigned long long total;
	struct rr_zip_cd cd;
	struct rr_zip_member m;
	size_t need; /* bytes wanted from the member's local header on */
};

/*
 * the first range asked of a wheel: its end, where the central directory (and,
 * for a small wheel, METADATA itself) lies. 16 KiB holds the directory of most
 * wheels; a larger tail mostly brought RECORD, which follows METADATA, along
 * (LLaMA-Factory, real mirror: 60 KiB 65.9 MB / 259 requests, 16 KiB 62.2 MB /
 * 290 requests, no slower: the extra member reads share the batch). Under
 * HTTP/2's default 64 KiB stream window in any case: with 64 KiB + 22 bytes,
 * libcurl 7.88 against this machine's mirror stalled ~200 bytes short in about
 * 1 run in 5.
 */
#define TAIL_BYTES (16u * 1024)
/* the first range asked of a .tar.gz sdist: PKG-INFO was within the first 24 KiB
 * of every setuptools sdist looked at (pandas 1.5.3, jieba 0.42.1, encodec) */
#define HEAD_BYTES (60u * 1024)

static bool is_zip_name(const char *filename)
{
	size_t n = strlen(filename);

	return n > 4 && strcasecmp(filename + n - 4, ".zip") == 0;
}

/* the member located: inflate it from what we have, or say what to fetch */
static rr_err job_member(struct rr_index_client *c, struct dist_job *j, const unsigned char *p,
			 size_t len, rr_error *err)
{
	size_t data_off = 0, need = 0;
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;

	if (j->m.local_off >= j->total)
		return rr_fail(err, RR_E_ARCHIVE, "%s: %s outside the file", j->f->filename,
			       j->what);
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
	j->stage = ST_DONE;
	return RR_OK;
}

/* the central directory (cd bytes at file offset cd.offset) is here */
static rr_err job_cd(struct rr_index_client *c, struct dist_job *j, const unsigned char *cd,
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

/* a range answer that holds the whole file: its hash (when the page gave one) must match */
static rr_err whole_in_range_ok(const struct dist_job *j, const struct rr_index_get *g,
				const char *u, rr_error *err)
{
	char got[65];

	if (!j->f->sha256 || rr_index_sha_matches(j->f->sha256, g->body.buf, g->body.len))
		return RR_OK;
	rr_sha256_hex(g->body.buf, g->body.len, got);
	return rr_fail(err, RR_E_DATA, "%s: sha256 mismatch: expected %s, got %s", u, j->f->sha256,
		       got);
}

static rr_err job_step(struct rr_index_client *c, struct dist_job *j, struct rr_index_get *g,
		       rr_error *err)
{
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (g->status == 200 && g->have_fd) {
		/* the whole file came: the server ignores Range, or we asked for it all */
		j->stage = ST_DONE;
		return rr_index_meta_absorb_file(c, j->f, g->fd, err);
	}
	if ((j->stage == ST_TAIL || j->stage == ST_HEAD) && g->status == 416) {
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
	c->range_requests++;
	switch (j->stage) {
	case ST_HEAD: {
		RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
		rr_err rc, rc2;
		if (g->body.len > HEAD_BYTES || g->body.len > (unsigned long long)g->total_size)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		rc = rr_dist_sdist_pkginfo(g->body.buf, g->body.len, j->f->filename, &md, err);
		if (g->body.len == (unsigned long long)g->total_size) {
			/* the whole file came: read as any whole download, hash checked */
			if ((rc2 = whole_in_range_ok(j, g, u, err)))
				return rc2;
			j->stage = ST_DONE;
			return rr_index_meta_absorb_extract(c, j->f, rc, &md, err);
		}
		if (rc) {
			/* not within the head (or cut off in it): the whole file decides */
			if (err)
				rr_error_release(err);
			j->stage = ST_WHOLE;
			return RR_OK;
		}
		rr_index_meta_absorb(c, j->f, &md);
		j->stage = ST_DONE;
		return RR_OK;
	}
	case ST_TAIL: {
		rr_err rc;
		j->total = (unsigned long long)g->total_size;
		if (g->body.len > j->total || g->body.len > TAIL_BYTES)
			return rr_fail(err, RR_E_HTTP, "%s: the server sent a range we did not ask for",
				       u);
		/* a small wheel came whole: its hash can be checked after all */
		if (g->body.len == j->total && (rc = whole_in_range_ok(j, g, u, err)))
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

rr_err rr_index_fetch_dists(struct rr_index_client *c, const struct rr_index_file *const *df,
			    size_t nd, rr_error *err)
{
	struct dist_job *jobs = rr_xcalloc(nd ? nd : 1, sizeof(*jobs));
	rr_err rc = RR_OK;

	for (size_t i = 0; i < nd; i++) {
		jobs[i].f = df[i];
		jobs[i].what = df[i]->is_wheel ? "METADATA" : "PKG-INFO";
		jobs[i].stage = df[i]->is_wheel || is_zip_name(df[i]->filename) ? ST_TAIL : ST_HEAD;
	}
	/* a handful of rounds at most: tail, directory, member (twice), whole */
	for (int round = 0; round < 6 && rc == RR_OK; round++) {
		struct rr_index_get *gs = rr_xcalloc(nd ? nd : 1, sizeof(*gs));
		size_t *who = rr_xcalloc(nd ? nd : 1, sizeof(*who));
		size_t ng = 0;

		for (size_t i = 0; i < nd; i++) {
			struct dist_job *j = &jobs[i];
			struct rr_index_get *g = &gs[ng];
			if (j->stage == ST_DONE)
				continue;
			g->url = rr_xstrdup(j->f->url);
			g->userpwd = rr_index_userpwd_for(c, j->f->url);
			g->klass = "dist";
			g->max_body = DIST_MAX;
			g->spill = true;
			if (j->stage == ST_TAIL)
				g->range = rr_xasprintf("-%u", TAIL_BYTES);
			else if (j->stage == ST_HEAD)
				g->range = rr_xasprintf("0-%u", HEAD_BYTES - 1);
			else if (j->stage == ST_CD)
				g->range = rr_xasprintf("%llu-%llu", j->cd.offset,
							j->cd.offset + j->cd.size - 1);
			else if (j->stage == ST_MEMBER)
				g->range = rr_xasprintf("%llu-%llu", j->m.local_off,
							j->m.local_off + j->need - 1);
			who[ng++] = i;
		}
		if (!ng) {
			free(gs);
			free(who);
			break;
		}
		rr_index_get_batch(c, gs, ng);
		for (size_t k = 0; k < ng && rc == RR_OK; k++) {
			struct rr_index_get *g = &gs[k];
			struct dist_job *j = &jobs[who[k]];
			int was = j->stage;
			if (g->rc != RR_OK) {
				rc = rr_index_get_take_error(g, err);
				break;
			}
			rc = job_step(c, j, g, err);
			if (rc)
				rr_index_blame_url(err, j->f);
			if (rc == RR_OK && was == ST_WHOLE && j->stage != ST_DONE) {
				RR_AUTOFREE char *u = rr_url_redact(g->url);
				rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
			}
		}
		for (size_t k = 0; k < ng; k++)
			rr_index_get_release(&gs[k]);
		free(gs);
		free(who);
	}
	for (size_t i = 0; i < nd; i++) {
		if (rc == RR_OK && jobs[i].stage != ST_DONE)
			rc = rr_fail(err, RR_E_INTERNAL, "%s: metadata not obtained",
				     jobs[i].f->filename);
		free(jobs[i].tail);
	}
	free(jobs);
	return rc;
}

/*
 * members.c - a remote wheel's shared libraries by range requests
 * (rr_index_wheel_libraries): the end of the file, the central directory if it starts
 * before that end, then every member named like a shared library that the end did not
 * hold, all asked at once. What a ROCm counterpart's extensions link is read this way
 * before the plan takes it (src/flow); the load check reads the bytes (src/elf).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "index/client-private.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/util.h"

#define LIBS_MAX  (64ull << 20)
#define LIBS_TAIL (60u * 1024)
/* what they may inflate to: torch-scatter-rocm 2.1.2.post7's eight libraries are 7.3 MB
 * in the wheel and 78 MB inflated (ROCm code objects for many GPUs) */
#define INFLATED_MAX(max) ((max)*4)

/* what the file holds from offset off on, as far as one answer brought it */
struct piece {
	unsigned long long off;
	struct rr_strbuf bytes;
};

static void get_for(struct rr_index_client *c, const struct rr_index_file *f,
		    struct rr_index_get *g, char *range, size_t max_body)
{
	memset(g, 0, sizeof(*g));
	g->url = rr_xstrdup(f->url);
	g->userpwd = rr_index_userpwd_for(c, f->url);
	g->klass = "dist";
	g->max_body = max_body;
	g->range = range;
}

/* g's answer as a piece of the file (asked from off on; a 200 is the whole file) */
static rr_err take(const struct rr_index_file *f, struct rr_index_get *g, unsigned long long off,
		   struct piece *p, unsigned long long *total, struct rr_index_members *out,
		   rr_error *err)
{
	if (g->rc)
		return rr_index_get_take_error(g, err);
	out->fetched += g->body.len;
	out->requests++;
	if (g->status == 200) {
		p->off = 0;
		*total = g->body.len;
	} else if (g->status == 206 && g->total_size >= 0) {
		*total = (unsigned long long)g->total_size;
		p->off = off == ~0ull ? *total - g->body.len : off;
	} else {
		RR_AUTOFREE char *u = rr_url_redact(f->url);
		return rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
	}
	if (p->off > *total || g->body.len > *total - p->off)
		return rr_fail(err, RR_E_ARCHIVE, "%s: an answer past the file's end", f->filename);
	rr_strbuf_release(&p->bytes);
	p->bytes = g->body;
	rr_strbuf_init(&g->body);
	return RR_OK;
}

/* the bytes [off, off + len) when p holds them, else NULL */
static const unsigned char *within(const struct piece *p, unsigned long long off, size_t len)
{
	if (off < p->off || off - p->off > p->bytes.len || len > p->bytes.len - (off - p->off))
		return NULL;
	return (const unsigned char *)p->bytes.buf + (off - p->off);
}

/* the end brought m whole, most likely (names and extras are short; the end of the
 * file bounds them) */
static bool in_tail(const struct piece *tail, const struct rr_zip_member *m,
		    unsigned long long total)
{
	unsigned long long want = 30 + 1024 + m->csize;

	if (m->local_off >= total)
		return false;
	return within(tail, m->local_off,
		      (size_t)(want < total - m->local_off ? want : total - m->local_off));
}

static rr_err inflate(const struct rr_index_file *f, const struct rr_zip_entry *e,
		      const struct piece *p, unsigned long long max, struct rr_index_member *m,
		      bool *need_more, rr_error *err)
{
	const unsigned char *at = within(p, e->m.local_off, 0);
	size_t data_off = 0, need = 0;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	rr_err rc;

	*need_more = false;
	if (!at)
		return rr_fail(err, RR_E_INTERNAL, "%s: %s not fetched", f->filename, e->name);
	rc = rr_zip_local_data(at, p->bytes.len - (size_t)(e->m.local_off - p->off), &e->m,
			       &data_off, &need, err);
	if (rc)
		return rc;
	if (need) {
		*need_more = true;
		return RR_OK;
	}
	if ((rc = rr_dist_zip_member_max(&e->m, at + data_off, f->filename, e->name, max, &out,
					 err)))
		return rc;
	m->path = rr_xstrdup(e->name);
	m->len = out.len;
	m->data = (unsigned char *)rr_strbuf_detach(&out, NULL);
	return RR_OK;
}

rr_err rr_index_wheel_libraries(struct rr_index_client *c, const struct rr_index_file *f,
				unsigned long long max_bytes, struct rr_index_members *ret,
				rr_error *err)
{
	struct rr_index_members out = {0};
	struct piece tail = {0, RR_STRBUF_INIT}, cdp = {0, RR_STRBUF_INIT};
	struct piece *pieces = NULL;
	struct rr_index_get *gs = NULL;
	struct rr_zip_entry *es = NULL;
	size_t ne = 0, nfar = 0, npieces = 0, cap = 0, *far = NULL;
	unsigned long long total = 0, want = 0, grown = 0;
	struct rr_index_get g;
	struct rr_zip_cd cd;
	const unsigned char *cdb;
	rr_err rc;

	max_bytes = max_bytes ? max_bytes : LIBS_MAX;
	if (!f->is_wheel || strncasecmp(f->url, "http", 4) != 0)
		return rr_fail(err, RR_E_UNSUPPORTED,
			       "%s: only a remote wheel's libraries are read", f->filename);
	/* the end: the directory, and for a small wheel everything */
	get_for(c, f, &g, rr_xasprintf("-%u", LIBS_TAIL),
		(size_t)(max_bytes > LIBS_TAIL ? max_bytes : LIBS_TAIL));
	rr_index_get_batch(c, &g, 1);
	rc = take(f, &g, ~0ull, &tail, &total, &out, err);
	rr_index_get_release(&g);
	if (rc)
		goto out;
	if ((rc = rr_zip_find_cd((const unsigned char *)tail.bytes.buf, tail.bytes.len, total, &cd,
				 err)))
		goto out;
	if (!(cdb = within(&tail, cd.offset, (size_t)cd.size))) {
		if (cd.size > RR_ZIP_MAX_CD) {
			rc = rr_fail(err, RR_E_LIMIT, "%s: a central directory of %llu bytes",
				     f->filename, cd.size);
			goto out;
		}
		get_for(c, f, &g, rr_xasprintf("%llu-%llu", cd.offset, cd.offset + cd.size - 1),
			(size_t)cd.size);
		rr_index_get_batch(c, &g, 1);
		rc = take(f, &g, cd.offset, &cdp, &total, &out, err);
		rr_index_get_release(&g);
		if (rc)
			goto out;
		if (!(cdb = within(&cdp, cd.offset, (size_t)cd.size))) {
			rc = rr_fail(err, RR_E_ARCHIVE, "%s: the central directory was cut short",
				     f->filename);
			goto out;
		}
	}
	if ((rc = rr_zip_list(cdb, (size_t)cd.size, rr_loadcheck_library_name, &es, &ne, err)))
		goto out;
	for (size_t i = 0; i < ne; i++) {
		want += es[i].m.csize;
		grown += es[i].m.usize;
	}
	if (want > max_bytes || grown > INFLATED_MAX(max_bytes)) {
		rc = rr_fail(
		    err, RR_E_LIMIT,
		    "%s: its %zu libraries are %llu bytes (%llu inflated), over %llu (%llu)",
		    f->filename, ne, want, grown, max_bytes, INFLATED_MAX(max_bytes));
		goto out;
	}
	/* the members the end did not bring, asked at once (names and extras are short) */
	far = rr_xcalloc(ne + 1, sizeof(*far));
	for (size_t i = 0; i < ne; i++)
		if (!in_tail(&tail, &es[i].m, total))
			far[nfar++] = i;
	gs = rr_xcalloc(nfar + 1, sizeof(*gs));
	pieces = rr_xcalloc(nfar + 1, sizeof(*pieces));
	npieces = nfar;
	for (int round = 0; round < 2 && nfar; round++) {
		size_t again = 0;
		for (size_t k = 0; k < nfar; k++) {
			const struct rr_zip_member *m = &es[far[k]].m;
			unsigned long long end = m->local_off + 30 + (round ? 2 * 65535 : 1024) +
						 m->csize;
			end = end > total ? total : end;
			get_for(c, f, &gs[k], rr_xasprintf("%llu-%llu", m->local_off, end - 1),
				(size_t)(end - m->local_off));
		}
		rr_index_get_batch(c, gs, nfar);
		for (size_t k = 0; k < nfar; k++) {
			if (!rc)
				rc = take(f, &gs[k], es[far[k]].m.local_off, &pieces[k], &total,
					  &out, err);
			rr_index_get_release(&gs[k]);
		}
		if (rc)
			goto out;
		for (size_t k = 0; k < nfar; k++) {
			bool more = false;
			struct rr_index_member m = {0};
			if ((rc = inflate(f, &es[far[k]], &pieces[k], INFLATED_MAX(max_bytes), &m,
					  &more, err)))
				goto out;
			if (more) {
				far[again++] = far[k];
				continue;
			}
			RR_PUSH(out.v, out.n, cap) = m;
			rr_strbuf_release(&pieces[k].bytes);
		}
		nfar = again;
	}
	if (nfar) {
		rc = rr_fail(err, RR_E_ARCHIVE, "%s: %s runs past what its header says",
			     f->filename, es[far[0]].name);
		goto out;
	}
	/* those within the end */
	for (size_t i = 0; i < ne; i++) {
		bool more = false;
		struct rr_index_member m = {0};
		if (!in_tail(&tail, &es[i].m, total))
			continue;
		if ((rc = inflate(f, &es[i], &tail, INFLATED_MAX(max_bytes), &m, &more, err)))
			goto out;
		if (more) {
			rc = rr_fail(err, RR_E_ARCHIVE, "%s: %s runs past the end of the file",
				     f->filename, es[i].name);
			goto out;
		}
		RR_PUSH(out.v, out.n, cap) = m;
	}
	*ret = out;
	memset(&out, 0, sizeof(out));
out:
	if (rc)
		rr_index_blame_url(err, f);
	rr_index_members_release(&out);
	for (size_t k = 0; k < npieces; k++)
		rr_strbuf_release(&pieces[k].bytes);
	free(pieces);
	free(gs);
	free(far);
	rr_zip_list_free(es, ne);
	rr_strbuf_release(&tail.bytes);
	rr_strbuf_release(&cdp.bytes);
	return rc;
}

void rr_index_members_release(struct rr_index_members *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].path);
		free(m->v[i].data);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

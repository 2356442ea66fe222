/*
 * metadata.c - core metadata (rr_index_want_metadata, rr_index_fetch_metadata,
 * rr_index_get_metadata): the PEP 658 file beside a dist when the page offers
 * one, else an extract an earlier run kept in the cache, else the dist itself:
 * a local one (--find-links directory) read in place, a remote one by range
 * requests (ranges.c), each step asked the moment the one before is answered.
 * What an extract says (or why it could not be had) is recorded per file URL; an
 * sdist's PKG-INFO counts only when PEP 643 says its dependencies are static
 * (client-private.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/client-private.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define METADATA_MAX (16u << 20)

static struct rr_index_meta_slot *meta_put(struct rr_index_client *c, const char *url,
					   rr_err rc, const char *msg, const char *text, size_t len)
{
	struct rr_index_meta_slot **slot =
		(struct rr_index_meta_slot **)rr_strmap_find(&c->meta, url, true);
	struct rr_index_meta_slot *ms = *slot ? *slot : rr_xcalloc(1, sizeof(*ms));

	if (!*slot)
		rr_strbuf_init(&ms->text);
	ms->rc = rc;
	free(ms->msg);
	ms->msg = msg ? rr_xstrdup(msg) : NULL;
	rr_strbuf_reset(&ms->text);
	if (text)
		rr_strbuf_add(&ms->text, text, len);
	*slot = ms;
	return ms;
}

static char *percent_decode(const char *s)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	for (; *s; s++) {
		unsigned hi, lo;
		if (*s == '%' && sscanf(s + 1, "%1x%1x", &hi, &lo) == 2) {
			rr_strbuf_addch(&sb, (char)(hi * 16 + lo));
			s += 2;
		} else {
			rr_strbuf_addch(&sb, *s);
		}
	}
	return rr_strbuf_detach(&sb, NULL);
}

/* the sha256 of a spilled download, read back in pieces, within the deadline */
static rr_err check_sha_fd(const char *what_url, const char *want, int fd, long long deadline_ms,
			   rr_error *err)
{
	struct rr_sha256 h;
	unsigned char d[32];
	char got[65];
	char buf[65536];
	off_t off = 0;

	if (!want)
		return RR_OK;
	rr_sha256_init(&h);
	for (unsigned n = 0;; n++) {
		/* every 4 MiB: hashing 1.5 GiB takes seconds */
		if (deadline_ms && n % 64 == 0 && rr_fetch_now_ms() >= deadline_ms) {
			RR_AUTOFREE char *u = rr_url_redact(what_url);
			return rr_fail(
			    err, RR_E_NETWORK,
			    "%s: the time allowed for index requests ran out (--timeout) "
			    "while its sha256 was checked",
			    u);
		}
		ssize_t r = pread(fd, buf, sizeof(buf), off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rr_fail(err, RR_E_IO, "cannot read back a download: %s",
				       strerror(errno));
		if (r == 0)
			break;
		rr_sha256_update(&h, buf, (size_t)r);
		off += r;
	}
	rr_sha256_final(&h, d);
	rr_sha256_digest_to_hex(d, got);
	if (strcmp(got, want) != 0) {
		RR_AUTOFREE char *u = rr_url_redact(what_url);
		return rr_fail(err, RR_E_DATA, "%s: sha256 mismatch: expected %s, got %s", u, want,
			       got);
	}
	return RR_OK;
}

/* what an extract says: a wheel's METADATA as it is; an sdist's PKG-INFO only when
 * its dependencies are static (PEP 643), else they are unknown until a build */
static void meta_record(struct rr_index_client *c, const struct rr_index_file *f,
			const char *text, size_t len)
{
	const char *why = NULL;

	if (!f->is_wheel && !rr_dist_pkginfo_static(text, len, &why)) {
		RR_AUTOFREE char *m = rr_xasprintf(
			"%s: the dependencies are only known after a build: %s", f->filename, why);
		meta_put(c, f->url, RR_E_UNSUPPORTED, m, NULL, 0);
		return;
	}
	meta_put(c, f->url, RR_OK, NULL, text, len);
}

void rr_index_meta_absorb(struct rr_index_client *c, const struct rr_index_file *f,
			  const struct rr_strbuf *md)
{
	if (c->cache_dir && strncasecmp(f->url, "file:", 5) != 0) {
		/* the extract is small and the file immutable: remember it, not the file
		 * (a local file, from --find-links, may be rebuilt under the same name);
		 * written on a worker while the transfers go on */
		char *plain = NULL;
		struct rr_cache_entry ce = {
			.status = 200,
			.stored = (long long)time(NULL),
			.max_age = 10LL * 365 * 86400,
			.body = RR_STRBUF_INIT,
		};
		/* a page's own link may carry user:password: never into the entry */
		rr_url_split_userinfo(f->url, &plain, NULL);
		ce.url = plain;
		rr_strbuf_add(&ce.body, md->buf, md->len);
		rr_index_store_later(c, f->is_wheel ? "wheel-metadata" : "sdist-metadata", f->url,
				     &ce);
	}
	meta_record(c, f, md->buf, md->len);
}

rr_err rr_index_meta_absorb_extract(struct rr_index_client *c, const struct rr_index_file *f,
				    rr_err rc, const struct rr_strbuf *md, rr_error *err)
{
	if (rc == RR_E_LIMIT && !f->is_wheel) {
		/* a PKG-INFO we will not dig for: as unknown as a dynamic one */
		RR_AUTOFREE char *m = rr_xasprintf(
			"%s: the dependencies cannot be known without a build: %s", f->filename,
			err ? err->msg : "PKG-INFO not found within the scan limit");
		meta_put(c, f->url, RR_E_UNSUPPORTED, m, NULL, 0);
		if (err)
			rr_error_release(err);
		return RR_OK;
	}
	if (rc)
		return rc;
	rr_index_meta_absorb(c, f, md);
	return RR_OK;
}

rr_err rr_index_meta_absorb_file(struct rr_index_client *c, const struct rr_index_file *f,
				 int fd, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;

	c->whole_files++;
	if ((rc = check_sha_fd(f->url, f->sha256, fd, c->deadline_ms, err)))
		return rc;
	if (f->is_wheel)
		rc = rr_dist_wheel_metadata_fd(fd, f->filename, &md, err);
	else
		rc = rr_dist_sdist_pkginfo_fd(fd, f->filename, c->deadline_ms, &md, err);
	return rr_index_meta_absorb_extract(c, f, rc, &md, err);
}

void rr_index_blame_url(rr_error *err, const struct rr_index_file *f)
{
	RR_AUTOFREE char *u = NULL;
	size_t n = strlen(f->filename);
	const char *rest;

	if (!err || !err->msg)
		return;
	u = rr_url_redact(f->url);
	if (strncmp(err->msg, u, strlen(u)) == 0)
		return; /* an HTTP answer's: it names the URL already */
	rest = strncmp(err->msg, f->filename, n) == 0 && strncmp(err->msg + n, ": ", 2) == 0
		       ? err->msg + n + 2
		       : err->msg;
	rest = rr_xasprintf("%s: %s", u, rest);
	free(err->msg);
	err->msg = (char *)rest;
}

/* a local dist (a --find-links directory's, or a file:// index's): read in place */
static rr_err read_local(struct rr_index_client *c, const struct rr_index_file *f, rr_error *err)
{
	RR_AUTOFREE char *path = percent_decode(f->url + 7);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	rr_err rc;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = rr_fail(err, RR_E_IO, "%s: %s", path,
			     fd < 0 ? strerror(errno) : "not a regular file");
	} else {
		rc = rr_index_meta_absorb_file(c, f, fd, err);
		c->whole_files--; /* nothing was downloaded */
		if (rc)
			rr_index_blame_url(err, f);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* one file's metadata under way; once it is recorded (finished), the job lives on
 * until neither of its requests is out */
struct rr_index_meta_job {
	const struct rr_index_file *f;
	int priority;
	struct rr_index_get g;
	struct rr_index_dist_job *dj; /* NULL while the PEP 658 file is asked */
	struct rr_index_get sg;       /* the dist's start, asked beside its end (ranges.c) */
	bool g_out, sg_out, finished;
};

void rr_index_meta_job_free(void *job)
{
	struct rr_index_meta_job *j = job;

	if (!j)
		return;
	rr_index_get_release(&j->g);
	rr_index_get_release(&j->sg);
	rr_index_dist_job_free(j->dj);
	free(j);
}

/* a finished job with nothing out: gone */
static void meta_job_idle(struct rr_index_client *c, struct rr_index_meta_job *j)
{
	void **slot;

	if (!j->finished || j->g_out || j->sg_out)
		return;
	slot = rr_strmap_find(&c->meta_jobs, j->f->url, false);
	if (slot && *slot == j)
		*slot = NULL;
	rr_index_meta_job_free(j);
}

/* it could not be had: err (moved) is what the file is known for */
static void meta_fail(struct rr_index_client *c, const struct rr_index_file *f, rr_error *err)
{
	struct rr_index_meta_slot *ms;

	if (!err->code)
		rr_fail(err, RR_E_INTERNAL, "%s: metadata not obtained", f->filename);
	ms = meta_put(c, f->url, err->code, err->msg, NULL, 0);
	rr_error_move(&ms->fail, err);
}

static void meta_told(struct rr_index_client *c, const struct rr_index_file *f)
{
	if (c->hooks.metadata) {
		c->hook_depth++;
		c->hooks.metadata(c->hooks.ctx, f);
		c->hook_depth--;
	}
}

static void meta_finish(struct rr_index_client *c, struct rr_index_meta_job *j)
{
	const struct rr_index_file *f = j->f;

	j->finished = true;
	meta_job_idle(c, j);
	meta_told(c, f);
}

static void dist_done(struct rr_index_client *c, struct rr_index_get *g);

static void dist_next(struct rr_index_client *c, struct rr_index_meta_job *j)
{
	rr_index_get_release(&j->g);
	rr_index_dist_job_request(c, j->dj, &j->g);
	j->g.on_done = dist_done;
	j->g.owner = j;
	j->g.priority = j->priority;
	j->g_out = true;
	rr_index_get_start(c, &j->g);
}

/* a step of the dist answered (answer or spec_answer, rc): finished, or the next step
 * asked for unless it waits for the other request */
static void dist_went(struct rr_index_client *c, struct rr_index_meta_job *j, rr_err rc, bool done,
		      rr_error *err)
{
	if (rc != RR_OK) {
		meta_fail(c, j->f, err);
		meta_finish(c, j);
	} else if (done) {
		meta_finish(c, j);
	} else if (!j->g_out && !rr_index_dist_job_waiting(j->dj)) {
		dist_next(c, j);
	}
}

/* an answer to the dist's step (g) or to the guess beside it (sg) */
static void dist_done(struct rr_index_client *c, struct rr_index_get *g)
{
	struct rr_index_meta_job *j = g->owner;
	bool guess = g == &j->sg;
	rr_error err = RR_ERROR_INIT;
	bool done;
	rr_err rc;

	*(guess ? &j->sg_out : &j->g_out) = false;
	/* every range answered, the one that came too late to be needed too */
	if (g->rc == RR_OK && g->status == 206 && g->total_size >= 0)
		c->range_requests++;
	if (j->finished) {
		meta_job_idle(c, j);
		return;
	}
	if (!guess) {
		rc = rr_index_dist_job_answer(c, j->dj, g, &done, &err);
	} else {
		rc = rr_index_dist_job_spec_answer(c, j->dj, g, &done, &err);
		rr_index_get_release(&j->sg);
		memset(&j->sg, 0, sizeof(j->sg));
	}
	dist_went(c, j, rc, done, &err);
}

/* the dist's first step, and a guess beside it where one may save a round trip */
static void dist_start(struct rr_index_client *c, struct rr_index_meta_job *j)
{
	j->dj = rr_index_dist_job_new(c, j->f);
	dist_next(c, j);
	if (rr_index_dist_job_spec(c, j->dj, &j->sg)) {
		j->sg.on_done = dist_done;
		j->sg.owner = j;
		j->sg.priority = j->priority;
		j->sg_out = true;
		rr_index_get_start(c, &j->sg);
	}
}

static void pep658_done(struct rr_index_client *c, struct rr_index_get *g)
{
	struct rr_index_meta_job *j = g->owner;
	rr_error err = RR_ERROR_INIT;

	j->g_out = false;
	if (g->rc != RR_OK) {
		rr_index_get_take_error(g, &err);
		meta_fail(c, j->f, &err);
	} else if (g->status == 200) {
		meta_put(c, j->f->url, RR_OK, NULL, g->body.buf, g->body.len);
	} else if (g->status == 404 || g->status == 410) {
		/* advertised but absent: the file itself still has it */
		dist_start(c, j);
		return;
	} else {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		rr_fail(&err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
		meta_fail(c, j->f, &err);
	}
	meta_finish(c, j);
}

void rr_index_want_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			    int priority)
{
	struct rr_index_meta_job **slot;
	struct rr_index_meta_job *j;
	rr_error err = RR_ERROR_INIT;

	if (rr_strmap_find(&c->meta, f->url, false))
		return;
	slot = (struct rr_index_meta_job **)rr_strmap_find(&c->meta_jobs, f->url, true);
	if (*slot) {
		/* under way: someone waits for it now, ahead of what is merely crawled */
		j = *slot;
		if (priority > j->priority) {
			j->priority = priority;
			if (j->g_out && j->g.fetch.url)
				rr_fetch_prioritize(c->fetcher, &j->g.fetch, priority);
			if (j->sg_out && j->sg.fetch.url)
				rr_fetch_prioritize(c->fetcher, &j->sg.fetch, priority);
		}
		return;
	}
	if (!f->has_metadata && c->cache_dir) {
		/* an earlier run may have extracted it already */
		struct rr_cache_entry ce = {.max_age = -1, .body = RR_STRBUF_INIT};
		if (rr_cache_load(c->cache_dir, f->is_wheel ? "wheel-metadata" : "sdist-metadata",
				  f->url, &ce, NULL) == RR_OK) {
			c->cache_hits++;
			meta_record(c, f, ce.body.buf, ce.body.len);
			rr_cache_entry_release(&ce);
			meta_told(c, f);
			return;
		}
		rr_cache_entry_release(&ce);
	}
	if (!f->has_metadata && strncasecmp(f->url, "file://", 7) == 0) {
		if (read_local(c, f, &err) != RR_OK)
			meta_fail(c, f, &err);
		meta_told(c, f);
		return;
	}
	j = rr_xcalloc(1, sizeof(*j));
	j->f = f;
	j->priority = priority;
	*slot = j;
	if (f->has_metadata) {
		struct rr_index_get *g = &j->g;
		g->url = rr_xasprintf("%s.metadata", f->url);
		g->userpwd = rr_index_userpwd_for(c, f->url);
		g->klass = "file";
		g->max_body = METADATA_MAX;
		g->cacheable = true;
		g->expect_sha256 = f->metadata_sha256;
		g->immutable = f->sha256 != NULL;
		g->on_done = pep658_done;
		g->owner = j;
		g->priority = priority;
		j->g_out = true;
		rr_index_get_start(c, g);
		return;
	}
	dist_start(c, j);
}

struct files_wait {
	struct rr_index_client *c;
	const struct rr_index_file *const *files;
	size_t n;
};

static bool files_in(void *ctx)
{
	struct files_wait *w = ctx;

	for (size_t i = 0; i < w->n; i++)
		if (!rr_strmap_find(&w->c->meta, w->files[i]->url, false))
			return false;
	return true;
}

rr_err rr_index_fetch_metadata(struct rr_index_client *c, const struct rr_index_file *const *files,
			       size_t n, rr_error *err)
{
	struct files_wait w = {c, files, n};
	rr_err rc = RR_OK;

	for (size_t i = 0; i < n; i++)
		rr_index_want_metadata(c, files[i], 3);
	if (!files_in(&w)) {
		if (c->hook_depth)
			return rr_fail(err, RR_E_INTERNAL, "index: a hook waited for metadata");
		rr_index_pump(c, files_in, &w);
	}
	/* the first failure, in the order asked (a dependency that needs a build is no
	 * failure: rr_index_get_metadata says so) */
	for (size_t i = 0; i < n && rc == RR_OK; i++) {
		struct rr_index_meta_slot **slot =
			(struct rr_index_meta_slot **)rr_strmap_find(&c->meta, files[i]->url, false);
		if (slot && *slot && (*slot)->fail.code)
			rc = rr_index_error_copy(err, &(*slot)->fail);
		else if (!slot || !*slot)
			rc = rr_fail(err, RR_E_INTERNAL, "%s: metadata not recorded",
				     files[i]->filename);
	}
	return rc;
}

bool rr_index_metadata_known(const struct rr_index_client *c, const struct rr_index_file *f)
{
	return rr_strmap_find((struct rr_strmap *)&c->meta, f->url, false) != NULL;
}

rr_err rr_index_get_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			     const char **ret_text, size_t *ret_len, rr_error *err)
{
	struct rr_index_meta_slot **slot =
		(struct rr_index_meta_slot **)rr_strmap_find(&c->meta, f->url, false);
	rr_err rc;

	if (!slot) {
		if ((rc = rr_index_fetch_metadata(c, &f, 1, err)))
			return rc;
		slot = (struct rr_index_meta_slot **)rr_strmap_find(&c->meta, f->url, false);
		if (!slot)
			return rr_fail(err, RR_E_INTERNAL, "%s: metadata not recorded", f->filename);
	}
	if ((*slot)->fail.code)
		return rr_index_error_copy(err, &(*slot)->fail);
	if ((*slot)->rc != RR_OK)
		return rr_fail(err, (*slot)->rc, "%s", (*slot)->msg);
	*ret_text = (*slot)->text.buf;
	if (ret_len)
		*ret_len = (*slot)->text.len;
	return RR_OK;
}

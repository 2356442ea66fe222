/*
 * get.c - GET through the cache, a batch at a time: a fresh entry answers at
 * once, a stale one is revalidated (ETag / Last-Modified), what arrives is
 * stored as its headers allow (a URL carrying a hash is immutable), a body that
 * must hash to a value is checked before it is stored or used, and a URL that
 * failed (retries and all) is not asked again in this run. Each request's ready
 * callback runs on a small worker pool as soon as its answer is settled, while
 * the rest of the batch still downloads (client-private.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "index/client-private.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define IMMUTABLE_MAX_AGE (10LL * 365 * 86400)

void rr_index_get_release(struct rr_index_get *g)
{
	if (g->have_fd)
		close(g->fd);
	g->have_fd = false;
	free(g->range);
	free(g->url);
	rr_error_release(&g->err);
	free(g->content_type);
	free(g->final_url);
	rr_strbuf_release(&g->body);
	rr_cache_entry_release(&g->ce);
	rr_cache_entry_release(&g->pending);
	rr_index_project_release(&g->proj);
	rr_error_release(&g->perr);
}

rr_err rr_index_get_take_error(struct rr_index_get *g, rr_error *err)
{
	if (g->rc)
		rr_error_move(err, &g->err);
	return g->rc;
}

static void take_entry(struct rr_index_get *g)
{
	g->status = g->ce.status;
	g->content_type = g->ce.content_type ? rr_xstrdup(g->ce.content_type) : NULL;
	g->final_url = rr_xstrdup(g->ce.final_url ? g->ce.final_url : g->url);
	rr_strbuf_release(&g->body);
	g->body = g->ce.body;
	rr_strbuf_init(&g->ce.body);
	g->rc = RR_OK;
	g->done = true;
}

/* an entry stored without Cache-Control: fresh for the client's window */
static bool heuristic_fresh(const struct rr_index_client *c, const struct rr_cache_entry *e,
			    long long now)
{
	return e->heuristic && !e->no_cache && c->heuristic_ttl >= 0 && now >= e->stored &&
	       now - e->stored < c->heuristic_ttl;
}

bool rr_index_sha_matches(const char *want, const void *data, size_t len)
{
	char got[65];

	rr_sha256_hex(data, len, got);
	return strcmp(got, want) == 0;
}

/* a finished transfer's answer: stored in the cache as its headers allow, checked */
static void settle(struct rr_index_client *c, struct rr_index_get *g, struct rr_fetch *f)
{
	long long now = (long long)time(NULL);
	long long max_age;
	bool no_store, no_cache, heuristic;

	g->done = true;
	if (f->rc != RR_OK) {
		struct rr_index_fail_slot **fsl =
			(struct rr_index_fail_slot **)rr_strmap_find(&c->failed, g->url, true);
		if (!*fsl) {
			*fsl = rr_xcalloc(1, sizeof(**fsl));
			(*fsl)->rc = f->rc;
			(*fsl)->msg = rr_xstrdup(f->err.msg ? f->err.msg : "request failed");
		}
		g->rc = f->rc;
		g->err = f->err;
		f->err = (rr_error)RR_ERROR_INIT;
		return;
	}
	rr_cache_control_parse(f->cache_control, &max_age, &no_store, &no_cache);
	/* no headers: fresh for the reader's window (RR_INDEX_HEURISTIC_TTL) */
	heuristic = !f->cache_control;
	if (g->expect_sha256 || g->immutable) {
		/* the file's URL carries a hash (PEP 503/658/691): immutable */
		max_age = IMMUTABLE_MAX_AGE;
		no_cache = false;
		heuristic = false;
	}
	if (f->status == 304 && g->have_ce) {
		/* revalidated: the stored body stands, with fresh freshness */
		c->revalidated++;
		g->ce.stored = now;
		g->ce.max_age = max_age;
		g->ce.no_cache = no_cache;
		g->ce.heuristic = heuristic;
		if (f->etag) {
			free(g->ce.etag);
			g->ce.etag = rr_xstrdup(f->etag);
		}
		if (c->cache_dir && !no_store)
			rr_cache_store_keyed(c->cache_dir, g->klass, g->url, &g->ce, NULL);
		take_entry(g);
		return;
	}
	g->status = f->status;
	g->total_size = f->total_size;
	if (f->fd >= 0) {
		g->fd = f->fd;
		g->have_fd = true;
		f->fd = -1;
		c->pages_spilled += !g->spill && g->spill_over;
	}
	g->content_type = RR_STEAL(f->content_type);
	g->final_url = f->effective_url ? RR_STEAL(f->effective_url) : rr_xstrdup(g->url);
	g->body = f->body;
	rr_strbuf_init(&f->body);
	g->rc = RR_OK;
	if (g->expect_sha256 && f->status == 200 &&
	    !rr_index_sha_matches(g->expect_sha256, g->body.buf, g->body.len)) {
		/* checked before it is stored: a bad body never outlives this run */
		char got[65];
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		rr_sha256_hex(g->body.buf, g->body.len, got);
		g->rc = rr_fail(&g->err, RR_E_DATA,
				"%s: sha256 mismatch: expected %s, got %s%s", u,
				g->expect_sha256, got,
				c->cache_dir && !c->refresh
					? " (the expected hash comes from the project page, "
					  "which may be a stale cached copy: --refresh fetches "
					  "it again)"
					: "");
		return;
	}
	if (c->cache_dir && g->cacheable && !no_store && (f->status == 200 || f->status == 404)) {
		RR_AUTOFREE char *plain = NULL;
		struct rr_cache_entry ne = {
			.status = f->status,
			.etag = f->etag,
			.last_modified = f->last_modified,
			.content_type = g->content_type,
			.final_url = g->final_url,
			.stored = now,
			.max_age = max_age,
			.no_cache = no_cache,
			.heuristic = heuristic,
			.body = g->body,
		};
		/* a link on a page may carry user:password: the entry never shows it */
		rr_url_split_userinfo(g->url, &plain, NULL);
		ne.url = plain;
		if (g->defer_store && f->status == 200) {
			g->pending = ne;
			g->pending.etag = f->etag ? rr_xstrdup(f->etag) : NULL;
			g->pending.last_modified =
				f->last_modified ? rr_xstrdup(f->last_modified) : NULL;
			g->pending.content_type = NULL;
			g->pending.final_url = rr_xstrdup(g->final_url);
			g->pending.url = RR_STEAL(plain);
			rr_strbuf_init(&g->pending.body);
			g->store_pending = true;
			return;
		}
		/* a cache we cannot write is a slower run, not a failed one */
		rr_cache_store_keyed(c->cache_dir, g->klass, g->url, &ne, NULL);
	}
}

/*
 * Work on answers while the rest of a batch downloads: a ring of pages is tens
 * of MB of JSON, and parsing it on the thread that runs the transfers stalled
 * them (its sockets go unread). A few workers take settled gets off a queue
 * and run their ready callback; the batch waits for them at its end.
 */
#define POOL_MAX 4

struct rr_index_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rr_index_get **q;
	size_t head, n, cap;
	bool closing;
	pthread_t th[POOL_MAX];
	int nth;
};

static void *pool_main(void *arg)
{
	struct rr_index_pool *p = arg;

	for (;;) {
		struct rr_index_get *g;
		pthread_mutex_lock(&p->mu);
		while (p->head == p->n && !p->closing)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->head == p->n) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		g = p->q[p->head++];
		pthread_mutex_unlock(&p->mu);
		g->ready(g->client, g);
	}
}

/* NULL when there is nothing to share out (the caller then runs callbacks itself) */
static struct rr_index_pool *pool_start(size_t jobs)
{
	struct rr_index_pool *p;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cpus > 1 ? (int)(cpus - 1) : 1;

	if (jobs < 2)
		return NULL;
	if (want > POOL_MAX)
		want = POOL_MAX;
	if ((size_t)want > jobs)
		want = (int)jobs;
	p = rr_xcalloc(1, sizeof(*p));
	p->cap = jobs;
	p->q = rr_xcalloc(jobs, sizeof(*p->q));
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	for (int i = 0; i < want; i++)
		if (pthread_create(&p->th[p->nth], NULL, pool_main, p) == 0)
			p->nth++;
	if (!p->nth) {
		pthread_mutex_destroy(&p->mu);
		pthread_cond_destroy(&p->cv);
		free(p->q);
		free(p);
		return NULL;
	}
	return p;
}

/* g is settled: its callback runs on a worker, or here when there is no pool */
static void ready_now(struct rr_index_pool *p, struct rr_index_get *g)
{
	if (!g->ready)
		return;
	if (!p) {
		g->ready(g->client, g);
		return;
	}
	pthread_mutex_lock(&p->mu);
	if (p->n < p->cap) {
		p->q[p->n++] = g;
		pthread_cond_signal(&p->cv);
		g = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	if (g)
		g->ready(g->client, g);
}

/* every queued callback has run when this returns */
static void pool_finish(struct rr_index_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->closing = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->q);
	free(p);
}

static void get_fetched(void *ud, struct rr_fetch *f)
{
	struct rr_index_get *g = ud;

	if (g->settled)
		return;
	g->settled = true;
	settle(g->client, g, f);
	ready_now(g->pool, g);
}

void rr_index_get_batch(struct rr_index_client *c, struct rr_index_get *gs, size_t n)
{
	long long now = (long long)time(NULL);
	struct rr_fetch *fs = rr_xcalloc(n ? n : 1, sizeof(*fs));
	size_t nf = 0;
	size_t nready = 0;
	struct rr_index_pool *pool;

	for (size_t i = 0; i < n; i++)
		nready += gs[i].ready != NULL;
	pool = pool_start(nready);
	for (size_t i = 0; i < n; i++) {
		struct rr_index_get *g = &gs[i];
		g->client = c;
		g->pool = pool;
		g->ce = (struct rr_cache_entry){.max_age = -1, .body = RR_STRBUF_INIT};
		g->total_size = -1;
		rr_strbuf_init(&g->body);
		if (c->cache_dir && g->cacheable &&
		    rr_cache_load(c->cache_dir, g->klass, g->url, &g->ce, NULL) == RR_OK)
			g->have_ce = true;
		if (g->have_ce && g->expect_sha256 &&
		    !rr_index_sha_matches(g->expect_sha256, g->ce.body.buf, g->ce.body.len)) {
			/* written by an older version before it checked: never use it */
			rr_cache_entry_release(&g->ce);
			g->ce = (struct rr_cache_entry){.max_age = -1, .body = RR_STRBUF_INIT};
			g->have_ce = false;
		}
		if (g->have_ce && (c->offline || (!c->refresh && (rr_cache_fresh(&g->ce, now) ||
								 heuristic_fresh(c, &g->ce, now))))) {
			c->cache_hits++;
			take_entry(g);
			g->settled = true;
			ready_now(pool, g);
			continue;
		}
		{
			struct rr_index_fail_slot **fsl =
				(struct rr_index_fail_slot **)rr_strmap_find(&c->failed, g->url,
									     false);
			if (fsl && *fsl) {
				/* failed earlier in this run, retries and all: not again */
				c->failures_reused++;
				g->rc = rr_fail(&g->err, (*fsl)->rc, "%s", (*fsl)->msg);
				g->done = true;
				continue;
			}
		}
		if (c->offline) {
			RR_AUTOFREE char *u = rr_url_redact(g->url);
			g->rc = rr_fail(&g->err, RR_E_NETWORK, "offline and not cached: %s", u);
			g->done = true;
			continue;
		}
		g->fetch_i = nf;
		fs[nf] = (struct rr_fetch){
			.url = g->url,
			.userpwd = g->userpwd,
			.accept = g->accept,
			.max_body = g->max_body,
			.if_none_match = g->have_ce ? g->ce.etag : NULL,
			.if_modified_since = g->have_ce ? g->ce.last_modified : NULL,
			.range = g->range,
			.spill = g->spill,
			.spill_over = g->spill_over,
			.done = get_fetched,
			.done_ud = g,
		};
		nf++;
	}
	if (nf)
		rr_fetch_run(c->fetcher, fs, nf);
	for (size_t i = 0; i < n; i++) {
		struct rr_index_get *g = &gs[i];
		if (!g->done) {
			get_fetched(g, &fs[g->fetch_i]);
		} else if (!g->settled) {
			/* failed before any transfer */
			g->settled = true;
			ready_now(pool, g);
		}
	}
	pool_finish(pool);
	for (size_t i = 0; i < n; i++)
		gs[i].pool = NULL;
	for (size_t i = 0; i < nf; i++)
		rr_fetch_release(&fs[i]);
	free(fs);
}

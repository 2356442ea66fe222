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
#include <sys/resource.h>
#include <sys/syscall.h>
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
	/* a transfer submitted and never finished (the client goes away) */
	if (g->fetch.url && !g->fetch.finished)
		rr_fetch_release(&g->fetch);
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

bool rr_index_entry_fresh(const struct rr_index_client *c, const struct rr_cache_entry *e,
			  long long now)
{
	return c->offline || (!c->refresh && (rr_cache_fresh(e, now) || heuristic_fresh(c, e, now)));
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
	g->content_length = f->content_length;
	if (f->rc != RR_OK && (g->head || g->speculative)) {
		/* a HEAD that failed says nothing about the GET of the same URL, nor a
		 * guessed range about the others */
		g->rc = f->rc;
		g->err = f->err;
		f->err = (rr_error)RR_ERROR_INIT;
		return;
	}
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
 * Work on answers while the rest downloads: a page is up to several MB of JSON,
 * and parsing it on the thread that runs the transfers stalled them (its sockets
 * go unread). Workers, started on first use and kept for the client's life,
 * take settled gets off a queue and run their ready callback; a get whose work
 * is done (or that had none) waits in the finished queue for the client's
 * thread, which hands it to its owner (on_done) while it waits for something.
 */
#define POOL_MAX 4
/* what may wait for the writer, in bytes of cache entries */
#define WRITER_MAX_BYTES (1u << 20)

/* gets waiting for a thread, first come first served (under the pool's mutex) */
struct getq {
	struct rr_index_get **v;
	size_t head, n, cap;
};

struct rr_index_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct getq q;             /* waiting for a worker */
	struct rr_index_get **fin; /* waiting for on_done on the client's thread */
	size_t fin_head, nfin, cap_fin;
	bool closing;  /* the workers stop once their queue is empty */
	bool wclosing; /* the writer does, set only once every worker has stopped */
	pthread_t th[POOL_MAX];
	int nth;
	struct rr_fetcher *fetcher; /* woken when a get is finished */
	/* cache entries to write, by one thread of its own at a lower priority: creating
	 * files on ext4 cost a cold run a third of its CPU, and under other disk traffic
	 * a write stalls for tens of ms; parsing the pages that came is what the
	 * resolution waits for */
	pthread_cond_t wcv;
	struct getq wq;
	size_t wq_bytes; /* of the entries waiting */
	pthread_t wth;
	bool has_writer;
};

static void getq_push(struct getq *q, struct rr_index_get *g)
{
	if (q->head == q->n)
		q->head = q->n = 0;
	RR_PUSH(q->v, q->n, q->cap) = g;
}

/* the next get of q, waited for on cv; NULL once *closing is set with q empty */
static struct rr_index_get *getq_wait(struct rr_index_pool *p, struct getq *q, pthread_cond_t *cv,
				      const bool *closing)
{
	struct rr_index_get *g = NULL;

	pthread_mutex_lock(&p->mu);
	while (q->head == q->n && !*closing)
		pthread_cond_wait(cv, &p->mu);
	if (q->head < q->n) {
		g = q->v[q->head++];
		if (q->head == q->n)
			q->head = q->n = 0;
	}
	pthread_mutex_unlock(&p->mu);
	return g;
}

static void fin_push_locked(struct rr_index_pool *p, struct rr_index_get *g)
{
	if (p->fin_head == p->nfin)
		p->fin_head = p->nfin = 0;
	RR_PUSH(p->fin, p->nfin, p->cap_fin) = g;
}

static void *pool_main(void *arg)
{
	struct rr_index_pool *p = arg;

	/* named for profiles (bench/profile.py --perf puts its CPU under "workers") */
	(void)pthread_setname_np(pthread_self(), "rr-worker");
	for (;;) {
		struct rr_index_get *g = getq_wait(p, &p->q, &p->cv, &p->closing);
		if (!g)
			return NULL;
		g->ready(g->client, g);
		pthread_mutex_lock(&p->mu);
		fin_push_locked(p, g);
		pthread_mutex_unlock(&p->mu);
		rr_fetch_wakeup(p->fetcher);
	}
}

static void store_ready(struct rr_index_client *c, struct rr_index_get *g);
static void store_done(struct rr_index_client *c, struct rr_index_get *g);

static void *writer_main(void *arg)
{
	struct rr_index_pool *p = arg;

	/* this thread only (Linux: a thread's nice value is its own) */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	(void)pthread_setname_np(pthread_self(), "rr-writer");
	for (;;) {
		struct rr_index_get *g = getq_wait(p, &p->wq, &p->wcv, &p->wclosing);
		if (!g)
			return NULL;
		store_ready(g->client, g);
		pthread_mutex_lock(&p->mu);
		p->wq_bytes -= g->pending.body.len;
		pthread_mutex_unlock(&p->mu);
		store_done(g->client, g);
	}
}

static struct rr_index_pool *pool_get(struct rr_index_client *c)
{
	struct rr_index_pool *p = c->pool;
	long cpus;
	int want;

	if (p)
		return p;
	/* as many as there are CPUs: the thread running the transfers mostly waits */
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	want = cpus > 1 ? (int)cpus : 1;
	if (want > POOL_MAX)
		want = POOL_MAX;
	p = rr_xcalloc(1, sizeof(*p));
	p->fetcher = c->fetcher;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	pthread_cond_init(&p->wcv, NULL);
	for (int i = 0; i < want; i++)
		if (pthread_create(&p->th[p->nth], NULL, pool_main, p) == 0)
			p->nth++;
	p->has_writer = pthread_create(&p->wth, NULL, writer_main, p) == 0;
	c->pool = p;
	return p;
}

void rr_index_pool_free(struct rr_index_client *c)
{
	struct rr_index_pool *p = c->pool;

	if (!p)
		return;
	/* the workers finish the queue before they stop, then the writer its entries: a
	 * worker parsing a page hands the writer the page's entry */
	pthread_mutex_lock(&p->mu);
	p->closing = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < p->nth; i++)
		pthread_join(p->th[i], NULL);
	pthread_mutex_lock(&p->mu);
	p->wclosing = true;
	pthread_cond_broadcast(&p->wcv);
	pthread_mutex_unlock(&p->mu);
	/* and this thread writes beside it what is left: the writer runs at a low priority,
	 * and on a loaded machine the run's end waited for it (0.2 s after the last answer,
	 * load 9 on 2 cores); nothing else is left to do now */
	for (;;) {
		struct rr_index_get *g = NULL;
		pthread_mutex_lock(&p->mu);
		if (p->wq.head < p->wq.n) {
			g = p->wq.v[p->wq.head++];
			p->wq_bytes -= g->pending.body.len;
			if (p->wq.head == p->wq.n)
				p->wq.head = p->wq.n = 0;
		}
		pthread_mutex_unlock(&p->mu);
		if (!g)
			break;
		store_ready(c, g);
		store_done(c, g);
	}
	if (p->has_writer)
		pthread_join(p->wth, NULL);
	/* a finished get belongs to a job the client frees next, or is a store task */
	for (size_t i = p->fin_head; i < p->nfin; i++)
		if (p->fin[i]->on_done == store_done)
			store_done(c, p->fin[i]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	pthread_cond_destroy(&p->wcv);
	free(p->wq.v);
	free(p->q.v);
	free(p->fin);
	free(p);
	c->pool = NULL;
}

/*
 * an answer up to this size is worked on by the thread that settled it, at once: on
 * a worker it waited behind the big pages queued before it (DeepSpeed's dev file:
 * 5 ms median, 20 ms p90 from the end of a transfer to its parse) and then for this
 * thread to look; parsing a page this small takes a fraction of a millisecond
 */
#define INLINE_READY_MAX (64u << 10)

/* g is settled: its ready callback runs on a worker, or here (no workers, or an
 * answer in memory of at most INLINE_READY_MAX); then g waits for the client's thread */
static void dispatch(struct rr_index_client *c, struct rr_index_get *g)
{
	struct rr_index_pool *p = pool_get(c);

	g->settled = true;
	pthread_mutex_lock(&p->mu);
	if (g->ready && p->nth && (g->have_fd || g->body.len > INLINE_READY_MAX)) {
		getq_push(&p->q, g);
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		return;
	}
	pthread_mutex_unlock(&p->mu);
	if (g->ready)
		g->ready(c, g);
	pthread_mutex_lock(&p->mu);
	fin_push_locked(p, g);
	pthread_mutex_unlock(&p->mu);
}

/* the next get whose owner is to be told, NULL when none is waiting */
static struct rr_index_get *fin_pop(struct rr_index_client *c)
{
	struct rr_index_pool *p = c->pool;
	struct rr_index_get *g = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&p->mu);
	if (p->fin_head < p->nfin)
		g = p->fin[p->fin_head++];
	pthread_mutex_unlock(&p->mu);
	return g;
}

static void get_fetched(void *ud, struct rr_fetch *f)
{
	struct rr_index_get *g = ud;

	settle(g->client, g, f);
	rr_fetch_release(f);
	dispatch(g->client, g);
}

void rr_index_get_start(struct rr_index_client *c, struct rr_index_get *g)
{
	long long now = (long long)time(NULL);

	g->client = c;
	g->ce = (struct rr_cache_entry){.max_age = -1, .body = RR_STRBUF_INIT};
	g->total_size = -1;
	g->content_length = -1;
	g->settled = false;
	rr_strbuf_init(&g->body);
	c->gets_open++;
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
	if (g->have_ce && rr_index_entry_fresh(c, &g->ce, now)) {
		c->cache_hits++;
		take_entry(g);
		dispatch(c, g);
		return;
	}
	{
		struct rr_index_fail_slot **fsl =
			(struct rr_index_fail_slot **)rr_strmap_find(&c->failed, g->url, false);
		if (fsl && *fsl) {
			/* failed earlier in this run, retries and all: not again */
			c->failures_reused++;
			g->rc = rr_fail(&g->err, (*fsl)->rc, "%s", (*fsl)->msg);
			g->done = true;
			dispatch(c, g);
			return;
		}
	}
	if (c->offline) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		g->rc = rr_fail(&g->err, RR_E_NETWORK, "offline and not cached: %s", u);
		g->done = true;
		dispatch(c, g);
		return;
	}
	g->fetch = (struct rr_fetch){
	    .url = g->url,
	    .userpwd = g->userpwd,
	    .accept = g->accept,
	    .max_body = g->max_body,
	    .if_none_match = g->have_ce ? g->ce.etag : NULL,
	    .if_modified_since = g->have_ce ? g->ce.last_modified : NULL,
	    .range = g->range,
	    .spill = g->spill,
	    .spill_partial = g->spill_partial,
	    .spill_over = g->spill_over,
	    .head = g->head,
	    .once = g->speculative,
	    .priority = g->priority,
	    .guess = g->guess,
	    .done = get_fetched,
	    .done_ud = g,
	};
	rr_fetch_submit(c->fetcher, &g->fetch);
}

/* a cache entry written on a worker: creating files costs the client's thread,
 * which runs the transfers, ~1 ms each on a busy ext4 */
static void store_ready(struct rr_index_client *c, struct rr_index_get *g)
{
	rr_cache_store_keyed(c->cache_dir, g->klass, g->url, &g->pending, NULL);
}

static void store_done(struct rr_index_client *c, struct rr_index_get *g)
{
	(void)c;
	rr_index_get_release(g);
	free(g);
}

void rr_index_store_later(struct rr_index_client *c, const char *klass, const char *key_url,
			  struct rr_cache_entry *e)
{
	struct rr_index_pool *p = pool_get(c);
	struct rr_index_get *g = rr_xcalloc(1, sizeof(*g));

	g->client = c;
	g->url = rr_xstrdup(key_url);
	g->klass = klass;
	g->pending = *e;
	memset(e, 0, sizeof(*e));
	pthread_mutex_lock(&p->mu);
	if (p->has_writer && p->wq_bytes + g->pending.body.len <= WRITER_MAX_BYTES) {
		/* nobody waits for it: the client's end waits for the writer */
		getq_push(&p->wq, g);
		p->wq_bytes += g->pending.body.len;
		pthread_cond_signal(&p->wcv);
		pthread_mutex_unlock(&p->mu);
		return;
	}
	pthread_mutex_unlock(&p->mu);
	/* the writer is that far behind: memory is worth more than this thread's time */
	store_ready(c, g);
	store_done(c, g);
}

bool rr_index_pump(struct rr_index_client *c, bool (*until)(void *ctx), void *ctx)
{
	for (;;) {
		struct rr_index_get *g;
		/* owners first: what they start joins this round */
		while ((g = fin_pop(c))) {
			c->gets_open--;
			if (g->on_done)
				g->on_done(c, g);
		}
		if (until && until(ctx))
			return true;
		if (!c->gets_open)
			return false;
		rr_fetch_step(c->fetcher, -1);
	}
}

static void batch_done(struct rr_index_client *c, struct rr_index_get *g)
{
	(void)c;
	(*(size_t *)g->owner)--;
}

static bool batch_over(void *ctx)
{
	return *(size_t *)ctx == 0;
}

void rr_index_get_batch(struct rr_index_client *c, struct rr_index_get *gs, size_t n)
{
	size_t left = n;

	for (size_t i = 0; i < n; i++) {
		gs[i].on_done = batch_done;
		gs[i].owner = &left;
		rr_index_get_start(c, &gs[i]);
	}
	rr_index_pump(c, batch_over, &left);
}

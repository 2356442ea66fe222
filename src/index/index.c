/*
 * index.c - the index client: which index serves a project (first index
 * wins), page fetching through the cache, core metadata acquisition.
 *
 * Credentials: index URLs may carry user:password. They are split off at
 * construction; every URL we store or hand out is credential-free, and the
 * credentials are sent (as CURLOPT_USERPWD) only to the realm (scheme, host,
 * port) of the index they came with - also for file downloads on that realm.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/index-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define IMMUTABLE_MAX_AGE (10LL * 365 * 86400)
#define METADATA_MAX (16u << 20)
#define DIST_MAX (2ull << 30)
/*
 * a page announced over this goes to an unlinked temporary file as it arrives and
 * is parsed from a read-only mapping: a ring's large pages (PyPI's pydantic-core,
 * aiohttp, regex: 4-7 MB of JSON each) downloading together held ~30 MB of heap
 */
#define PAGE_SPILL_OVER (512u << 10)

/* ---- a small string-keyed hash map ---- */

struct map_slot {
	char *key;
	void *val;
};
struct map {
	struct map_slot *slots;
	size_t cap, n;
};

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void **map_find(struct map *m, const char *key, bool create)
{
	size_t i;

	if (create && (m->n + 1) * 2 > m->cap) {
		struct map old = *m;
		m->cap = old.cap ? old.cap * 2 : 64;
		m->slots = rr_xcalloc(m->cap, sizeof(*m->slots));
		m->n = 0;
		for (size_t j = 0; j < old.cap; j++) {
			if (!old.slots[j].key)
				continue;
			i = hash_str(old.slots[j].key) & (m->cap - 1);
			while (m->slots[i].key)
				i = (i + 1) & (m->cap - 1);
			m->slots[i] = old.slots[j];
			m->n++;
		}
		free(old.slots);
	}
	if (!m->cap)
		return NULL;
	i = hash_str(key) & (m->cap - 1);
	while (m->slots[i].key) {
		if (strcmp(m->slots[i].key, key) == 0)
			return &m->slots[i].val;
		i = (i + 1) & (m->cap - 1);
	}
	if (!create)
		return NULL;
	m->slots[i].key = rr_xstrdup(key);
	m->slots[i].val = NULL;
	m->n++;
	return &m->slots[i].val;
}

/* ---- the client ---- */

struct index_src {
	char *url;      /* credential-free, ends with '/' */
	char *redacted; /* as given, userinfo replaced */
	char *userpwd;  /* or NULL */
	char *realm;
	bool pypi_like; /* path ends in /simple/: the JSON API may sit beside it */
};

struct proj_slot {
	bool missing;
	struct rr_index_project p;
};

struct meta_slot {
	rr_err rc;
	char *msg;
	struct rr_strbuf text;
};

struct rr_index_client {
	struct index_src *idx;
	size_t nidx;
	char *cache_dir; /* NULL: no cache */
	bool offline, refresh;
	struct rr_fetcher *fetcher;
	struct map projects; /* key -> struct proj_slot */
	struct map meta;     /* file url -> struct meta_slot */
	struct map failed;   /* url -> struct fail_slot: failed this run, not asked again */
	char **fl;           /* find-links locations as given */
	char **fl_redacted;
	size_t nfl;
	bool fl_loaded;
	struct rr_index_project fl_files; /* every file the locations list */
	size_t max_page;
	long long heuristic_ttl;
	size_t cache_hits, revalidated, range_requests, whole_files, failures_reused;
	size_t pages_spilled;
};

struct fail_slot {
	rr_err rc;
	char *msg;
};

rr_err rr_index_client_new(const struct rr_index_opts *o, struct rr_index_client **ret,
			   rr_error *err)
{
	struct rr_index_client *c;
	struct rr_fetch_opts fo = {
		.timeout_ms = o->timeout_ms,
		.retries = o->retries == 0 ? 3 : o->retries,
		.max_parallel = o->max_parallel,
		.user_agent = o->user_agent ? o->user_agent : "rocm-resolve/" RR_VERSION,
		.ca_file = o->ca_file,
		.ca_dir = o->ca_dir,
		.observe = o->observe,
		.observe_ctx = o->observe_ctx,
	};

	if (o->nindex_urls == 0)
		return rr_fail(err, RR_E_USAGE, "no index URL given");
	/* first, so a missing libcurl is not mistaken for a bad URL below */
	if (rr_curl_load(err) != RR_OK)
		return RR_E_ENV;
	c = rr_xcalloc(1, sizeof(*c));
	c->idx = rr_xcalloc(o->nindex_urls, sizeof(*c->idx));
	for (size_t i = 0; i < o->nindex_urls; i++) {
		struct index_src *s = &c->idx[c->nidx];
		char *plain = NULL;
		size_t n;
		s->redacted = rr_url_redact(o->index_urls[i]);
		if (!rr_url_split_userinfo(o->index_urls[i], &plain, &s->userpwd) ||
		    !(s->realm = rr_url_realm(plain))) {
			rr_fail(err, RR_E_USAGE, "not a URL: '%s'", s->redacted);
			free(plain);
			c->nidx++;
			rr_index_client_free(c);
			return RR_E_USAGE;
		}
		n = strlen(plain);
		if (n && plain[n - 1] == '/')
			s->url = plain;
		else {
			s->url = rr_xasprintf("%s/", plain);
			free(plain);
		}
		s->pypi_like = rr_str_endswith(s->url, "/simple/");
		c->nidx++;
	}
	if (!o->no_cache) {
		const char *xdg = getenv("XDG_CACHE_HOME");
		const char *home = getenv("HOME");
		if (o->cache_dir)
			c->cache_dir = rr_xstrdup(o->cache_dir);
		else if (xdg && *xdg == '/')
			c->cache_dir = rr_xasprintf("%s/rocm-resolve", xdg);
		else if (home && *home)
			c->cache_dir = rr_xasprintf("%s/.cache/rocm-resolve", home);
	}
	c->offline = o->offline;
	c->refresh = o->refresh;
	if (o->nfind_links) {
		c->fl = rr_xcalloc(o->nfind_links, sizeof(*c->fl));
		c->fl_redacted = rr_xcalloc(o->nfind_links, sizeof(*c->fl_redacted));
		for (size_t i = 0; i < o->nfind_links; i++) {
			c->fl[i] = rr_xstrdup(o->find_links[i]);
			c->fl_redacted[i] = rr_url_redact(o->find_links[i]);
		}
		c->nfl = o->nfind_links;
	}
	c->max_page = o->max_page_bytes ? o->max_page_bytes : RR_INDEX_PAGE_MAX;
	c->heuristic_ttl = o->heuristic_ttl_s == 0  ? RR_INDEX_HEURISTIC_TTL
			   : o->heuristic_ttl_s < 0 ? -1
						    : o->heuristic_ttl_s;
	fo.deadline_ms = o->deadline_ms;
	if (o->retries < 0)
		fo.retries = 0;
	if (rr_fetcher_new(&fo, &c->fetcher, err) != RR_OK) {
		rr_index_client_free(c);
		return RR_E_ENV;
	}
	*ret = c;
	return RR_OK;
}

struct rr_index_client *rr_index_client_free(struct rr_index_client *c)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->nidx; i++) {
		free(c->idx[i].url);
		free(c->idx[i].redacted);
		free(c->idx[i].userpwd);
		free(c->idx[i].realm);
	}
	free(c->idx);
	for (size_t i = 0; i < c->projects.cap; i++) {
		struct proj_slot *ps = c->projects.slots[i].val;
		free(c->projects.slots[i].key);
		if (ps) {
			rr_index_project_release(&ps->p);
			free(ps);
		}
	}
	free(c->projects.slots);
	for (size_t i = 0; i < c->meta.cap; i++) {
		struct meta_slot *ms = c->meta.slots[i].val;
		free(c->meta.slots[i].key);
		if (ms) {
			free(ms->msg);
			rr_strbuf_release(&ms->text);
			free(ms);
		}
	}
	free(c->meta.slots);
	for (size_t i = 0; i < c->failed.cap; i++) {
		struct fail_slot *fs = c->failed.slots[i].val;
		free(c->failed.slots[i].key);
		if (fs) {
			free(fs->msg);
			free(fs);
		}
	}
	free(c->failed.slots);
	for (size_t i = 0; i < c->nfl; i++) {
		free(c->fl[i]);
		free(c->fl_redacted[i]);
	}
	free(c->fl);
	free(c->fl_redacted);
	rr_index_project_release(&c->fl_files);
	free(c->cache_dir);
	rr_fetcher_free(c->fetcher);
	free(c);
	return NULL;
}

size_t rr_index_client_requests(const struct rr_index_client *c)
{
	return rr_fetcher_transfers(c->fetcher);
}

void rr_index_client_stats(const struct rr_index_client *c, struct rr_index_stats *ret)
{
	*ret = (struct rr_index_stats){
		.requests = rr_fetcher_transfers(c->fetcher),
		.bytes = rr_fetcher_bytes(c->fetcher),
		.cache_hits = c->cache_hits,
		.revalidated = c->revalidated,
		.range_requests = c->range_requests,
		.whole_files = c->whole_files,
		.failures_reused = c->failures_reused,
		.pages_spilled = c->pages_spilled,
	};
}

long long rr_index_now_ms(void)
{
	return rr_fetch_now_ms();
}

/* credentials for a URL: those of the first index on the same realm */
static const char *userpwd_for(struct rr_index_client *c, const char *url)
{
	RR_AUTOFREE char *realm = rr_url_realm(url);

	for (size_t i = 0; realm && i < c->nidx; i++)
		if (c->idx[i].userpwd && strcmp(c->idx[i].realm, realm) == 0)
			return c->idx[i].userpwd;
	return NULL;
}

/* ---- GET through the cache ---- */

struct get {
	/* in */
	char *url; /* owned, credential-free */
	const char *userpwd;
	const char *klass;
	const char *accept;
	size_t max_body;
	bool cacheable;
	const char *expect_sha256; /* the body must hash to this (else never stored/used) */
	bool immutable;            /* its file's URL carries a hash: never changes */
	char *range;     /* owned; CURLOPT_RANGE */
	bool spill;      /* a whole body goes to a temp file (fd) */
	size_t spill_over; /* so does one announced larger than this */
	bool defer_store; /* a fresh 200 is not stored: the caller stores what it made of it */
	/* out */
	rr_err rc;
	rr_error err;
	long status;
	char *content_type;
	char *final_url;
	struct rr_strbuf body;
	bool have_fd;
	int fd;               /* the spilled body when have_fd */
	long long total_size; /* Content-Range total, -1 */
	struct rr_cache_entry pending; /* defer_store: the entry to store, body left out */
	bool store_pending;
	/* optional: called once the answer is settled (fetched or from the cache), while
	 * the rest of the batch still downloads */
	void (*ready)(struct rr_index_client *c, struct get *g);
	void *ready_ctx;
	struct rr_index_client *client;
	struct pool *pool; /* the batch's workers, NULL: none */
	bool settled;
	/* pages: parsed by ready as soon as they arrive */
	struct rr_index_project proj;
	rr_err prc;
	rr_error perr;
	bool parsed;
	/* private */
	struct rr_cache_entry ce;
	bool have_ce;
	bool done;
	size_t fetch_i;
};

static void get_release(struct get *g)
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

static void take_entry(struct get *g)
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

static bool sha_matches(const char *want, const void *data, size_t len)
{
	char got[65];

	rr_sha256_hex(data, len, got);
	return strcmp(got, want) == 0;
}

/* a finished transfer's answer: stored in the cache as its headers allow, checked */
static void settle(struct rr_index_client *c, struct get *g, struct rr_fetch *f)
{
	long long now = (long long)time(NULL);
	long long max_age;
	bool no_store, no_cache, heuristic;

	g->done = true;
	if (f->rc != RR_OK) {
		struct fail_slot **fsl = (struct fail_slot **)map_find(&c->failed, g->url,
								       true);
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
	    !sha_matches(g->expect_sha256, g->body.buf, g->body.len)) {
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
		if (!rr_url_split_userinfo(g->url, &plain, NULL))
			plain = rr_url_redact(g->url);
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

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct get **q;
	size_t head, n, cap;
	bool closing;
	pthread_t th[POOL_MAX];
	int nth;
};

static void *pool_main(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		struct get *g;
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
static struct pool *pool_start(size_t jobs)
{
	struct pool *p;
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
static void ready_now(struct pool *p, struct get *g)
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
static void pool_finish(struct pool *p)
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
	struct get *g = ud;

	if (g->settled)
		return;
	g->settled = true;
	settle(g->client, g, f);
	ready_now(g->pool, g);
}

static void get_batch(struct rr_index_client *c, struct get *gs, size_t n)
{
	long long now = (long long)time(NULL);
	struct rr_fetch *fs = rr_xcalloc(n ? n : 1, sizeof(*fs));
	size_t nf = 0;
	size_t nready = 0;
	struct pool *pool;

	for (size_t i = 0; i < n; i++)
		nready += gs[i].ready != NULL;
	pool = pool_start(nready);
	for (size_t i = 0; i < n; i++) {
		struct get *g = &gs[i];
		g->client = c;
		g->pool = pool;
		g->ce = (struct rr_cache_entry){.max_age = -1, .body = RR_STRBUF_INIT};
		g->total_size = -1;
		rr_strbuf_init(&g->body);
		if (c->cache_dir && g->cacheable &&
		    rr_cache_load(c->cache_dir, g->klass, g->url, &g->ce, NULL) == RR_OK)
			g->have_ce = true;
		if (g->have_ce && g->expect_sha256 &&
		    !sha_matches(g->expect_sha256, g->ce.body.buf, g->ce.body.len)) {
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
			struct fail_slot **fsl = (struct fail_slot **)map_find(&c->failed, g->url,
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
		struct get *g = &gs[i];
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

/* ---- project pages ---- */

static rr_err parse_body(struct get *g, const char *data, size_t len, const struct index_src *s,
			 bool jsonapi, struct rr_index_project *p, rr_error *err)
{
	const char *ct = g->content_type ? g->content_type : "";
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (jsonapi)
		return rr_index_parse_jsonapi(data, len, g->final_url, s->redacted, p, err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+json", 35) == 0)
		return rr_index_parse_json(data, len, g->final_url, s->redacted, p, err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+html", 35) == 0 ||
	    strncasecmp(ct, "text/html", 9) == 0)
		return rr_index_parse_html(data, len, g->final_url, s->redacted, p, err);
	return rr_fail(err, RR_E_HTTP, "%s: unexpected content type '%s'", u, ct);
}

/* the page as it came: in memory, or (a large one) spilled to a file and mapped */
static rr_err parse_page(struct get *g, const struct index_src *s, bool jsonapi,
			 struct rr_index_project *p, rr_error *err)
{
	struct stat st;
	void *map;
	rr_err rc;

	if (!g->have_fd)
		return parse_body(g, g->body.buf, g->body.len, s, jsonapi, p, err);
	if (fstat(g->fd, &st) != 0 || st.st_size <= 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, g->fd, 0)) ==
		    MAP_FAILED) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		return rr_fail(err, RR_E_IO, "%s: cannot read the downloaded page back: %s", u,
			       strerror(errno));
	}
	rc = parse_body(g, map, (size_t)st.st_size, s, jsonapi, p, err);
	munmap(map, (size_t)st.st_size);
	close(g->fd);
	g->have_fd = false;
	return rc;
}

/*
 * the project a page answer holds: a digest from the cache loads as it is; a
 * page is parsed, and what the parse found replaces the page in the cache, so
 * the next run never parses it again. The body is let go at once: a ring of
 * pages is tens of MB.
 */
static rr_err page_project(struct rr_index_client *c, struct get *g, const struct index_src *s,
			   bool jsonapi, struct rr_index_project *p, rr_error *err)
{
	rr_err rc;

	if (g->content_type && strcmp(g->content_type, RR_INDEX_DIGEST_TYPE) == 0) {
		size_t len = 0;
		char *data = rr_strbuf_detach(&g->body, &len);
		rc = rr_index_parse_digest_take(data, len, g->final_url, s->redacted, p, err);
	} else {
		rc = parse_page(g, s, jsonapi, p, err);
		rr_strbuf_release(&g->body);
		if (rc == RR_OK)
			rr_index_project_drop_foreign(p);
		if (rc == RR_OK && g->store_pending && c->cache_dir) {
			struct rr_index_project q = {0};
			size_t len = 0;
			char *data;
			rr_index_project_digest(p, &g->pending.body);
			g->pending.content_type = rr_xstrdup(RR_INDEX_DIGEST_TYPE);
			rr_cache_store_keyed(c->cache_dir, g->klass, g->url, &g->pending, NULL);
			/* the digest holds every string of the page once, packed: it becomes
			 * the project (as on a warm run), and the loose strings go */
			data = rr_strbuf_detach(&g->pending.body, &len);
			if (rr_index_parse_digest_take(data, len, g->final_url, s->redacted, &q,
						       NULL) == RR_OK) {
				rr_index_project_release(p);
				*p = q;
			}
		}
		if (rc == RR_OK)
			rr_index_project_pack(p); /* here, not on the thread running transfers */
	}
	rr_strbuf_release(&g->body);
	rr_cache_entry_release(&g->pending);
	g->store_pending = false;
	return rc;
}

/* the answer to a page request is in: parse it now, while the rest still download */
static void page_ready_as(struct rr_index_client *c, struct get *g, bool jsonapi)
{
	if (g->rc != RR_OK || g->status != 200)
		return;
	g->prc = page_project(c, g, g->ready_ctx, jsonapi, &g->proj, &g->perr);
	g->parsed = true;
}

static void page_ready(struct rr_index_client *c, struct get *g)
{
	page_ready_as(c, g, false);
}

static void api_ready(struct rr_index_client *c, struct get *g)
{
	page_ready_as(c, g, true);
}

/* the project a page request yielded (parsed when it arrived) */
static rr_err take_project(struct get *g, struct rr_index_project *p, rr_error *err)
{
	rr_err rc = g->prc;

	if (!g->parsed)
		return rr_fail(err, RR_E_INTERNAL, "page not parsed");
	*p = g->proj;
	memset(&g->proj, 0, sizeof(g->proj));
	if (rc && err) {
		rr_error_release(err);
		*err = g->perr;
		g->perr = (rr_error)RR_ERROR_INIT;
	}
	return rc;
}

/* ---- --find-links ---- */

static bool is_http(const char *u)
{
	return strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* a directory's dists as the HTML page a flat index would serve for it */
static rr_err dir_page(const char *dir, struct rr_strbuf *html, char **ret_base, rr_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	RR_AUTOFREE char *abs = NULL;

	if (!d)
		return rr_fail(err, RR_E_IO, "--find-links '%s': %s", dir, strerror(errno));
	abs = realpath(dir, NULL);
	while ((de = readdir(d))) {
		struct stat st;
		RR_AUTOFREE char *path = NULL;
		if (de->d_name[0] == '.')
			continue;
		path = rr_xasprintf("%s/%s", abs ? abs : dir, de->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			RR_PUSH(names, n, cap) = rr_xstrdup(de->d_name);
	}
	closedir(d);
	rr_qsort(names, n, sizeof(*names), cmp_str);
	rr_strbuf_adds(html, "<html><body>\n");
	for (size_t i = 0; i < n; i++) {
		rr_strbuf_adds(html, "<a href=\"");
		for (const unsigned char *q = (const unsigned char *)names[i]; *q; q++) {
			if ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
			    (*q >= '0' && *q <= '9') || strchr("-._~+!", *q))
				rr_strbuf_addch(html, (char)*q);
			else
				rr_strbuf_addf(html, "%%%02X", *q);
		}
		rr_strbuf_adds(html, "\">x</a>\n");
		free(names[i]);
	}
	rr_strbuf_adds(html, "</body></html>\n");
	free(names);
	*ret_base = rr_xasprintf("file://%s/", abs ? abs : dir);
	return RR_OK;
}

static void copy_file(struct rr_index_file *dst, const struct rr_index_file *src)
{
#define DUP(x) dst->x = src->x ? rr_xstrdup(src->x) : NULL
	*dst = *src;
	DUP(filename);
	DUP(url);
	DUP(sha256);
	DUP(requires_python);
	DUP(yanked_reason);
	DUP(metadata_sha256);
	DUP(version);
#undef DUP
}

/* the project a dist's filename names (normalised), NULL if it names none */
static char *file_project(const struct rr_index_file *f)
{
	const char *fn = f->filename;
	const char *cut;
	size_t vlen = f->version ? strlen(f->version) : 0;

	if (f->is_wheel)
		cut = strchr(fn, '-');
	else
		cut = vlen && strlen(fn) > vlen + 1 ? strstr(fn, f->version) : NULL;
	if (!cut || cut == fn)
		return NULL;
	if (!f->is_wheel) {
		/* the last "-<version>" */
		const char *q = cut;
		while ((q = strstr(q + 1, f->version)))
			cut = q;
		if (cut[-1] != '-')
			return NULL;
		cut--;
	}
	return rr_name_normalize_n(fn, (size_t)(cut - fn));
}

static rr_err load_find_links(struct rr_index_client *c, rr_error *err)
{
	size_t cap = c->fl_files.nfiles;
	rr_err rc = RR_OK;

	if (c->fl_loaded || !c->nfl)
		return RR_OK;
	c->fl_loaded = true;
	for (size_t i = 0; i < c->nfl && rc == RR_OK; i++) {
		struct rr_index_project pr = {0};
		const char *loc = c->fl[i];
		if (is_http(loc)) {
			struct get g = {
				.url = NULL, .klass = "flat", .accept = "text/html",
				.max_body = c->max_page, .cacheable = true,
			};
			char *plain = NULL;
			if (!rr_url_split_userinfo(loc, &plain, (char **)&g.userpwd)) {
				rc = rr_fail(err, RR_E_USAGE, "--find-links: not a URL: '%s'",
					     c->fl_redacted[i]);
				break;
			}
			g.url = plain;
			get_batch(c, &g, 1);
			if (g.rc != RR_OK) {
				rc = g.rc;
				if (err) {
					rr_error_release(err);
					*err = g.err;
					g.err = (rr_error)RR_ERROR_INIT;
				}
			} else if (g.status != 200) {
				rc = rr_fail(err, RR_E_HTTP, "--find-links %s: HTTP %ld",
					     c->fl_redacted[i], g.status);
			} else {
				rc = rr_index_parse_html(g.body.buf, g.body.len, g.final_url,
							 c->fl_redacted[i], &pr, err);
			}
			free((char *)g.userpwd);
			get_release(&g);
		} else {
			RR_AUTO_STRBUF struct rr_strbuf html = RR_STRBUF_INIT;
			RR_AUTOFREE char *page = NULL;
			const char *dir = strncasecmp(loc, "file://", 7) == 0 ? loc + 7 : loc;
			rc = dir_page(dir, &html, &page, err);
			if (rc == RR_OK)
				rc = rr_index_parse_html(html.buf, html.len, page, c->fl_redacted[i],
							 &pr, err);
		}
		for (size_t k = 0; rc == RR_OK && k < pr.nfiles; k++)
			copy_file(&RR_PUSH(c->fl_files.files, c->fl_files.nfiles, cap), &pr.files[k]);
		rr_index_project_release(&pr);
	}
	return rc;
}

/* a project's files from the find-links locations join those of its index */
static void merge_find_links(struct rr_index_client *c, const char *key,
			     struct rr_index_project *p, const char **index_url)
{
	size_t cap = p->nfiles;

	for (size_t i = 0; i < c->fl_files.nfiles; i++) {
		const struct rr_index_file *f = &c->fl_files.files[i];
		RR_AUTOFREE char *proj = file_project(f);
		bool dup = false;
		if (!proj || strcmp(proj, key) != 0)
			continue;
		for (size_t k = 0; k < p->nfiles && !dup; k++)
			dup = strcmp(p->files[k].filename, f->filename) == 0;
		if (dup)
			continue; /* the index's own copy (with its hash) stands */
		if (p->arena) {
			/* a packed project (a digest) takes no loose strings: own them again */
			for (size_t k = 0; k < p->nfiles; k++) {
				struct rr_index_file o = p->files[k];
				copy_file(&p->files[k], &o);
			}
			p->arena = rr_free(p->arena);
		}
		copy_file(&RR_PUSH(p->files, p->nfiles, cap), f);
		if (!*index_url)
			*index_url = f->index_url;
	}
}

static void store_project(struct rr_index_client *c, const char *key, const struct index_src *s,
			  struct rr_index_project *p)
{
	struct proj_slot **slot;
	struct proj_slot *ps;
	const char *where = s ? s->redacted : NULL;

	merge_find_links(c, key, p, &where);
	rr_index_project_pack(p);
	slot = (struct proj_slot **)map_find(&c->projects, key, true);
	ps = *slot ? *slot : rr_xcalloc(1, sizeof(*ps));
	rr_index_project_release(&ps->p);
	ps->p = *p;
	memset(p, 0, sizeof(*p));
	free(ps->p.key);
	ps->p.key = rr_xstrdup(key);
	free(ps->p.index_url);
	ps->p.index_url = where ? rr_xstrdup(where) : NULL;
	ps->missing = where == NULL;
	*slot = ps;
}

rr_err rr_index_fetch_projects(struct rr_index_client *c, const char *const *keys, size_t n,
			       rr_error *err)
{
	char **pending;
	size_t np = 0;
	rr_err rc = load_find_links(c, err);

	if (rc)
		return rc;
	pending = rr_xcalloc(n ? n : 1, sizeof(*pending));

	for (size_t i = 0; i < n; i++) {
		char *k = rr_name_normalize(keys[i]);
		bool dup = !*k || map_find(&c->projects, k, false);
		for (size_t j = 0; j < np && !dup; j++)
			dup = strcmp(pending[j], k) == 0;
		if (dup)
			free(k);
		else
			pending[np++] = k;
	}
	/* index by index, in priority order: only what is still missing goes on */
	for (size_t ix = 0; ix < c->nidx && np && rc == RR_OK; ix++) {
		const struct index_src *s = &c->idx[ix];
		struct get *gs = rr_xcalloc(np, sizeof(*gs));
		struct get *api = NULL;
		size_t napi = 0;
		size_t left = 0;
		size_t ngs = np;

		for (size_t i = 0; i < np; i++) {
			gs[i].url = rr_xasprintf("%s%s/", s->url, pending[i]);
			gs[i].userpwd = s->userpwd;
			gs[i].klass = "simple";
			gs[i].accept = RR_INDEX_ACCEPT;
			gs[i].max_body = c->max_page;
			gs[i].spill_over = PAGE_SPILL_OVER;
			gs[i].cacheable = true;
			gs[i].defer_store = true;
			gs[i].ready = page_ready;
			gs[i].ready_ctx = (void *)s;
		}
		get_batch(c, gs, np);
		/* the Simple API has no page (or keeps failing): PyPI-like hosts may still
		 * serve the JSON API next to it */
		if (s->pypi_like) {
			api = rr_xcalloc(np, sizeof(*api));
			for (size_t i = 0; i < np; i++) {
				bool gone = gs[i].rc == RR_OK &&
					    (gs[i].status == 404 || gs[i].status == 410);
				if (!gone && gs[i].rc != RR_E_HTTP)
					continue;
				api[napi].url = rr_xasprintf("%s../pypi/%s/json", s->url, pending[i]);
				api[napi].userpwd = s->userpwd;
				api[napi].klass = "jsonapi";
				api[napi].accept = "application/json";
				api[napi].max_body = c->max_page;
				api[napi].spill_over = PAGE_SPILL_OVER;
				api[napi].cacheable = true;
				api[napi].defer_store = true;
				api[napi].ready = api_ready;
				api[napi].ready_ctx = (void *)s;
				api[napi].fetch_i = i; /* reused as a back-reference */
				napi++;
			}
			{
				/* get_batch resets fetch_i; keep the mapping aside */
				size_t *back = rr_xcalloc(napi ? napi : 1, sizeof(*back));
				for (size_t j = 0; j < napi; j++)
					back[j] = api[j].fetch_i;
				get_batch(c, api, napi);
				for (size_t j = 0; j < napi; j++)
					api[j].fetch_i = back[j];
				free(back);
			}
		}
		for (size_t i = 0; i < np; i++) {
			struct get *g = &gs[i];
			struct get *alt = NULL;
			struct rr_index_project p = {0};
			for (size_t j = 0; j < napi; j++)
				if (api[j].fetch_i == i)
					alt = &api[j];
			if (alt && alt->rc == RR_OK && alt->status == 200) {
				if (rc == RR_OK &&
				    (rc = take_project(alt, &p, err)) == RR_OK)
					store_project(c, pending[i], s, &p);
				rr_index_project_release(&p);
				free(pending[i]);
				continue;
			}
			if (rc != RR_OK) {
				free(pending[i]);
				continue;
			}
			if (g->rc == RR_E_LIMIT) {
				RR_AUTOFREE char *u = rr_url_redact(g->url);
				rc = rr_fail(err, RR_E_LIMIT,
					     "%s: the project page is larger than %zu MiB, far beyond "
					     "any real index's; refused (a broken or hostile server?)",
					     u, c->max_page >> 20);
			} else if (g->rc != RR_OK) {
				rc = g->rc;
				if (err) {
					rr_error_release(err);
					*err = g->err;
					g->err = (rr_error)RR_ERROR_INIT;
				}
			} else if (g->status == 404 || g->status == 410) {
				pending[left++] = pending[i]; /* try the next index */
				continue;
			} else if (g->status != 200) {
				RR_AUTOFREE char *u = rr_url_redact(g->url);
				rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld%s", u, g->status,
					     g->status == 401 || g->status == 403
						     ? " (credentials missing or rejected)"
						     : "");
			} else if ((rc = take_project(g, &p, err)) == RR_OK) {
				store_project(c, pending[i], s, &p);
			}
			rr_index_project_release(&p);
			free(pending[i]);
		}
		np = left;
		for (size_t i = 0; i < napi; i++)
			get_release(&api[i]);
		free(api);
		for (size_t i = 0; i < ngs; i++)
			get_release(&gs[i]);
		free(gs);
	}
	for (size_t i = 0; i < np; i++) {
		if (rc == RR_OK) {
			struct rr_index_project none = {0};
			store_project(c, pending[i], NULL, &none);
		}
		free(pending[i]);
	}
	free(pending);
	return rc;
}

rr_err rr_index_get_project(struct rr_index_client *c, const char *key,
			    const struct rr_index_project **ret, rr_error *err)
{
	RR_AUTOFREE char *k = rr_name_normalize(key);
	struct proj_slot **slot = (struct proj_slot **)map_find(&c->projects, k, false);
	rr_err rc;

	if (!slot) {
		if ((rc = rr_index_fetch_projects(c, &key, 1, err)))
			return rc;
		slot = (struct proj_slot **)map_find(&c->projects, k, false);
	}
	if (!slot || !*slot || (*slot)->missing) {
		struct rr_strbuf list = RR_STRBUF_INIT;
		for (size_t i = 0; i < c->nidx; i++)
			rr_strbuf_addf(&list, "%s%s", i ? ", " : "", c->idx[i].redacted);
		rr_fail(err, RR_E_NOTFOUND, "no index has a project named '%s' (looked in %s)", k,
			list.buf);
		rr_strbuf_release(&list);
		return RR_E_NOTFOUND;
	}
	*ret = &(*slot)->p;
	return RR_OK;
}

/* ---- core metadata ---- */

static struct meta_slot *meta_put(struct rr_index_client *c, const char *url, rr_err rc,
				  const char *msg, const char *text, size_t len)
{
	struct meta_slot **slot = (struct meta_slot **)map_find(&c->meta, url, true);
	struct meta_slot *ms = *slot ? *slot : rr_xcalloc(1, sizeof(*ms));

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

/* the sha256 of a spilled download, read back in pieces */
static rr_err check_sha_fd(const char *what_url, const char *want, int fd, rr_error *err)
{
	struct rr_sha256 h;
	unsigned char d[32];
	char got[65];
	char buf[65536];
	off_t off = 0;

	if (!want)
		return RR_OK;
	rr_sha256_init(&h);
	for (;;) {
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

static const char *dynamic_why(const char *text, size_t len)
{
	const char *why = NULL;

	return rr_dist_pkginfo_static(text, len, &why) ? NULL : why;
}

/* record the METADATA / PKG-INFO extracted from a file */
static void absorb_md(struct rr_index_client *c, const struct rr_index_file *f,
		      const struct rr_strbuf *md)
{
	const char *why;

	if (c->cache_dir && strncasecmp(f->url, "file:", 5) != 0) {
		/* the extract is small and the file immutable: remember it, not the file
		 * (a local file, from --find-links, may be rebuilt under the same name) */
		RR_AUTOFREE char *plain = NULL;
		struct rr_cache_entry ce = {
			.status = 200,
			.stored = (long long)time(NULL),
			.max_age = 10LL * 365 * 86400,
			.body = *md,
		};
		/* a page's own link may carry user:password: never into the entry */
		if (!rr_url_split_userinfo(f->url, &plain, NULL))
			plain = rr_url_redact(f->url);
		ce.url = plain;
		rr_cache_store_keyed(c->cache_dir, f->is_wheel ? "wheel-metadata" : "sdist-pkginfo",
				     f->url, &ce, NULL);
	}
	if (!f->is_wheel && (why = dynamic_why(md->buf, md->len))) {
		RR_AUTOFREE char *m = rr_xasprintf(
			"%s: the dependencies are only known after a build: %s", f->filename, why);
		meta_put(c, f->url, RR_E_UNSUPPORTED, m, NULL, 0);
		return;
	}
	meta_put(c, f->url, RR_OK, NULL, md->buf, md->len);
}

/* what reading a whole file (on disk or in memory) gave: RR_OK unless the data is bad */
static rr_err absorb_extract(struct rr_index_client *c, const struct rr_index_file *f, rr_err rc,
			     const struct rr_strbuf *md, rr_error *err)
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
	absorb_md(c, f, md);
	return RR_OK;
}

/* a whole download (spilled to a file); RR_OK unless the data is bad */
static rr_err absorb_file(struct rr_index_client *c, const struct rr_index_file *f, int fd,
			  rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;

	c->whole_files++;
	if ((rc = check_sha_fd(f->url, f->sha256, fd, err)))
		return rc;
	if (f->is_wheel)
		rc = rr_dist_wheel_metadata_fd(fd, f->filename, &md, err);
	else
		rc = rr_dist_sdist_pkginfo_fd(fd, f->filename, &md, err);
	return absorb_extract(c, f, rc, &md, err);
}

/*
 * Core metadata out of files, without PEP 658: a wheel is read with range
 * requests as uv does - its last 16 KiB (TAIL_BYTES: the end of the central
 * directory, usually the whole directory and, for a small wheel, METADATA),
 * then the central directory if it starts earlier, then only the METADATA
 * member - never the whole wheel. A server that ignores Range (200) or has no
 * Content-Range gets a whole download, streamed to an unlinked temp file and
 * read from there. A .zip sdist is read like a wheel (its member is
 * <top>/PKG-INFO). A .tar.gz has no directory: its first 60 KiB are asked for,
 * and PKG-INFO, which setuptools writes among the first members, is read out of
 * that truncated stream; only when it is not there does the whole file come.
 */
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
	absorb_md(c, j->f, &md);
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
static rr_err whole_in_range_ok(const struct dist_job *j, const struct get *g, const char *u,
				rr_error *err)
{
	char got[65];

	if (!j->f->sha256 || sha_matches(j->f->sha256, g->body.buf, g->body.len))
		return RR_OK;
	rr_sha256_hex(g->body.buf, g->body.len, got);
	return rr_fail(err, RR_E_DATA, "%s: sha256 mismatch: expected %s, got %s", u, j->f->sha256,
		       got);
}

static rr_err job_step(struct rr_index_client *c, struct dist_job *j, struct get *g, rr_error *err)
{
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (g->status == 200 && g->have_fd) {
		/* the whole file came: the server ignores Range, or we asked for it all */
		j->stage = ST_DONE;
		return absorb_file(c, j->f, g->fd, err);
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
			return absorb_extract(c, j->f, rc, &md, err);
		}
		if (rc) {
			/* not within the head (or cut off in it): the whole file decides */
			if (err)
				rr_error_release(err);
			j->stage = ST_WHOLE;
			return RR_OK;
		}
		absorb_md(c, j->f, &md);
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

static rr_err fetch_dists(struct rr_index_client *c, const struct rr_index_file *const *df,
			  size_t nd, rr_error *err)
{
	struct dist_job *jobs = rr_xcalloc(nd ? nd : 1, sizeof(*jobs));
	rr_err rc = RR_OK;

	for (size_t i = 0; i < nd && rc == RR_OK; i++) {
		jobs[i].f = df[i];
		jobs[i].what = df[i]->is_wheel ? "METADATA" : "PKG-INFO";
		jobs[i].stage = df[i]->is_wheel || is_zip_name(df[i]->filename) ? ST_TAIL : ST_HEAD;
		if (strncasecmp(df[i]->url, "file://", 7) == 0) {
			/* --find-links directory: read in place */
			RR_AUTOFREE char *path = percent_decode(df[i]->url + 7);
			int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			struct stat st;
			if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
				rc = rr_fail(err, RR_E_IO, "%s: %s", path,
					     fd < 0 ? strerror(errno) : "not a regular file");
			} else {
				rc = absorb_file(c, df[i], fd, err);
				c->whole_files--; /* nothing was downloaded */
			}
			if (fd >= 0)
				close(fd);
			jobs[i].stage = ST_DONE;
		}
	}
	/* a handful of rounds at most: tail, directory, member (twice), whole */
	for (int round = 0; round < 6 && rc == RR_OK; round++) {
		struct get *gs = rr_xcalloc(nd ? nd : 1, sizeof(*gs));
		size_t *who = rr_xcalloc(nd ? nd : 1, sizeof(*who));
		size_t ng = 0;

		for (size_t i = 0; i < nd; i++) {
			struct dist_job *j = &jobs[i];
			struct get *g = &gs[ng];
			if (j->stage == ST_DONE)
				continue;
			g->url = rr_xstrdup(j->f->url);
			g->userpwd = userpwd_for(c, j->f->url);
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
		get_batch(c, gs, ng);
		for (size_t k = 0; k < ng && rc == RR_OK; k++) {
			struct get *g = &gs[k];
			struct dist_job *j = &jobs[who[k]];
			int was = j->stage;
			if (g->rc != RR_OK) {
				rc = g->rc;
				if (err) {
					rr_error_release(err);
					*err = g->err;
					g->err = (rr_error)RR_ERROR_INIT;
				}
				break;
			}
			rc = job_step(c, j, g, err);
			if (rc == RR_OK && was == ST_WHOLE && j->stage != ST_DONE) {
				RR_AUTOFREE char *u = rr_url_redact(g->url);
				rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
			}
		}
		for (size_t k = 0; k < ng; k++)
			get_release(&gs[k]);
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

rr_err rr_index_fetch_metadata(struct rr_index_client *c, const struct rr_index_file *const *files,
			       size_t n, rr_error *err)
{
	struct get *mg = rr_xcalloc(n ? n : 1, sizeof(*mg));
	const struct rr_index_file **mf = rr_xcalloc(n ? n : 1, sizeof(*mf));
	const struct rr_index_file **df = rr_xcalloc(n ? n : 1, sizeof(*df));
	size_t nm = 0, nd = 0;
	rr_err rc = RR_OK;

	for (size_t i = 0; i < n; i++) {
		const struct rr_index_file *f = files[i];
		bool dup = map_find(&c->meta, f->url, false) != NULL;
		for (size_t j = 0; j < nm && !dup; j++)
			dup = mf[j] == f || strcmp(mf[j]->url, f->url) == 0;
		for (size_t j = 0; j < nd && !dup; j++)
			dup = df[j] == f || strcmp(df[j]->url, f->url) == 0;
		if (dup)
			continue;
		if (f->has_metadata) {
			mf[nm] = f;
			mg[nm].url = rr_xasprintf("%s.metadata", f->url);
			mg[nm].userpwd = userpwd_for(c, f->url);
			mg[nm].klass = "file";
			mg[nm].max_body = METADATA_MAX;
			mg[nm].cacheable = true;
			mg[nm].expect_sha256 = f->metadata_sha256;
			mg[nm].immutable = f->sha256 != NULL;
			nm++;
			continue;
		}
		/* an earlier run may have extracted it already */
		if (c->cache_dir) {
			struct rr_cache_entry ce = {.max_age = -1, .body = RR_STRBUF_INIT};
			if (rr_cache_load(c->cache_dir,
					  f->is_wheel ? "wheel-metadata" : "sdist-pkginfo", f->url,
					  &ce, NULL) == RR_OK) {
				const char *why = f->is_wheel ? NULL : dynamic_why(ce.body.buf, ce.body.len);
				c->cache_hits++;
				if (why) {
					RR_AUTOFREE char *m = rr_xasprintf(
						"%s: the dependencies are only known after a build: %s",
						f->filename, why);
					meta_put(c, f->url, RR_E_UNSUPPORTED, m, NULL, 0);
				} else {
					meta_put(c, f->url, RR_OK, NULL, ce.body.buf, ce.body.len);
				}
				rr_cache_entry_release(&ce);
				continue;
			}
			rr_cache_entry_release(&ce);
		}
		df[nd++] = f;
	}
	get_batch(c, mg, nm);
	for (size_t i = 0; i < nm; i++) {
		struct get *g = &mg[i];
		if (rc != RR_OK)
			break;
		if (g->rc != RR_OK) {
			rc = g->rc;
			if (err) {
				rr_error_release(err);
				*err = g->err;
				g->err = (rr_error)RR_ERROR_INIT;
			}
		} else if (g->status == 200) {
			meta_put(c, mf[i]->url, RR_OK, NULL, g->body.buf, g->body.len);
		} else if (g->status == 404 || g->status == 410) {
			/* advertised but absent: the file itself still has it */
			df[nd++] = mf[i];
		} else {
			RR_AUTOFREE char *u = rr_url_redact(g->url);
			rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
		}
	}
	if (rc == RR_OK && nd)
		rc = fetch_dists(c, df, nd, err);
	for (size_t i = 0; i < nm; i++)
		get_release(&mg[i]);
	free(mg);
	free(mf);
	free(df);
	return rc;
}

bool rr_index_metadata_known(const struct rr_index_client *c, const struct rr_index_file *f)
{
	return map_find((struct map *)&c->meta, f->url, false) != NULL;
}

rr_err rr_index_get_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			     const char **ret_text, size_t *ret_len, rr_error *err)
{
	struct meta_slot **slot = (struct meta_slot **)map_find(&c->meta, f->url, false);
	rr_err rc;

	if (!slot) {
		if ((rc = rr_index_fetch_metadata(c, &f, 1, err)))
			return rc;
		slot = (struct meta_slot **)map_find(&c->meta, f->url, false);
		if (!slot)
			return rr_fail(err, RR_E_INTERNAL, "%s: metadata not recorded", f->filename);
	}
	if ((*slot)->rc != RR_OK)
		return rr_fail(err, (*slot)->rc, "%s", (*slot)->msg);
	*ret_text = (*slot)->text.buf;
	if (ret_len)
		*ret_len = (*slot)->text.len;
	return RR_OK;
}

/*
 * pages.c - project pages (rr_index_fetch_projects, rr_index_get_project): every
 * project asked of the indexes in priority order (only what an index does not
 * have goes on to the next), the Warehouse JSON API beside a PyPI-like /simple/
 * when the page is missing, each answer parsed on a worker as it arrives (or its
 * digest loaded from the cache), the parse's digest stored in place of the page,
 * and the --find-links files joined in (client-private.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "index/client-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

/*
 * a page announced over this goes to an unlinked temporary file as it arrives, and
 * is parsed from a read-only mapping, where the pages of this size downloading
 * together would hold more than the client's page_memory (RR_INDEX_PAGE_MEMORY): a
 * ring's large pages (PyPI's pydantic-core, aiohttp, regex: 4-7 MB of JSON each)
 * held ~30 MB
 */
#define PAGE_SPILL_OVER (512u << 10)

static rr_err parse_body(struct rr_index_get *g, const char *data, size_t len,
			 const struct rr_index_src *s, bool jsonapi, struct rr_index_keep *keep,
			 struct rr_index_project *p, rr_error *err)
{
	const char *ct = g->content_type ? g->content_type : "";
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (jsonapi)
		return rr_index_parse_jsonapi(data, len, g->final_url, s->redacted, p, err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+json", 35) == 0)
		return rr_index_parse_json_keep(data, len, g->final_url, s->redacted, keep, p, err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+html", 35) == 0 ||
	    strncasecmp(ct, "text/html", 9) == 0)
		return rr_index_parse_html_keep(data, len, g->final_url, s->redacted, keep, p, err);
	return rr_fail(err, RR_E_HTTP, "%s: unexpected content type '%s'", u, ct);
}

/* the page as it came: in memory, or (a large one) spilled to a file and mapped */
static rr_err parse_page(struct rr_index_get *g, const struct rr_index_src *s, bool jsonapi,
			 struct rr_index_keep *keep, struct rr_index_project *p, rr_error *err)
{
	struct stat st;
	void *map;
	rr_err rc;

	if (!g->have_fd)
		return parse_body(g, g->body.buf, g->body.len, s, jsonapi, keep, p, err);
	if (fstat(g->fd, &st) != 0 || st.st_size <= 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, g->fd, 0)) ==
		    MAP_FAILED) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		return rr_fail(err, RR_E_IO, "%s: cannot read the downloaded page back: %s", u,
			       strerror(errno));
	}
	rc = parse_body(g, map, (size_t)st.st_size, s, jsonapi, keep, p, err);
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
static rr_err page_project(struct rr_index_client *c, struct rr_index_get *g,
			   const struct rr_index_src *s, bool jsonapi, struct rr_index_project *p,
			   rr_error *err)
{
	rr_err rc;

	if (g->content_type && strcmp(g->content_type, RR_INDEX_DIGEST_TYPE) == 0) {
		size_t len = 0;
		char *data = rr_strbuf_detach(&g->body, &len);
		rc = rr_index_parse_digest_take(data, len, g->final_url, s->redacted, p, err);
	} else {
		/* the wheels the target cannot install are left out as the page is read:
		 * the digest the cache keeps is the target's (page_klass says whose) */
		struct rr_index_keep keep = {.target = c->has_target ? &c->target : NULL,
					     .key = g->key,
					     .allow_file = s->local,
					     .name = RR_STRBUF_INIT,
					     .norm = RR_STRBUF_INIT};
		rc = parse_page(g, s, jsonapi, &keep, p, err);
		rr_index_keep_release(&keep);
		rr_strbuf_release(&g->body);
		if (rc == RR_OK)
			rr_index_project_drop_foreign(p);
		if (rc == RR_OK && g->store_pending && c->cache_dir) {
			/* the cache keeps every file the parse found; the entry goes to the
			 * writer as it is */
			rr_index_project_digest(p, &g->pending.body);
			g->pending.content_type = rr_xstrdup(RR_INDEX_DIGEST_TYPE);
			rr_index_store_later(c, g->klass, g->url, &g->pending);
		}
	}
	rr_strbuf_release(&g->body);
	rr_cache_entry_release(&g->pending);
	g->store_pending = false;
	/* what the page says is data, a digest from the cache's too: only this project's
	 * files, and local ones only from a local index */
	if (rc == RR_OK)
		rr_index_project_keep(p, g->key, s->local);
	if (rc == RR_OK && c->has_target)
		rr_index_project_keep_installable(p, &c->target);
	/* a parsed page's strings, of the files that stay, into one block (a digest's are
	 * in one already); here, not on the thread running transfers */
	if (rc == RR_OK)
		rr_index_project_pack(p);
	return rc;
}

/* the answer to a page request is in: parse it now, while the rest still download */
static void page_ready_as(struct rr_index_client *c, struct rr_index_get *g, bool jsonapi)
{
	if (g->rc != RR_OK || g->status != 200)
		return;
	g->prc = page_project(c, g, g->ready_ctx, jsonapi, &g->proj, &g->perr);
	g->parsed = true;
}

static void page_ready(struct rr_index_client *c, struct rr_index_get *g)
{
	page_ready_as(c, g, false);
}

static void api_ready(struct rr_index_client *c, struct rr_index_get *g)
{
	page_ready_as(c, g, true);
}

/* the project a page request yielded (parsed when it arrived) */
static rr_err take_project(struct rr_index_get *g, struct rr_index_project *p, rr_error *err)
{
	rr_err rc = g->prc;

	if (!g->parsed)
		return rr_fail(err, RR_E_INTERNAL, "page not parsed");
	*p = g->proj;
	memset(&g->proj, 0, sizeof(g->proj));
	if (rc)
		rr_error_move(err, &g->perr);
	return rc;
}

static void store_project(struct rr_index_client *c, const char *key,
			  const struct rr_index_src *s, struct rr_index_project *p)
{
	struct rr_index_proj_slot **slot;
	struct rr_index_proj_slot *ps;
	const char *where = s ? s->redacted : NULL;

	rr_index_fl_merge(c, key, p, &where);
	rr_index_project_pack(p);
	slot = (struct rr_index_proj_slot **)rr_strmap_find(&c->projects, key, true);
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

/*
 * One project's page, asked of the indexes in priority order: the Simple API
 * page, and beside a PyPI-like /simple/ the JSON API when the page is missing or
 * keeps failing; a 404 (or 410) everywhere leaves it known missing, any other
 * failure stops the search there and is what the project is known for.
 */
struct rr_index_page_job {
	char *key;
	size_t ix;
	int priority;
	bool guess;               /* asked as a prediction, and nobody else asked since */
	unsigned long long bytes; /* the answers' body bytes over the network */
	struct rr_index_get g;   /* the Simple API page */
	struct rr_index_get api; /* the JSON API document, when asked */
	bool api_on;
};

/* the project could not be had: err (moved) is what it is known for */
static void fail_project(struct rr_index_client *c, const char *key, rr_error *err)
{
	struct rr_index_proj_slot **slot =
		(struct rr_index_proj_slot **)rr_strmap_find(&c->projects, key, true);
	struct rr_index_proj_slot *ps = *slot ? *slot : rr_xcalloc(1, sizeof(*ps));

	ps->missing = true;
	if (!err->code)
		rr_fail(err, RR_E_INTERNAL, "%s: the project page was not obtained", key);
	rr_error_move(&ps->fail, err);
	*slot = ps;
}

static void page_start(struct rr_index_client *c, struct rr_index_page_job *j);

void rr_index_page_job_free(void *job)
{
	struct rr_index_page_job *j = job;

	if (!j)
		return;
	rr_index_get_release(&j->g);
	if (j->api_on)
		rr_index_get_release(&j->api);
	free(j->key);
	free(j);
}

static void page_finish(struct rr_index_client *c, struct rr_index_page_job *j)
{
	void **slot = rr_strmap_find(&c->page_jobs, j->key, false);
	struct rr_index_proj_slot **ps = (struct rr_index_proj_slot **)rr_strmap_find(
	    &c->projects, j->key, false);

	if (slot)
		*slot = NULL;
	if (ps && *ps) {
		(*ps)->guess = j->guess;
		(*ps)->bytes = j->bytes;
	}
	rr_index_get_release(&j->g);
	if (j->api_on)
		rr_index_get_release(&j->api);
	if (c->hooks.project) {
		c->hook_depth++;
		c->hooks.project(c->hooks.ctx, j->key);
		c->hook_depth--;
	}
	free(j->key);
	free(j);
}

/* the project an answer (from index s) holds, stored, or what it failed with; j done */
static void page_take(struct rr_index_client *c, struct rr_index_page_job *j,
		      struct rr_index_get *g, const struct rr_index_src *s)
{
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;

	if (take_project(g, &p, &err) == RR_OK)
		store_project(c, j->key, s, &p);
	else
		fail_project(c, j->key, &err);
	rr_index_project_release(&p);
	rr_error_release(&err);
	page_finish(c, j);
}

/* what the Simple API page said, the JSON API having had nothing better */
static void page_judge(struct rr_index_client *c, struct rr_index_page_job *j)
{
	struct rr_index_get *g = &j->g;
	rr_error err = RR_ERROR_INIT;

	if (g->rc == RR_E_LIMIT) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		rr_fail(&err, RR_E_LIMIT,
			"%s: the project page is larger than %zu MiB, far beyond any real "
			"index's; refused (a broken or hostile server?)",
			u, c->max_page >> 20);
	} else if (g->rc != RR_OK) {
		rr_index_get_take_error(g, &err);
	} else if (g->status == 404 || g->status == 410) {
		struct rr_index_project none = {0};
		if (++j->ix < c->nidx) {
			/* the next index in priority order may have it */
			rr_index_get_release(&j->g);
			if (j->api_on)
				rr_index_get_release(&j->api);
			j->api_on = false;
			page_start(c, j);
			return;
		}
		store_project(c, j->key, NULL, &none);
		page_finish(c, j);
		return;
	} else if (g->status != 200) {
		RR_AUTOFREE char *u = rr_url_redact(g->url);
		rr_fail(&err, RR_E_HTTP, "%s: HTTP %ld%s", u, g->status,
			g->status == 401 || g->status == 403 ? " (credentials missing or rejected)"
							     : "");
	} else {
		page_take(c, j, g, &c->idx[j->ix]);
		return;
	}
	fail_project(c, j->key, &err);
	page_finish(c, j);
}

static void api_done(struct rr_index_client *c, struct rr_index_get *a)
{
	struct rr_index_page_job *j = a->owner;

	j->bytes += (unsigned long long)a->fetch.body_size;
	if (a->rc != RR_OK || a->status != 200)
		page_judge(c, j);
	else
		page_take(c, j, a, &c->idx[j->ix]);
}

static void page_done(struct rr_index_client *c, struct rr_index_get *g)
{
	struct rr_index_page_job *j = g->owner;
	const struct rr_index_src *s = &c->idx[j->ix];
	bool gone = g->rc == RR_OK && (g->status == 404 || g->status == 410);

	j->bytes += (unsigned long long)g->fetch.body_size;
	if (s->pypi_like && (gone || g->rc == RR_E_HTTP)) {
		/* no Simple API page (or it keeps failing): PyPI-like hosts may still serve
		 * the JSON API next to it */
		struct rr_index_get *a = &j->api;
		memset(a, 0, sizeof(*a));
		a->url = rr_xasprintf("%s../pypi/%s/json", s->url, j->key);
		a->userpwd = s->userpwd;
		a->klass = "jsonapi";
		a->accept = "application/json";
		a->max_body = c->max_page;
		a->spill_over = PAGE_SPILL_OVER;
		a->cacheable = true;
		a->defer_store = true;
		a->ready = api_ready;
		a->ready_ctx = (void *)s;
		a->on_done = api_done;
		a->owner = j;
		a->key = j->key;
		a->priority = j->priority;
		j->api_on = true;
		rr_index_get_start(c, a);
		return;
	}
	page_judge(c, j);
}

/*
 * The page format, measured: JSON (PEP 691) says more (sizes, upload times) but
 * on some indexes takes far more bytes than HTML (PEP 503) for the same files
 * (this machine's mirror: numpy 1.93 MB against 1.47 MB, certifi 57 KB against
 * 39 KB, uncompressed); and asking for both with an Accept that prefers HTML got
 * JSON there. So pages are asked for as HTML (text/html, which every simple index
 * serves) while the first page asked of an index is asked twice with HEAD, with
 * each Accept; from the answer on, JSON when it is at least 5 % smaller. Pages do
 * not wait for the measure (the first page, and its HEADs, may be slow to come).
 * The choice is kept in the cache for a day.
 */
#define PAGES_KLASS "pages-format"
#define PAGES_TTL (24LL * 3600)

void rr_index_pages_load(struct rr_index_client *c, struct rr_index_src *s)
{
	struct rr_cache_entry e = {.max_age = -1, .body = RR_STRBUF_INIT};

	if (s->pages != RR_INDEX_PAGES_AUTO)
		return;
	if (rr_cache_load(c->cache_dir, PAGES_KLASS, s->url, &e, NULL) == RR_OK &&
	    (c->offline || rr_cache_fresh(&e, (long long)time(NULL))) && e.body.buf) {
		if (strcmp(e.body.buf, "html") == 0)
			s->pages = RR_INDEX_PAGES_HTML;
		else if (strcmp(e.body.buf, "json") == 0)
			s->pages = RR_INDEX_PAGES_JSON;
	}
	rr_cache_entry_release(&e);
}

void rr_index_probe_free(struct rr_index_src *s)
{
	if (!s->probe)
		return;
	rr_index_get_release(&s->probe[0]);
	rr_index_get_release(&s->probe[1]);
	s->probe = rr_free(s->probe);
}

static void probe_done(struct rr_index_client *c, struct rr_index_get *g)
{
	struct rr_index_src *s = g->owner;
	const struct rr_index_get *json, *html;
	bool smaller;

	if (--s->probe_left)
		return;
	json = &s->probe[0];
	html = &s->probe[1];
	smaller = json->rc == RR_OK && json->status == 200 && json->content_length > 0 &&
		  html->rc == RR_OK && html->status == 200 && html->content_length > 0 &&
		  json->content_length * 20 < html->content_length * 19;
	s->pages = smaller ? RR_INDEX_PAGES_JSON : RR_INDEX_PAGES_HTML;
	if (c->cache_dir) {
		struct rr_cache_entry e = {
		    .status = 200,
		    .stored = (long long)time(NULL),
		    .max_age = PAGES_TTL,
		    .body = RR_STRBUF_INIT,
		};
		rr_strbuf_adds(&e.body, smaller ? "json" : "html");
		e.url = rr_xstrdup(s->redacted);
		rr_index_store_later(c, PAGES_KLASS, s->url, &e);
	}
	rr_index_probe_free(s);
}

static void warm_done(struct rr_index_client *c, struct rr_index_get *g)
{
	(void)c;
	((struct rr_index_src *)g->owner)->warm = NULL;
	rr_index_get_release(g);
	free(g);
}

/*
 * connections opened before they are needed: PyPI serves its files from
 * files.pythonhosted.org, and the first METADATA range otherwise waits for that
 * connection's TLS handshake (0.1-0.7 s here) after the first page is in. A HEAD
 * of its root opens it while the index's own is set up.
 */
static void warm_hosts(struct rr_index_client *c, struct rr_index_src *s)
{
	RR_AUTOFREE char *realm = NULL;
	struct rr_index_get *g;

	if (s->warmed || c->offline)
		return;
	s->warmed = true;
	realm = rr_url_realm(s->url);
	if (!realm || strcmp(realm, "https://pypi.org:443") != 0)
		return;
	g = rr_xcalloc(1, sizeof(*g));
	g->url = rr_xstrdup("https://files.pythonhosted.org/");
	g->klass = "warm";
	g->head = true;
	g->max_body = 4096;
	g->priority = 4;
	g->on_done = warm_done;
	g->owner = s;
	s->warm = g; /* still out when the client is freed (nothing else asked): freed there */
	rr_index_get_start(c, g);
}

static void probe_start(struct rr_index_client *c, struct rr_index_src *s, const char *key)
{
	static const char *const accept[2] = {RR_INDEX_ACCEPT, RR_INDEX_ACCEPT_HTML};

	s->probe = rr_xcalloc(2, sizeof(*s->probe));
	s->probe_left = 2;
	s->probed = true;
	for (int i = 0; i < 2; i++) {
		struct rr_index_get *g = &s->probe[i];
		g->url = rr_xasprintf("%s%s/", s->url, key);
		g->userpwd = s->userpwd;
		g->klass = "probe";
		g->accept = accept[i];
		g->head = true;
		g->max_body = 4096;
		g->priority = 4;
		g->on_done = probe_done;
		g->owner = s;
	}
	rr_index_get_start(c, &s->probe[0]);
	rr_index_get_start(c, &s->probe[1]);
}

static void page_go(struct rr_index_client *c, struct rr_index_page_job *j)
{
	const struct rr_index_src *s = &c->idx[j->ix];
	struct rr_index_get *g = &j->g;

	memset(g, 0, sizeof(*g));
	g->url = rr_xasprintf("%s%s/", s->url, j->key);
	g->userpwd = s->userpwd;
	g->klass = c->page_klass;
	g->accept = s->pages == RR_INDEX_PAGES_JSON ? RR_INDEX_ACCEPT : RR_INDEX_ACCEPT_HTML;
	g->max_body = c->max_page;
	g->spill_over = PAGE_SPILL_OVER;
	g->cacheable = true;
	g->defer_store = true;
	g->ready = page_ready;
	g->ready_ctx = (void *)s;
	g->on_done = page_done;
	g->owner = j;
	g->key = j->key;
	g->priority = j->priority;
	g->guess = j->guess;
	rr_index_get_start(c, g);
}

static bool is_http(const char *u)
{
	return strncasecmp(u, "http://", 7) == 0 || strncasecmp(u, "https://", 8) == 0;
}

/* the page on index j->ix; the first one also starts the measure of the format */
static void page_start(struct rr_index_client *c, struct rr_index_page_job *j)
{
	struct rr_index_src *s = &c->idx[j->ix];

	warm_hosts(c, s);
	if (s->pages == RR_INDEX_PAGES_AUTO && !s->probe && !s->probed && !c->offline &&
	    is_http(s->url)) {
		/* a page still fresh in the cache needs no format */
		struct rr_cache_entry e = {.max_age = -1, .body = RR_STRBUF_INIT};
		RR_AUTOFREE char *url = rr_xasprintf("%s%s/", s->url, j->key);
		bool fresh = c->cache_dir &&
			     rr_cache_load(c->cache_dir, c->page_klass, url, &e, NULL) == RR_OK &&
			     rr_index_entry_fresh(c, &e, (long long)time(NULL));
		rr_cache_entry_release(&e);
		if (!fresh)
			probe_start(c, s, j->key);
	}
	page_go(c, j);
}

/* a page asked as a prediction is asked for by someone else: the guess was used */
static void claim(struct rr_index_client *c, struct rr_index_proj_slot *ps)
{
	if (ps && ps->guess) {
		ps->guess = false;
		c->guesses_used++;
	}
}

/* key (normalised) asked for unless it is known or under way; a guess only counts as
 * one while nobody else asks for it */
static void want_key(struct rr_index_client *c, const char *key, int priority, bool guess)
{
	struct rr_index_page_job **slot;
	struct rr_index_proj_slot **ps;
	rr_error err = RR_ERROR_INIT;

	if (!*key)
		return;
	if ((ps = (struct rr_index_proj_slot **)rr_strmap_find(&c->projects, key, false))) {
		if (!guess)
			claim(c, *ps);
		return;
	}
	slot = (struct rr_index_page_job **)rr_strmap_find(&c->page_jobs, key, true);
	if (*slot) {
		/* under way: someone waits for it now, ahead of what is merely crawled */
		struct rr_index_page_job *j = *slot;
		if (!guess && j->guess) {
			j->guess = false;
			c->guesses_used++;
		}
		if (priority > j->priority) {
			j->priority = priority;
			if (j->g.fetch.url)
				rr_fetch_prioritize(c->fetcher, &j->g.fetch, priority);
		}
		return;
	}
	if (rr_index_fl_load(c, &err) != RR_OK) {
		fail_project(c, key, &err);
		return;
	}
	*slot = rr_xcalloc(1, sizeof(**slot));
	(*slot)->key = rr_xstrdup(key);
	(*slot)->priority = priority;
	(*slot)->guess = guess;
	c->guesses += guess;
	page_start(c, *slot);
}

void rr_index_want_project(struct rr_index_client *c, const char *key, int priority)
{
	RR_AUTOFREE char *k = rr_name_normalize(key);

	want_key(c, k, priority, false);
}

void rr_index_guess_project(struct rr_index_client *c, const char *key)
{
	RR_AUTOFREE char *k = rr_name_normalize(key);

	want_key(c, k, 0, true);
}

unsigned long long rr_index_project_bytes(const struct rr_index_client *c, const char *key)
{
	struct rr_index_proj_slot **ps = (struct rr_index_proj_slot **)rr_strmap_find(
	    (struct rr_strmap *)&c->projects, key, false);

	return ps && *ps ? (*ps)->bytes : 0;
}

unsigned long long rr_index_guess_bytes_unused(const struct rr_index_client *c)
{
	unsigned long long n = 0;

	for (size_t i = 0; i < c->projects.cap; i++) {
		const struct rr_index_proj_slot *ps = c->projects.slots[i].val;
		if (c->projects.slots[i].key && ps && ps->guess)
			n += ps->bytes;
	}
	return n;
}

bool rr_index_project_known(const struct rr_index_client *c, const char *key)
{
	RR_AUTOFREE char *k = rr_name_normalize(key);

	return rr_strmap_find((struct rr_strmap *)&c->projects, k, false) != NULL;
}

struct keys_wait {
	struct rr_index_client *c;
	char **keys;
	size_t n;
};

static bool keys_in(void *ctx)
{
	struct keys_wait *w = ctx;

	for (size_t i = 0; i < w->n; i++)
		if (*w->keys[i] && !rr_strmap_find(&w->c->projects, w->keys[i], false))
			return false;
	return true;
}

rr_err rr_index_fetch_projects(struct rr_index_client *c, const char *const *keys, size_t n,
			       rr_error *err)
{
	struct keys_wait w = {c, rr_xcalloc(n ? n : 1, sizeof(char *)), n};
	rr_err rc = rr_index_fl_load(c, err);

	for (size_t i = 0; i < n; i++) {
		w.keys[i] = rr_name_normalize(keys[i]);
		if (rc == RR_OK)
			want_key(c, w.keys[i], 3, false);
	}
	if (rc == RR_OK && !keys_in(&w)) {
		if (c->hook_depth)
			rc = rr_fail(err, RR_E_INTERNAL, "index: a hook waited for a page");
		else
			rr_index_pump(c, keys_in, &w);
	}
	/* the first failure, in the order asked */
	for (size_t i = 0; i < n && rc == RR_OK; i++) {
		struct rr_index_proj_slot **slot =
			(struct rr_index_proj_slot **)rr_strmap_find(&c->projects, w.keys[i], false);
		if (slot && *slot && (*slot)->fail.code)
			rc = rr_index_error_copy(err, &(*slot)->fail);
	}
	for (size_t i = 0; i < n; i++)
		free(w.keys[i]);
	free(w.keys);
	return rc;
}

rr_err rr_index_get_project(struct rr_index_client *c, const char *key,
			    const struct rr_index_project **ret, rr_error *err)
{
	RR_AUTOFREE char *k = rr_name_normalize(key);
	struct rr_index_proj_slot **slot =
		(struct rr_index_proj_slot **)rr_strmap_find(&c->projects, k, false);
	rr_err rc;

	if (!slot) {
		if ((rc = rr_index_fetch_projects(c, &key, 1, err)))
			return rc;
		slot = (struct rr_index_proj_slot **)rr_strmap_find(&c->projects, k, false);
	}
	if (slot)
		claim(c, *slot);
	if (slot && *slot && (*slot)->fail.code) {
		c->failures_reused++; /* not asked again */
		return rr_index_error_copy(err, &(*slot)->fail);
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

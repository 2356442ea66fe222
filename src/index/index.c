/*
 * index.c - the index client: which index serves a project (first index
 * wins), page fetching through the cache, core metadata acquisition.
 *
 * Credentials: index URLs may carry user:password. They are split off at
 * construction; every URL we store or hand out is credential-free, and the
 * credentials are sent (as CURLOPT_USERPWD) only to the realm (scheme, host,
 * port) of the index they came with - also for file downloads on that realm.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/index-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/sha256.h"
#include "rocm-resolve/util.h"

#define PAGE_MAX (256u << 20)
#define METADATA_MAX (16u << 20)
#define DIST_MAX (2ull << 30)

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
	size_t cache_hits;
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
	free(c->cache_dir);
	rr_fetcher_free(c->fetcher);
	free(c);
	return NULL;
}

size_t rr_index_client_requests(const struct rr_index_client *c)
{
	return rr_fetcher_transfers(c->fetcher);
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
	/* out */
	rr_err rc;
	rr_error err;
	long status;
	char *content_type;
	char *final_url;
	struct rr_strbuf body;
	/* private */
	struct rr_cache_entry ce;
	bool have_ce;
	bool done;
	size_t fetch_i;
};

static void get_release(struct get *g)
{
	free(g->url);
	rr_error_release(&g->err);
	free(g->content_type);
	free(g->final_url);
	rr_strbuf_release(&g->body);
	rr_cache_entry_release(&g->ce);
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

static void get_batch(struct rr_index_client *c, struct get *gs, size_t n)
{
	long long now = (long long)time(NULL);
	struct rr_fetch *fs = rr_xcalloc(n ? n : 1, sizeof(*fs));
	size_t nf = 0;

	for (size_t i = 0; i < n; i++) {
		struct get *g = &gs[i];
		g->ce = (struct rr_cache_entry){.max_age = -1, .body = RR_STRBUF_INIT};
		rr_strbuf_init(&g->body);
		if (c->cache_dir && g->cacheable &&
		    rr_cache_load(c->cache_dir, g->klass, g->url, &g->ce, NULL) == RR_OK)
			g->have_ce = true;
		if (g->have_ce && (c->offline || (!c->refresh && rr_cache_fresh(&g->ce, now)))) {
			c->cache_hits++;
			take_entry(g);
			continue;
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
		};
		nf++;
	}
	if (nf)
		rr_fetch_run(c->fetcher, fs, nf);
	now = (long long)time(NULL);
	for (size_t i = 0; i < n; i++) {
		struct get *g = &gs[i];
		struct rr_fetch *f;
		long long max_age;
		bool no_store, no_cache;

		if (g->done)
			continue;
		f = &fs[g->fetch_i];
		g->done = true;
		if (f->rc != RR_OK) {
			g->rc = f->rc;
			g->err = f->err;
			f->err = (rr_error)RR_ERROR_INIT;
			continue;
		}
		rr_cache_control_parse(f->cache_control, &max_age, &no_store, &no_cache);
		if (f->status == 304 && g->have_ce) {
			/* revalidated: the stored body stands, with fresh freshness */
			g->ce.stored = now;
			if (f->cache_control) {
				g->ce.max_age = max_age;
				g->ce.no_cache = no_cache;
			}
			if (f->etag) {
				free(g->ce.etag);
				g->ce.etag = rr_xstrdup(f->etag);
			}
			if (c->cache_dir && !no_store)
				rr_cache_store(c->cache_dir, g->klass, &g->ce, NULL);
			take_entry(g);
			continue;
		}
		g->status = f->status;
		g->content_type = RR_STEAL(f->content_type);
		g->final_url = f->effective_url ? RR_STEAL(f->effective_url) : rr_xstrdup(g->url);
		g->body = f->body;
		rr_strbuf_init(&f->body);
		g->rc = RR_OK;
		if (c->cache_dir && g->cacheable && !no_store && (f->status == 200 || f->status == 404)) {
			struct rr_cache_entry ne = {
				.status = f->status,
				.etag = f->etag,
				.last_modified = f->last_modified,
				.content_type = g->content_type,
				.url = g->url,
				.final_url = g->final_url,
				.stored = now,
				.max_age = max_age,
				.no_cache = no_cache,
				.body = g->body,
			};
			/* a cache we cannot write is a slower run, not a failed one */
			rr_cache_store(c->cache_dir, g->klass, &ne, NULL);
		}
	}
	for (size_t i = 0; i < nf; i++)
		rr_fetch_release(&fs[i]);
	free(fs);
}

/* ---- project pages ---- */

static rr_err parse_page(struct get *g, const struct index_src *s, bool jsonapi,
			 struct rr_index_project *p, rr_error *err)
{
	const char *ct = g->content_type ? g->content_type : "";
	RR_AUTOFREE char *u = rr_url_redact(g->url);

	if (jsonapi)
		return rr_index_parse_jsonapi(g->body.buf, g->body.len, g->final_url, s->redacted,
					      p, err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+json", 35) == 0)
		return rr_index_parse_json(g->body.buf, g->body.len, g->final_url, s->redacted, p,
					   err);
	if (strncasecmp(ct, "application/vnd.pypi.simple.v1+html", 35) == 0 ||
	    strncasecmp(ct, "text/html", 9) == 0)
		return rr_index_parse_html(g->body.buf, g->body.len, g->final_url, s->redacted, p,
					   err);
	return rr_fail(err, RR_E_HTTP, "%s: unexpected content type '%s'", u, ct);
}

static void store_project(struct rr_index_client *c, const char *key, const struct index_src *s,
			  struct rr_index_project *p)
{
	struct proj_slot **slot = (struct proj_slot **)map_find(&c->projects, key, true);
	struct proj_slot *ps = *slot ? *slot : rr_xcalloc(1, sizeof(*ps));

	rr_index_project_release(&ps->p);
	ps->p = *p;
	memset(p, 0, sizeof(*p));
	free(ps->p.key);
	ps->p.key = rr_xstrdup(key);
	free(ps->p.index_url);
	ps->p.index_url = s ? rr_xstrdup(s->redacted) : NULL;
	ps->missing = s == NULL;
	*slot = ps;
}

rr_err rr_index_fetch_projects(struct rr_index_client *c, const char *const *keys, size_t n,
			       rr_error *err)
{
	char **pending = rr_xcalloc(n ? n : 1, sizeof(*pending));
	size_t np = 0;
	rr_err rc = RR_OK;

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
			gs[i].max_body = PAGE_MAX;
			gs[i].cacheable = true;
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
				api[napi].max_body = PAGE_MAX;
				api[napi].cacheable = true;
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
				    (rc = parse_page(alt, s, true, &p, err)) == RR_OK)
					store_project(c, pending[i], s, &p);
				rr_index_project_release(&p);
				free(pending[i]);
				continue;
			}
			if (rc != RR_OK) {
				free(pending[i]);
				continue;
			}
			if (g->rc != RR_OK) {
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
			} else if ((rc = parse_page(g, s, false, &p, err)) == RR_OK) {
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

static rr_err check_sha(const char *what_url, const char *want, const void *data, size_t len,
			rr_error *err)
{
	char got[65];

	if (!want)
		return RR_OK;
	rr_sha256_hex(data, len, got);
	if (strcmp(got, want) != 0) {
		RR_AUTOFREE char *u = rr_url_redact(what_url);
		return rr_fail(err, RR_E_DATA, "%s: sha256 mismatch: expected %s, got %s", u, want,
			       got);
	}
	return RR_OK;
}

/* record what a wheel/sdist/metadata body yields; RR_OK unless the data is bad */
static rr_err absorb_dist(struct rr_index_client *c, const struct rr_index_file *f,
			  const struct rr_strbuf *body, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf md = RR_STRBUF_INIT;
	rr_err rc;
	const char *why = NULL;

	if ((rc = check_sha(f->url, f->sha256, body->buf, body->len, err)))
		return rc;
	if (f->is_wheel)
		rc = rr_dist_wheel_metadata(body->buf, body->len, f->filename, &md, err);
	else
		rc = rr_dist_sdist_pkginfo(body->buf, body->len, f->filename, &md, err);
	if (rc)
		return rc;
	if (c->cache_dir) {
		/* the extract is small and the file immutable: remember it, not the file */
		struct rr_cache_entry ce = {
			.status = 200,
			.url = f->url,
			.stored = (long long)time(NULL),
			.max_age = 10LL * 365 * 86400,
			.body = md,
		};
		rr_cache_store(c->cache_dir, f->is_wheel ? "wheel-metadata" : "sdist-pkginfo", &ce,
			       NULL);
	}
	if (!f->is_wheel && !rr_dist_pkginfo_static(md.buf, md.len, &why)) {
		RR_AUTOFREE char *m = rr_xasprintf(
			"%s: the dependencies are only known after a build: %s", f->filename, why);
		meta_put(c, f->url, RR_E_UNSUPPORTED, m, NULL, 0);
		return RR_OK;
	}
	meta_put(c, f->url, RR_OK, NULL, md.buf, md.len);
	return RR_OK;
}

rr_err rr_index_fetch_metadata(struct rr_index_client *c, const struct rr_index_file *const *files,
			       size_t n, rr_error *err)
{
	struct get *mg = rr_xcalloc(n ? n : 1, sizeof(*mg));
	struct get *dg = rr_xcalloc(n ? n : 1, sizeof(*dg));
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
			nm++;
			continue;
		}
		/* an earlier run may have extracted it already */
		if (c->cache_dir) {
			struct rr_cache_entry ce = {.max_age = -1, .body = RR_STRBUF_INIT};
			if (rr_cache_load(c->cache_dir,
					  f->is_wheel ? "wheel-metadata" : "sdist-pkginfo", f->url,
					  &ce, NULL) == RR_OK) {
				const char *why = NULL;
				if (!f->is_wheel && !rr_dist_pkginfo_static(ce.body.buf, ce.body.len, &why)) {
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
			rc = check_sha(g->url, mf[i]->metadata_sha256, g->body.buf, g->body.len, err);
			if (rc == RR_OK)
				meta_put(c, mf[i]->url, RR_OK, NULL, g->body.buf, g->body.len);
		} else if (g->status == 404 || g->status == 410) {
			/* advertised but absent: the file itself still has it */
			df[nd++] = mf[i];
		} else {
			RR_AUTOFREE char *u = rr_url_redact(g->url);
			rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
		}
	}
	if (rc == RR_OK) {
		for (size_t i = 0; i < nd; i++) {
			dg[i].url = rr_xstrdup(df[i]->url);
			dg[i].userpwd = userpwd_for(c, df[i]->url);
			dg[i].klass = "dist";
			dg[i].max_body = DIST_MAX;
			dg[i].cacheable = false;
		}
		get_batch(c, dg, nd);
		for (size_t i = 0; i < nd && rc == RR_OK; i++) {
			struct get *g = &dg[i];
			if (g->rc != RR_OK) {
				rc = g->rc;
				if (err) {
					rr_error_release(err);
					*err = g->err;
					g->err = (rr_error)RR_ERROR_INIT;
				}
			} else if (g->status != 200) {
				RR_AUTOFREE char *u = rr_url_redact(g->url);
				rc = rr_fail(err, RR_E_HTTP, "%s: HTTP %ld", u, g->status);
			} else {
				rc = absorb_dist(c, df[i], &g->body, err);
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		get_release(&mg[i]);
		get_release(&dg[i]);
	}
	free(mg);
	free(dg);
	free(mf);
	free(df);
	return rc;
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

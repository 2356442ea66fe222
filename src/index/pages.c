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
#include <unistd.h>

#include "index/client-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

/*
 * a page announced over this goes to an unlinked temporary file as it arrives and
 * is parsed from a read-only mapping: a ring's large pages (PyPI's pydantic-core,
 * aiohttp, regex: 4-7 MB of JSON each) downloading together held ~30 MB of heap
 */
#define PAGE_SPILL_OVER (512u << 10)

static rr_err parse_body(struct rr_index_get *g, const char *data, size_t len,
			 const struct rr_index_src *s, bool jsonapi, struct rr_index_project *p,
			 rr_error *err)
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
static rr_err parse_page(struct rr_index_get *g, const struct rr_index_src *s, bool jsonapi,
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
	/* what the page says is data, a digest from the cache's too: only this project's
	 * files, and local ones only from a local index */
	if (rc == RR_OK)
		rr_index_project_keep(p, g->key, s->local);
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

rr_err rr_index_fetch_projects(struct rr_index_client *c, const char *const *keys, size_t n,
			       rr_error *err)
{
	char **pending;
	size_t np = 0;
	rr_err rc = rr_index_fl_load(c, err);

	if (rc)
		return rc;
	pending = rr_xcalloc(n ? n : 1, sizeof(*pending));

	for (size_t i = 0; i < n; i++) {
		char *k = rr_name_normalize(keys[i]);
		bool dup = !*k || rr_strmap_find(&c->projects, k, false);
		for (size_t j = 0; j < np && !dup; j++)
			dup = strcmp(pending[j], k) == 0;
		if (dup)
			free(k);
		else
			pending[np++] = k;
	}
	/* index by index, in priority order: only what is still missing goes on */
	for (size_t ix = 0; ix < c->nidx && np && rc == RR_OK; ix++) {
		const struct rr_index_src *s = &c->idx[ix];
		struct rr_index_get *gs = rr_xcalloc(np, sizeof(*gs));
		struct rr_index_get *api = NULL;
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
			gs[i].key = pending[i];
		}
		rr_index_get_batch(c, gs, np);
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
				api[napi].key = pending[i];
				api[napi].fetch_i = i; /* reused as a back-reference */
				napi++;
			}
			{
				/* rr_index_get_batch resets fetch_i; keep the mapping aside */
				size_t *back = rr_xcalloc(napi ? napi : 1, sizeof(*back));
				for (size_t j = 0; j < napi; j++)
					back[j] = api[j].fetch_i;
				rr_index_get_batch(c, api, napi);
				for (size_t j = 0; j < napi; j++)
					api[j].fetch_i = back[j];
				free(back);
			}
		}
		for (size_t i = 0; i < np; i++) {
			struct rr_index_get *g = &gs[i];
			struct rr_index_get *alt = NULL;
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
				rc = rr_index_get_take_error(g, err);
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
			rr_index_get_release(&api[i]);
		free(api);
		for (size_t i = 0; i < ngs; i++)
			rr_index_get_release(&gs[i]);
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
	struct rr_index_proj_slot **slot =
		(struct rr_index_proj_slot **)rr_strmap_find(&c->projects, k, false);
	rr_err rc;

	if (!slot) {
		if ((rc = rr_index_fetch_projects(c, &key, 1, err)))
			return rc;
		slot = (struct rr_index_proj_slot **)rr_strmap_find(&c->projects, k, false);
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

/*
 * client.c - the index client (include/rocm-resolve/index.h): which indexes, in
 * which order (first index wins), with which credentials, the cache directory,
 * the options and the statistics. Its other rooms are listed in client-private.h.
 *
 * Credentials: index URLs may carry user:password. They are split off at
 * construction; every URL we store or hand out is credential-free, and the
 * credentials are sent (as CURLOPT_USERPWD) only to the realm (scheme, host,
 * port) of the index they came with - also for file downloads on that realm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "index/client-private.h"
#include "rocm-resolve/util.h"

void rr_index_bind(void)
{
	(void)rr_curl_load(NULL);
}

rr_err rr_index_client_new(const struct rr_index_opts *o, struct rr_index_client **ret,
			   rr_error *err)
{
	struct rr_index_client *c;
	rr_err rc;
	struct rr_fetch_opts fo = {
	    .timeout_ms = o->timeout_ms,
	    .retries = o->retries == 0 ? 3 : o->retries,
	    .max_parallel = o->max_parallel,
	    .user_agent = o->user_agent ? o->user_agent : "rocm-resolve/" RR_VERSION,
	    .ca_file = o->ca_file,
	    .ca_dir = o->ca_dir,
	    .sysroot = o->sysroot,
	    .spill_memory = o->page_memory ? o->page_memory : RR_INDEX_PAGE_MEMORY,
	    .observe = o->observe,
	    .observe_ctx = o->observe_ctx,
	};

	if (o->nindex_urls == 0)
		return rr_fail(err, RR_E_USAGE, "no index URL given");
	/* first, so a missing libcurl is not mistaken for a bad URL below */
	if (rr_curl_load(err) != RR_OK)
		return RR_E_ENV;
	c = rr_xcalloc(1, sizeof(*c));
	snprintf(c->page_klass, sizeof(c->page_klass), "simple");
	if (o->target) {
		c->has_target = true;
		c->target = *o->target;
		snprintf(c->page_klass, sizeof(c->page_klass),
			 "simple for cp%u.%u %.32s glibc %u.%u", c->target.py_major,
			 c->target.py_minor, c->target.machine, c->target.glibc_major,
			 c->target.glibc_minor);
	}
	c->idx = rr_xcalloc(o->nindex_urls, sizeof(*c->idx));
	for (size_t i = 0; i < o->nindex_urls; i++) {
		struct rr_index_src *s = &c->idx[c->nidx];
		char *plain = NULL;
		size_t n;
		s->redacted = rr_url_redact(o->index_urls[i]);
		rr_url_split_userinfo(o->index_urls[i], &plain, &s->userpwd);
		if (!(s->realm = rr_url_realm(plain))) {
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
		s->local = strncasecmp(s->url, "file:", 5) == 0;
		s->pages = o->pages;
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
	for (size_t i = 0; i < c->nidx && c->cache_dir; i++)
		rr_index_pages_load(c, &c->idx[i]);
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
	c->deadline_ms = o->deadline_ms;
	if (o->retries < 0)
		fo.retries = 0;
	if ((rc = rr_fetcher_new(&fo, &c->fetcher, err)) != RR_OK) {
		rr_index_client_free(c);
		return rc;
	}
	*ret = c;
	return RR_OK;
}

static void free_proj_slot(void *v)
{
	struct rr_index_proj_slot *ps = v;

	rr_index_project_release(&ps->p);
	rr_error_release(&ps->fail);
	free(ps);
}

static void free_meta_slot(void *v)
{
	struct rr_index_meta_slot *ms = v;

	free(ms->msg);
	rr_strbuf_release(&ms->text);
	rr_error_release(&ms->fail);
	free(ms);
}

static void free_fail_slot(void *v)
{
	struct rr_index_fail_slot *fs = v;

	free(fs->msg);
	free(fs);
}

struct rr_index_client *rr_index_client_free(struct rr_index_client *c)
{
	if (!c)
		return NULL;
	/* work under way is dropped: the workers stop, then the transfers, then the jobs */
	rr_index_pool_free(c);
	c->fetcher = rr_fetcher_free(c->fetcher);
	rr_strmap_release(&c->page_jobs, rr_index_page_job_free);
	rr_strmap_release(&c->meta_jobs, rr_index_meta_job_free);
	for (size_t i = 0; i < c->nidx; i++) {
		if (c->idx[i].warm) {
			rr_index_get_release(c->idx[i].warm);
			free(c->idx[i].warm);
		}
		rr_index_probe_free(&c->idx[i]);
		free(c->idx[i].url);
		free(c->idx[i].redacted);
		free(c->idx[i].userpwd);
		free(c->idx[i].realm);
	}
	free(c->idx);
	rr_strmap_release(&c->projects, free_proj_slot);
	rr_strmap_release(&c->meta, free_meta_slot);
	rr_strmap_release(&c->failed, free_fail_slot);
	rr_strmap_release(&c->tail_hints, free);
	for (size_t i = 0; i < c->nfl; i++) {
		free(c->fl[i]);
		free(c->fl_redacted[i]);
	}
	free(c->fl);
	free(c->fl_redacted);
	rr_index_project_release(&c->fl_files);
	free(c->cache_dir);
	free(c);
	return NULL;
}

void rr_index_client_hooks(struct rr_index_client *c, const struct rr_index_hooks *h)
{
	c->hooks = h ? *h : (struct rr_index_hooks){0};
}

void rr_index_wait_all(struct rr_index_client *c)
{
	if (!c->hook_depth)
		rr_index_pump(c, NULL, NULL);
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
	    .guesses = c->guesses,
	    .guesses_used = c->guesses_used,
	    .guess_bytes_unused = rr_index_guess_bytes_unused(c),
	};
}

bool rr_index_client_pypi(const struct rr_index_client *c)
{
	for (size_t i = 0; i < c->nidx; i++)
		if (strcmp(c->idx[i].url, "https://pypi.org/simple/") == 0)
			return true;
	return false;
}

/* notes are cache entries of their own class, filed under a name no URL can be */
#define NOTE_KLASS "note"

rr_err rr_index_note_load(struct rr_index_client *c, const char *name, struct rr_strbuf *out,
			  rr_error *err)
{
	struct rr_cache_entry e = {.max_age = -1, .body = RR_STRBUF_INIT};
	RR_AUTOFREE char *key = rr_xasprintf("rocm-resolve:%s", name);
	rr_err rc;

	if (!c->cache_dir)
		return rr_fail(err, RR_E_NOTFOUND, "no cache");
	rc = rr_cache_load(c->cache_dir, NOTE_KLASS, key, &e, err);
	if (rc == RR_OK) {
		rr_strbuf_release(out);
		*out = e.body;
		rr_strbuf_init(&e.body);
	}
	rr_cache_entry_release(&e);
	return rc;
}

void rr_index_note_store(struct rr_index_client *c, const char *name, const char *text, size_t len)
{
	struct rr_cache_entry e = {
	    .status = 200,
	    .stored = (long long)time(NULL),
	    .max_age = -1,
	    .body = RR_STRBUF_INIT,
	};

	if (!c->cache_dir || c->offline)
		return;
	e.url = rr_xasprintf("rocm-resolve:%s", name);
	rr_strbuf_add(&e.body, text, len);
	rr_index_store_later(c, NOTE_KLASS, e.url, &e);
}

long long rr_index_now_ms(void)
{
	return rr_fetch_now_ms();
}

const char *rr_index_userpwd_for(struct rr_index_client *c, const char *url)
{
	RR_AUTOFREE char *realm = rr_url_realm(url);

	for (size_t i = 0; realm && i < c->nidx; i++)
		if (c->idx[i].userpwd && strcmp(c->idx[i].realm, realm) == 0)
			return c->idx[i].userpwd;
	return NULL;
}

rr_err rr_index_error_copy(rr_error *dst, const rr_error *src)
{
	if (src->path || src->line || src->text)
		return rr_fail_at(dst, src->code, src->path, src->line, src->col, src->text, "%s",
				  src->msg ? src->msg : "");
	return rr_fail(dst, src->code, "%s", src->msg ? src->msg : "");
}

/*
 * client-private.h - what the rooms of the index client (struct rr_index_client,
 * include/rocm-resolve/index.h) share. Only the client's own files include it:
 *
 *   client.c      the client: index list, credentials per realm, cache directory,
 *                 options, statistics
 *   get.c         GET through the cache: freshness, revalidation, hash checks,
 *                 failures remembered for the run, a worker pool that works on
 *                 answers while the rest downloads; the client's loop (pump)
 *   pages.c       project pages: index by index in priority order, the JSON API
 *                 beside a PyPI-like /simple/, parse or load the digest, what a
 *                 page may list (rr_index_project_keep)
 *   find-links.c  --find-links: local directories and flat HTML pages, merged
 *                 into their project
 *   metadata.c    core metadata: PEP 658 files, extracts kept in the cache, local
 *                 files read in place, what an extract says (static or dynamic)
 *   ranges.c      core metadata out of remote dists by range requests (the tail,
 *                 the central directory, the member; a .tar.gz's head)
 *   members.c     a remote wheel's shared libraries by range requests
 *
 * Below them: fetch.c (libcurl), cache.c (the entry format), the page readers
 * (index-private.h), dist.c and zipread.c (archives).
 */
#ifndef RR_INDEX_CLIENT_PRIVATE_H
#define RR_INDEX_CLIENT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "index/index-private.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/tags.h"

/* ---- client.c ---- */

struct rr_index_page_job;
struct rr_index_get;

struct rr_index_src {
	char *url;      /* credential-free, ends with '/' */
	char *redacted; /* as given, userinfo replaced */
	char *userpwd;  /* or NULL */
	char *realm;
	bool pypi_like; /* path ends in /simple/: the JSON API may sit beside it */
	bool local;     /* a file:// index: its pages may link local files */
	/* pages.c: the format its pages are asked in (AUTO until measured) */
	enum rr_index_pages pages;
	struct rr_index_get *probe;      /* the two HEADs measuring it, while they run */
	int probe_left;
	bool probed;                     /* measured (or measuring) in this run */
	bool warmed;                     /* its hosts were connected to (pages.c) */
	struct rr_index_get *warm;       /* that connection's request while it is out */
};

struct rr_index_proj_slot {
	bool missing;
	rr_error fail; /* fail.code: the page could not be had, and why */
	struct rr_index_project p;
	bool guess;               /* asked as a prediction only: nobody else asked for it yet */
	unsigned long long bytes; /* its page's body bytes over the network in this run */
};

struct rr_index_meta_slot {
	rr_err rc;
	char *msg;
	struct rr_strbuf text;
	rr_error fail; /* fail.code: it could not be had, and why (rc is then fail.code) */
};

struct rr_index_fail_slot {
	rr_err rc;
	char *msg;
};

struct rr_index_client {
	struct rr_index_src *idx;
	size_t nidx;
	char *cache_dir; /* NULL: no cache */
	bool offline, refresh;
	bool has_target; /* target: what the resolution installs into (rr_index_opts.target) */
	struct rr_target target;
	/* the cache class of project pages: their digests hold only what the target can
	 * install, so each target has its own ("simple" without one) */
	char page_klass[96];
	struct rr_fetcher *fetcher;
	struct rr_strmap projects; /* key -> struct rr_index_proj_slot */
	struct rr_strmap meta;     /* file url -> struct rr_index_meta_slot */
	struct rr_strmap failed;   /* url -> struct rr_index_fail_slot: failed this run, not
				    * asked again */
	char **fl;                 /* find-links locations as given */
	char **fl_redacted;
	size_t nfl;
	bool fl_loaded;
	struct rr_index_project fl_files; /* every file the locations list */
	size_t max_page;
	long long heuristic_ttl;
	/* the --timeout deadline (rr_fetch_now_ms time, 0: none): it bounds the hashing and
	 * reading of what arrived as well as the transfers */
	long long deadline_ms;
	size_t cache_hits, revalidated, range_requests, whole_files, failures_reused;
	size_t pages_spilled;
	size_t guesses, guesses_used; /* pages asked as predictions; those asked for since */
	/* asynchronous work */
	struct rr_index_pool *pool; /* get.c: the workers and the finished queue */
	size_t gets_open;           /* started, their owner not told yet */
	struct rr_strmap page_jobs; /* key -> struct rr_index_page_job under way */
	struct rr_strmap meta_jobs; /* file url -> struct rr_index_meta_job under way */
	struct rr_strmap tail_hints; /* project -> what its last wheel read taught (ranges.c) */
	struct rr_index_hooks hooks;
	int hook_depth;             /* inside a hook: nothing may wait */
};

/* dst becomes a copy of src (origin included); returns its code */
rr_err rr_index_error_copy(rr_error *dst, const rr_error *src);

/* credentials for a URL: those of the first index on the same realm */
const char *rr_index_userpwd_for(struct rr_index_client *c, const char *url);

/* ---- get.c ---- */

struct rr_index_pool;

struct rr_index_get {
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
	bool spill_partial; /* with spill, so does a 206 body */
	size_t spill_over; /* so does one announced larger than this */
	bool defer_store; /* a fresh 200 is not stored: the caller stores what it made of it */
	bool speculative; /* a guess: its failure says nothing about the URL's other requests,
			   * and it is not retried (a step of the same file may wait for it) */
	bool guess;       /* a page asked as a prediction (rr_fetch.guess: told, nothing else) */
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
	long long content_length; /* as announced (a HEAD's answer), -1 */
	struct rr_cache_entry pending; /* defer_store: the entry to store, body left out */
	bool store_pending;
	bool head;       /* HEAD: headers only */
	int priority;    /* rr_fetch.priority */
	/* optional: called once the answer is settled (fetched or from the cache), on a
	 * worker, while the rest still downloads; an answer of at most 64 KiB in memory
	 * on the thread that settled it, at once (get.c, INLINE_READY_MAX) */
	void (*ready)(struct rr_index_client *c, struct rr_index_get *g);
	void *ready_ctx;
	/* called on the client's thread, from rr_index_pump, once the answer is settled
	 * and ready has run; it may start more gets, and release g */
	void (*on_done)(struct rr_index_client *c, struct rr_index_get *g);
	void *owner;
	struct rr_index_client *client;
	bool settled;
	/* pages: parsed by ready as soon as they arrive (pages.c) */
	const char *key; /* the project asked for */
	struct rr_index_project proj;
	rr_err prc;
	rr_error perr;
	bool parsed;
	/* private */
	struct rr_cache_entry ce;
	bool have_ce;
	bool done;
	struct rr_fetch fetch;
};

/* start g (filled in): answered from the cache at once, else fetched; g must stay where it
 * is until its on_done has run */
void rr_index_get_start(struct rr_index_client *c, struct rr_index_get *g);
/*
 * the client's loop: runs the transfers and hands finished gets to their owners
 * (on_done, which may start more) until until(ctx) holds (true) or nothing is
 * under way any more (false). until NULL: until nothing is.
 */
bool rr_index_pump(struct rr_index_client *c, bool (*until)(void *ctx), void *ctx);
/* every request of the batch answered (from the cache or the network), each with its
 * own rc/err; ready callbacks have all run when it returns */
void rr_index_get_batch(struct rr_index_client *c, struct rr_index_get *gs, size_t n);
/* store e (taken: its strings and body become the store's) under (klass, key_url) on the
 * writer thread, soon; klass must be a string constant. Callable from any thread */
void rr_index_store_later(struct rr_index_client *c, const char *klass, const char *key_url,
			  struct rr_cache_entry *e);
/* the workers stopped (rr_index_client_free) */
void rr_index_pool_free(struct rr_index_client *c);
void rr_index_get_release(struct rr_index_get *g);
/* g's error moved into err (which may be NULL); returns g->rc */
rr_err rr_index_get_take_error(struct rr_index_get *g, rr_error *err);
bool rr_index_sha_matches(const char *want, const void *data, size_t len);
/* a cache entry answers without asking (its freshness, the client's window, --offline,
 * --refresh) */
bool rr_index_entry_fresh(const struct rr_index_client *c, const struct rr_cache_entry *e,
			  long long now);

/* ---- pages.c: the bytes of the pages asked as predictions that nobody else asked for ---- */
unsigned long long rr_index_guess_bytes_unused(const struct rr_index_client *c);

/* ---- pages.c: the page format an earlier run measured (the cache), a probe dropped ---- */
void rr_index_pages_load(struct rr_index_client *c, struct rr_index_src *s);
void rr_index_probe_free(struct rr_index_src *s);

/* ---- pages.c, metadata.c: work under way, dropped (client free) ---- */
void rr_index_page_job_free(void *job);
void rr_index_meta_job_free(void *job);

/* ---- find-links.c ---- */

/* the files every location lists, read once (the first call) */
rr_err rr_index_fl_load(struct rr_index_client *c, rr_error *err);
/* a project's files from the find-links locations join those of its index;
 * *index_url is set to the first location's when it is NULL and one joins */
void rr_index_fl_merge(struct rr_index_client *c, const char *key, struct rr_index_project *p,
		       const char **index_url);

/* ---- metadata.c ---- */

/* record the METADATA / PKG-INFO extracted from a file (and keep it in the cache) */
void rr_index_meta_absorb(struct rr_index_client *c, const struct rr_index_file *f,
			  const struct rr_strbuf *md);
/* what reading a whole file (on disk or in memory) gave: RR_OK unless the data is bad */
rr_err rr_index_meta_absorb_extract(struct rr_index_client *c, const struct rr_index_file *f,
				    rr_err rc, const struct rr_strbuf *md, rr_error *err);
/* a whole file (a spilled download, or a local file): its hash checked, its metadata read */
rr_err rr_index_meta_absorb_file(struct rr_index_client *c, const struct rr_index_file *f,
				 int fd, rr_error *err);

/* an error reading f's archive names where it came from: its URL (redacted) in place
 * of the bare filename the archive readers put first */
void rr_index_blame_url(rr_error *err, const struct rr_index_file *f);

/* ---- ranges.c ---- */

/* the metadata of one remote file without PEP 658 (the cache had none either), a
 * step at a time: request fills g (to be started), answer takes its answer */
struct rr_index_dist_job;
struct rr_index_dist_job *rr_index_dist_job_new(struct rr_index_client *c,
					       const struct rr_index_file *f);
struct rr_index_dist_job *rr_index_dist_job_free(struct rr_index_dist_job *j);
void rr_index_dist_job_request(struct rr_index_client *c, struct rr_index_dist_job *j,
			       struct rr_index_get *g);
/* RR_OK and *done once the metadata (or that it is unknown) is recorded; RR_OK and not
 * *done: the next step is to be asked for */
rr_err rr_index_dist_job_answer(struct rr_index_client *c, struct rr_index_dist_job *j,
				struct rr_index_get *g, bool *done, rr_error *err);
/* a guess beside the first step (SPEC_HEAD_BYTES, ranges.c): true when g is filled with
 * a request for the wheel's start, to be started beside the end's; its answer goes to
 * spec_answer, as answer's does (its failure is no error: the end's steps go on) */
bool rr_index_dist_job_spec(struct rr_index_client *c, struct rr_index_dist_job *j,
			    struct rr_index_get *g);
rr_err rr_index_dist_job_spec_answer(struct rr_index_client *c, struct rr_index_dist_job *j,
				     struct rr_index_get *g, bool *done, rr_error *err);
/* the next step waits for the guess's answer: nothing to ask for now */
bool rr_index_dist_job_waiting(const struct rr_index_dist_job *j);

#endif

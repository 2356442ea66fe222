/*
 * client-private.h - what the rooms of the index client (struct rr_index_client,
 * include/rocm-resolve/index.h) share. Only the client's own files include it:
 *
 *   map.c         a small string-keyed hash map (projects, metadata, failures)
 *   client.c      the client: index list, credentials per realm, cache directory,
 *                 options, statistics
 *   get.c         GET through the cache: freshness, revalidation, hash checks,
 *                 failures remembered for the run, a worker pool that works on
 *                 answers while the rest of a batch downloads
 *   pages.c       project pages: index by index in priority order, the JSON API
 *                 beside a PyPI-like /simple/, parse or load the digest, what a
 *                 page may list (rr_index_project_keep)
 *   find-links.c  --find-links: local directories and flat HTML pages, merged
 *                 into their project
 *   metadata.c    core metadata: PEP 658 files, extracts kept in the cache, local
 *                 files read in place, what an extract says (static or dynamic)
 *   ranges.c      core metadata out of remote dists by range requests (the tail,
 *                 the central directory, the member; a .tar.gz's head)
 *
 * Below them: fetch.c (libcurl), cache.c (the entry format), the page readers
 * (index-private.h), dist.c and zipread.c (archives).
 */
#ifndef RR_INDEX_CLIENT_PRIVATE_H
#define RR_INDEX_CLIENT_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "index/index-private.h"

/* ---- map.c ---- */

struct rr_strmap_slot {
	char *key;
	void *val;
};
struct rr_strmap {
	struct rr_strmap_slot *slots;
	size_t cap, n;
};

/* the value slot of key; with create, a new slot (value NULL) when absent, else NULL */
void **rr_strmap_find(struct rr_strmap *m, const char *key, bool create);
/* frees every key, hands every value to free_val (may be NULL), and the slots */
void rr_strmap_release(struct rr_strmap *m, void (*free_val)(void *val));

/* ---- client.c ---- */

struct rr_index_src {
	char *url;      /* credential-free, ends with '/' */
	char *redacted; /* as given, userinfo replaced */
	char *userpwd;  /* or NULL */
	char *realm;
	bool pypi_like; /* path ends in /simple/: the JSON API may sit beside it */
	bool local;     /* a file:// index: its pages may link local files */
};

struct rr_index_proj_slot {
	bool missing;
	struct rr_index_project p;
};

struct rr_index_meta_slot {
	rr_err rc;
	char *msg;
	struct rr_strbuf text;
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
	size_t cache_hits, revalidated, range_requests, whole_files, failures_reused;
	size_t pages_spilled;
};

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
	void (*ready)(struct rr_index_client *c, struct rr_index_get *g);
	void *ready_ctx;
	struct rr_index_client *client;
	struct rr_index_pool *pool; /* the batch's workers, NULL: none */
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
	size_t fetch_i;
};

/* every request of the batch answered (from the cache or the network), each with its
 * own rc/err; ready callbacks have all run when it returns */
void rr_index_get_batch(struct rr_index_client *c, struct rr_index_get *gs, size_t n);
void rr_index_get_release(struct rr_index_get *g);
/* g's error moved into err (which may be NULL); returns g->rc */
rr_err rr_index_get_take_error(struct rr_index_get *g, rr_error *err);
bool rr_index_sha_matches(const char *want, const void *data, size_t len);

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

/* the metadata of remote files without PEP 658 (the cache had none either) */
rr_err rr_index_fetch_dists(struct rr_index_client *c, const struct rr_index_file *const *df,
			    size_t nd, rr_error *err);

#endif

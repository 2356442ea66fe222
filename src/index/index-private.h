/*
 * index-private.h - the pieces of the index layer, shared between its files,
 * its tests and its fuzz targets. Not part of the public API.
 *
 *   fetch.c          the only file that calls libcurl (bound lazily, dl-curl.c):
 *                    parallel GETs with retries, URL joining/redaction via curl's URL API
 *   cache.c          the on-disk HTTP cache: the entry format (reader and writer),
 *                    one file per entry, written atomically
 *   project.c        the page model the readers share: which files a page may list,
 *                    links, hashes, packing, the foreign-wheel filter
 *   parse-json.c     PEP 691 JSON pages (a streaming scanner; json-view.h)
 *   parse-html.c     PEP 503 HTML pages, flat --find-links pages
 *   parse-jsonapi.c  the Warehouse JSON API /pypi/<name>/json (Jansson)
 *   digest.c         the page digest: a parsed page as the cache keeps it (reader and
 *                    writer)
 *   zipread.c        a wheel's METADATA located from byte ranges, its members listed
 *   dist.c           the only file that uses libarchive (bound lazily, dl-archive.c):
 *                    METADATA / PKG-INFO out of dists
 *   client.c ...     the client itself, in rooms listed in client-private.h
 *   index-provider.c the resolver's provider over the client (index-provider.h),
 *   crawl.c          the crawl that runs ahead of it, and
 *   predict.c        the pages guessed ahead of the crawl from dependency edges known in
 *                    advance (data/edges.txt, the cache's note) (all in provider-private.h)
 */
#ifndef RR_INDEX_PRIVATE_H
#define RR_INDEX_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/strbuf.h"

/* ---- dl-curl.c, dl-archive.c: the libraries are bound on first use ---- */

/* dlopen libcurl (and curl_global_init) once; RR_E_ENV naming the library when
 * impossible. The tables themselves are in dl-private.h. */
rr_err rr_curl_load(rr_error *err);
rr_err rr_archive_load(rr_error *err);

/* ---- fetch.c ---- */

struct rr_fetch_opts {
	long timeout_ms;  /* per attempt */
	int retries;      /* further attempts after the first */
	int max_parallel; /* transfers in flight */
	long backoff_ms;  /* first retry delay; doubles each attempt */
	const char *user_agent;
	long long deadline_ms; /* CLOCK_MONOTONIC ms (rr_fetch_now_ms) no transfer outlives; 0: none */
	const char *ca_file; /* --cert; NULL: SSL_CERT_FILE, REQUESTS_CA_BUNDLE, PIP_CERT */
	const char *ca_dir;  /* NULL: SSL_CERT_DIR */
	const char *sysroot; /* prefix of the system trust store's paths (tests); NULL: / */
	/* bodies over their request's spill_over held in memory at once, at most (0: none) */
	size_t spill_memory;
	/* told about each finished transfer and, with url NULL, about progress */
	void (*observe)(void *ctx, const struct rr_index_event *ev);
	void *observe_ctx;
};

/* CLOCK_MONOTONIC in milliseconds: the clock of every deadline */
long long rr_fetch_now_ms(void);
/* an unlinked file in $TMPDIR (else /tmp), gone when closed; -1 with errno */
int rr_fetch_temp_fd(void);

struct rr_fetch {
	/* in */
	const char *url;      /* without userinfo preferably; any userinfo is used but never shown */
	const char *userpwd;  /* "user:password" or NULL */
	const char *accept;   /* NULL: curl's default */
	const char *if_none_match, *if_modified_since;
	size_t max_body;      /* 0: 64 MiB */
	const char *range;    /* CURLOPT_RANGE: "a-b" or "-n" (the last n bytes); NULL: whole */
	bool spill;           /* a whole (200) body goes to an unlinked temp file, not memory */
	bool spill_partial;   /* with spill, so does a 206 body (a large range) */
	size_t spill_over;    /* so does a 200 body whose Content-Length is over this (0: none)
			       * where such bodies would hold over the fetcher's spill_memory */
	bool head;            /* HEAD: the headers only (content_length says the size) */
	bool once;            /* no retry: a failure is final at once (a guess someone may
			       * wait for, where a retry would only hold them up) */
	int priority;         /* among those waiting to start, the highest goes first */
	bool guess;           /* only told (rr_index_event.guess): asked as a prediction */
	/* out */
	rr_err rc;            /* RR_OK: a response arrived (any status but 5xx) */
	rr_error err;
	long status;
	struct rr_strbuf body;
	int fd;               /* spilled body (read from offset 0), else -1; release closes it */
	long long body_size;  /* bytes of body received (in memory or in fd) */
	long long total_size; /* from Content-Range "bytes a-b/T"; -1 when not given */
	long long content_length; /* as announced; -1 when not given */
	bool accept_ranges;   /* "Accept-Ranges: bytes" seen */
	char *etag, *last_modified, *cache_control, *content_type;
	char *effective_url;  /* after redirects, userinfo removed */
	int attempts;
	bool finished;        /* its answer (or failure) is final: done has been called */
	/* optional: called as soon as this request is finished (retries done), while
	 * the others still run, from rr_fetch_step; it may submit more requests */
	void (*done)(void *ud, struct rr_fetch *r);
	void *done_ud;
};

struct rr_fetcher;
/* RR_E_ENV when libcurl cannot be loaded */
rr_err rr_fetcher_new(const struct rr_fetch_opts *o, struct rr_fetcher **ret, rr_error *err);
struct rr_fetcher *rr_fetcher_free(struct rr_fetcher *f);
/*
 * r joins the requests the fetcher runs (it starts at the next step); r must stay
 * where it is until its done callback has run (r->finished). The out fields are
 * reset here.
 */
void rr_fetch_submit(struct rr_fetcher *f, struct rr_fetch *r);
/*
 * one round: start what may start, move the transfers on, finish what ended
 * (retry, or call done). When nothing ended and wait_ms is not 0, wait for the
 * network (at most wait_ms, negative: up to 1 s) or rr_fetch_wakeup. False when
 * nothing is left under way.
 */
bool rr_fetch_step(struct rr_fetcher *f, int wait_ms);
/* r (submitted, not finished) goes before those of a lower priority still waiting */
void rr_fetch_prioritize(struct rr_fetcher *f, struct rr_fetch *r, int priority);
/* makes a waiting rr_fetch_step return now; safe from any thread */
void rr_fetch_wakeup(struct rr_fetcher *f);
/* submits all and steps until all are finished; each gets its own rc/err */
void rr_fetch_run(struct rr_fetcher *f, struct rr_fetch *reqs, size_t n);
void rr_fetch_release(struct rr_fetch *r);
size_t rr_fetcher_transfers(const struct rr_fetcher *f);
/* body bytes received over all transfers */
unsigned long long rr_fetcher_bytes(const struct rr_fetcher *f);

/* resolve ref against base (RFC 3986); NULL when either is not a URL */
char *rr_url_join(const char *base, const char *ref);
/* "scheme://host:port" (lowercase), the realm credentials apply to; NULL on garbage */
char *rr_url_realm(const char *url);
/* percent-decode the last path segment of url (no query, no fragment) */
char *rr_url_basename(const char *url);
/* the same segment undecoded: url[*start..returned end) */
size_t rr_url_segment(const char *url, size_t *start);

/* ---- cache.c ---- */

struct rr_cache_entry {
	long status;
	char *etag, *last_modified, *content_type, *url;
	char *final_url;   /* after redirects: relative links resolve against it */
	long long stored;  /* unix time the response was (re)validated */
	long long max_age; /* -1: none given */
	bool no_cache;     /* must revalidate before each use */
	bool heuristic;    /* served without Cache-Control: freshness is the reader's policy */
	struct rr_strbuf body;
};

void rr_cache_entry_release(struct rr_cache_entry *e);
/* the path of the entry for (klass, url) under dir (caller frees) */
char *rr_cache_path(const char *dir, const char *klass, const char *url);
/* RR_E_NOTFOUND when absent; a damaged entry is treated as absent */
rr_err rr_cache_load(const char *dir, const char *klass, const char *url, struct rr_cache_entry *e,
		     rr_error *err);
/* atomic: temp file in the same directory, fsync, rename */
rr_err rr_cache_store(const char *dir, const char *klass, const struct rr_cache_entry *e,
		      rr_error *err);
/* the same, filed under key_url while e->url (what the header shows) may differ:
 * the key may carry credentials, the header never does */
rr_err rr_cache_store_keyed(const char *dir, const char *klass, const char *key_url,
			    const struct rr_cache_entry *e, rr_error *err);
bool rr_cache_fresh(const struct rr_cache_entry *e, long long now);
void rr_cache_control_parse(const char *cc, long long *max_age, bool *no_store, bool *no_cache);
/* parse one entry file's bytes (exported for tests) */
rr_err rr_cache_parse(const char *data, size_t len, struct rr_cache_entry *e, rr_error *err);

/* ---- zipread.c: locating a wheel's METADATA from byte ranges ---- */

#define RR_ZIP_MAX_CD (64u << 20) /* a central directory we read (torch's is a few MB) */

struct rr_zip_cd {
	unsigned long long offset, size, entries;
};
struct rr_zip_member {
	unsigned long long local_off, csize, usize;
	unsigned method, flags; /* method 0 stored, 8 deflate (others refused) */
	unsigned long crc;
};
/* tail: the last len bytes of a file of total bytes; finds the central directory
 * (ZIP64 too). RR_E_UNSUPPORTED when the ZIP64 record lies before the tail. */
rr_err rr_zip_find_cd(const unsigned char *tail, size_t len, unsigned long long total,
		      struct rr_zip_cd *cd, rr_error *err);
/* the *.dist-info/METADATA entry of a central directory ("<want_prefix>METADATA"
 * preferred, want_prefix being "name-version.dist-info/"); RR_E_UNSUPPORTED for
 * an encrypted member or a method other than stored/deflate */
rr_err rr_zip_find_metadata(const unsigned char *cd, size_t len, const char *want_prefix,
			    struct rr_zip_member *m, rr_error *err);
/* every entry of a central directory whose name want accepts, in order (names copied,
 * NUL-terminated); RR_E_UNSUPPORTED for one encrypted or compressed otherwise than stored or
 * deflated. Free with rr_zip_list_free */
struct rr_zip_entry {
	char *name;
	struct rr_zip_member m;
};
rr_err rr_zip_list(const unsigned char *cd, size_t len,
		   bool (*want)(const unsigned char *name, size_t n), struct rr_zip_entry **ret,
		   size_t *nret, rr_error *err);
void rr_zip_list_free(struct rr_zip_entry *v, size_t n);
/* the same for a .zip sdist's "<top>/PKG-INFO" (nothing deeper) */
rr_err rr_zip_find_pkginfo(const unsigned char *cd, size_t len, struct rr_zip_member *m,
			   rr_error *err);
/* p: len bytes from the member's local header on. RR_OK with *need == 0 and
 * *data_off set when the whole member is there, else *need = bytes wanted from
 * the header on (an estimate while the header itself is incomplete) */
rr_err rr_zip_local_data(const unsigned char *p, size_t len, const struct rr_zip_member *m,
			 size_t *data_off, size_t *need, rr_error *err);
/* a wheel whose dist-info comes first: "<want_prefix>METADATA" among the local headers at
 * the start of the file (head: its first len bytes), its data all there, stored or
 * deflated and its sizes in its header; false when it is not so (then ask the
 * central directory) */
bool rr_zip_metadata_in_head(const unsigned char *head, size_t len, const char *want_prefix,
			     struct rr_zip_member *m);

/* ---- ranges.c: what a project's wheels taught of where METADATA lies (need: bytes from
 * its local header to the end; cd: the central directory's, to the end; head: where it
 * ends when the dist-info comes first, else 0), for the first wheel of the project a run
 * reads: seeded from an earlier run (predict.c) unless a wheel of this run taught it ---- */
struct rr_index_client;
void rr_index_tail_hint_seed(struct rr_index_client *c, const char *key,
			     const unsigned long long v[3]);
bool rr_index_tail_hint(struct rr_index_client *c, const char *key, unsigned long long v[3]);

/* ---- project.c: what the page readers share ---- */

void rr_index_project_release(struct rr_index_project *p);
/* a file of a page, when filename (a wheel's or an sdist's: the version comes out
 * of it) is one; takes ownership of filename and url (absolute, no fragment);
 * NULL (both freed) when the name is neither */
struct rr_index_file *rr_index_project_add_file(struct rr_index_project *p, size_t *cap,
						char *filename, char *url, const char *index_url);
/* href resolved against page_url, its fragment split off into *frag (may be NULL);
 * NULL when it is no URL */
char *rr_index_resolve_href(const char *page_url, const char *href, char **frag);
/* an absolute http(s) URL rr_index_resolve_href takes as it is (no parse, never NULL) */
bool rr_index_href_plain(const char *href);
/* PEP 629: RR_E_UNSUPPORTED for a major version other than 1 */
rr_err rr_index_check_api_version(const char *v, const char *page_url, rr_error *err);
bool rr_index_is_hex64(const char *s, size_t n);
char *rr_index_lower_hex(const char *s, size_t n);
/* UTF-8 encode a code point (<= 0x10FFFF) */
void rr_index_utf8_put(struct rr_strbuf *sb, unsigned long cp);
/* a file's strings, in the digest's order */
#define RR_INDEX_FILE_NSTR 7
char **rr_index_file_strings(struct rr_index_file *f, char **v[RR_INDEX_FILE_NSTR]);
/* leave out the wheels no Linux CPython can install (counted in nforeign) */
void rr_index_project_drop_foreign(struct rr_index_project *p);
/*
 * index answers are data, never paths: leave out (counted in nignored) every file
 * whose URL is not http(s) - file:// too, unless allow_file (a local index or
 * --find-links location the user named) - and, with key, every file whose name is
 * not a distribution of the project key (PEP 503 normalised), as pip and uv do.
 * Returns how many went.
 */
size_t rr_index_project_keep(struct rr_index_project *p, const char *key, bool allow_file);
/* the project a dist's filename names (normalised), NULL if it names none */
char *rr_index_file_project(const struct rr_index_file *f);
/* move every file's strings into one block (fewer allocations, less memory) */
void rr_index_project_pack(struct rr_index_project *p);
/* leave out the wheels the target cannot install (counted in nforeign), the strings
 * of those that go with them; returns how many went */
struct rr_target;
size_t rr_index_project_keep_installable(struct rr_index_project *p, const struct rr_target *t);
/*
 * the wheels a page reader leaves out as it reads, by filename alone, before
 * anything is copied (counted in nforeign): those no Linux CPython can install
 * (rr_index_project_drop_foreign), and with a target, those it cannot install
 * (rr_index_project_keep_installable) among those rr_index_project_keep (key,
 * allow_file) would keep. The page comes out as read whole and then filtered in that
 * order (tests/unit/index/keep-reference.h). Big pages list thousands of wheels for
 * other platforms (pydantic-core: 15057 files, ~600 for one CPython on x86_64).
 * name and norm start as RR_STRBUF_INIT; one per parse (it remembers tag triples).
 */
struct rr_index_keep {
	const struct rr_target *target; /* NULL: any Linux CPython */
	const char *key;                /* the project (normalised), or NULL */
	bool allow_file;
	struct {
		char *tags;
		size_t len; /* strlen(tags): most entries differ from a wheel's in length */
		bool ok;
	} memo[64];
	size_t nmemo;
	struct rr_strbuf name, norm;
};
/* should the file named name[0..len), at url (absolute), be left out? false for
 * anything not surely a wheel that goes: the readers' later checks decide */
bool rr_index_keep_skips(struct rr_index_keep *k, const char *name, size_t len, const char *url);
void rr_index_keep_release(struct rr_index_keep *k);

/* ---- the page readers: from memory, no I/O, fuzzed ---- */

/* page_url: where the page came from (relative links resolve against it);
 * index_url: stored (borrowed) into each file's index_url */
rr_err rr_index_parse_json(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err);
rr_err rr_index_parse_html(const char *data, size_t len, const char *page_url,
			   const char *index_url, struct rr_index_project *out, rr_error *err);
/* the same, leaving out what keep skips (NULL: nothing) */
rr_err rr_index_parse_json_keep(const char *data, size_t len, const char *page_url,
				const char *index_url, struct rr_index_keep *keep,
				struct rr_index_project *out, rr_error *err);
rr_err rr_index_parse_html_keep(const char *data, size_t len, const char *page_url,
				const char *index_url, struct rr_index_keep *keep,
				struct rr_index_project *out, rr_error *err);
/* the Warehouse JSON API document /pypi/<name>/json */
rr_err rr_index_parse_jsonapi(const char *data, size_t len, const char *page_url,
			      const char *index_url, struct rr_index_project *out, rr_error *err);

/* ---- digest.c: a parsed page as the cache keeps it, and back; the loaded
 * project's strings live in its arena ---- */

#define RR_INDEX_DIGEST_TYPE "application/x-rocm-resolve-digest"
void rr_index_project_digest(const struct rr_index_project *p, struct rr_strbuf *out);
bool rr_index_is_digest(const char *data, size_t len);
rr_err rr_index_parse_digest(const char *data, size_t len, const char *page_url,
			     const char *index_url, struct rr_index_project *out, rr_error *err);
/* the same, taking data (malloc'd, len bytes) as the project's arena: no copy; it
 * is freed on failure too */
rr_err rr_index_parse_digest_take(char *data, size_t len, const char *page_url,
				  const char *index_url, struct rr_index_project *out,
				  rr_error *err);

/* ---- dist.c ---- */

/* the *.dist-info/METADATA member of a wheel in memory; RR_E_ARCHIVE on garbage */
rr_err rr_dist_wheel_metadata(const void *data, size_t len, const char *filename,
			      struct rr_strbuf *out, rr_error *err);
/* the top-level PKG-INFO of an sdist (.tar.gz / .zip) in memory */
rr_err rr_dist_sdist_pkginfo(const void *data, size_t len, const char *filename,
			     struct rr_strbuf *out, rr_error *err);
/* "{name}-{version}.dist-info/" for a wheel's filename (caller frees), NULL if malformed */
char *rr_dist_wheel_prefix(const char *filename);
/* the same, read from a (spilled) file: never the whole file in memory */
rr_err rr_dist_wheel_metadata_fd(int fd, const char *filename, struct rr_strbuf *out,
				 rr_error *err);
/* deadline_ms (rr_fetch_now_ms time, 0: none): reading past it fails as --timeout does */
rr_err rr_dist_sdist_pkginfo_fd(int fd, const char *filename, long long deadline_ms,
				struct rr_strbuf *out, rr_error *err);
/* a zip member's bytes (stored or raw deflate) to its content, checking size and CRC */
rr_err rr_dist_zip_member(const struct rr_zip_member *m, const void *data, const char *filename,
			  const char *what, struct rr_strbuf *out, rr_error *err);
/* the same with a limit of max bytes (compressed and inflated) in place of 16 MiB */
rr_err rr_dist_zip_member_max(const struct rr_zip_member *m, const void *data, const char *filename,
			      const char *what, unsigned long long max, struct rr_strbuf *out,
			      rr_error *err);
/* PEP 643: true when PKG-INFO can be trusted (Metadata-Version >= 2.2 and
 * Requires-Dist, Requires-Python, Provides-Extra not Dynamic); *why says why not */
bool rr_dist_pkginfo_static(const char *text, size_t len, const char **why);

#endif

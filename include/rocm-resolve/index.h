/*
 * index.h - package-index client: PEP 691 JSON / PEP 503 HTML project pages,
 * PEP 658/714 core metadata, wheel and sdist metadata, on-disk HTTP cache.
 *
 *   const char *urls[] = {"https://pypi.org/simple", "https://download.pytorch.org/whl/rocm6.4"};
 *   struct rr_index_opts o = {.index_urls = urls, .nindex_urls = 2};
 *   struct rr_index_client *c;
 *   if (rr_index_client_new(&o, &c, &err)) ...;
 *   rr_index_fetch_projects(c, keys, nkeys, &err);       parallel warm-up (optional)
 *   const struct rr_index_project *p;
 *   rr_index_get_project(c, "torch", &p, &err);          RR_E_NOTFOUND when no index has it
 *   rr_index_fetch_metadata(c, files, nfiles, &err);     parallel warm-up (optional)
 *   rr_index_get_metadata(c, &p->files[i], &text, &len, &err);
 *   c = rr_index_client_free(c);
 *
 * Index order is priority: a project found on an earlier index is never taken
 * from a later one (uv's first-index rule, against dependency confusion).
 * Everything returned is borrowed from the client and lives until it is freed.
 * Credentials embedded in index URLs never appear in messages or in the
 * index_url fields (see rr_url_redact). The client is not thread-safe.
 */
#ifndef RR_INDEX_H
#define RR_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_strbuf;

/* uv's Accept string: JSON preferred, HTML accepted */
#define RR_INDEX_ACCEPT                                                                            \
	"application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "        \
	"text/html;q=0.01"
/*
 * HTML only: the PEP 503 type every simple index serves. Asking for JSON too, at
 * any q, got JSON from this machine's mirror; and its text/html pages leave out
 * the upload times its application/vnd.pypi.simple.v1+html ones carry (39 KB
 * against 46 KB for certifi, 57 KB as JSON)
 */
#define RR_INDEX_ACCEPT_HTML "text/html"

/* the format of project pages asked for (rr_index_opts.pages) */
enum rr_index_pages {
	/* measured per index: HTML (PEP 503, which every index serves, and on the
	 * mirrors measured the smaller) until the first page asked of it has been asked
	 * twice with HEAD, with each Accept below; JSON from then on when its answer was
	 * at least 5 % smaller. The choice is kept in the cache for a day */
	RR_INDEX_PAGES_AUTO,
	RR_INDEX_PAGES_JSON, /* RR_INDEX_ACCEPT */
	RR_INDEX_PAGES_HTML, /* RR_INDEX_ACCEPT_HTML */
};

struct rr_index_file {
	char *filename, *url;  /* url absolute, fragment stripped */
	char *sha256;          /* lowercase hex or NULL */
	char *requires_python; /* or NULL */
	bool yanked;
	char *yanked_reason;   /* NULL when none given */
	bool has_metadata;     /* PEP 658/714 advertised */
	char *metadata_sha256; /* or NULL */
	bool is_wheel;         /* else sdist */
	char *version;         /* version text from the filename */
	long long size;        /* -1 when unknown */
	const char *index_url; /* which index served it (redacted, borrowed from the client) */
	bool from_find_links;  /* listed by a --find-links location (index_url names it) */
};

struct rr_index_project {
	char *key;       /* PEP 503 normalised name */
	char *index_url; /* redacted */
	struct rr_index_file *files;
	size_t nfiles;
	char *arena; /* when set, every file's strings live in this one block */
	size_t nforeign; /* wheels left out: no Linux CPython (or not the target) can install them */
	size_t nignored; /* files left out: another project's, or not at an http(s) URL */
};

/* what rr_index_opts.observe is told */
struct rr_index_event {
	const char *url;	    /* the transfer that finished (redacted), NULL: progress */
	long status;		    /* its HTTP status, 0 when none arrived */
	unsigned long long bytes;   /* its body bytes */
	size_t running;		    /* transfers in flight */
	size_t transfers;	    /* transfers finished so far */
	unsigned long long total_bytes; /* bytes received so far */
	/* the transfer that finished (url set): */
	const char *range;	    /* the byte range asked for ("-16384", "a-b"), NULL: all */
	long long total;	    /* the whole file's size (Content-Range), -1: not given */
	const char *accept;	    /* the Accept header sent, NULL: none */
	bool head;		    /* a HEAD request */
	double start_s, end_s;	    /* when it started and ended, seconds since the client was made */
	double connect_s;	    /* setting up its connection took (TCP, TLS), 0: one reused */
	int resent; /* libcurl sent it again this many times itself (a reused connection had
		     * died): requests on the wire beyond this one */
	bool guess; /* asked as a prediction (rr_index_guess_project), before anything named it */
};

struct rr_target;

struct rr_index_opts {
	/* in priority order: a project found on an earlier index is never taken from a
	 * later one, and an index that fails (not a 404) stops the search there. uv's
	 * rule: --index / --extra-index-url entries come BEFORE the default index
	 * (--index-url / PyPI), so the caller puts them first. */
	const char *const *index_urls;
	size_t nindex_urls;
	/* --find-links locations, as pip and uv take them: a local directory (a path
	 * or file:// URL: the dists in it, not recursive) or the URL of an HTML page
	 * (every link on it). Their files join the candidates of their project,
	 * whichever index serves it, and make a project no index has exist. */
	const char *const *find_links;
	size_t nfind_links;
	const char *cache_dir; /* NULL: $XDG_CACHE_HOME/rocm-resolve or ~/.cache/rocm-resolve */
	bool no_cache, offline, refresh;
	int max_parallel; /* in flight; 0 = default 16 */
	long timeout_ms;  /* per request; 0 = default 30000 */
	int retries;      /* 0 = default 3; negative = none */
	const char *user_agent;
	/* one deadline for all network work of the client, in rr_index_now_ms() time
	 * (CLOCK_MONOTONIC ms): no transfer or retry runs past it, and what is left
	 * fails with RR_E_NETWORK naming --timeout. 0 = none. For `--timeout S`:
	 * rr_index_now_ms() + S * 1000 (and timeout_ms = S * 1000). */
	long long deadline_ms;
	/* a project page larger than this is refused (RR_E_LIMIT); 0 = default
	 * RR_INDEX_PAGE_MAX */
	size_t max_page_bytes;
	/* large pages (over 512 KiB) downloading at once are held in memory up to this
	 * many bytes, and past it written to temporary files as they come; 0 = default
	 * RR_INDEX_PAGE_MEMORY */
	size_t page_memory;
	enum rr_index_pages pages;
	/* seconds a page (or 404) served without Cache-Control stays fresh in the
	 * cache; 0 = default RR_INDEX_HEURISTIC_TTL, negative = revalidate each run */
	long heuristic_ttl_s;
	/* trust anchors: a CA bundle file (--cert; NULL: $SSL_CERT_FILE, $REQUESTS_CA_BUNDLE,
	 * $PIP_CERT) and a directory of hashed certificates (NULL: $SSL_CERT_DIR) */
	const char *ca_file;
	const char *ca_dir;
	/* prefix of system paths (the trust store's); NULL: / (RR_SYSROOT, for tests) */
	const char *sysroot;
	/* optional: told about each finished transfer, and (url NULL) now and then while
	 * transfers run, for progress; called from the thread that runs the client */
	void (*observe)(void *ctx, const struct rr_index_event *ev);
	void *observe_ctx;
	/* optional: the interpreter and platform the files are for; wheels it cannot
	 * install are left out of every project as its page is read (counted in
	 * nforeign), so that what stays in memory is what a resolution can use. The
	 * cache keeps the page's files whatever the target */
	const struct rr_target *target;
};

/*
 * 24 MiB: writing large pages to a file as they came took 12 % of the client
 * thread's CPU (ext4: 0.8 ms per MB, against 0.1 ms in memory). Held in memory, the
 * benchmark's 11 files ran in 0.93-0.98 of the time in three interleaved
 * measurements (about 2 % with the walk fix beside it, measured together), at a peak
 * RSS of 29-49 MB (29-40)
 */
#define RR_INDEX_PAGE_MEMORY (24u << 20)

/*
 * 64 MiB: PyPI's biggest project pages (nightly-build projects with tens of
 * thousands of files) are a few MB; a page over this is a broken or hostile
 * server, refused with a message naming the limit.
 */
#define RR_INDEX_PAGE_MAX (64u << 20)
/*
 * Freshness of a page without cache headers (many company mirrors send none):
 * 600 s, the max-age PyPI itself puts on its pages, which uv honours (its HTTP
 * cache follows RFC 9111; RFC 9111 4.2.2 lets a cache assign such a heuristic
 * lifetime). pip instead sends "Cache-Control: max-age=0" for index pages and
 * so revalidates on every run. --refresh (opts.refresh) ignores it.
 */
#define RR_INDEX_HEURISTIC_TTL 600

struct rr_index_client;

/* binds libcurl now, from any thread, at most once per process (rr_index_client_new
 * does it on first use, and says why it could not). A caller about to talk to an index
 * runs it on a thread of its own while it reads its inputs: libcurl and the libraries it
 * pulls in take ~10 ms to map and relocate */
void rr_index_bind(void);

rr_err rr_index_client_new(const struct rr_index_opts *o, struct rr_index_client **ret,
			   rr_error *err) RR_WUR;
struct rr_index_client *rr_index_client_free(struct rr_index_client *c);

/* fetch several project pages in parallel; results are kept in the client.
 * Projects that no index has are remembered as missing, not an error. */
rr_err rr_index_fetch_projects(struct rr_index_client *c, const char *const *keys, size_t n,
			       rr_error *err) RR_WUR;
/* borrowed; RR_E_NOTFOUND when no index has it (fetches if needed) */
rr_err rr_index_get_project(struct rr_index_client *c, const char *key,
			    const struct rr_index_project **ret, rr_error *err) RR_WUR;
/* core metadata for several files in parallel: .metadata, else the wheel, else
 * a static sdist PKG-INFO. Files whose metadata needs a build are recorded
 * (rr_index_get_metadata reports them) and do not fail the batch. */
rr_err rr_index_fetch_metadata(struct rr_index_client *c, const struct rr_index_file *const *files,
			       size_t n, rr_error *err) RR_WUR;
/* true when the client holds f's metadata (or its failure) already: asking costs nothing */
bool rr_index_metadata_known(const struct rr_index_client *c, const struct rr_index_file *f);
/* raw METADATA text (borrowed); RR_E_UNSUPPORTED when it needs a build (dynamic sdist) */
rr_err rr_index_get_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			     const char **ret_text, size_t *ret_len, rr_error *err) RR_WUR;

/*
 * the members of a remote wheel named like shared libraries (*.so, *.so.N), read by range
 * requests as METADATA is: the file's end (the central directory, and whatever members lie
 * in it), then the rest of those members in one batch, each inflated and its CRC checked.
 * Never the whole wheel unless the server ignores Range. max_bytes (0: 64 MiB) bounds the
 * bytes of the members fetched, four times it what they inflate to: RR_E_LIMIT past it. A local wheel
 * (--find-links, file://) is RR_E_UNSUPPORTED; the answers are not cached.
 */
struct rr_index_member {
	char *path; /* as in the wheel: relative to site-packages for the purelib/platlib root */
	unsigned char *data;
	size_t len;
};
struct rr_index_members {
	struct rr_index_member *v;
	size_t n;
	unsigned long long fetched; /* body bytes that came over the network for them */
	size_t requests;            /* range requests made */
};
rr_err rr_index_wheel_libraries(struct rr_index_client *c, const struct rr_index_file *f,
				unsigned long long max_bytes, struct rr_index_members *ret,
				rr_error *err);
void rr_index_members_release(struct rr_index_members *m);

/*
 * Asynchronous use (the provider's crawl): ask for a page or for metadata and go
 * on; the request runs while the client waits for anything (a getter above, a
 * fetch, rr_index_wait_all), and the hooks hear when each is settled: in, known
 * missing, or failed (the getters then answer at once, with the failure's
 * message). Hooks run on the caller's thread, inside those waits; they may ask
 * for more but must not wait (a getter for something not in yet fails there).
 * Priority orders the requests waiting to start (higher first).
 */
struct rr_index_hooks {
	void *ctx;
	void (*project)(void *ctx, const char *key);
	void (*metadata)(void *ctx, const struct rr_index_file *f);
};
/* h copied; NULL: none */
void rr_index_client_hooks(struct rr_index_client *c, const struct rr_index_hooks *h);
void rr_index_want_project(struct rr_index_client *c, const char *key, int priority);
void rr_index_want_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			    int priority);
/*
 * a prediction: key's page asked for below everything else, unless it is known or under
 * way. Nothing changes for whoever asks for it later (rr_index_want_project, a getter):
 * it is in sooner, that is all. Counted as a guess (rr_index_stats) until someone does
 */
void rr_index_guess_project(struct rr_index_client *c, const char *key);
/* the body bytes key's (normalised) page took over the network in this run (0: none, or
 * from the cache) */
unsigned long long rr_index_project_bytes(const struct rr_index_client *c, const char *key);
/* does the client ask PyPI itself (https://pypi.org/simple/) among its indexes? */
bool rr_index_client_pypi(const struct rr_index_client *c);
/*
 * a note the cache keeps from one run for the next (what earlier runs learned), by name:
 * read (RR_E_NOTFOUND: none, or no cache), and written (atomically, on the cache's
 * writer thread, before the client is freed; nothing without a cache)
 */
rr_err rr_index_note_load(struct rr_index_client *c, const char *name, struct rr_strbuf *out,
			  rr_error *err);
void rr_index_note_store(struct rr_index_client *c, const char *name, const char *text, size_t len);
/* run until nothing asked for is under way */
void rr_index_wait_all(struct rr_index_client *c);
/* true when the client holds key's page (or knows it missing or failed): asking costs nothing */
bool rr_index_project_known(const struct rr_index_client *c, const char *key);

/* number of HTTP transfers started so far (cache hits without revalidation don't count) */
size_t rr_index_client_requests(const struct rr_index_client *c);

struct rr_index_stats {
	size_t requests;          /* HTTP transfers started, retries included */
	unsigned long long bytes; /* response body bytes received */
	size_t cache_hits;        /* answers from the on-disk cache, no request */
	size_t revalidated;       /* cached answers confirmed by a 304 */
	size_t range_requests;    /* partial (206) answers: wheel METADATA without PEP 658 */
	size_t whole_files;       /* whole dists downloaded (sdists; servers refusing ranges) */
	size_t failures_reused;   /* requests not repeated: that URL already failed this run */
	size_t pages_spilled;     /* large pages downloaded to a temporary file, parsed mapped */
	size_t guesses;           /* pages asked as predictions (rr_index_guess_project) */
	size_t guesses_used;      /* of those, pages someone asked for after all */
	unsigned long long guess_bytes_unused; /* the body bytes of the others */
};
void rr_index_client_stats(const struct rr_index_client *c, struct rr_index_stats *ret);

/* CLOCK_MONOTONIC in milliseconds: the clock of rr_index_opts.deadline_ms */
long long rr_index_now_ms(void);

/* copy of url with any userinfo replaced by "***@" (caller frees) */
char *rr_url_redact(const char *url);
/*
 * the core metadata of a wheel or sdist file on disk into out (the wheel's METADATA, the
 * sdist's PKG-INFO); *ret_unknown (static text) says why the dependencies are only known
 * after a build (an sdist's dynamic or pre-2.2 PKG-INFO), else NULL. RR_E_UNSUPPORTED for a
 * file that is neither; RR_E_NOTFOUND, RR_E_IO, RR_E_ARCHIVE as reading it fails.
 */
rr_err rr_index_local_metadata(const char *path, struct rr_strbuf *out, const char **ret_unknown,
			       rr_error *err) RR_WUR;

#endif

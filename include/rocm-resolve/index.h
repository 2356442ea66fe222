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

/* uv's Accept string: JSON preferred, HTML accepted */
#define RR_INDEX_ACCEPT                                                                            \
	"application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "        \
	"text/html;q=0.01"

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
};

struct rr_index_project {
	char *key;       /* PEP 503 normalised name */
	char *index_url; /* redacted */
	struct rr_index_file *files;
	size_t nfiles;
};

struct rr_index_opts {
	const char *const *index_urls; /* [0] = primary (--index-url), rest = extra, in order */
	size_t nindex_urls;
	const char *cache_dir; /* NULL: $XDG_CACHE_HOME/rocm-resolve or ~/.cache/rocm-resolve */
	bool no_cache, offline, refresh;
	int max_parallel; /* in flight; 0 = default 16 */
	long timeout_ms;  /* per request; 0 = default 30000 */
	int retries;      /* 0 = default 3; negative = none */
	const char *user_agent;
};

struct rr_index_client;

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
/* raw METADATA text (borrowed); RR_E_UNSUPPORTED when it needs a build (dynamic sdist) */
rr_err rr_index_get_metadata(struct rr_index_client *c, const struct rr_index_file *f,
			     const char **ret_text, size_t *ret_len, rr_error *err) RR_WUR;

/* number of HTTP transfers started so far (cache hits without revalidation don't count) */
size_t rr_index_client_requests(const struct rr_index_client *c);

/* copy of url with any userinfo replaced by "***@" (caller frees) */
char *rr_url_redact(const char *url);

#endif

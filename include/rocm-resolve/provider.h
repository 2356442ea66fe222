/*
 * provider.h - what the resolver asks about the world: candidates and their
 * dependencies. The solver does no I/O; an index-backed provider (src/index,
 * plan) and the in-memory one below implement this table.
 *
 * In-memory provider (tests, scenarios):
 *   struct rr_provider_mem *m = rr_provider_mem_new();
 *   size_t h;
 *   rc = rr_provider_mem_add(m, "torch", "2.9.1", &h, err);
 *   rr_provider_mem_add_requires(m, h, "filelock");
 *   rr_provider_mem_set_requires_python(m, h, ">=3.10");
 *   rr_provider_mem_set_yanked(m, h, true);
 *   rc = rr_provider_mem_add_installed(m, "numpy", "1.26.4", err);
 *   struct rr_provider p; rr_provider_mem_get(m, &p);   ... rr_resolve(&p, ...)
 *   m = rr_provider_mem_free(m);
 * Adding a version twice keeps the first record (an earlier index wins) and
 * merges the installed flag. Do not add records once a resolve has started:
 * candidate arrays handed out stay valid only while nothing is added.
 */
#ifndef RR_PROVIDER_H
#define RR_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/version.h"

struct rr_candidate {
	char *version_text;	/* as published ("2.9.1+rocm7.2.0.lw.git7e1940d4") */
	struct rr_version version;
	bool yanked;
	bool installed;		/* present in the target environment */
	char *requires_python;	/* NULL when none */
	const void *data;	/* the provider's own */
	/*
	 * its dependencies cannot be known without a build (an sdist whose
	 * PKG-INFO is older than 2.2 or lists Requires-Dist as Dynamic): set by the
	 * provider, at the latest when dependencies() is asked, which then returns
	 * an empty list. The resolver does not pick such a candidate while another
	 * allowed one may have known dependencies - unless 8 candidates of the
	 * project proved unknown already (each costs a whole sdist download): then
	 * it settles for the best allowed one.
	 */
	bool deps_unknown;
	/* the file the installer would take is a source distribution: installing the
	 * release runs a build */
	bool sdist;
};

/*
 * one Requires-Dist line of a candidate, parsed once by the provider that hands it
 * out (rr_dependencies_parse); valid as long as the provider
 */
struct rr_dependency {
	const char *text;	  /* the line as written (borrowed from the provider) */
	rr_err rc;		  /* RR_OK: req holds the line parsed; else it is invalid ... */
	char *why;		  /* ... and this says why */
	struct rr_requirement req;
};

/* lines[0..n) parsed, one entry each (text borrowed from lines) */
struct rr_dependency *rr_dependencies_parse(const char *const *lines, size_t n);
struct rr_dependency *rr_dependencies_free(struct rr_dependency *d, size_t n);

struct rr_provider {
	void *ctx;
	/*
	 * all candidates of key (normalised name), any order; *ret is owned by
	 * the provider and valid until it is freed; RR_E_NOTFOUND for an
	 * unknown project (err may stay empty then)
	 */
	rr_err (*candidates)(void *ctx, const char *key, const struct rr_candidate **ret,
			     size_t *n, rr_error *err);
	/* Requires-Dist of one candidate, each line parsed once (borrowed, valid until the
	 * provider is freed) */
	rr_err (*dependencies)(void *ctx, const char *key, const struct rr_candidate *c,
			       const struct rr_dependency **ret, size_t *n, rr_error *err);
	/* optional hints: these keys / candidates will be asked for soon */
	void (*prefetch)(void *ctx, const char *const *keys, size_t n);
	void (*prefetch_deps)(void *ctx, const char *key, const struct rr_candidate *const *cs,
			      size_t n);
	/*
	 * optional: the resolver is about to ask for the dependencies of cs[0]; cs[1..n-1]
	 * are the candidates of key it would try next, in that order, should cs[0] not
	 * fit (those the current decisions allow and it has not asked about yet)
	 */
	void (*upcoming)(void *ctx, const char *key, const struct rr_candidate *const *cs,
			 size_t n);
	/*
	 * optional: the dependencies of each of cs (candidates of key) will be asked for,
	 * whatever the order: fetch them together now (what is asked after a resolution,
	 * which a crawl does not foresee)
	 */
	void (*will_need)(void *ctx, const char *key, const struct rr_candidate *const *cs,
			  size_t n);
};

struct rr_provider_mem;

struct rr_provider_mem *rr_provider_mem_new(void);
struct rr_provider_mem *rr_provider_mem_free(struct rr_provider_mem *m);
/* add a release (name in any spelling); *ret is a handle for the setters below */
rr_err rr_provider_mem_add(struct rr_provider_mem *m, const char *name, const char *version,
			   size_t *ret, rr_error *err) RR_WUR;
/* mark a version installed, adding it when no index has it */
rr_err rr_provider_mem_add_installed(struct rr_provider_mem *m, const char *name,
				     const char *version, rr_error *err) RR_WUR;
void rr_provider_mem_add_requires(struct rr_provider_mem *m, size_t h, const char *req);
void rr_provider_mem_set_requires_python(struct rr_provider_mem *m, size_t h, const char *spec);
void rr_provider_mem_set_yanked(struct rr_provider_mem *m, size_t h, bool yanked);
/* its only file here is a source distribution (the candidate's sdist flag) */
void rr_provider_mem_set_sdist(struct rr_provider_mem *m, size_t h);
/* its dependencies need a build: deps_unknown, set when dependencies() is asked */
void rr_provider_mem_set_deps_unknown(struct rr_provider_mem *m, size_t h);
size_t rr_provider_mem_nrequires(struct rr_provider_mem *m, size_t h);
void rr_provider_mem_get(struct rr_provider_mem *m, struct rr_provider *ret);

/*
 * A recorder wraps another provider and remembers every answer it gave, so a
 * real run can be replayed on the in-memory provider (--write-testcase):
 *   struct rr_provider_record *r = rr_provider_record_new(&inner);
 *   struct rr_provider p; rr_provider_record_get(r, &p);   ... resolve on p
 *   rr_provider_record_format(r, &sb);   "=Pkg:/=Pyr:/=Ynk:/=Unk:/=Req:" world lines
 *   r = rr_provider_record_free(r);
 * Projects are written in the order they were first asked for; a release's
 * requirements only when they were asked for.
 */
struct rr_provider_record;
struct rr_strbuf;
struct rr_provider_record *rr_provider_record_new(const struct rr_provider *inner);
void rr_provider_record_get(struct rr_provider_record *r, struct rr_provider *ret);
void rr_provider_record_format(const struct rr_provider_record *r, struct rr_strbuf *out);
struct rr_provider_record *rr_provider_record_free(struct rr_provider_record *r);

#endif

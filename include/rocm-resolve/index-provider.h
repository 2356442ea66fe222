/*
 * index-provider.h - a resolver provider backed by an index client and the
 * venv's installed distributions. Everything it hands out lives until
 * rr_index_provider_free().
 */
#ifndef RR_INDEX_PROVIDER_H
#define RR_INDEX_PROVIDER_H

#include <stdbool.h>

#include "rocm-resolve/provider.h"

struct rr_index_client;
struct rr_index_file;
struct rr_venv;
struct rr_index_provider;
struct rr_requirement;

/*
 * held (may be NULL) gives the installed version of a project the plan holds at its
 * installed build (the protected stack), NULL for any other. The crawl follows every
 * project a likely release names - the plan's resolution and the input's as written
 * (where CUDA-only projects are taken like any) both ask about them - but a held one
 * only once a line seen excludes its installed build
 */
struct rr_index_provider *rr_index_provider_new(struct rr_index_client *client,
						const struct rr_venv *venv,
						const char *(*held)(void *ctx, const char *key),
						void *held_ctx);
void rr_index_provider_get(struct rr_index_provider *ip, struct rr_provider *ret);
/*
 * the user's root requirements (borrowed during the call), before resolving:
 * the speculative crawl then fetches only what can matter - lines whose markers
 * hold in the venv, extras that were asked for (here or by a dependency line),
 * the releases every specifier seen for a project allows and whose
 * Requires-Python admits the venv's interpreter - and starts on them at once.
 * It returns at once: the crawl goes on whenever the client waits for anything
 * (the resolver's questions; rr_index_wait_all waits for the whole crawl).
 */
void rr_index_provider_prefetch_roots(struct rr_index_provider *ip,
				      const struct rr_requirement *const *reqs, size_t n);
/*
 * pages to fetch beside the crawl: the protected stack's, which the resolution of the
 * input as written asks about where a line names one (keys borrowed during the call);
 * asked for at once, or, where the provider has dependency edges to guess from
 * (rr_index_provider_edges), when the roots likely reach one or a line names it
 */
void rr_index_provider_pages(struct rr_index_provider *ip, const char *const *keys, size_t n);
/*
 * the dependency edges the crawl guesses pages from (src/index/predict.c): edges (text,
 * sorted lines "name kib [@need,cd,head] dep ...", borrowed while the provider lives) in
 * place of the ones shipped for PyPI, NULL for those; budget the bytes of pages guessed
 * at most (0: the default, 32 MiB; negative: no guesses, nothing learned). Call before
 * the first prefetch. Without it, PyPI gets the shipped edges and every index those
 * earlier runs learned (kept in the cache)
 */
void rr_index_provider_edges(struct rr_index_provider *ip, const char *edges, long long budget);
/* the index file behind a candidate, NULL for an installed-only one */
const struct rr_index_file *rr_index_provider_file(const struct rr_candidate *c);
size_t rr_index_provider_warnings(const struct rr_index_provider *ip, char *const **ret);
struct rr_index_provider *rr_index_provider_free(struct rr_index_provider *ip);

#endif

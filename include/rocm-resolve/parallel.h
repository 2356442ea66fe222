/*
 * parallel.h - one loop over independent items on the machine's cores.
 *
 *   rr_parallel_for(n, 64, fn, ctx);   fn(ctx, i) for every i < n, on up to 16 threads
 *
 * The calling thread works too, so the loop finishes even when no thread can be
 * started; min_per_thread items or fewer per thread are not worth one. fn must be
 * safe to call from several threads at once for different i.
 */
#ifndef RR_PARALLEL_H
#define RR_PARALLEL_H

#include <stddef.h>

void rr_parallel_for(size_t n, size_t min_per_thread, void (*fn)(void *ctx, size_t i), void *ctx);

#endif

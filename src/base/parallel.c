/* parallel.c - rr_parallel_for (include/rocm-resolve/parallel.h) */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "rocm-resolve/parallel.h"

#define MAX_THREADS 16

struct pool {
	size_t n;
	void (*fn)(void *ctx, size_t i);
	void *ctx;
	atomic_size_t next;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->n)
		p->fn(p->ctx, i);
	return NULL;
}

void rr_parallel_for(size_t n, size_t min_per_thread, void (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool pool = {.n = n, .fn = fn, .ctx = ctx};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nthreads = ncpu < 1 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (size_t)ncpu;
	pthread_t tids[MAX_THREADS];
	size_t started = 0;

	atomic_init(&pool.next, 0);
	if (min_per_thread && nthreads > n / min_per_thread + 1)
		nthreads = n / min_per_thread + 1;
	for (size_t t = 1; t < nthreads; t++)
		if (!pthread_create(&tids[started], NULL, worker, &pool))
			started++;
	worker(&pool);
	for (size_t t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}

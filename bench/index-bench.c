/*
 * index-bench.c - CPU and memory of pathological index data, through the
 * index client and the resolver's provider, against the fixture server
 * (tests/index/serve.py, started here). Not a test: it prints timings.
 * Built as build/tests/index/index-bench; run from the source tree:
 *
 *   RR_SRCDIR=. build/tests/index/index-bench [releases [zeros_mib [huge_releases]]]
 *
 *   1. a project page listing <releases> releases (default 48000, ~4 MB of HTML):
 *      page parse, then the provider's candidate list (load_pkg)
 *   2. an sdist .tar.gz whose PKG-INFO is followed by <zeros_mib> MiB of zeros
 *      (default 4096: a 4 MiB download)
 *   3. a page of <huge_releases> releases (default 330000, ~100 MB of HTML)
 * Only the client API that existed before these fixes is used, so the same file
 * builds against an older tree for before/after numbers.
 *
 * Measured 2026-11-22 on the 2-core dev machine (fixture server on loopback):
 *
 *   input                                   before (8a81f54)          after
 *   48000-release page: candidates          405.8 s                   0.05 s
 *   48000-release page: fetch + parse       0.78 s                    0.65 s
 *   .tar.gz: PKG-INFO then 4 GiB of zeros   31.7 s (all inflated)     0.009 s
 *   ~100 MB page (330000 releases)          accepted, 5.1 s, 440 MB   refused at 64 MiB, 1.2 s, 70 MB
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "index-fixture.h"
#include "rocm-resolve/index-provider.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/venv.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static struct rr_index_client *mk(const char *base, const char *path)
{
	char url[512];
	const char *urls[1] = {url};
	struct rr_index_opts o = {.index_urls = urls, .nindex_urls = 1, .no_cache = true,
				  .timeout_ms = 600000};
	struct rr_index_client *c = NULL;
	rr_error err = RR_ERROR_INIT;

	snprintf(url, sizeof(url), "%s%s", base, path);
	if (rr_index_client_new(&o, &c, &err)) {
		fprintf(stderr, "client: %s\n", err.msg);
		exit(1);
	}
	return c;
}

int main(int argc, char **argv)
{
	int releases = argc > 1 ? atoi(argv[1]) : 48000;
	int zeros = argc > 2 ? atoi(argv[2]) : 4096;
	int huge = argc > 3 ? atoi(argv[3]) : 330000;
	char *base = NULL;
	char path[256];
	pid_t srv = rr_test_index_start(NULL, &base);
	struct rr_venv *v = NULL;
	struct rr_venv_opts vo = {0};
	struct rr_index_client *c;
	struct rr_index_provider *ip;
	struct rr_provider prov;
	const struct rr_index_project *p;
	const struct rr_candidate *cands;
	size_t n = 0;
	rr_error err = RR_ERROR_INIT;
	const char *txt;
	size_t len;
	double t0, t1, t2;
	rr_err rc;

	if (srv < 0)
		return 1;
	if (rr_venv_load("fixtures/venvs/rocm72", &vo, &v, &err)) {
		fprintf(stderr, "venv: %s\n", err.msg);
		return 1;
	}

	/* 1. many releases */
	snprintf(path, sizeof(path), "/_fault/many/%d/simple", releases);
	c = mk(base, path);
	/* warm the server's page generation out of the measurement */
	rc = rr_index_get_project(c, "idna", &p, &err);
	c = rr_index_client_free(c);
	c = mk(base, path);
	t0 = now_s();
	rc = rr_index_get_project(c, "idna", &p, &err);
	t1 = now_s();
	if (rc) {
		fprintf(stderr, "page: %s\n", err.msg);
		return 1;
	}
	ip = rr_index_provider_new(c, v, NULL, NULL);
	rr_index_provider_get(ip, &prov);
	rc = prov.candidates(prov.ctx, "idna", &cands, &n, &err);
	t2 = now_s();
	printf("page of %d releases (%zu files): fetch+parse %.3f s, candidates %.3f s (%zu), "
	       "peak RSS %ld MB\n",
	       releases, p->nfiles, t1 - t0, t2 - t1, rc ? (size_t)0 : n, rss_mb());
	ip = rr_index_provider_free(ip);

	/* 2. an sdist of zeros after PKG-INFO */
	snprintf(path, sizeof(path), "/_fault/zeros/%d/simple", zeros);
	for (int warm = 0; warm < 2; warm++) {
		/* the first round makes the server build the file */
		c = rr_index_client_free(c);
		c = mk(base, path);
		rc = rr_index_get_project(c, "idna", &p, &err);
		if (rc) {
			fprintf(stderr, "zeros page: %s\n", err.msg);
			return 1;
		}
		if (!warm) {
			rc = rr_index_get_metadata(c, &p->files[0], &txt, &len, &err);
			rr_error_release(&err);
		}
	}
	t0 = now_s();
	rc = rr_index_get_metadata(c, &p->files[0], &txt, &len, &err);
	t1 = now_s();
	printf("sdist .tar.gz, PKG-INFO then %d MiB of zeros: %.3f s (%s), peak RSS %ld MB\n",
	       zeros, t1 - t0, rc ? err.msg : "PKG-INFO read", rss_mb());
	rr_error_release(&err);
	c = rr_index_client_free(c);

	/* 3. a ~100 MB page */
	snprintf(path, sizeof(path), "/_fault/many/%d/simple", huge);
	c = mk(base, path);
	rc = rr_index_get_project(c, "idna", &p, &err); /* the server builds it once */
	rr_error_release(&err);
	c = rr_index_client_free(c);
	c = mk(base, path);
	t0 = now_s();
	rc = rr_index_get_project(c, "idna", &p, &err);
	t1 = now_s();
	printf("page of %d releases: %.3f s (%s), peak RSS %ld MB\n", huge, t1 - t0,
	       rc ? err.msg : "accepted", rss_mb());
	rr_error_release(&err);
	c = rr_index_client_free(c);

	rr_venv_free(v);
	rr_test_index_stop(srv);
	free(base);
	return 0;
}

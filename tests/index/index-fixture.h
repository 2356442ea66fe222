/*
 * index-fixture.h - start the fixture package index (tests/index/serve.py) for a test.
 *
 *   char *url;
 *   pid_t pid = rr_test_index_start(NULL, &url);   NULL: fixtures/index/world.txt
 *   ... index URLs are url + "/simple", url + "/whl/cu121", url + "/whl/rocm6.4",
 *       url + "/private/simple"; fault prefixes: see serve.py ...
 *   rr_test_index_stop(pid); free(url);
 *
 * The server dies with the test process (PR_SET_PDEATHSIG). Paths resolve
 * against $RR_SRCDIR (set by meson for every test).
 * Meson: dependencies: [index_fixture_dep] (declared in tests/unit/index/meson.build,
 * which is read before every other test directory).
 */
#ifndef RR_TEST_INDEX_FIXTURE_H
#define RR_TEST_INDEX_FIXTURE_H

#include <sys/types.h>

/* returns the server's pid, or -1 (with a message on stderr) */
pid_t rr_test_index_start(const char *world, char **ret_url);
void rr_test_index_stop(pid_t pid);
/* requests the server has answered since start or the last reset (-1 on error) */
long rr_test_index_requests(const char *url);
void rr_test_index_reset(const char *url);
/* how many answered request paths (since the last reset) contain sub; -1 on error */
long rr_test_index_seen(const char *url, const char *sub);
/* a number from the server's stats: "requests", "heads" (HEAD requests), "html" and
 * "json" (project pages served in that format), "ranges" (range requests), "starts"
 * (those from byte 0), or a Range header's count ("bytes=0-32767"); -1 on error or
 * when the server has none of that name */
long rr_test_index_stat(const char *url, const char *name);
/*
 * whether event a happened before event b, each "in:<sub>" (the first request whose
 * path contains sub arrived) or "out:<sub>" (the first answer to one was sent), since
 * the last reset: 1 before, 0 after, -1 when either never happened within 2 s (or on error)
 */
int rr_test_index_order(const char *url, const char *a, const char *b);

#endif

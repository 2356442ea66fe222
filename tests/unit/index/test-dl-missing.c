/*
 * libcurl and libarchive are bound on first use (src/index/dl-*.c). This
 * checks, with the real dynamic loader, that
 *   - neither library is mapped before the index layer asks for it, and
 *   - when the loader cannot use them, every entry point answers RR_E_ENV
 *     naming the library (or "not a URL" for the URL helpers), never crashes.
 * ld.so reads LD_LIBRARY_PATH once at start, so the test re-executes itself
 * with a directory holding empty, unloadable libcurl.so.4 / libarchive.so.13
 * ahead of the system ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "index/index-private.h"
#include "rocm-resolve/util.h"

static bool mapped(const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void test_not_mapped_at_start(void **state)
{
	(void)state;
	assert_false(mapped("/libcurl"));
	assert_false(mapped("/libarchive"));
	assert_false(mapped("/libgnutls"));
	assert_false(mapped("/libxml2"));
}

static void test_curl_missing(void **state)
{
	rr_error err = RR_ERROR_INIT;
	const char *urls[] = {"https://pypi.org/simple/"};
	struct rr_index_opts o = {.index_urls = urls, .nindex_urls = 1, .no_cache = true};
	struct rr_index_client *c = NULL;
	struct rr_fetch_opts fo = {0};
	struct rr_fetcher *f = NULL;
	(void)state;

	assert_int_equal(rr_index_client_new(&o, &c, &err), RR_E_ENV);
	assert_null(c);
	assert_non_null(strstr(err.msg, "cannot load libcurl.so.4"));
	assert_non_null(strstr(err.msg, "package index"));
	/* dlerror()'s text, naming the file it tried */
	assert_non_null(strstr(err.msg, "libcurl.so.4: "));
	/* and what to install (the wheel does not bundle it) */
	assert_non_null(strstr(err.msg, "apt-get install libcurl4)"));
	/* the failure is remembered, and said again */
	rr_error_release(&err);
	assert_int_equal(rr_fetcher_new(&fo, &f, &err), RR_E_ENV);
	assert_null(f);
	assert_non_null(strstr(err.msg, "cannot load libcurl.so.4"));
	rr_error_release(&err);
	assert_null(rr_url_join("https://h.example/a/", "b"));
	assert_null(rr_url_realm("https://h.example/a/"));
}

static void test_archive_missing(void **state)
{
	rr_error err = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	static const char junk[] = "PK\x03\x04 not really";
	(void)state;

	assert_int_equal(rr_dist_wheel_metadata(junk, sizeof(junk), "x-1.0-py3-none-any.whl", &out,
						&err),
			 RR_E_ENV);
	assert_non_null(strstr(err.msg, "cannot load libarchive.so.13"));
	rr_error_release(&err);
	assert_int_equal(rr_dist_sdist_pkginfo(junk, sizeof(junk), "x-1.0.tar.gz", &out, &err),
			 RR_E_ENV);
	assert_non_null(strstr(err.msg, "libarchive.so.13: "));
	assert_non_null(strstr(err.msg, "apt-get install libarchive13)"));
	rr_error_release(&err);
}

static void touch(const char *dir, const char *name)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fclose(f);
}

static void rm(const char *dir, const char *name)
{
	RR_AUTOFREE char *p = rr_xasprintf("%s/%s", dir, name);
	unlink(p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_mapped_at_start),
		cmocka_unit_test(test_curl_missing),
		cmocka_unit_test(test_archive_missing),
	};
	const char *dir = getenv("RR_TEST_DL_DIR");
	int rc;

	(void)argc;
	if (!dir) {
		char tmpl[] = "/tmp/rr-dl-missing-XXXXXX";
		if (!mkdtemp(tmpl)) {
			perror("mkdtemp");
			return 1;
		}
		touch(tmpl, "libcurl.so.4");
		touch(tmpl, "libarchive.so.13");
		setenv("RR_TEST_DL_DIR", tmpl, 1);
		setenv("LD_LIBRARY_PATH", tmpl, 1);
		execv("/proc/self/exe", argv);
		perror("execv");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rm(dir, "libcurl.so.4");
	rm(dir, "libarchive.so.13");
	rmdir(dir);
	return rc;
}

/*
 * keep-reference.h - the test oracle of the page readers' early filter
 * (struct rr_index_keep): a page read with it must come out as the same page read
 * whole and then filtered (rr_index_project_drop_foreign, rr_index_project_keep,
 * then rr_index_project_keep_installable, as pages.c does), file for file, counts
 * included. Used by
 * test-index-parse and the fuzz targets fuzz-simple-html and fuzz-simple-json.
 */
#ifndef RR_TEST_KEEP_REFERENCE_H
#define RR_TEST_KEEP_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

struct rr_target;

/* json: a PEP 691 page, else a PEP 503 one; t may be NULL (the filter without a
 * target), key too (no project check). On a mismatch *why says what differs (a
 * static string). */
bool rr_test_keep_agrees(bool json, const char *data, size_t size, const char *page_url,
			 const struct rr_target *t, const char *key, bool allow_file,
			 const char **why);
/* the same three ways the page fuzzers read a page: without a target; for CPython 3.12
 * on x86_64 with glibc 2.28, file:// links allowed; and for that target, key's files only */
bool rr_test_keep_agrees_each(bool json, const char *data, size_t size, const char *page_url,
			      const char *key, const char **why);

#endif

/*
 * json-reference.h - the Jansson reference reader of PEP 691 pages (a test oracle,
 * json-reference.c): what rr_index_parse_json must agree with
 */
#ifndef RR_TEST_JSON_REFERENCE_H
#define RR_TEST_JSON_REFERENCE_H

#include "index/index-private.h"

rr_err rr_test_parse_json_jansson(const char *data, size_t len, const char *page_url,
				  const char *index_url, struct rr_index_project *out, rr_error *err);

#endif

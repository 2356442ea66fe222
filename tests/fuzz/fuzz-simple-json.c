/*
 * libFuzzer target: PEP 691 JSON pages from memory. Never crash, never leak,
 * and the streaming scanner must agree with the Jansson reference reader on
 * every input (same result code, same files): tests/unit/index/json-reference.c;
 * read with the early filter, a page comes out as read whole and then filtered
 * (keep-reference.h).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index/index-private.h"
#include "json-reference.h"
#include "keep-reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_project(const struct rr_index_project *a, const struct rr_index_project *b)
{
	if (a->nfiles != b->nfiles || !same_str(a->key, b->key))
		return false;
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct rr_index_file *x = &a->files[i], *y = &b->files[i];
		if (!same_str(x->filename, y->filename) || !same_str(x->url, y->url) ||
		    !same_str(x->sha256, y->sha256) || !same_str(x->requires_python, y->requires_python) ||
		    x->yanked != y->yanked || !same_str(x->yanked_reason, y->yanked_reason) ||
		    x->has_metadata != y->has_metadata ||
		    !same_str(x->metadata_sha256, y->metadata_sha256) || x->is_wheel != y->is_wheel ||
		    !same_str(x->version, y->version) || x->size != y->size)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_index_project p = {0}, q = {0};
	rr_error err = RR_ERROR_INIT, err2 = RR_ERROR_INIT;
	const char *url = "https://u:p@i.example/simple/p/";
	rr_err a = rr_index_parse_json((const char *)data, size, url, "I", &p, &err);
	rr_err b = rr_test_parse_json_jansson((const char *)data, size, url, "I", &q, &err2);

	if (a != b || !same_project(&p, &q))
		__builtin_trap();
	if (a == RR_OK) {
		for (size_t i = 0; i < p.nfiles; i++) {
			/* invariants the resolver relies on */
			if (!p.files[i].url || !p.files[i].version || !*p.files[i].version ||
			    strchr(p.files[i].url, '#'))
				__builtin_trap();
			if (p.files[i].sha256 && strlen(p.files[i].sha256) != 64)
				__builtin_trap();
		}
	} else if (!err.msg || (strstr(err.msg, "u:p@") && !memmem(data, size, "u:p@", 4))) {
		/* the page URL's credentials never reach a message (input may quote them) */
		__builtin_trap();
	}
	rr_index_project_release(&p);
	rr_index_project_release(&q);
	rr_error_release(&err);
	rr_error_release(&err2);
	{
		const char *why;
		if (!rr_test_keep_agrees_each(true, (const char *)data, size, url, "pkg", &why))
			__builtin_trap();
	}
	if (rr_index_parse_jsonapi((const char *)data, size, "https://i.example/pypi/p/json", "I", &p,
				   &err) == RR_OK)
		rr_index_project_release(&p);
	rr_error_release(&err);
	return 0;
}

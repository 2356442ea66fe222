/* libFuzzer target: PEP 503 HTML pages from memory (never crash, never leak); read with
 * the early filter, a page comes out as read whole and then filtered (keep-reference.h) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index/index-private.h"
#include "keep-reference.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_index_project p = {0};
	rr_error err = RR_ERROR_INIT;

	if (rr_index_parse_html((const char *)data, size, "https://download.example/whl/rocm6.4/torch/",
				"I", &p, &err) == RR_OK) {
		for (size_t i = 0; i < p.nfiles; i++) {
			if (!p.files[i].url || !p.files[i].filename || !p.files[i].version ||
			    !*p.files[i].version || strchr(p.files[i].url, '#'))
				__builtin_trap();
			if (p.files[i].metadata_sha256 && strlen(p.files[i].metadata_sha256) != 64)
				__builtin_trap();
		}
	}
	rr_index_project_release(&p);
	rr_error_release(&err);
	{
		const char *why;
		if (!rr_test_keep_agrees_each(false, (const char *)data, size,
					      "https://download.example/whl/rocm6.4/torch/",
					      "torch", &why))
			__builtin_trap();
	}
	return 0;
}

/*
 * libFuzzer: the [tool.uv] editor on any document toml++ accepts. Reading the
 * keys and setting them must not crash; when setting succeeds the result must pass
 * rr_toml_check_edit (it parses, holds the values, and nothing else changed) -
 * anything else is a bug, so it aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/tomledit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tbl[] = {"tool", "uv"};
	static const char *const keys[] = {"exclude-dependencies", "constraint-dependencies"};
	static const char *const ex[] = {"torch"};
	static const char *const co[] = {"numpy<2", "x"};
	static const char *const *vals[] = {ex, co};
	static const size_t nvals[] = {1, 2};
	static const char *const arrays[] = {"[\n    \"torch\",  # rocm-resolve: p\n]",
					     "[\"numpy<2\", 'x']"};
	const char *text = (const char *)data;
	rr_error err = RR_ERROR_INIT;
	char *cur = NULL;
	size_t n = size;

	if (rr_toml_check("p.toml", text, size, &err)) {
		rr_error_release(&err);
		return 0;
	}
	for (size_t k = 0; k < 2; k++) {
		struct rr_toml_array a;
		if (rr_tomledit_get_array("p.toml", text, size, tbl, 2, keys[k], &a, &err) == RR_OK)
			rr_toml_array_release(&a);
		rr_error_release(&err);
	}
	cur = malloc(size + 1);
	if (!cur)
		abort();
	memcpy(cur, text, size);
	for (size_t k = 0; k < 2; k++) {
		char *next;
		size_t nn;
		if (rr_tomledit_set("p.toml", cur, n, tbl, 2, keys[k], arrays[k], &next, &nn, &err)) {
			/* refusing an inline table is fine; not following valid TOML is a bug */
			if (err.code != RR_E_UNSUPPORTED)
				abort();
			rr_error_release(&err);
			free(cur);
			return 0;
		}
		free(cur);
		cur = next;
		n = nn;
	}
	if (rr_toml_check_edit("p.toml", text, size, cur, n, tbl, 2, keys, vals, nvals, 2, &err))
		abort();
	free(cur);
	return 0;
}

/* libFuzzer target: the install store manifest parser (what `restore` reads) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rocm-resolve/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_store *s = NULL;
	rr_error e = RR_ERROR_INIT;

	if (rr_store_parse((const char *)data, size, "fuzz", &s, &e) == RR_OK) {
		/* invariants of a successful parse */
		const char *root = rr_store_venv_root(s);
		if (!root || root[0] != '/')
			__builtin_trap();
		if (rr_store_nfiles(s) && !rr_store_ndists(s))
			__builtin_trap();
		/* the validator (what restore runs first) judges any manifest without crashing */
		rr_err v = rr_store_validate(s, root, NULL, 0, &e);
		if (v != RR_OK && v != RR_E_DATA)
			__builtin_trap();
		rr_error_release(&e);
		/* checking compares with the disk; with no store it must refuse to repair */
		struct rr_store_result r;
		if (rr_store_check(s, RR_STORE_REPAIR, &r, &e) != RR_E_USAGE)
			__builtin_trap();
	} else if (e.code != RR_E_DATA || !e.msg) {
		__builtin_trap();
	}
	rr_store_free(s);
	rr_error_release(&e);
	return 0;
}

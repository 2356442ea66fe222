/* libFuzzer target: the snapshot manifest parser (what `restore` reads from the cache) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rocm-resolve/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_snapshot *s = NULL;
	rr_error e = RR_ERROR_INIT;

	if (rr_snapshot_parse((const char *)data, size, "fuzz", &s, &e) == RR_OK) {
		/* invariants of a successful parse */
		const char *root = rr_snapshot_venv_root(s);
		if (!root || root[0] != '/')
			__builtin_trap();
		if (rr_snapshot_nfiles(s) && !rr_snapshot_ndists(s))
			__builtin_trap();
		/* checking compares with the disk; with no store it must refuse to repair */
		struct rr_snapshot_result r;
		if (rr_snapshot_check(s, RR_SNAPSHOT_REPAIR, &r, &e) != RR_E_USAGE)
			__builtin_trap();
	} else if (e.code != RR_E_DATA || !e.msg) {
		__builtin_trap();
	}
	rr_snapshot_free(s);
	rr_error_release(&e);
	return 0;
}

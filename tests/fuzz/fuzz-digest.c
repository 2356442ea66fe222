/*
 * libFuzzer target: page digests (what the cache keeps of a parsed page) from
 * memory. Never crash, never leak; a digest that loads writes back byte for
 * byte, and a loaded project keeps the invariants the resolver relies on.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "index/index-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_index_project p = {0};
	struct rr_strbuf back = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;

	if (rr_index_parse_digest((const char *)data, size, "U", "I", &p, &err) == RR_OK) {
		for (size_t i = 0; i < p.nfiles; i++)
			if (!p.files[i].filename || !p.files[i].url || !p.files[i].version)
				__builtin_trap();
		rr_index_project_digest(&p, &back);
		if (back.len != size || memcmp(back.buf, data, size) != 0)
			__builtin_trap();
	} else if (!err.msg) {
		__builtin_trap();
	}
	rr_strbuf_release(&back);
	rr_index_project_release(&p);
	rr_error_release(&err);
	return 0;
}

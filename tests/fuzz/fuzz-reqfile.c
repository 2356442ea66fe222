/* libFuzzer: requirements-file text from memory; no crash, no leak, errors well formed */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	/* a path in a directory that does not exist: includes fail cleanly, never read disk */
	rr_err rc = rr_reqfile_parse(&set, "/nonexistent-fuzz/requirements.txt", (const char *)data,
				     size, (size & 1) != 0, &err);

	if (rc) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	for (size_t i = 0; i < set.nitems; i++)
		if (!set.items[i].text || !set.items[i].path || set.items[i].line == 0)
			abort();
	rr_error_release(&err);
	rr_reqset_release(&set);
	return 0;
}

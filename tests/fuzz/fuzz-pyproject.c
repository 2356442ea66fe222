/* libFuzzer: pyproject.toml from memory (toml++ behind the C API); all extras, one group */
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
	const char *groups[] = {"dev"};
	struct rr_input_sel sel = {.all_extras = true, .groups = groups, .ngroups = size & 1};
	rr_err rc = rr_pyproject_parse(&set, "pyproject.toml", (const char *)data, size, &sel, &err);

	if (rc) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	rr_error_release(&err);
	rr_reqset_release(&set);
	return 0;
}

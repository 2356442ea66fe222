/* libFuzzer target: core-metadata parser and the egg-info requires.txt converter */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rocm-resolve/metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;

	if (rr_metadata_parse((const char *)data, size, "fuzz", &m, &e) == RR_OK) {
		/* invariants of a successful parse */
		if (!m.name || !m.version || !*m.name || !*m.version)
			__builtin_trap();
		for (size_t i = 0; i < m.nrequires_dist; i++)
			if (!*m.requires_dist[i] || strchr(m.requires_dist[i], '\n'))
				__builtin_trap();
		rr_metadata_add_requires_txt(&m, (const char *)data, size);
	} else if (e.code != RR_E_PARSE || !e.msg) {
		__builtin_trap();
	}
	rr_metadata_release(&m);
	rr_error_release(&e);
	return 0;
}

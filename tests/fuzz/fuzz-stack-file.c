/* libFuzzer target: stack file reader (rr_stack_file_parse), then the readers of its result */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	rr_err rc = rr_stack_file_parse((const char *)data, size, "fuzz", &v, &e);

	if (rc == RR_OK) {
		struct rr_marker_env env;
		struct rr_target t;
		char pybuf[16];
		/* invariants of a successful read: sorted unique keys, every dist findable */
		if (!v || !v->root || !v->stack_file)
			__builtin_trap();
		for (size_t i = 0; i < v->ndists; i++) {
			if (!v->dists[i].key || !v->dists[i].site || !v->dists[i].path)
				__builtin_trap();
			if (i && strcmp(v->dists[i - 1].key, v->dists[i].key) >= 0)
				__builtin_trap();
			if (rr_venv_lookup(v, v->dists[i].key) != &v->dists[i])
				__builtin_trap();
		}
		rr_venv_marker_env(v, &env, pybuf);
		rr_venv_target(v, &t);
	} else if ((rc != RR_E_PARSE && rc != RR_E_UNSUPPORTED) || !e.msg || v) {
		__builtin_trap();
	}
	rr_venv_free(v);
	rr_error_release(&e);
	return 0;
}

/* libFuzzer target: policy loader (JSON shape, PCRE2 compilation, error positions) */
#include <stddef.h>
#include <stdint.h>

#include "rocm-resolve/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_policy *pol = rr_policy_new();
	rr_error e = RR_ERROR_INIT;

	if (rr_policy_load_buffer(pol, (const char *)data, size, "fuzz.json", &e) == RR_OK) {
		/* loaded rules must be usable */
		for (int s = 0; s < RR_POL__MAX; s++)
			rr_policy_match(pol, (enum rr_policy_section)s, "pytorch-triton-rocm");
		rr_policy_clash_group(pol, "triton");
	} else if (!e.msg) {
		__builtin_trap();
	}
	rr_error_release(&e);
	rr_policy_free(pol);
	return 0;
}

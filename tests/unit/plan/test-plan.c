#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/plan.h"
#include "rocm-resolve/strbuf.h"

/* the exclusions list: every stripped CUDA-only or clashing name once, exact names only */
static void test_plan_excludes(void **state)
{
	char n0[] = "nvidia-cublas-cu12", n1[] = "nvidia-cublas", n2[] = "triton", n3[] = "torch",
	     n4[] = "numpy", e0[] = "triton", e1[] = "nvidia-cublas";
	struct rr_decision d[5];
	char *ex[] = {e0, e1};
	struct rr_plan p;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	(void)state;

	memset(&p, 0, sizeof(p));
	memset(d, 0, sizeof(d));
	d[0] = (struct rr_decision){.name = n0, .action = RR_ACT_STRIP,
				    .reason = RR_WHY_CUDA_ONLY};
	/* a prefix of the name above: a substring test would drop it */
	d[1] = (struct rr_decision){.name = n1, .action = RR_ACT_STRIP,
				    .reason = RR_WHY_CUDA_ONLY};
	d[2] = (struct rr_decision){.name = n2, .action = RR_ACT_STRIP, .reason = RR_WHY_CLASH};
	/* stripped for another reason, or kept: not excluded */
	d[3] = (struct rr_decision){.name = n3, .action = RR_ACT_STRIP,
				    .reason = RR_WHY_PROTECTED_URL};
	d[4] = (struct rr_decision){.name = n4, .action = RR_ACT_KEEP, .reason = RR_WHY_OK};
	p.decisions = d;
	p.ndecisions = 5;
	p.excludes = ex; /* from the resolution: both already listed, written once */
	p.nexcludes = 2;
	rr_plan_format_excludes(&p, &out);
	assert_string_equal(out.buf, "nvidia-cublas-cu12\nnvidia-cublas\ntriton\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_excludes),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}

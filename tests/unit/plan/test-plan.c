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

/*
 * the second wall (issue 33): a plan whose requirement, option or index text holds a
 * character that ends a line for pip (str.splitlines) or a final backslash (pip joins the
 * next line) is refused, whatever reader let it through; a comment's U+2028 becomes a
 * space (caf3dbd wrote it as it was: pip's splitlines ends the comment there)
 */
static void test_plan_second_wall(void **state)
{
	static const char *const bad[] = {"idna @ https://x/a.whl\npytorch-triton==3.1.0",
					  "idna @ https://x/a.whl\rpytorch-triton",
					  "idna @ https://x/a.whl\vpytorch-triton",
					  "idna @ https://x/a.whl\fpytorch-triton",
					  "idna @ https://x/a.whl\x1cpytorch-triton",
					  "idna @ https://x/a.whl\xc2\x85pytorch-triton",
					  "idna @ https://x/a.whl\xe2\x80\xa8pytorch-triton",
					  "idna @ https://x/a.whl\xe2\x80\xa9pytorch-triton",
					  "idna @ https://x/a.whl\\"};
	char name[] = "idna", src[] = "r.txt:1", req[] = "idna";
	char url[] = "https://a.example/simple --extra-index-url https://attacker.invalid/simple";
	char origin[] = "uv.toml:1", venv[] = "/opt/venv", py[] = "3.12";
	char pin_name[] = "torch", pin_version[] = "2.9.1",
	     pin_why[] = "ROCm\xe2\x80\xa8"
			 "evil==1";
	struct rr_decision d;
	struct rr_plan_pin pin;
	struct rr_plan_index ix;
	struct rr_plan p;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	memset(&p, 0, sizeof(p));
	memset(&d, 0, sizeof(d));
	p.venv = venv;
	p.python = py;
	p.installer = "pip";
	p.decisions = &d;
	p.ndecisions = 1;
	d = (struct rr_decision){.name = name,
				 .source = src,
				 .requirement = req,
				 .action = RR_ACT_KEEP,
				 .reason = RR_WHY_OK};
	for (size_t i = 0; i < RR_ARRAY_LEN(bad); i++) {
		d.output = (char *)bad[i];
		assert_int_equal(rr_plan_check_lines(&p, &e), RR_E_INTERNAL);
		assert_non_null(strstr(e.msg, "a requirement line would break a line of the plan"));
		rr_error_release(&e);
	}
	d.output = name;
	assert_int_equal(rr_plan_check_lines(&p, &e), RR_OK);
	/* an index URL is one token on pip's option line */
	memset(&ix, 0, sizeof(ix));
	ix.url = url;
	ix.origin = origin;
	ix.written = true;
	p.indexes = &ix;
	p.nindexes = 1;
	assert_int_equal(rr_plan_check_lines(&p, &e), RR_E_INTERNAL);
	assert_non_null(strstr(e.msg, "an index URL"));
	rr_error_release(&e);
	p.nindexes = 0;
	/* a comment with U+2028 stays one line */
	memset(&pin, 0, sizeof(pin));
	pin.name = pin_name;
	pin.version = pin_version;
	pin.short_why = pin_why;
	p.pins = &pin;
	p.npins = 1;
	assert_int_equal(rr_plan_check_lines(&p, &e), RR_OK);
	{
		RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
		rr_plan_format_text(&p, &out);
		assert_null(strstr(out.buf, "\xe2\x80\xa8"));
		assert_non_null(strstr(out.buf, "torch==2.9.1  # ROCm evil==1\n"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_excludes),
	    cmocka_unit_test(test_plan_second_wall),
	};
	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "pep/pep-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

static void check_norm(const char *in, const char *want)
{
	RR_AUTOFREE char *got = rr_name_normalize(in);
	assert_string_equal(got, want);
}

static void test_normalize(void **state)
{
	(void)state;
	check_norm("Pytorch_Triton.ROCm", "pytorch-triton-rocm");
	check_norm("a._-b", "a-b"); /* a run of separators is one '-' */
	check_norm("A__B..C--D", "a-b-c-d");
	check_norm("torch", "torch");
	check_norm("-x-", "-x-"); /* normalising does not validate */
	check_norm("", "");
	{
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		rr_strbuf_adds(&sb, "pre:");
		rr_name_normalize_into("Foo.Bar_baz", 7, &sb); /* only the first 7 bytes */
		assert_string_equal(sb.buf, "pre:foo-bar");
	}
}

static void test_valid(void **state)
{
	(void)state;
	assert_true(rr_name_is_valid("a", 1));
	assert_true(rr_name_is_valid("torch", 5));
	assert_true(rr_name_is_valid("Pytorch_Triton.ROCm", 19));
	assert_true(rr_name_is_valid("a-b", 3));
	assert_false(rr_name_is_valid("", 0));
	assert_false(rr_name_is_valid("-a", 2));
	assert_false(rr_name_is_valid("a-", 2));
	assert_false(rr_name_is_valid("a b", 3));
	assert_false(rr_name_is_valid("a+b", 3));
	assert_false(rr_name_is_valid("_", 1));
	/* only len bytes count */
	assert_true(rr_name_is_valid("ab-", 2));
}

static void test_eq(void **state)
{
	(void)state;
	assert_true(rr_name_eq("Pytorch_Triton.ROCm", "pytorch-triton-rocm"));
	assert_true(rr_name_eq("a-._b", "A_B"));
	assert_false(rr_name_eq("torch", "torchvision"));
	assert_false(rr_name_eq("torchvision", "torch"));
	assert_false(rr_name_eq("ab", "a-b"));
	assert_true(rr_name_eq("", ""));
}

static void test_space(void **state)
{
	const char *s = "\xc2\xa0 1.0\xe3\x80\x80\t";
	size_t n = strlen(s);
	(void)state;
	assert_int_equal(rr_pep_space_len("\xc2\xa0", 2), 2);
	assert_int_equal(rr_pep_space_len("\xc2\xa1", 2), 0);
	assert_int_equal(rr_pep_space_len("\x1c", 1), 1);
	assert_int_equal(rr_pep_space_len("\xe2\x80\x8b", 3), 0); /* ZERO WIDTH SPACE is not */
	assert_int_equal(rr_pep_space_len("\xe2\x80", 2), 0);	   /* truncated */
	rr_pep_strip(&s, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(s, "1.0", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_eq),
		cmocka_unit_test(test_space),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

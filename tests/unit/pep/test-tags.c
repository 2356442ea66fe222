#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rocm-resolve/tags.h"

static int score(const char *file, const char *py, const char *machine, unsigned gma, unsigned gmi)
{
	struct rr_wheel_name w;
	struct rr_target t;
	int s;

	assert_int_equal(rr_wheel_name_parse(file, &w, NULL), RR_OK);
	rr_target_init(&t, py, machine, gma, gmi);
	s = rr_wheel_score(&w, &t);
	rr_wheel_name_release(&w);
	return s;
}

static void test_tags_parse(void **state)
{
	struct rr_wheel_name w;
	(void)state;

	assert_int_equal(rr_wheel_name_parse(
				 "torch-2.9.1%2Brocm7.2.0-1build-cp312-cp312-linux_x86_64.whl", &w, NULL),
			 RR_OK);
	assert_string_equal(w.name, "torch");
	assert_string_equal(w.build, "1build");
	assert_string_equal(w.plat[0], "linux_x86_64");
	rr_wheel_name_release(&w);
	assert_int_equal(rr_wheel_name_parse("six-1.16.0-py2.py3-none-any.whl", &w, NULL), RR_OK);
	assert_int_equal(w.npy, 2);
	rr_wheel_name_release(&w);
	assert_int_equal(rr_wheel_name_parse("x-1.0.tar.gz", &w, NULL), RR_E_PARSE);
	assert_int_equal(rr_wheel_name_parse("x-1.0-py3.whl", &w, NULL), RR_E_PARSE);
	assert_int_equal(rr_wheel_name_parse("x--py3-none-any.whl", &w, NULL), RR_E_PARSE);
}

static void test_tags_compat(void **state)
{
	(void)state;
	/* interpreter */
	assert_true(score("a-1-cp312-cp312-manylinux_2_28_x86_64.whl", "3.12", "x86_64", 2, 35) > 0);
	assert_int_equal(score("a-1-cp311-cp311-manylinux_2_28_x86_64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_true(score("a-1-cp39-abi3-manylinux2014_x86_64.whl", "3.12", "x86_64", 2, 35) > 0);
	assert_int_equal(score("a-1-cp313-abi3-manylinux2014_x86_64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_true(score("a-1-py3-none-any.whl", "3.12", "x86_64", 2, 35) > 0);
	assert_int_equal(score("a-1-py2-none-any.whl", "3.12", "x86_64", 2, 35), -1);
	/* platform: glibc too old, wrong machine, other OS */
	assert_int_equal(score("a-1-cp312-cp312-manylinux_2_39_x86_64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_int_equal(score("a-1-cp312-cp312-manylinux_2_28_aarch64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_int_equal(score("a-1-cp312-cp312-win_amd64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_int_equal(score("a-1-cp312-cp312-macosx_11_0_arm64.whl", "3.12", "x86_64", 2, 35), -1);
	assert_true(score("torch-2.9.1+rocm7.2.0-cp312-cp312-linux_x86_64.whl", "3.12.3", "x86_64", 2, 35) > 0);
	/* ranking: exact interpreter over abi3 over pure; newer manylinux over older */
	assert_true(score("a-1-cp312-cp312-manylinux_2_17_x86_64.whl", "3.12", "x86_64", 2, 35) >
		    score("a-1-cp38-abi3-manylinux_2_17_x86_64.whl", "3.12", "x86_64", 2, 35));
	assert_true(score("a-1-cp38-abi3-manylinux_2_17_x86_64.whl", "3.12", "x86_64", 2, 35) >
		    score("a-1-py3-none-any.whl", "3.12", "x86_64", 2, 35));
	assert_true(score("a-1-cp312-cp312-manylinux_2_28_x86_64.whl", "3.12", "x86_64", 2, 35) >
		    score("a-1-cp312-cp312-manylinux1_x86_64.whl", "3.12", "x86_64", 2, 35));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tags_parse),
		cmocka_unit_test(test_tags_compat),
	};
	return cmocka_run_group_tests_name("tags", tests, NULL, NULL);
}

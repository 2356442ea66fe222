#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

static void parse_ok(const char *s, struct rr_version *v)
{
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	rr_err rc = rr_version_parse(s, v, &err);
	if (rc)
		fail_msg("'%s': %s", s, err.msg);
}

static void check_norm(const char *in, const char *want)
{
	struct rr_version v;
	RR_AUTOFREE char *got = NULL;

	parse_ok(in, &v);
	got = rr_version_to_string(&v);
	if (strcmp(got, want) != 0)
		fail_msg("'%s' normalised to '%s', want '%s'", in, got, want);
	rr_version_release(&v);
}

static void test_normalize(void **state)
{
	(void)state;
	check_norm("1.0", "1.0");
	check_norm("v1.01.000", "1.1.0");
	check_norm(" \t1.0RC1\n", "1.0rc1");
	check_norm("1.0-alpha.2", "1.0a2");
	check_norm("1.0beta", "1.0b0");
	check_norm("1.0c3", "1.0rc3");
	check_norm("1.0.pre4", "1.0rc4");
	check_norm("1.0_preview-5", "1.0rc5");
	check_norm("1.0-1", "1.0.post1");
	check_norm("1.0rev", "1.0.post0");
	check_norm("1.0.r.3", "1.0.post3");
	check_norm("1.0-dev-7", "1.0.dev7");
	check_norm("0!1.0", "1.0");
	check_norm("2!1.0a1.post2.dev3", "2!1.0a1.post2.dev3");
	check_norm("1.0a-", "1.0a0"); /* trailing separator of the pre part */
	check_norm("2.9.1+rocm7.2.0.lw.git7e1940d4", "2.9.1+rocm7.2.0.lw.git7e1940d4");
	check_norm("2.9.1+ROCM7_2-0.LW", "2.9.1+rocm7.2.0.lw");
	check_norm("1.0+007.abc", "1.0+7.abc"); /* numeric local segments are numbers */
	check_norm("1.0\xc2\xa0", "1.0");	/* NO-BREAK SPACE is whitespace to Python */
}

static void check_bad(const char *s, rr_err code, unsigned col)
{
	struct rr_version v = RR_VERSION_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;

	if (rr_version_parse(s, &v, &err) == RR_OK)
		fail_msg("'%s' parsed but should not", s);
	if (err.code != code || (col && err.col != col))
		fail_msg("'%s': code %d col %u, want %d col %u (%s)", s, err.code, err.col, code, col,
			 err.msg);
	assert_null(v.release); /* ret untouched on failure */
}

static void test_invalid(void **state)
{
	(void)state;
	check_bad("", RR_E_PARSE, 1);
	check_bad("1.0.", RR_E_PARSE, 4);
	check_bad("1..0", RR_E_PARSE, 2);
	check_bad("1.0-", RR_E_PARSE, 4);
	check_bad("1.0+", RR_E_PARSE, 5);
	check_bad("1.0+a.", RR_E_PARSE, 6);
	check_bad("1.0 a1", RR_E_PARSE, 5);
	check_bad("1.0a1a2", RR_E_PARSE, 6);
	check_bad("1.0.post1.post2", RR_E_PARSE, 10);
	check_bad("1!", RR_E_PARSE, 3);
	check_bad("a1.0", RR_E_PARSE, 1);
	check_bad("0!v1.0", RR_E_PARSE, 3);
	check_bad("1.*", RR_E_PARSE, 2);
	check_bad("1.0dev1dev2", RR_E_PARSE, 8);
	check_bad("1.0-1-1", RR_E_PARSE, 6);
	check_bad("18446744073709551616", RR_E_LIMIT, 1);
	check_bad("1.0.post18446744073709551616", RR_E_LIMIT, 0);
}

/* every element sorts strictly before the next one */
static const char *const chain[] = {
	"1.0.dev456",
	"1.0a1",
	"1.0a2.dev456",
	"1.0a12.dev456",
	"1.0a12",
	"1.0b1.dev456",
	"1.0b2",
	"1.0b2.post345.dev456",
	"1.0b2.post345",
	"1.0rc1.dev456",
	"1.0rc1",
	"1.0",
	"1.0+abc",
	"1.0+abc.5",
	"1.0+abc.7",
	"1.0+5",
	"1.0.post456.dev34",
	"1.0.post456",
	"1.0.15",
	"1.1.dev1",
	"2.9.1rc1",
	"2.9.1",
	"2.9.1+cpu",
	"2.9.1+cu128",
	"2.9.1+rocm6.4",
	"2.9.1+rocm7.2.0",
	"2.9.1+rocm7.2.0.lw.git7e1940d4",
	"2.9.1+rocm7.10",
	"2.9.1.post1",
	"2.9.10",
	"18446744073709551615",
	"1!0.1",
};

static void test_order(void **state)
{
	struct rr_version v[RR_ARRAY_LEN(chain)];
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(chain); i++)
		parse_ok(chain[i], &v[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(chain); i++) {
		for (size_t j = 0; j < RR_ARRAY_LEN(chain); j++) {
			int want = i < j ? -1 : i > j;
			int got = rr_version_cmp(&v[i], &v[j]);
			if (got != want)
				fail_msg("cmp('%s', '%s') = %d, want %d", chain[i], chain[j], got,
					 want);
		}
	}
	for (size_t i = 0; i < RR_ARRAY_LEN(chain); i++)
		rr_version_release(&v[i]);
}

static void test_equal_forms(void **state)
{
	struct rr_version a;
	struct rr_version b;
	(void)state;

	parse_ok("1.0", &a);
	parse_ok("1.0.0.0", &b);
	assert_int_equal(rr_version_cmp(&a, &b), 0); /* trailing zeros don't count */
	rr_version_release(&b);
	parse_ok("v0!1.0-0", &b); /* 'v' goes before the epoch */
	assert_int_equal(rr_version_cmp(&a, &b), -1); /* 1.0.post0 > 1.0 */
	rr_version_release(&b);
	parse_ok("1.0+local", &b);
	assert_int_equal(rr_version_cmp(&a, &b), -1);
	assert_int_equal(rr_version_cmp_public(&a, &b), 0);
	rr_version_release(&a);
	parse_ok("1.0+LOCAL", &a);
	assert_int_equal(rr_version_cmp(&a, &b), 0);
	rr_version_release(&a);
	parse_ok("1.0+local.0", &a); /* longer local sorts after its prefix */
	assert_int_equal(rr_version_cmp(&a, &b), 1);
	rr_version_release(&a);
	parse_ok("1.0+0010", &a); /* numbers, not strings: 10 > 9 */
	rr_version_release(&b);
	parse_ok("1.0+9", &b);
	assert_int_equal(rr_version_cmp(&a, &b), 1);
	rr_version_release(&a);
	rr_version_release(&b);
}

static void test_classify_copy(void **state)
{
	struct rr_version v;
	struct rr_version c;
	RR_AUTOFREE char *s = NULL;
	(void)state;

	parse_ok("1!2.3rc4.post5.dev6+Rocm.7", &v);
	assert_int_equal(v.epoch, 1);
	assert_int_equal(v.nrelease, 2);
	assert_int_equal(v.pre, RR_PRE_RC);
	assert_int_equal(v.pre_n, 4);
	assert_true(v.has_post && v.post == 5);
	assert_true(v.has_dev && v.dev == 6);
	assert_string_equal(v.local, "rocm.7");
	assert_true(rr_version_is_prerelease(&v));
	assert_true(rr_version_is_postrelease(&v));
	assert_true(rr_version_is_devrelease(&v));
	rr_version_copy(&c, &v);
	rr_version_release(&v);
	s = rr_version_to_string(&c);
	assert_string_equal(s, "1!2.3rc4.post5.dev6+rocm.7");
	{
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		rr_version_format_public(&c, &sb);
		assert_string_equal(sb.buf, "1!2.3rc4.post5.dev6");
	}
	rr_version_release(&c);
	parse_ok("1.0.post1", &v);
	assert_false(rr_version_is_prerelease(&v));
	rr_version_release(&v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_equal_forms),
		cmocka_unit_test(test_classify_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

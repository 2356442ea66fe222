#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/strbuf.h"

/* evaluate s under env; -1 parse error, -2 evaluation error, else 0/1 */
static int ev(const char *s, const struct rr_marker_env *env)
{
	struct rr_marker *m;
	bool yes;
	int r;

	if (rr_marker_parse(s, SIZE_MAX, &m, NULL))
		return -1;
	r = rr_marker_eval(m, env, &yes, NULL) ? -2 : yes;
	rr_marker_free(m);
	return r;
}

static void check_str(const char *in, const char *want)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	struct rr_marker *m, *c;

	assert_int_equal(rr_marker_parse(in, SIZE_MAX, &m, &err), RR_OK);
	rr_marker_format(m, &sb);
	assert_string_equal(sb.buf, want);
	c = rr_marker_clone(m);
	rr_strbuf_reset(&sb);
	rr_marker_format(c, &sb);
	assert_string_equal(sb.buf, want);
	rr_marker_free(c);
	rr_marker_free(m);
}

static void check_err(const char *in, unsigned col, const char *msg_part)
{
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	struct rr_marker *m = NULL;

	assert_int_equal(rr_marker_parse(in, SIZE_MAX, &m, &err), RR_E_PARSE);
	assert_null(m);
	assert_int_equal(err.col, col);
	assert_non_null(strstr(err.msg, msg_part));
}

static void test_precedence(void **state)
{
	struct rr_marker_env env;
	(void)state;

	rr_marker_env_init(&env);
	/* a or (b and c): true because the first term is true */
	assert_int_equal(ev("os_name == 'posix' or os_name == 'nt' and os_name == 'x'", &env), 1);
	/* (a or b) and c would be false here */
	assert_int_equal(ev("(os_name == 'posix' or os_name == 'nt') and os_name == 'x'", &env), 0);
	assert_int_equal(ev("os_name == 'nt' and os_name == 'x' or sys_platform == 'linux'", &env), 1);
}

static void test_extra_normalised(void **state)
{
	struct rr_marker_env env;
	(void)state;

	rr_marker_env_init(&env);
	env.vars[RR_MVAR_EXTRA] = "foo-bar";
	assert_int_equal(ev("extra == \"Foo_Bar\"", &env), 1);
	assert_int_equal(ev("extra == \"Foo..bar\"", &env), 1);
	assert_int_equal(ev("\"FOO.BAR\" == extra", &env), 1);
	env.vars[RR_MVAR_EXTRA] = "Foo_Bar";
	assert_int_equal(ev("extra == 'foo-bar'", &env), 1);
	assert_int_equal(ev("extra == 'foobar'", &env), 0);
	/* stored form: only the first comparison is normalised, as packaging does */
	check_str("extra == 'Foo_Bar'", "extra == \"foo-bar\"");
	check_str("os_name == 'x' and extra == 'Foo_Bar'",
		  "os_name == \"x\" and extra == \"Foo_Bar\"");
}

static void test_versions_vs_strings(void **state)
{
	struct rr_marker_env env;
	char buf[16];
	(void)state;

	rr_marker_env_init(&env);
	rr_marker_env_set_python(&env, "3.10.14", buf);
	assert_string_equal(env.vars[RR_MVAR_PYTHON_VERSION], "3.10");
	/* as versions 3.10 > 3.9; as strings "3.10" < "3.9" */
	assert_int_equal(ev("python_version > \"3.9\"", &env), 1);
	assert_int_equal(ev("python_version < \"3.9\"", &env), 0);
	assert_int_equal(ev("python_full_version >= '3.10.0rc1'", &env), 1);
	assert_int_equal(ev("python_version == '3.10.*'", &env), 1);
	assert_int_equal(ev("python_version ~= '3.8'", &env), 1);
	/* not a specifier: Python string comparison ("3.10" >= "3.*" since '1' > '*') */
	assert_int_equal(ev("python_version >= '3.*'", &env), 1);
	/* ~= with a non-version right side is undefined */
	assert_int_equal(ev("python_version ~= 'abc'", &env), -2);
	assert_int_equal(ev("python_version < 'abc'", &env), 1);
	/* string fallback for kernel releases */
	env.vars[RR_MVAR_PLATFORM_RELEASE] = "5.15.0-generic";
	assert_int_equal(ev("platform_release == '5.15.0-generic'", &env), 1);
	assert_int_equal(ev("'generic' in platform_release", &env), 1);
	assert_int_equal(ev("platform_release != '5.15.0-lowlatency'", &env), 1);
	/* packaging 23.0: a version on the right forces Version(lhs), which fails */
	assert_int_equal(ev("platform_release >= '5.15'", &env), -2);
	env.vars[RR_MVAR_PLATFORM_RELEASE] = "6.8.0";
	assert_int_equal(ev("platform_release >= '5.15'", &env), 1);
	/* errors are not short-circuited away */
	assert_int_equal(ev("os_name == 'posix' or '1' == 'nope'", &env), -2);
	/* a string on both sides looks the right one up in the environment */
	assert_int_equal(ev("'3.9' < 'python_version'", &env), 1);
	/* in / not in are substring tests */
	assert_int_equal(ev("platform_machine in 'x86_64 aarch64'", &env), 1);
	assert_int_equal(ev("platform_machine not in 'aarch64'", &env), 1);
	env.vars[RR_MVAR_OS_NAME] = NULL;
	assert_int_equal(ev("os_name == 'posix'", &env), -2);
}

static void test_legacy_names_and_format(void **state)
{
	struct rr_marker_env env;
	(void)state;

	rr_marker_env_init(&env);
	assert_int_equal(ev("os.name == 'posix' and sys.platform == 'linux' and "
			    "platform.machine == 'x86_64' and python_implementation == 'CPython'",
			    &env), 1);
	check_str("os.name=='posix'and(python_implementation!=\"PyPy\"or platform.version in 'x')",
		  "os_name == \"posix\" and (platform_python_implementation != \"PyPy\" or "
		  "platform_version in \"x\")");
	check_str("((python_version > '3'))", "python_version > \"3\"");
	check_str("'3' < python_version", "\"3\" < python_version");
	check_str("os_name not \t in 'ab'", "os_name not in \"ab\"");
	check_str("os_name == 'a\\x41'", "os_name == \"aA\"");
}

static void test_errors(void **state)
{
	(void)state;
	check_err("os_name == \"posix", 12, "unterminated string");
	check_err("(os_name == 'x'", 16, "expected ')'");
	check_err("os_name", 8, "expected marker operator");
	check_err("os_name = 'x'", 9, "expected marker operator");
	check_err("osname == 'x'", 1, "expected a marker variable");
	check_err("os_name == 'x' garbage", 16, "expected 'and', 'or'");
	check_err("os_name not'x'", 12, "whitespace after 'not'");
	check_err("", 1, "expected a marker variable");
	check_err("os_name == 'x' and", 19, "expected a marker variable");
}

static void test_uses_extra(void **state)
{
	struct rr_marker *m;
	(void)state;

	assert_int_equal(rr_marker_parse("os_name == 'x' or (extra == 'gpu')", SIZE_MAX, &m, NULL),
			 RR_OK);
	assert_true(rr_marker_uses_extra(m));
	rr_marker_free(m);
	assert_int_equal(rr_marker_parse("os_name == 'x'", SIZE_MAX, &m, NULL), RR_OK);
	assert_false(rr_marker_uses_extra(m));
	rr_marker_free(m);
	/* length-limited parse: only the first 14 bytes */
	assert_int_equal(rr_marker_parse("os_name == 'x' garbage", 14, &m, NULL), RR_OK);
	rr_marker_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_extra_normalised),
		cmocka_unit_test(test_versions_vs_strings),
		cmocka_unit_test(test_legacy_names_and_format),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_uses_extra),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

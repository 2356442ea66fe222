#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/strbuf.h"

static void roundtrip(const char *in, const char *want)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT, c, again = RR_REQUIREMENT_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	char *s, *s2;

	if (rr_requirement_parse(in, &r, &err))
		fail_msg("%s: col %u: %s", in, err.col, err.msg);
	s = rr_requirement_to_string(&r);
	assert_string_equal(s, want);
	rr_requirement_copy(&c, &r);
	s2 = rr_requirement_to_string(&c);
	assert_string_equal(s2, want);
	free(s2);
	/* what we print parses back to the same thing */
	assert_int_equal(rr_requirement_parse(s, &again, &err), RR_OK);
	s2 = rr_requirement_to_string(&again);
	assert_string_equal(s2, want);
	free(s2);
	free(s);
	rr_requirement_release(&again);
	rr_requirement_release(&c);
	rr_requirement_release(&r);
}

static void reject(const char *in, unsigned col, const char *msg_part)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;

	assert_int_equal(rr_requirement_parse(in, &r, &err), RR_E_PARSE);
	assert_null(r.name);
	if (err.col != col || !strstr(err.msg, msg_part))
		fail_msg("%s: got col %u '%s', want col %u '%s'", in, err.col, err.msg, col,
			 msg_part);
}

static void test_torch_requires_dist(void **state)
{
	(void)state;
	roundtrip("typing-extensions>=4.10.0", "typing-extensions>=4.10.0");
	roundtrip("setuptools; python_version >= \"3.12\"", "setuptools; python_version >= \"3.12\"");
	roundtrip("sympy==1.13.1; python_version >= \"3.9\"", "sympy==1.13.1; python_version >= \"3.9\"");
	roundtrip("opt-einsum>=3.3; extra == \"opt-einsum\"", "opt-einsum>=3.3; extra == \"opt-einsum\"");
	roundtrip("triton (==3.0.0) ; platform_system == \"Linux\" and platform_machine == \"x86_64\" "
		  "and python_version < \"3.13\"",
		  "triton==3.0.0; platform_system == \"Linux\" and platform_machine == \"x86_64\" "
		  "and python_version < \"3.13\"");
	/* str(SpecifierSet) sorts */
	roundtrip("cuda-bindings<14,>=13.0.3; platform_system == \"Linux\" and python_version < \"3.15\"",
		  "cuda-bindings<14,>=13.0.3; platform_system == \"Linux\" and python_version < \"3.15\"");
	roundtrip("pillow >= 5.3.0, !=8.3.*", "pillow!=8.3.*,>=5.3.0");
	/* extras sorted, duplicates (canonical) dropped */
	roundtrip("Torch[opt_einsum, Gpu,opt_einsum] >= 2.4 , >=2.4.0", "Torch[Gpu,opt_einsum]>=2.4");
	roundtrip("foo[]", "foo");
	roundtrip("foo===1.0,>=2", "foo===1.0,>=2");
}

static void test_applies(void **state)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	struct rr_marker_env env;
	const char *gpu[] = {"test", "Opt_Einsum"};
	bool yes;
	(void)state;

	rr_marker_env_init(&env);
	assert_int_equal(rr_requirement_parse("opt-einsum>=3.3; extra == \"opt-einsum\"", &r, NULL),
			 RR_OK);
	assert_int_equal(rr_requirement_applies(&r, &env, NULL, 0, &yes, NULL), RR_OK);
	assert_false(yes);
	assert_int_equal(rr_requirement_applies(&r, &env, gpu, 1, &yes, NULL), RR_OK);
	assert_false(yes);
	assert_int_equal(rr_requirement_applies(&r, &env, gpu, 2, &yes, NULL), RR_OK);
	assert_true(yes);
	rr_requirement_release(&r);
	assert_int_equal(rr_requirement_parse("filelock", &r, NULL), RR_OK);
	assert_int_equal(rr_requirement_applies(&r, &env, NULL, 0, &yes, NULL), RR_OK);
	assert_true(yes);
	assert_string_equal(r.key, "filelock");
	assert_int_equal(r.spec.n, 0);
	rr_requirement_release(&r);
	assert_int_equal(rr_requirement_parse("x; sys_platform == 'win32' or extra == 'a'", &r, NULL),
			 RR_OK);
	assert_int_equal(rr_requirement_applies(&r, &env, NULL, 0, &yes, NULL), RR_OK);
	assert_false(yes);
	rr_requirement_release(&r);
}

static void test_urls(void **state)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT;
	const char *url = "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2/"
			  "torch-2.9.1%2Brocm7.2.0.lw.git7e1940d4-cp312-cp312-linux_x86_64.whl";
	RR_AUTO_STRBUF struct rr_strbuf in = RR_STRBUF_INIT;
	(void)state;

	rr_strbuf_addf(&in, "torch @ %s", url);
	assert_int_equal(rr_requirement_parse(in.buf, &r, NULL), RR_OK);
	assert_string_equal(r.name, "torch");
	assert_string_equal(r.url, url);
	assert_int_equal(r.spec.n, 0);
	assert_null(r.marker);
	rr_requirement_release(&r);
	/* packaging 23.0 prints "name@ url" */
	rr_strbuf_addf(&in, " ; python_version >= '3.12'");
	assert_int_equal(rr_requirement_parse(in.buf, &r, NULL), RR_OK);
	{
		char *s = rr_requirement_to_string(&r);
		RR_AUTO_STRBUF struct rr_strbuf want = RR_STRBUF_INIT;
		rr_strbuf_addf(&want, "torch@ %s ; python_version >= \"3.12\"", url);
		assert_string_equal(s, want.buf);
		free(s);
	}
	rr_requirement_release(&r);
	/* without the space the ';' belongs to the URL */
	assert_int_equal(rr_requirement_parse("torch @ https://h/t.whl;python_version>'3'", &r, NULL),
			 RR_OK);
	assert_string_equal(r.url, "https://h/t.whl;python_version>'3'");
	assert_null(r.marker);
	rr_requirement_release(&r);
	roundtrip("name[x] @ file:///tmp/x.whl ; extra == 'x'", "name[x]@ file:///tmp/x.whl ; extra == \"x\"");
	reject("foo @ file:/tmp/x.whl", 7, "invalid URL");
	reject("foo @ https:/nohost", 7, "invalid URL");
	reject("foo @ relative/path", 7, "invalid URL");
	reject("foo @ http://[bad]/x", 7, "invalid URL");
	roundtrip("foo @ http://[::1]:8080/x", "foo@ http://[::1]:8080/x");
}

static void test_errors(void **state)
{
	(void)state;
	reject("", 1, "expected package name");
	reject("-foo", 1, "expected package name");
	reject("foo bar", 5, "expected version specifier or '@' after name");
	reject("foo >=1.0 bar", 11, "expected end or ';' after version specifier");
	reject("foo (>=1.0", 11, "expected ')'");
	reject("foo[a b]", 7, "expected ',' between extra names");
	reject("foo[a,]", 7, "expected extra name");
	reject("foo[a", 6, "expected ']'");
	reject("foo @ ", 7, "expected URL");
	reject("foo @ https://h/x bar", 19, "expected end or ';' after URL");
	reject("foo; os_name == 'x' )", 21, "expected 'and', 'or'");
	reject("foo; os_name == \"x", 17, "unterminated string");
	reject("foo===a,b", 4, "invalid specifier");
	reject("foo==1.0; (os_name == 'x'", 26, "expected ')'");
}

static void on_alarm(int sig)
{
	static const char msg[] = "specifier parsing took over 20 s of CPU: not linear\n";
	(void)sig;
	(void)!write(2, msg, sizeof(msg) - 1);
	_exit(1);
}

/*
 * Specifier lists are parsed in linear time. Not a timed test: the sizes take well
 * under a second when parsing is linear (a few seconds under ASan) and minutes when it
 * is quadratic (a cursor that restarts for every specifier: 400k of them; a pairwise
 * duplicate scan: 50k distinct ones), so the alarm after 20 s of CPU time (not wall
 * time: a loaded machine does not trip it) is only a backstop.
 */
static void test_many_specifiers(void **state)
{
	RR_AUTO_STRBUF struct rr_strbuf s = RR_STRBUF_INIT;
	struct rr_requirement r;
	rr_error err = RR_ERROR_INIT;
	size_t col;

	(void)state;
	signal(SIGVTALRM, on_alarm);
	setitimer(ITIMER_VIRTUAL, &(struct itimerval){.it_value = {.tv_sec = 20}}, NULL);
	/* 400k equal specifiers: one is kept */
	rr_strbuf_adds(&s, "a");
	for (size_t i = 0; i < 400000; i++)
		rr_strbuf_adds(&s, i ? ",>=1" : ">=1");
	assert_int_equal(rr_requirement_parse_n(s.buf, s.len, &r, NULL), RR_OK);
	assert_int_equal(r.spec.n, 1);
	rr_requirement_release(&r);
	/* an invalid one after many is reported where its token starts */
	rr_strbuf_setlen(&s, 1 + 1000 * 4 - 1);
	col = s.len + 2;
	rr_strbuf_adds(&s, ",===x,y");
	assert_int_equal(rr_requirement_parse_n(s.buf, s.len, &r, &err), RR_E_PARSE);
	assert_int_equal(err.col, col);
	assert_non_null(strstr(err.msg, "invalid specifier 'y'"));
	rr_error_release(&err);
	/* 50k distinct ones: all kept, in order */
	rr_strbuf_reset(&s);
	rr_strbuf_adds(&s, "a");
	for (size_t i = 0; i < 50000; i++)
		rr_strbuf_addf(&s, "%s>=1.%zu", i ? "," : "", i);
	assert_int_equal(rr_requirement_parse_n(s.buf, s.len, &r, NULL), RR_OK);
	assert_int_equal(r.spec.n, 50000);
	assert_string_equal(r.spec.items[49999].text, "1.49999");
	rr_requirement_release(&r);
	setitimer(ITIMER_VIRTUAL, &(struct itimerval){0}, NULL);
	signal(SIGVTALRM, SIG_DFL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_torch_requires_dist),
		cmocka_unit_test(test_applies),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_many_specifiers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

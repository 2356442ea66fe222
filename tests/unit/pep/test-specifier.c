#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

enum { NONE = RR_PRE_POLICY_DEFAULT, ALLOW = RR_PRE_POLICY_ALLOW, DENY = RR_PRE_POLICY_DENY };

/* SpecifierSet(set).contains(ver, prereleases=pre) must be want */
static void check(const char *set, const char *ver, int pre, bool want)
{
	struct rr_specset ss;
	struct rr_version v;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;

	if (rr_specset_parse(set, &ss, &err))
		fail_msg("'%s': %s", set, err.msg);
	if (rr_version_parse(ver, &v, &err))
		fail_msg("'%s': %s", ver, err.msg);
	if (rr_specset_contains(&ss, &v, (enum rr_pre_policy)pre) != want)
		fail_msg("'%s' contains '%s' (pre policy %d): got %d, want %d", set, ver, pre,
			 !want, want);
	rr_specset_release(&ss);
	rr_version_release(&v);
}

static void test_rocm_locals(void **state)
{
	(void)state;
	/* a specifier without a local label ignores the candidate's */
	check("==2.9.1", "2.9.1+rocm6.4", NONE, true);
	check("==2.9.1", "2.9.1+rocm7.2.0.lw.git7e1940d4", NONE, true);
	check("==2.9.1+rocm6.4", "2.9.1+rocm6.4", NONE, true);
	check("==2.9.1+ROCM6-4", "2.9.1+rocm6.4", NONE, true);
	check("==2.9.1+cu128", "2.9.1+rocm6.4", NONE, false);
	check("==2.9.1+rocm6.4", "2.9.1", NONE, false);
	check("!=2.9.1", "2.9.1+rocm6.4", NONE, false);
	check("!=2.9.1+cu128", "2.9.1+rocm6.4", NONE, true);
	check(">=2.9,<2.10", "2.9.1+rocm7.2.0.lw.git7e1940d4", NONE, true);
	check("<=2.9.1", "2.9.1+rocm6.4", NONE, true);
	check("~=2.9.0", "2.9.1+rocm6.4", NONE, true);
	/* > and < exclude local versions of the named version */
	check(">2.9.1", "2.9.1+rocm6.4", NONE, false);
	check(">2.9.0", "2.9.1+rocm6.4", NONE, true);
	check("<2.9.1", "2.9.1+rocm6.4", NONE, false);
	check("==2.9.*", "2.9.1+rocm6.4", NONE, true);
}

static void test_ordered_ops(void **state)
{
	(void)state;
	check("<3.1", "3.1.dev0", ALLOW, false); /* pre-release of V excluded from <V */
	check("<3.1", "3.0.dev0", ALLOW, true);
	check("<3.1rc2", "3.1rc1", ALLOW, true); /* unless V is itself a pre-release */
	check("<3.1rc2", "3.1rc1", NONE, false); /* but '<' never enables pre-releases */
	check(">3.1", "3.1.post1", NONE, false); /* post-release of V excluded from >V */
	check(">3.1.post0", "3.1.post1", NONE, true);
	check(">3.1", "3.2.post1", NONE, true);
	check(">=1.0", "1.0.0", NONE, true);
	check("<=1.0", "1.0.post1", NONE, false);
	check(">1.0", "1.0.0", NONE, false);
	check("<1!0", "2.0", NONE, true); /* epochs dominate */
	check(">1.0a1", "1.0a2", ALLOW, true);
	check(">1.0a1", "1.0a2", NONE, false); /* ">" never enables pre-releases */
}

static void test_prefix_and_compat(void **state)
{
	(void)state;
	check("==1.0.*", "1.0.5", NONE, true);
	check("==1.0.*", "1.0", NONE, true);
	check("==1.0.0.*", "1", NONE, true); /* zero padding */
	check("==1.0.*", "1.01", NONE, false);
	check("==1.1.*", "1.10", NONE, false);
	check("!=1.0.*", "1.0.post1", NONE, false);
	check("==1.0.*", "1.0.0a1", ALLOW, true);
	check("==1.0.*", "1.0.0a1", NONE, false); /* pre-release not admitted by default */
	/* packaging's token comparison: an epoch turns padding off */
	check("==1!2.0.*", "1!2.0", NONE, false);
	check("==1!2.*", "1!2.0", NONE, true);
	check("==0.*", "1!1.0", NONE, true);
	check("~=2.2", "2.3", NONE, true);
	check("~=2.2", "3.0", NONE, false);
	check("~=2.2.0", "2.3", NONE, false);
	check("~=1.4.5a4", "1.4.9", NONE, true);
	check("~=1.4.5a4", "1.5", NONE, false);
	/* the prefix comes from the text as written */
	check("~=1.0rc1", "1.1", NONE, true);
	check("~=1.0.c1", "1.1", NONE, false);
	check("~=1.0.c1", "1.0.1", NONE, true);
	check("~=2.2.post3", "2.9", NONE, true);
}

static void test_pre_policy(void **state)
{
	(void)state;
	check(">=1.0", "2.0a1", NONE, false);
	check(">=1.0", "2.0a1", ALLOW, true);
	check(">=1.0a1", "2.0a1", NONE, true); /* the set names a pre-release */
	check(">=1.0a1", "2.0a1", DENY, false);
	check("!=1.0a1", "2.0a1", NONE, false); /* != names none */
	check("", "1.0", NONE, true);
	check("", "1.0a1", NONE, false); /* empty set: prereleases=None */
	check("", "1.0a1", ALLOW, true);
	check(">=1.0,<3", "2.0.dev1", NONE, false);
	check("==2.0.dev1", "2.0.dev1", NONE, true);
	check("===2.0.dev1", "2.0.dev1", NONE, true);
	check("===foo", "1.0", NONE, false);
	check("===1.0", "1.0.0", NONE, false); /* string compare, not version compare */
	check("===1.0+LOCAL", "1.0+local", NONE, true);
	check("===1.0+\xe2\x84\xaa", "1.0+k", NONE, true); /* KELVIN SIGN lower()s to 'k' */
}

static void check_bad(const char *set, unsigned col)
{
	struct rr_specset ss = RR_SPECSET_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;

	if (rr_specset_parse(set, &ss, &err) == RR_OK)
		fail_msg("'%s' parsed but should not", set);
	assert_int_equal(err.code, RR_E_PARSE);
	if (col && err.col != col)
		fail_msg("'%s': column %u, want %u (%s)", set, err.col, col, err.msg);
	assert_null(ss.items);
}

static void test_invalid(void **state)
{
	(void)state;
	check_bad(">=1.0+local", 3);
	check_bad("<1.0+local", 2);
	check_bad("~=1.0+local", 0);
	check_bad("~=1", 3);
	check_bad("~=1.*", 0);
	check_bad(">=1.0.*", 0);
	check_bad("==1.0a1.*", 0);
	check_bad("==1.0 .*", 0);
	check_bad("=1.0", 1);
	check_bad("1.0", 1);
	check_bad(">=", 0);
	check_bad(">=1.0;<2", 0);
	check_bad(">=1.0 <2", 0);
	check_bad("===a b", 5);
	check_bad(">=1.0,<2.0,=3", 12);
}

static void test_format_exact(void **state)
{
	struct rr_specset ss;
	struct rr_specset copy;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	(void)state;

	assert_int_equal(rr_specset_parse(" >= 1.0 ,, !=1.5.* ,===Foo ", &ss, NULL), RR_OK);
	assert_int_equal(ss.n, 3);
	rr_specset_format(&ss, &sb);
	assert_string_equal(sb.buf, ">=1.0,!=1.5.*,===Foo");
	assert_ptr_equal(rr_specset_exact(&ss), &ss.items[2]);
	assert_false(rr_specset_mentions_prerelease(&ss));
	rr_specset_copy(&copy, &ss);
	rr_specset_release(&ss);
	rr_specset_add_all(&copy, &copy);
	assert_int_equal(copy.n, 6);
	assert_string_equal(copy.items[5].text, "Foo");
	rr_specset_release(&copy);

	assert_int_equal(rr_specset_parse("==2.9.1+rocm7.2.0.lw.git7e1940d4", &ss, NULL), RR_OK);
	assert_non_null(rr_specset_exact(&ss));
	assert_string_equal(rr_specset_exact(&ss)->ver.local, "rocm7.2.0.lw.git7e1940d4");
	rr_specset_release(&ss);
	assert_int_equal(rr_specset_parse(">=2,==2.9.1", &ss, NULL), RR_OK);
	assert_ptr_equal(rr_specset_exact(&ss), &ss.items[1]);
	rr_specset_release(&ss);
	assert_int_equal(rr_specset_parse("==2.9.1,==2.9.1.0", &ss, NULL), RR_OK);
	assert_null(rr_specset_exact(&ss));
	rr_specset_release(&ss);
	assert_int_equal(rr_specset_parse("==2.*", &ss, NULL), RR_OK);
	assert_null(rr_specset_exact(&ss));
	rr_specset_release(&ss);
	assert_string_equal(rr_spec_op_to_string(RR_OP_COMPAT), "~=");
}

/* === compares the whole text: a NUL byte in it never matches (packaging: str(v) != text);
 * found by fuzz-specifier, where the text was compared only up to the NUL */
static void test_arbitrary_nul(void **state)
{
	static const char spec[] = "===2A2\0\0";
	struct rr_specset set = RR_SPECSET_INIT;
	struct rr_specset copy = RR_SPECSET_INIT;
	struct rr_version v;
	(void)state;

	assert_int_equal(rr_specset_parse_n(spec, sizeof(spec) - 1, &set, NULL), RR_OK);
	assert_int_equal(rr_version_parse("2A-2", &v, NULL), RR_OK); /* 2a2 */
	assert_false(rr_specset_contains(&set, &v, RR_PRE_POLICY_ALLOW));
	assert_false(rr_specset_contains(&set, &v, RR_PRE_POLICY_DEFAULT));
	rr_specset_copy(&copy, &set);
	assert_false(rr_specset_contains(&copy, &v, RR_PRE_POLICY_ALLOW));
	rr_specset_release(&copy);
	/* str() keeps every byte, so the formatted set reparses to the same answer */
	{
		RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
		rr_specset_format(&set, &out);
		assert_int_equal(out.len, sizeof(spec) - 1);
		assert_memory_equal(out.buf, spec, out.len);
		assert_int_equal(rr_specset_parse_n(out.buf, out.len, &copy, NULL), RR_OK);
		assert_false(rr_specset_contains(&copy, &v, RR_PRE_POLICY_ALLOW));
		rr_specset_release(&copy);
	}
	rr_specset_release(&set);
	/* without the NUL it matches, case-insensitively */
	assert_int_equal(rr_specset_parse("===2A2", &set, NULL), RR_OK);
	assert_true(rr_specset_contains(&set, &v, RR_PRE_POLICY_ALLOW));
	rr_specset_release(&set);
	rr_version_release(&v);
}

/*
 * Requires-Python, the one rule (issue 30): the solver forbade a release whose text does
 * not parse while the crawl took it as admitting the venv; both now ask this function
 */
static void test_requires_python(void **state)
{
	struct rr_version py;
	/* invalid for packaging too (SpecifierSet raises) */
	static const char *const invalid[] = {"=>3.8", ">= 3.8.*.*", "~=3", ">=3.6, <4; os_name",
					      ">=3.x"};

	(void)state;
	assert_int_equal(rr_version_parse("3.12.3", &py, NULL), RR_OK);
	assert_int_equal(rr_requires_python(NULL, &py, false), RR_PYTHON_ADMITS);
	assert_int_equal(rr_requires_python(">=3.9", &py, false), RR_PYTHON_ADMITS);
	assert_int_equal(rr_requires_python(">=3.13", &py, false), RR_PYTHON_EXCLUDES);
	/* an upper bound: pip honours it, uv reads only the lower bounds */
	assert_int_equal(rr_requires_python(">=3.8,<3.12", &py, false), RR_PYTHON_EXCLUDES);
	assert_int_equal(rr_requires_python(">=3.8,<3.12", &py, true), RR_PYTHON_ADMITS);
	assert_int_equal(rr_requires_python("~=3.10", &py, true), RR_PYTHON_ADMITS);
	assert_int_equal(rr_requires_python("==3.11.*", &py, true), RR_PYTHON_ADMITS);
	assert_int_equal(rr_requires_python(">3.12.3", &py, true), RR_PYTHON_EXCLUDES);
	/* a text that does not parse admits nothing, for either reading */
	for (size_t i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
		assert_int_equal(rr_requires_python(invalid[i], &py, false), RR_PYTHON_INVALID);
		assert_int_equal(rr_requires_python(invalid[i], &py, true), RR_PYTHON_INVALID);
	}
	rr_version_release(&py);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rocm_locals),       cmocka_unit_test(test_ordered_ops),
	    cmocka_unit_test(test_prefix_and_compat), cmocka_unit_test(test_pre_policy),
	    cmocka_unit_test(test_invalid),           cmocka_unit_test(test_format_exact),
	    cmocka_unit_test(test_arbitrary_nul),     cmocka_unit_test(test_requires_python),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

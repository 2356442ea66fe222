/* the byte-exact editor of pyproject.toml's [tool.uv] keys, checked with toml++ too */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tomledit.h"

static const char *const TBL[] = {"tool", "uv"};
static const char *const V1[] = {"torch", "triton"};
static const char *const V2[] = {"numpy<2"};
static const char ARR1[] = "[\n    \"torch\",  # rocm-resolve: protected\n    \"triton\",\n]";
static const char ARR2[] = "[\"numpy<2\"]";

/* both keys set on text; the result compared with want and checked by toml++ */
static void edit2(const char *text, const char *want)
{
	rr_error err = RR_ERROR_INIT;
	char *one = NULL, *two = NULL;
	size_t n1 = 0, n2 = 0;
	const char *const keys[] = {"exclude-dependencies", "constraint-dependencies"};
	const char *const *vals[] = {V1, V2};
	const size_t nvals[] = {2, 1};

	assert_int_equal(rr_toml_check("p.toml", text, strlen(text), &err), RR_OK);
	if (rr_tomledit_set("p.toml", text, strlen(text), TBL, 2, keys[0], ARR1, &one, &n1, &err) ||
	    rr_tomledit_set("p.toml", one, n1, TBL, 2, keys[1], ARR2, &two, &n2, &err))
		fail_msg("edit failed: %s", err.msg);
	if (want && strcmp(two, want) != 0)
		fail_msg("got:\n%s\n---- want:\n%s", two, want);
	if (rr_toml_check_edit("p.toml", text, strlen(text), two, n2, TBL, 2, keys, vals, nvals, 2,
			       &err))
		fail_msg("toml++ check: %s\n%s", err.msg, two);
	free(one);
	free(two);
}

static void test_absent(void **state)
{
	(void)state;
	/* no [tool.uv]: a new table at the end, after a blank line */
	edit2("[project]\nname = \"p\"\n",
	      "[project]\nname = \"p\"\n\n[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # "
	      "rocm-resolve: protected\n    \"triton\",\n]\nconstraint-dependencies = [\"numpy<2\"]\n");
	/* no trailing line break: the file still ends without one */
	edit2("[project]\nname = \"p\"",
	      "[project]\nname = \"p\"\n\n[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # "
	      "rocm-resolve: protected\n    \"triton\",\n]\nconstraint-dependencies = [\"numpy<2\"]");
	/* an empty file */
	edit2("", "[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # rocm-resolve: protected\n"
		  "    \"triton\",\n]\nconstraint-dependencies = [\"numpy<2\"]\n");
	/* a sub-table first: the new table goes before it */
	edit2("[project]\nname = \"p\"\n\n[[tool.uv.index]]\nurl = \"https://x/simple\"\n",
	      "[project]\nname = \"p\"\n\n[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # "
	      "rocm-resolve: protected\n    \"triton\",\n]\nconstraint-dependencies = [\"numpy<2\"]\n\n"
	      "[[tool.uv.index]]\nurl = \"https://x/simple\"\n");
}

static void test_existing_table(void **state)
{
	(void)state;
	/* keys appended after the table's last key, with its indentation; the comments,
	 * the blank line and the next table untouched */
	edit2("[tool.uv]  # uv settings\n  # keep this\n  index-strategy = \"first-index\"  # why\n\n"
	      "# the ruff part\n[tool.ruff]\nline-length = 100\n",
	      "[tool.uv]  # uv settings\n  # keep this\n  index-strategy = \"first-index\"  # why\n"
	      "  exclude-dependencies = [\n    \"torch\",  # rocm-resolve: protected\n    \"triton\",\n]\n"
	      "  constraint-dependencies = [\"numpy<2\"]\n\n# the ruff part\n[tool.ruff]\n"
	      "line-length = 100\n");
	/* an existing value replaced, quoted key and trailing comment kept */
	edit2("[tool.uv]\n\"exclude-dependencies\" = [ # old\n  \"torch\", # mine\n  'x]y',\n] # end\n"
	      "constraint-dependencies = []\n",
	      "[tool.uv]\n\"exclude-dependencies\" = [\n    \"torch\",  # rocm-resolve: protected\n"
	      "    \"triton\",\n] # end\nconstraint-dependencies = [\"numpy<2\"]\n");
	/* an empty [tool.uv] right before another header */
	edit2("[tool.uv]\n[tool.black]\nx = 1\n",
	      "[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # rocm-resolve: protected\n"
	      "    \"triton\",\n]\nconstraint-dependencies = [\"numpy<2\"]\n[tool.black]\nx = 1\n");
	/* whitespace and quoting in the header */
	edit2("[ tool . \"uv\" ]\nnative-tls = true\n", NULL);
}

static void test_dotted(void **state)
{
	(void)state;
	/* dotted keys at the top: the new keys are dotted the same way, at their place */
	edit2("tool.uv.native-tls = true\n[project]\nname = \"p\"\n",
	      "tool.uv.native-tls = true\ntool.uv.exclude-dependencies = [\n    \"torch\",  # "
	      "rocm-resolve: protected\n    \"triton\",\n]\ntool.uv.constraint-dependencies = "
	      "[\"numpy<2\"]\n[project]\nname = \"p\"\n");
	/* dotted under [tool] */
	edit2("[tool]\nuv.native-tls = true\nblack.line-length = 9\n",
	      "[tool]\nuv.native-tls = true\nuv.exclude-dependencies = [\n    \"torch\",  # "
	      "rocm-resolve: protected\n    \"triton\",\n]\nuv.constraint-dependencies = "
	      "[\"numpy<2\"]\nblack.line-length = 9\n");
	/* the key itself dotted at the top: replaced in place */
	edit2("tool.uv.constraint-dependencies = [\n  \"a\",\n]\n[project]\nname = \"p\"\n",
	      "tool.uv.constraint-dependencies = [\"numpy<2\"]\ntool.uv.exclude-dependencies = [\n"
	      "    \"torch\",  # rocm-resolve: protected\n    \"triton\",\n]\n[project]\nname = \"p\"\n");
}

static void test_crlf_and_strings(void **state)
{
	(void)state;
	/* CRLF documents get CRLF lines, also inside the new value */
	edit2("[project]\r\nname = \"p\"\r\n",
	      "[project]\r\nname = \"p\"\r\n\r\n[tool.uv]\r\nexclude-dependencies = [\r\n    \"torch\","
	      "  # rocm-resolve: protected\r\n    \"triton\",\r\n]\r\nconstraint-dependencies = "
	      "[\"numpy<2\"]\r\n");
	/* a multi-line string that looks like a [tool.uv] table is text, not a table */
	edit2("[project]\ndescription = \"\"\"\n[tool.uv]\nexclude-dependencies = [\"x\"]\n\"\"\"\n"
	      "readme = '''a # not a comment'''\n",
	      "[project]\ndescription = \"\"\"\n[tool.uv]\nexclude-dependencies = [\"x\"]\n\"\"\"\n"
	      "readme = '''a # not a comment'''\n\n[tool.uv]\nexclude-dependencies = [\n    \"torch\","
	      "  # rocm-resolve: protected\n    \"triton\",\n]\nconstraint-dependencies = "
	      "[\"numpy<2\"]\n");
	/* inline tables, arrays of tables, dates and escapes around the table */
	edit2("[project]\nauthors = [{ name = \"A ]\", email = \"a@x\" }]\n"
	      "[tool.uv.sources]\ntorch = { index = \"rocm\" }\n[[tool.uv.index]]\nname = \"rocm\"\n"
	      "url = \"https://x\"\n[tool.other]\nwhen = 1979-05-27 07:32:00Z\nq = \"a\\\"]\\u00e9\"\n",
	      NULL);
}

static void test_inline_refused(void **state)
{
	rr_error err = RR_ERROR_INIT;
	char *out = NULL;
	size_t n;
	static const char t1[] = "[tool]\nuv = { native-tls = true }\n";
	static const char t2[] = "tool = { uv = { native-tls = true } }\n";
	(void)state;

	assert_int_equal(rr_tomledit_set("p.toml", t1, strlen(t1), TBL, 2, "exclude-dependencies",
					 ARR2, &out, &n, &err),
			 RR_E_UNSUPPORTED);
	assert_string_equal(err.path, "p.toml");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 6);
	assert_non_null(strstr(err.msg, "'tool.uv' is an inline table"));
	rr_error_release(&err);
	assert_int_equal(rr_tomledit_set("p.toml", t2, strlen(t2), TBL, 2, "exclude-dependencies",
					 ARR2, &out, &n, &err),
			 RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "'tool' is an inline table"));
	rr_error_release(&err);
	/* [[tool]]: a new [tool.uv] would not parse (fuzz-tomledit found it) */
	static const char t3[] = "[project]\nname = \"p\"\n\n[[tool]]\nurl = \"x\"\n";
	assert_int_equal(rr_tomledit_set("p.toml", t3, strlen(t3), TBL, 2, "exclude-dependencies",
					 ARR2, &out, &n, &err),
			 RR_E_UNSUPPORTED);
	assert_int_equal(err.line, 4);
	assert_non_null(strstr(err.msg, "[[tool]] is an array of tables"));
	rr_error_release(&err);
	/* the key a table already (exclude-dependencies.uv = ...): a second definition would
	 * not parse (fuzz-tomledit found it) */
	static const char t4[] = "[tool.uv]\nexclude-dependencies.uv = [ # x\n]\n";
	assert_int_equal(rr_tomledit_set("p.toml", t4, strlen(t4), TBL, 2, "exclude-dependencies",
					 ARR2, &out, &n, &err),
			 RR_E_UNSUPPORTED);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "'exclude-dependencies' is a table here"));
	rr_error_release(&err);
	/* the key a table by its own header: the same (fuzz-tomledit found it) */
	static const char t5[] = "[tool.uv.exclude-dependencies]\t\t";
	assert_int_equal(rr_tomledit_set("p.toml", t5, strlen(t5), TBL, 2, "exclude-dependencies",
					 ARR2, &out, &n, &err),
			 RR_E_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "'exclude-dependencies' is a table here"));
	rr_error_release(&err);
}

static void test_get_array(void **state)
{
	struct rr_toml_array a;
	rr_error err = RR_ERROR_INIT;
	static const char t[] = "[tool.uv]\nconstraint-dependencies = [\n"
				"  \"demo==1.0\",  # rocm-resolve: held back\n"
				"  'pandas<2', \"x\\u00e9\" # mine\n"
				"  # a comment line\n"
				"]\n";
	(void)state;

	assert_int_equal(rr_tomledit_get_array("p.toml", t, strlen(t), TBL, 2,
					       "constraint-dependencies", &a, &err),
			 RR_OK);
	assert_true(a.found);
	assert_int_equal(a.n, 3);
	assert_string_equal(a.v[0].value, "demo==1.0");
	assert_string_equal(a.v[0].comment, "rocm-resolve: held back");
	assert_int_equal(a.v[0].line, 3);
	assert_string_equal(a.v[1].value, "pandas<2");
	assert_null(a.v[1].comment); /* the comment after "x\u00e9" is not pandas's */
	assert_string_equal(a.v[2].value, "x\xc3\xa9");
	assert_string_equal(a.v[2].comment, "mine");
	rr_toml_array_release(&a);

	assert_int_equal(rr_tomledit_get_array("p.toml", t, strlen(t), TBL, 2,
					       "exclude-dependencies", &a, &err),
			 RR_OK);
	assert_false(a.found);
	rr_toml_array_release(&a);

	static const char bad[] = "[tool.uv]\nexclude-dependencies = \"torch\"\n";
	assert_int_equal(rr_tomledit_get_array("p.toml", bad, strlen(bad), TBL, 2,
					       "exclude-dependencies", &a, &err),
			 RR_E_PARSE);
	assert_int_equal(err.line, 2);
	assert_int_equal(err.col, 24);
	rr_error_release(&err);
	/* issue 33: a NUL or a line break in an entry is refused, not cut short (caf3dbd
	 * read "requests\u0000 @ file:///etc/passwd" as "requests") */
	static const char nul[] = "[tool.uv]\nconstraint-dependencies = [\n"
				  "  \"requests\\u0000 @ file:///etc/passwd\",\n]\n";
	assert_int_equal(rr_tomledit_get_array("p.toml", nul, strlen(nul), TBL, 2,
					       "constraint-dependencies", &a, &err),
			 RR_E_PARSE);
	assert_int_equal(err.line, 3);
	assert_int_equal(err.col, 4);
	assert_non_null(strstr(err.msg, "an entry of 'constraint-dependencies' holds U+0000"));
	rr_error_release(&err);
	static const char lf[] = "[tool.uv]\nexclude-dependencies = [\"a\\nb\"]\n";
	assert_int_equal(rr_tomledit_get_array("p.toml", lf, strlen(lf), TBL, 2,
					       "exclude-dependencies", &a, &err),
			 RR_E_PARSE);
	assert_non_null(strstr(err.msg, "U+000A"));
	rr_error_release(&err);
}

/* the checker itself: an edit that touches another byte's meaning is caught */
static void test_check_edit_catches(void **state)
{
	rr_error err = RR_ERROR_INIT;
	static const char before[] = "[project]\nname = \"p\"\n";
	static const char after[] = "[project]\nname = \"q\"\n[tool.uv]\nexclude-dependencies = [\"torch\", \"triton\"]\n";
	static const char after2[] = "[project]\nname = \"p\"\n[tool.uv]\nexclude-dependencies = [\"torch\"]\n";
	const char *const keys[] = {"exclude-dependencies"};
	const char *const *vals[] = {V1};
	const size_t nvals[] = {2};
	(void)state;

	assert_int_equal(rr_toml_check_edit("p.toml", before, strlen(before), after, strlen(after),
					    TBL, 2, keys, vals, nvals, 1, &err),
			 RR_E_INTERNAL);
	assert_non_null(strstr(err.msg, "more than the keys"));
	rr_error_release(&err);
	assert_int_equal(rr_toml_check_edit("p.toml", before, strlen(before), after2, strlen(after2),
					    TBL, 2, keys, vals, nvals, 1, &err),
			 RR_E_INTERNAL);
	assert_non_null(strstr(err.msg, "intended 'exclude-dependencies'"));
	rr_error_release(&err);
}

/* set_ours on one key; the result compared with want, checked by toml++ (the user's
 * entries kept), and a second call with the same lines changes nothing */
static void ours(const char *key, const char *text, const char *const *lines, size_t nlines,
		 const char *want)
{
	rr_error err = RR_ERROR_INIT;
	char *one = NULL, *two = NULL;
	size_t n1 = 0, n2 = 0;

	assert_int_equal(rr_toml_check("p.toml", text, strlen(text), &err), RR_OK);
	if (rr_tomledit_set_ours("p.toml", text, strlen(text), TBL, 2, key, "rocm-resolve:", lines,
				 nlines, &one, &n1, &err))
		fail_msg("edit failed: %s", err.msg);
	if (strcmp(one, want) != 0)
		fail_msg("got:\n%s\n---- want:\n%s", one, want);
	if (rr_toml_check("p.toml", one, n1, &err))
		fail_msg("does not parse: %s\n%s", err.msg, one);
	if (rr_tomledit_set_ours("p.toml", one, n1, TBL, 2, key, "rocm-resolve:", lines, nlines,
				 &two, &n2, &err))
		fail_msg("second edit failed: %s", err.msg);
	if (n1 != n2 || memcmp(one, two, n1) != 0)
		fail_msg("not idempotent:\n%s\n---- then:\n%s", one, two);
	free(one);
	free(two);
}

/* issue 28 item 6: the user's entries, comments and commented-out entries stay where and
 * as they are; only the tool's entries (marked "rocm-resolve:") change */
static void test_set_ours(void **state)
{
	static const char *const ex[] = {"\"torch\",  # rocm-resolve: protected",
					 "\"triton\",  # rocm-resolve: protected"};
	static const char *const co[] = {"\"numpy==1.26.4\",  # rocm-resolve: held back"};
	(void)state;

	/* the array-comment file of issue 28 */
	ours("constraint-dependencies",
	     "[tool.uv]\nexclude-dependencies = [\"pywin32\"]  # windows only\n"
	     "constraint-dependencies = [\n    \"requests<3\",   # mine: corp policy\n"
	     "    # \"urllib3<2\",\n]\n",
	     co, 1,
	     "[tool.uv]\nexclude-dependencies = [\"pywin32\"]  # windows only\n"
	     "constraint-dependencies = [\n    \"numpy==1.26.4\",  # rocm-resolve: held back\n"
	     "    \"requests<3\",   # mine: corp policy\n    # \"urllib3<2\",\n]\n");
	/* the user's entry on the '[' line: ours on lines before it, the trailing comment
	 * stays on the user's line */
	ours("exclude-dependencies",
	     "[tool.uv]\nexclude-dependencies = [\"pywin32\"]  # windows only\n", ex, 2,
	     "[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # rocm-resolve: protected\n"
	     "    \"triton\",  # rocm-resolve: protected\n    \"pywin32\"]  # windows only\n");
	/* an empty array; a comment after '['; the user's indentation */
	ours("exclude-dependencies", "[tool.uv]\nexclude-dependencies = []\n", ex, 1,
	     "[tool.uv]\nexclude-dependencies = [\n    \"torch\",  # rocm-resolve: protected\n]\n");
	ours(
	    "exclude-dependencies",
	    "[tool.uv]\nexclude-dependencies = [  # mine\n  \"a\",\n\n  \"b\",  # b!\n]\n", ex, 2,
	    "[tool.uv]\nexclude-dependencies = [  # mine\n  \"torch\",  # rocm-resolve: protected\n"
	    "  \"triton\",  # rocm-resolve: protected\n  \"a\",\n\n  \"b\",  # b!\n]\n");
	/* ours among the user's lines: replaced where they are, stale ones gone, the rest kept */
	ours("exclude-dependencies",
	     "[tool.uv]\nexclude-dependencies = [\n  \"a\",  # mine\n"
	     "  \"old\",  # rocm-resolve: stale\n  \"torch\",  # rocm-resolve: protected\n"
	     "  # \"c\",\n  \"d\",\n]\n",
	     ex, 2,
	     "[tool.uv]\nexclude-dependencies = [\n  \"a\",  # mine\n"
	     "  \"torch\",  # rocm-resolve: protected\n  \"triton\",  # rocm-resolve: protected\n"
	     "  # \"c\",\n  \"d\",\n]\n");
	/* no lines: ours removed, nothing else */
	ours("exclude-dependencies",
	     "[tool.uv]\nexclude-dependencies = [\n  \"a\",\n  \"torch\",  # rocm-resolve: p\n]\n",
	     NULL, 0, "[tool.uv]\nexclude-dependencies = [\n  \"a\",\n]\n");
	/* ours after the user's entry on one line: from its string on */
	ours("exclude-dependencies",
	     "[tool.uv]\nexclude-dependencies = [\n  \"a\", \"torch\",  # rocm-resolve: p\n]\n",
	     NULL, 0, "[tool.uv]\nexclude-dependencies = [\n  \"a\", \n]\n");
	/* CRLF, dotted at the top, no final line break */
	ours("exclude-dependencies",
	     "tool.uv.exclude-dependencies = [\r\n  \"a\",\r\n]\r\n[project]\r\nname = \"p\"", ex,
	     1,
	     "tool.uv.exclude-dependencies = [\r\n  \"torch\",  # rocm-resolve: protected\r\n"
	     "  \"a\",\r\n]\r\n[project]\r\nname = \"p\"");
	/* no such key: added, as rr_tomledit_set adds one; none added for no lines */
	ours("exclude-dependencies", "[project]\nname = \"p\"\n", ex, 1,
	     "[project]\nname = \"p\"\n\n[tool.uv]\nexclude-dependencies = [\n"
	     "    \"torch\",  # rocm-resolve: protected\n]\n");
	ours("exclude-dependencies", "[project]\nname = \"p\"\n", NULL, 0,
	     "[project]\nname = \"p\"\n");
	/* fuzz-tomledit: one of ours with its comma on a later line, after its comment; cut
	 * out, it left that comma behind and the edit would not parse: refused instead */
	{
		const char *text = "[tool.uv]\nconstraint-dependencies = [\n"
				   "    \"requests<3\"   # rocm-resolve: held back\n"
				   "    # \"urllib3<2\"\n,\n]\n";
		rr_error err = RR_ERROR_INIT;
		char *out = NULL;
		size_t n = 0;
		assert_int_equal(rr_toml_check("p.toml", text, strlen(text), &err), RR_OK);
		assert_int_equal(rr_tomledit_set_ours("p.toml", text, strlen(text), TBL, 2,
						      "constraint-dependencies",
						      "rocm-resolve:", co, 1, &out, &n, &err),
				 RR_E_UNSUPPORTED);
		assert_int_equal(err.line, 3);
		assert_int_equal(err.col, 5);
		assert_non_null(strstr(err.msg, "comma on a later line"));
		assert_null(out);
		rr_error_release(&err);
		/* fuzz-tomledit: [[tool]] above [tool.uv], refused as rr_tomledit_set refuses it
		 * (the edit did not hold the intended array) */
		text = "[[tool]]\nd = 1\n\n[tool.uv]\nconstraint-dependencies = [\n"
		       "    \"requests<3\",\n]\n";
		assert_int_equal(rr_toml_check("p.toml", text, strlen(text), &err), RR_OK);
		assert_int_equal(rr_tomledit_set_ours("p.toml", text, strlen(text), TBL, 2,
						      "constraint-dependencies",
						      "rocm-resolve:", co, 1, &out, &n, &err),
				 RR_E_UNSUPPORTED);
		assert_non_null(strstr(err.msg, "[[tool]] is an array of tables"));
		assert_null(out);
		rr_error_release(&err);
		assert_int_equal(rr_tomledit_set("p.toml", text, strlen(text), TBL, 2,
						 "constraint-dependencies", "[]", &out, &n, &err),
				 RR_E_UNSUPPORTED);
		assert_null(out);
		rr_error_release(&err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_absent),
	    cmocka_unit_test(test_existing_table),
	    cmocka_unit_test(test_dotted),
	    cmocka_unit_test(test_crlf_and_strings),
	    cmocka_unit_test(test_inline_refused),
	    cmocka_unit_test(test_get_array),
	    cmocka_unit_test(test_check_edit_catches),
	    cmocka_unit_test(test_set_ours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

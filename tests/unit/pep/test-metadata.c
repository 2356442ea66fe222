#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "rocm-resolve/metadata.h"
#include "rocm-resolve/strbuf.h"

static rr_err parse(const char *text, struct rr_metadata *m, rr_error *e)
{
	return rr_metadata_parse(text, strlen(text), "METADATA", m, e);
}

static void test_metadata_basic(void **state)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;
	const char *t = "Metadata-Version: 2.1\r\n"
			"name: torchaudio\r\n"
			"Version: 2.9.0+rocm7.2.0.gite3c6ee2b\r\n"
			"Requires-Python: >=3.10\r\n"
			"Requires-Dist: torch==2.9.1\r\n"
			"Requires-Dist: \r\n"
			"Provides-Extra: ffmpeg\r\n"
			"Dynamic: license-file\r\n"
			"Name: second-name-ignored\r\n"
			"\r\n"
			"Requires-Dist: body-is-not-headers\r\n";
	(void)state;

	assert_int_equal(parse(t, &m, &e), RR_OK);
	assert_string_equal(m.name, "torchaudio");
	assert_string_equal(m.version, "2.9.0+rocm7.2.0.gite3c6ee2b");
	assert_string_equal(m.metadata_version, "2.1");
	assert_string_equal(m.requires_python, ">=3.10");
	/* the empty Requires-Dist and the body line are not requirements */
	assert_int_equal(m.nrequires_dist, 1);
	assert_string_equal(m.requires_dist[0], "torch==2.9.1");
	assert_int_equal(m.nprovides_extra, 1);
	assert_string_equal(m.provides_extra[0], "ffmpeg");
	assert_int_equal(m.ndynamic, 1);
	rr_metadata_release(&m);
	assert_null(m.name);
}

static void test_metadata_continuation(void **state)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;
	const char *t = "\xEF\xBB\xBFMetadata-Version: 1.2\n"
			"Name: numpy\n"
			"License: Copyright (c) 2005\n"
			"        All rights reserved.\n"
			"\t\n"
			"Version: 2.4.1\n"
			"Requires-Dist: foo>=1;\n"
			"\tpython_version < \"3.13\"\n"
			"Summary: one\n"
			"  two\n";
	(void)state;

	assert_int_equal(parse(t, &m, &e), RR_OK);
	assert_string_equal(m.name, "numpy");
	assert_string_equal(m.version, "2.4.1");
	assert_int_equal(m.nrequires_dist, 1);
	assert_string_equal(m.requires_dist[0], "foo>=1; python_version < \"3.13\"");
	assert_string_equal(m.summary, "one two");
	rr_metadata_release(&m);
}

static void expect_error(const char *t, unsigned line, unsigned col, const char *msg_part)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	assert_int_equal(rr_metadata_parse(t, strlen(t), "M", &m, &e),
			 RR_E_PARSE);
	assert_null(m.name);
	rr_error_format(&e, &sb);
	if (!strstr(sb.buf, msg_part))
		fail_msg("'%s' lacks '%s'", sb.buf, msg_part);
	assert_int_equal(e.line, line);
	assert_int_equal(e.col, col);
	rr_error_release(&e);
}

static void test_metadata_errors(void **state)
{
	(void)state;
	expect_error("Name: x\nthis is not a header\nVersion: 1\n", 2, 5, "M:2:5: expected");
	expect_error("  leading\nName: x\n", 1, 1, "continuation line before");
	expect_error("Name: x\n: y\n", 2, 1, "empty header field name");
	expect_error("Version: 1\n", 1, 0, "no 'Name' field");
	expect_error("Name: x\n\nVersion: 1\n", 0, 0, "no 'Version' field");
	expect_error("Name: bad name!\nVersion: 1\n", 0, 0, "invalid project name 'bad name!'");
	expect_error("Name:\nVersion: 1\n", 0, 0, "empty 'Name'");
}

static void test_metadata_nul(void **state)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;
	static const char t[] = "Name: x\nVer\0sion: 1\n";
	(void)state;

	assert_int_equal(rr_metadata_parse(t, sizeof(t) - 1, "M", &m, &e), RR_E_PARSE);
	assert_int_equal(e.line, 2);
	assert_int_equal(e.col, 4);
	rr_error_release(&e);
	/* a NUL after the header block is the body's business */
	static const char u[] = "Name: x\nVersion: 1\n\n\0";
	assert_int_equal(rr_metadata_parse(u, sizeof(u) - 1, "M", &m, &e), RR_OK);
	rr_metadata_release(&m);
	/* no trailing newline */
	assert_int_equal(rr_metadata_parse("Name: x\nVersion: 3", 18, NULL, &m, &e), RR_OK);
	assert_string_equal(m.version, "3");
	rr_metadata_release(&m);
}

static void test_requires_txt(void **state)
{
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error e = RR_ERROR_INIT;
	const char *req = "numpy>=1.20\n\n[gpu]\ncupy-cuda12x\n\n[:python_version < \"3.11\"]\ntomli\n"
			  "[test:sys_platform == \"linux\"]\npytest\n[url]\nfoo@ https://x/y.whl\n";
	(void)state;

	assert_int_equal(parse("Name: oldpkg\nVersion: 2.3\nRequires-Dist: a\n", &m, &e), RR_OK);
	rr_metadata_add_requires_txt(&m, req, strlen(req));
	assert_int_equal(m.nrequires_dist, 6);
	assert_string_equal(m.requires_dist[0], "a");
	assert_string_equal(m.requires_dist[1], "numpy>=1.20");
	assert_string_equal(m.requires_dist[2], "cupy-cuda12x; extra == \"gpu\"");
	assert_string_equal(m.requires_dist[3], "tomli; python_version < \"3.11\"");
	assert_string_equal(m.requires_dist[4],
			    "pytest; (sys_platform == \"linux\") and extra == \"test\"");
	assert_string_equal(m.requires_dist[5], "foo@ https://x/y.whl ; extra == \"url\"");
	rr_metadata_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metadata_basic),
		cmocka_unit_test(test_metadata_continuation),
		cmocka_unit_test(test_metadata_errors),
		cmocka_unit_test(test_metadata_nul),
		cmocka_unit_test(test_requires_txt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* the stack file: reader and writer (include/rocm-resolve/stack-file.h) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"

static const char stack_file_doc[] =
	"{\"schema\":3,\"venv\":\"/opt/venv\",\"python\":\"3.10.14\","
	"\"bridged_sites\":[\"/opt/base/site-packages\"],"
	"\"markers\":{\"sys_platform\":\"win32\",\"platform_machine\":\"aarch64\","
	"\"python_version\":\"3.10\",\"python_full_version\":\"3.10.14\",\"some_future_var\":\"x\"},"
	"\"platform\":{\"machine\":\"aarch64\",\"glibc\":\"2.28\"},"
	"\"torch\":{\"version\":\"2.1.2+git70dfd51\",\"hip\":\"5.7.1\",\"cuda\":null},"
	"\"warnings\":[\"w1\"],\"protected\":[],"
	"\"distributions\":["
	"{\"name\":\"Torch\",\"version\":\"2.1.2+git70dfd51\",\"requires_python\":\">=3.8\","
	"\"requires_dist\":[\"triton==2.1.0 ; platform_machine == 'aarch64'\"],"
	"\"top_level\":[\"functorch\",\"torch\"],\"bridged\":true,"
	"\"site\":\"/opt/base/site-packages\",\"path\":\"/opt/base/site-packages/torch.dist-info\"},"
	"{\"name\":\"broken\",\"version\":null,\"problem\":\"METADATA missing\"},"
	"{\"name\":\"bad-version\",\"version\":\"not.a.version!\"}]}";

static void test_stack_file(void **state)
{
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	const struct rr_dist *d;
	struct rr_marker_env env;
	struct rr_target t;
	char pybuf[16];
	(void)state;

	assert_int_equal(rr_stack_file_parse(stack_file_doc, strlen(stack_file_doc), "s.json", &v, &e),
			 RR_OK);
	assert_string_equal(v->stack_file, "s.json");
	assert_string_equal(v->root, "/opt/venv");
	assert_string_equal(v->python_version, "3.10.14");
	assert_int_equal(v->ndists, 3);
	/* sorted by normalised key, whatever the document's order */
	assert_string_equal(v->dists[0].key, "bad-version");
	assert_string_equal(v->dists[2].key, "torch");
	d = rr_venv_lookup(v, "torch");
	assert_string_equal(d->name, "Torch");
	assert_true(d->version_ok);
	assert_string_equal(d->version.local, "git70dfd51");
	assert_true(d->bridged);
	assert_int_equal(d->meta.nrequires_dist, 1);
	assert_string_equal(d->meta.requires_python, ">=3.8");
	assert_int_equal(d->ntop_level, 2);
	assert_string_equal(d->top_level[1], "torch");
	d = rr_venv_lookup(v, "broken");
	assert_string_equal(d->problem, "METADATA missing");
	assert_false(d->version_ok);
	/* defaults for a dist without site/path: the environment's */
	assert_non_null(strstr(d->path, "/opt/venv/broken-"));
	assert_false(rr_venv_lookup(v, "bad-version")->version_ok);
	assert_string_equal(v->torch_hip, "5.7.1");
	assert_null(v->torch_cuda);
	assert_int_equal(v->nwarnings, 1);

	/* the recorded marker environment, not this host's defaults */
	rr_venv_marker_env(v, &env, pybuf);
	assert_string_equal(env.vars[RR_MVAR_SYS_PLATFORM], "win32");
	assert_string_equal(env.vars[RR_MVAR_PLATFORM_MACHINE], "aarch64");
	assert_string_equal(env.vars[RR_MVAR_PYTHON_VERSION], "3.10");
	assert_string_equal(env.vars[RR_MVAR_OS_NAME], "posix"); /* not recorded: default */
	assert_string_equal(env.vars[RR_MVAR_EXTRA], "");
	/* and its wheel platform */
	rr_venv_target(v, &t);
	assert_string_equal(t.machine, "aarch64");
	assert_int_equal(t.glibc_major, 2);
	assert_int_equal(t.glibc_minor, 28);
	assert_int_equal(t.py_minor, 10);
	rr_venv_free(v);
}

static void expect_stack_file_error(const char *doc, rr_err code, const char *part)
{
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;

	assert_int_equal(rr_stack_file_parse(doc, strlen(doc), "s.json", &v, &e), code);
	assert_null(v);
	if (!strstr(e.msg, part))
		fail_msg("'%s' lacks '%s'", e.msg, part);
	rr_error_release(&e);
}

static void test_stack_file_errors(void **state)
{
	(void)state;
	expect_stack_file_error("{\"schema\":4,\"distributions\":[]}", RR_E_UNSUPPORTED,
			      "has schema 4, newer");
	expect_stack_file_error("{\"schema\":2,\"distributions\":[]}", RR_E_UNSUPPORTED,
			      "older rocm-resolve");
	expect_stack_file_error("[]", RR_E_PARSE, "not a JSON object");
	expect_stack_file_error("{\"schema\":3}", RR_E_PARSE, "no \"distributions\"");
	expect_stack_file_error("{\"schema\":3,\"distributions\":[]", RR_E_PARSE, "not valid JSON");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\",\"distributions\":[{\"name\":\"a\","
			      "\"top_level\":[1]}]}",
			      RR_E_PARSE, "distributions[0].top_level must be an array of strings");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\",\"distributions\":[{\"name\":\"a b\"}]}",
			      RR_E_PARSE, "distributions[0].name must be a distribution name");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\",\"distributions\":[{\"name\":\"A\"},"
			      "{\"name\":\"a\"}]}",
			      RR_E_PARSE, "'a' is listed twice");
	expect_stack_file_error("{\"schema\":3,\"distributions\":[]}", RR_E_PARSE, "venv must be a string");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\",\"torch\":{\"hip\":5},"
			      "\"distributions\":[]}",
			      RR_E_PARSE, "torch.hip must be a string or null");
	/* text that reaches a plan line: no line break, no NUL (issue 33) */
	expect_stack_file_error(
	    "{\"schema\":3,\"venv\":\"/v\",\"distributions\":[{\"name\":\"torch\","
	    "\"version\":\"2.9.1\\nnvidia-cublas-cu12\"}]}",
	    RR_E_PARSE, "distributions[0].version holds U+000A (a line break)");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\\u2028x\",\"distributions\":[]}",
				RR_E_PARSE, "venv holds U+2028");
	expect_stack_file_error("{\"schema\":3,\"venv\":\"/v\",\"distributions\":[{\"name\":\"a\","
				"\"requires_dist\":[\"b\\u000bc\"]}]}",
				RR_E_PARSE, "distributions[0].requires_dist[0] holds U+000B");
}

static void test_stack_file_missing_file(void **state)
{
	/* a stack file that does not exist: RR_E_IO (exit 2: the user named it) */
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_stack_file_load("/nonexistent/stack.json", &v, &e), RR_E_IO);
	assert_non_null(strstr(e.msg, "cannot open stack file '/nonexistent/stack.json'"));
	rr_error_release(&e);
}

/*
 * a direct URL's password is redacted as a live load redacts it, also when the file was
 * written by hand (or by an older version) with the password in it; and what the writer
 * writes, the reader reads back the same
 */
static void test_stack_file_redacts_and_round_trips(void **state)
{
	static const char doc[] =
		"{\"schema\":3,\"venv\":\"/opt/venv\",\"python\":\"3.12.3\",\"distributions\":["
		"{\"name\":\"torch\",\"version\":\"2.9.1+rocm7.2.0\",\"top_level\":[\"torch\"],"
		"\"direct_url\":\"https://alice:s3cret@repo.example/torch-2.9.1+rocm7.2.0-cp312-cp312-"
		"linux_x86_64.whl\"},"
		"{\"name\":\"tok\",\"version\":\"1.0\",\"direct_url\":\"https://ghp_T0KEN@h.example/t.whl\"}]}";
	struct rr_venv *v = NULL;
	struct rr_venv *again = NULL;
	struct rr_policy *pol = NULL;
	struct rr_stack *st = NULL;
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_stack_file_parse(doc, strlen(doc), "s.json", &v, &e), RR_OK);
	assert_string_equal(rr_venv_lookup(v, "torch")->direct_url,
			    "https://alice:****@repo.example/torch-2.9.1+rocm7.2.0-cp312-cp312-"
			    "linux_x86_64.whl");
	assert_string_equal(rr_venv_lookup(v, "tok")->direct_url, "https://****@h.example/t.whl");
	assert_int_equal(rr_policy_load_default(&pol, &e), RR_OK);
	assert_int_equal(rr_stack_compute(v, pol, NULL, 0, &st, &e), RR_OK);
	rr_stack_file_format(v, st, &out);
	assert_null(strstr(out.buf, "s3cret"));
	assert_null(strstr(out.buf, "T0KEN"));
	assert_int_equal(rr_stack_file_parse(out.buf, out.len, "again.json", &again, &e), RR_OK);
	assert_int_equal(again->ndists, v->ndists);
	for (size_t i = 0; i < v->ndists; i++) {
		assert_string_equal(again->dists[i].key, v->dists[i].key);
		assert_string_equal(again->dists[i].version_text, v->dists[i].version_text);
		assert_string_equal(again->dists[i].direct_url, v->dists[i].direct_url);
	}
	assert_string_equal(again->python_version, "3.12.3");
	rr_stack_free(st);
	rr_policy_free(pol);
	rr_venv_free(again);
	rr_venv_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_file),
		cmocka_unit_test(test_stack_file_errors),
		cmocka_unit_test(test_stack_file_missing_file),
		cmocka_unit_test(test_stack_file_redacts_and_round_trips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

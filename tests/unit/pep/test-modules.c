/* the one rule for "which modules does this distribution provide", as a table */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/modules.h"
#include "rocm-resolve/strbuf.h"

static const struct {
	const char *what;
	const char *record[8];
	const char *provides; /* space-separated, sorted */
} table[] = {
	{"a module file", {"six.py", "six-1.17.0.dist-info/RECORD"}, "six"},
	{"an extension module", {"_cffi_backend.cpython-312-x86_64-linux-gnu.so"}, "_cffi_backend"},
	{"a Windows extension", {"_foo.cp312-win_amd64.pyd"}, "_foo"},
	{"a regular package", {"triton/__init__.py", "triton/_C/libtriton.so",
			       "triton/language/core.py"}, "triton"},
	{"a package whose __init__ is compiled", {"foo/__init__.cpython-312-x86_64-linux-gnu.so",
						  "foo/bar.py"}, "foo"},
	{"a namespace package: its portion, not the namespace",
	 {"nvidia/cublas/__init__.py", "nvidia/cublas/lib/libcublas.so.12"}, "nvidia.cublas"},
	{"a nested namespace", {"google/cloud/storage/__init__.py", "google/cloud/storage/blob.py"},
	 "google.cloud.storage"},
	{"a module directly in a namespace", {"ns/mod.py", "ns/data/x.json"}, "ns.mod"},
	{"two portions in one distribution", {"azure/core/__init__.py", "azure/mgmt/__init__.py"},
	 "azure.core azure.mgmt"},
	{"a .pth-only distribution", {"distutils-precedence.pth", "_virtualenv.pth"}, ""},
	{"a .pth next to its module", {"_virtualenv.pth", "_virtualenv.py"}, "_virtualenv"},
	{"a setuptools editable install", {"__editable__.foo-1.0.pth",
					   "__editable___foo_1_0_finder.py",
					   "foo-1.0.dist-info/RECORD"}, ""},
	{"metadata, data, scripts and bytecode",
	 {"x-1.dist-info/METADATA", "x-1.data/scripts/run", "../../../bin/x", "__pycache__/y.pyc",
	  "x.egg-info/PKG-INFO"}, ""},
	{"a data-only directory", {"share/doc/readme.txt"}, ""},
};

static void test_table(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(table) / sizeof(*table); t++) {
		size_t n = 0, nm = 0;
		char **mods = NULL;
		RR_AUTO_STRBUF struct rr_strbuf got = RR_STRBUF_INIT;

		while (n < 8 && table[t].record[n])
			n++;
		rr_modules_from_record(table[t].record, n, &mods, &nm);
		for (size_t i = 0; i < nm; i++) {
			rr_strbuf_addf(&got, "%s%s", i ? " " : "", mods[i]);
			free(mods[i]);
		}
		free(mods);
		if (strcmp(got.buf ? got.buf : "", table[t].provides))
			fail_msg("%s: got '%s', want '%s'", table[t].what, got.buf ? got.buf : "",
				 table[t].provides);
	}
}

static void test_finder(void **state)
{
	static const char text[] =
		"import sys\n"
		"MAPPING: dict[str, str] = {'foo': '/src/foo', \"bar\": '/src/bar/bar'}\n"
		"NAMESPACES: dict[str, list[str]] = {'ns': ['/src/ns']}\n";
	char **v = NULL;
	size_t n = 0;
	(void)state;

	assert_true(rr_modules_is_finder("__editable___foo_1_0_finder.py"));
	assert_false(rr_modules_is_finder("foo/__editable___x_finder.py"));
	assert_false(rr_modules_is_finder("__editable__.foo-1.0.pth"));
	rr_modules_from_finder(text, sizeof(text) - 1, &v, &n);
	assert_int_equal(n, 2);
	assert_string_equal(v[0], "bar");
	assert_string_equal(v[1], "foo");
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_finder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* uv.lock and pylock.toml: parsing, checking, and what installing them selects */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/lockfile.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/strbuf.h"

static char *fixture(const char *rel)
{
	const char *src = getenv("RR_SRCDIR");
	return rr_xasprintf("%s/fixtures/locks/%s", src ? src : ".", rel);
}

static char *fmt_err(const rr_error *err)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error_format(err, &sb);
	return rr_strbuf_detach(&sb, NULL);
}

/* a CPython on x86_64 Linux of the given version */
static void env_for(struct rr_marker_env *env, const char *py, char buf[16])
{
	rr_marker_env_init(env);
	rr_marker_env_set_python(env, py, buf);
}

/* the selected items' texts, one per line, for compact comparisons */
static char *texts(const struct rr_reqset *set)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	for (size_t i = 0; i < set->nitems; i++)
		rr_strbuf_addf(&sb, "%s%s\n", set->items[i].editable ? "-e " : "", set->items[i].text);
	return rr_strbuf_detach(&sb, NULL);
}

static char *select_text(const struct rr_lock *lk, const char *py, const struct rr_input_sel *sel)
{
	struct rr_marker_env env;
	char buf[16];
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	char *t;

	env_for(&env, py, buf);
	assert_int_equal(rr_lock_select(lk, &env, sel, &set, &err), RR_OK);
	t = texts(&set);
	rr_reqset_release(&set);
	return t;
}

static void test_format_of(void **state)
{
	(void)state;
	assert_int_equal(rr_lock_format_of("uv.lock"), RR_LOCK_UV);
	assert_int_equal(rr_lock_format_of("a/b/uv.lock"), RR_LOCK_UV);
	assert_int_equal(rr_lock_format_of("pylock.toml"), RR_LOCK_PYLOCK);
	assert_int_equal(rr_lock_format_of("x/pylock.gpu.toml"), RR_LOCK_PYLOCK);
	/* PEP 751: the name between the dots is non-empty and has no dot */
	assert_int_equal(rr_lock_format_of("pylock..toml"), RR_LOCK_NONE);
	assert_int_equal(rr_lock_format_of("pylock.a.b.toml"), RR_LOCK_NONE);
	assert_int_equal(rr_lock_format_of("pyproject.toml"), RR_LOCK_NONE);
	assert_int_equal(rr_lock_format_of("poetry.lock"), RR_LOCK_NONE);
	assert_int_equal(rr_lock_format_of("requirements.lock"), RR_LOCK_NONE);
}

/* a universal uv.lock written by uv 0.13.9: numpy at two versions, one per Python range */
static void test_uv_universal(void **state)
{
	struct rr_lock lk = RR_LOCK_INIT;
	rr_error err = RR_ERROR_INIT;
	RR_AUTOFREE char *p = fixture("universal/uv.lock");
	(void)state;

	assert_int_equal(rr_lock_load(&lk, p, &err), RR_OK);
	assert_int_equal(lk.format, RR_LOCK_UV);
	assert_string_equal(lk.requires_python, ">=3.10");
	assert_int_equal(lk.npkgs, 14);
	/* default groups: the fixture's pyproject says none, so uv's "dev" */
	assert_int_equal(lk.ndefault_groups, 1);
	assert_string_equal(lk.default_groups[0], "dev");

	/* 3.11: numpy 1.26.4; tqdm only on win32; rr-big-wheel with its extra "test";
	 * the dev group by default, lint not; the project itself not an item */
	RR_AUTOFREE char *t311 = select_text(&lk, "3.11.7", NULL);
	assert_string_equal(t311, "certifi==2025.8.3\n"
				  "charset-normalizer==3.4.3\n"
				  "einops==0.8.1\n"
				  "idna==3.10\n"
				  "numpy==1.26.4\n"
				  "packaging==25.0\n"
				  "requests==2.32.5\n"
				  "rr-big-wheel==1.0.0\n"
				  "rr-static-sdist==1.0.0\n"
				  "urllib3==2.5.0\n");
	RR_AUTOFREE char *t312 = select_text(&lk, "3.12.3", NULL);
	assert_non_null(strstr(t312, "numpy==2.3.3\n"));
	assert_null(strstr(t312, "numpy==1.26.4"));

	/* --extra img adds pillow; --group lint adds rr-static-sdist's path (already there) */
	const char *img[] = {"img"};
	struct rr_input_sel sel = {.extras = img,
				   .nextras = 1,
				   .all_extras = false,
				   .groups = NULL,
				   .ngroups = 0,
				   .all_groups = false};
	RR_AUTOFREE char *ti = select_text(&lk, "3.12.3", &sel);
	assert_non_null(strstr(ti, "pillow==11.3.0\n"));

	/* an extra or a group the project does not have is a usage error, as in uv sync */
	const char *bogus[] = {"gpu"};
	struct rr_input_sel bad = {.extras = bogus,
				   .nextras = 1,
				   .all_extras = false,
				   .groups = NULL,
				   .ngroups = 0,
				   .all_groups = false};
	struct rr_marker_env env;
	char buf[16];
	struct rr_reqset set = RR_REQSET_INIT;
	env_for(&env, "3.12.3", buf);
	assert_int_equal(rr_lock_select(&lk, &env, &bad, &set, &err), RR_E_USAGE);
	assert_non_null(strstr(err.msg, "'gpu'"));
	rr_error_release(&err);
	rr_reqset_release(&set);

	/* items: lock path, the line of `name`, exact versions, the index as an option */
	assert_int_equal(rr_lock_select(&lk, &env, NULL, &set, &err), RR_OK);
	assert_string_equal(set.items[0].path, p);
	assert_int_equal(set.items[0].line, 10); /* name = "certifi" */
	assert_true(set.items[0].exact_version);
	assert_int_equal(set.nopts, 1);
	assert_string_equal(set.opts[0].name, "--index-url");
	assert_string_equal(set.opts[0].value, "https://pypi.org/simple");
	assert_string_equal(set.index_url, "https://pypi.org/simple");
	rr_reqset_release(&set);
	rr_lock_release(&lk);
}

static const char sources_lock[] =
	"version = 1\n"
	"revision = 3\n"
	"requires-python = \">=3.12\"\n"
	"\n"
	"[manifest]\n"
	"members = [\"app\", \"lib\"]\n"
	"\n"
	"[[package]]\n"
	"name = \"app\"\n"
	"version = \"0.1.0\"\n"
	"source = { editable = \".\" }\n"
	"dependencies = [\n"
	"    { name = \"lib\" },\n"
	"    { name = \"gitdep\" },\n"
	"    { name = \"wheeldep\", marker = \"platform_machine == 'x86_64'\" },\n"
	"    { name = \"localdep\" },\n"
	"    { name = \"armonly\", marker = \"platform_machine == 'aarch64'\" },\n"
	"]\n"
	"\n"
	"[[package]]\n"
	"name = \"lib\"\n"
	"version = \"0.2.0\"\n"
	"source = { editable = \"packages/lib\" }\n"
	"dependencies = [{ name = \"torch\" }]\n"
	"\n"
	"[[package]]\n"
	"name = \"gitdep\"\n"
	"version = \"1.0\"\n"
	"source = { git = \"https://github.com/o/gitdep?rev=main&subdirectory=py#0123456789abcdef\" }\n"
	"\n"
	"[[package]]\n"
	"name = \"wheeldep\"\n"
	"version = \"2.0\"\n"
	"source = { url = \"https://example.org/wheeldep-2.0-py3-none-any.whl\" }\n"
	"\n"
	"[[package]]\n"
	"name = \"localdep\"\n"
	"version = \"3.0\"\n"
	"source = { path = \"wheels/localdep-3.0-py3-none-any.whl\" }\n"
	"\n"
	"[[package]]\n"
	"name = \"armonly\"\n"
	"version = \"1.0\"\n"
	"source = { registry = \"https://pypi.org/simple\" }\n"
	"\n"
	"[[package]]\n"
	"name = \"torch\"\n"
	"version = \"2.9.1+rocm7.2.0\"\n"
	"source = { registry = \"https://download.example/whl/rocm7.2\" }\n";

static void test_uv_sources(void **state)
{
	struct rr_lock lk = RR_LOCK_INIT;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_lock_parse(&lk, "/proj/uv.lock", sources_lock, strlen(sources_lock),
				       RR_LOCK_UV, &err),
			 RR_OK);
	assert_int_equal(lk.nmembers, 2);
	assert_int_equal(lk.pkgs[2].kind, RR_LSRC_GIT);
	assert_string_equal(lk.pkgs[2].source, "https://github.com/o/gitdep");
	assert_string_equal(lk.pkgs[2].commit, "0123456789abcdef");
	assert_string_equal(lk.pkgs[2].subdirectory, "py");
	/* the members are the project; a git commit, a URL and a path become direct
	 * references; the aarch64-only dependency is not followed on x86_64; the member
	 * lib brings torch from its own index, which becomes the plan's index */
	RR_AUTOFREE char *t = select_text(&lk, "3.12.3", NULL);
	assert_string_equal(t, "gitdep @ git+https://github.com/o/gitdep@0123456789abcdef#subdirectory=py\n"
			       "wheeldep @ https://example.org/wheeldep-2.0-py3-none-any.whl\n"
			       "localdep @ file:///proj/wheels/localdep-3.0-py3-none-any.whl\n"
			       "torch==2.9.1+rocm7.2.0\n");
	rr_lock_release(&lk);
}

static void expect_error(const char *text, enum rr_lock_format f, rr_err code, const char *want)
{
	struct rr_lock lk = RR_LOCK_INIT;
	rr_error err = RR_ERROR_INIT;
	const char *path = f == RR_LOCK_UV ? "x/uv.lock" : "x/pylock.toml";

	assert_int_equal(rr_lock_parse(&lk, path, text, strlen(text), f, &err), code);
	RR_AUTOFREE char *msg = fmt_err(&err);
	if (!strstr(msg, want))
		fail_msg("error '%s' does not contain '%s'", msg, want);
	rr_error_release(&err);
	rr_lock_release(&lk);
}

static void test_uv_errors(void **state)
{
	(void)state;
	expect_error("version = 1\n[[package]\nname = \"x\"\n", RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:2:11:");
	expect_error("revision = 3\n", RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:1:1: not a uv.lock");
	expect_error("version = 2\n", RR_LOCK_UV, RR_E_UNSUPPORTED, "x/uv.lock:1:11: unsupported");
	expect_error("version = 1\n[[package]]\nversion = \"1\"\n", RR_LOCK_UV, RR_E_PARSE,
		     "x/uv.lock:2:1: a [[package]] has no 'name'");
	expect_error("version = 1\n[[package]]\nname = 3\n", RR_LOCK_UV, RR_E_PARSE,
		     "x/uv.lock:3:8: a [[package]] 'name' must be a string");
	expect_error("version = 1\n[[package]]\nname = \"x\"\nsource = { svn = \"u\" }\n", RR_LOCK_UV,
		     RR_E_PARSE, "x/uv.lock:4:10: unknown source kind");
	expect_error("version = 1\n[[package]]\nname = \"x\"\nsource = { registry = \"u\" }\n"
		     "dependencies = [{ name = \"y\" }]\n",
		     RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:5:17: dependency 'y' names no [[package]]");
	/* a marker error points into the string, at the bad token */
	expect_error("version = 1\n[[package]]\nname = \"x\"\nsource = { registry = \"u\" }\n"
		     "dependencies = [{ name = \"x\", marker = \"python_version >= '3' and\" }]\n",
		     RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:5:66:");
	expect_error("version = 1\n[[package]]\nname = \"x\"\nsource = { git = \"https://h/r\" }\n",
		     RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:4:18: a git source has no '#<commit>'");
	expect_error("version = 1\npackage = 3\n", RR_LOCK_UV, RR_E_PARSE, "x/uv.lock:2:11:");
}

static const char groups_pylock[] =
	"lock-version = \"1.0\"\n"
	"environments = [\"sys_platform == 'linux'\"]\n"
	"requires-python = \">=3.11\"\n"
	"extras = [\"gpu\"]\n"
	"dependency-groups = [\"dev\", \"docs\"]\n"
	"default-groups = [\"dev\"]\n"
	"created-by = \"hand\"\n"
	"\n"
	"[[packages]]\n"
	"name = \"base\"\n"
	"version = \"1.0\"\n"
	"index = \"https://pypi.org/simple\"\n"
	"wheels = [{ name = \"base-1.0-py3-none-any.whl\", url = \"https://f/base-1.0-py3-none-any.whl\", "
	"hashes = { sha256 = \"00\" } }]\n"
	"\n"
	"[[packages]]\n"
	"name = \"pytest\"\n"
	"version = \"8.0\"\n"
	"marker = \"'dev' in dependency_groups\"\n"
	"index = \"https://pypi.org/simple\"\n"
	"sdist = { url = \"https://f/pytest-8.0.tar.gz\", hashes = { sha256 = \"00\" } }\n"
	"\n"
	"[[packages]]\n"
	"name = \"sphinx\"\n"
	"version = \"7.0\"\n"
	"marker = \"'docs' in dependency_groups and python_version >= '3.11'\"\n"
	"index = \"https://mirror.example/simple\"\n"
	"wheels = [{ url = \"https://f/sphinx-7.0-py3-none-any.whl\", hashes = { sha256 = \"00\" } }]\n"
	"\n"
	"[[packages]]\n"
	"name = \"cupy\"\n"
	"version = \"13.0\"\n"
	"marker = \"'GPU' in extras\"\n"
	"index = \"https://pypi.org/simple\"\n"
	"wheels = [{ url = \"https://f/cupy-13.0-py3-none-any.whl\", hashes = { sha256 = \"00\" } }]\n"
	"\n"
	"[[packages]]\n"
	"name = \"cpu-only\"\n"
	"version = \"1.0\"\n"
	"marker = \"'gpu' not in extras\"\n"
	"index = \"https://pypi.org/simple\"\n"
	"wheels = [{ url = \"https://f/cpu_only-1.0-py3-none-any.whl\", hashes = { sha256 = \"00\" } }]\n"
	"\n"
	"[[packages]]\n"
	"name = \"vcsdep\"\n"
	"vcs = { type = \"git\", url = \"https://github.com/o/vcsdep\", commit-id = \"abc123\" }\n"
	"\n"
	"[[packages]]\n"
	"name = \"localpkg\"\n"
	"directory = { path = \"src/localpkg\", editable = true }\n"
	"\n"
	"[[packages]]\n"
	"name = \"arch\"\n"
	"version = \"1.0\"\n"
	"archive = { url = \"https://f/arch-1.0.tar.gz\", hashes = { sha256 = \"00\" } }\n";

static void test_pylock(void **state)
{
	struct rr_lock lk = RR_LOCK_INIT;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_lock_parse(&lk, "/proj/pylock.toml", groups_pylock,
				       strlen(groups_pylock), RR_LOCK_PYLOCK, &err),
			 RR_OK);
	assert_int_equal(lk.npkgs, 8);
	/* default-groups (dev), no extras: pytest, cpu-only; not sphinx, cupy */
	RR_AUTOFREE char *t = select_text(&lk, "3.12.3", NULL);
	assert_string_equal(t, "base==1.0\n"
			       "pytest==8.0\n"
			       "cpu-only==1.0\n"
			       "vcsdep @ git+https://github.com/o/vcsdep@abc123\n"
			       "-e /proj/src/localpkg\n"
			       "arch @ https://f/arch-1.0.tar.gz\n");
	/* --extra gpu (normalised against 'GPU') and --group docs: the groups asked for
	 * replace the default ones, as PEP 751 installers take them */
	const char *gpu[] = {"gpu"};
	const char *docs[] = {"docs"};
	struct rr_input_sel sel = {.extras = gpu,
				   .nextras = 1,
				   .all_extras = false,
				   .groups = docs,
				   .ngroups = 1,
				   .all_groups = false};
	RR_AUTOFREE char *t2 = select_text(&lk, "3.12.3", &sel);
	assert_string_equal(t2, "base==1.0\n"
				"sphinx==7.0\n"
				"cupy==13.0\n"
				"vcsdep @ git+https://github.com/o/vcsdep@abc123\n"
				"-e /proj/src/localpkg\n"
				"arch @ https://f/arch-1.0.tar.gz\n");

	/* both indexes named, PyPI the default */
	struct rr_marker_env env;
	char buf[16];
	struct rr_reqset set = RR_REQSET_INIT;
	env_for(&env, "3.12.3", buf);
	assert_int_equal(rr_lock_select(&lk, &env, &sel, &set, &err), RR_OK);
	assert_int_equal(set.nopts, 2);
	assert_string_equal(set.opts[0].name, "--extra-index-url");
	assert_string_equal(set.opts[0].value, "https://mirror.example/simple");
	assert_string_equal(set.opts[1].name, "--index-url");
	assert_string_equal(set.opts[1].value, "https://pypi.org/simple");
	assert_int_equal(set.nwarnings, 0);
	rr_reqset_release(&set);

	/* an environment the lock excludes (3.10, Windows) is said, not silently taken */
	env.vars[RR_MVAR_SYS_PLATFORM] = "win32";
	env_for(&env, "3.10.1", buf);
	env.vars[RR_MVAR_SYS_PLATFORM] = "win32";
	assert_int_equal(rr_lock_select(&lk, &env, NULL, &set, &err), RR_OK);
	assert_int_equal(set.nwarnings, 2);
	assert_non_null(strstr(set.warnings[0], "requires-python '>=3.11' excludes"));
	assert_non_null(strstr(set.warnings[1], "/proj/pylock.toml:2: none of the lock's environments"));
	rr_reqset_release(&set);
	rr_lock_release(&lk);
}

/* s with every "T" run replaced by "extra == ''" and every "F" run by "extra != ''", padded */
static char *bound(const char *shape)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	for (const char *p = shape; *p;) {
		if (*p == 'T' || *p == 'F') {
			size_t n = strspn(p, *p == 'T' ? "T" : "F");
			rr_strbuf_addf(&sb, "%s%*s", *p == 'T' ? "extra == ''" : "extra != ''",
				       (int)(n - 11), "");
			p += n;
		} else {
			rr_strbuf_addch(&sb, *p++);
		}
	}
	return rr_strbuf_detach(&sb, NULL);
}

static void test_marker_bind(void **state)
{
	const char *ex[] = {"gpu"};
	const char *gr[] = {"dev"};
	(void)state;

	RR_AUTOFREE char *a = rr_lock_marker_bind("'GPU' in extras and 'dev' not in dependency_groups",
						  ex, 1, gr, 1);
	/* same length: every column after a test stays where it was */
	RR_AUTOFREE char *ea = bound("TTTTTTTTTTTTTTT and FFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
	assert_string_equal(a, ea);
	RR_AUTOFREE char *b = rr_lock_marker_bind("python_version >= \"3.9\" or \"x_y\" in extras",
						  NULL, 0, NULL, 0);
	RR_AUTOFREE char *eb = bound("python_version >= \"3.9\" or FFFFFFFFFFFFFFF");
	assert_string_equal(b, eb);
	/* every name is in with SIZE_MAX; a string that merely contains the words is untouched */
	RR_AUTOFREE char *c = rr_lock_marker_bind("'a' in extras or os_name == 'in extras'", NULL,
						  SIZE_MAX, NULL, 0);
	RR_AUTOFREE char *ec = bound("TTTTTTTTTTTTT or os_name == 'in extras'");
	assert_string_equal(c, ec);
	/* extras_x is another identifier: left for the marker parser to refuse */
	RR_AUTOFREE char *d = rr_lock_marker_bind("'a' in extras_x", NULL, 0, NULL, 0);
	assert_string_equal(d, "'a' in extras_x");
}

static void test_pylock_errors(void **state)
{
	(void)state;
	expect_error("[[packages]]\nname = \"x\"\n", RR_LOCK_PYLOCK, RR_E_PARSE,
		     "x/pylock.toml:1:1: not a pylock.toml");
	expect_error("lock-version = \"2.0\"\n", RR_LOCK_PYLOCK, RR_E_UNSUPPORTED,
		     "x/pylock.toml:1:16: unsupported lock-version '2.0'");
	expect_error("lock-version = \"1.0\"\n[[packages]]\nname = \"x\"\nversion = \"1\"\n",
		     RR_LOCK_PYLOCK, RR_E_PARSE, "has none of vcs, directory, archive, sdist or wheels");
	expect_error("lock-version = \"1.0\"\n[[packages]]\nname = \"x\"\n"
		     "vcs = { type = \"git\", url = \"u\", commit-id = \"c\" }\n"
		     "directory = { path = \".\" }\n",
		     RR_LOCK_PYLOCK, RR_E_PARSE, "x/pylock.toml:2:1: package 'x' has more than one");
	expect_error("lock-version = \"1.0\"\n[[packages]]\nname = \"x\"\nvcs = { type = \"git\" }\n",
		     RR_LOCK_PYLOCK, RR_E_PARSE, "'vcs' has no 'commit-id'");
	/* the marker error column counts from the string's start, past the bound tests */
	expect_error("lock-version = \"1.0\"\n[[packages]]\nname = \"x\"\nversion = \"1\"\n"
		     "marker = \"'dev' in dependency_groups and os_name ==\"\n"
		     "wheels = [{ url = \"u\" }]\n",
		     RR_LOCK_PYLOCK, RR_E_PARSE, "x/pylock.toml:5:52:");
	expect_error("lock-version = \"1.0\"\nenvironments = [\"os_name = 'x'\"]\n", RR_LOCK_PYLOCK,
		     RR_E_PARSE, "x/pylock.toml:2:26:");
	expect_error("lock-version = \"1.0\"\n[[packages]]\nname = \"x\"\nwheels = [{ size = 3 }]\n",
		     RR_LOCK_PYLOCK, RR_E_PARSE, "a wheel has neither 'url' nor 'path'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_of),     cmocka_unit_test(test_uv_universal),
		cmocka_unit_test(test_uv_sources),    cmocka_unit_test(test_uv_errors),
		cmocka_unit_test(test_pylock),	      cmocka_unit_test(test_marker_bind),
		cmocka_unit_test(test_pylock_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

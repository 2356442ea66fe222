/*
 * test-config.c - pip's and uv's configuration with each installer's
 * precedence (include/rocm-resolve/config.h). Every case builds its own tree
 * (sysroot, home, project) under a temporary directory and its own
 * environment: the real /etc and $HOME are never read. The orders asserted
 * here were observed with real pip 23 and uv 0.13 (tests/e2e/config.py runs
 * the installers themselves on the same kind of trees).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/config.h"
#include "rocm-resolve/strbuf.h"

static char root[256];
/* the environment of one case: NAME=value pairs */
static const char *envv[16];

static const char *fake_getenv(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envv[i]; i++)
		if (strncmp(envv[i], name, n) == 0 && envv[i][n] == '=')
			return envv[i] + n + 1;
	return NULL;
}

static void mkdirs(const char *path)
{
	RR_AUTOFREE char *p = rr_xstrdup(path);

	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
}

/* write root/rel */
static void put(const char *rel, const char *text)
{
	RR_AUTOFREE char *path = rr_xasprintf("%s/%s", root, rel);
	FILE *f;

	mkdirs(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/rr-test-config-XXXXXX");
	assert_non_null(mkdtemp(root));
	memset(envv, 0, sizeof(envv));
	return 0;
}

static int teardown(void **state)
{
	RR_AUTOFREE char *cmd = rr_xasprintf("rm -rf '%s'", root);
	(void)state;
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* HOME=root/home, XDG_CONFIG_DIRS unset (sysroot/etc/xdg), cwd root/proj/sub */
static void base_env(void)
{
	static char home[300];

	snprintf(home, sizeof(home), "HOME=%s/home", root);
	envv[0] = home;
}

static void add_env(const char *kv)
{
	size_t i = 0;
	while (envv[i])
		i++;
	envv[i] = kv;
}

static rr_err load(enum rr_installer inst, struct rr_installer_config *c, rr_error *err)
{
	RR_AUTOFREE char *cwd = rr_xasprintf("%s/proj/sub", root);
	RR_AUTOFREE char *cwd_slash = rr_xasprintf("%s/", cwd);
	RR_AUTOFREE char *sys = rr_xasprintf("%s/sys", root);
	RR_AUTOFREE char *venv = rr_xasprintf("%s/venv", root);
	struct rr_config_env e = {sys, cwd, venv, fake_getenv};

	mkdirs(cwd_slash);
	return rr_config_load(inst, &e, c, err);
}

/* the origin with the temporary root cut off: "sys/etc/pip.conf:2" */
static const char *rel(const char *origin)
{
	size_t n = strlen(root);
	return strncmp(origin, root, n) == 0 ? origin + n + 1 : origin;
}

static void test_pip_files(void **state)
{
	struct rr_installer_config c;
	(void)state;

	base_env();
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_null(c.default_index.value);
	assert_int_equal(c.nindexes, 0);
	assert_int_equal(c.nfiles, 0);
	rr_config_release(&c);

	/* global: /etc/xdg/pip/pip.conf, then /etc/pip.conf, the later winning */
	put("sys/etc/xdg/pip/pip.conf", "[global]\nindex-url = http://xdg/simple\n");
	put("sys/etc/pip.conf", "# a mirror\n[global]\nindex-url = http://etc/simple\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://etc/simple");
	assert_string_equal(rel(c.default_index.origin), "sys/etc/pip.conf:3");
	assert_int_equal(c.nfiles, 2);
	rr_config_release(&c);

	/* user: ~/.pip/pip.conf, then ~/.config/pip/pip.conf; both beat global */
	put("home/.pip/pip.conf", "[global]\nindex-url = http://legacy/simple\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://legacy/simple");
	rr_config_release(&c);
	put("home/.config/pip/pip.conf", "[global]\nindex_url: http://user/simple\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://user/simple");
	rr_config_release(&c);

	/* site: the venv's pip.conf beats the user's */
	put("venv/pip.conf", "[global]\nindex-url = http://site/simple\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://site/simple");
	rr_config_release(&c);

	/* [install] beats [global], whatever file each is in */
	put("sys/etc/pip.conf", "[install]\nindex-url = http://etc-install/simple\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://etc-install/simple");
	rr_config_release(&c);

	/* PIP_CONFIG_FILE beats site and skips the user files; PIP_INDEX_URL beats it */
	put("env.conf", "[global]\nextra-index-url = http://e1/simple\n    http://e2/simple\n");
	{
		RR_AUTOFREE char *kv = rr_xasprintf("PIP_CONFIG_FILE=%s/env.conf", root);
		add_env(kv);
		assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
		assert_int_equal(c.nindexes, 2); /* a continuation line is a second value */
		assert_string_equal(c.indexes[0].value, "http://e1/simple");
		assert_string_equal(c.indexes[1].value, "http://e2/simple");
		assert_string_equal(c.default_index.value, "http://etc-install/simple");
		for (size_t i = 0; i < c.nfiles; i++)
			assert_null(strstr(c.files[i], "/home/")); /* user files skipped */
		rr_config_release(&c);
		add_env("PIP_INDEX_URL=http://var/simple");
		add_env("PIP_EXTRA_INDEX_URL=http://v1/simple http://v2/simple");
		assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
		assert_string_equal(c.default_index.value, "http://var/simple");
		assert_string_equal(c.default_index.origin, "PIP_INDEX_URL");
		/* the variable replaces the files' extra indexes */
		assert_int_equal(c.nindexes, 2);
		assert_string_equal(c.indexes[0].value, "http://v1/simple");
		rr_config_release(&c);
	}
	/* PIP_CONFIG_FILE=/dev/null: no file at all, variables still */
	memset(envv, 0, sizeof(envv));
	base_env();
	add_env("PIP_CONFIG_FILE=/dev/null");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_null(c.default_index.value);
	assert_int_equal(c.nfiles, 0);
	rr_config_release(&c);
}

static void test_pip_values(void **state)
{
	struct rr_installer_config c;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	base_env();
	/* [DEFAULT] keys reach [global]; no-index, find-links, cert; other sections ignored */
	put("home/.config/pip/pip.conf",
	    "[DEFAULT]\nindex-url = http://d/simple\n[global]\nno-index = yes\ncert = /x.pem\n"
	    "find-links =\n  /wheels\n  http://links/\n[download]\nindex-url = http://no/\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://d/simple");
	assert_string_equal(c.no_index.value, "true");
	assert_string_equal(c.cert.value, "/x.pem");
	assert_int_equal(c.nfind_links, 2);
	assert_string_equal(c.find_links[1].value, "http://links/");
	rr_config_release(&c);
	add_env("PIP_NO_INDEX=off");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, NULL), RR_OK);
	assert_null(c.no_index.value);
	rr_config_release(&c);

	/* what pip refuses, we refuse, at the line */
	memset(envv, 0, sizeof(envv));
	base_env();
	put("home/.config/pip/pip.conf", "index-url = http://x/\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, &err), RR_E_PARSE);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "no [section] header"));
	rr_error_release(&err);
	put("home/.config/pip/pip.conf", "[global]\nindex-url = a\nindex-url = b\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, &err), RR_E_PARSE);
	assert_int_equal(err.line, 3);
	rr_error_release(&err);
	put("home/.config/pip/pip.conf", "[global]\nno-index = maybe\n");
	assert_int_equal(load(RR_INSTALLER_PIP, &c, &err), RR_E_PARSE);
	assert_non_null(strstr(err.msg, "no-index = 'maybe'"));
	rr_error_release(&err);
}

static void test_uv_files(void **state)
{
	struct rr_installer_config c;
	(void)state;

	base_env();
	put("sys/etc/uv/uv.toml", "index-url = \"http://etc/simple\"\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://etc/simple");
	rr_config_release(&c);
	/* $XDG_CONFIG_DIRS/uv/uv.toml (default /etc/xdg) is found before /etc/uv */
	put("sys/etc/xdg/uv/uv.toml", "index-url = \"http://xdg/simple\"\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://xdg/simple");
	assert_int_equal(c.nfiles, 1); /* only the first system file */
	rr_config_release(&c);
	/* user beats system */
	put("home/.config/uv/uv.toml", "index-url = \"http://user/simple\"\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://user/simple");
	rr_config_release(&c);
	/* the project beats the user: a pyproject.toml without [tool.uv] is passed over,
	 * the nearest directory with configuration is the project's */
	put("proj/sub/pyproject.toml", "[project]\nname = \"x\"\n");
	put("proj/pyproject.toml", "[tool.uv]\nindex-url = \"http://pyproject/simple\"\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://pyproject/simple");
	assert_string_equal(rel(c.default_index.origin), "proj/pyproject.toml:2");
	rr_config_release(&c);
	/* uv.toml beats the pyproject.toml next to it */
	put("proj/uv.toml", "index-url = \"http://uvtoml/simple\"\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://uvtoml/simple");
	assert_int_equal(c.nfiles, 3); /* project, user, system */
	rr_config_release(&c);
	/* UV_DEFAULT_INDEX, then UV_INDEX_URL, beat every file */
	add_env("UV_INDEX_URL=http://var2/simple");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://var2/simple");
	rr_config_release(&c);
	add_env("UV_DEFAULT_INDEX=http://var1/simple");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_string_equal(c.default_index.value, "http://var1/simple");
	rr_config_release(&c);
	/* UV_CONFIG_FILE replaces every file; UV_NO_CONFIG turns them off */
	memset(envv, 0, sizeof(envv));
	base_env();
	put("only.toml", "[pip]\nindex-url = \"http://only/simple\"\n");
	{
		RR_AUTOFREE char *kv = rr_xasprintf("UV_CONFIG_FILE=%s/only.toml", root);
		add_env(kv);
		assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
		assert_string_equal(c.default_index.value, "http://only/simple");
		assert_int_equal(c.nfiles, 1);
		rr_config_release(&c);
	}
	memset(envv, 0, sizeof(envv));
	base_env();
	add_env("UV_NO_CONFIG=1");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_null(c.default_index.value);
	assert_int_equal(c.nfiles, 0);
	rr_config_release(&c);
}

static void test_uv_order(void **state)
{
	struct rr_installer_config c;
	rr_error err = RR_ERROR_INIT;
	(void)state;

	base_env();
	put("proj/uv.toml", "extra-index-url = [\"http://p-extra/\"]\n"
			    "index-url = \"http://p-url/\"\n"
			    "[[index]]\nurl = \"http://p-index/\"\n"
			    "[[index]]\nname = \"x\"\nurl = \"http://p-explicit/\"\nexplicit = true\n"
			    "[pip]\nextra-index-url = [\"http://p-pip-extra/\"]\n");
	put("home/.config/uv/uv.toml", "extra-index-url = [\"http://u-extra/\"]\n"
				       "offline = true\n"
				       "[[index]]\nurl = \"http://u-default/\"\ndefault = true\n"
				       "[[index]]\nurl = \"http://u-index/\"\n");
	add_env("UV_EXTRA_INDEX_URL=http://v-extra/");
	add_env("UV_INDEX=named=http://v-index/");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	{
		/* UV_INDEX, UV_EXTRA_INDEX_URL, [[index]] (project, user), [pip] extra, extra */
		static const char *const want[] = {"http://v-index/",	 "http://v-extra/",
						   "http://p-index/",	 "http://u-index/",
						   "http://p-pip-extra/", "http://p-extra/",
						   "http://u-extra/"};
		assert_int_equal(c.nindexes, RR_ARRAY_LEN(want));
		for (size_t i = 0; i < RR_ARRAY_LEN(want); i++)
			assert_string_equal(c.indexes[i].value, want[i]);
	}
	/* an [[index]] with default = true beats index-url, even the project's */
	assert_string_equal(c.default_index.value, "http://u-default/");
	assert_non_null(c.offline.value);
	assert_string_equal(c.offline.value, "true");
	rr_config_release(&c);
	add_env("UV_OFFLINE=false");
	assert_int_equal(load(RR_INSTALLER_UV, &c, NULL), RR_OK);
	assert_null(c.offline.value); /* the variable beats the file */
	rr_config_release(&c);

	/* a value of the wrong type is an error at its line, as uv says */
	put("proj/uv.toml", "\nindex-url = [\"x\"]\n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, &err), RR_E_PARSE);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.msg, "'index-url' must be a string"));
	rr_error_release(&err);
	put("proj/uv.toml", "index-url = \n");
	assert_int_equal(load(RR_INSTALLER_UV, &c, &err), RR_E_PARSE);
	rr_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pip_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pip_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uv_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uv_order, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

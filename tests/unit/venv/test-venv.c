#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/venv.h"

static char *fixture(const char *name)
{
	const char *src = getenv("RR_SRCDIR");
	return rr_xasprintf("%s/fixtures/venvs/%s", src ? src : ".", name);
}

static struct rr_venv *load(const char *name, const char *sysroot)
{
	RR_AUTOFREE char *root = fixture(name);
	RR_AUTOFREE char *sr = sysroot ? fixture(sysroot) : NULL;
	struct rr_venv_opts o = {.sysroot = sr ? sr : "/nonexistent-sysroot"};
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;

	if (rr_venv_load(root, &o, &v, &e))
		fail_msg("load %s: %s", root, e.msg);
	return v;
}

static bool has_warning(const struct rr_venv *v, const char *part)
{
	for (size_t i = 0; i < v->nwarnings; i++)
		if (strstr(v->warnings[i], part))
			return true;
	return false;
}

static int setup(void **state)
{
	(void)state;
	/* the host's ROCm and pip configuration must not leak into the fixtures */
	unsetenv("ROCM_PATH");
	unsetenv("PIP_CONSTRAINT");
	return 0;
}

static void test_venv_rocm72(void **state)
{
	struct rr_venv *v = load("rocm72", "sysroot-rocm72");
	const struct rr_dist *d;
	(void)state;

	assert_string_equal(v->python_version, "3.12.3");
	assert_string_equal(v->home, "/usr/bin");
	assert_non_null(strstr(v->site_packages, "rocm72/lib/python3.12/site-packages"));
	/* lib64 -> lib is the same directory, scanned once */
	assert_int_equal(v->nbridged_sites, 0);
	assert_int_equal(v->ndists, 39);
	for (size_t i = 1; i < v->ndists; i++)
		assert_true(strcmp(v->dists[i - 1].key, v->dists[i].key) < 0);

	d = rr_venv_lookup(v, "torch");
	assert_non_null(d);
	assert_string_equal(d->version_text, "2.9.1+rocm7.2.0.lw.git7e1940d4");
	assert_true(d->version_ok);
	assert_string_equal(d->version.local, "rocm7.2.0.lw.git7e1940d4");
	assert_string_equal(d->installer, "pip");
	assert_string_equal(d->direct_url,
			    "http://compute-artifactory.amd.com/artifactory/compute-pytorch-rocm/"
			    "compute-rocm-rel-7.2/43/"
			    "torch-2.9.1+rocm7.2.0.lw.git7e1940d4-cp312-cp312-linux_x86_64.whl");
	assert_false(d->editable);
	assert_null(d->problem);
	assert_int_equal(d->meta.nrequires_dist, 11);
	assert_int_equal(d->ntop_level, 3);
	assert_string_equal(d->top_level[0], "functorch");
	assert_string_equal(d->top_level[1], "torch");
	assert_string_equal(d->top_level[2], "torchgen");

	d = rr_venv_lookup(v, "torchaudio");
	assert_int_equal(d->meta.nrequires_dist, 1);
	assert_string_equal(d->meta.requires_dist[0], "torch==2.9.1");

	d = rr_venv_lookup(v, "triton");
	assert_int_equal(d->ntop_level, 1);
	assert_string_equal(d->top_level[0], "triton");

	/* names: display spelling kept, key normalised */
	d = rr_venv_lookup(v, "typing-extensions");
	assert_string_equal(d->name, "typing_extensions");
	assert_string_equal(d->top_level[0], "typing_extensions");
	d = rr_venv_lookup(v, "setuptools");
	/* distutils-precedence.pth and the dist-info are not import packages */
	assert_int_equal(d->ntop_level, 3);
	d = rr_venv_lookup(v, "apex");
	assert_int_equal(d->ntop_level, 2);
	assert_string_equal(d->top_level[0], "amp_C");
	d = rr_venv_lookup(v, "numpy");
	/* the folded License field left Version alone */
	assert_string_equal(d->version_text, "2.4.1");
	assert_null(rr_venv_lookup(v, "Torch"));
	assert_null(rr_venv_lookup(v, "not-installed"));

	assert_string_equal(v->torch_version, "2.9.1+rocm7.2.0.lw.git7e1940d4");
	assert_string_equal(v->torch_hip, "7.2.26015-fc0010cf6a");
	assert_null(v->torch_cuda);
	assert_string_equal(v->rocm_version, "7.2.0-43");
	assert_non_null(strstr(v->rocm_path, "sysroot-rocm72/opt/rocm"));
	assert_non_null(strstr(v->pip_constraint, "sysroot-rocm72/etc/pip/constraint.txt"));
	assert_int_equal(v->nwarnings, 0);

	struct rr_marker_env env;
	char pybuf[16];
	rr_venv_marker_env(v, &env, pybuf);
	assert_string_equal(env.vars[RR_MVAR_PYTHON_VERSION], "3.12");
	assert_string_equal(env.vars[RR_MVAR_PYTHON_FULL_VERSION], "3.12.3");
	rr_venv_free(v);
}

static void test_venv_rocm64_uv(void **state)
{
	struct rr_venv *v = load("pytorch-rocm64", "sysroot-rocm64");
	const struct rr_dist *d;
	(void)state;

	/* uv's version_info */
	assert_string_equal(v->python_version, "3.11.13");
	d = rr_venv_lookup(v, "pytorch-triton-rocm");
	assert_non_null(d);
	assert_string_equal(d->installer, "uv");
	assert_null(d->direct_url);
	assert_string_equal(d->top_level[0], "triton");
	assert_string_equal(v->torch_hip, "6.4.43482");
	/* rocm_version.h fallback */
	assert_string_equal(v->rocm_version, "6.4.1");
	assert_null(v->pip_constraint);
	rr_venv_free(v);
}

static void test_venv_cpu_plain_version_py(void **state)
{
	struct rr_venv *v = load("cpu", NULL);
	(void)state;

	assert_string_equal(v->torch_version, "2.9.1+cpu");
	assert_null(v->torch_hip);
	assert_null(v->torch_cuda);
	assert_null(v->rocm_version);
	assert_null(v->rocm_path);
	rr_venv_free(v);

	v = load("rocm-source", NULL);
	/* un-annotated `hip = '...'` form */
	assert_string_equal(v->torch_hip, "6.3.42131");
	assert_string_equal(v->torch_version, "2.7.0a0+git3f903c3");
	rr_venv_free(v);
}

static void test_venv_env_overrides(void **state)
{
	RR_AUTOFREE char *root = fixture("cpu");
	RR_AUTOFREE char *rocm = fixture("sysroot-rocm72/opt/rocm-7.2.0");
	struct rr_venv_opts o = {.sysroot = "/nonexistent"};
	struct rr_venv *v;
	(void)state;

	setenv("ROCM_PATH", rocm, 1);
	setenv("PIP_CONSTRAINT", "/x/constraints.txt", 1);
	assert_int_equal(rr_venv_load(root, &o, &v, NULL), RR_OK);
	assert_string_equal(v->rocm_path, rocm);
	assert_string_equal(v->rocm_version, "7.2.0-43");
	assert_string_equal(v->pip_constraint, "/x/constraints.txt");
	rr_venv_free(v);
	/* opts beat the environment */
	o.rocm_path = "/nonexistent/rocm";
	assert_int_equal(rr_venv_load(root, &o, &v, NULL), RR_OK);
	assert_null(v->rocm_path);
	rr_venv_free(v);
	unsetenv("ROCM_PATH");
	unsetenv("PIP_CONSTRAINT");
}

static void test_venv_bridged(void **state)
{
	struct rr_venv *v = load("bridged", NULL);
	const struct rr_dist *d;
	(void)state;

	/* only the .pth line naming a directory with distributions is a site */
	assert_int_equal(v->nbridged_sites, 1);
	assert_non_null(strstr(v->bridged_sites[0], "rocm72/lib/python3.12/site-packages"));
	/* the project's own numpy shadows the image's */
	d = rr_venv_lookup(v, "numpy");
	assert_string_equal(d->version_text, "2.2.6");
	assert_true(has_warning(v, "'numpy' in"));
	d = rr_venv_lookup(v, "torch");
	assert_non_null(d);
	assert_non_null(strstr(d->site, "rocm72"));
	/* found through the bridge, and named as the directory it is (no "..") */
	assert_true(d->bridged);
	assert_string_equal(d->site, v->bridged_sites[0]);
	assert_null(strstr(v->bridged_sites[0], ".."));
	assert_false(rr_venv_lookup(v, "numpy")->bridged);
	/* torch/version.py comes from torch's own site */
	assert_string_equal(v->torch_hip, "7.2.26015-fc0010cf6a");
	d = rr_venv_lookup(v, "myproj");
	assert_true(d->editable);
	assert_string_equal(d->direct_url, "file:///work/myproj");
	d = rr_venv_lookup(v, "requests");
	assert_string_equal(d->direct_url,
			    "https://user:****@pkgs.example.com/requests-2.32.3-py3-none-any.whl");
	/* 39 from the image + myproj + requests (numpy counted once) */
	assert_int_equal(v->ndists, 41);
	rr_venv_free(v);
}

static void test_venv_broken(void **state)
{
	struct rr_venv *v = load("broken-metadata", NULL);
	const struct rr_dist *d;
	(void)state;

	d = rr_venv_lookup(v, "nometa");
	assert_non_null(d);
	assert_string_equal(d->problem, "METADATA missing");
	assert_string_equal(d->version_text, "1.0");
	d = rr_venv_lookup(v, "badmeta");
	assert_non_null(d);
	assert_non_null(strstr(d->problem, "malformed METADATA:3:"));
	d = rr_venv_lookup(v, "noversion");
	assert_non_null(strstr(d->problem, "no 'Version' field"));
	d = rr_venv_lookup(v, "badversion");
	assert_null(d->problem);
	assert_false(d->version_ok);
	assert_true(has_warning(v, "version 'not.a.version!' is not a valid PEP 440 version"));
	d = rr_venv_lookup(v, "baddirect");
	assert_null(d->problem);
	assert_null(d->direct_url);
	assert_true(has_warning(v, "baddirect-1.0.dist-info/direct_url.json:2:"));
	d = rr_venv_lookup(v, "amd-widget");
	assert_string_equal(d->version_text, "1.0+rocm7.2.0");
	assert_non_null(d->problem);
	d = rr_venv_lookup(v, "good");
	assert_null(d->problem);
	assert_true(d->version_ok);
	rr_venv_free(v);
}

static void test_venv_egg_info(void **state)
{
	struct rr_venv *v = load("egg-info-only", NULL);
	const struct rr_dist *d;
	(void)state;

	assert_string_equal(v->python_version, "3.10.12");
	assert_int_equal(v->ndists, 3);
	d = rr_venv_lookup(v, "legacy-single");
	assert_non_null(d);
	assert_true(d->egg_info);
	assert_string_equal(d->version_text, "1.0");
	d = rr_venv_lookup(v, "oldpkg");
	assert_true(d->egg_info);
	assert_null(d->installer);
	assert_int_equal(d->meta.nrequires_dist, 3);
	assert_string_equal(d->meta.requires_dist[1], "cupy-cuda12x; extra == \"gpu\"");
	assert_int_equal(d->ntop_level, 2);
	assert_string_equal(d->top_level[0], "_oldpkg_native");
	d = rr_venv_lookup(v, "pkg-with-dots");
	assert_string_equal(d->name, "Pkg_With.Dots");
	rr_venv_free(v);
}

static void test_venv_locate(void **state)
{
	RR_AUTOFREE char *conda = fixture("sysroot-conda");
	RR_AUTOFREE char *rocm72 = fixture("sysroot-rocm72");
	char *path = NULL;
	enum rr_venv_origin o;
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_int_equal(rr_venv_locate("/x", "/y", "/z", conda, &path, &o, &e), RR_OK);
	assert_string_equal(path, "/x");
	assert_int_equal(o, RR_VENV_FROM_OPTION);
	free(path);
	assert_int_equal(rr_venv_locate("", "/y", "/z", conda, &path, &o, &e), RR_OK);
	assert_string_equal(path, "/y");
	assert_int_equal(o, RR_VENV_FROM_VIRTUAL_ENV);
	free(path);
	assert_int_equal(rr_venv_locate(NULL, "", "/z", conda, &path, &o, &e), RR_OK);
	assert_string_equal(path, "/z");
	assert_int_equal(o, RR_VENV_FROM_CONDA_PREFIX);
	assert_string_equal(rr_venv_origin_name(o), "$CONDA_PREFIX");
	free(path);
	/* no /opt/venv there: /opt/conda's env that holds torch, not the base */
	assert_int_equal(rr_venv_locate(NULL, NULL, NULL, conda, &path, &o, &e), RR_OK);
	assert_int_equal(o, RR_VENV_FROM_OPT_CONDA);
	assert_non_null(strstr(path, "sysroot-conda/opt/conda/envs/py_3.10"));
	free(path);
	path = NULL;
	assert_int_equal(rr_venv_locate(NULL, NULL, NULL, rocm72, &path, &o, &e), RR_E_ENV);
	assert_null(path);
	assert_non_null(strstr(e.msg, "--stack FILE"));
	assert_non_null(strstr(e.msg, "opt/conda"));
	rr_error_release(&e);
	/* an NGC image: no venv, no conda; the system Python's dist-packages hold torch */
	{
		RR_AUTOFREE char *ngc = fixture("sysroot-ngc");
		assert_int_equal(rr_venv_locate(NULL, NULL, NULL, ngc, &path, &o, &e), RR_OK);
		assert_int_equal(o, RR_VENV_FROM_SYSTEM);
		assert_true(rr_str_endswith(path, "sysroot-ngc/usr"));
		free(path);
	}
}

/*
 * issue 14: a venv made with --system-site-packages over the image's environment: the
 * base interpreter's site (from pyvenv.cfg's home, under the sysroot) is read after the
 * venv's own, its distributions marked inherited; the venv's numpy shadows the base's
 */
static void test_venv_system_site_packages(void **state)
{
	struct rr_venv *v = load("syssite", "sysroot-conda");
	const struct rr_dist *d;
	(void)state;

	assert_true(v->system_site_packages);
	assert_int_equal(v->nbase_sites, 1);
	assert_true(rr_str_endswith(v->base_sites[0],
				    "sysroot-conda/opt/conda/envs/py_3.10/lib/python3.10/site-packages"));
	d = rr_venv_lookup(v, "torch");
	assert_non_null(d);
	assert_true(d->inherited);
	assert_false(d->bridged);
	assert_string_equal(v->torch_hip, "5.7.31921-d1770ee1b");
	d = rr_venv_lookup(v, "numpy");
	assert_string_equal(d->version_text, "2.2.6");
	assert_false(d->inherited);
	assert_true(has_warning(v, "'numpy' in"));
	assert_false(rr_venv_lookup(v, "accelerate")->inherited);
	rr_venv_free(v);
	/* without the base interpreter's prefix: said, never silently nothing */
	v = load("syssite", NULL);
	assert_null(rr_venv_lookup(v, "torch"));
	assert_true(has_warning(v, "no site directory of the base interpreter"));
	rr_venv_free(v);
}

/*
 * issue 14: an NGC system prefix (Debian's dist-packages, pip's installs under
 * local/lib), and its /etc/pip/constraint.txt read line by line; PIP_CONSTRAINT wins
 */
static void test_venv_system_prefix_and_constraint(void **state)
{
	struct rr_venv *v = load("sysroot-ngc/usr", "sysroot-ngc");
	const struct rr_dist *d;
	RR_AUTOFREE char *other = NULL;
	(void)state;

	assert_string_equal(v->python_version, "3.12");
	assert_true(rr_str_endswith(v->site_packages, "usr/local/lib/python3.12/dist-packages"));
	d = rr_venv_lookup(v, "torch");
	assert_non_null(d);
	assert_string_equal(d->version_text, "2.8.0a0+5228986c39.nv25.5");
	assert_string_equal(v->torch_cuda, "12.9");
	assert_null(v->torch_hip);
	assert_non_null(rr_venv_lookup(v, "six")); /* Debian's lib/python3/dist-packages */
	assert_int_equal(v->nconstraints, 5);
	assert_string_equal(v->constraints[0].requirement, "torch==2.8.0a0+5228986c39.nv25.5");
	assert_int_equal(v->constraints[0].line, 2);
	assert_string_equal(v->constraints[4].requirement, "opencv==4.11.0");
	assert_true(rr_str_endswith(v->constraints[4].file, "sysroot-ngc/etc/pip/constraint.txt"));
	rr_venv_free(v);
	other = fixture("sysroot-rocm72/etc/pip/constraint.txt");
	setenv("PIP_CONSTRAINT", other, 1);
	v = load("sysroot-ngc/usr", "sysroot-ngc");
	unsetenv("PIP_CONSTRAINT");
	assert_int_equal(v->nconstraints, 2);
	assert_string_equal(v->constraints[1].requirement, "triton==3.5.1+rocm7.2.0.gita272dfa8");
	rr_venv_free(v);
}

static void test_venv_conda_layout(void **state)
{
	struct rr_venv *v = load("sysroot-conda/opt/conda/envs/py_3.10", NULL);
	struct rr_venv *base = load("sysroot-conda/opt/conda", NULL);
	(void)state;

	/* no pyvenv.cfg: the version from conda-meta/python-3.10.14-*.json, not python-dateutil's */
	assert_string_equal(v->python_version, "3.10.14");
	assert_non_null(rr_venv_lookup(v, "torch"));
	assert_string_equal(v->torch_hip, "5.7.31921-d1770ee1b");
	assert_int_equal(v->nwarnings, 0);
	assert_string_equal(base->python_version, "3.10.14");
	assert_null(rr_venv_lookup(base, "torch"));
	rr_venv_free(v);
	rr_venv_free(base);
}

static void test_venv_not_an_environment(void **state)
{
	char tmpl[] = "/tmp/rr-notenv-XXXXXX";
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *cfg = NULL;
	(void)state;

	assert_non_null(mkdtemp(tmpl));
	assert_int_equal(rr_venv_load(tmpl, NULL, &v, &e), RR_E_ENV);
	assert_null(v);
	assert_non_null(strstr(e.msg, "is no Python environment"));
	assert_non_null(strstr(e.msg, "--stack FILE"));
	rr_error_release(&e);
	/* a pyvenv.cfg makes it a (broken) environment: loaded, with a warning */
	cfg = rr_xasprintf("%s/pyvenv.cfg", tmpl);
	FILE *f = fopen(cfg, "w");
	assert_non_null(f);
	fputs("version = 3.12.1\n", f);
	fclose(f);
	assert_int_equal(rr_venv_load(tmpl, NULL, &v, &e), RR_OK);
	assert_string_equal(v->python_version, "3.12.1");
	assert_true(has_warning(v, "no site-packages directory found"));
	rr_venv_free(v);
	unlink(cfg);
	rmdir(tmpl);
}

static void test_venv_missing(void **state)
{
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *file = fixture("rocm72/pyvenv.cfg");
	(void)state;

	assert_int_equal(rr_venv_load("/nonexistent/venv", NULL, &v, &e), RR_E_ENV);
	assert_null(v);
	assert_non_null(strstr(e.msg, "'/nonexistent/venv'"));
	rr_error_release(&e);
	assert_int_equal(rr_venv_load(file, NULL, &v, &e), RR_E_ENV);
	assert_non_null(strstr(e.msg, "is not a directory"));
	rr_error_release(&e);
}

static void test_venv_site_as_root(void **state)
{
	struct rr_venv *v = load("rocm72/lib/python3.12/site-packages", NULL);
	(void)state;

	assert_int_equal(v->ndists, 39);
	assert_null(v->python_version);
	rr_venv_free(v);
}

/*
 * FIFOs at pyvenv.cfg, a METADATA, torch/version.py and a direct_url.json, and /dev/zero
 * through a symlink at RECORD: loading returns promptly and names each (before, open()
 * waited for a FIFO writer forever). alarm() turns a regression into a failure, not a hang.
 */
static void test_venv_fifos(void **state)
{
	char tmp[] = "/tmp/rr-venv-fifo-XXXXXX";
	RR_AUTOFREE char *src = fixture("rocm72");
	RR_AUTOFREE char *cmd = NULL;
	RR_AUTOFREE char *site = NULL;
	RR_AUTOFREE char *p = NULL;
	struct rr_venv_opts o = {.sysroot = "/nonexistent-sysroot"};
	struct rr_venv *v = NULL;
	rr_error e = RR_ERROR_INIT;
	const struct rr_dist *d;
	(void)state;

	assert_non_null(mkdtemp(tmp));
	cmd = rr_xasprintf("cp -r '%s/.' '%s/'", src, tmp);
	assert_int_equal(system(cmd), 0);
	site = rr_xasprintf("%s/lib/python3.12/site-packages", tmp);
	const char *fifos[] = {"../../../pyvenv.cfg", "numpy-2.4.1.dist-info/METADATA",
			       "torch/version.py", "numpy-2.4.1.dist-info/direct_url.json"};
	for (size_t i = 0; i < RR_ARRAY_LEN(fifos); i++) {
		p = rr_free(p);
		p = rr_xasprintf("%s/%s", site, fifos[i]);
		unlink(p);
		assert_int_equal(mkfifo(p, 0600), 0);
	}
	p = rr_free(p);
	p = rr_xasprintf("%s/torchaudio-2.9.0+rocm7.2.0.gite3c6ee2b.dist-info/RECORD", site);
	unlink(p);
	assert_int_equal(symlink("/dev/zero", p), 0);

	alarm(30);
	assert_int_equal(rr_venv_load(tmp, &o, &v, &e), RR_OK);
	alarm(0);
	assert_true(has_warning(v, "pyvenv.cfg: it is a FIFO, not a regular file"));
	assert_true(has_warning(v, "torch/version.py: it is a FIFO, not a regular file"));
	d = rr_venv_lookup(v, "numpy");
	assert_non_null(d);
	assert_non_null(d->problem);
	assert_non_null(strstr(d->problem, "it is a FIFO, not a regular file"));
	d = rr_venv_lookup(v, "torchaudio");
	assert_non_null(d);
	rr_venv_free(v);
	cmd = rr_free(cmd);
	cmd = rr_xasprintf("rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

static void test_venv_unreadable(void **state)
{
	char tmpl[] = "/tmp/rr-venv-XXXXXX";
	char *dir = mkdtemp(tmpl);
	RR_AUTOFREE char *site = rr_xasprintf("%s/lib/python3.12/site-packages", dir);
	RR_AUTOFREE char *cmd = NULL;
	struct rr_venv *v;
	const struct rr_dist *d;
	FILE *f;
	(void)state;

	assert_non_null(dir);
	cmd = rr_xasprintf("mkdir -p %s/locked-1.0.dist-info %s/dirmeta-1.0.dist-info/METADATA "
			   "%s/closed-2.0.dist-info",
			   site, site, site);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = rr_xasprintf("%s/locked-1.0.dist-info/METADATA", site);
	f = fopen(cmd, "w");
	fputs("Name: locked\nVersion: 1.0\n", f);
	fclose(f);
	chmod(cmd, 0);
	free(cmd);
	cmd = rr_xasprintf("%s/closed-2.0.dist-info", site);
	chmod(cmd, 0);
	assert_int_equal(rr_venv_load(dir, NULL, &v, NULL), RR_OK);
	/* a directory where METADATA should be fails for root too */
	d = rr_venv_lookup(v, "dirmeta");
	assert_non_null(strstr(d->problem, "is a directory"));
	if (geteuid() != 0) {
		d = rr_venv_lookup(v, "locked");
		assert_non_null(strstr(d->problem, "Permission denied"));
		d = rr_venv_lookup(v, "closed");
		assert_non_null(strstr(d->problem, "permission denied"));
	} else {
		/* root reads mode-000 files: chmod cannot make them unreadable */
		print_message("running as root: mode-000 assertions skipped\n");
	}
	rr_venv_free(v);
	chmod(cmd, 0755);
	free(cmd);
	cmd = rr_xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_venv_speed(void **state)
{
	RR_AUTOFREE char *root = fixture("rocm72");
	struct rr_venv *v;
	const int n = 20;
	(void)state;

	/* repeated loads give the same answer (timing lives in bench/bench.py) */
	for (int i = 0; i < n; i++) {
		assert_int_equal(rr_venv_load(root, NULL, &v, NULL), RR_OK);
		assert_int_equal(v->ndists, 39);
		rr_venv_free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_venv_rocm72),
		cmocka_unit_test(test_venv_rocm64_uv),
		cmocka_unit_test(test_venv_cpu_plain_version_py),
		cmocka_unit_test(test_venv_env_overrides),
		cmocka_unit_test(test_venv_bridged),
		cmocka_unit_test(test_venv_broken),
		cmocka_unit_test(test_venv_egg_info),
		cmocka_unit_test(test_venv_missing),
		cmocka_unit_test(test_venv_locate),
		cmocka_unit_test(test_venv_system_site_packages),
		cmocka_unit_test(test_venv_system_prefix_and_constraint),
		cmocka_unit_test(test_venv_conda_layout),
		cmocka_unit_test(test_venv_not_an_environment),
		cmocka_unit_test(test_venv_fifos),
		cmocka_unit_test(test_venv_site_as_root),
		cmocka_unit_test(test_venv_unreadable),
		cmocka_unit_test(test_venv_speed),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

/*
 * the install transaction (rr_install_run, rr_install_restore) on a copy of the rocm72 fixture
 * venv, with a fake uv (a shell script) that damages the protected triton as a CUDA triton
 * from PyPI would; the end-to-end runs with real uv and pip are tests/cli/install-*.py and
 * tests/e2e/install-rollback.py
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocm-resolve/install.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/verify.h"

#define SITE "venv/lib/python3.12/site-packages"

static char tmp[64];
static char path_env[4096];
static char tmpdir_env[128];
static char cache_env[128];
static char state_env[128];

static const char *fake_getenv(const char *name)
{
	if (!strcmp(name, "PATH"))
		return path_env;
	if (!strcmp(name, "TMPDIR"))
		return tmpdir_env;
	if (!strcmp(name, "XDG_CACHE_HOME"))
		return cache_env;
	if (!strcmp(name, "XDG_STATE_HOME"))
		return state_env;
	if (!strcmp(name, "HOME"))
		return tmp;
	return NULL;
}

static char *at(const char *rel)
{
	return rr_xasprintf("%s/%s", tmp, rel);
}

static void put(const char *rel, const char *text, mode_t mode)
{
	RR_AUTOFREE char *p = at(rel);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	chmod(p, mode);
}

static char *slurp(const char *rel)
{
	RR_AUTOFREE char *p = at(rel);
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(p, "rb");

	if (!f)
		return NULL;
	while ((n = fread(buf, 1, sizeof(buf), f)))
		rr_strbuf_add(&sb, buf, n);
	fclose(f);
	return rr_strbuf_detach(&sb, NULL);
}

/* what the observer heard */
struct heard {
	unsigned kinds; /* bit per event kind */
	char *argv0, *plan;
	size_t restored, removed, lost;
	bool restored_init;
};

static void observe(void *ctx, const struct rr_install_event *ev)
{
	struct heard *h = ctx;

	h->kinds |= 1u << ev->kind;
	if (ev->kind == RR_INSTALL_EV_RUNNING) {
		free(h->argv0);
		free(h->plan);
		h->argv0 = rr_xstrdup(ev->argv[0]);
		for (size_t i = 0; ev->argv[i]; i++)
			if (!strcmp(ev->argv[i], "-r"))
				h->plan = rr_xstrdup(ev->argv[i + 1]);
	}
	if (ev->kind == RR_INSTALL_EV_CHECKED) {
		const struct rr_store_result *r = ev->check->found;
		h->restored += r->nrestored;
		h->removed += r->nremoved;
		h->lost += r->nlost;
		for (size_t i = 0; i < r->nrestored; i++)
			h->restored_init |= !strcmp(r->restored[i], "triton/__init__.py");
	}
}

static void heard_release(struct heard *h)
{
	free(h->argv0);
	free(h->plan);
	memset(h, 0, sizeof(*h));
}

static const char *inputs[1];
static char req_path[128], venv_path[128], sysroot[128];

static void opts(struct rr_install_opts *o, struct heard *h)
{
	memset(o, 0, sizeof(*o));
	o->flow.inputs = inputs;
	o->flow.ninputs = 1;
	o->flow.command = "install";
	o->flow.venv = venv_path;
	o->flow.sysroot = sysroot;
	o->flow.no_index = true;
	o->flow.getenv_fn = fake_getenv;
	o->observe = observe;
	o->observe_ctx = h;
}

/* the fake uv: FAKE decides what it does to triton, then it exits with its status */
static void fake_uv(const char *what, int status)
{
	RR_AUTOFREE char *site = at(SITE);
	RR_AUTOFREE char *script = rr_xasprintf("#!/bin/sh\ncd '%s' || exit 99\n%s\nexit %d\n", site,
						what, status);
	put("bin/uv", script, 0755);
}

static int setup(void **state)
{
	const char *src = getenv("RR_SRCDIR");
	RR_AUTOFREE char *cmd = NULL;
	(void)state;

	snprintf(tmp, sizeof(tmp), "/tmp/rr-test-install-XXXXXX");
	assert_non_null(mkdtemp(tmp));
	cmd = rr_xasprintf("cp -a '%s/fixtures/venvs/rocm72' '%s/venv' && mkdir '%s/bin' '%s/t'",
			   src ? src : ".", tmp, tmp, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(path_env, sizeof(path_env), "%s/bin:/usr/bin:/bin", tmp);
	snprintf(tmpdir_env, sizeof(tmpdir_env), "%s/t", tmp);
	snprintf(cache_env, sizeof(cache_env), "%s/cache", tmp);
	snprintf(state_env, sizeof(state_env), "%s/state", tmp);
	snprintf(req_path, sizeof(req_path), "%s/requirements.txt", tmp);
	snprintf(venv_path, sizeof(venv_path), "%s/venv", tmp);
	snprintf(sysroot, sizeof(sysroot), "%s/no-gpu", tmp);
	inputs[0] = req_path;
	put("requirements.txt", "requests\n", 0644);
	return 0;
}

static int teardown(void **state)
{
	RR_AUTOFREE char *cmd = rr_xasprintf("rm -rf '%s'", tmp);
	(void)state;
	return system(cmd) == 0 ? 0 : -1;
}

static const char *verdict(const struct rr_verify_report *r, const char *stage)
{
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(r->stages[i].name, stage))
			return rr_verdict_to_string(r->stages[i].verdict);
	return "?";
}

/* the installer rewrites and removes protected files: both come back, verify passes */
static void test_clobber_repaired(void **state)
{
	RR_AUTOFREE char *before = slurp(SITE "/triton/__init__.py");
	RR_AUTOFREE char *after = NULL;
	RR_AUTOFREE char *jit = NULL;
	struct rr_install_opts o;
	struct rr_install_result r;
	struct heard h = {0};
	rr_error e = RR_ERROR_INIT;
	(void)state;

	assert_non_null(before);
	jit = slurp(SITE "/triton/runtime/jit.py");
	fake_uv("rm triton/__init__.py && echo '# CUDA triton' > triton/__init__.py && "
		"rm triton/runtime/jit.py && mkdir -p requests && echo '#' > requests/__init__.py",
		0);
	opts(&o, &h);
	if (rr_install_run(&o, &r, &e))
		fail_msg("install: %s", e.msg);
	assert_int_equal(r.installer_status, 0);
	assert_int_equal(r.signal, 0);
	assert_true(r.repaired);
	assert_false(r.damaged);
	assert_null(r.kept_plan);
	/* every step was reported, in a transaction that ran the fake uv */
	assert_int_equal(h.kinds, (1u << RR_INSTALL_EV_OPENED) | (1u << RR_INSTALL_EV_PLANNED) |
					  (1u << RR_INSTALL_EV_STORED) | (1u << RR_INSTALL_EV_RUNNING) |
					  (1u << RR_INSTALL_EV_CHECKED));
	assert_true(rr_str_endswith(h.argv0, "/bin/uv"));
	/* the plan was a temporary file under $TMPDIR, gone afterwards */
	assert_true(rr_str_startswith(h.plan, tmpdir_env));
	assert_int_equal(access(h.plan, F_OK), -1);
	assert_int_equal(h.restored, 2);
	assert_true(h.restored_init);
	after = slurp(SITE "/triton/__init__.py");
	assert_string_equal(after, before);
	free(after);
	after = slurp(SITE "/triton/runtime/jit.py");
	assert_string_equal(after, jit);
	free(after);
	/* what the installer added besides stays */
	after = slurp(SITE "/requests/__init__.py");
	assert_non_null(after);
	assert_non_null(r.verify);
	assert_string_equal(verdict(r.verify, "integrity"), "PASS");
	rr_install_result_release(&r);
	heard_release(&h);
}

/* a failing installer: the damage is repaired all the same, the plan is kept */
static void test_failed_installer(void **state)
{
	struct rr_install_opts o;
	struct rr_install_result r;
	struct heard h = {0};
	rr_error e = RR_ERROR_INIT;
	(void)state;

	fake_uv("rm triton/__init__.py", 2);
	opts(&o, &h);
	if (rr_install_run(&o, &r, &e))
		fail_msg("install: %s", e.msg);
	assert_int_equal(r.installer_status, 2);
	assert_true(r.repaired);
	assert_false(r.damaged);
	assert_non_null(r.kept_plan);
	assert_string_equal(r.kept_plan, h.plan);
	assert_int_equal(access(r.kept_plan, F_OK), 0);
	assert_null(r.verify); /* no verify after a failed installer */
	unlink(r.kept_plan);
	rr_install_result_release(&r);
	heard_release(&h);
}

/* restore: nothing in an empty store is RR_E_NOTFOUND; after an install it repairs */
static void test_restore(void **state)
{
	struct rr_install_opts o;
	struct rr_install_result r;
	struct heard h = {0};
	rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *empty = at("empty-store");
	RR_AUTOFREE char *before = slurp(SITE "/torch/__init__.py");
	RR_AUTOFREE char *after = NULL;
	RR_AUTOFREE char *torch_init = at(SITE "/torch/__init__.py");
	(void)state;

	opts(&o, &h);
	o.store_dir = empty;
	assert_int_equal(rr_install_restore(&o, &r, &e), RR_E_NOTFOUND);
	assert_non_null(strstr(e.msg, "no snapshot of"));
	rr_error_release(&e);
	rr_install_result_release(&r);

	fake_uv("true", 0);
	opts(&o, &h);
	if (rr_install_run(&o, &r, &e))
		fail_msg("install: %s", e.msg);
	assert_false(r.repaired);
	rr_install_result_release(&r);
	assert_int_equal(unlink(torch_init), 0);
	opts(&o, &h);
	if (rr_install_restore(&o, &r, &e))
		fail_msg("restore: %s", e.msg);
	assert_true(r.repaired);
	assert_false(r.damaged);
	assert_int_equal(r.installer_status, -1);
	after = slurp(SITE "/torch/__init__.py");
	assert_string_equal(after, before);
	rr_install_result_release(&r);
	heard_release(&h);
}

/* issue 19 item 1: one install at a time per venv; the second is told, nothing runs */
static void test_second_install_refused(void **state)
{
	struct rr_install_opts o;
	struct rr_install_result r;
	struct heard h = {0};
	rr_error e = RR_ERROR_INIT;
	RR_AUTOFREE char *dir = NULL;
	int fd = -1;
	(void)state;

	fake_uv("rm triton/__init__.py", 0);
	opts(&o, &h);
	dir = rr_install_store_dir(&o, venv_path);
	assert_non_null(dir);
	assert_int_equal(rr_store_lock(dir, true, &fd, &e), RR_OK); /* the first install */
	assert_int_equal(rr_install_run(&o, &r, &e), RR_E_ENV);
	assert_non_null(strstr(e.msg, "another `rocm-resolve install` or `restore` is working"));
	rr_error_release(&e);
	assert_int_equal(r.installer_status, -1);
	assert_false(h.kinds & (1u << RR_INSTALL_EV_RUNNING));
	assert_false(h.kinds & (1u << RR_INSTALL_EV_STORED));
	assert_int_equal(rr_install_restore(&o, &r, &e), RR_E_ENV);
	rr_error_release(&e);
	close(fd);
	rr_install_result_release(&r);
	heard_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clobber_repaired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_installer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_install_refused, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

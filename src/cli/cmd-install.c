/*
 * cmd-install.c - `install`: plan, run the installer with the plan, verify.
 *
 * The plan is written to a private temporary file and handed to the
 * installer with -r; packages that must never arrive (stripped CUDA-only
 * names, members of a protected clash group) go to uv's --excludes file.
 * Afterwards the venv is read again: a protected distribution whose version
 * changed is named, with the commands that put the installed build back.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "session.h"
#include "verify-run.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/verify.h"

extern char **environ;

struct snapshot {
	char *name;
	char *version;
	char *direct_url;
};

static char *find_on_path(const char *prog)
{
	const char *path = getenv("PATH");
	RR_AUTOFREE char *copy = rr_xstrdup(path ? path : "/usr/bin:/bin");
	char *save = NULL;

	for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		char *cand = rr_xasprintf("%s/%s", dir, prog);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

static int write_temp(const char *contents, char *tmpl)
{
	int fd = mkstemp(tmpl);
	size_t len = strlen(contents);

	if (fd < 0)
		return -1;
	if (write(fd, contents, len) != (ssize_t)len) {
		close(fd);
		unlink(tmpl);
		return -1;
	}
	close(fd);
	return 0;
}

static int run_installer(char **argv)
{
	pid_t pid;
	int wstatus;

	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ)) {
		fprintf(stderr, "rocm-resolve: error: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		return -1;
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

/* the command that puts one protected build back, in the installer's own words */
static void restore_command(const struct snapshot *sn, const char *python, bool uv,
			    struct rr_strbuf *restore)
{
	RR_AUTOFREE char *what = sn->direct_url ? rr_xasprintf("%s @ %s", sn->name, sn->direct_url)
						: rr_xasprintf("%s==%s", sn->name, sn->version);

	if (uv)
		rr_strbuf_addf(restore, "  uv pip install --python %s --no-deps --reinstall '%s'", python,
			       what);
	else
		rr_strbuf_addf(restore, "  %s -m pip install --no-deps --force-reinstall '%s'", python,
			       what);
	rr_strbuf_adds(restore, sn->direct_url ? "\n" : "   # from the index it came from\n");
}

/* the protected distributions whose version changed or vanished, with restore commands */
static size_t compare_stack(const struct snapshot *snap, size_t n, const struct rr_venv *after,
			    const char *python, bool uv, struct rr_strbuf *report,
			    struct rr_strbuf *restore)
{
	size_t changed = 0;

	for (size_t i = 0; i < n; i++) {
		RR_AUTOFREE char *key = rr_name_normalize(snap[i].name);
		const struct rr_dist *d = rr_venv_lookup(after, key);
		if (d && strcmp(d->version_text, snap[i].version) == 0)
			continue;
		changed++;
		rr_strbuf_addf(report, "  %s %s -> %s\n", snap[i].name, snap[i].version,
			       d ? d->version_text : "removed");
		restore_command(&snap[i], python, uv, restore);
	}
	return changed;
}

int cmd_install(struct rr_cli *cli)
{
	struct rr_session s;
	struct rr_resolution res = {0};
	struct rr_plan *plan = NULL;
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf excl = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf report = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf restore = RR_STRBUF_INIT;
	struct rr_verify_report *vr = NULL;
	struct snapshot *snap = NULL;
	size_t nsnap = 0;
	char plan_path[] = "/tmp/rocm-resolve-plan-XXXXXX";
	char excl_path[] = "/tmp/rocm-resolve-excludes-XXXXXX";
	bool have_excl = false;
	RR_AUTOFREE char *uv = NULL;
	RR_AUTOFREE char *python = NULL;
	const char **argv = NULL;
	size_t argc = 0;
	size_t cap = 0;
	int status;
	int rc;

	status = rr_session_open(&s, cli, true);
	if (status >= 0)
		return status;
	rr_session_warnings(&s, cli);
	status = rr_cli_build_plan(cli, &s, &res, &plan);
	if (status >= 0)
		goto out;
	rr_plan_format_text(plan, &text);
	/* the same names --uv-excludes writes */
	rr_plan_format_excludes(plan, &excl);
	python = rr_xasprintf("%s/bin/python", s.venv->root);
	snap = rr_xcalloc(s.stack->n + 1, sizeof(*snap));
	for (size_t i = 0; i < s.stack->n; i++) {
		const struct rr_protected *p = &s.stack->items[i];
		snap[nsnap].name = rr_xstrdup(p->name);
		snap[nsnap].version = rr_xstrdup(p->version);
		snap[nsnap].direct_url =
			p->dist && p->dist->direct_url ? rr_xstrdup(p->dist->direct_url) : NULL;
		nsnap++;
	}
	if (write_temp(text.buf, plan_path) ||
	    (excl.len && !(have_excl = write_temp(excl.buf, excl_path) == 0))) {
		fprintf(stderr, "rocm-resolve: error: cannot write a temporary file: %s\n",
			strerror(errno));
		status = RR_EXIT_ENV;
		goto out;
	}
	if (!cli->installer || strcmp(cli->installer, "uv") == 0)
		uv = find_on_path("uv");
	if (cli->installer && strcmp(cli->installer, "uv") == 0 && !uv) {
		fprintf(stderr, "rocm-resolve: error: --installer uv but no 'uv' on PATH\n");
		status = RR_EXIT_ENV;
		goto out;
	}
	if (uv) {
		RR_PUSH(argv, argc, cap) = uv;
		RR_PUSH(argv, argc, cap) = "pip";
		RR_PUSH(argv, argc, cap) = "install";
		RR_PUSH(argv, argc, cap) = "--python";
		RR_PUSH(argv, argc, cap) = python;
		if (have_excl) {
			RR_PUSH(argv, argc, cap) = "--excludes";
			RR_PUSH(argv, argc, cap) = excl_path;
		}
	} else {
		RR_PUSH(argv, argc, cap) = python;
		RR_PUSH(argv, argc, cap) = "-m";
		RR_PUSH(argv, argc, cap) = "pip";
		RR_PUSH(argv, argc, cap) = "install";
	}
	RR_PUSH(argv, argc, cap) = "-r";
	RR_PUSH(argv, argc, cap) = plan_path;
	for (size_t i = 0; i < cli->npassthrough; i++)
		RR_PUSH(argv, argc, cap) = cli->passthrough[i];
	RR_PUSH(argv, argc, cap) = NULL;
	if (cli->verbosity >= 0) {
		fprintf(stderr, "rocm-resolve: running");
		for (size_t i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
	}
	rc = run_installer((char **)argv);
	if (rc != 0) {
		fprintf(stderr, "rocm-resolve: error: the installer failed (status %d); the plan "
				"it was given is kept at %s\n",
			rc, plan_path);
		status = RR_EXIT_ENV;
		goto out;
	}
	/* read the venv again: what did the installer do to the stack? */
	rr_session_close(&s);
	status = rr_session_open(&s, cli, false);
	if (status >= 0)
		goto out;
	if (compare_stack(snap, nsnap, s.venv, python, uv != NULL, &report, &restore))
		fprintf(stderr, "rocm-resolve: the installer changed the protected stack:\n%s"
				"restore the installed builds with:\n%s",
			report.buf, restore.buf);
	status = rr_cli_verify_session(cli, &s, &vr);
	if (status < 0) {
		status = rr_cli_verify_print(cli, vr);
		if (status == RR_EXIT_NO && !report.len) {
			/* versions unchanged but files differ: reinstall every member */
			for (size_t i = 0; i < nsnap; i++)
				restore_command(&snap[i], python, uv != NULL, &restore);
			fprintf(stderr, "rocm-resolve: verify failed after installing; to reinstall "
					"the protected builds:\n%s",
				restore.buf);
		}
	}
	unlink(plan_path);
out:
	if (have_excl)
		unlink(excl_path);
	for (size_t i = 0; i < nsnap; i++) {
		free(snap[i].name);
		free(snap[i].version);
		free(snap[i].direct_url);
	}
	free(snap);
	free(argv);
	rr_verify_report_free(vr);
	rr_plan_free(plan);
	rr_resolution_release(&res);
	rr_session_close(&s);
	return status;
}

/*
 * cmd-install.c - `install`: plan, snapshot the protected stack, run the installer with the
 * plan, put back whatever it damaged, verify. `restore`: the same repair later, from the last
 * snapshot.
 *
 * The plan is written to a private temporary file and handed to the installer with -r;
 * packages that must never arrive (stripped CUDA-only names, members of a protected clash
 * group) go to uv's --excludes file. pip has no such option: install says so before running.
 *
 * Before the installer runs, every file of every protected distribution is kept in the
 * install store (src/install/store.c: hard links in the cache directory, copies across
 * filesystems). Afterwards, whatever the installer's exit status (a half-finished install is
 * when the stack breaks), the venv is compared with the snapshot: changed or vanished files
 * are put back byte for byte, distributions that arrived and clash with a protected module
 * are removed, and the result is checked again. The installers' ROCm wheels cannot be
 * downloaded again, so no "reinstall from the index" advice is given.
 *
 * SIGTERM, SIGINT and SIGHUP sent to rocm-resolve are forwarded to the installer (a terminal's
 * ^C already reaches it: those are not sent twice); the installer is reaped, the temporary
 * files are removed, and rocm-resolve dies of the same signal.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
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
#include "rocm-resolve/plan.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/verify.h"

extern char **environ;

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

/* ---------------------------------------------------------------- the snapshot store */

/* where snapshots live: --cache-dir, else $XDG_CACHE_HOME/rocm-resolve, else ~/.cache/... */
static char *cache_root(const struct rr_cli *cli)
{
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (cli->cache_dir && *cli->cache_dir)
		return rr_xstrdup(cli->cache_dir);
	if (xdg && xdg[0] == '/') /* the XDG spec: a relative value is ignored */
		return rr_xasprintf("%s/rocm-resolve", xdg);
	if (home && *home)
		return rr_xasprintf("%s/.cache/rocm-resolve", home);
	return NULL;
}

/* the store for the session's venv (NULL with a message when there is no cache directory) */
static char *snapshot_dir(const struct rr_cli *cli, const struct rr_session *s)
{
	RR_AUTOFREE char *root = cache_root(cli);
	char real[PATH_MAX];

	if (!root) {
		fprintf(stderr, "rocm-resolve: error: no directory for snapshots: set --cache-dir, "
				"XDG_CACHE_HOME or HOME\n");
		return NULL;
	}
	return rr_store_dir(root, realpath(s->venv->root, real) ? real : s->venv->root);
}

static int take_snapshot(const struct rr_cli *cli, const struct rr_session *s, const char *dir)
{
	struct rr_store_dist *dists = rr_xcalloc(s->stack->n + 1, sizeof(*dists));
	const char **sites = rr_xcalloc(s->venv->nbridged_sites + 2, sizeof(*sites));
	struct rr_store_spec spec = {.venv_root = s->venv->root, .sites = sites, .dists = dists};
	struct rr_store_stats st;
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	if (s->venv->site_packages)
		sites[spec.nsites++] = s->venv->site_packages;
	for (size_t i = 0; i < s->venv->nbridged_sites; i++)
		sites[spec.nsites++] = s->venv->bridged_sites[i];
	for (size_t i = 0; i < s->stack->n; i++) {
		const struct rr_protected *p = &s->stack->items[i];
		if (!p->dist || p->dist->egg_info)
			continue;
		dists[spec.ndists].name = p->name;
		dists[spec.ndists].version = p->version;
		dists[spec.ndists].dist_info_dir = p->dist->path;
		dists[spec.ndists].site = p->dist->site;
		spec.ndists++;
	}
	rc = rr_store_take(dir, &spec, &st, &err);
	free(dists);
	free(sites);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		fprintf(stderr, "rocm-resolve: error: without a snapshot the protected stack could not "
				"be put back; the installer was not run\n");
		return RR_EXIT_ENV;
	}
	rr_cli_info(cli, "snapshot of %zu protected distribution%s (%zu files) in %s: %zu linked, "
		    "%zu copied (%llu bytes), %zu small files packed (%llu bytes in the pack), "
		    "%zu kept from before",
		    st.dists, st.dists == 1 ? "" : "s", st.files, dir, st.linked, st.copied,
		    st.bytes_copied, st.packed, st.bytes_packed, st.reused);
	if (st.unverified)
		rr_cli_warn(cli, "%zu protected file%s already differ%s from %s RECORD hash: the "
				 "snapshot holds no good copy of %s",
			    st.unverified, st.unverified == 1 ? "" : "s", st.unverified == 1 ? "s" : "",
			    st.unverified == 1 ? "its" : "their", st.unverified == 1 ? "it" : "them");
	return -1;
}

static void print_list(FILE *f, const char *head, char *const *v, size_t n)
{
	/* items one level deeper than their heading */
	const char *indent = head[0] == ' ' ? "    " : "  ";

	if (!n)
		return;
	fprintf(f, "%s\n", head);
	for (size_t i = 0; i < n; i++) {
		RR_AUTOFREE char *shown = rr_redact_credentials(v[i]);
		fprintf(f, "%s%s\n", indent, shown);
	}
}

/*
 * compare the venv with the snapshot in dir and repair it; prints what was found and done
 * on f. Returns -1 when the stack matches the snapshot (again), else the exit status.
 */
static int check_and_repair(const struct rr_cli *cli, const char *dir, FILE *f, const char *who,
			    unsigned flags, bool *repaired)
{
	struct rr_store *snap = NULL;
	struct rr_store_result r = {0}, again = {0};
	rr_error err = RR_ERROR_INIT;
	int status = -1;
	rr_err rc;

	*repaired = false;
	rc = rr_store_load(dir, &snap, &err);
	if (!rc)
		rc = rr_store_check(snap, RR_STORE_REPAIR | flags, &r, &err);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		rr_store_free(snap);
		return rc == RR_E_NOTFOUND ? RR_EXIT_ENV : rr_cli_exit_for(rc);
	}
	rr_cli_info(cli, "compared %zu files with the snapshot (%zu hashed: inode or times changed%s)",
		    r.files, r.hashed, flags & RR_STORE_FULL ? ", or every file asked for" : "");
	if (!r.nchanged && !r.nintruders) {
		if (cli->verbosity < 0)
			goto out;
		fprintf(f, "rocm-resolve: the protected stack matches the snapshot (%zu files of %zu "
			   "distribution%s)\n",
			r.files, rr_store_ndists(snap), rr_store_ndists(snap) == 1 ? "" : "s");
		goto out;
	}
	*repaired = true;
	fprintf(f, "rocm-resolve: %s changed the protected stack:\n", who);
	print_list(f, "  files:", r.changed, r.nchanged);
	print_list(f, "  distributions that clash with it:", r.intruders, r.nintruders);
	print_list(f, "rocm-resolve: removed:", r.removed, r.nremoved);
	print_list(f, "rocm-resolve: restored from the snapshot:", r.restored, r.nrestored);
	print_list(f, "rocm-resolve: error: could not restore:", r.lost, r.nlost);
	rc = rr_store_check(snap, flags & RR_STORE_FULL, &again, &err);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		status = rr_cli_exit_for(rc);
	} else if (again.nchanged || again.nintruders) {
		fprintf(f, "rocm-resolve: error: the protected stack still differs from the snapshot:\n");
		print_list(f, "  files:", again.changed, again.nchanged);
		print_list(f, "  distributions:", again.intruders, again.nintruders);
		status = RR_EXIT_NO;
	} else {
		fprintf(f, "rocm-resolve: the protected stack matches the snapshot again (%zu files)\n",
			again.files);
	}
out:
	rr_store_result_release(&r);
	rr_store_result_release(&again);
	rr_store_free(snap);
	return status;
}

/* ---------------------------------------------------------------- running the installer */

static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t got_signal;
static const int forwarded[] = {SIGTERM, SIGINT, SIGHUP};

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	pid_t pid = (pid_t)child_pid;

	(void)uc;
	got_signal = sig;
	/* a terminal's ^C or hangup (si_code SI_KERNEL) reaches the installer already */
	if (pid > 0 && !(si && si->si_code == SI_KERNEL))
		kill(pid, sig);
}

static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaction(forwarded[i], &sa, NULL);
}

/* once nothing is left to clean up or finish, a signal may end us at once again */
static void default_signals(void)
{
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		signal(forwarded[i], SIG_DFL);
}

/* the conventional end after a signal: die of it (the shell shows 128 + its number) */
static int die_of_signal(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
	return 128 + sig;
}

static int run_installer(char **argv)
{
	posix_spawnattr_t attr;
	sigset_t block, old, none, dfl;
	pid_t pid;
	int wstatus, rc;

	sigemptyset(&block);
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaddset(&block, forwarded[i]);
	sigemptyset(&none);
	/* the child starts with default dispositions (SIGPIPE is ignored here) and no mask */
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	for (size_t i = 0; i < RR_ARRAY_LEN(forwarded); i++)
		sigaddset(&dfl, forwarded[i]);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	/* a signal between spawn and recording the pid stays pending, then is forwarded */
	sigprocmask(SIG_BLOCK, &block, &old);
	rc = posix_spawn(&pid, argv[0], NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (rc == 0)
		child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		fprintf(stderr, "rocm-resolve: error: cannot run '%s': %s\n", argv[0], strerror(rc));
		return -1;
	}
	while (waitpid(pid, &wstatus, 0) < 0)
		if (errno != EINTR) {
			child_pid = 0;
			return -1;
		}
	child_pid = 0;
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

static void print_command(const struct rr_cli *cli, const char *const *argv)
{
	RR_AUTO_STRBUF struct rr_strbuf line = RR_STRBUF_INIT;

	if (cli->verbosity < 0)
		return;
	rr_strbuf_adds(&line, "rocm-resolve: running");
	for (size_t i = 0; argv[i]; i++) {
		/* an index URL with a token in it must not reach a CI log */
		RR_AUTOFREE char *shown = rr_redact_credentials(argv[i]);
		rr_strbuf_addf(&line, " %s", shown);
	}
	fprintf(stderr, "%s\n", line.buf);
}

/* ---------------------------------------------------------------- verify after installing */

static bool integrity_failed(const struct rr_verify_report *vr)
{
	for (size_t i = 0; i < 3; i++)
		if (!strcmp(vr->stages[i].name, "integrity"))
			return vr->stages[i].verdict == RR_VERDICT_FAIL;
	return false;
}

/*
 * verify the session's venv and print the report. When integrity fails although the quick
 * check after the installer found nothing (damage older than this install, which the
 * snapshot may still hold good bytes for), every file is hashed against the snapshot and
 * repaired, and verify runs again. *repair_status: -1 or the exit status of that repair
 */
static int verify_after(struct rr_cli *cli, struct rr_session *s, const char *snapdir,
			int *repair_status)
{
	struct rr_verify_report *vr = NULL;
	int status = rr_cli_verify_session(cli, s, &vr);
	bool repaired = false;

	if (status >= 0)
		return status;
	if (snapdir && *repair_status < 0 && integrity_failed(vr)) {
		*repair_status = check_and_repair(cli, snapdir, stderr, "something before this install",
						  RR_STORE_FULL, &repaired);
		if (repaired) {
			rr_verify_report_free(vr);
			vr = NULL;
			rr_session_close(s);
			status = rr_session_open(s, cli, false);
			if (status >= 0)
				return status;
			status = rr_cli_verify_session(cli, s, &vr);
			if (status >= 0)
				return status;
		}
	}
	status = rr_cli_verify_print(cli, vr);
	if (status == RR_EXIT_ENV) {
		/* no GPU (CI, a laptop): the install itself is fine; say what was not checked */
		RR_AUTO_STRBUF struct rr_strbuf what = RR_STRBUF_INIT;
		for (size_t i = 0; i < 3; i++)
			if (vr->stages[i].verdict == RR_VERDICT_UNAVAILABLE)
				rr_strbuf_addf(&what, "\n  %s: %s", vr->stages[i].name,
					       vr->stages[i].summary ? vr->stages[i].summary : "");
		if (cli->require_gpu) {
			fprintf(stderr, "rocm-resolve: error: --require-gpu: verify could not check:%s\n",
				what.buf);
		} else {
			rr_cli_warn(cli, "verify could not check (no usable GPU; --require-gpu makes "
					 "this an error):%s", what.buf);
			status = RR_EXIT_OK;
		}
	}
	rr_verify_report_free(vr);
	return status;
}

int cmd_install(struct rr_cli *cli)
{
	struct rr_session s;
	struct rr_resolution res = {0};
	struct rr_plan *plan = NULL;
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf excl = RR_STRBUF_INIT;
	char plan_path[] = "/tmp/rocm-resolve-plan-XXXXXX";
	char excl_path[] = "/tmp/rocm-resolve-excludes-XXXXXX";
	bool have_plan = false, have_excl = false, keep_plan = false, repaired = false;
	RR_AUTOFREE char *uv = NULL;
	RR_AUTOFREE char *python = NULL;
	RR_AUTOFREE char *snapdir = NULL;
	const char **argv = NULL;
	size_t argc = 0;
	size_t cap = 0;
	int status, repair_status;
	int rc;

	status = rr_session_open(&s, cli, true);
	if (status >= 0)
		return status;
	rr_session_warnings(&s, cli);
	status = rr_cli_build_plan(cli, &s, &res, &plan);
	if (status >= 0)
		goto out;
	/* what the plan strips or cannot know is said before anything is installed */
	rr_cli_plan_warnings(cli, plan);
	rr_plan_format_text(plan, &text);
	/* the same names --uv-excludes writes */
	rr_plan_format_excludes(plan, &excl);
	python = rr_xasprintf("%s/bin/python", s.venv->root);
	if (!cli->installer || strcmp(cli->installer, "uv") == 0)
		uv = find_on_path("uv");
	if (cli->installer && strcmp(cli->installer, "uv") == 0 && !uv) {
		fprintf(stderr, "rocm-resolve: error: --installer uv but no 'uv' on PATH\n");
		status = RR_EXIT_ENV;
		goto out;
	}
	if (!uv && excl.len) {
		RR_AUTO_STRBUF struct rr_strbuf names = RR_STRBUF_INIT;
		for (const char *p = excl.buf; *p;) {
			size_t n = strcspn(p, "\n");
			if (n && *p != '#')
				rr_strbuf_addf(&names, "%s%.*s", names.len ? ", " : "", (int)n, p);
			p += n + (p[n] == '\n');
		}
		rr_cli_warn(cli, "pip has no --excludes: nothing stops it from installing %s as a "
				 "dependency; the protected stack is snapshotted and will be put back "
				 "if pip damages it (uv honours the exclusions)",
			    names.buf);
	}
	snapdir = snapshot_dir(cli, &s);
	if (!snapdir) {
		status = RR_EXIT_ENV;
		goto out;
	}
	/* from here on a signal is forwarded to the installer and ends in clean-up */
	catch_signals();
	status = take_snapshot(cli, &s, snapdir);
	if (status >= 0)
		goto out;
	have_plan = write_temp(text.buf, plan_path) == 0;
	if (!have_plan || (excl.len && !(have_excl = write_temp(excl.buf, excl_path) == 0))) {
		fprintf(stderr, "rocm-resolve: error: cannot write a temporary file: %s\n",
			strerror(errno));
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
	if (got_signal)
		goto out; /* signalled before the installer started: nothing to undo */
	print_command(cli, argv);
	rc = run_installer((char **)argv);
	if (got_signal) {
		fprintf(stderr, "rocm-resolve: interrupted; the installer was stopped (status %d). "
				"`rocm-resolve restore` checks the protected stack against the snapshot "
				"taken before it ran and puts it back\n",
			rc);
		goto out;
	}
	/* whatever the installer's status: a half-finished install is when the stack breaks */
	repair_status = check_and_repair(cli, snapdir, stderr,
					 rc ? "the failed installer" : "the installer", 0, &repaired);
	if (got_signal)
		goto out; /* the repair is done; verify can wait for `rocm-resolve verify` */
	if (rc != 0) {
		keep_plan = true;
		fprintf(stderr, "rocm-resolve: error: the installer failed (status %d); the plan "
				"it was given is kept at %s\n",
			rc, plan_path);
		status = repair_status >= 0 ? repair_status : RR_EXIT_ENV;
		goto out;
	}
	/* the temporary files are done with; verify (up to a minute a stage) may be stopped */
	unlink(plan_path);
	have_plan = false;
	if (have_excl)
		unlink(excl_path);
	have_excl = false;
	default_signals();
	if (got_signal)
		goto out;
	/* read the venv again and verify what is there now */
	rr_session_close(&s);
	status = rr_session_open(&s, cli, false);
	if (status >= 0)
		goto out;
	status = verify_after(cli, &s, snapdir, &repair_status);
	if (repair_status >= 0)
		status = repair_status; /* the stack is still damaged: that comes first */
	else if (repaired && status == RR_EXIT_OK)
		rr_cli_warn(cli, "the installer's changes to the protected stack were undone (see "
				 "above); what it installed besides them stays");
out:
	if (have_plan && !keep_plan)
		unlink(plan_path);
	if (have_excl)
		unlink(excl_path);
	free(argv);
	rr_plan_free(plan);
	rr_resolution_release(&res);
	rr_session_close(&s);
	if (got_signal)
		return die_of_signal(got_signal);
	return status;
}

int cmd_restore(struct rr_cli *cli)
{
	struct rr_session s;
	RR_AUTOFREE char *snapdir = NULL;
	bool repaired;
	int status;

	if (cli->ninputs) {
		fprintf(stderr, "rocm-resolve: error: restore takes no INPUT (got '%s')\n",
			cli->inputs[0]);
		return RR_EXIT_USAGE;
	}
	status = rr_session_open(&s, cli, false);
	if (status >= 0)
		return status;
	snapdir = snapshot_dir(cli, &s);
	if (!snapdir) {
		rr_session_close(&s);
		return RR_EXIT_ENV;
	}
	fflush(stdout);
	status = check_and_repair(cli, snapdir, stdout, "since the snapshot, something",
				  RR_STORE_FULL, &repaired);
	fflush(stdout);
	if (status == RR_EXIT_ENV)
		fprintf(stderr, "rocm-resolve: hint: `rocm-resolve install` takes a snapshot of the "
				"protected stack before it runs the installer; there is none for '%s'\n",
			s.venv->root);
	rr_session_close(&s);
	return status >= 0 ? status : RR_EXIT_OK;
}

/*
 * cmd-project.c - `project [DIR...]`: the [tool.uv] settings that keep a uv project
 * off the protected stack (include/rocm-resolve/project.h), printed, written into
 * DIR/pyproject.toml (--write) or checked there (--check, for pre-commit); and the
 * project venv's bridge to the protected environment (--bridge).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "session.h"
#include "rocm-resolve/bridge.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/flow.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/project.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/version.h"

/*
 * the protected environment is never the project's own venv: with that venv
 * activated, $VIRTUAL_ENV names it, so it is passed over for the next rule -
 * unless it holds torch itself (the image's venv used as the project's)
 */
extern char **environ;

static const char *hidden_venv;
static const char *env_without_project(const char *name)
{
	const char *v = getenv(name);

	if (v && hidden_venv && strcmp(name, "VIRTUAL_ENV") == 0) {
		RR_AUTOFREE char *a = realpath(v, NULL);
		if (a && strcmp(a, hidden_venv) == 0)
			return NULL;
	}
	return v;
}

/* does the venv's own site-packages hold torch? */
static bool holds_torch(const char *venv)
{
	RR_AUTOFREE char *pattern = rr_xasprintf("%s/lib/python*/site-packages/torch", venv);
	glob_t g;
	bool yes = glob(pattern, GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc > 0;

	globfree(&g);
	return yes;
}

/* "0.13.9" of `uv --version` ("uv 0.13.9 (...)"), NULL when it cannot be told */
static char *uv_version(const char *uv)
{
	char *argv[] = {(char *)uv, (char *)"--version", NULL};
	posix_spawn_file_actions_t fa;
	char buf[256];
	size_t len = 0;
	ssize_t n;
	int fds[2], st = 0, rc;
	pid_t pid;

	if (pipe(fds))
		return NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	rc = posix_spawn(&pid, uv, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		return NULL;
	}
	while (len < sizeof(buf) - 1 && ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0 ||
					 (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || strncmp(buf, "uv ", 3) != 0)
		return NULL;
	return rr_xstrndup(buf + 3, strcspn(buf + 3, " \r\n"));
}

/*
 * the uv on PATH against the first release that honours the keys written: an older one
 * drops the whole [tool.uv] table with a warning and locks the CUDA stack
 */
static int check_uv(const struct rr_cli *cli, const struct rr_project *p)
{
	const char *key = NULL;
	const char *needed = rr_project_uv_needed(p, &key);
	RR_AUTOFREE char *uv = needed ? rr_file_which(getenv("PATH"), "uv") : NULL;
	RR_AUTOFREE char *have = uv ? uv_version(uv) : NULL;
	struct rr_version hv = RR_VERSION_INIT, nv = RR_VERSION_INIT;
	bool older;

	if (!needed)
		return RR_CLI_GO_ON;
	if (!uv) {
		rr_cli_info(cli, "no uv on PATH: its version is not checked (%s needs uv >= %s)",
			    key, needed);
		return RR_CLI_GO_ON;
	}
	if (!have || rr_version_parse(have, &hv, NULL) || rr_version_parse(needed, &nv, NULL)) {
		rr_cli_warn(cli,
			    "cannot tell the version of %s (`uv --version`): %s needs uv >= %s", uv,
			    key, needed);
		rr_version_release(&hv);
		return RR_CLI_GO_ON;
	}
	older = rr_version_cmp(&hv, &nv) < 0;
	rr_version_release(&hv);
	rr_version_release(&nv);
	if (!older) {
		rr_cli_info(cli, "%s is uv %s: it honours %s (uv >= %s)", uv, have, key, needed);
		return RR_CLI_GO_ON;
	}
	fprintf(stderr,
		"rocm-resolve: error: %s is uv %s; [tool.uv] %s needs uv %s or newer: an older "
		"uv warns that it does not know the key and ignores the whole [tool.uv] table "
		"([[tool.uv.index]] included), so `uv lock` locks the stack's names from the "
		"index again (from PyPI: the CUDA torch). Update uv "
		"(`uv self update`, or `pip install -U 'uv>=%s'`)\n",
		uv, have, key, needed, needed);
	return RR_EXIT_NO;
}

static int report_error(rr_error *err, rr_err rc)
{
	rr_cli_print_error(err);
	rr_error_release(err);
	return rr_cli_exit_for(rc);
}

/* the project venv against the protected environment: said, and bridged when asked */
static int check_venv(const struct rr_cli *cli, const char *venv_path, const struct rr_venv *prot)
{
	struct rr_bridge b;
	rr_error err = RR_ERROR_INIT;
	struct stat st;
	rr_err rc;

	if (stat(venv_path, &st) != 0) {
		if (cli->bridge) {
			fprintf(stderr, "rocm-resolve: error: no project venv at %s to bridge; create "
					"it with the protected interpreter: uv venv --python %s/bin/python "
					"%s\n",
				venv_path, prot->root, venv_path);
			return RR_EXIT_ENV;
		}
		return RR_CLI_GO_ON;
	}
	rc = rr_bridge_inspect(venv_path, prot, &b, &err);
	if (rc) {
		if (!cli->bridge) {
			rr_error_release(&err);
			return RR_CLI_GO_ON; /* not a venv uv made: not ours to judge unless asked */
		}
		return report_error(&err, rc);
	}
	if (!b.same_python)
		rr_cli_warn(cli, "the project venv %s runs Python %s, the protected environment %s "
				 "Python %s: the ROCm builds cannot be used from it; recreate it with "
				 "uv venv --python %s/bin/python",
			    b.venv, b.python ? b.python : "?", prot->root,
			    b.protected_python ? b.protected_python : "?", prot->root);
	for (size_t i = 0; i < b.nstale; i++)
		rr_cli_warn(cli, "stale bridge line (no such directory): %s", b.stale[i]);
	if (cli->bridge && !b.linked) {
		rc = rr_bridge_write(&b, &err);
		if (rc) {
			rr_bridge_release(&b);
			return report_error(&err, rc);
		}
		fprintf(stderr, "rocm-resolve: bridged %s to %s (%s)\n", b.venv, b.target, b.pth);
	} else if (cli->bridge) {
		rr_cli_info(cli, "%s is bridged to %s (%s)", b.venv, b.target, b.pth);
	} else if (!b.linked) {
		rr_cli_warn(cli, "the project venv %s does not see the protected environment (no .pth "
				 "file names %s): `rocm-resolve project --bridge` sets that up",
			    b.venv, b.target ? b.target : "its site-packages");
	}
	rr_bridge_release(&b);
	return RR_CLI_GO_ON;
}

static int write_file(const struct rr_project *p, const char *text, size_t len)
{
	rr_error err = RR_ERROR_INIT;
	struct stat st;
	RR_AUTOFREE char *real = realpath(p->path, NULL);
	const char *target = real ? real : p->path;
	rr_err rc;

	/* the file's own mode is kept (a symlink's target is the file written) */
	if (stat(target, &st) != 0)
		st.st_mode = 0644;
	/* only over the text the edit was made from: a save made while we resolved stays */
	rc = rr_file_replace_unchanged(target, p->text.buf, p->text.len, text, len,
				       st.st_mode & 07777, &err);
	/* a file or directory we may not write is the environment's problem, not the input's */
	if (rc == RR_E_IO)
		rc = err.code = RR_E_ENV;
	if (rc)
		return report_error(&err, rc);
	return RR_CLI_GO_ON;
}

static int one_project(struct rr_cli *cli, const char *arg)
{
	struct stat st;
	bool is_dir = stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
	RR_AUTOFREE char *dir = NULL;
	RR_AUTOFREE char *pyproject = NULL;
	RR_AUTOFREE char *venv_real = NULL;
	RR_AUTOFREE char *hazard = NULL;
	RR_AUTOFREE char *where = NULL;
	struct rr_project_env env;
	struct rr_workspace *ws = NULL;
	bool fatal = false;
	int uv_status;
	struct rr_flow_opts o;
	struct rr_project *p = NULL;
	rr_error err = RR_ERROR_INIT;
	size_t before, nw;
	char *const *w;
	int status = RR_CLI_GO_ON;
	rr_err rc;

	if (is_dir) {
		dir = rr_xstrdup(arg);
		pyproject = rr_xasprintf("%s/pyproject.toml", arg);
	} else {
		const char *slash = strrchr(arg, '/');
		dir = slash ? rr_xstrndup(arg, (size_t)(slash - arg)) : rr_xstrdup(".");
		pyproject = rr_xstrdup(arg);
	}
	rc = rr_workspace_find(pyproject, &ws, &err);
	if (rc)
		return report_error(&err, rc);
	/* the hook acts on uv projects alone, and on files with something to read */
	if (cli->check_only && (!ws->uv_project || rr_workspace_nothing_to_read(ws))) {
		rr_cli_info(cli, "%s: %s: nothing to check", pyproject,
			    ws->uv_project
				? "no [project] table and no [dependency-groups]"
				: "not a uv project (no uv.lock, no [tool.uv], no workspace)");
		rr_workspace_free(ws);
		return RR_EXIT_OK;
	}
	rr_project_env_find(&env, ws->root, NULL, NULL);
	ws = rr_workspace_free(ws);
	venv_real = realpath(env.path, NULL);
	rr_project_env_release(&env);
	rr_session_fill_opts(&o, cli, true);
	o.observe = NULL; /* the progress line belongs to a session */
	/* the hook: no network is never a failed commit (check's rule) */
	o.offline_fallback = cli->check_only;
	hidden_venv = venv_real && !holds_torch(venv_real) ? venv_real : NULL;
	o.getenv_fn = env_without_project;
	rc = rr_project_open(&o, pyproject, &p, &err);
	if (rc)
		return report_error(&err, rc);
	rr_project_env_find(&env, p->dir, rr_flow_venv(p->flow)->root, NULL);
	if (cli->bridge && env.is_protected) {
		fprintf(stderr,
			"rocm-resolve: error: --bridge: the project environment %s (%s) is "
			"the protected environment %s itself: there is nothing to bridge\n",
			env.path, env.how, rr_flow_venv(p->flow)->root);
		status = RR_EXIT_USAGE;
		goto out;
	}
	w = rr_flow_warnings(p->flow, &before);
	for (size_t i = 0; i < before; i++)
		rr_cli_warn(cli, "%s", w[i]);
	rc = rr_project_plan(p, &o, &err);
	w = rr_flow_warnings(p->flow, &nw);
	for (size_t i = before; i < nw; i++)
		rr_cli_warn(cli, "%s", w[i]);
	if (rc) {
		status = report_error(&err, rc);
		goto out;
	}
	where = strcmp(p->path, p->asked) == 0
		    ? rr_xstrdup(p->path)
		    : rr_xasprintf("%s (the workspace root of %s)", p->path, p->asked);
	hazard = rr_project_env_hazard(&env, p, &fatal);
	uv_status = check_uv(cli, p);
	/* the plan's notes; its strips are no strips here (an unmet requirement is the error
	 * below) */
	for (size_t i = 0; i < rr_flow_get_plan(p->flow)->nwarnings; i++)
		rr_cli_warn(cli, "%s", rr_flow_get_plan(p->flow)->warnings[i]);
	for (size_t i = 0; i < rr_flow_get_plan(p->flow)->ndecisions; i++) {
		const struct rr_decision *d = &rr_flow_get_plan(p->flow)->decisions[i];
		if (d->reason == RR_WHY_DEPS_UNKNOWN) {
			RR_AUTOFREE char *why = rr_cause_text(&d->cause);
			rr_cli_warn(cli, "%s: '%s': %s", d->source, d->requirement, why);
		}
	}
	for (size_t i = 0; i < p->nwarnings; i++)
		rr_cli_warn(cli, "%s", p->warnings[i]);
	if (p->nunmet) {
		RR_AUTO_STRBUF struct rr_strbuf msg = RR_STRBUF_INIT;
		rr_strbuf_addf(&msg,
			       "rocm-resolve: error: %s asks for what cannot be installed next "
			       "to the ROCm stack of %s:\n",
			       where, rr_flow_venv(p->flow)->root);
		for (size_t i = 0; i < p->nunmet; i++) {
			rr_strbuf_adds(&msg, "  ");
			rr_strbuf_add_printable(&msg, p->unmet[i]);
			rr_strbuf_addch(&msg, '\n');
		}
		fputs(msg.buf, stderr);
		status = RR_EXIT_NO;
		goto out;
	}
	if (cli->check_only && !rr_project_reaches_stack(p) && !p->cur_excludes.found &&
	    !p->cur_constraints.found) {
		if (rr_flow_get_plan(p->flow)->resolved)
			rr_cli_info(
			    cli,
			    "%s: uv never reaches the ROCm stack of %s here (nothing "
			    "protected, held back or excluded in its resolution): no settings "
			    "needed",
			    where, rr_flow_venv(p->flow)->root);
		else
			rr_cli_info(
			    cli,
			    "%s: its lines alone do not reach the ROCm stack of %s, and their "
			    "dependencies were NOT checked (see the warning): no settings "
			    "demanded",
			    where, rr_flow_venv(p->flow)->root);
	} else if (cli->check_only) {
		RR_AUTO_STRBUF struct rr_strbuf why = RR_STRBUF_INIT;
		if (rr_project_compare(p, &why)) {
			if (cli->verbosity >= 0 && !fatal && uv_status == RR_CLI_GO_ON)
				fprintf(stderr,
					"rocm-resolve: ok: the [tool.uv] settings of %s keep the "
					"ROCm stack of %s%s\n",
					where, rr_flow_venv(p->flow)->root,
					rr_flow_get_plan(p->flow)->resolved
					    ? ""
					    : " as far as the lines alone tell (not resolved "
					      "against an index: dependencies NOT checked)");
		} else {
			RR_AUTO_STRBUF struct rr_strbuf shown = RR_STRBUF_INIT;
			/* file text reaches the terminal escaped */
			rr_cli_add_printable_lines(&shown, why.buf);
			fprintf(stderr,
				"rocm-resolve: the [tool.uv] settings of %s are missing or stale "
				"(`rocm-resolve project --write` updates them):\n%s",
				where, shown.buf);
			status = RR_EXIT_NO;
		}
	} else if (cli->write) {
		char *text = NULL;
		size_t len = 0;
		rc = rr_project_edit(p, &text, &len, &err);
		if (rc) {
			status = report_error(&err, rc);
			goto out;
		}
		if (len == p->text.len && memcmp(text, p->text.buf, len) == 0) {
			/* said, as uv says "Resolved": a silent success looks like nothing ran */
			if (cli->verbosity >= 0)
				fprintf(stderr,
					"rocm-resolve: the [tool.uv] settings of %s are up "
					"to date\n",
					where);
		} else {
			status = write_file(p, text, len);
			if (status < 0 && cli->verbosity >= 0) {
				RR_AUTO_STRBUF struct rr_strbuf idx = RR_STRBUF_INIT;
				rr_project_indexes(p, &idx);
				fprintf(stderr,
					"rocm-resolve: wrote [tool.uv] of %s: %zu excluded, %zu "
					"constrained (%s)\n",
					where, p->excludes.n, p->constraints.n, idx.buf);
			}
		}
		free(text);
	} else if (!cli->bridge) {
		/* `project --bridge` bridges; the settings are printed when nothing else is asked */
		RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
		rr_project_format(p, &out);
		if (!rr_cli_write_stdout(out.buf, out.len)) {
			fprintf(stderr, "rocm-resolve: error: cannot write to stdout\n");
			status = RR_EXIT_ENV;
		}
	}
	if (hazard && fatal) {
		RR_AUTO_STRBUF struct rr_strbuf shown = RR_STRBUF_INIT;
		rr_strbuf_add_printable(&shown, hazard);
		fprintf(stderr, "rocm-resolve: error: %s\n", shown.buf);
		if (status < RR_EXIT_NO)
			status = RR_EXIT_NO;
	} else if (hazard) {
		rr_cli_warn(cli, "%s", hazard);
	}
	if (uv_status != RR_CLI_GO_ON && status < uv_status)
		status = uv_status;
	if (status == RR_CLI_GO_ON && !env.is_protected)
		status = check_venv(cli, env.path, rr_flow_venv(p->flow));
out:
	hidden_venv = NULL;
	rr_project_env_release(&env);
	rr_project_free(p);
	return status;
}

int cmd_project(struct rr_cli *cli)
{
	int worst = RR_EXIT_OK;

	/* every project is done; the exit status is the worst one */
	for (size_t i = 0; i < (cli->ninputs ? cli->ninputs : 1); i++) {
		int s = one_project(cli, cli->ninputs ? cli->inputs[i] : ".");
		if (s > worst)
			worst = s;
	}
	return worst;
}

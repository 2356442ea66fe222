/*
 * session.c - the CLI's options turned into the library's pipeline options,
 * and its errors into exit statuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "session.h"
#include "rocm-resolve/index.h"
#include "rocm-resolve/plan.h"

/*
 * the terminal while the index is asked: a progress line on stderr when it is a
 * terminal (requests done and in flight, bytes), rewritten in place at most 10
 * times a second and wiped before anything else is printed; with -vv every
 * transfer, on its own line: its range, Accept header, when it started and
 * ended (seconds since the index client was made) and, when it opened a
 * connection, how long that took
 */
static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool rr_cli_progress_tty(void)
{
	return isatty(STDERR_FILENO) && !(getenv("TERM") && strcmp(getenv("TERM"), "dumb") == 0);
}

static void progress_clear(struct rr_session *s)
{
	if (s->progress_shown)
		fputs("\r\033[K", stderr);
	s->progress_shown = false;
}

static void observe(void *ctx, const struct rr_index_event *ev)
{
	struct rr_session *s = ctx;
	long long now = mono_ms();

	if (ev->url && s->verbosity >= 2) {
		progress_clear(s);
		fprintf(stderr, "rocm-resolve: %s %s -> %ld (%llu bytes)", ev->head ? "HEAD" : "GET",
			ev->url, ev->status, ev->bytes);
		if (ev->range)
			fprintf(stderr, ", range %s of %lld", ev->range, ev->total);
		if (ev->accept)
			fprintf(stderr, ", accept \"%s\"", ev->accept);
		fprintf(stderr, ", %.3f-%.3f s", ev->start_s, ev->end_s);
		if (ev->connect_s > 0)
			fprintf(stderr, ", new connection %.3f s", ev->connect_s);
		if (ev->guess)
			fputs(", predicted", stderr);
		if (ev->resent)
			fprintf(stderr,
				", sent %d more time%s by libcurl (a reused connection had died)",
				ev->resent, ev->resent == 1 ? "" : "s");
		fputc('\n', stderr);
	}
	if (!s->tty || s->verbosity < 0 || now - s->progress_ms < 100)
		return;
	s->progress_ms = now;
	fprintf(stderr, "\r\033[Krocm-resolve: resolving: %zu requests done, %zu in flight, %.1f MB",
		ev->transfers, ev->running, (double)ev->total_bytes / 1e6);
	s->progress_shown = true;
}

/* CI demands the index: $ROCM_RESOLVE_REQUIRE_INDEX set to 1, true or yes */
static bool require_index(void)
{
	const char *v = getenv("ROCM_RESOLVE_REQUIRE_INDEX");

	return v &&
	       (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0);
}

void rr_session_fill_opts(struct rr_flow_opts *o, const struct rr_cli *cli, bool want_inputs)
{
	/* what the command line set through the run's option table, then the session's */
	*o = cli->run;
	o->inputs = (const char *const *)cli->inputs;
	o->ninputs = cli->ninputs;
	o->want_inputs = want_inputs;
	o->command = cli->command;
	o->needs_live_env = cli->cmd->flags & RR_CMD_LIVE_ENV;
	o->sysroot = getenv("RR_SYSROOT");
	o->record = cli->write_testcase != NULL;
	o->lock = cli->lock;
	o->offline_fallback = cli->cmd->flags & RR_CMD_OFFLINE_FALLBACK;
	o->require_index = require_index();
	/* check judges a uv project as uv acts on it: its [tool.uv] settings applied */
	o->uv_settings = strcmp(cli->cmd->name, "check") == 0;
	o->observe = observe;
	/* an installer exclusion keeps clash-group dependencies out only where one is used */
	o->allow_excludes = cli->uv_excludes != NULL ||
			    ((cli->cmd->flags & RR_CMD_RUNS_INSTALLER) &&
			     (!cli->run.installer || strcmp(cli->run.installer, "uv") == 0));
}

int rr_session_open(struct rr_session *s, struct rr_cli *cli, bool want_inputs)
{
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	memset(s, 0, sizeof(*s));
	rr_session_fill_opts(&s->opts, cli, want_inputs);
	s->opts.observe_ctx = s;
	s->verbosity = cli->verbosity;
	s->tty = rr_cli_progress_tty();
	rc = rr_flow_open(&s->opts, &s->flow, &err);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		return rr_cli_exit_for(rc);
	}
	s->venv = rr_flow_venv(s->flow);
	s->stack = rr_flow_stack(s->flow);
	return RR_CLI_GO_ON;
}

void rr_session_warnings(const struct rr_session *s, const struct rr_cli *cli)
{
	size_t n = 0;
	char *const *w = s->flow ? rr_flow_warnings(s->flow, &n) : NULL;

	for (size_t i = 0; i < n; i++)
		rr_cli_warn(cli, "%s", w[i]);
	for (size_t i = 0; s->flow && i < rr_flow_reqs(s->flow)->nnotes; i++)
		rr_cli_info(cli, "%s", rr_flow_reqs(s->flow)->notes[i]);
}

void rr_session_report_plan(struct rr_session *s, const struct rr_cli *cli,
			    const struct rr_flow *f, size_t before)
{
	size_t n;
	char *const *w = rr_flow_warnings(f, &n);
	struct rr_flow_stats st;

	progress_clear(s);
	/* what the index steps found (CUDA indexes left out, unresolvable URLs) */
	for (size_t i = before; i < n; i++)
		rr_cli_warn(cli, "%s", w[i]);
	rr_flow_stats(f, &st);
	if (st.resolved && rr_flow_get_plan(f))
		rr_cli_info(
		    cli,
		    "resolved %zu packages in %zu decisions with %zu HTTP requests (%llu "
		    "bytes; %zu range requests, %zu whole files, %zu answers from the cache)",
		    st.packages, st.steps, st.requests, st.bytes, st.range_requests, st.whole_files,
		    st.cache_hits);
	if (st.resolved && st.guesses)
		rr_cli_info(cli,
			    "predicted %zu pages from dependency edges: %zu needed, %llu bytes on "
			    "the others",
			    st.guesses, st.guesses_used, st.guess_bytes_unused);
}

int rr_cli_build_plan(struct rr_cli *cli, struct rr_session *s, struct rr_plan **ret)
{
	rr_error err = RR_ERROR_INIT;
	size_t before;
	rr_err rc;

	rr_flow_warnings(s->flow, &before);
	rc = rr_flow_plan(s->flow, &s->opts, &err);
	rr_session_report_plan(s, cli, s->flow, before);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		return rr_cli_exit_for(rc);
	}
	*ret = rr_flow_take_plan(s->flow);
	return RR_CLI_GO_ON;
}

void rr_session_close(struct rr_session *s)
{
	s->flow = rr_flow_free(s->flow);
	s->venv = NULL;
	s->stack = NULL;
}

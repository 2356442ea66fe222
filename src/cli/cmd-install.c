/*
 * cmd-install.c - `install` and `restore`: the options handed to the install transaction
 * (src/install, include/rocm-resolve/install.h), what it reports printed as it happens,
 * and its result turned into an exit status.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "verify-run.h"
#include "rocm-resolve/install.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/store.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/verify.h"

struct view {
	struct rr_cli *cli;
	struct rr_session s; /* the progress line while resolving */
	FILE *out;	     /* where the comparison with the snapshot goes */
	size_t nwarned;	     /* the pipeline's warnings printed so far */
	bool checked;	     /* the venv was compared with the snapshot */
};

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

static void print_check(struct view *w, const struct rr_install_check *c)
{
	const struct rr_store_result *r = c->found, *again = c->again;
	FILE *f = w->out;

	w->checked = true;
	rr_cli_info(w->cli, "compared %zu files with the snapshot (%zu hashed: inode or times "
			    "changed%s)",
		    r->files, r->hashed, c->full ? ", or every file asked for" : "");
	if (!r->nchanged && !r->nintruders) {
		if (w->cli->verbosity >= 0)
			/* every file RECORD lists but .pyc, hashed or not: verify's integrity
			 * counts the hashed ones, and says how many more it did not check */
			fprintf(f,
				"rocm-resolve: the protected stack matches the snapshot (%zu files "
				"of %zu distribution%s: what their RECORD lists but compiled .pyc, "
				"hashed or not)\n",
				r->files, c->ndists, c->ndists == 1 ? "" : "s");
		return;
	}
	fprintf(f, "rocm-resolve: %s changed the protected stack:\n", c->who);
	print_list(f, "  files:", r->changed, r->nchanged);
	print_list(f, "  distributions that clash with it:", r->intruders, r->nintruders);
	print_list(f, "rocm-resolve: removed:", r->removed, r->nremoved);
	/* every file listed above put back: said once, not listed a second time */
	if (r->nrestored && r->nrestored + r->nlost == r->nchanged && !r->nlost)
		fprintf(f, "rocm-resolve: restored from the snapshot: the %zu file%s above\n",
			r->nrestored, r->nrestored == 1 ? "" : "s");
	else
		print_list(f, "rocm-resolve: restored from the snapshot:", r->restored,
			   r->nrestored);
	print_list(f, "rocm-resolve: error: could not restore:", r->lost, r->nlost);
	if (again && (again->nchanged || again->nintruders)) {
		fprintf(f, "rocm-resolve: error: the protected stack still differs from the "
			   "snapshot:\n");
		print_list(f, "  files:", again->changed, again->nchanged);
		print_list(f, "  distributions:", again->intruders, again->nintruders);
	} else if (again) {
		fprintf(f, "rocm-resolve: the protected stack matches the snapshot again (%zu "
			   "files)\n",
			again->files);
	}
}

static void print_stored(struct view *w, const char *dir, const struct rr_store_stats *st)
{
	rr_cli_info(w->cli, "snapshot of %zu protected distribution%s (%zu files) in %s: %zu "
			    "linked, %zu copied (%llu bytes), %zu small files packed (%llu bytes in "
			    "the pack), %zu kept from before",
		    st->dists, st->dists == 1 ? "" : "s", st->files, dir, st->linked, st->copied,
		    st->bytes_copied, st->packed, st->bytes_packed, st->reused);
	if (st->unverified)
		rr_cli_warn(w->cli, "%zu protected file%s already differ%s from %s RECORD hash: the "
				    "snapshot holds no good copy of %s",
			    st->unverified, st->unverified == 1 ? "" : "s",
			    st->unverified == 1 ? "s" : "", st->unverified == 1 ? "its" : "their",
			    st->unverified == 1 ? "it" : "them");
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

static void observe(void *ctx, const struct rr_install_event *ev)
{
	struct view *w = ctx;
	size_t n = 0;
	char *const *warnings = ev->flow ? rr_flow_warnings(ev->flow, &n) : NULL;

	switch (ev->kind) {
	case RR_INSTALL_EV_OPENED:
		for (; w->nwarned < n; w->nwarned++)
			rr_cli_warn(w->cli, "%s", warnings[w->nwarned]);
		break;
	case RR_INSTALL_EV_PLANNED:
		rr_session_report_plan(&w->s, w->cli, ev->flow, w->nwarned);
		w->nwarned = n;
		/* what the plan strips or cannot know is said before anything is installed */
		if (rr_flow_get_plan(ev->flow))
			rr_cli_plan_warnings(w->cli, rr_flow_get_plan(ev->flow), true);
		break;
	case RR_INSTALL_EV_WARNING:
		rr_cli_warn(w->cli, "%s", ev->text);
		break;
	case RR_INSTALL_EV_STORED:
		print_stored(w, ev->store_dir, ev->stats);
		break;
	case RR_INSTALL_EV_RUNNING:
		print_command(w->cli, ev->argv);
		break;
	case RR_INSTALL_EV_CHECKED:
		fflush(stdout);
		print_check(w, ev->check);
		fflush(w->out);
		break;
	}
}

static void fill_opts(struct rr_install_opts *o, struct view *w, bool want_inputs)
{
	struct rr_cli *cli = w->cli;

	memset(o, 0, sizeof(*o));
	memset(&w->s, 0, sizeof(w->s));
	rr_session_fill_opts(&o->flow, cli, want_inputs);
	o->flow.observe_ctx = &w->s;
	w->s.verbosity = cli->verbosity;
	w->s.tty = rr_cli_progress_tty();
	o->installer = cli->run.installer;
	o->passthrough = (const char *const *)cli->passthrough;
	o->npassthrough = cli->npassthrough;
	o->quiet = cli->verbosity < 0;
	o->backend = cli->backend;
	o->verify_timeout_ms = cli->run.timeout_ms;
	o->observe = observe;
	o->observe_ctx = w;
}

/* the conventional end after a signal: die of it (the shell shows 128 + its number) */
static int die_of_signal(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
	return 128 + sig;
}

/*
 * the verify report on stdout (with -q only when something failed); no GPU to check on is a
 * warning unless --require-gpu
 */
static int print_verify(const struct rr_cli *cli, const struct rr_verify_report *vr)
{
	int status = rr_verify_exit_code(vr);
	RR_AUTO_STRBUF struct rr_strbuf what = RR_STRBUF_INIT;

	if (cli->verbosity >= 0 || status == RR_EXIT_NO || cli->format == RR_FORMAT_JSON)
		status = rr_cli_verify_print(cli, vr);

	if (status != RR_EXIT_ENV)
		return status;
	/* no GPU (CI, a laptop): the install itself is fine; the report above says why */
	for (size_t i = 0; i < RR_ARRAY_LEN(vr->stages); i++)
		if (vr->stages[i].verdict == RR_VERDICT_UNAVAILABLE)
			rr_strbuf_addf(&what, "%s%s", what.len ? ", " : "", vr->stages[i].name);
	if (cli->require_gpu) {
		return rr_cli_error(RR_E_ENV, "--require-gpu: verify could not check %s", what.buf);
	}
	rr_cli_warn(cli, "verify could not check %s (no usable GPU; --require-gpu makes this an "
			 "error)",
		    what.buf);
	return RR_EXIT_OK;
}

int cmd_install(struct rr_cli *cli)
{
	struct view w = {.cli = cli, .out = stderr};
	struct rr_install_opts o;
	struct rr_install_result r;
	rr_error err = RR_ERROR_INIT;
	int status = RR_EXIT_OK;
	rr_err rc;

	fill_opts(&o, &w, true);
	rc = rr_install_run(&o, &r, &err);
	if (r.signal) {
		if (r.installer_status >= 0 && !w.checked)
			fprintf(stderr, "rocm-resolve: interrupted; the installer was stopped (status "
					"%d). `rocm-resolve restore` checks the protected stack against "
					"the snapshot taken before it ran and puts it back\n",
				r.installer_status);
		int sig = r.signal;
		rr_error_release(&err);
		rr_install_result_release(&r);
		return die_of_signal(sig);
	}
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		status = rr_cli_exit_for(rc);
	} else if (r.dry_run) {
		if (r.installer_status != 0)
			fprintf(stderr, "rocm-resolve: error: the installer failed (status %d)\n",
				r.installer_status);
		else if (cli->verbosity >= 0)
			fprintf(stderr, "rocm-resolve: dry run: the installer changed nothing, so "
					"nothing was snapshotted, checked or verified\n");
		status = r.installer_status ? RR_EXIT_ENV : RR_EXIT_OK;
	} else if (r.kept_plan) {
		fprintf(stderr, "rocm-resolve: error: the installer failed (status %d); the plan it "
				"was given is kept at %s\n",
			r.installer_status, r.kept_plan);
		status = r.damaged ? RR_EXIT_NO : RR_EXIT_ENV;
	} else if (r.verify) {
		status = print_verify(cli, r.verify);
		if (r.damaged)
			status = RR_EXIT_NO; /* the stack is still damaged: that comes first */
		else if (r.repaired && status == RR_EXIT_OK)
			rr_cli_warn(cli, "the installer's changes to the protected stack were undone "
					 "(see above); what it installed besides them stays");
	} else if (r.damaged) {
		status = RR_EXIT_NO;
	}
	rr_install_result_release(&r);
	return status;
}

int cmd_restore(struct rr_cli *cli)
{
	struct view w = {.cli = cli, .out = stdout};
	struct rr_install_opts o;
	struct rr_install_result r;
	rr_error err = RR_ERROR_INIT;
	int status = RR_EXIT_OK;
	rr_err rc;

	if (cli->ninputs) {
		return rr_cli_error(RR_E_USAGE, "restore takes no INPUT (got '%s')",
				    cli->inputs[0]);
	}
	fill_opts(&o, &w, false);
	rc = rr_install_restore(&o, &r, &err);
	fflush(stdout);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		status = rc == RR_E_NOTFOUND ? RR_EXIT_ENV : rr_cli_exit_for(rc);
	} else if (r.damaged) {
		status = RR_EXIT_NO;
	}
	rr_install_result_release(&r);
	return status;
}

/*
 * cmd-plan.c - `plan` (the default) and `check`.
 *
 * Both run the same pipeline (rr_flow) and read the same plan object: plan
 * prints it, check prints the reasons the input as written would damage the
 * stack and exits 1 when there are any.
 *
 * Stdout gets a complete plan or, when any step fails, one line that every
 * installer rejects before it does anything (fail closed): piped into
 * `uv pip install -r -` or `pip install -r /dev/stdin`, a failure then fails
 * the installer too, with or without pipefail, and its message names
 * rocm-resolve. The whole text is formatted first and written once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli.h"
#include "session.h"
#include "rocm-resolve/file.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/testcase.h"

static int fail_closed(const struct rr_cli *cli, int status)
{
	return cli->cmd->flags & RR_CMD_PLAN_STDOUT ? rr_cli_fail_closed(cli, status) : status;
}

/* what the plan changes: with -v, or (install, whose user sees no plan) unless -q */
static void say_change(const struct rr_cli *cli, bool always, const char *fmt, ...) RR_PRINTF(3, 4);
static void say_change(const struct rr_cli *cli, bool always, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rr_cli_vnote(cli, always ? 0 : 1, fmt, ap);
	va_end(ap);
}

void rr_cli_plan_warnings(const struct rr_cli *cli, const struct rr_plan *p, bool changes)
{
	for (size_t i = 0; i < p->nwarnings; i++)
		rr_cli_warn(cli, "%s", p->warnings[i]);
	for (size_t i = 0; changes && i < p->nstripped_options; i++)
		say_change(cli, true, "stripped %s", p->stripped_options[i]);
	for (size_t i = 0; i < p->ndecisions; i++) {
		const struct rr_decision *d = &p->decisions[i];
		RR_AUTOFREE char *why = rr_cause_text(&d->cause);
		/* a requirement the stack leaves no version of is never dropped in silence */
		if (d->reason == RR_WHY_NO_SAFE_VERSION)
			rr_cli_warn(cli, "%s: stripped '%s': %s", d->source, d->requirement,
				    d->cause.head);
		else if (d->reason == RR_WHY_BUILD_NEEDS_TORCH)
			/* what to run instead, then the policy's word on it (the ROCm build) */
			rr_cli_warn(cli, "%s: stripped '%s': %s%s%s", d->source, d->requirement,
				    d->cause.head, d->cause.nlines ? "; " : "",
				    d->cause.nlines ? why + strlen(d->cause.head) + 1 : "");
		else if (d->action == RR_ACT_STRIP) {
			/* one line: the head, then what follows it after "; " */
			RR_AUTO_STRBUF struct rr_strbuf one = RR_STRBUF_INIT;
			rr_strbuf_adds(&one, d->cause.head);
			for (size_t k = 0; k < d->cause.nlines; k++)
				rr_strbuf_addf(&one, "; %s", d->cause.lines[k]);
			say_change(cli, changes, "%s: stripped '%s': %s", d->source, d->requirement,
				   one.buf);
		} else if (d->reason == RR_WHY_DEPS_UNKNOWN)
			rr_cli_warn(cli, "%s: '%s': %s", d->source, d->requirement, why);
		else if (d->reason == RR_WHY_HELD_BACK)
			say_change(cli, changes, "%s: '%s' held back (%s==%s): %s", d->source,
				   d->requirement, d->name ? d->name : "",
				   d->version ? d->version : "", why);
		else if (d->reason == RR_WHY_COUNTERPART)
			/* another project in its place is never done in silence */
			rr_cli_warn(cli, "%s: '%s' %s", d->source, d->requirement, why);
	}
	/* the dependencies held below their newest release, which no input line names */
	for (size_t i = 0; i < p->nholds; i++)
		say_change(cli, changes, "held back %s==%s: %s", p->holds[i].name,
			   p->holds[i].version, p->holds[i].why);
}

/*
 * the uv exclusions file (--excludes / UV_EXCLUDE): one name a line, for
 * what must never be installed - CUDA-only projects and projects that would
 * overwrite a protected module - from the plan and from the resolution
 */
static int write_excludes(const struct rr_cli *cli, const struct rr_plan *plan)
{
	RR_AUTO_STRBUF struct rr_strbuf text = RR_STRBUF_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;

	rr_strbuf_adds(&text, "# written by rocm-resolve: packages that must never be installed "
			      "next to the ROCm stack\n");
	rr_plan_format_excludes(plan, &text);
	if (rr_file_write_atomic(cli->uv_excludes, text.buf, text.len, 0666, &err)) {
		rr_cli_print_error(&err);
		return RR_EXIT_ENV;
	}
	return RR_CLI_GO_ON;
}

/* --write-testcase DIR: the run as a scenario the runner replays */
static int write_testcase(const struct rr_cli *cli, const struct rr_session *s,
			  const struct rr_plan *plan)
{
	struct rr_strv notes = RR_STRV_INIT;
	RR_AUTO_ERROR rr_error err = RR_ERROR_INIT;
	rr_err rc = rr_testcase_write(s->flow, &s->opts, plan, cli->write_testcase, &notes, &err);

	for (size_t i = 0; i < notes.n; i++)
		rr_cli_warn(cli, "%s", notes.v[i]);
	rr_strv_release(&notes);
	if (rc) {
		rr_cli_print_error(&err);
		return rr_cli_exit_for(rc);
	}
	rr_cli_info(cli, "wrote the testcase to %s/case.t", cli->write_testcase);
	return RR_CLI_GO_ON;
}

/* open the session, build the plan, hand it to report, clean up */
static int with_plan(struct rr_cli *cli,
		     int (*report)(struct rr_cli *cli, const struct rr_plan *plan))
{
	struct rr_session s;
	struct rr_plan *plan = NULL;
	int status;

	status = rr_session_open(&s, cli, true);
	if (status != RR_CLI_GO_ON)
		return fail_closed(cli, status);
	rr_session_warnings(&s, cli);
	status = rr_cli_build_plan(cli, &s, &plan);
	if (status == RR_CLI_GO_ON && cli->write_testcase)
		status = write_testcase(cli, &s, plan);
	if (status == RR_CLI_GO_ON)
		status = report(cli, plan);
	rr_plan_free(plan);
	rr_session_close(&s);
	return fail_closed(cli, status);
}

static int report_plan(struct rr_cli *cli, const struct rr_plan *plan)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	int status = RR_CLI_GO_ON;

	rr_cli_plan_warnings(cli, plan, false);
	/* a requirement with no safe version: the plan stays on stderr only */
	for (size_t i = 0; cli->strict && i < plan->ndecisions; i++)
		if (plan->decisions[i].reason == RR_WHY_NO_SAFE_VERSION) {
			RR_AUTO_STRBUF struct rr_strbuf src = RR_STRBUF_INIT;
			RR_AUTO_STRBUF struct rr_strbuf req = RR_STRBUF_INIT;
			rr_strbuf_add_printable(&src, plan->decisions[i].source);
			rr_strbuf_add_printable(&req, plan->decisions[i].requirement);
			rr_cli_error(RR_E_CONFLICT, "%s: no safe version of '%s' (--strict)",
				     src.buf, req.buf);
			status = RR_EXIT_NO;
		}
	if (status == RR_CLI_GO_ON && cli->uv_excludes)
		status = write_excludes(cli, plan);
	if (status != RR_CLI_GO_ON)
		return status;
	if (cli->lock && !cli->run.no_index) {
		/* a lock is all of the install: what it leaves out is said, not only commented */
		size_t left = plan->counts[RR_ACT_STRIP] + plan->nstripped_options;
		if (left)
			rr_cli_warn(cli,
				    "the lock leaves out %zu input line%s (stripped; its comments "
				    "say why)",
				    left, left == 1 ? "" : "s");
	}
	if (cli->lock && cli->format == RR_FORMAT_PYLOCK) {
		const struct rr_plan_kept *k = rr_plan_pylock_unnamed(plan);
		if (k) {
			rr_cli_error(
			    RR_E_ENV,
			    "no pylock.toml that `uv pip sync` could keep the stack with: "
			    "%s %s (%s) was installed from a file neither its "
			    "direct_url.json nor an index names, and an entry of a "
			    "pylock.toml must name one; --lock (a requirements lock) keeps "
			    "it by its version",
			    k->name, k->version, k->why);
			return RR_EXIT_ENV;
		}
		rr_plan_format_pylock(plan, &out);
	} else if (cli->lock && !cli->run.no_index)
		rr_plan_format_lock(plan, &out);
	else if (cli->format == RR_FORMAT_JSON)
		rr_plan_format_json(plan, &out);
	else
		rr_plan_format_text(plan, &out);
	if (!rr_cli_write_plan(out.buf, out.len)) {
		rr_cli_error(RR_E_IO, "cannot write the plan to stdout");
		return RR_EXIT_ENV;
	}
	return RR_EXIT_OK;
}

/*
 * check's list, coloured as compilers colour theirs: "FILE:LINE:" bold, the requirement
 * red, what it would do plain (no colour: the text as it is)
 */
static void add_coloured_report(struct rr_strbuf *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		const char *end = p + n;
		const char *loc = NULL, *req = NULL;
		/* the location ends at the first ":DIGITS: " of the line */
		for (const char *c = p; c < end && !loc; c++) {
			const char *d = c + 1;
			if (*c != ':' || d >= end || *d < '0' || *d > '9')
				continue;
			while (d < end && *d >= '0' && *d <= '9')
				d++;
			if (d + 1 < end && d[0] == ':' && d[1] == ' ')
				loc = d + 1;
		}
		if (loc) {
			const char *colon = strstr(loc + 1, ": ");
			req = colon && colon < end ? colon : NULL;
			rr_strbuf_addf(out, "%s%.*s%s ", rr_cli_colour("1"), (int)(loc - p), p,
				       rr_cli_colour("0"));
			if (req)
				rr_strbuf_addf(out, "%s%.*s%s", rr_cli_colour("31"),
					       (int)(req - loc - 1), loc + 1, rr_cli_colour("0"));
			p = req ? req : loc + 1;
		}
		rr_strbuf_addf(out, "%.*s\n", (int)(end - p), p);
		p = *end ? end + 1 : end;
	}
}

static int report_check(struct rr_cli *cli, const struct rr_plan *plan)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	bool breaks = rr_plan_breaks_stack(plan);
	size_t unknown = plan->nunknown;
	const char *stack = plan->rocm_stack ? "ROCm stack" : "protected stack";

	rr_cli_plan_warnings(cli, plan, false);
	if (cli->format == RR_FORMAT_JSON) {
		rr_plan_format_json(plan, &out);
		if (!rr_cli_write_stdout(out.buf, out.len)) {
			rr_cli_error(RR_E_IO, "cannot write to stdout");
			return RR_EXIT_ENV;
		}
	} else if (breaks) {
		RR_AUTO_STRBUF struct rr_strbuf safe = RR_STRBUF_INIT;
		RR_AUTO_STRBUF struct rr_strbuf shown = RR_STRBUF_INIT;
		rr_plan_format_check(plan, &out);
		/* input text is in the report: no escape sequence reaches the terminal but ours */
		rr_cli_add_printable_lines(&safe, out.buf);
		add_coloured_report(&shown, safe.buf);
		fprintf(stderr,
			"rocm-resolve: %sinstalling this as written would break the %s "
			"in %s:%s\n%s",
			rr_cli_colour("1;31"), stack, plan->venv, rr_cli_colour("0"), shown.buf);
	} else if (cli->verbosity >= 0 && plan->resolved && unknown) {
		/* "checked" would claim what a build alone can tell */
		fprintf(stderr,
			"rocm-resolve: %sok:%s the %s in %s stays intact as far as the "
			"dependencies are known (%zu protected; dependencies checked, but those of "
			"%zu package%s are only known after a build: see the warnings)\n",
			rr_cli_colour("32"), rr_cli_colour("0"), stack, plan->venv, plan->npins,
			unknown, unknown == 1 ? "" : "s");
	} else if (cli->verbosity >= 0) {
		fprintf(stderr,
			"rocm-resolve: %sok:%s the %s in %s stays intact (%zu "
			"protected%s)\n",
			rr_cli_colour("32"), rr_cli_colour("0"), stack, plan->venv, plan->npins,
			plan->resolved
			    ? ", dependencies checked"
			    : "; dependencies not checked: not resolved against an index");
	}
	return breaks ? RR_EXIT_NO : RR_EXIT_OK;
}

int cmd_plan(struct rr_cli *cli)
{
	return with_plan(cli, report_plan);
}

int cmd_check(struct rr_cli *cli)
{
	return with_plan(cli, report_check);
}

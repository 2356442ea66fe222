/*
 * main.c - dispatch, diagnostics and exit codes. Only this directory prints.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rocm-resolve/json.h"
#include "rocm-resolve/strbuf.h"

/* --color: "auto", "always" or "never" (set once, before any output) */
static const char *colour_choice;
/* --format json was given: a failure is reported on stdout as one error object too */
static bool json_wanted;
/* something went to stdout: a document, a report (no error object after it) */
static bool stdout_used;
/* the run's first error, for the error object (code RR_OK: none) */
static rr_error failure = RR_ERROR_INIT;

static void keep_failure(const rr_error *err)
{
	if (failure.code != RR_OK)
		return;
	failure.code = err->code;
	failure.msg = rr_xstrdup(err->msg ? err->msg : rr_err_to_string(err->code));
	failure.path = err->path ? rr_xstrdup(err->path) : NULL;
	failure.line = err->line;
	failure.col = err->col;
	failure.text = err->text ? rr_xstrdup(err->text) : NULL;
}

int rr_cli_exit_for(rr_err code)
{
	switch (code) {
	case RR_OK:
		return RR_EXIT_OK;
	case RR_E_USAGE:
	case RR_E_PARSE:
	case RR_E_IO:
	case RR_E_LIMIT:
	case RR_E_DATA:
	case RR_E_UNSUPPORTED:
		return RR_EXIT_USAGE;
	case RR_E_ENV:
	case RR_E_NETWORK:
	case RR_E_HTTP:
	case RR_E_ARCHIVE:
	case RR_E_NOTFOUND:
		return RR_EXIT_ENV;
	case RR_E_CONFLICT:
		/* requirements that cannot be installed whatever the stack: the input's error */
		return RR_EXIT_USAGE;
	case RR_E_INTERNAL:
	default:
		return RR_EXIT_INTERNAL;
	}
}

void rr_cli_print_error(const rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf msg = RR_STRBUF_INIT;

	keep_failure(err);
	rr_strbuf_addf(&sb, "rocm-resolve: %serror:%s ", rr_cli_colour("1;31"), rr_cli_colour("0"));
	rr_error_format(err, &msg);
	/* text from input files reaches the terminal escaped (\x1b, ...), never raw; a
	 * message of several lines (a resolver derivation) keeps them, indented */
	for (const char *p = msg.buf; *p;) {
		size_t n = strcspn(p, "\n");
		RR_AUTOFREE char *line = rr_xstrndup(p, n);
		if (p != msg.buf)
			rr_strbuf_adds(&sb, "    ");
		rr_strbuf_add_printable(&sb, line);
		rr_strbuf_addch(&sb, '\n');
		p += n + (p[n] ? 1 : 0);
	}
	if (!msg.len)
		rr_strbuf_addch(&sb, '\n');
	if (err->text) {
		RR_AUTOFREE char *shown = rr_redact_credentials(err->text);
		RR_AUTO_STRBUF struct rr_strbuf safe = RR_STRBUF_INIT;
		rr_strbuf_add_printable(&safe, shown);
		rr_strbuf_addf(&sb, "    %s\n", safe.buf);
		/* the caret only when the text was not changed by redaction; under the escaped form */
		if (err->col && strcmp(shown, err->text) == 0) {
			size_t n = strlen(err->text);
			RR_AUTOFREE char *head = rr_xstrndup(err->text, err->col - 1 < n ? err->col - 1 : n);
			RR_AUTO_STRBUF struct rr_strbuf pre = RR_STRBUF_INIT;
			rr_strbuf_add_printable(&pre, head);
			rr_strbuf_adds(&sb, "    ");
			for (size_t i = 0; i < pre.len; i++)
				if ((pre.buf[i] & 0xc0) != 0x80) /* one column a character */
					rr_strbuf_addch(&sb, pre.buf[i] == '\t' ? '\t' : ' ');
			rr_strbuf_adds(&sb, "^\n");
		}
	}
	fputs(sb.buf, stderr);
}

int rr_cli_error(rr_err code, const char *fmt, ...)
{
	rr_error err = RR_ERROR_INIT;
	va_list ap;

	va_start(ap, fmt);
	rr_vfail(&err, code, fmt, ap);
	va_end(ap);
	keep_failure(&err);
	fprintf(stderr, "rocm-resolve: %serror:%s %s\n", rr_cli_colour("1;31"), rr_cli_colour("0"),
		err.msg);
	rr_error_release(&err);
	return rr_cli_exit_for(code);
}

/* a JSON string of user text as it may be shown: credentials in URLs redacted */
static json_t *shown_str(const char *s)
{
	RR_AUTOFREE char *shown = s ? rr_redact_credentials(s) : NULL;
	return rr_json_str(shown);
}

/*
 * --format json and the run failed before writing anything: one error object on
 * stdout (data/error.schema.json), the same failure as the message on stderr
 */
static void print_failure(int status)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
	json_t *root = json_object(), *e = json_object();

	json_object_set_new(root, "schema", json_integer(1));
	json_object_set_new(e, "exit_code", json_integer(status));
	json_object_set_new(e, "kind", json_string(rr_err_to_string(failure.code)));
	json_object_set_new(e, "message", shown_str(failure.msg));
	json_object_set_new(e, "path", shown_str(failure.path));
	json_object_set_new(e, "line", failure.line ? json_integer(failure.line) : json_null());
	json_object_set_new(e, "col", failure.col ? json_integer(failure.col) : json_null());
	json_object_set_new(e, "text", shown_str(failure.text));
	json_object_set_new(root, "error", e);
	rr_json_dump(root, RR_JSON_LINE, &out);
	rr_cli_write_stdout(out.buf, out.len);
}

/* --format json or --format=json among the options (before any "--") */
static bool asks_json(int argc, char **argv)
{
	bool json = false;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
			json = strcmp(argv[++i], "json") == 0;
		else if (strncmp(argv[i], "--format=", 9) == 0)
			json = strcmp(argv[i] + 9, "json") == 0;
	}
	return json;
}

/*
 * an SGR sequence for stderr, or "" when colour is off: --color always/never
 * first (as uv), then NO_COLOR (any value) turns it off, CLICOLOR_FORCE (not
 * "0") on, else a terminal has it
 */
const char *rr_cli_colour(const char *sgr)
{
	static int on = -1;
	static char buf[8][16];
	static unsigned next;
	const char *force = getenv("CLICOLOR_FORCE");
	const char *no = getenv("NO_COLOR");

	if (on < 0 && colour_choice && strcmp(colour_choice, "auto"))
		on = strcmp(colour_choice, "always") == 0;
	if (on < 0)
		on = no && *no ? 0
		     : force && *force && strcmp(force, "0") ? 1
							     : isatty(STDERR_FILENO) &&
								       !(getenv("TERM") &&
									 strcmp(getenv("TERM"), "dumb") == 0);
	if (!on)
		return "";
	snprintf(buf[next % 8], sizeof(buf[0]), "\033[%sm", sgr);
	return buf[next++ % 8];
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf safe = RR_STRBUF_INIT;
	RR_AUTOFREE char *shown = NULL;

	rr_strbuf_vaddf(&sb, fmt, ap);
	shown = rr_redact_credentials(sb.buf);
	rr_strbuf_add_printable(&safe, shown);
	if (*prefix)
		fprintf(stderr, "rocm-resolve: %s%s%s %s\n", rr_cli_colour("33"), prefix,
			rr_cli_colour("0"), safe.buf);
	else
		fprintf(stderr, "rocm-resolve: %s\n", safe.buf);
}

void rr_cli_warn(const struct rr_cli *cli, const char *fmt, ...)
{
	va_list ap;

	if (cli->verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning:", fmt, ap);
	va_end(ap);
}

void rr_cli_vnote(const struct rr_cli *cli, int level, const char *fmt, va_list ap)
{
	if (cli->verbosity >= level)
		vmsg("", fmt, ap);
}

void rr_cli_info(const struct rr_cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rr_cli_vnote(cli, 1, fmt, ap);
	va_end(ap);
}

void rr_cli_add_printable_lines(struct rr_strbuf *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		RR_AUTOFREE char *line = rr_xstrndup(p, n);
		rr_strbuf_add_printable(out, line);
		rr_strbuf_addch(out, '\n');
		p += n + (p[n] ? 1 : 0);
	}
}

bool rr_cli_write_stdout(const char *buf, size_t len)
{
	stdout_used |= len > 0;
	while (len) {
		ssize_t n = write(STDOUT_FILENO, buf, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * the plan goes out whole: termination signals wait until the last byte is
 * written (a reader that sees a plan sees all of it; the protected pins come
 * first in it as well), then take effect
 */
/*
 * a failed `plan` leaves one line on stdout that every installer rejects before
 * it does anything, so `rocm-resolve ... | uv pip install -r -` fails too, with
 * or without pipefail, and the installer's message names rocm-resolve
 */
int rr_cli_fail_closed(const struct rr_cli *cli, int status)
{
	static const char line[] = "rocm-resolve failed, no plan: see its error above\n";

	if (status > 0 && cli->format == RR_FORMAT_TEXT && !json_wanted && !cli->lock &&
	    !isatty(STDOUT_FILENO))
		rr_cli_write_stdout(line, sizeof(line) - 1);
	return status;
}

bool rr_cli_write_plan(const char *buf, size_t len)
{
	sigset_t block, old;
	bool ok;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	ok = rr_cli_write_stdout(buf, len);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ok;
}

int main(int argc, char **argv)
{
	struct rr_cli cli = {0};
	int rc;

#ifdef M_ARENA_MAX
	/* one malloc arena: the index client's page parsers run on worker threads, and
	 * an arena each kept ~15 MB more resident for no gain in speed */
	mallopt(M_ARENA_MAX, 1);
#endif

	/* a closed pipe is reported as a write error, not a silent death */
	signal(SIGPIPE, SIG_IGN);
	json_wanted = asks_json(argc, argv);
	rc = rr_cli_parse(&cli, argc, argv);
	colour_choice = cli.color;
	/* before the command is known (a bad option), plan, the default, is assumed */
	if (rc > 0 && (!cli.cmd || (cli.cmd->flags & RR_CMD_PLAN_STDOUT)))
		rc = rr_cli_fail_closed(&cli, rc); /* a plan was asked for: the pipe must fail too */
	if (rc == RR_CLI_GO_ON)
		rc = cli.cmd->fn(&cli);
	/* a failed --format json run: the error object, never a partial document */
	if (rc > 0 && json_wanted && failure.code != RR_OK && !stdout_used)
		print_failure(rc);
	rr_error_release(&failure);
	rr_cli_release(&cli);
	return rc;
}

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
#include "rocm-resolve/strbuf.h"

/* --color: "auto", "always" or "never" (set once, before any output) */
static const char *colour_choice;

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

void rr_cli_info(const struct rr_cli *cli, const char *fmt, ...)
{
	va_list ap;

	if (cli->verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
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

	if (status > 0 && cli->format == RR_FORMAT_TEXT && !cli->lock && !isatty(STDOUT_FILENO))
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
	rc = rr_cli_parse(&cli, argc, argv);
	colour_choice = cli.color;
	/* before the command is known (a bad option), plan, the default, is assumed */
	if (rc > 0 && (!cli.cmd || (cli.cmd->flags & RR_CMD_PLAN_STDOUT)))
		rc = rr_cli_fail_closed(&cli, rc); /* a plan was asked for: the pipe must fail too */
	if (rc < 0)
		rc = cli.cmd->fn(&cli);
	rr_cli_release(&cli);
	return rc;
}

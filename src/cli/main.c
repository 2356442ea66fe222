/*
 * main.c - dispatch, diagnostics and exit codes. Only this directory prints.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rocm-resolve/strbuf.h"

static const struct {
	const char *name;
	int (*fn)(struct rr_cli *cli);
} dispatch[] = {
	{"plan", cmd_plan},	  {"check", cmd_check},	    {"inspect", cmd_inspect},
	{"verify", cmd_verify}, {"install", cmd_install}, {"restore", cmd_restore},
};

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
	case RR_E_GPU:
	case RR_E_NOTFOUND:
		return RR_EXIT_ENV;
	case RR_E_CONFLICT:
		return RR_EXIT_NO;
	case RR_E_INTERNAL:
	default:
		return RR_EXIT_INTERNAL;
	}
}

void rr_cli_print_error(const rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_strbuf_adds(&sb, "rocm-resolve: error: ");
	rr_error_format(err, &sb);
	rr_strbuf_addch(&sb, '\n');
	if (err->text) {
		RR_AUTOFREE char *shown = rr_redact_credentials(err->text);
		rr_strbuf_addf(&sb, "    %s\n", shown);
		/* the caret only when the text was not changed by redaction */
		if (err->col && strcmp(shown, err->text) == 0) {
			rr_strbuf_adds(&sb, "    ");
			for (unsigned i = 1; i < err->col && i <= strlen(err->text); i++)
				rr_strbuf_addch(&sb, err->text[i - 1] == '\t' ? '\t' : ' ');
			rr_strbuf_adds(&sb, "^\n");
		}
	}
	fputs(sb.buf, stderr);
}

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *shown = NULL;

	rr_strbuf_vaddf(&sb, fmt, ap);
	shown = rr_redact_credentials(sb.buf);
	fprintf(stderr, "rocm-resolve: %s%s\n", prefix, shown);
}

void rr_cli_warn(const struct rr_cli *cli, const char *fmt, ...)
{
	va_list ap;

	if (cli->verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
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

int main(int argc, char **argv)
{
	struct rr_cli cli = {0};
	int rc;

	/* a closed pipe is reported as a write error, not a silent death */
	signal(SIGPIPE, SIG_IGN);
	rc = rr_cli_parse(&cli, argc, argv);
	if (rc < 0) {
		rc = RR_EXIT_INTERNAL;
		for (size_t i = 0; i < RR_ARRAY_LEN(dispatch); i++)
			if (strcmp(dispatch[i].name, cli.command) == 0)
				rc = dispatch[i].fn(&cli);
	}
	rr_cli_release(&cli);
	return rc;
}

/*
 * cmd-verify.c - `verify`: integrity of the protected stack, a kernel on every
 * visible GPU through the runtime torch uses, and torch computing on the device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "session.h"
#include "verify-run.h"
#include "rocm-resolve/install.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/venv.h"
#include "rocm-resolve/verify.h"

int rr_cli_verify_session(struct rr_cli *cli, struct rr_session *s, struct rr_verify_report **ret)
{
	struct rr_install_opts o = {.flow = s->opts, .backend = cli->backend};
	rr_error err = RR_ERROR_INIT;
	rr_err rc;

	o.verify_timeout_ms = cli->run.timeout_ms;
	rc = rr_install_verify(&o, s->flow, ret, &err);
	if (rc) {
		rr_cli_print_error(&err);
		rr_error_release(&err);
		return rr_cli_exit_for(rc);
	}
	return RR_CLI_GO_ON;
}

int rr_cli_verify_print(const struct rr_cli *cli, const struct rr_verify_report *r)
{
	RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;

	if (cli->format == RR_FORMAT_JSON) {
		rr_strbuf_adds(&out, r->json);
		if (!out.len || out.buf[out.len - 1] != '\n')
			rr_strbuf_addch(&out, '\n');
	} else {
		rr_verify_report_format_text(r, &out);
	}
	rr_cli_write_stdout(out.buf, out.len);
	return rr_verify_exit_code(r);
}

int cmd_verify(struct rr_cli *cli)
{
	struct rr_session s;
	struct rr_verify_report *report = NULL;
	int status;

	if (cli->ninputs) {
		return rr_cli_error(RR_E_USAGE, "verify takes no INPUT (got '%s')", cli->inputs[0]);
	}
	status = rr_session_open(&s, cli, false);
	if (status != RR_CLI_GO_ON)
		return status;
	status = rr_cli_verify_session(cli, &s, &report);
	if (status == RR_CLI_GO_ON)
		status = rr_cli_verify_print(cli, report);
	rr_verify_report_free(report);
	rr_session_close(&s);
	return status;
}

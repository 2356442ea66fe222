#ifndef RR_CLI_VERIFY_RUN_H
#define RR_CLI_VERIFY_RUN_H

#include "cli.h"
#include "session.h"

struct rr_verify_report;

/* run verify for the session's venv; RR_CLI_GO_ON with *ret set, else the exit status */
int rr_cli_verify_session(struct rr_cli *cli, struct rr_session *s, struct rr_verify_report **ret);
/* print the report in the chosen format; returns its exit status */
int rr_cli_verify_print(const struct rr_cli *cli, const struct rr_verify_report *r);

#endif

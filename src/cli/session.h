#ifndef RR_CLI_SESSION_H
#define RR_CLI_SESSION_H

#include "cli.h"
#include "rocm-resolve/reqfile.h"

struct rr_session {
	struct rr_policy *policy;
	struct rr_reqset reqs;
	bool have_reqs;
	struct rr_venv *venv;
	struct rr_stack *stack;
};

/* -1 on success (go on), else the exit status after printing the error */
int rr_session_open(struct rr_session *s, struct rr_cli *cli, bool want_inputs);
void rr_session_warnings(const struct rr_session *s, const struct rr_cli *cli);
void rr_session_close(struct rr_session *s);

#endif

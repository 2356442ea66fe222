#ifndef RR_CLI_SESSION_H
#define RR_CLI_SESSION_H

#include "cli.h"
#include "rocm-resolve/flow.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/resolution.h"
#include "rocm-resolve/strbuf.h"

/* one run of the library's pipeline (struct rr_flow) with the CLI's options */
struct rr_session {
	struct rr_flow *flow;
	struct rr_flow_opts opts;
	/* borrowed from the flow, for the commands' convenience */
	const struct rr_venv *venv;
	const struct rr_stack *stack;
	/* the terminal while resolving */
	int verbosity;
	bool tty, progress_shown;
	long long progress_ms;
};

/* stderr takes the progress line (a terminal, not TERM=dumb) */
bool rr_cli_progress_tty(void);
/* the pipeline's options for the CLI's (the index observer's context is the caller's) */
void rr_session_fill_opts(struct rr_flow_opts *o, const struct rr_cli *cli, bool want_inputs);
/* after rr_flow_plan: the progress line wiped, the warnings from `before` on, -v's summary */
void rr_session_report_plan(struct rr_session *s, const struct rr_cli *cli,
			    const struct rr_flow *f, size_t before);
/* RR_CLI_GO_ON, else the exit status after printing the error */
int rr_session_open(struct rr_session *s, struct rr_cli *cli, bool want_inputs);
void rr_session_warnings(const struct rr_session *s, const struct rr_cli *cli);
void rr_session_close(struct rr_session *s);

struct rr_plan;
/*
 * the plan for the session (resolving first unless --no-index): -1 on
 * success, with *ret handed to the caller, else the exit status
 * after printing the error
 */
int rr_cli_build_plan(struct rr_cli *cli, struct rr_session *s, struct rr_plan **ret);

/*
 * the plan's warnings on stderr: strips that matter, unknowns; every strip and hold with
 * -v, or with changes (install, whose user sees no plan) at the normal level too
 */
void rr_cli_plan_warnings(const struct rr_cli *cli, const struct rr_plan *p, bool changes);

#endif

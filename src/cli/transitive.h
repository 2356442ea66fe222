#ifndef RR_CLI_TRANSITIVE_H
#define RR_CLI_TRANSITIVE_H

#include "cli.h"
#include "session.h"
#include "rocm-resolve/resolution.h"

/*
 * resolve the session's requirements against the package index with the
 * protected stack fixed, filling res; -1 on success, else the exit status
 * after printing the error
 */
struct rr_plan;
int rr_cli_resolve(struct rr_cli *cli, struct rr_session *s, struct rr_plan *plan,
		   struct rr_resolution *res);

struct rr_plan;
/* the plan for the session (resolving first unless --no-index); -1 on success */
int rr_cli_build_plan(struct rr_cli *cli, struct rr_session *s, struct rr_resolution *res,
		      struct rr_plan **ret);

#endif

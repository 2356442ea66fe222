/* development only: the verify module has not landed on this branch yet */
#include <stdio.h>

#include "cli.h"

int cmd_verify(struct rr_cli *cli)
{
	(void)cli;
	fprintf(stderr, "rocm-resolve: error: verify is not built in this development tree\n");
	return RR_EXIT_INTERNAL;
}

int cmd_install(struct rr_cli *cli)
{
	return cmd_verify(cli);
}

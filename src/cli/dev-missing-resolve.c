/* development only: the resolver has not landed on this branch yet */
#include <stdio.h>

#include "transitive.h"

int rr_cli_resolve(struct rr_cli *cli, struct rr_session *s, struct rr_resolution *res)
{
	(void)cli;
	(void)s;
	(void)res;
	fprintf(stderr, "rocm-resolve: error: index resolution is not built in this development "
			"tree; use --no-index\n");
	return RR_EXIT_INTERNAL;
}

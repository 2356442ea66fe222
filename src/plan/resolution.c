#include <stdlib.h>

#include "rocm-resolve/resolution.h"

void rr_resolution_release(struct rr_resolution *r)
{
	for (size_t i = 0; i < r->nitems; i++)
		free(r->unsat_why[i]);
	free(r->unsat_why);
	for (size_t i = 0; i < r->npins; i++) {
		free(r->pins[i].name);
		free(r->pins[i].version);
		free(r->pins[i].why);
	}
	free(r->pins);
	for (size_t i = 0; i < r->nlocked; i++) {
		free(r->locked[i].name);
		free(r->locked[i].version);
		free(r->locked[i].sha256);
		free(r->locked[i].url);
	}
	free(r->locked);
	for (size_t i = 0; i < r->nexcludes; i++)
		free(r->excludes[i]);
	free(r->excludes);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	*r = (struct rr_resolution){0};
}

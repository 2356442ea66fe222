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
	*r = (struct rr_resolution){0};
}

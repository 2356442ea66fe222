/*
 * dependency.c - a candidate's Requires-Dist lines, parsed once (provider.h): the
 * providers hand these out, so the solver, the crawl and the resolve step never
 * parse a line again.
 */
#include <stdlib.h>

#include "rocm-resolve/provider.h"
#include "rocm-resolve/util.h"

struct rr_dependency *rr_dependencies_parse(const char *const *lines, size_t n)
{
	struct rr_dependency *d = rr_xcalloc(n ? n : 1, sizeof(*d));

	for (size_t i = 0; i < n; i++) {
		rr_error err = RR_ERROR_INIT;
		d[i].text = lines[i];
		d[i].req = (struct rr_requirement)RR_REQUIREMENT_INIT;
		d[i].rc = rr_requirement_parse(lines[i], &d[i].req, &err);
		if (d[i].rc) {
			rr_requirement_release(&d[i].req);
			d[i].why = rr_xstrdup(err.msg ? err.msg : "invalid requirement");
		}
		rr_error_release(&err);
	}
	return d;
}

struct rr_dependency *rr_dependencies_free(struct rr_dependency *d, size_t n)
{
	if (!d)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		rr_requirement_release(&d[i].req);
		free(d[i].why);
	}
	free(d);
	return NULL;
}

/*
 * resolution.h - what the transitive resolution tells the plan.
 *
 * Filled by the index-backed resolution step (src/plan/transitive.c) and read
 * by rr_plan_build(). Plain data, owned by whoever created it; release with
 * rr_resolution_release().
 */
#ifndef RR_RESOLUTION_H
#define RR_RESOLUTION_H

#include <stddef.h>

struct rr_resolution_pin {
	char *name;
	char *version;
	char *why;
};

struct rr_resolution {
	char **unsat_why; /* one per reqset item: NULL = installable, else the explanation */
	size_t nitems;
	struct rr_resolution_pin *pins; /* packages pinned so the installer cannot pick a bad one */
	size_t npins;
	size_t cap_pins;
};

void rr_resolution_release(struct rr_resolution *r);

#endif

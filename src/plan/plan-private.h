/*
 * plan-private.h - what the plan's builder (plan.c) shares with the decisions on each
 * input item (decide.c).
 */
#ifndef RR_PLAN_PRIVATE_H
#define RR_PLAN_PRIVATE_H

#include <stddef.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/plan.h"
#include "rocm-resolve/util.h"

struct rr_item;

struct builder {
	const struct rr_plan_input *in;
	struct rr_plan *plan;
	struct rr_marker_env env;
	char pybuf[16];
	size_t cap_decisions, cap_warnings, cap_opts, cap_stripped, cap_pins, cap_extra,
	    cap_constraints, cap_inherited, cap_links;
};

static inline void rr_plan_warn(struct builder *b, char *msg_owned)
{
	RR_PUSH(b->plan->warnings, b->plan->nwarnings, b->cap_warnings) = msg_owned;
}

/* decide on item idx of the input, appending its decision to the plan */
void rr_plan_decide_item(struct builder *b, const struct rr_item *it, size_t idx);

/* the first cause of a protection in a few words, for a pin's comment (owned) */
char *rr_plan_short_why(const char *why);

#endif

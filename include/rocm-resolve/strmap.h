/*
 * strmap.h - a small string-keyed hash map: keys are copied and owned by the
 * map, values are the caller's.
 *
 *     struct rr_strmap m = {0};
 *     void **slot = rr_strmap_find(&m, "key", true);   a new slot holds NULL
 *     *slot = value;
 *     rr_strmap_release(&m, free);
 *
 * A slot stays where it is only until the next find that creates one.
 */
#ifndef RR_STRMAP_H
#define RR_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

struct rr_strmap_slot {
	char *key;
	void *val;
};
struct rr_strmap {
	struct rr_strmap_slot *slots;
	size_t cap, n;
};

/* the value slot of key; with create, a new slot (value NULL) when absent, else NULL */
void **rr_strmap_find(struct rr_strmap *m, const char *key, bool create);
/* frees every key, hands every value to free_val (may be NULL), and the slots */
void rr_strmap_release(struct rr_strmap *m, void (*free_val)(void *val));

#endif

#include <stdlib.h>

#include "rocm-resolve/resolution.h"

const struct rr_item_result *rr_resolution_item(const struct rr_resolution *r, size_t i)
{
	for (size_t k = 0; r && k < r->nitems; k++)
		if (r->items[k].item == i)
			return &r->items[k];
	return NULL;
}

void rr_resolution_release(struct rr_resolution *r)
{
	for (size_t i = 0; i < r->nitems; i++) {
		free(r->items[i].unsat_why);
		free(r->items[i].not_found_why);
		free(r->items[i].pin_version);
		free(r->items[i].pin_why);
		free(r->items[i].pin_newest);
		free(r->items[i].build_why);
	}
	free(r->items);
	for (size_t i = 0; i < r->npins; i++) {
		free(r->pins[i].name);
		free(r->pins[i].version);
		free(r->pins[i].why);
		free(r->pins[i].newest);
		free(r->pins[i].origin);
	}
	free(r->pins);
	for (size_t i = 0; i < r->nlocked; i++) {
		free(r->locked[i].name);
		free(r->locked[i].version);
		free(r->locked[i].sha256);
		free(r->locked[i].url);
		free(r->locked[i].find_links);
		free(r->locked[i].filename);
		free(r->locked[i].index_url);
	}
	free(r->locked);
	for (size_t i = 0; i < r->nexcludes; i++)
		free(r->excludes[i]);
	free(r->excludes);
	for (size_t i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->failed);
	free(r->as_written_unknown);
	for (size_t i = 0; i < r->nchanges; i++) {
		free(r->changes[i].name);
		free(r->changes[i].version);
		free(r->changes[i].why);
		for (size_t k = 0; k < r->changes[i].nchain; k++)
			free(r->changes[i].chain[k]);
		free(r->changes[i].chain);
	}
	free(r->changes);
	free(r->conflict);
	free(r->conflict_items);
	*r = (struct rr_resolution){0};
}

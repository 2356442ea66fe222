#include <stdlib.h>

#include "rocm-resolve/resolution.h"
#include "rocm-resolve/util.h"

const struct rr_item_result *rr_resolution_item(const struct rr_resolution *r, size_t i)
{
	for (size_t k = 0; r && k < r->nitems; k++)
		if (r->items[k].item == i)
			return &r->items[k];
	return NULL;
}

static char *dup_or_null(const char *s)
{
	return s ? rr_xstrdup(s) : NULL;
}

void rr_locked_copy(struct rr_locked *to, const struct rr_locked *from)
{
	*to = *from;
	to->name = rr_xstrdup(from->name);
	to->version = rr_xstrdup(from->version);
	to->sha256 = dup_or_null(from->sha256);
	to->url = dup_or_null(from->url);
	to->filename = dup_or_null(from->filename);
	to->index_url = dup_or_null(from->index_url);
	to->find_links = dup_or_null(from->find_links);
}

void rr_locked_release(struct rr_locked *l)
{
	free(l->name);
	free(l->version);
	free(l->sha256);
	free(l->url);
	free(l->find_links);
	free(l->filename);
	free(l->index_url);
}

void rr_resolution_release(struct rr_resolution *r)
{
	for (size_t i = 0; i < r->nitems; i++) {
		free(r->items[i].unsat_why);
		free(r->items[i].not_found_why);
		free(r->items[i].symbols_why);
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
	for (size_t i = 0; i < r->nlocked; i++)
		rr_locked_release(&r->locked[i]);
	for (size_t i = 0; i < r->ninstalled_files; i++)
		rr_locked_release(&r->installed_files[i]);
	free(r->installed_files);
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

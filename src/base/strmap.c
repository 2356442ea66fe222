/*
 * strmap.c - a small string-keyed hash map (open addressing, FNV-1a): the index
 * client's tables (projects by key, metadata and failures by URL) and the
 * provider's (what the crawl knows of each project)
 */
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strmap.h"
#include "rocm-resolve/util.h"

static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

void **rr_strmap_find(struct rr_strmap *m, const char *key, bool create)
{
	size_t i;

	if (create && (m->n + 1) * 2 > m->cap) {
		struct rr_strmap old = *m;
		m->cap = old.cap ? old.cap * 2 : 64;
		m->slots = rr_xcalloc(m->cap, sizeof(*m->slots));
		m->n = 0;
		for (size_t j = 0; j < old.cap; j++) {
			if (!old.slots[j].key)
				continue;
			i = hash_str(old.slots[j].key) & (m->cap - 1);
			while (m->slots[i].key)
				i = (i + 1) & (m->cap - 1);
			m->slots[i] = old.slots[j];
			m->n++;
		}
		free(old.slots);
	}
	if (!m->cap)
		return NULL;
	i = hash_str(key) & (m->cap - 1);
	while (m->slots[i].key) {
		if (strcmp(m->slots[i].key, key) == 0)
			return &m->slots[i].val;
		i = (i + 1) & (m->cap - 1);
	}
	if (!create)
		return NULL;
	m->slots[i].key = rr_xstrdup(key);
	m->slots[i].val = NULL;
	m->n++;
	return &m->slots[i].val;
}

void rr_strmap_release(struct rr_strmap *m, void (*free_val)(void *val))
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->slots[i].key);
		if (m->slots[i].val && free_val)
			free_val(m->slots[i].val);
	}
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

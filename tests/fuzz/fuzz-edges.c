/*
 * libFuzzer target: dependency edge files (src/index/predict.c: data/edges.txt and the
 * note the cache keeps) from memory. Never crash, never leak, always end; where the
 * text's lines are sorted by name and each name comes once, the binary search finds
 * every line the parse read, with the same rest.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/index-provider.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/metadata.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strmap.h"
#include "rocm-resolve/tags.h"
#include "index/provider-private.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* are the lines (comments aside) sorted by name, each name once? */
static bool sorted(const char *t, size_t n)
{
	const char *prev = NULL;
	size_t plen = 0;
	bool head = true; /* comments only lead (the search skips those) */

	for (size_t i = 0; i < n;) {
		const char *nl = memchr(t + i, '\n', n - i);
		size_t le = nl ? (size_t)(nl - t) : n, ne = i;
		while (ne < le && t[ne] != ' ')
			ne++;
		if (t[i] == '#' && !head)
			return false;
		head &= t[i] == '#';
		if (t[i] != '#' && ne > i && ne < le) {
			if (memchr(t + i, '\0', le - i))
				return false;
			if (prev) {
				size_t k = plen < ne - i ? plen : ne - i;
				int c = memcmp(prev, t + i, k);
				if (c > 0 || (c == 0 && plen >= ne - i))
					return false;
			}
			prev = t + i;
			plen = ne - i;
		} else if (t[i] != '#' && (ne == i || ne == le)) {
			return false; /* a line the parse skips that the search still sees */
		}
		i = le + 1;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	struct predict pr = {0};
	size_t len;

	rr_predict_parse(&pr, t, size);
	(void)rr_predict_find(t, size, "numpy", &len);
	if (sorted(t, size)) {
		for (size_t i = 0; i < pr.learned.cap; i++) {
			const struct rr_strmap_slot *s = &pr.learned.slots[i];
			const char *rest;
			if (!s->key)
				continue;
			rest = rr_predict_find(t, size, s->key, &len);
			if (!rest || len != strlen(s->val) || memcmp(rest, s->val, len) != 0)
				__builtin_trap();
		}
	}
	rr_predict_release(&pr);
	return 0;
}

#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strv.h"
#include "rocm-resolve/util.h"

void rr_strv_take(struct rr_strv *sv, char *s)
{
	rr_xgrow((void **)&sv->v, &sv->cap, sizeof(*sv->v), sv->n + 2);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

char *rr_strv_pushn(struct rr_strv *sv, const char *s, size_t len)
{
	char *copy = rr_xstrndup(s, len);

	rr_strv_take(sv, copy);
	return copy;
}

char *rr_strv_push(struct rr_strv *sv, const char *s)
{
	return rr_strv_pushn(sv, s, strlen(s));
}

long rr_strv_find(const struct rr_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return (long)i;
	return -1;
}

bool rr_strv_push_unique(struct rr_strv *sv, const char *s)
{
	if (rr_strv_find(sv, s) >= 0)
		return false;
	rr_strv_push(sv, s);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rr_strv_sort_unique(struct rr_strv *sv)
{
	size_t out = 0;

	rr_qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
	for (size_t i = 0; i < sv->n; i++) {
		if (out && strcmp(sv->v[out - 1], sv->v[i]) == 0) {
			free(sv->v[i]);
			continue;
		}
		sv->v[out++] = sv->v[i];
	}
	sv->n = out;
	if (sv->v)
		sv->v[sv->n] = NULL;
}

void rr_strv_free_array(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void rr_strv_release(struct rr_strv *sv)
{
	rr_strv_free_array(sv->v, sv->n);
	*sv = (struct rr_strv)RR_STRV_INIT;
}

char **rr_strv_detach(struct rr_strv *sv, size_t *n)
{
	char **v = sv->v;

	if (n)
		*n = sv->n;
	*sv = (struct rr_strv)RR_STRV_INIT;
	return v;
}

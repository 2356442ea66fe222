/*
 * strv.h - a growable vector of owned, NUL-terminated strings.
 *
 *     struct rr_strv v = RR_STRV_INIT;
 *     rr_strv_push(&v, "a");            copies
 *     rr_strv_take(&v, rr_xstrdup(b));  takes ownership
 *     for (size_t i = 0; i < v.n; i++) use(v.v[i]);
 *     rr_strv_release(&v);
 *
 * v.v is NULL-terminated whenever v.n > 0 (so it can be handed to execv and
 * friends); an empty vector may have v.v == NULL.
 */
#ifndef RR_STRV_H
#define RR_STRV_H

#include <stdbool.h>
#include <stddef.h>

struct rr_strv {
	char **v;
	size_t n, cap;
};

#define RR_STRV_INIT {NULL, 0, 0}

/* append a copy of s; returns the copy */
char *rr_strv_push(struct rr_strv *sv, const char *s);
/* append a copy of the first len bytes of s; returns the copy */
char *rr_strv_pushn(struct rr_strv *sv, const char *s, size_t len);
/* append s itself (malloc'd; the vector owns it from now on) */
void rr_strv_take(struct rr_strv *sv, char *s);
/* index of the first string equal to s, or -1 */
long rr_strv_find(const struct rr_strv *sv, const char *s);
/* append a copy of s unless an equal string is there already; true when added */
bool rr_strv_push_unique(struct rr_strv *sv, const char *s);
/* sort bytewise and drop duplicates */
void rr_strv_sort_unique(struct rr_strv *sv);
/* free the strings and the array; leaves an empty vector */
void rr_strv_release(struct rr_strv *sv);
/* the array (NULL-terminated, possibly NULL when empty) to the caller; leaves an empty vector */
char **rr_strv_detach(struct rr_strv *sv, size_t *n);
/* free a detached array of n strings (NULL-safe) */
void rr_strv_free_array(char **v, size_t n);

#endif

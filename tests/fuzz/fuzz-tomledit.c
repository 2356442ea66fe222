/*
 * libFuzzer: the [tool.uv] editor on any document toml++ accepts. Reading the
 * keys and setting them must not crash; when setting succeeds the result must pass
 * rr_toml_check_edit (it parses, holds the values, and nothing else changed) -
 * anything else is a bug, so it aborts. The same for replacing only the tool's own
 * entries of an array (rr_tomledit_set_ours): the user's entries stay as they were,
 * and a second run changes nothing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/tomledit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* the user's entries of the array (not marked "rocm-resolve:"): value and comment */
static bool users(const char *text, size_t n, const char *key, struct rr_toml_array *a)
{
	static const char *const tbl[] = {"tool", "uv"};
	rr_error err = RR_ERROR_INIT;
	size_t k = 0;

	if (rr_tomledit_get_array("p.toml", text, n, tbl, 2, key, a, &err)) {
		rr_error_release(&err);
		return false;
	}
	for (size_t i = 0; i < a->n; i++) {
		if (a->v[i].comment && strncmp(a->v[i].comment, "rocm-resolve:", 13) == 0) {
			free(a->v[i].value);
			free(a->v[i].comment);
			continue;
		}
		a->v[k++] = a->v[i];
	}
	a->n = k;
	return true;
}

/*
 * the tool's entries replaced in place (issue 28 item 6): the result parses and holds
 * the user's strings and ours, nothing else changed; the user's entries (values and
 * comments) are what they were, in order; a second run changes nothing
 */
static void set_ours(const char *text, size_t size)
{
	static const char *const tbl[] = {"tool", "uv"};
	static const char *const key = "constraint-dependencies";
	static const char *const lines[] = {"\"numpy<2\",  # rocm-resolve: held",
					    "\"x\",  # rocm-resolve: \"q\" # h"};
	struct rr_toml_array before, after;
	rr_error err = RR_ERROR_INIT;
	char *one = NULL, *two = NULL;
	size_t n1, n2;

	if (!users(text, size, key, &before))
		return;
	if (rr_tomledit_set_ours("p.toml", text, size, tbl, 2, key, "rocm-resolve:", lines, 2, &one,
				 &n1, &err)) {
		if (err.code != RR_E_UNSUPPORTED)
			abort();
		rr_error_release(&err);
		rr_toml_array_release(&before);
		return;
	}
	{
		const char **vals = calloc(before.n + 3, sizeof(char *));
		const char *const *v[1];
		size_t nv = 0;
		if (!vals)
			abort();
		for (size_t i = 0; i < before.n; i++)
			vals[nv++] = before.v[i].value;
		vals[nv++] = "numpy<2";
		vals[nv++] = "x";
		v[0] = vals;
		if (rr_toml_check_edit("p.toml", text, size, one, n1, tbl, 2, &key, v, &nv, 1,
				       &err))
			abort();
		free(vals);
	}
	if (!users(one, n1, key, &after) || after.n != before.n)
		abort();
	for (size_t i = 0; i < before.n; i++)
		if (strcmp(before.v[i].value, after.v[i].value) != 0 ||
		    (before.v[i].comment == NULL) != (after.v[i].comment == NULL) ||
		    (before.v[i].comment && strcmp(before.v[i].comment, after.v[i].comment) != 0))
			abort();
	if (rr_tomledit_set_ours("p.toml", one, n1, tbl, 2, key, "rocm-resolve:", lines, 2, &two,
				 &n2, &err) ||
	    n1 != n2 || memcmp(one, two, n1) != 0)
		abort();
	rr_toml_array_release(&before);
	rr_toml_array_release(&after);
	free(one);
	free(two);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const tbl[] = {"tool", "uv"};
	static const char *const keys[] = {"exclude-dependencies", "constraint-dependencies"};
	static const char *const ex[] = {"torch"};
	static const char *const co[] = {"numpy<2", "x"};
	static const char *const *vals[] = {ex, co};
	static const size_t nvals[] = {1, 2};
	static const char *const arrays[] = {"[\n    \"torch\",  # rocm-resolve: p\n]",
					     "[\"numpy<2\", 'x']"};
	const char *text = (const char *)data;
	rr_error err = RR_ERROR_INIT;
	char *cur = NULL;
	size_t n = size;

	if (rr_toml_check("p.toml", text, size, &err)) {
		rr_error_release(&err);
		return 0;
	}
	set_ours(text, size);
	for (size_t k = 0; k < 2; k++) {
		struct rr_toml_array a;
		if (rr_tomledit_get_array("p.toml", text, size, tbl, 2, keys[k], &a, &err) == RR_OK)
			rr_toml_array_release(&a);
		rr_error_release(&err);
	}
	cur = malloc(size + 1);
	if (!cur)
		abort();
	memcpy(cur, text, size);
	for (size_t k = 0; k < 2; k++) {
		char *next;
		size_t nn;
		if (rr_tomledit_set("p.toml", cur, n, tbl, 2, keys[k], arrays[k], &next, &nn, &err)) {
			/* refusing an inline table is fine; not following valid TOML is a bug */
			if (err.code != RR_E_UNSUPPORTED)
				abort();
			rr_error_release(&err);
			free(cur);
			return 0;
		}
		free(cur);
		cur = next;
		n = nn;
	}
	if (rr_toml_check_edit("p.toml", text, size, cur, n, tbl, 2, keys, vals, nvals, 2, &err))
		abort();
	free(cur);
	return 0;
}

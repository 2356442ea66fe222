/* keep-reference.c - see keep-reference.h */
#include <string.h>

#include "index/index-private.h"
#include "keep-reference.h"
#include "rocm-resolve/tags.h"

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static rr_err read_page(bool json, const char *data, size_t size, const char *page_url,
			struct rr_index_keep *keep, const struct rr_target *t, const char *key,
			bool allow_file, struct rr_index_project *p, rr_error *err)
{
	rr_err rc = json ? rr_index_parse_json_keep(data, size, page_url, "I", keep, p, err)
			 : rr_index_parse_html_keep(data, size, page_url, "I", keep, p, err);

	if (rc == RR_OK) {
		rr_index_project_drop_foreign(p);
		rr_index_project_keep(p, key, allow_file);
		if (t)
			rr_index_project_keep_installable(p, t);
	}
	return rc;
}

bool rr_test_keep_agrees(bool json, const char *data, size_t size, const char *page_url,
			 const struct rr_target *t, const char *key, bool allow_file,
			 const char **why)
{
	struct rr_index_project whole = {0}, kept = {0};
	struct rr_index_keep keep = {.target = t,
				     .key = key,
				     .allow_file = allow_file,
				     .name = RR_STRBUF_INIT,
				     .norm = RR_STRBUF_INIT};
	rr_error e1 = RR_ERROR_INIT, e2 = RR_ERROR_INIT;
	rr_err a = read_page(json, data, size, page_url, NULL, t, key, allow_file, &whole, &e1);
	rr_err b = read_page(json, data, size, page_url, &keep, t, key, allow_file, &kept, &e2);

	*why = NULL;
	if (a != b)
		*why = "result codes differ";
	else if (a == RR_OK && whole.nfiles != kept.nfiles)
		*why = "numbers of files differ";
	else if (a == RR_OK && whole.nforeign != kept.nforeign)
		*why = "numbers of files left out as foreign differ";
	else if (a == RR_OK && whole.nignored != kept.nignored)
		*why = "numbers of files ignored differ";
	for (size_t i = 0; !*why && a == RR_OK && i < whole.nfiles; i++) {
		const struct rr_index_file *x = &whole.files[i], *y = &kept.files[i];
		if (!same(x->filename, y->filename) || !same(x->url, y->url) ||
		    !same(x->sha256, y->sha256) || !same(x->version, y->version) ||
		    !same(x->requires_python, y->requires_python) || x->yanked != y->yanked ||
		    x->is_wheel != y->is_wheel || x->has_metadata != y->has_metadata)
			*why = "a file differs";
	}
	rr_index_keep_release(&keep);
	rr_index_project_release(&whole);
	rr_index_project_release(&kept);
	rr_error_release(&e1);
	rr_error_release(&e2);
	return *why == NULL;
}

bool rr_test_keep_agrees_each(bool json, const char *data, size_t size, const char *page_url,
			      const char *key, const char **why)
{
	static struct rr_target t;

	if (!t.py_major)
		rr_target_init(&t, "3.12", "x86_64", 2, 28);
	return rr_test_keep_agrees(json, data, size, page_url, NULL, NULL, false, why) &&
	       rr_test_keep_agrees(json, data, size, page_url, &t, NULL, true, why) &&
	       rr_test_keep_agrees(json, data, size, page_url, &t, key, false, why);
}

/*
 * json-reference.c - the reference reader of PEP 691 pages, through Jansson: a
 * test oracle, not part of the product. It fills the same views as the product's
 * streaming scanner (src/index/json-view.h), so the two must agree on every
 * input: the same result code and the same files (tests/unit/index/
 * test-index-parse.c, tests/fuzz/fuzz-simple-json.c).
 */
#include <jansson.h>
#include <string.h>

#include "index/json-view.h"
#include "json-reference.h"
#include "rocm-resolve/util.h"

static void view_of(json_t *v, struct rr_jval *out)
{
	rr_jval_clear(out);
	if (!v)
		out->k = RR_JK_ABSENT;
	else if (json_is_string(v)) {
		out->k = RR_JK_STR;
		out->n = json_string_length(v);
		out->s = rr_xstrndup(json_string_value(v), out->n);
	} else if (json_is_integer(v)) {
		out->k = RR_JK_INT;
		out->i = json_integer_value(v);
	} else if (json_is_real(v))
		out->k = RR_JK_REAL;
	else if (json_is_true(v))
		out->k = RR_JK_TRUE;
	else if (json_is_false(v))
		out->k = RR_JK_FALSE;
	else if (json_is_null(v))
		out->k = RR_JK_NULL;
	else if (json_is_object(v))
		out->k = RR_JK_OBJ;
	else
		out->k = RR_JK_ARR;
}

static void meta_view_of(json_t *v, struct rr_jmeta *m)
{
	view_of(v, &m->v);
	if (json_is_object(v))
		view_of(json_object_get(v, "sha256"), &m->sha);
}

rr_err rr_test_parse_json_jansson(const char *data, size_t len, const char *page_url,
				  const char *index_url, struct rr_index_project *out, rr_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(data, len, 0, &je);
	json_t *meta, *files;
	struct rr_jpage jp;
	struct rr_jval tmp = {0};
	rr_err rc;

	if (!root)
		return rr_fail(err, RR_E_PARSE, "%s: invalid JSON at line %d column %d: %s",
			       page_url, je.line, je.column, je.text);
	if (!json_is_object(root)) {
		json_decref(root);
		return rr_fail(err, RR_E_PARSE, "%s: expected a JSON object", page_url);
	}
	rr_jpage_init(&jp, page_url, index_url);
	meta = json_object_get(root, "meta");
	jp.have_meta = meta != NULL;
	view_of(meta, &tmp);
	jp.meta_k = tmp.k;
	view_of(json_object_get(meta, "api-version"), &jp.api_version);
	view_of(json_object_get(root, "name"), &jp.name);
	files = json_object_get(root, "files");
	view_of(files, &tmp);
	jp.files_k = tmp.k;
	rr_jval_clear(&tmp);
	for (size_t i = 0; json_is_array(files) && i < json_array_size(files); i++) {
		json_t *o = json_array_get(files, i);
		struct rr_jfile f;
		json_t *h;
		memset(&f, 0, sizeof(f));
		view_of(o, &tmp);
		f.k = tmp.k;
		rr_jval_clear(&tmp);
		if (json_is_object(o)) {
			view_of(json_object_get(o, "filename"), &f.filename);
			view_of(json_object_get(o, "url"), &f.url);
			view_of(json_object_get(o, "requires-python"), &f.rp);
			view_of(json_object_get(o, "yanked"), &f.yanked);
			view_of(json_object_get(o, "size"), &f.size);
			h = json_object_get(o, "hashes");
			view_of(h, &tmp);
			f.hashes = tmp.k;
			rr_jval_clear(&tmp);
			if (json_is_object(h))
				view_of(json_object_get(h, "sha256"), &f.hash_sha256);
			meta_view_of(json_object_get(o, "core-metadata"), &f.core);
			meta_view_of(json_object_get(o, "data-dist-info-metadata"), &f.ddim);
			meta_view_of(json_object_get(o, "dist-info-metadata"), &f.dim);
		}
		rr_jconv_take(&jp.conv, &f);
		rr_jfile_clear(&f);
	}
	json_decref(root);
	rc = rr_jpage_finish(&jp, out, err);
	rr_jpage_release(&jp);
	return rc;
}

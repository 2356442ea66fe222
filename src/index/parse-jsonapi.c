/*
 * parse-jsonapi.c - the Warehouse JSON API document /pypi/<name>/json from
 * memory (through Jansson) into struct rr_index_project: the fallback beside a
 * PyPI-like /simple/ that has no page for a project. No I/O.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "index/index-private.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/util.h"

static rr_err json_load(const char *data, size_t len, const char *page_url, json_t **ret,
			rr_error *err)
{
	json_error_t je;
	json_t *root = json_loadb(data, len, 0, &je);

	if (!root) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		return rr_fail(err, RR_E_PARSE, "%s: invalid JSON at line %d column %d: %s", u,
			       je.line, je.column, je.text);
	}
	if (!json_is_object(root)) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		json_decref(root);
		return rr_fail(err, RR_E_PARSE, "%s: expected a JSON object", u);
	}
	*ret = root;
	return RR_OK;
}

rr_err rr_index_parse_jsonapi(const char *data, size_t len, const char *page_url,
			      const char *index_url, struct rr_index_project *out, rr_error *err)
{
	json_t *root;
	json_t *info, *releases;
	struct rr_index_project p = {0};
	size_t cap = 0;
	const char *ver;
	json_t *list;
	rr_err rc;

	if ((rc = json_load(data, len, page_url, &root, err)))
		return rc;
	info = json_object_get(root, "info");
	releases = json_object_get(root, "releases");
	if (!json_is_object(info) || !json_is_object(releases)) {
		RR_AUTOFREE char *u = rr_url_redact(page_url);
		json_decref(root);
		return rr_fail(err, RR_E_PARSE, "%s: expected \"info\" and \"releases\"", u);
	}
	if (json_is_string(json_object_get(info, "name")))
		p.key = rr_name_normalize(json_string_value(json_object_get(info, "name")));
	json_object_foreach(releases, ver, list)
	{
		for (size_t i = 0; json_is_array(list) && i < json_array_size(list); i++) {
			json_t *o = json_array_get(list, i);
			json_t *fn = json_object_get(o, "filename");
			json_t *url = json_object_get(o, "url");
			json_t *dg = json_object_get(o, "digests");
			json_t *rp = json_object_get(o, "requires_python");
			json_t *yr = json_object_get(o, "yanked_reason");
			json_t *sz = json_object_get(o, "size");
			struct rr_index_file *f;
			char *abs;

			if (!json_is_string(fn) || !json_is_string(url))
				continue;
			abs = rr_index_resolve_href(page_url, json_string_value(url), NULL);
			if (!abs)
				continue;
			f = rr_index_project_add_file(&p, &cap, rr_xstrdup(json_string_value(fn)), abs, index_url);
			if (!f)
				continue;
			if (json_is_object(dg)) {
				json_t *h = json_object_get(dg, "sha256");
				if (json_is_string(h) &&
				    rr_index_is_hex64(json_string_value(h), json_string_length(h)))
					f->sha256 = rr_index_lower_hex(json_string_value(h), 64);
			}
			if (json_is_string(rp) && json_string_length(rp))
				f->requires_python = rr_xstrdup(json_string_value(rp));
			f->yanked = json_is_true(json_object_get(o, "yanked"));
			if (f->yanked && json_is_string(yr) && json_string_length(yr))
				f->yanked_reason = rr_xstrdup(json_string_value(yr));
			if (json_is_integer(sz) && json_integer_value(sz) >= 0)
				f->size = json_integer_value(sz);
		}
	}
	json_decref(root);
	rr_index_project_release(out);
	*out = p;
	return RR_OK;
}

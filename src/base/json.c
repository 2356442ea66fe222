/*
 * json.c - Jansson values from the tool's strings, and one way of writing them.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "rocm-resolve/json.h"

#include "rocm-resolve/strbuf.h"

json_t *rr_json_str(const char *s)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	rr_strbuf_add_utf8(&sb, s);
	j = json_stringn(sb.buf ? sb.buf : "", sb.len);
	if (!j)
		abort(); /* the text is UTF-8 now: only memory can be missing */
	return j;
}

json_t *rr_json_strs(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, rr_json_str(v[i]));
	return a;
}

void rr_json_set_str(json_t *o, const char *key, const char *value)
{
	json_object_set_new(o, key, rr_json_str(value));
}

void rr_json_set_strs(json_t *o, const char *key, char *const *v, size_t n)
{
	json_object_set_new(o, key, rr_json_strs(v, n));
}

void rr_json_set_bool(json_t *o, const char *key, bool value)
{
	json_object_set_new(o, key, json_boolean(value));
}

static int add_chunk(const char *buf, size_t size, void *data)
{
	rr_strbuf_add(data, buf, size);
	return 0;
}

static void dump(json_t *j, struct rr_strbuf *out)
{
	if (json_dump_callback(j, add_chunk, out,
			       JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY))
		abort(); /* add_chunk cannot fail: only Jansson's memory can be missing */
}

static bool all_objects(json_t *a)
{
	size_t i;
	json_t *e;

	if (!json_is_array(a) || !json_array_size(a))
		return false;
	json_array_foreach(a, i, e) if (!json_is_object(e)) return false;
	return true;
}

static void dump_lines(json_t *root, struct rr_strbuf *out)
{
	const char *key;
	json_t *val;
	bool first = true;

	rr_strbuf_addch(out, '{');
	json_object_foreach(root, key, val)
	{
		json_t *k = json_string(key);
		if (!k)
			abort(); /* Jansson's keys are UTF-8 already */
		if (!first)
			rr_strbuf_adds(out, ",\n");
		first = false;
		dump(k, out);
		json_decref(k);
		rr_strbuf_addch(out, ':');
		if (all_objects(val)) {
			size_t i;
			json_t *e;
			rr_strbuf_addch(out, '[');
			json_array_foreach(val, i, e)
			{
				rr_strbuf_adds(out, i ? ",\n" : "\n");
				dump(e, out);
			}
			rr_strbuf_addch(out, ']');
		} else {
			dump(val, out);
		}
	}
	rr_strbuf_addch(out, '}');
}

void rr_json_dump(json_t *root, enum rr_json_style style, struct rr_strbuf *out)
{
	if (style == RR_JSON_LINES && json_is_object(root))
		dump_lines(root, out);
	else
		dump(root, out);
	rr_strbuf_addch(out, '\n');
	json_decref(root);
}

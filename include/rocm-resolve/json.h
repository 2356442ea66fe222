/*
 * json.h - the JSON the tool writes, built with Jansson.
 *
 *     json_t *o = json_object();
 *     json_object_set_new(o, "name", rr_json_str(name));    NULL becomes null
 *     json_object_set_new(o, "lines", rr_json_strs(v, n));
 *     rr_json_dump(o, RR_JSON_LINE, out);                   appends, then frees o
 *
 * Jansson refuses text that is not UTF-8 (json_string gives NULL and the field
 * would vanish): rr_json_str turns each stray byte (a dist-info name, a file
 * path) into U+FFFD instead, as every writer must.
 */
#ifndef RR_JSON_H
#define RR_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct rr_strbuf;

/* a JSON string of s with bytes that are not well-formed UTF-8 as U+FFFD; null for NULL */
json_t *rr_json_str(const char *s);
/* an array of the n strings of v, each as rr_json_str */
json_t *rr_json_strs(char *const *v, size_t n);
/* o[key] = rr_json_str(value), rr_json_strs(v, n), a boolean */
void rr_json_set_str(json_t *o, const char *key, const char *value);
void rr_json_set_strs(json_t *o, const char *key, char *const *v, size_t n);
void rr_json_set_bool(json_t *o, const char *key, bool value);

enum rr_json_style {
	RR_JSON_LINE, /* one line, no spaces: `{"a":1,"b":[2]}` and a newline */
	/*
	 * for files people commit and diff: an object's members one a line, and an
	 * array of objects one object a line, each written as RR_JSON_LINE is
	 */
	RR_JSON_LINES,
};

/* append root, written in that style and ending in a newline, to out; takes root */
void rr_json_dump(json_t *root, enum rr_json_style style, struct rr_strbuf *out);

#endif

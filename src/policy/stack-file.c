/*
 * stack-file.c - the stack file (include/rocm-resolve/stack-file.h): written where the
 * ROCm environment is, read back into the struct rr_venv the live load gave there.
 *
 * Every field the stack and the plan read is in the document; anything else in
 * it (protected, clash groups, paths of files) is a report, recomputed by the
 * reader from the distributions with its own policy. Types are checked strictly: a
 * wrong one names its JSON path, so a hand-edited stack file fails loudly rather
 * than protecting less. One distribution a line, so a committed stack file diffs well.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/json.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/stack-file.h"
#include "rocm-resolve/stack.h"
#include "rocm-resolve/tags.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/venv.h"

struct snap {
	const char *path;
	rr_error *err;
};

static rr_err bad(const struct snap *s, const char *where, const char *expected)
{
	return rr_fail(s->err, RR_E_PARSE, "stack file '%s': %s must be %s", s->path, where,
		       expected);
}

/*
 * text that may reach a plan line or name a file holds no control character nor line
 * break (rr_text_check); a distribution's problem and the load's warnings are messages,
 * printed escaped, and only NUL-free
 */
static rr_err check_text(const struct snap *s, const char *w, const char *key, json_t *j)
{
	RR_AUTOFREE char *field = NULL;
	rr_err rc;

	if (strcmp(key, "problem") == 0 || strcmp(key, "warnings") == 0)
		return strlen(json_string_value(j)) == json_string_length(j)
			   ? RR_OK
			   : bad(s, w, "a string without NUL characters");
	field = rr_xasprintf("stack file '%s': %s", s->path, w);
	rc = rr_text_check(json_string_value(j), json_string_length(j), false, field, s->err);
	return rc;
}

/* a string member (or null when nullable) into *out (NULL for null or absent-and-nullable) */
static rr_err get_str(const struct snap *s, json_t *obj, const char *key, bool nullable,
		      const char *where, char **out)
{
	json_t *j = json_object_get(obj, key);
	RR_AUTOFREE char *w = rr_xasprintf("%s%s%s", where, *where ? "." : "", key);

	if (json_is_string(j)) {
		rr_err rc = check_text(s, w, key, j);
		if (rc)
			return rc;
		*out = rr_xstrndup(json_string_value(j), json_string_length(j));
		return RR_OK;
	}
	if (nullable && (!j || json_is_null(j))) {
		*out = NULL;
		return RR_OK;
	}
	return bad(s, w, nullable ? "a string or null" : "a string");
}

static rr_err get_bool(const struct snap *s, json_t *obj, const char *key, const char *where,
		       bool *out)
{
	json_t *j = json_object_get(obj, key);

	if (!j) {
		*out = false;
		return RR_OK;
	}
	if (!json_is_boolean(j)) {
		RR_AUTOFREE char *w = rr_xasprintf("%s.%s", where, key);
		return bad(s, w, "true or false");
	}
	*out = json_is_true(j);
	return RR_OK;
}

/* an array of strings (absent = empty) */
static rr_err get_strv(const struct snap *s, json_t *obj, const char *key, const char *where,
		       char ***out, size_t *n)
{
	json_t *a = json_object_get(obj, key);
	RR_AUTOFREE char *w = rr_xasprintf("%s%s%s", where, *where ? "." : "", key);
	size_t i;

	*out = NULL;
	*n = 0;
	if (!a)
		return RR_OK;
	if (!json_is_array(a))
		return bad(s, w, "an array of strings");
	*out = rr_xcalloc(json_array_size(a) + 1, sizeof(char *));
	for (i = 0; i < json_array_size(a); i++) {
		json_t *e = json_array_get(a, i);
		RR_AUTOFREE char *we = rr_xasprintf("%s[%zu]", w, i);
		rr_err rc;
		if (!json_is_string(e))
			return bad(s, w, "an array of strings");
		if ((rc = check_text(s, we, key, e)))
			return rc;
		(*out)[(*n)++] = rr_xstrdup(json_string_value(e));
	}
	return RR_OK;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct rr_dist *)a)->key, ((const struct rr_dist *)b)->key);
}

/* a URL's password in *text (or NULL) redacted, as a live load does */
static void redact_in_place(char **text)
{
	char *shown;

	if (!*text)
		return;
	shown = rr_redact_password(*text);
	free(*text);
	*text = shown;
}

static rr_err load_dist(const struct snap *s, struct rr_venv *v, json_t *o, size_t idx,
			struct rr_dist *d)
{
	RR_AUTOFREE char *where = rr_xasprintf("distributions[%zu]", idx);
	rr_error e = RR_ERROR_INIT;
	rr_err rc;

	if (!json_is_object(o))
		return bad(s, where, "an object");
	if ((rc = get_str(s, o, "name", false, where, &d->name)) ||
	    (rc = get_str(s, o, "version", true, where, &d->version_text)) ||
	    (rc = get_str(s, o, "installer", true, where, &d->installer)) ||
	    (rc = get_str(s, o, "direct_url", true, where, &d->direct_url)) ||
	    (rc = get_str(s, o, "problem", true, where, &d->problem)) ||
	    (rc = get_str(s, o, "path", true, where, &d->path)) ||
	    (rc = get_str(s, o, "site", true, where, &d->site)) ||
	    (rc = get_str(s, o, "requires_python", true, where, &d->meta.requires_python)) ||
	    (rc = get_bool(s, o, "editable", where, &d->editable)) ||
	    (rc = get_bool(s, o, "egg_info", where, &d->egg_info)) ||
	    (rc = get_bool(s, o, "bridged", where, &d->bridged)) ||
	    (rc = get_bool(s, o, "inherited", where, &d->inherited)) ||
	    (rc = get_strv(s, o, "requires_dist", where, &d->meta.requires_dist,
			   &d->meta.nrequires_dist)) ||
	    (rc = get_strv(s, o, "provides_extra", where, &d->meta.provides_extra,
			   &d->meta.nprovides_extra)) ||
	    (rc = get_strv(s, o, "top_level", where, &d->top_level, &d->ntop_level)))
		return rc;
	if (!rr_name_is_valid(d->name, strlen(d->name))) {
		RR_AUTOFREE char *w = rr_xasprintf("%s.name", where);
		return bad(s, w, "a distribution name");
	}
	d->key = rr_name_normalize(d->name);
	if (!d->site)
		d->site = rr_xstrdup(v->site_packages ? v->site_packages : v->root);
	if (!d->path)
		d->path = rr_xasprintf("%s/%s-%s.dist-info", d->site, d->name,
				       d->version_text ? d->version_text : "");
	if (!d->problem) {
		d->meta.name = rr_xstrdup(d->name);
		d->meta.version = d->version_text ? rr_xstrdup(d->version_text) : NULL;
	}
	/* a live load redacts the password of a direct URL; a stack file written by hand, or
	 * by an older version, may not have: it is shown by inspect and the plan's JSON */
	redact_in_place(&d->direct_url);
	/* the live load warned already (the stack file keeps its warnings) */
	if (d->version_text && !d->problem &&
	    rr_version_parse(d->version_text, &d->version, &e) == RR_OK)
		d->version_ok = true;
	rr_error_release(&e);
	return RR_OK;
}

static rr_err load_markers(const struct snap *s, struct rr_venv *v, json_t *m)
{
	const char *key;
	json_t *val;

	if (!m || json_is_null(m))
		return RR_OK;
	if (!json_is_object(m))
		return bad(s, "markers", "an object");
	json_object_foreach(m, key, val) {
		size_t i;
		for (i = 0; i < RR_MVAR__MAX; i++)
			if (i != RR_MVAR_EXTRA && strcmp(rr_marker_var_to_string(i), key) == 0)
				break;
		/* an unknown name is a marker variable from a later PEP: kept out, not fatal */
		if (i == RR_MVAR__MAX)
			continue;
		RR_AUTOFREE char *w = rr_xasprintf("markers.%s", key);
		rr_err rc;
		if (!json_is_string(val))
			return bad(s, w, "a string");
		if ((rc = check_text(s, w, key, val)))
			return rc;
		free(v->markers[i]);
		v->markers[i] = rr_xstrdup(json_string_value(val));
	}
	return RR_OK;
}

/* "pip_constraints": [{"file": ..., "line": N, "requirement": ...}] (absent = none) */
static rr_err load_constraints(const struct snap *s, struct rr_venv *v, json_t *a)
{
	size_t cap = 0;

	if (!a)
		return RR_OK;
	if (!json_is_array(a))
		return bad(s, "pip_constraints", "an array of objects");
	for (size_t i = 0; i < json_array_size(a); i++) {
		json_t *o = json_array_get(a, i);
		json_t *line = json_object_get(o, "line");
		RR_AUTOFREE char *where = rr_xasprintf("pip_constraints[%zu]", i);
		struct rr_venv_constraint *c;
		rr_err rc;

		if (!json_is_object(o))
			return bad(s, where, "an object");
		if (!json_is_integer(line) || json_integer_value(line) < 0 ||
		    json_integer_value(line) > 0x7fffffff) {
			RR_AUTOFREE char *w = rr_xasprintf("%s.line", where);
			return bad(s, w, "a line number");
		}
		c = &RR_PUSH(v->constraints, v->nconstraints, cap);
		memset(c, 0, sizeof(*c));
		c->line = (unsigned)json_integer_value(line);
		if ((rc = get_str(s, o, "file", false, where, &c->file)) ||
		    (rc = get_str(s, o, "requirement", false, where, &c->requirement)))
			return rc;
		redact_in_place(&c->file);
		redact_in_place(&c->requirement);
	}
	return RR_OK;
}

static rr_err load_doc(const struct snap *s, json_t *root, struct rr_venv *v)
{
	json_t *schema, *torch, *platform, *dists;
	size_t cap = 0;
	rr_err rc;

	if (!json_is_object(root))
		return rr_fail(s->err, RR_E_PARSE,
			       "stack file '%s' is no `rocm-resolve inspect --format json` "
			       "document (not a JSON object)",
			       s->path);
	schema = json_object_get(root, "schema");
	if (!json_is_integer(schema) || !json_is_array(json_object_get(root, "distributions")))
		return rr_fail(s->err, RR_E_PARSE,
			       "stack file '%s' is no `rocm-resolve inspect --format json` "
			       "document (no \"schema\" number or no \"distributions\")",
			       s->path);
	if (json_integer_value(schema) > RR_STACK_FILE_SCHEMA)
		return rr_fail(s->err, RR_E_UNSUPPORTED,
			       "stack file '%s' has schema %lld, newer than this rocm-resolve "
			       "(%s) reads (%d): upgrade rocm-resolve, or write the stack file with "
			       "this version",
			       s->path, (long long)json_integer_value(schema), RR_VERSION,
			       RR_STACK_FILE_SCHEMA);
	if (json_integer_value(schema) < RR_STACK_FILE_SCHEMA)
		return rr_fail(s->err, RR_E_UNSUPPORTED,
			       "stack file '%s' has schema %lld, written by an older "
			       "rocm-resolve without facts a verdict needs (the installed "
			       "requirements, the pip constraint, the inherited sites); "
			       "write it again with `rocm-resolve inspect --format json` in the "
			       "container",
			       s->path, (long long)json_integer_value(schema));
	if ((rc = get_str(s, root, "venv", false, "", &v->root)) ||
	    (rc = get_str(s, root, "python", true, "", &v->python_version)) ||
	    (rc = get_str(s, root, "home", true, "", &v->home)) ||
	    (rc = get_str(s, root, "site_packages", true, "", &v->site_packages)) ||
	    (rc = get_bool(s, root, "system_site_packages", "", &v->system_site_packages)) ||
	    (rc = get_strv(s, root, "bridged_sites", "", &v->bridged_sites, &v->nbridged_sites)) ||
	    (rc = get_strv(s, root, "base_sites", "", &v->base_sites, &v->nbase_sites)) ||
	    (rc = load_constraints(s, v, json_object_get(root, "pip_constraints"))) ||
	    (rc = get_str(s, root, "rocm_version", true, "", &v->rocm_version)) ||
	    (rc = get_str(s, root, "rocm_path", true, "", &v->rocm_path)) ||
	    (rc = get_str(s, root, "pip_constraint", true, "", &v->pip_constraint)) ||
	    (rc = get_strv(s, root, "warnings", "", &v->warnings, &v->nwarnings)) ||
	    (rc = load_markers(s, v, json_object_get(root, "markers"))))
		return rc;
	redact_in_place(&v->pip_constraint);
	torch = json_object_get(root, "torch");
	if (torch && !json_is_null(torch)) {
		if (!json_is_object(torch))
			return bad(s, "torch", "an object");
		if ((rc = get_str(s, torch, "version", true, "torch", &v->torch_version)) ||
		    (rc = get_str(s, torch, "hip", true, "torch", &v->torch_hip)) ||
		    (rc = get_str(s, torch, "cuda", true, "torch", &v->torch_cuda)))
			return rc;
	}
	platform = json_object_get(root, "platform");
	if (platform && !json_is_null(platform)) {
		if (!json_is_object(platform))
			return bad(s, "platform", "an object");
		if ((rc = get_str(s, platform, "machine", true, "platform", &v->machine)) ||
		    (rc = get_str(s, platform, "glibc", true, "platform", &v->glibc)))
			return rc;
	}
	dists = json_object_get(root, "distributions");
	for (size_t i = 0; i < json_array_size(dists); i++) {
		struct rr_dist *d = &RR_PUSH(v->dists, v->ndists, cap);
		memset(d, 0, sizeof(*d));
		rc = load_dist(s, v, json_array_get(dists, i), i, d);
		if (rc)
			return rc;
	}
	if (v->ndists)
		rr_qsort(v->dists, v->ndists, sizeof(*v->dists), cmp_key);
	for (size_t i = 1; i < v->ndists; i++)
		if (strcmp(v->dists[i - 1].key, v->dists[i].key) == 0)
			return rr_fail(s->err, RR_E_PARSE,
				       "stack file '%s': distribution '%s' is listed twice",
				       s->path, v->dists[i].key);
	return RR_OK;
}

rr_err rr_stack_file_parse(const char *text, size_t len, const char *origin,
			      struct rr_venv **ret, rr_error *err)
{
	struct snap s = {.path = origin ? origin : "-", .err = err};
	struct rr_venv *v;
	json_error_t je;
	json_t *root;
	rr_err rc;

	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return rr_fail_at(err, RR_E_PARSE, s.path, (unsigned)je.line, (unsigned)je.column,
				  NULL, "stack file is not valid JSON: %s", je.text);
	v = rr_xcalloc(1, sizeof(*v));
	rc = load_doc(&s, root, v);
	json_decref(root);
	if (rc) {
		rr_venv_free(v);
		return rc;
	}
	v->stack_file = rr_xstrdup(s.path);
	*ret = v;
	return RR_OK;
}

rr_err rr_stack_file_load(const char *path, struct rr_venv **ret, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf buf = RR_STRBUF_INIT;
	RR_AUTOFREE char *shown = rr_xasprintf("stack file '%s'", path);
	rr_err rc;

	/* a regular file only: a FIFO with no writer would hold the run past --timeout */
	rc = rr_file_read(AT_FDCWD, path, RR_STACK_FILE_MAX, 0, shown, &buf, err);
	if (rc == RR_E_NOTFOUND) {
		rc = RR_E_IO;
		if (err)
			err->code = rc;
	}
	if (rc)
		return rc;
	return rr_stack_file_parse(buf.buf, buf.len, path, ret, err);
}

/* ---- the writer ------------------------------------------------------------ */

static json_t *dist_json(const struct rr_dist *d)
{
	json_t *o = json_object();

	rr_json_set_str(o, "name", d->name);
	rr_json_set_str(o, "version", d->version_text);
	rr_json_set_str(o, "requires_python", d->meta.requires_python);
	rr_json_set_strs(o, "requires_dist", d->meta.requires_dist, d->meta.nrequires_dist);
	rr_json_set_strs(o, "provides_extra", d->meta.provides_extra, d->meta.nprovides_extra);
	rr_json_set_strs(o, "top_level", d->top_level, d->ntop_level);
	rr_json_set_str(o, "installer", d->installer);
	rr_json_set_str(o, "direct_url", d->direct_url);
	rr_json_set_bool(o, "editable", d->editable);
	rr_json_set_bool(o, "egg_info", d->egg_info);
	rr_json_set_bool(o, "bridged", d->bridged);
	rr_json_set_bool(o, "inherited", d->inherited);
	rr_json_set_str(o, "problem", d->problem);
	rr_json_set_str(o, "site", d->site);
	rr_json_set_str(o, "path", d->path);
	return o;
}

void rr_stack_file_format(const struct rr_venv *v, const struct rr_stack *st,
			  struct rr_strbuf *out)
{
	struct rr_marker_env env;
	struct rr_target target;
	char pybuf[16], glibc[32];
	json_t *root = json_object(), *o, *a;

	rr_venv_marker_env(v, &env, pybuf);
	rr_venv_target(v, &target);
	json_object_set_new(root, "schema", json_integer(RR_STACK_FILE_SCHEMA));
	rr_json_set_str(root, "venv", v->root);
	rr_json_set_str(root, "python", v->python_version);
	rr_json_set_str(root, "home", v->home);
	rr_json_set_bool(root, "system_site_packages", v->system_site_packages);
	rr_json_set_str(root, "site_packages", v->site_packages);
	rr_json_set_strs(root, "bridged_sites", v->bridged_sites, v->nbridged_sites);
	rr_json_set_strs(root, "base_sites", v->base_sites, v->nbase_sites);
	json_object_set_new(root, "markers", o = json_object());
	for (int i = 0; i < RR_MVAR__MAX; i++)
		if (i != RR_MVAR_EXTRA && env.vars[i])
			rr_json_set_str(o, rr_marker_var_to_string((enum rr_marker_var)i),
					env.vars[i]);
	json_object_set_new(root, "platform", o = json_object());
	rr_json_set_str(o, "machine", target.machine);
	snprintf(glibc, sizeof(glibc), "%u.%u", target.glibc_major, target.glibc_minor);
	rr_json_set_str(o, "glibc", target.glibc_major ? glibc : NULL);
	rr_json_set_str(root, "rocm_version", v->rocm_version);
	rr_json_set_str(root, "rocm_path", v->rocm_path);
	json_object_set_new(root, "torch", o = json_object());
	rr_json_set_str(o, "version", v->torch_version);
	rr_json_set_str(o, "hip", v->torch_hip);
	rr_json_set_str(o, "cuda", v->torch_cuda);
	rr_json_set_str(root, "pip_constraint", v->pip_constraint);
	json_object_set_new(root, "pip_constraints", a = json_array());
	for (size_t i = 0; i < v->nconstraints; i++) {
		json_array_append_new(a, o = json_object());
		rr_json_set_str(o, "file", v->constraints[i].file);
		json_object_set_new(o, "line", json_integer(v->constraints[i].line));
		rr_json_set_str(o, "requirement", v->constraints[i].requirement);
	}
	json_object_set_new(root, "protected", a = json_array());
	for (size_t i = 0; i < st->n; i++) {
		const struct rr_dist *d = st->items[i].dist;
		json_array_append_new(a, o = json_object());
		rr_json_set_str(o, "name", st->items[i].name);
		rr_json_set_str(o, "version", st->items[i].version);
		rr_json_set_str(o, "clash_group", st->items[i].clash_group);
		rr_json_set_str(o, "bridge", d && d->bridged ? d->site : NULL);
		rr_json_set_str(o, "why", st->items[i].why);
	}
	json_object_set_new(root, "distributions", a = json_array());
	for (size_t i = 0; i < v->ndists; i++)
		json_array_append_new(a, dist_json(&v->dists[i]));
	rr_json_set_strs(root, "warnings", v->warnings, v->nwarnings);
	rr_json_dump(root, RR_JSON_LINES, out);
}

/* the only file that uses PCRE2 (and the policy's JSON) */
#define PCRE2_CODE_UNIT_WIDTH 8

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <pcre2.h>

#include "rocm-resolve/file.h"
#include "rocm-resolve/policy.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

#include "policy/policy-data.h"

struct rule {
	struct rr_policy_rule pub; /* strings below, borrowed */
	char *id, *pattern, *reason, *module, *rocm, *extra;
	bool torch_bound;
	pcre2_code *re;
};

struct section {
	struct rule *items;
	size_t n, cap;
};

struct rr_policy {
	struct section sec[RR_POL__MAX];
};

#define RR_POL_STR_(sym, str) str,
static const char *const section_names[] = {RR_POLICY_SECTIONS(RR_POL_STR_)};
#undef RR_POL_STR_

const char *rr_policy_section_to_string(enum rr_policy_section section)
{
	return (unsigned)section < RR_POL__MAX ? section_names[section] : "unknown";
}

static void rule_release(struct rule *r)
{
	free(r->id);
	free(r->pattern);
	free(r->reason);
	free(r->module);
	free(r->rocm);
	free(r->extra);
	pcre2_code_free(r->re);
	memset(r, 0, sizeof(*r));
}

static void section_release(struct section *s)
{
	for (size_t i = 0; i < s->n; i++)
		rule_release(&s->items[i]);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

struct rr_policy *rr_policy_new(void)
{
	return rr_xcalloc(1, sizeof(struct rr_policy));
}

struct rr_policy *rr_policy_free(struct rr_policy *pol)
{
	if (!pol)
		return NULL;
	for (int i = 0; i < RR_POL__MAX; i++)
		section_release(&pol->sec[i]);
	free(pol);
	return NULL;
}

/* error locations: Jansson keeps no positions for values, so find the JSON text */
struct src {
	const char *origin;
	const char *text;
	size_t len;
	rr_error *err;
};

static void pos_of(const struct src *src, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < src->len; i++) {
		if (src->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)src->text[i] & 0xC0) != 0x80) {
			(*col)++; /* characters, as Jansson counts them */
		}
	}
}

/* offset of the JSON encoding of s at or after from, or SIZE_MAX */
static size_t find_json_str(const struct src *src, const char *s, size_t from)
{
	RR_AUTO_STRBUF struct rr_strbuf q = RR_STRBUF_INIT;
	const char *hit;

	if (!s || from >= src->len)
		return SIZE_MAX;
	rr_strbuf_add_json_str(&q, s);
	hit = memmem(src->text + from, src->len - from, q.buf, q.len);
	return hit ? (size_t)(hit - src->text) : SIZE_MAX;
}

static rr_err fail_near(const struct src *src, size_t off, rr_err code, const char *fmt, ...)
	RR_PRINTF(4, 5);

static rr_err fail_near(const struct src *src, size_t off, rr_err code, const char *fmt, ...)
{
	va_list ap;
	unsigned line = 0, col = 0;

	va_start(ap, fmt);
	rr_vfail(src->err, code, fmt, ap);
	va_end(ap);
	if (off != SIZE_MAX)
		pos_of(src, off, &line, &col);
	if (src->err)
		rr_error_set_origin(src->err, src->origin, line, col, NULL);
	return code;
}

/* a rule's string under the one rule for text read from structured inputs (rr_text_check) */
static rr_err check_text(const struct src *src, size_t off, json_t *val, const char *sname,
			 const char *id, const char *key)
{
	RR_AUTOFREE char *field = rr_xasprintf("%s rule '%s': \"%s\"", sname, id, key);
	unsigned line = 0, col = 0;
	rr_err rc = rr_text_check(json_string_value(val), json_string_length(val), false, field,
				  src->err);

	if (rc && src->err) {
		if (off != SIZE_MAX)
			pos_of(src, off, &line, &col);
		rr_error_set_origin(src->err, src->origin, line, col, NULL);
	}
	return rc;
}

static bool is_comment_key(const char *k)
{
	return k[0] == '$' || k[0] == '_' || strcmp(k, "description") == 0 ||
	       strcmp(k, "comment") == 0;
}

static rr_err compile_rule(const struct src *src, enum rr_policy_section sec, struct rule *r,
			   size_t id_off)
{
	int errcode;
	PCRE2_SIZE erroff;
	PCRE2_UCHAR msg[256];

	r->re = pcre2_compile((PCRE2_SPTR)r->pattern, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS,
			      &errcode, &erroff, NULL);
	if (!r->re) {
		RR_AUTO_STRBUF struct rr_strbuf pre = RR_STRBUF_INIT;
		size_t off = find_json_str(src, r->pattern, id_off == SIZE_MAX ? 0 : id_off);
		pcre2_get_error_message(errcode, msg, sizeof(msg));
		/* column of the failing character inside the JSON string literal */
		if (off != SIZE_MAX) {
			RR_AUTOFREE char *head = rr_xstrndup(r->pattern, erroff);
			rr_strbuf_add_json_str(&pre, head);
			off += pre.len - 1;
		}
		return fail_near(src, off, RR_E_DATA,
				 "%s rule '%s': bad pattern at offset %zu: %s",
				 rr_policy_section_to_string(sec), r->id, (size_t)erroff,
				 (const char *)msg);
	}
	return RR_OK;
}

static rr_err parse_rule(const struct src *src, enum rr_policy_section sec, json_t *obj,
			 size_t index, size_t sec_off, struct rule *r, bool *enabled)
{
	const char *key;
	json_t *val;
	size_t id_off;
	json_t *jid = json_object_get(obj, "id");
	const char *sname = rr_policy_section_to_string(sec);

	if (!json_is_object(obj))
		return fail_near(src, sec_off, RR_E_DATA, "%s[%zu]: a rule must be an object",
				 sname, index);
	if (!json_is_string(jid) || !*json_string_value(jid))
		return fail_near(src, sec_off, RR_E_DATA, "%s[%zu]: missing \"id\" string", sname,
				 index);
	if (rr_text_check(json_string_value(jid), json_string_length(jid), false, "id", NULL))
		return check_text(src, sec_off, jid, sname, "?", "id");
	r->id = rr_xstrdup(json_string_value(jid));
	id_off = find_json_str(src, r->id, sec_off == SIZE_MAX ? 0 : sec_off);
	*enabled = true;
	json_object_foreach(obj, key, val) {
		char **slot = NULL;
		if (strcmp(key, "id") == 0 || is_comment_key(key))
			continue;
		if (strcmp(key, "enabled") == 0) {
			if (!json_is_boolean(val))
				return fail_near(src, id_off, RR_E_DATA,
						 "%s rule '%s': \"enabled\" must be true or false",
						 sname, r->id);
			*enabled = json_is_true(val);
			continue;
		}
		if (strcmp(key, "torch_bound") == 0 && sec == RR_POL_ROCM_COUNTERPART) {
			if (!json_is_boolean(val))
				return fail_near(
				    src, find_json_str(src, key, id_off), RR_E_DATA,
				    "%s rule '%s': \"torch_bound\" must be true or false", sname,
				    r->id);
			r->torch_bound = json_is_true(val);
			continue;
		}
		if (strcmp(key, "pattern") == 0)
			slot = &r->pattern;
		else if (strcmp(key, "reason") == 0)
			slot = &r->reason;
		else if (strcmp(key, "module") == 0 && sec == RR_POL_CLASH_GROUP)
			slot = &r->module;
		else if (strcmp(key, "rocm") == 0 &&
			 (sec == RR_POL_TORCH_BUILD || sec == RR_POL_ROCM_COUNTERPART))
			slot = &r->rocm;
		else if (strcmp(key, "extra") == 0 && sec == RR_POL_ROCM_COUNTERPART)
			slot = &r->extra;
		else
			return fail_near(src, find_json_str(src, key, id_off), RR_E_DATA,
					 "%s rule '%s': unknown key \"%s\"", sname, r->id, key);
		if (!json_is_string(val))
			return fail_near(src, find_json_str(src, key, id_off), RR_E_DATA,
					 "%s rule '%s': \"%s\" must be a string", sname, r->id, key);
		rr_err rc = check_text(src, find_json_str(src, key, id_off), val, sname, r->id,
				       key);
		if (rc)
			return rc;
		*slot = rr_xstrdup(json_string_value(val));
	}
	if (!*enabled)
		return RR_OK;
	if (!r->pattern)
		return fail_near(src, id_off, RR_E_DATA, "%s rule '%s': missing \"pattern\"", sname,
				 r->id);
	if (!r->reason || !*r->reason)
		return fail_near(src, id_off, RR_E_DATA, "%s rule '%s': missing \"reason\"", sname,
				 r->id);
	return compile_rule(src, sec, r, id_off);
}

static int section_from_string(const char *s)
{
	for (int i = 0; i < RR_POL__MAX; i++)
		if (strcmp(section_names[i], s) == 0)
			return i;
	return -1;
}

static void publish(struct rule *r)
{
	r->pub.id = r->id;
	r->pub.pattern = r->pattern;
	r->pub.reason = r->reason;
	r->pub.module = r->module;
	r->pub.rocm = r->rocm;
	r->pub.extra = r->extra;
	r->pub.torch_bound = r->torch_bound;
}

/* apply the parsed rules of one file: same id replaces, disabled removes, new appends */
static void merge(struct rr_policy *pol, struct section *add)
{
	for (int s = 0; s < RR_POL__MAX; s++) {
		struct section *dst = &pol->sec[s];
		for (size_t i = 0; i < add[s].n; i++) {
			struct rule *r = &add[s].items[i];
			size_t j;
			for (j = 0; j < dst->n; j++)
				if (strcmp(dst->items[j].id, r->id) == 0)
					break;
			if (!r->re) {
				/* disabled: remove an existing rule of that id */
				if (j < dst->n) {
					rule_release(&dst->items[j]);
					memmove(&dst->items[j], &dst->items[j + 1],
						(dst->n - j - 1) * sizeof(*dst->items));
					dst->n--;
				}
				rule_release(r);
				continue;
			}
			if (j < dst->n) {
				rule_release(&dst->items[j]);
				dst->items[j] = *r;
			} else {
				RR_PUSH(dst->items, dst->n, dst->cap) = *r;
			}
			memset(r, 0, sizeof(*r));
		}
		free(add[s].items);
		add[s].items = NULL;
		add[s].n = 0;
	}
	/* pub pointers may have moved with the arrays */
	for (int s = 0; s < RR_POL__MAX; s++)
		for (size_t i = 0; i < pol->sec[s].n; i++)
			publish(&pol->sec[s].items[i]);
}

static rr_err load_json(struct rr_policy *pol, const struct src *src, struct section *add)
{
	json_error_t je;
	json_t *root, *val;
	const char *key;
	json_t *schema;
	rr_err rc = RR_OK;

	root = json_loadb(src->text, src->len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return rr_fail_at(src->err, RR_E_PARSE, src->origin, je.line > 0 ? (unsigned)je.line : 0,
				  je.column > 0 ? (unsigned)je.column : 0, NULL, "%s", je.text);
	if (!json_is_object(root)) {
		rc = fail_near(src, 0, RR_E_DATA, "a policy must be a JSON object");
		goto out;
	}
	schema = json_object_get(root, "schema");
	if (!json_is_integer(schema)) {
		rc = fail_near(src, find_json_str(src, "schema", 0), RR_E_DATA,
			       "missing integer \"schema\" (this build reads schema %d)",
			       RR_POLICY_SCHEMA);
		goto out;
	}
	if (json_integer_value(schema) != RR_POLICY_SCHEMA) {
		rc = fail_near(src, find_json_str(src, "schema", 0), RR_E_DATA,
			       "unsupported policy schema %lld (this build reads schema %d)",
			       (long long)json_integer_value(schema), RR_POLICY_SCHEMA);
		goto out;
	}
	json_object_foreach(root, key, val) {
		int s;
		size_t i, sec_off;
		json_t *item;

		if (strcmp(key, "schema") == 0 || is_comment_key(key))
			continue;
		s = section_from_string(key);
		sec_off = find_json_str(src, key, 0);
		if (s < 0) {
			rc = fail_near(src, sec_off, RR_E_DATA, "unknown policy key \"%s\"", key);
			goto out;
		}
		if (!json_is_array(val)) {
			rc = fail_near(src, sec_off, RR_E_DATA, "\"%s\" must be an array of rules",
				       key);
			goto out;
		}
		json_array_foreach(val, i, item) {
			struct rule r = {0};
			bool enabled = true;
			rc = parse_rule(src, (enum rr_policy_section)s, item, i, sec_off, &r,
					&enabled);
			if (rc == RR_OK) {
				for (size_t j = 0; j < add[s].n && !rc; j++) {
					size_t first, off;
					if (strcmp(add[s].items[j].id, r.id) != 0)
						continue;
					/* point at the second occurrence */
					first = find_json_str(src, r.id, sec_off);
					off = first == SIZE_MAX ? SIZE_MAX :
								  find_json_str(src, r.id, first + 1);
					rc = fail_near(src, off, RR_E_DATA,
						       "%s: duplicate rule id '%s'", key, r.id);
				}
			}
			if (rc) {
				rule_release(&r);
				goto out;
			}
			if (!enabled) {
				/* kept without a compiled pattern: a removal marker for merge() */
				pcre2_code_free(r.re);
				r.re = NULL;
			}
			RR_PUSH(add[s].items, add[s].n, add[s].cap) = r;
		}
	}
	merge(pol, add);
out:
	json_decref(root);
	return rc;
}

rr_err rr_policy_load_buffer(struct rr_policy *pol, const char *data, size_t len,
			     const char *origin, rr_error *err)
{
	struct src src = {origin, data, len, err};
	struct section add[RR_POL__MAX] = {0};
	rr_err rc;

	rc = load_json(pol, &src, add);
	for (int s = 0; s < RR_POL__MAX; s++)
		section_release(&add[s]);
	return rc;
}

#define RR_POLICY_MAX_FILE (4u << 20)

rr_err rr_policy_load_file(struct rr_policy *pol, const char *path, rr_error *err)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	RR_AUTOFREE char *shown = rr_xasprintf("'%s'", path);
	rr_err rc;

	/* a regular file ("-": standard input, as asked): a FIFO with no writer must not
	 * hold the run, nor read as an empty policy */
	if (strcmp(path, "-") == 0)
		rc = rr_strbuf_read_file(&sb, path, RR_POLICY_MAX_FILE, err);
	else if ((rc = rr_file_read(AT_FDCWD, path, RR_POLICY_MAX_FILE, 0, shown, &sb, err)) ==
		 RR_E_NOTFOUND) {
		rc = RR_E_IO;
		if (err)
			err->code = rc;
	}
	if (rc)
		return rc;
	return rr_policy_load_buffer(pol, sb.buf, sb.len, path, err);
}

rr_err rr_policy_load_default(struct rr_policy **ret, rr_error *err)
{
	struct rr_policy *pol = rr_policy_new();
	rr_err rc;

	rc = rr_policy_load_buffer(pol, (const char *)rr_policy_json, rr_policy_json_len,
				   "<builtin>/data/policy.json", err);
	if (rc) {
		rr_policy_free(pol);
		return rc;
	}
	*ret = pol;
	return RR_OK;
}

const struct rr_policy_rule *rr_policy_match(const struct rr_policy *pol,
					     enum rr_policy_section section, const char *subject)
{
	const struct section *s;
	pcre2_match_data *md;
	const struct rr_policy_rule *hit = NULL;
	size_t len;

	if (!pol || !subject || (unsigned)section >= RR_POL__MAX)
		return NULL;
	s = &pol->sec[section];
	if (!s->n)
		return NULL;
	len = strlen(subject);
	/* per call: keeps the policy immutable and shareable */
	md = pcre2_match_data_create(1, NULL);
	for (size_t i = 0; i < s->n && !hit; i++)
		if (pcre2_match(s->items[i].re, (PCRE2_SPTR)subject, len, 0, 0, md, NULL) >= 0)
			hit = &s->items[i].pub;
	pcre2_match_data_free(md);
	return hit;
}

size_t rr_policy_count(const struct rr_policy *pol, enum rr_policy_section section)
{
	return pol && (unsigned)section < RR_POL__MAX ? pol->sec[section].n : 0;
}

const struct rr_policy_rule *rr_policy_rule_at(const struct rr_policy *pol,
					       enum rr_policy_section section, size_t i)
{
	if (i >= rr_policy_count(pol, section))
		return NULL;
	return &pol->sec[section].items[i].pub;
}

static const char *reason_of(const struct rr_policy_rule *r)
{
	return r ? r->reason : NULL;
}

const struct rr_policy_rule *rr_policy_match_counterpart(const struct rr_policy *pol,
							 const char *key)
{
	const struct rr_policy_rule *r = rr_policy_match(pol, RR_POL_ROCM_COUNTERPART, key);

	return r && !r->extra ? r : NULL;
}

const struct rr_policy_rule *rr_policy_match_torch_build(const struct rr_policy *pol,
							 const char *key)
{
	return rr_policy_match(pol, RR_POL_TORCH_BUILD, key);
}

const char *rr_policy_match_gpu_family(const struct rr_policy *pol, const char *key)
{
	return reason_of(rr_policy_match(pol, RR_POL_GPU_FAMILY, key));
}

const char *rr_policy_match_cuda_only(const struct rr_policy *pol, const char *key)
{
	if (rr_policy_match(pol, RR_POL_NOT_CUDA_ONLY, key))
		return NULL;
	return reason_of(rr_policy_match(pol, RR_POL_CUDA_ONLY, key));
}

/* URL rules are written for bare hosts: "user:pass@" is dropped before matching */
const char *rr_policy_match_cuda_index(const struct rr_policy *pol, const char *url)
{
	RR_AUTOFREE char *bare = NULL;

	rr_url_split_userinfo(url, &bare, NULL);
	url = bare;
	return reason_of(rr_policy_match(pol, RR_POL_CUDA_INDEX, url));
}

const char *rr_policy_match_rocm_version(const struct rr_policy *pol, const char *version_text)
{
	return reason_of(rr_policy_match(pol, RR_POL_ROCM_VERSION, version_text));
}

const char *rr_policy_match_stock_label(const struct rr_policy *pol, const char *local)
{
	return reason_of(rr_policy_match(pol, RR_POL_STOCK_LABEL, local));
}

const char *rr_policy_match_rocm_url(const struct rr_policy *pol, const char *url)
{
	return reason_of(rr_policy_match(pol, RR_POL_ROCM_URL, url));
}

const char *rr_policy_match_cuda_library(const struct rr_policy *pol, const char *soname)
{
	return reason_of(rr_policy_match(pol, RR_POL_CUDA_LIBRARY, soname));
}

const char *rr_policy_match_hip_runtime(const struct rr_policy *pol, const char *soname)
{
	return reason_of(rr_policy_match(pol, RR_POL_HIP_RUNTIME, soname));
}

const char *rr_policy_clash_group(const struct rr_policy *pol, const char *key)
{
	const struct rr_policy_rule *r = rr_policy_match(pol, RR_POL_CLASH_GROUP, key);

	return r ? r->id : NULL;
}

#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/metadata.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/strv.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

struct parser {
	const char *origin;
	struct rr_metadata m;
	size_t cap_req, cap_extra, cap_dyn;
	/* the header being collected: name points into the input */
	const char *hname;
	size_t hname_len;
	unsigned hline;
	struct rr_strbuf value;
	bool have_header;
};

static bool name_is(const char *s, size_t len, const char *want)
{
	size_t i;

	if (strlen(want) != len)
		return false;
	for (i = 0; i < len; i++) {
		char a = s[i], b = want[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return true;
}

static void set_once(char **slot, const char *v)
{
	/* first occurrence wins, as email.message.Message.get() */
	if (!*slot)
		*slot = rr_xstrdup(v);
}

static void finish_header(struct parser *p)
{
	const char *v;

	if (!p->have_header)
		return;
	p->have_header = false;
	rr_strbuf_rtrim(&p->value);
	v = p->value.buf;
	if (name_is(p->hname, p->hname_len, "name"))
		set_once(&p->m.name, v);
	else if (name_is(p->hname, p->hname_len, "version"))
		set_once(&p->m.version, v);
	else if (name_is(p->hname, p->hname_len, "metadata-version"))
		set_once(&p->m.metadata_version, v);
	else if (name_is(p->hname, p->hname_len, "requires-python"))
		set_once(&p->m.requires_python, v);
	else if (name_is(p->hname, p->hname_len, "summary"))
		set_once(&p->m.summary, v);
	else if (name_is(p->hname, p->hname_len, "requires-dist")) {
		if (*v)
			RR_PUSH(p->m.requires_dist, p->m.nrequires_dist, p->cap_req) = rr_xstrdup(v);
	} else if (name_is(p->hname, p->hname_len, "provides-extra")) {
		if (*v)
			RR_PUSH(p->m.provides_extra, p->m.nprovides_extra, p->cap_extra) =
				rr_xstrdup(v);
	} else if (name_is(p->hname, p->hname_len, "dynamic")) {
		if (*v)
			RR_PUSH(p->m.dynamic, p->m.ndynamic, p->cap_dyn) = rr_xstrdup(v);
	}
}

static rr_err fail_line(struct parser *p, unsigned line, unsigned col, const char *s, size_t len,
			rr_error *err, const char *msg)
{
	RR_AUTOFREE char *text = rr_xstrndup(s, len);

	return rr_fail_at(err, RR_E_PARSE, p->origin, line, col, text, "%s", msg);
}

/* RFC 5322 field name characters: printable ASCII except ':' and space */
static bool is_ftext(unsigned char c)
{
	return c >= 33 && c <= 126 && c != ':';
}

static rr_err parse(struct parser *p, const char *text, size_t len, rr_error *err)
{
	const char *s = text, *end = text + len;
	unsigned line = 0;

	if (len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		size_t n;
		const char *colon;

		line++;
		n = (size_t)(eol - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (memchr(s, '\0', n))
			return fail_line(p, line, (unsigned)((const char *)memchr(s, '\0', n) - s) + 1,
					 s, n, err, "NUL byte in metadata header");
		if (n == 0)
			break; /* end of the header block; the body is the description */
		if (s[0] == ' ' || s[0] == '\t') {
			size_t i = 0;
			if (!p->have_header)
				return fail_line(p, line, 1, s, n, err,
						 "continuation line before the first header");
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i < n) {
				rr_strbuf_rtrim(&p->value);
				if (p->value.len)
					rr_strbuf_addch(&p->value, ' ');
				rr_strbuf_add(&p->value, s + i, n - i);
			}
		} else {
			size_t i;
			finish_header(p);
			colon = memchr(s, ':', n);
			for (i = 0; i < (colon ? (size_t)(colon - s) : n); i++)
				if (!is_ftext((unsigned char)s[i]))
					break;
			if (!colon || i < (size_t)(colon - s))
				return fail_line(p, line, (unsigned)i + 1, s, n, err,
						 "expected a 'Field: value' header line");
			if (colon == s)
				return fail_line(p, line, 1, s, n, err, "empty header field name");
			p->hname = s;
			p->hname_len = (size_t)(colon - s);
			p->hline = line;
			p->have_header = true;
			rr_strbuf_reset(&p->value);
			i = (size_t)(colon - s) + 1;
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			rr_strbuf_add(&p->value, s + i, n - i);
		}
		s = nl ? nl + 1 : end;
	}
	finish_header(p);
	if (!p->m.name || !*p->m.name)
		return rr_fail_at(err, RR_E_PARSE, p->origin, p->m.name ? 0 : 1, 0, NULL,
				  p->m.name ? "empty 'Name' field" : "no 'Name' field in metadata");
	if (!rr_name_is_valid(p->m.name, strlen(p->m.name)))
		return rr_fail_at(err, RR_E_PARSE, p->origin, 0, 0, NULL,
				  "invalid project name '%s' in 'Name' field", p->m.name);
	if (!p->m.version || !*p->m.version)
		return rr_fail_at(err, RR_E_PARSE, p->origin, 0, 0, NULL,
				  p->m.version ? "empty 'Version' field" :
						 "no 'Version' field in metadata");
	return RR_OK;
}

rr_err rr_metadata_parse(const char *text, size_t len, const char *origin, struct rr_metadata *ret,
			 rr_error *err)
{
	struct parser p = {.origin = origin, .m = RR_METADATA_INIT, .value = RR_STRBUF_INIT};
	rr_err rc;

	rc = parse(&p, text, len, err);
	rr_strbuf_release(&p.value);
	if (rc) {
		rr_metadata_release(&p.m);
		return rc;
	}
	*ret = p.m;
	return RR_OK;
}

void rr_metadata_release(struct rr_metadata *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->version);
	free(m->requires_python);
	free(m->metadata_version);
	free(m->summary);
	rr_strv_free_array(m->requires_dist, m->nrequires_dist);
	rr_strv_free_array(m->provides_extra, m->nprovides_extra);
	rr_strv_free_array(m->dynamic, m->ndynamic);
	*m = (struct rr_metadata)RR_METADATA_INIT;
}

static void trim(const char **s, size_t *n)
{
	while (*n && (**s == ' ' || **s == '\t' || **s == '\r')) {
		(*s)++;
		(*n)--;
	}
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

void rr_metadata_add_requires_txt(struct rr_metadata *m, const char *text, size_t len)
{
	const char *s = text, *end = text + len;
	const char *sec = NULL;
	size_t nsec = 0, cap = m->nrequires_dist;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *l = s;
		size_t n = (size_t)((nl ? nl : end) - s);
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		const char *colon;
		size_t nextra, nmark;

		s = nl ? nl + 1 : end;
		trim(&l, &n);
		if (!n || l[0] == '#')
			continue;
		if (l[0] == '[') {
			sec = l + 1;
			nsec = n > 1 && l[n - 1] == ']' ? n - 2 : n - 1;
			trim(&sec, &nsec);
			continue;
		}
		/* mirrors importlib.metadata's egg-info conversion */
		rr_strbuf_add(&sb, l, n);
		if (memchr(l, '@', n))
			rr_strbuf_addch(&sb, ' ');
		colon = sec ? memchr(sec, ':', nsec) : NULL;
		nextra = colon ? (size_t)(colon - sec) : nsec;
		nmark = colon ? nsec - nextra - 1 : 0;
		if (nmark || nextra)
			rr_strbuf_adds(&sb, "; ");
		if (nmark && nextra)
			rr_strbuf_addf(&sb, "(%.*s) and ", (int)nmark, colon + 1);
		else if (nmark)
			rr_strbuf_add(&sb, colon + 1, nmark);
		if (nextra)
			rr_strbuf_addf(&sb, "extra == \"%.*s\"", (int)nextra, sec);
		RR_PUSH(m->requires_dist, m->nrequires_dist, cap) = rr_strbuf_detach(&sb, NULL);
	}
}

/* one CSV field (RFC 4180 quoting, as Python's csv module writes RECORD); advances *p */
char *rr_record_field(const char **p)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;
	const char *s = *p;

	if (*s == '"') {
		for (s++; *s; s++) {
			if (*s == '"' && s[1] == '"') {
				rr_strbuf_addch(&sb, '"');
				s++;
			} else if (*s == '"') {
				s++;
				break;
			} else {
				rr_strbuf_addch(&sb, *s);
			}
		}
		while (*s && *s != ',' && *s != '\n')
			s++;
	} else {
		size_t len = strcspn(s, ",\r\n");
		rr_strbuf_add(&sb, s, len);
		s += len;
	}
	if (*s == ',')
		s++;
	*p = s;
	return rr_strbuf_detach(&sb, NULL);
}

/* site + rel (rel as RECORD writes it), lexically normalized: "//", "/./" and "x/../"
 * collapse; ".." above an absolute root is dropped, above a relative one kept */
char *rr_path_normalize(const char *site, const char *rel)
{
	RR_AUTOFREE char *joined = rel[0] == '/' ? rr_xstrdup(rel) : rr_xasprintf("%s/%s", site, rel);
	char **parts = NULL;
	size_t n = 0, cap = 0;
	struct rr_strbuf out = RR_STRBUF_INIT;
	char *save = NULL;

	for (char *t = strtok_r(joined, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (!strcmp(t, "."))
			continue;
		if (!strcmp(t, "..")) {
			if (n && strcmp(parts[n - 1], ".."))
				n--;
			else if (site[0] != '/')
				RR_PUSH(parts, n, cap) = t;
			continue;
		}
		RR_PUSH(parts, n, cap) = t;
	}
	if (joined[0] == '/' || site[0] == '/')
		rr_strbuf_addch(&out, '/');
	for (size_t i = 0; i < n; i++)
		rr_strbuf_addf(&out, "%s%s", i ? "/" : "", parts[i]);
	free(parts);
	return rr_strbuf_detach(&out, NULL);
}

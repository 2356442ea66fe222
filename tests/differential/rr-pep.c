/*
 * rr-pep - query driver for the differential tests against Python's packaging.
 *
 * Protocol (one query per input line, one answer line per query, in order):
 *
 *   <KIND> <field> <field> ...
 *
 * KIND is one letter; fields are separated by single spaces and each field is
 * percent-encoded: every byte outside '!'..'~', and '%' itself, is written as
 * %XX (two hex digits), so fields may hold spaces, tabs, newlines, commas or
 * any UTF-8. Answers are encoded the same way (plain tokens such as "ERR",
 * "1", "-1" need no escaping). An unknown KIND or a wrong field count answers
 * "BADQUERY" so a protocol slip shows up as a disagreement, not a hang.
 *
 *   V <version>              normalised str(Version(v)), or ERR
 *   C <a> <b>                -1, 0 or 1 comparing Version(a) with Version(b), or ERR
 *   S <specset> <ver> <pre>  pre = none|true|false: 1/0 for
 *                            SpecifierSet(specset).contains(ver, prereleases=pre), ERR when
 *                            either fails to parse
 *   P <specset>              the items, each str(Specifier), joined by ',' in input
 *                            order, or ERR
 *   N <name>                 "<canonicalize_name(name)> <1|0 PEP 508 valid>"
 *
 * Reserved for pep-b (marker.c, requirement.c): M (marker evaluation) and R
 * (requirement parse); add them as further cases in dispatch() below and in
 * a kind-specific generator next to pep_diff.py.
 *
 * Only parse errors answer ERR; anything else (RR_E_LIMIT for numbers past
 * uint64) answers "LIMIT", which the Python side never produces, so such
 * cases must not be generated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/name.h"
#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"
#include "rocm-resolve/version.h"

#define MAX_FIELDS 8

struct field {
	char *s;
	size_t n;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* decode in place; the decoded field is NUL-terminated (it may hold NULs too) */
static void decode(struct field *f)
{
	size_t o = 0;

	for (size_t i = 0; i < f->n; i++) {
		if (f->s[i] == '%' && i + 2 < f->n &&
		    hexval(f->s[i + 1]) >= 0 && hexval(f->s[i + 2]) >= 0) {
			f->s[o++] = (char)(hexval(f->s[i + 1]) * 16 + hexval(f->s[i + 2]));
			i += 2;
		} else {
			f->s[o++] = f->s[i];
		}
	}
	f->s[o] = '\0';
	f->n = o;
}

static void emit(struct rr_strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c <= ' ' || c > '~' || c == '%')
			rr_strbuf_addf(out, "%%%02X", c);
		else
			rr_strbuf_addch(out, (char)c);
	}
}

static const char *err_word(rr_err rc)
{
	return rc == RR_E_PARSE ? "ERR" : "LIMIT";
}

static void q_version(struct field *f, struct rr_strbuf *out)
{
	struct rr_version v;
	rr_err rc = rr_version_parse_n(f[0].s, f[0].n, &v, NULL);

	if (rc) {
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	{
		RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
		rr_version_format(&v, &sb);
		emit(out, sb.buf, sb.len);
	}
	rr_version_release(&v);
}

static void q_compare(struct field *f, struct rr_strbuf *out)
{
	struct rr_version a;
	struct rr_version b;
	rr_err rc;

	if ((rc = rr_version_parse_n(f[0].s, f[0].n, &a, NULL))) {
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	if ((rc = rr_version_parse_n(f[1].s, f[1].n, &b, NULL))) {
		rr_version_release(&a);
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	rr_strbuf_addf(out, "%d", rr_version_cmp(&a, &b));
	rr_version_release(&a);
	rr_version_release(&b);
}

static void q_specset(struct field *f, struct rr_strbuf *out)
{
	struct rr_specset set;
	struct rr_version v;
	enum rr_pre_policy pre;
	rr_err rc;

	if (strcmp(f[2].s, "none") == 0)
		pre = RR_PRE_POLICY_DEFAULT;
	else if (strcmp(f[2].s, "true") == 0)
		pre = RR_PRE_POLICY_ALLOW;
	else if (strcmp(f[2].s, "false") == 0)
		pre = RR_PRE_POLICY_DENY;
	else {
		rr_strbuf_adds(out, "BADQUERY");
		return;
	}
	if ((rc = rr_specset_parse_n(f[0].s, f[0].n, &set, NULL))) {
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	if ((rc = rr_version_parse_n(f[1].s, f[1].n, &v, NULL))) {
		rr_specset_release(&set);
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	rr_strbuf_adds(out, rr_specset_contains(&set, &v, pre) ? "1" : "0");
	rr_specset_release(&set);
	rr_version_release(&v);
}

static void q_specparse(struct field *f, struct rr_strbuf *out)
{
	struct rr_specset set;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_err rc;

	if ((rc = rr_specset_parse_n(f[0].s, f[0].n, &set, NULL))) {
		rr_strbuf_adds(out, err_word(rc));
		return;
	}
	rr_specset_format(&set, &sb);
	emit(out, sb.buf, sb.len);
	rr_specset_release(&set);
}

static void q_name(struct field *f, struct rr_strbuf *out)
{
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_name_normalize_into(f[0].s, f[0].n, &sb);
	emit(out, sb.buf, sb.len);
	rr_strbuf_adds(out, rr_name_is_valid(f[0].s, f[0].n) ? " 1" : " 0");
}

static void dispatch(char kind, struct field *f, size_t nf, struct rr_strbuf *out)
{
	static const struct {
		char kind;
		size_t nfields;
		void (*fn)(struct field *f, struct rr_strbuf *out);
	} queries[] = {
		{'V', 1, q_version}, {'C', 2, q_compare}, {'S', 3, q_specset},
		{'P', 1, q_specparse}, {'N', 1, q_name},
	};

	for (size_t k = 0; k < RR_ARRAY_LEN(queries); k++) {
		if (queries[k].kind == kind) {
			if (nf != queries[k].nfields)
				break;
			queries[k].fn(f, out);
			return;
		}
	}
	rr_strbuf_adds(out, "BADQUERY");
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct rr_strbuf out = RR_STRBUF_INIT;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		struct field f[MAX_FIELDS];
		size_t nf = 0;
		size_t i = 2;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (len == 0)
			continue;
		/* "K f1 f2 ..." */
		if (len >= 2 && line[1] != ' ')
			nf = MAX_FIELDS + 1;
		while (len >= 2 && (size_t)len >= i && nf < MAX_FIELDS) {
			size_t e = i;
			while (e < (size_t)len && line[e] != ' ')
				e++;
			f[nf].s = line + i;
			f[nf].n = e - i;
			line[e] = '\0';
			decode(&f[nf]);
			nf++;
			i = e + 1;
		}
		dispatch(line[0], f, nf, &out);
		rr_strbuf_addch(&out, '\n');
		if (out.len > 1 << 16) {
			fwrite(out.buf, 1, out.len, stdout);
			rr_strbuf_reset(&out);
		}
	}
	fwrite(out.buf, 1, out.len, stdout);
	fflush(stdout);
	rr_strbuf_release(&out);
	free(line);
	return 0;
}

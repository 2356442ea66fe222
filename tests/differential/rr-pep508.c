/*
 * rr-pep508 - query driver for the PEP 508 differential tests (markers and
 * requirements) against Python's packaging; pep508_diff.py is the other half.
 *
 * Protocol, same encoding as pep-a's rr-pep: one query per input line, one
 * answer line per query; fields separated by single spaces, each
 * percent-encoded (every byte outside '!'..'~', and '%', as %XX); "%-" is the
 * empty string.
 *
 *   E <12 values>      set the environment, in enum rr_marker_var order; a
 *                      field "%00" alone means "undefined". Answers "OK".
 *   M <marker>         "P <col>" when parsing fails, else "<str(Marker)> <e>"
 *                      where e is 1 / 0, or "E" when evaluation fails
 *   R <req> <extras>   extras: ','-joined list or "-" for none. "P <col>" when
 *                      parsing fails, else "<str(Requirement)> <name> <url|-> <a>"
 *                      where a is rr_requirement_applies(): 1 / 0 / E
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

#define MAX_FIELDS 16

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

/* decode in place; returns the decoded length */
static size_t decode(char *s)
{
	size_t o = 0;

	if (!strcmp(s, "%-")) { /* the empty string */
		s[0] = '\0';
		return 0;
	}
	for (size_t i = 0; s[i]; i++) {
		if (s[i] == '%' && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			s[o++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			s[o++] = s[i];
		}
	}
	s[o] = '\0';
	return o;
}

static void put(struct rr_strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < '!' || c > '~' || c == '%')
			rr_strbuf_addf(out, "%%%02X", c);
		else
			rr_strbuf_addch(out, (char)c);
	}
}

static char *env_store[RR_MVAR__MAX];

int main(void)
{
	struct rr_marker_env env;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	rr_marker_env_init(&env);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while ((len = getline(&line, &cap, stdin)) >= 0) {
		char *f[MAX_FIELDS];
		size_t fl[MAX_FIELDS], nf = 0;
		char *save = NULL;
		RR_AUTO_STRBUF struct rr_strbuf out = RR_STRBUF_INIT;
		rr_error err = RR_ERROR_INIT;

		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		for (char *t = strtok_r(line, " ", &save); t && nf < MAX_FIELDS;
		     t = strtok_r(NULL, " ", &save)) {
			f[nf] = t;
			fl[nf++] = decode(t);
		}
		if (nf == 0) {
			puts("BADQUERY");
			continue;
		}
		if (!strcmp(f[0], "E") && nf == 1 + RR_MVAR__MAX) {
			for (int v = 0; v < RR_MVAR__MAX; v++) {
				free(env_store[v]);
				env_store[v] = NULL;
				if (!(fl[v + 1] == 1 && f[v + 1][0] == '\0'))
					env_store[v] = rr_xstrdup(f[v + 1]);
				env.vars[v] = env_store[v];
			}
			rr_strbuf_adds(&out, "OK");
		} else if (!strcmp(f[0], "M") && nf == 2) {
			struct rr_marker *m;
			if (rr_marker_parse(f[1], fl[1], &m, &err)) {
				rr_strbuf_addf(&out, "P %u", err.col);
			} else {
				RR_AUTO_STRBUF struct rr_strbuf s = RR_STRBUF_INIT;
				bool yes;
				rr_marker_format(m, &s);
				put(&out, s.buf, s.len);
				if (rr_marker_eval(m, &env, &yes, &err))
					rr_strbuf_adds(&out, " E");
				else
					rr_strbuf_adds(&out, yes ? " 1" : " 0");
				rr_marker_free(m);
			}
		} else if (!strcmp(f[0], "R") && nf == 3) {
			struct rr_requirement r = RR_REQUIREMENT_INIT;
			if (rr_requirement_parse_n(f[1], fl[1], &r, &err)) {
				rr_strbuf_addf(&out, "P %u", err.col);
			} else {
				RR_AUTO_STRBUF struct rr_strbuf s = RR_STRBUF_INIT;
				const char *ex[MAX_FIELDS];
				size_t nex = 0;
				char *sv = NULL;
				bool yes;
				if (strcmp(f[2], "-") != 0)
					for (char *t = strtok_r(f[2], ",", &sv); t && nex < MAX_FIELDS;
					     t = strtok_r(NULL, ",", &sv))
						ex[nex++] = t;
				rr_requirement_format(&r, &s);
				put(&out, s.buf, s.len);
				rr_strbuf_addch(&out, ' ');
				put(&out, r.name, strlen(r.name));
				rr_strbuf_addch(&out, ' ');
				if (r.url)
					put(&out, r.url, strlen(r.url));
				else
					rr_strbuf_addch(&out, '-');
				if (rr_requirement_applies(&r, &env, ex, nex, &yes, &err))
					rr_strbuf_adds(&out, " E");
				else
					rr_strbuf_adds(&out, yes ? " 1" : " 0");
				rr_requirement_release(&r);
			}
		} else {
			rr_strbuf_adds(&out, "BADQUERY");
		}
		rr_error_release(&err);
		puts(out.buf);
	}
	for (int v = 0; v < RR_MVAR__MAX; v++)
		free(env_store[v]);
	free(line);
	return 0;
}

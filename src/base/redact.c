/*
 * redact.c - the one place that finds a URL's userinfo ("user:password@"), and what is
 * built on it: redacting it for messages, stripping it for a plan, splitting it off for
 * the transfer.
 */
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

const char *rr_url_userinfo(const char *text, const char **ret_start, const char **ret_at)
{
	const char *sep = strstr(text, "://");
	const char *at = NULL;
	const char *q;

	if (!sep)
		return NULL;
	q = sep + 3;
	for (const char *r = q; *r && !strchr("/?# \t\r\n\"'", *r); r++)
		if (*r == '@')
			at = r;
	*ret_start = q;
	*ret_at = at;
	return sep;
}

bool rr_url_only_variables(const char *s, const char *end)
{
	if (s == end)
		return false;
	while (s < end) {
		if (s[0] == '$' && s + 1 < end && s[1] == '{') {
			const char *close = memchr(s, '}', (size_t)(end - s));
			if (!close)
				return false;
			s = close + 1;
		} else if (*s == ':') {
			s++;
		} else {
			return false;
		}
	}
	return true;
}

/*
 * a userinfo the installers fill in themselves: ${VAR} references only, or a literal
 * user name before a password that is ${VAR} references only ("__token__:${TOKEN}")
 */
static bool secret_is_variable(const char *s, const char *end)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));

	if (rr_url_only_variables(s, end))
		return true;
	return colon && colon > s && rr_url_only_variables(colon + 1, end) &&
	       !memchr(s, '$', (size_t)(colon - s));
}

enum rewrite { REDACT, REDACT_PASSWORD, STRIP };

static char *rewrite_userinfo(const char *text, enum rewrite how, bool *removed)
{
	struct rr_strbuf out = RR_STRBUF_INIT;
	const char *p = text;

	if (removed)
		*removed = false;
	for (;;) {
		const char *q;
		const char *at;
		const char *colon;

		if (!rr_url_userinfo(p, &q, &at)) {
			rr_strbuf_adds(&out, p);
			break;
		}
		rr_strbuf_add(&out, p, (size_t)(q - p));
		if (!at || at == q || secret_is_variable(q, at)) {
			p = q;
			continue;
		}
		if (removed)
			*removed = true;
		switch (how) {
		case STRIP:
			p = at + 1;
			break;
		case REDACT_PASSWORD:
			/* pip's redact_auth_from_url: the user stays, the password goes */
			colon = memchr(q, ':', (size_t)(at - q));
			if (colon)
				rr_strbuf_add(&out, q, (size_t)(colon - q));
			rr_strbuf_adds(&out, colon ? ":****" : "****");
			p = at;
			break;
		default:
			rr_strbuf_adds(&out, "***");
			p = at;
			break;
		}
	}
	return rr_strbuf_detach(&out, NULL);
}

char *rr_redact_credentials(const char *text)
{
	return rewrite_userinfo(text, REDACT, NULL);
}

char *rr_redact_password(const char *text)
{
	return rewrite_userinfo(text, REDACT_PASSWORD, NULL);
}

char *rr_strip_credentials(const char *text, bool *removed)
{
	return rewrite_userinfo(text, STRIP, removed);
}

static void add_decoded(struct rr_strbuf *sb, const char *s, const char *end)
{
	for (; s < end; s++) {
		int hi, lo;
		if (*s == '%' && end - s > 2 && (hi = rr_hex_digit(s[1])) >= 0 &&
		    (lo = rr_hex_digit(s[2])) >= 0) {
			rr_strbuf_addch(sb, (char)(hi * 16 + lo));
			s += 2;
		} else {
			rr_strbuf_addch(sb, *s);
		}
	}
}

void rr_url_split_userinfo(const char *url, char **ret_url, char **ret_userpwd)
{
	const char *q;
	const char *at = NULL;

	if (!rr_url_userinfo(url, &q, &at) || !at || at == q) {
		if (ret_url)
			*ret_url = rr_xstrdup(url);
		if (ret_userpwd)
			*ret_userpwd = NULL;
		return;
	}
	if (ret_url)
		*ret_url = rr_xasprintf("%.*s%s", (int)(q - url), url, at + 1);
	if (ret_userpwd) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		const char *colon = memchr(q, ':', (size_t)(at - q));
		add_decoded(&sb, q, colon ? colon : at);
		rr_strbuf_addch(&sb, ':');
		if (colon)
			add_decoded(&sb, colon + 1, at);
		*ret_userpwd = rr_strbuf_detach(&sb, NULL);
	}
}

#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

/* userinfo made only of ${VAR} references (and ':'): the installers expand those themselves */
static bool only_variables(const char *s, const char *end)
{
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
 * a URL's userinfo sits between "://" and the last '@' that comes before any
 * '/', '?', '#' or whitespace; anything else is left as it is. strip: remove it
 * (keeping userinfo made only of ${VAR}), else replace it with "***"
 */
static char *rewrite_userinfo(const char *text, bool strip, bool *removed)
{
	struct rr_strbuf out = RR_STRBUF_INIT;
	const char *p = text;

	if (removed)
		*removed = false;
	for (;;) {
		const char *sep = strstr(p, "://");
		const char *q;
		const char *at = NULL;

		if (!sep) {
			rr_strbuf_adds(&out, p);
			break;
		}
		q = sep + 3;
		for (const char *r = q; *r && !strchr("/?# \t\r\n\"'", *r); r++)
			if (*r == '@')
				at = r;
		rr_strbuf_add(&out, p, (size_t)(q - p));
		if (!at || at == q || (strip && only_variables(q, at))) {
			p = q;
			continue;
		}
		if (removed)
			*removed = true;
		if (strip) {
			p = at + 1;
		} else {
			rr_strbuf_adds(&out, "***");
			p = at;
		}
	}
	return rr_strbuf_detach(&out, NULL);
}

char *rr_redact_credentials(const char *text)
{
	return rewrite_userinfo(text, false, NULL);
}

char *rr_strip_credentials(const char *text, bool *removed)
{
	return rewrite_userinfo(text, true, removed);
}

#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/util.h"

/*
 * a URL's userinfo sits between "://" and the first '@' that comes before any
 * '/', '?', '#' or whitespace; anything else is left as it is
 */
char *rr_redact_credentials(const char *text)
{
	struct rr_strbuf out = RR_STRBUF_INIT;
	const char *p = text;

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
		if (at && at > q) {
			rr_strbuf_add(&out, p, (size_t)(q - p));
			rr_strbuf_adds(&out, "***");
			p = at;
		} else {
			rr_strbuf_add(&out, p, (size_t)(q - p));
			p = q;
		}
	}
	return rr_strbuf_detach(&out, NULL);
}

/*
 * fuzz-marker - parse arbitrary bytes as a marker; when that works, format
 * it, parse the formatted text again and require the same text and the same
 * evaluation. The printed text is not always reparseable (a value holding
 * both quote characters, which only an escape can give, is printed between
 * double quotes), so a failed reparse is allowed; a successful one must
 * reach a fixed point.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/marker.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_marker *m, *m2, *c;
	struct rr_strbuf s1 = RR_STRBUF_INIT, s2 = RR_STRBUF_INIT;
	struct rr_marker_env env;
	rr_error err = RR_ERROR_INIT;
	bool y1 = false, y2 = false;
	rr_err e1, e2;

	if (rr_marker_parse((const char *)data, size, &m, &err)) {
		if (err.code == RR_E_PARSE && (err.col < 1 || err.col > size + 1))
			abort(); /* the column must point into the input or just past it */
		rr_error_release(&err);
		return 0;
	}
	rr_marker_env_init(&env);
	env.vars[RR_MVAR_EXTRA] = "Foo_Bar";
	rr_marker_format(m, &s1);
	e1 = rr_marker_eval(m, &env, &y1, NULL);
	c = rr_marker_clone(m);
	rr_marker_format(c, &s2);
	if (strcmp(s1.buf, s2.buf) != 0)
		abort();
	rr_marker_free(c);
	rr_strbuf_reset(&s2);
	/*
	 * str() prints values raw, so backslashes are re-read as escapes on
	 * reparse (as in packaging); only backslash-free text must be stable
	 */
	if (!memchr(s1.buf, '\\', s1.len) && rr_marker_parse(s1.buf, s1.len, &m2, NULL) == RR_OK) {
		rr_marker_format(m2, &s2);
		/*
		 * reparsing may change the text only where packaging's printing is
		 * lossy: "(a) and ((b or c))" loses the double parentheses, and
		 * values are re-read as escapes; compare a second round instead
		 */
		{
			struct rr_marker *m3;
			struct rr_strbuf s3 = RR_STRBUF_INIT;
			if (rr_marker_parse(s2.buf, s2.len, &m3, NULL) != RR_OK)
				abort();
			rr_marker_format(m3, &s3);
			if (strcmp(s2.buf, s3.buf) != 0)
				abort();
			rr_marker_free(m3);
			rr_strbuf_release(&s3);
		}
		/*
		 * a value holding both quote characters is printed between
		 * double quotes, so the printed text may read back as another
		 * tree that prints the same; only an escape gives such a value
		 */
		if (strcmp(s1.buf, s2.buf) == 0 && !memchr(data, '\\', size)) {
			e2 = rr_marker_eval(m2, &env, &y2, NULL);
			if (e1 != e2 || (e1 == RR_OK && y1 != y2))
				abort();
		}
		rr_marker_free(m2);
	}
	rr_strbuf_release(&s1);
	rr_strbuf_release(&s2);
	rr_marker_free(m);
	return 0;
}

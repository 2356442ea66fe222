/*
 * fuzz-specifier - rr_specset_parse_n on arbitrary bytes must fail cleanly or
 * give a set whose formatted text parses back to a set with the same text
 * and the same answers. The input's first line is the set; later lines are
 * versions to test against both sets under every pre-release policy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/specifier.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);
	size_t n = nl ? (size_t)(nl - s) : size;
	struct rr_specset set;
	struct rr_specset again;
	struct rr_strbuf a = RR_STRBUF_INIT;
	struct rr_strbuf b = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;

	if (rr_specset_parse_n(s, n, &set, &err) != RR_OK) {
		if (!err.msg || (err.code == RR_E_PARSE && (err.col < 1 || err.col > n + 1)))
			abort();
		rr_error_release(&err);
		return 0;
	}
	rr_specset_format(&set, &a);
	if (memchr(a.buf, '\0', a.len) == NULL) {
		if (rr_specset_parse_n(a.buf, a.len, &again, NULL) != RR_OK)
			abort();
		rr_specset_format(&again, &b);
		if (strcmp(a.buf, b.buf) != 0 || again.n != set.n)
			abort();
	} else {
		rr_specset_copy(&again, &set);
	}
	while (nl) {
		const char *line = nl + 1;
		size_t left = size - (size_t)(line - s);
		struct rr_version v;
		nl = memchr(line, '\n', left);
		if (rr_version_parse_n(line, nl ? (size_t)(nl - line) : left, &v, NULL) != RR_OK)
			continue;
		for (int p = RR_PRE_POLICY_DEFAULT; p <= RR_PRE_POLICY_DENY; p++)
			if (rr_specset_contains(&set, &v, p) != rr_specset_contains(&again, &v, p))
				abort();
		/* allowing pre-releases never removes a version */
		if (rr_specset_contains(&set, &v, RR_PRE_POLICY_DEFAULT) &&
		    !rr_specset_contains(&set, &v, RR_PRE_POLICY_ALLOW))
			abort();
		rr_version_release(&v);
	}
	rr_specset_release(&again);
	rr_specset_release(&set);
	rr_strbuf_release(&a);
	rr_strbuf_release(&b);
	return 0;
}

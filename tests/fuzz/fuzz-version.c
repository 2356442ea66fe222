/*
 * fuzz-version - rr_version_parse_n on arbitrary bytes must either fail
 * cleanly or give a version whose normalised form parses back to an equal
 * version with the same normalised form (str(Version(str(v))) == str(v)).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_version v;
	struct rr_version w;
	struct rr_strbuf a = RR_STRBUF_INIT;
	struct rr_strbuf b = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;

	if (rr_version_parse_n((const char *)data, size, &v, &err) != RR_OK) {
		/* a failure always says why and where */
		if (!err.msg || (err.code == RR_E_PARSE && (err.col < 1 || err.col > size + 1)))
			abort();
		rr_error_release(&err);
		return 0;
	}
	rr_version_format(&v, &a);
	if (rr_version_parse_n(a.buf, a.len, &w, NULL) != RR_OK)
		abort();
	rr_version_format(&w, &b);
	if (strcmp(a.buf, b.buf) != 0 || rr_version_cmp(&v, &w) != 0 ||
	    rr_version_cmp(&w, &v) != 0)
		abort();
	/* the public part sorts at or below the full version */
	rr_strbuf_reset(&b);
	rr_version_format_public(&v, &b);
	rr_version_release(&w);
	if (rr_version_parse_n(b.buf, b.len, &w, NULL) != RR_OK || rr_version_cmp(&w, &v) > 0 ||
	    rr_version_cmp_public(&w, &v) != 0)
		abort();
	rr_version_release(&w);
	rr_version_release(&v);
	rr_strbuf_release(&a);
	rr_strbuf_release(&b);
	return 0;
}

/*
 * fuzz-requirement - parse arbitrary bytes as a PEP 508 requirement; when
 * that works, str() it, copy it, and check that the formatted text formats
 * the same way after a second parse round (format is a fixed point).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/requirement.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_requirement r = RR_REQUIREMENT_INIT, c, r2 = RR_REQUIREMENT_INIT,
			      r3 = RR_REQUIREMENT_INIT;
	struct rr_marker_env env;
	rr_error err = RR_ERROR_INIT;
	const char *extras[] = {"gpu", "Foo_Bar"};
	char *s1, *s2, *s3;
	bool yes;

	if (rr_requirement_parse_n((const char *)data, size, &r, &err)) {
		if (err.code == RR_E_PARSE && (err.col < 1 || err.col > size + 1))
			abort();
		rr_error_release(&err);
		return 0;
	}
	rr_marker_env_init(&env);
	(void)rr_requirement_applies(&r, &env, extras, 2, &yes, NULL);
	s1 = rr_requirement_to_string(&r);
	rr_requirement_copy(&c, &r);
	s2 = rr_requirement_to_string(&c);
	if (strcmp(s1, s2) != 0)
		abort();
	free(s2);
	/* backslashes in marker values are re-read as escapes: no fixed point */
	if (!memchr(data, '\0', size) && !strchr(s1, '\\') &&
	    rr_requirement_parse(s1, &r2, NULL) == RR_OK) {
		s2 = rr_requirement_to_string(&r2);
		if (rr_requirement_parse(s2, &r3, NULL) != RR_OK)
			abort();
		s3 = rr_requirement_to_string(&r3);
		if (strcmp(s2, s3) != 0)
			abort();
		free(s2);
		free(s3);
	}
	free(s1);
	rr_requirement_release(&c);
	rr_requirement_release(&r2);
	rr_requirement_release(&r3);
	rr_requirement_release(&r);
	return 0;
}

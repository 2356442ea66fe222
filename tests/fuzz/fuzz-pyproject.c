/*
 * libFuzzer: pyproject.toml from memory (toml++ behind the C API); all extras, one
 * group. The same bytes as an sdist's pyproject.toml read as core metadata: where that
 * succeeds, the text it makes must read back as metadata, with every Requires-Dist a
 * PEP 508 line
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/metadata.h"
#include "rocm-resolve/reqfile.h"
#include "rocm-resolve/requirement.h"
#include "rocm-resolve/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void core_metadata(const uint8_t *data, size_t size)
{
	struct rr_strbuf md = RR_STRBUF_INIT;
	struct rr_metadata m = RR_METADATA_INIT;
	rr_error err = RR_ERROR_INIT;
	size_t lines = 0;

	if (rr_pyproject_core_metadata("x-1.0.tar.gz/pyproject.toml", (const char *)data, size,
				       "1.0", NULL, &md, &err)) {
		if (!err.msg)
			abort();
		rr_error_release(&err);
		return;
	}
	for (const char *p = md.buf; (p = strstr(p, "\nRequires-Dist: ")); p++)
		lines++;
	if (rr_metadata_parse(md.buf, md.len, "core metadata", &m, &err) ||
	    m.nrequires_dist != lines)
		abort();
	for (size_t i = 0; i < m.nrequires_dist; i++) {
		struct rr_requirement r = {0};
		if (rr_requirement_parse(m.requires_dist[i], &r, &err))
			abort();
		rr_requirement_release(&r);
	}
	rr_metadata_release(&m);
	rr_strbuf_release(&md);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_reqset set = RR_REQSET_INIT;
	rr_error err = RR_ERROR_INIT;
	const char *groups[] = {"dev"};
	struct rr_input_sel sel = {.all_extras = true, .groups = groups, .ngroups = size & 1};
	rr_err rc = rr_pyproject_parse(&set, "pyproject.toml", (const char *)data, size, &sel, &err);

	if (rc) {
		struct rr_strbuf sb = RR_STRBUF_INIT;
		if (!err.msg)
			abort();
		rr_error_format(&err, &sb);
		rr_strbuf_release(&sb);
	}
	rr_error_release(&err);
	rr_reqset_release(&set);
	core_metadata(data, size);
	return 0;
}

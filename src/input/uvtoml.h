/*
 * uvtoml.h - (private to src/input) the settings of a uv.toml, or of a
 * pyproject.toml's [tool.uv] table, that say where uv looks for packages.
 * uvtoml.cc reads them with toml++; config.c merges them.
 */
#ifndef RR_INPUT_UVTOML_H
#define RR_INPUT_UVTOML_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

enum rr_uvkey {
	RR_UVK_INDEX,	      /* [[index]] url, neither default nor explicit, in order */
	RR_UVK_INDEX_DEFAULT, /* [[index]] url with default = true */
	RR_UVK_INDEX_URL,
	RR_UVK_EXTRA_INDEX_URL,
	RR_UVK_FIND_LINKS,
	RR_UVK_NO_INDEX, /* "true" / "false" */
	RR_UVK_OFFLINE,
	RR_UVK_PIP_INDEX_URL, /* the same keys in the [pip] table */
	RR_UVK_PIP_EXTRA_INDEX_URL,
	RR_UVK_PIP_FIND_LINKS,
	RR_UVK_PIP_NO_INDEX,
	RR_UVK__COUNT
};

struct rr_uvtoml {
	bool found; /* a pyproject.toml with a [tool.uv] table (a uv.toml always) */
	struct {
		char **v;
		unsigned *line;
		size_t n;
	} key[RR_UVK__COUNT];
};

/* parse text as path; pyproject: read its [tool.uv] table. On failure out holds what was read */
rr_err rr_uvtoml_parse(const char *path, const char *text, size_t len, bool pyproject,
		       struct rr_uvtoml *out, rr_error *err) RR_WUR;
void rr_uvtoml_release(struct rr_uvtoml *t);

#endif

/*
 * requirement.h - PEP 508 dependency specifications.
 *
 * struct rr_requirement r = RR_REQUIREMENT_INIT;
 * rc = rr_requirement_parse("torch[opt-einsum]>=2.4; python_version>'3.8'", &r, err);
 * ... rr_requirement_release(&r);
 *
 * Accepts exactly what packaging.requirements.Requirement accepts: name,
 * optional [extras], then either a version specifier (bare or parenthesised)
 * or "@ URL", then an optional "; marker". On failure err carries a 1-based
 * column relative to the start of s and a message naming what was expected.
 */
#ifndef RR_REQUIREMENT_H
#define RR_REQUIREMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/marker.h"
#include "rocm-resolve/specifier.h"

struct rr_strbuf;

struct rr_requirement {
	char *name;	/* owned, as written */
	char *key;	/* owned, PEP 503-normalised name */
	char **extras;	/* owned, as written, in input order, duplicates removed */
	size_t nextras;
	struct rr_specset spec; /* empty when none */
	char *url;		/* owned, NULL unless "name @ url" */
	struct rr_marker *marker; /* owned, NULL when none */
};

#define RR_REQUIREMENT_INIT {NULL, NULL, NULL, 0, RR_SPECSET_INIT, NULL, NULL}

rr_err rr_requirement_parse(const char *s, struct rr_requirement *ret, rr_error *err) RR_WUR;
rr_err rr_requirement_parse_n(const char *s, size_t len, struct rr_requirement *ret,
			      rr_error *err) RR_WUR;
void rr_requirement_release(struct rr_requirement *r);
void rr_requirement_copy(struct rr_requirement *dst, const struct rr_requirement *src);
/* as str(packaging.requirements.Requirement(...)): extras sorted, specifiers, url, marker */
void rr_requirement_format(const struct rr_requirement *r, struct rr_strbuf *out);
char *rr_requirement_to_string(const struct rr_requirement *r);
/* true when the requirement's marker (if any) holds in env for any of the given extras ("" = none) */
rr_err rr_requirement_applies(const struct rr_requirement *r, const struct rr_marker_env *env,
			      const char *const *extras, size_t nextras, bool *ret,
			      rr_error *err) RR_WUR;

#endif

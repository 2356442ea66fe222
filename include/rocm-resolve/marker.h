/*
 * marker.h - PEP 508 environment markers: parse, format, evaluate.
 *
 * struct rr_marker *m; rc = rr_marker_parse("python_version >= '3.9' and extra == 'gpu'",
 *                                           SIZE_MAX, &m, err);
 * struct rr_marker_env env; rr_marker_env_init(&env); env.vars[RR_MVAR_EXTRA] = "gpu";
 * bool yes; rc = rr_marker_eval(m, &env, &yes, err); m = rr_marker_free(m);
 *
 * Grammar and evaluation follow packaging.markers (the differential
 * reference): the full variable list including the legacy dotted names
 * (os.name, sys.platform, platform.version, platform.machine,
 * platform.python_implementation, python_implementation), string literals in
 * either quote, `in` / `not in`, version comparison whenever the right-hand
 * side parses as a specifier (otherwise string comparison), and extra values
 * compared after PEP 685 normalisation. Formatting matches str(Marker).
 */
#ifndef RR_MARKER_H
#define RR_MARKER_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_strbuf;

enum rr_marker_var {
	RR_MVAR_OS_NAME,
	RR_MVAR_SYS_PLATFORM,
	RR_MVAR_PLATFORM_MACHINE,
	RR_MVAR_PLATFORM_PYTHON_IMPLEMENTATION,
	RR_MVAR_PLATFORM_RELEASE,
	RR_MVAR_PLATFORM_SYSTEM,
	RR_MVAR_PLATFORM_VERSION,
	RR_MVAR_PYTHON_VERSION,
	RR_MVAR_PYTHON_FULL_VERSION,
	RR_MVAR_IMPLEMENTATION_NAME,
	RR_MVAR_IMPLEMENTATION_VERSION,
	RR_MVAR_EXTRA,
	RR_MVAR__MAX
};

/* values are borrowed; NULL means "not defined" (evaluating it is an error) */
struct rr_marker_env {
	const char *vars[RR_MVAR__MAX];
};

struct rr_marker; /* opaque expression tree */

/* defaults for CPython 3.12.3 on x86_64 Linux with extra = "" */
void rr_marker_env_init(struct rr_marker_env *env);
/* set python_version / python_full_version / implementation_version from "3.12.3" (borrowed) */
void rr_marker_env_set_python(struct rr_marker_env *env, const char *full_version,
			      char short_buf[16]);
const char *rr_marker_var_to_string(enum rr_marker_var v);

/* parse len bytes of s (SIZE_MAX: up to NUL); error column relative to s */
rr_err rr_marker_parse(const char *s, size_t len, struct rr_marker **ret, rr_error *err) RR_WUR;
rr_err rr_marker_eval(const struct rr_marker *m, const struct rr_marker_env *env, bool *ret,
		      rr_error *err) RR_WUR;
/* true if the expression refers to the `extra` variable anywhere */
bool rr_marker_uses_extra(const struct rr_marker *m);
/* as str(packaging.markers.Marker(...)) */
void rr_marker_format(const struct rr_marker *m, struct rr_strbuf *out);
struct rr_marker *rr_marker_clone(const struct rr_marker *m);
struct rr_marker *rr_marker_free(struct rr_marker *m);

#endif

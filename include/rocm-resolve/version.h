/*
 * version.h - PEP 440 versions: parse, normalise, compare, classify.
 *
 * struct rr_version v; rc = rr_version_parse("2.9.1+rocm7.2.0.lw.git7e1940d4", &v, err);
 * ... rr_version_cmp(&a, &b) ... rr_version_release(&v);
 *
 * Parsing accepts everything packaging.version.Version accepts (leading 'v',
 * case, '-' '_' '.' separators, implicit post releases "1.0-1", spelled-out
 * pre-release words, surrounding whitespace) and rejects the rest with
 * RR_E_PARSE and a column. Ordering is PEP 440's total order, including local
 * labels (a version with a local label sorts after the same public version;
 * numeric local segments sort after alphanumeric ones).
 * Numbers that do not fit in uint64_t are rejected with RR_E_LIMIT.
 */
#ifndef RR_VERSION_H
#define RR_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocm-resolve/error.h"

struct rr_strbuf;

enum rr_pre_kind { RR_PRE_NONE = 0, RR_PRE_A, RR_PRE_B, RR_PRE_RC };

struct rr_version {
	uint64_t epoch;
	uint64_t *release; /* owned, nrelease >= 1 */
	size_t nrelease;
	enum rr_pre_kind pre;
	uint64_t pre_n;
	bool has_post;
	uint64_t post;
	bool has_dev;
	uint64_t dev;
	char *local; /* owned, normalised ("rocm7.2.0.lw.git7e1940d4"), NULL if none */
};

#define RR_VERSION_INIT {0, NULL, 0, RR_PRE_NONE, 0, false, 0, false, 0, NULL}

rr_err rr_version_parse(const char *s, struct rr_version *ret, rr_error *err) RR_WUR;
rr_err rr_version_parse_n(const char *s, size_t len, struct rr_version *ret,
			  rr_error *err) RR_WUR;
void rr_version_release(struct rr_version *v);
void rr_version_copy(struct rr_version *dst, const struct rr_version *src);
/* three-way compare in PEP 440 order (local labels included) */
int rr_version_cmp(const struct rr_version *a, const struct rr_version *b);
/* compare ignoring both local labels */
int rr_version_cmp_public(const struct rr_version *a, const struct rr_version *b);
/* normalised form, as str(packaging.version.Version(s)) */
void rr_version_format(const struct rr_version *v, struct rr_strbuf *out);
char *rr_version_to_string(const struct rr_version *v);
/* public part only (no "+local") */
void rr_version_format_public(const struct rr_version *v, struct rr_strbuf *out);
bool rr_version_is_prerelease(const struct rr_version *v); /* pre or dev */
bool rr_version_is_postrelease(const struct rr_version *v);
bool rr_version_is_devrelease(const struct rr_version *v);

#endif

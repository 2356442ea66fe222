/*
 * specifier.h - PEP 440 version specifiers and specifier sets.
 *
 * struct rr_specset set; rr_specset_parse(">=2.0,!=2.1.*", &set, err);
 * rr_specset_contains(&set, &v, RR_PRE_POLICY_DEFAULT); rr_specset_release(&set);
 *
 * Semantics follow packaging.specifiers (the reference the differential tests
 * use): ==/!= with and without ".*", ~=, <, <=, >, >=, === (string compare,
 * case-insensitive), local-label rules (a specifier without a local label
 * ignores the candidate's local label for == / != / ~=; "<V"/">V" exclude
 * pre/post/local versions of V as PEP 440 says). Pre-release handling mirrors
 * SpecifierSet.contains(version, prereleases=...).
 */
#ifndef RR_SPECIFIER_H
#define RR_SPECIFIER_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/version.h"

struct rr_strbuf;

enum rr_spec_op {
	RR_OP_EQ,     /* == */
	RR_OP_NE,     /* != */
	RR_OP_LT,     /* < */
	RR_OP_LE,     /* <= */
	RR_OP_GT,     /* > */
	RR_OP_GE,     /* >= */
	RR_OP_COMPAT, /* ~= */
	RR_OP_ARB,    /* === */
};

struct rr_spec {
	enum rr_spec_op op;
	bool wildcard;	   /* "==1.2.*" or "!=1.2.*" */
	char *text;	   /* owned: the version part as written (trimmed) */
	size_t text_len;   /* its length: === text may hold NUL bytes, which never match */
	struct rr_version ver; /* parsed version (prefix for wildcards); unset for === */
	/* derived at parse time (added by pep-a; read-only for callers) */
	bool prereleases;	   /* packaging's Specifier.prereleases: names a pre-release */
	struct rr_version prefix; /* ~= only: V where packaging tests "==V.*"; else unset */
};

struct rr_specset {
	struct rr_spec *items; /* owned */
	size_t n;
	size_t cap;
};

#define RR_SPECSET_INIT {NULL, 0, 0}

enum rr_pre_policy {
	RR_PRE_POLICY_DEFAULT, /* as packaging with prereleases=None */
	RR_PRE_POLICY_ALLOW,   /* prereleases=True */
	RR_PRE_POLICY_DENY,    /* prereleases=False */
};

rr_err rr_spec_parse(const char *s, size_t len, struct rr_spec *ret, rr_error *err) RR_WUR;
void rr_spec_release(struct rr_spec *sp);
/* comma-separated set; empty string gives an empty set (matches everything) */
rr_err rr_specset_parse(const char *s, struct rr_specset *ret, rr_error *err) RR_WUR;
rr_err rr_specset_parse_n(const char *s, size_t len, struct rr_specset *ret,
			  rr_error *err) RR_WUR;
void rr_specset_release(struct rr_specset *set);
void rr_specset_copy(struct rr_specset *dst, const struct rr_specset *src);
/* intersection: appends copies of b's items to a */
void rr_specset_add_all(struct rr_specset *a, const struct rr_specset *b);
/* single specifier test, ignoring pre-release policy (packaging's Specifier.contains(prereleases=True)) */
bool rr_spec_match(const struct rr_spec *sp, const struct rr_version *v);
bool rr_specset_contains(const struct rr_specset *set, const struct rr_version *v,
			 enum rr_pre_policy pre);
/*
 * the lower bounds of the set only (>=, >, and the lower end X of ==X, ==X.* and
 * ~=X); <, <=, != and === are ignored: how uv reads Requires-Python
 */
bool rr_specset_contains_lower(const struct rr_specset *set, const struct rr_version *v);
/*
 * Requires-Python, the one rule every reader of it follows: does text admit the
 * interpreter version python? As the spec and pip read it, or (lower_only) as uv does,
 * upper bounds ignored. NULL admits everything; a text that does not parse admits
 * nothing (pip skips such files): RR_PYTHON_INVALID
 */
enum rr_python_verdict { RR_PYTHON_ADMITS, RR_PYTHON_EXCLUDES, RR_PYTHON_INVALID };
enum rr_python_verdict rr_requires_python(const char *text, const struct rr_version *python,
					  bool lower_only);
/* true when any specifier names a pre-release explicitly (SpecifierSet.prereleases) */
bool rr_specset_mentions_prerelease(const struct rr_specset *set);
/* normalised text: items in input order joined with ",", as written */
void rr_specset_format(const struct rr_specset *set, struct rr_strbuf *out);
const char *rr_spec_op_to_string(enum rr_spec_op op);
/*
 * if the set pins one exact version ("==X" without wildcard, or "===X"),
 * return that specifier; else NULL. Exactly one such item must be present;
 * other items ("torch>=2,==2.9.1") may narrow the set further, even to
 * nothing, so callers still test candidates with rr_specset_contains().
 */
const struct rr_spec *rr_specset_exact(const struct rr_specset *set);

#endif

/*
 * policy.h - classification rules from data/policy.json (PCRE2 patterns).
 *
 * struct rr_policy *pol;
 * rc = rr_policy_load_default(&pol, err);          the copy embedded at build time
 * rc = rr_policy_load_file(pol, "my-policy.json", err);   optional: extends/overrides
 * const char *why = rr_policy_match_cuda_only(pol, "nvidia-cublas-cu12");
 * pol = rr_policy_free(pol);
 *
 * A policy is a set of sections, each an ordered list of rules {id, pattern,
 * reason}; data/README.md documents every key. Patterns are PCRE2, compiled
 * case-insensitively, and are searched (not implicitly anchored: write ^...$).
 * Name sections match PEP 503-normalised names; URL sections match the URL;
 * rocm_version matches a version string as written.
 *
 * A user file with the same schema extends the default: a rule whose id already
 * exists in that section replaces it (in place), `"enabled": false` removes it,
 * new ids are appended. Errors are RR_E_PARSE/RR_E_DATA with file:line:col
 * (JSON syntax from Jansson; a bad pattern names the rule and the position of
 * the PCRE2 error inside the file). On error the policy keeps its earlier rules.
 *
 * The match functions return the matching rule's reason (borrowed, lives as long
 * as pol) or NULL; rr_policy_clash_group returns the group's id. A policy is
 * immutable after loading and may be shared between threads.
 */
#ifndef RR_POLICY_H
#define RR_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"

#define RR_POLICY_SCHEMA 1

#define RR_POLICY_SECTIONS(X)                                                                      \
	X(RR_POL_GPU_FAMILY, "gpu_family")                                                         \
	X(RR_POL_ROCM_VERSION, "rocm_version")                                                     \
	X(RR_POL_STOCK_LABEL, "stock_label")                                                       \
	X(RR_POL_ROCM_URL, "rocm_url")                                                             \
	X(RR_POL_CUDA_ONLY, "cuda_only")                                                           \
	X(RR_POL_NOT_CUDA_ONLY, "not_cuda_only")                                                   \
	X(RR_POL_CUDA_INDEX, "cuda_index")                                                         \
	X(RR_POL_CLASH_GROUP, "clash_groups")                                                      \
	X(RR_POL_TORCH_BUILD, "torch_build")                                                       \
	X(RR_POL_CUDA_LIBRARY, "cuda_library")                                                     \
	X(RR_POL_HIP_RUNTIME, "hip_runtime")                                                       \
	X(RR_POL_ROCM_COUNTERPART, "rocm_counterpart")

#define RR_POL_ENUM_(sym, str) sym,
enum rr_policy_section { RR_POLICY_SECTIONS(RR_POL_ENUM_) RR_POL__MAX };
#undef RR_POL_ENUM_

struct rr_policy;

struct rr_policy_rule {
	const char *id;
	const char *pattern;
	const char *reason;
	const char *module; /* clash_groups: the shared top-level import name, else NULL */
	const char *rocm;   /* torch_build: what to use on ROCm instead; rocm_counterpart: the
			     * ROCm builds ("a | b", "{major}", "{minor}": data/README.md) */
	const char *extra;  /* rocm_counterpart: the CUDA extra it applies to, else NULL */
	/* rocm_counterpart: its builds link the torch they were built against (libtorch.so,
	 * libc10_hip.so) and declare no torch requirement */
	bool torch_bound;
};

rr_err rr_policy_load_default(struct rr_policy **ret, rr_error *err) RR_WUR;
/* an empty policy (no rules), to be filled with rr_policy_load_* */
struct rr_policy *rr_policy_new(void);
rr_err rr_policy_load_file(struct rr_policy *pol, const char *path, rr_error *err) RR_WUR;
/* same from memory; origin names the input in errors */
rr_err rr_policy_load_buffer(struct rr_policy *pol, const char *data, size_t len,
			     const char *origin, rr_error *err) RR_WUR;
struct rr_policy *rr_policy_free(struct rr_policy *pol);

/* the first rule of section matching subject, or NULL */
const struct rr_policy_rule *rr_policy_match(const struct rr_policy *pol,
					     enum rr_policy_section section, const char *subject);
size_t rr_policy_count(const struct rr_policy *pol, enum rr_policy_section section);
const struct rr_policy_rule *rr_policy_rule_at(const struct rr_policy *pol,
					       enum rr_policy_section section, size_t i);
const char *rr_policy_section_to_string(enum rr_policy_section section);

/* key: PEP 503-normalised name */
const char *rr_policy_match_gpu_family(const struct rr_policy *pol, const char *key);
/* CUDA-only unless a not_cuda_only rule claims the name first (nvidia-ml-py) */
const char *rr_policy_match_cuda_only(const struct rr_policy *pol, const char *key);
const char *rr_policy_match_cuda_index(const struct rr_policy *pol, const char *url);
/* a ROCm build by its version ("2.9.1+rocm7.2.0.lw.git7e1940d4") */
const char *rr_policy_match_rocm_version(const struct rr_policy *pol, const char *version_text);
/* a local label that marks a stock upstream variant ("cpu", "cu128"), not a custom build */
const char *rr_policy_match_stock_label(const struct rr_policy *pol, const char *local);
const char *rr_policy_match_rocm_url(const struct rr_policy *pol, const char *url);
/* a project whose build needs the installed torch (flash-attn): its rule, else NULL */
const struct rr_policy_rule *rr_policy_match_torch_build(const struct rr_policy *pol,
							 const char *key);
/* a shared library name (DT_NEEDED, "libcudart.so.12"): a CUDA library's rule, else NULL */
const char *rr_policy_match_cuda_library(const struct rr_policy *pol, const char *soname);
/* the HIP runtime ("libamdhip64.so.7", whose number is its ROCm major): its rule, else NULL */
const char *rr_policy_match_hip_runtime(const struct rr_policy *pol, const char *soname);
/* key: the rocm_counterpart rule for a CUDA build's name (extra rules left out), else NULL */
const struct rr_policy_rule *rr_policy_match_counterpart(const struct rr_policy *pol,
							 const char *key);
/* "triton" for triton, pytorch-triton-rocm, triton-rocm, pytorch-triton */
const char *rr_policy_clash_group(const struct rr_policy *pol, const char *key);
struct rr_strv;
/*
 * every name the clash group's pattern spells out (^(a|b)$, ^x(-y)?$), appended to out
 * once each; false (out untouched) when the pattern is no finite alternation
 */
bool rr_policy_clash_members(const struct rr_policy *pol, const char *group, struct rr_strv *out);

#endif

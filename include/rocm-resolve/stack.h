/*
 * stack.h - the protected ROCm stack of an installed environment.
 *
 * struct rr_stack *s;
 * rc = rr_stack_compute(venv, policy, extra_protect, nextra, &s, err);
 * const struct rr_protected *p = rr_stack_lookup(s, "torch");   NULL: not protected
 * p = rr_stack_clash(s, policy, "triton");   protected owner of the same import package
 * s = rr_stack_free(s);
 *
 * A distribution is protected, each time with a human reason in `why`
 * (several reasons joined with "; "), when:
 *   - its version matches a rocm_version rule (a +rocm... local label);
 *   - it is torch and torch/version.py has `hip` set (source builds such as
 *     2.10.0+git8514f05 carry no label), unless torch itself is a stock
 *     (+cpu/+cuNNN) build;
 *   - its direct_url.json URL matches a rocm_url rule;
 *   - it is in the GPU family (policy gpu_family) and was installed from a direct
 *     URL, or carries a local label that is not a stock variant (+cpu, +cu128), or
 *     torch is a ROCm build (then the whole installed family is that build's stack);
 *   - the pip constraint in force (venv->constraints: PIP_CONSTRAINT, else
 *     /etc/pip/constraint.txt) pins it exactly at its installed version;
 *   - it is a GPU-family member of a clash group (the triton family) in the site of a
 *     protected torch, no other member of the group being installed: the build torch
 *     runs with, labelled or not (NGC's unlabelled triton next to its torch);
 *   - a protected distribution pins it exactly (Requires-Dist: triton==3.5.1+rocm...,
 *     marker true for the venv, no extra), and the installed version matches;
 *     followed transitively;
 *   - its name is in extra_protect (--protect; names are normalised here).
 * Warnings: --protect names that are not installed, exact pins of protected dists
 * (and pip constraints) that the installed version does not satisfy, and installed
 * dists that share a top-level import package (from RECORD), e.g. triton and
 * pytorch-triton-rocm.
 *
 * The stack borrows from the venv and the policy (dist, clash_group): free it
 * before them. Items are sorted by key.
 */
#ifndef RR_STACK_H
#define RR_STACK_H

#include <stddef.h>

#include "rocm-resolve/error.h"

struct rr_venv;
struct rr_dist;
struct rr_policy;

struct rr_protected {
	char *key, *name, *version, *why;
	const struct rr_dist *dist;
	const char *clash_group; /* policy clash group id, else a shared import name, else NULL */
};

/* installed dists that ship the same top-level import package */
struct rr_clash {
	char *module;
	char **keys; /* sorted */
	size_t nkeys;
};

struct rr_stack {
	struct rr_protected *items;
	size_t n;
	char **warnings;
	size_t nwarnings;
	struct rr_clash *clashes;
	size_t nclashes;
	char *rocm_torch; /* "torch 2.9.1+rocm..." when torch is a ROCm build, else NULL */
};

rr_err rr_stack_compute(const struct rr_venv *v, const struct rr_policy *pol,
			const char *const *extra_protect, size_t nextra, struct rr_stack **ret,
			rr_error *err) RR_WUR;
const struct rr_protected *rr_stack_lookup(const struct rr_stack *s, const char *key);
/*
 * the protected distribution, other than key itself, that installing key would
 * collide with: a member of key's policy clash group, a dist that shares an import
 * package with an installed key (RECORD), or one whose import package is named like
 * key ("functorch" -> torch ships functorch/); NULL when none
 */
const struct rr_protected *rr_stack_clash(const struct rr_stack *s, const struct rr_policy *pol,
					  const char *key);
/*
 * RR_E_ENV with a hint when s protects nothing: the environment is not the ROCm
 * one (an ordinary venv, a host without the container's), and a plan or check
 * against it would pass anything; commands that guard the stack call this
 */
rr_err rr_stack_require(const struct rr_stack *s, const struct rr_venv *v, rr_error *err) RR_WUR;
struct rr_stack *rr_stack_free(struct rr_stack *s);

#endif

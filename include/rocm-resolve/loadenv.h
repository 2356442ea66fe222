/*
 * loadenv.h - the load check's view of a live venv (rocm-resolve/loadcheck.h): which
 * distributions, the interpreter, `import torch` first, the runtime's ROCm major, and the
 * CUDA and HIP library names of the policy.
 *
 *   struct rr_loadenv e;
 *   rr_loadenv_init(&e, venv, policy, getenv("LD_LIBRARY_PATH"));
 *   e.dists[i].skip = ...;                   optional: report on some only
 *   rc = rr_loadcheck_run(&e.opts, &report, err);
 *   rr_loadenv_release(&e);
 *
 * Every distribution of the venv is in e.opts.dists (in v->dists' order, so index i is
 * v->dists[i]). The interpreter is <venv>/bin/python when it exists. When torch is
 * installed, the process the check models has imported it: torch/lib/libtorch_global_deps.so
 * with RTLD_GLOBAL, then torch/_C*.so, as torch/__init__.py does. A torch with `hip` set
 * makes a ROCm environment of that HIP major (the runtime ROCm major; where version.py
 * computes it, the +rocmN label of torch's version); CUDA libraries and another major's
 * HIP runtime are then problems. The strings are borrowed from the venv
 * and policy, which must outlive e.
 */
#ifndef RR_LOADENV_H
#define RR_LOADENV_H

#include "rocm-resolve/loadcheck.h"

struct rr_venv;
struct rr_policy;

struct rr_loadenv {
	struct rr_loadcheck_opts opts;
	struct rr_loadcheck_dist_in *dists; /* = opts.dists, writable */
	/* owned */
	struct rr_loadcheck_preload preload[2];
	char *interpreter, *global_deps, *torch_c, *runtime;
};

void rr_loadenv_init(struct rr_loadenv *e, const struct rr_venv *v, const struct rr_policy *pol,
		     const char *ld_library_path);
void rr_loadenv_release(struct rr_loadenv *e);
/* the classifier the options get: CUDA and HIP runtime names by the policy (ctx) */
enum rr_loadcheck_lib rr_loadenv_classify(void *pol, const char *soname, const char **why);

#endif

/*
 * verify.h - prove that the installed ROCm (or CUDA) stack still computes.
 *
 * Four stages, each with its own verdict:
 *   integrity  every file of every protected distribution matches its RECORD hash, and no
 *              other installed distribution ships the same top-level module;
 *   kernel     the HIP runtime torch would load (dlopen) compiles the embedded kernel with
 *              hiprtc for each visible device's architecture and runs it; results are checked
 *              exactly on the host with fresh random inputs. CUDA builds use NVRTC + libcuda;
 *   torch      the venv's python runs the embedded probe (torch on the device vs the CPU);
 *   load       every ELF shared object the distributions install loads (rocm-resolve/
 *              loadcheck.h: the loader's work on paper, no GPU), and none links CUDA or
 *              another ROCm major's HIP runtime in a ROCm environment.
 *
 * Usage:
 *   struct rr_verify_opts o = {.site_dirs = dirs, .nsite_dirs = 1, .python = py, ...};
 *   struct rr_verify_report *r;
 *   if (rr_verify_run(&o, &r, &err)) ...;            fails only on misuse (RR_E_USAGE)
 *   rr_verify_report_format_text(r, &sb);           or r->json for --format json
 *   int code = rr_verify_exit_code(r);
 *   rr_verify_report_free(r);
 *
 * Everything GPU-related is loaded with dlopen, so the binary runs on machines without ROCm
 * or CUDA; the kernel stage runs in a forked child under a time limit so that a hung runtime
 * cannot hang the caller. The report owns all of its strings.
 */
#ifndef RR_VERIFY_H
#define RR_VERIFY_H

#include <stdbool.h>
#include <stddef.h>

#include "rocm-resolve/error.h"
#include "rocm-resolve/loadcheck.h"
#include "rocm-resolve/strbuf.h"

enum rr_verdict { RR_VERDICT_PASS, RR_VERDICT_FAIL, RR_VERDICT_SKIP, RR_VERDICT_UNAVAILABLE };

struct rr_verify_stage {
	const char *name; /* "integrity" | "kernel" | "torch" | "load" (static) */
	enum rr_verdict verdict;
	char *summary; /* one line */
	char **details;
	size_t ndetails;
	char *advice; /* what to do next, or NULL */
};

struct rr_verify_report {
	struct rr_verify_stage stages[4];
	char *json; /* the whole report as JSON text (schema 3, data/verify.schema.json) */
};

struct rr_verify_dist {
	const char *name, *version, *dist_info_dir; /* a protected distribution */
};

struct rr_verify_opts {
	const char *venv;             /* the environment's root, for the report (NULL: unknown) */
	const char *const *site_dirs; /* site-packages to scan for RECORDs / clashes */
	size_t nsite_dirs;
	const struct rr_verify_dist *protected_dists;
	size_t nprotected;
	const char *python;        /* venv python for the torch probe (NULL: skip torch stage) */
	const char *torch_lib_dir; /* <site>/torch/lib, searched first for libamdhip64 */
	const char *rocm_path;     /* $ROCM_PATH or /opt/rocm (NULL: /opt/rocm) */
	const char *sysfs_root;    /* "/" normally (NULL: "/"); tests use fixtures/gpu/sysfs/<case> */
	const char *backend;       /* "auto" | "hip" | "cuda"; auto = cuda when torch_is_cuda */
	bool torch_is_cuda;
	int timeout_ms; /* per stage time limit (kernel launch and probe); 0 = 60000 */
	bool skip_integrity, skip_kernel, skip_torch, skip_load;
	/* the load stage's options (NULL: skipped, no environment to read) and, when it checks
	 * only some distributions, what they are ("the distributions the installer added or
	 * changed") */
	const struct rr_loadcheck_opts *load;
	const char *load_scope;
	/* search only torch_lib_dir and rocm_path, never /opt/rocm or the loader path (tests) */
	bool no_loader_path;
};

const char *rr_verdict_to_string(enum rr_verdict v); /* "PASS", "FAIL", "SKIP", "UNAVAILABLE" */

/* fails only for bad options (RR_E_USAGE); check failures are verdicts in the report */
rr_err rr_verify_run(const struct rr_verify_opts *o, struct rr_verify_report **ret, rr_error *err);
/* 0 all pass (skips allowed), 1 a check failed, 3 nothing to check on (no runtime/kfd/device) */
int rr_verify_exit_code(const struct rr_verify_report *r);
/* "integrity: PASS summary" lines, details indented, "advice:" lines */
void rr_verify_report_format_text(const struct rr_verify_report *r, struct rr_strbuf *out);
struct rr_verify_report *rr_verify_report_free(struct rr_verify_report *r);

#endif

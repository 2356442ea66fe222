/*
 * gpu.h - private interfaces of the verify module (src/gpu/ only).
 *
 * Each stage fills a struct rr_verify_stage through the rr_gpu_stage_* helpers; strings are
 * owned by the stage and released by rr_gpu_stage_release(). The kernel checks (hip.c, cuda.c)
 * run inside a forked child (rr_gpu_run_isolated) so that a hung or crashing runtime only
 * costs the child; they report progress with rr_gpu_progress() so a timeout can say where the
 * runtime hung.
 */
#ifndef RR_GPU_PRIVATE_H
#define RR_GPU_PRIVATE_H

#include <stdint.h>
#include <sys/types.h>

#include "rocm-resolve/verify.h"

/* stage helpers (verify.c) */
void rr_gpu_stage_set(struct rr_verify_stage *st, enum rr_verdict v, const char *fmt, ...)
	RR_PRINTF(3, 4);
void rr_gpu_stage_detail(struct rr_verify_stage *st, const char *fmt, ...) RR_PRINTF(2, 3);
void rr_gpu_stage_advice(struct rr_verify_stage *st, const char *fmt, ...) RR_PRINTF(2, 3);
/* add a multi-line text (a compiler log) as details, at most max lines */
void rr_gpu_stage_detail_lines(struct rr_verify_stage *st, const char *prefix, const char *text,
			       size_t max);
void rr_gpu_stage_release(struct rr_verify_stage *st);

/* integrity.c */
void rr_gpu_integrity(const struct rr_verify_opts *o, struct rr_verify_stage *st);

/* sysfs.c: KFD topology, no HIP needed */
struct rr_kfd_gpu {
	unsigned node;
	unsigned gfx_target_version;
	char arch[24]; /* "gfx942" */
};
bool rr_gpu_sysfs_has_kfd(const char *root);
/* GPU nodes (gfx_target_version != 0) in node order; returns the count, *ret owned */
size_t rr_gpu_sysfs_gpus(const char *root, struct rr_kfd_gpu **ret);
/* 90402 -> "gfx942", 90010 -> "gfx90a", 110501 -> "gfx1151"; false for 0 */
bool rr_gpu_gfx_from_target_version(unsigned v, char out[24]);

/* the kernel: the same text for hiprtc and NVRTC (kernels/rr_check.hip, embedded) */
#define RR_GPU_KERNEL_NAME "rr_check"
#define RR_GPU_KERNEL_N 4099u /* not a multiple of the block size: the bounds check matters */
#define RR_GPU_KERNEL_BLOCK 256u
const char *rr_gpu_kernel_source(void);
/* fresh inputs from the clock and pid, so a cached or constant answer cannot pass */
void rr_gpu_kernel_inputs(uint32_t *x, size_t n, uint32_t *a, uint32_t *b);
/* index of the first wrong element, or n when all are right */
size_t rr_gpu_kernel_check(const uint32_t *out, const uint32_t *x, size_t n, uint32_t a,
			   uint32_t b, uint32_t *want);

/* library lookup: tries each candidate; paths that exist but fail to load are noted */
void *rr_gpu_dlopen_first(const char *const *cands, size_t n, char **loaded,
			  struct rr_strbuf *failures);
/* advice for a dlopen error text ("cannot enable executable stack", ...) or NULL */
const char *rr_gpu_dlopen_advice(const char *msg);

/* hip.c and cuda.c, called in the child */
void rr_gpu_hip_check(const struct rr_verify_opts *o, struct rr_verify_stage *st);
void rr_gpu_cuda_check(const struct rr_verify_opts *o, struct rr_verify_stage *st);
/* tests: compile the embedded kernel with the NVRTC library at lib (no driver needed) */
char *rr_gpu_nvrtc_compile_with(const char *lib, int major, int minor, size_t *len,
				struct rr_strbuf *log);
/* tests: compile the embedded kernel with the hiprtc in lib (no device needed) */
char *rr_gpu_hiprtc_compile_with(const char *lib, const char *arch, size_t *len,
				 struct rr_strbuf *log);
/* note the step being entered (child side); the parent names it when the child hangs */
void rr_gpu_progress(const char *fmt, ...) RR_PRINTF(1, 2);

/* in a forked child: own process group, killed with the parent, stdin/stdout on /dev/null */
void rr_gpu_child_setup(pid_t parent);
/* run fn in a forked child under timeout_ms; its stage comes back through a pipe */
void rr_gpu_run_isolated(void (*fn)(const struct rr_verify_opts *, struct rr_verify_stage *),
			 const struct rr_verify_opts *o, int timeout_ms, const char *what,
			 struct rr_verify_stage *st);

/* load.c: the load stage; *dists its findings as JSON (the stage's "dists") */
struct json_t;
void rr_gpu_load(const struct rr_verify_opts *o, struct rr_verify_stage *st, struct json_t **dists);

/* probe.c: the torch stage; kernel is the kernel stage's verdict (to judge "no GPU") */
struct json_t;
void rr_gpu_torch_probe(const struct rr_verify_opts *o, int timeout_ms, enum rr_verdict kernel,
			struct rr_verify_stage *st, struct json_t **probe);

#endif

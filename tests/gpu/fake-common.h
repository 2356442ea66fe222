/*
 * Shared by the test doubles of libamdhip64, libhiprtc, libcuda and libnvrtc: they "compile"
 * only the known check kernel (the source text and the options are checked) and execute it
 * on the CPU. Behaviour is chosen per process by environment variables:
 *   RR_FAKE_HIP_MODE / RR_FAKE_CUDA_MODE  ok | nodevice | compile-fail | wrong-result | hang |
 *                                         crash | unsupported-arch | empty-arch
 *   RR_FAKE_DEVICES                       number of devices before *_VISIBLE_DEVICES (1)
 */
#ifndef RR_FAKE_COMMON_H
#define RR_FAKE_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

static inline const char *fake_mode(const char *var)
{
	const char *m = getenv(var);
	return m && *m ? m : "ok";
}

static inline int fake_is(const char *var, const char *mode)
{
	return !strcmp(fake_mode(var), mode);
}

/* the runtime applies *_VISIBLE_DEVICES: count the listed ordinals that exist */
static inline int fake_visible(const char *var, int total)
{
	const char *v = getenv(var);
	int n = 0;

	if (!v)
		return total;
	for (const char *p = v; *p;) {
		char *end;
		long i = strtol(p, &end, 10);
		if (end == p)
			break;
		if (i >= 0 && i < total)
			n++;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

/* the architecture the fake AMD device reports (gcnArchName) */
static inline const char *fake_hip_arch(void)
{
	const char *a = getenv("RR_FAKE_HIP_ARCH");

	if (fake_is("RR_FAKE_HIP_MODE", "unsupported-arch"))
		return "gfx1151";
	return a ? a : "gfx942:sramecc+:xnack-";
}

static inline int fake_devices(void)
{
	const char *d = getenv("RR_FAKE_DEVICES");
	return d ? atoi(d) : 1;
}

/* only the kernel rocm-resolve ships compiles; anything else is a compile error */
static inline int fake_known_kernel(const char *src)
{
	return src && strstr(src, "extern \"C\" __global__ void rr_check(") &&
	       strstr(src, "blockIdx.x * blockDim.x + threadIdx.x") &&
	       strstr(src, "out[i] = (a * x[i] + b) ^ (i * 2654435769u);");
}

/* the kernel's semantics, thread by thread, as the GPU would run them */
static inline void fake_run_kernel(unsigned gx, unsigned bx, void **params, int wrong)
{
	uint32_t *out = *(uint32_t **)params[0];
	const uint32_t *x = *(const uint32_t **)params[1];
	uint32_t a = *(uint32_t *)params[2], b = *(uint32_t *)params[3], n = *(uint32_t *)params[4];

	for (unsigned blk = 0; blk < gx; blk++)
		for (unsigned t = 0; t < bx; t++) {
			uint32_t i = blk * bx + t;
			if (i < n)
				out[i] = (a * x[i] + b) ^ (i * 2654435769u);
		}
	if (wrong && n > 1234)
		out[1234] ^= 0x10; /* one flipped bit: only an exact check catches it */
}

static inline void fake_hang(void)
{
	for (;;)
		pause();
}

static inline void fake_crash(void)
{
	abort(); /* as an assertion inside a runtime would */
}

#endif

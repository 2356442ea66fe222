/*
 * suite 'gpu': rr_verify_run against the test doubles (real dlopen of fake libamdhip64,
 * libhiprtc, libcuda, libnvrtc built next to this test), fake torch venvs, RECORD fixtures,
 * and the real Debian HIP runtime and NVRTC where installed. argv[1] picks the group.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/verify.h"

static const char *libs, *fx;
static char path_a[4096], path_b[4096], path_c[4096];

static const char *P(char *buf, const char *fmt, const char *a, const char *b)
{
	snprintf(buf, 4096, fmt, a, b);
	return buf;
}

static void clear_env(void)
{
	static const char *const vars[] = {"RR_FAKE_HIP_MODE", "RR_FAKE_CUDA_MODE", "RR_FAKE_DEVICES",
					   "RR_FAKE_HIP_ARCH", "RR_FAKE_CUDA_CC",
					   "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
					   "CUDA_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION"};
	for (size_t i = 0; i < RR_ARRAY_LEN(vars); i++)
		unsetenv(vars[i]);
}

static int setup(void **state)
{
	(void)state;
	clear_env();
	return 0;
}

/* kernel-only options against a library directory */
static struct rr_verify_opts kopts(const char *libdir, const char *sysfs_case)
{
	struct rr_verify_opts o = {
		.torch_lib_dir = P(path_a, "%s/%s", libs, libdir),
		.rocm_path = "/nonexistent/rocm",
		.sysfs_root = P(path_b, "%s/sysfs/%s", fx, sysfs_case),
		.backend = "hip",
		.timeout_ms = 30000,
		.skip_integrity = true,
		.skip_torch = true,
		.no_loader_path = true,
	};
	return o;
}

static struct rr_verify_report *run(const struct rr_verify_opts *o)
{
	struct rr_verify_report *r = NULL;
	rr_error err = RR_ERROR_INIT;

	assert_int_equal(rr_verify_run(o, &r, &err), RR_OK);
	assert_non_null(r);
	assert_non_null(r->json);
	return r;
}

static bool has_detail(const struct rr_verify_stage *st, const char *needle)
{
	for (size_t i = 0; i < st->ndetails; i++)
		if (strstr(st->details[i], needle))
			return true;
	return false;
}

static void dump(const struct rr_verify_report *r)
{
	struct rr_strbuf sb = RR_STRBUF_INIT;

	rr_verify_report_format_text(r, &sb);
	print_message("%s", sb.buf);
	rr_strbuf_release(&sb);
}

#define EXPECT(r, idx, want, summary_part)                                                         \
	do {                                                                                       \
		if ((r)->stages[idx].verdict != (want) ||                                          \
		    !strstr((r)->stages[idx].summary, (summary_part)))                             \
			dump(r);                                                                   \
		assert_int_equal((r)->stages[idx].verdict, (want));                                \
		assert_non_null(strstr((r)->stages[idx].summary, (summary_part)));                 \
	} while (0)
#define DETAIL(r, idx, part)                                                                       \
	do {                                                                                       \
		if (!has_detail(&(r)->stages[idx], (part)))                                        \
			dump(r);                                                                   \
		assert_true(has_detail(&(r)->stages[idx], (part)));                                \
	} while (0)
#define ADVICE(r, idx, part)                                                                       \
	do {                                                                                       \
		assert_non_null((r)->stages[idx].advice);                                          \
		assert_non_null(strstr((r)->stages[idx].advice, (part)));                          \
	} while (0)

/* ---- HIP, ROCm 6 style double ---- */

static void test_hip_ok(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r, *r2;
	(void)state;

	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 1 of 1 visible device");
	DETAIL(r, 1, "hip6/libamdhip64.so");
	DETAIL(r, 1, "hiprtc: ");
	DETAIL(r, 1, "hip6/libhiprtc.so");
	/* the R0600 layout: the arch string sits at offset 1160, features included */
	DETAIL(r, 1, "device 0 (AMD Instinct MI300X (fake 0), gfx942:sramecc+:xnack-)");
	DETAIL(r, 1, "4099 of 4099 results exact");
	DETAIL(r, 1, "KFD node 1: gfx942 (gfx_target_version 90402)");
	assert_int_equal(rr_verify_exit_code(r), 0);
	assert_int_equal(r->stages[0].verdict, RR_VERDICT_SKIP);
	assert_int_equal(r->stages[2].verdict, RR_VERDICT_SKIP);
	/* fresh inputs every run: the two runs must not use the same a, b */
	usleep(1000);
	r2 = run(&o);
	EXPECT(r2, 1, RR_VERDICT_PASS, "ran exactly");
	for (size_t i = 0; i < r->stages[1].ndetails; i++)
		if (strstr(r->stages[1].details[i], "results exact"))
			assert_false(has_detail(&r2->stages[1], strstr(r->stages[1].details[i], "(a=")));
	rr_verify_report_free(r);
	rr_verify_report_free(r2);
}

static void test_hip_nodevice(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "nodevice", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "the HIP runtime sees no device (hipErrorNoDevice)");
	DETAIL(r, 1, "hipInit: hipErrorNoDevice (100)");
	ADVICE(r, 1, "--device=/dev/kfd --device=/dev/dri");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);
}

static void test_hip_compile_fail(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "compile-fail", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "hiprtc could not compile the check kernel for "
				      "gfx942:sramecc+:xnack-: HIPRTC_ERROR_COMPILATION");
	DETAIL(r, 1, "log: rr_check.hip:9:12: error: use of undeclared identifier");
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);
}

static void test_hip_wrong_result(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "wrong-result", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "computed wrong results: 1 of 4099 elements differ");
	DETAIL(r, 1, "first wrong element 1234");
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);
}

static void test_hip_hang(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	struct timespec t0, t1;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "hang", 1);
	o.timeout_ms = 1500;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	r = run(&o);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT(r, 1, RR_VERDICT_FAIL, "did not finish within 1500 ms: hung in hipDeviceSynchronize "
				      "on device 0");
	/* what the child learned before it hung survives */
	DETAIL(r, 1, "hip6/libamdhip64.so");
	assert_true(t1.tv_sec - t0.tv_sec < 10);
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);
}

static void test_hip_crash(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "crash", 1);
	r = run(&o);
	assert_int_equal(r->stages[1].verdict, RR_VERDICT_FAIL);
	assert_non_null(strstr(r->stages[1].summary, "the HIP kernel check crashed with signal 6"));
	assert_non_null(strstr(r->stages[1].summary, "hipModuleLaunchKernel on device 0"));
	rr_verify_report_free(r);
}

static void test_hip_unsupported_arch(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "unsupported-arch", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "hipModuleLoadData failed: hipErrorNoBinaryForGpu (209)");
	ADVICE(r, 1, "no usable code object for gfx1151");
	ADVICE(r, 1, "HSA_OVERRIDE_GFX_VERSION is not set");
	rr_verify_report_free(r);

	setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0", 1);
	r = run(&o);
	ADVICE(r, 1, "HSA_OVERRIDE_GFX_VERSION is set");
	rr_verify_report_free(r);
}

static void test_hip_visible_devices(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_DEVICES", "3", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 3 of 3 visible devices");
	DETAIL(r, 1, "device 2 (AMD Instinct MI300X (fake 2)");
	rr_verify_report_free(r);

	setenv("HIP_VISIBLE_DEVICES", "0,2", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 2 of 2 visible devices");
	DETAIL(r, 1, "HIP_VISIBLE_DEVICES=0,2 (applied by the runtime)");
	rr_verify_report_free(r);

	setenv("HIP_VISIBLE_DEVICES", "7", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "sees no device");
	ADVICE(r, 1, "_VISIBLE_DEVICES variable hides devices");
	rr_verify_report_free(r);
}

static void test_hip_empty_arch_uses_sysfs(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	setenv("RR_FAKE_HIP_MODE", "empty-arch", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly");
	DETAIL(r, 1, "device 0 (AMD Instinct MI300X (fake 0), gfx942)");
	rr_verify_report_free(r);
}

static void test_hip_no_kfd(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "nokfd");
	struct rr_verify_report *r;
	(void)state;

	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "/dev/kfd: the ROCm kernel driver is not reachable");
	ADVICE(r, 1, "the container needs --device=/dev/kfd --device=/dev/dri");
	DETAIL(r, 1, "KFD node 1: gfx942");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);
}

static void test_hip_missing_library(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	o.torch_lib_dir = P(path_a, "%s/%s", fx, "sysfs");
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "no HIP runtime (libamdhip64.so) found");
	DETAIL(r, 1, "searched ");
	ADVICE(r, 1, "install a ROCm build of torch");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);
}

static void test_hip_broken_library(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	o.torch_lib_dir = P(path_a, "%s/%s", fx, "libs/broken");
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "the HIP runtime exists but does not load");
	DETAIL(r, 1, "libs/broken/libamdhip64.so");
	ADVICE(r, 1, "not a loadable x86_64 shared object");
	rr_verify_report_free(r);
	/* the message glibc gives for PT_GNU_STACK RWX libraries when it refuses them */
	assert_non_null(strstr(rr_gpu_dlopen_advice("libamdhip64.so: cannot enable executable "
						    "stack as shared object requires: Invalid "
						    "argument"),
			       "execstack -c"));
}

/* ---- HIP, ROCm 5 style double: old struct layout, hiprtc inside libamdhip64 ---- */

static void test_hip5_ok(void **state)
{
	struct rr_verify_opts o = kopts("hip5", "mi300");
	struct rr_verify_report *r;
	(void)state;

	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 1 of 1 visible device");
	DETAIL(r, 1, "(built-in hiprtc)");
	DETAIL(r, 1, "HIP runtime version 50221153");
	DETAIL(r, 1, "device 0 (AMD Instinct MI300X (fake 0), gfx942:sramecc+:xnack-)");
	rr_verify_report_free(r);

	setenv("RR_FAKE_HIP_MODE", "wrong-result", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "wrong results");
	rr_verify_report_free(r);
}

/* ---- sysfs ---- */

static void test_sysfs(void **state)
{
	struct rr_kfd_gpu *g = NULL;
	char a[24];
	(void)state;

	assert_true(rr_gpu_gfx_from_target_version(90402, a));
	assert_string_equal(a, "gfx942");
	assert_true(rr_gpu_gfx_from_target_version(90010, a));
	assert_string_equal(a, "gfx90a");
	assert_true(rr_gpu_gfx_from_target_version(110501, a));
	assert_string_equal(a, "gfx1151");
	assert_true(rr_gpu_gfx_from_target_version(100300, a));
	assert_string_equal(a, "gfx1030");
	assert_true(rr_gpu_gfx_from_target_version(90006, a));
	assert_string_equal(a, "gfx906");
	assert_false(rr_gpu_gfx_from_target_version(0, a));

	assert_int_equal(rr_gpu_sysfs_gpus(P(path_b, "%s/sysfs/%s", fx, "twogpu"), &g), 2);
	assert_int_equal(g[0].node, 1);
	assert_string_equal(g[0].arch, "gfx90a");
	assert_int_equal(g[1].node, 2);
	assert_string_equal(g[1].arch, "gfx1151");
	free(g);
	assert_int_equal(rr_gpu_sysfs_gpus("/nonexistent", &g), 0);
	assert_null(g);
	assert_true(rr_gpu_sysfs_has_kfd(P(path_b, "%s/sysfs/%s", fx, "mi300")));
	assert_false(rr_gpu_sysfs_has_kfd(P(path_b, "%s/sysfs/%s", fx, "nokfd")));
}

/* ---- CUDA ---- */

static struct rr_verify_opts copts(void)
{
	struct rr_verify_opts o = {
		.torch_lib_dir = P(path_a, "%s/%s", libs, "cuda"),
		.backend = "auto",
		.torch_is_cuda = true,
		.timeout_ms = 30000,
		.skip_integrity = true,
		.skip_torch = true,
	};
	return o;
}

static void test_cuda(void **state)
{
	struct rr_verify_opts o = copts();
	struct rr_verify_report *r;
	(void)state;

	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 1 of 1 visible device through libcuda.so.1");
	DETAIL(r, 1, "NVRTC 12.4: ");
	DETAIL(r, 1, "cuda/libnvrtc.so");
	DETAIL(r, 1, "device 0 (NVIDIA H100 80GB HBM3 (fake 0), sm_90): 4099 of 4099 results exact");
	rr_verify_report_free(r);

	setenv("RR_FAKE_CUDA_MODE", "nodevice", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "the CUDA driver sees no device (no CUDA-capable device");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);

	setenv("RR_FAKE_CUDA_MODE", "compile-fail", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "NVRTC could not compile the check kernel");
	DETAIL(r, 1, "log: rr_check.cu(9): error");
	rr_verify_report_free(r);

	setenv("RR_FAKE_CUDA_MODE", "wrong-result", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "computed wrong results");
	DETAIL(r, 1, "first wrong element 1234");
	rr_verify_report_free(r);

	setenv("RR_FAKE_CUDA_MODE", "hang", 1);
	o.timeout_ms = 1500;
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_FAIL, "the CUDA kernel check did not finish within 1500 ms: hung in "
				      "cuCtxSynchronize on device 0");
	rr_verify_report_free(r);
	o.timeout_ms = 30000;

	setenv("RR_FAKE_CUDA_MODE", "ok", 1);
	setenv("RR_FAKE_DEVICES", "2", 1);
	setenv("CUDA_VISIBLE_DEVICES", "1", 1);
	setenv("RR_FAKE_CUDA_CC", "80", 1);
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly on 1 of 1 visible device");
	DETAIL(r, 1, "CUDA_VISIBLE_DEVICES=1 (applied by the driver)");
	DETAIL(r, 1, "sm_80");
	rr_verify_report_free(r);

	/* the backend follows torch: a ROCm torch goes to HIP (not found here) */
	o.torch_is_cuda = false;
	o.no_loader_path = true;
	o.sysfs_root = P(path_b, "%s/sysfs/%s", fx, "mi300");
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "no HIP runtime");
	rr_verify_report_free(r);

	o.backend = "cuda";
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "no CUDA driver (libcuda.so.1)");
	ADVICE(r, 1, "--gpus all");
	rr_verify_report_free(r);
}

/* ---- integrity ---- */

static const struct rr_verify_dist stack[] = {
	{"torch", "2.9.1+rocm7.2.0.lw.git7e1940d4", "torch-2.9.1+rocm7.2.0.lw.git7e1940d4.dist-info"},
	{"pytorch-triton-rocm", "3.5.1+rocm7.2.0.gitc1f2e3a4",
	 "pytorch_triton_rocm-3.5.1+rocm7.2.0.gitc1f2e3a4.dist-info"},
};

static struct rr_verify_report *integrity(const char *site_case, const struct rr_verify_dist *d,
					  size_t nd)
{
	static const char *dirs[1];
	struct rr_verify_opts o = {.skip_kernel = true, .skip_torch = true};

	dirs[0] = P(path_c, "%s/site/%s", fx, site_case);
	o.site_dirs = dirs;
	o.nsite_dirs = 1;
	o.protected_dists = d;
	o.nprotected = nd;
	return run(&o);
}

static void test_integrity_ok(void **state)
{
	struct rr_verify_report *r;
	struct rr_verify_dist abs[1];
	(void)state;

	r = integrity("ok", stack, 2);
	EXPECT(r, 0, RR_VERDICT_PASS, "8 files of 2 protected distributions match their RECORD; "
				      "no module clashes");
	assert_int_equal(r->stages[0].ndetails, 0);
	assert_int_equal(rr_verify_exit_code(r), 0);
	rr_verify_report_free(r);

	/* an absolute dist-info path names the same distribution */
	abs[0] = stack[1];
	abs[0].dist_info_dir = P(path_a, "%s/site/ok/%s", fx, stack[1].dist_info_dir);
	r = integrity("ok", abs, 1);
	EXPECT(r, 0, RR_VERDICT_PASS, "4 files of 1 protected distribution match");
	rr_verify_report_free(r);

	r = integrity("ok", NULL, 0);
	EXPECT(r, 0, RR_VERDICT_SKIP, "no protected distributions");
	rr_verify_report_free(r);

	/* a protected dist found without a dist-info (the CLI passes NULL) is named, not fatal */
	abs[0] = (struct rr_verify_dist){"torch", NULL, NULL};
	r = integrity("ok", abs, 1);
	EXPECT(r, 0, RR_VERDICT_SKIP, "no protected distribution has a RECORD");
	DETAIL(r, 0, "torch : no .dist-info, not checked");
	rr_verify_report_free(r);
}

static void test_integrity_clobbered(void **state)
{
	struct rr_verify_report *r;
	(void)state;

	r = integrity("clobbered", stack, 2);
	EXPECT(r, 0, RR_VERDICT_FAIL, "2 of 8 files differ from their RECORD; 1 module clash");
	DETAIL(r, 0, "triton/__init__.py (of pytorch-triton-rocm 3.5.1+rocm7.2.0.gitc1f2e3a4) "
		     "differs from its RECORD hash; also listed by triton 3.1.0, whose install "
		     "overwrote it");
	DETAIL(r, 0, "triton/language/core.py (of pytorch-triton-rocm");
	DETAIL(r, 0, "module 'triton' of pytorch-triton-rocm 3.5.1+rocm7.2.0.gitc1f2e3a4 is also "
		     "shipped by triton 3.1.0");
	/* the intact file, the namespace package and the unrelated module are not reported */
	assert_false(has_detail(&r->stages[0], "driver.py"));
	assert_false(has_detail(&r->stages[0], "nvidia"));
	assert_false(has_detail(&r->stages[0], "six"));
	ADVICE(r, 0, "pip uninstall -y triton");
	ADVICE(r, 0, "'pytorch-triton-rocm==3.5.1+rocm7.2.0.gitc1f2e3a4'");
	assert_null(strstr(r->stages[0].advice, "torch==")); /* torch itself is intact */
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);
}

static void test_integrity_missing_and_edited(void **state)
{
	struct rr_verify_report *r;
	char tmp[] = "/tmp/rr-gpu-site-XXXXXX";
	char cmd[8192];
	FILE *f;
	(void)state;

	r = integrity("missing", stack, 2);
	EXPECT(r, 0, RR_VERDICT_FAIL, "1 of 8 files differ");
	DETAIL(r, 0, "triton/backends/amd/driver.py (of pytorch-triton-rocm "
		     "3.5.1+rocm7.2.0.gitc1f2e3a4) is missing or unreadable; no other RECORD lists it");
	rr_verify_report_free(r);

	r = integrity("norecord", stack, 1);
	EXPECT(r, 0, RR_VERDICT_FAIL, "1 protected distribution without a RECORD");
	DETAIL(r, 0, "torch 2.9.1+rocm7.2.0.lw.git7e1940d4: no RECORD in");
	rr_verify_report_free(r);

	/* one byte changed now, in a copy: the hash is computed, not remembered */
	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "cp -r '%s/site/ok/.' '%s/'", fx, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/torch/version.py", tmp);
	f = fopen(cmd, "a");
	assert_non_null(f);
	fputc('\n', f);
	fclose(f);
	{
		const char *dirs[] = {tmp};
		struct rr_verify_opts o = {.skip_kernel = true, .skip_torch = true, .site_dirs = dirs,
					   .nsite_dirs = 1, .protected_dists = stack,
					   .nprotected = 2};
		r = run(&o);
	}
	EXPECT(r, 0, RR_VERDICT_FAIL, "1 of 8 files differ");
	DETAIL(r, 0, "torch/version.py (of torch 2.9.1+rocm7.2.0.lw.git7e1940d4) differs from its "
		     "RECORD hash; no other RECORD lists it");
	ADVICE(r, 0, "'torch==2.9.1+rocm7.2.0.lw.git7e1940d4'");
	rr_verify_report_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

/*
 * a RECORD entry naming /dev/zero, a FIFO in place of a listed file and a FIFO in place of
 * a RECORD: each is refused and reported, never opened blocking or read forever (before,
 * open() of the FIFO waited for a writer and /dev/zero was hashed without end). alarm()
 * turns a regression into a failure instead of a hung suite.
 */
static void test_integrity_fifos_and_devices(void **state)
{
	struct rr_verify_report *r;
	char tmp[] = "/tmp/rr-gpu-fifo-XXXXXX";
	char cmd[8192];
	FILE *f;
	(void)state;

	assert_non_null(mkdtemp(tmp));
	snprintf(cmd, sizeof(cmd), "cp -r '%s/site/ok/.' '%s/'", fx, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/torch/version.py", tmp);
	assert_int_equal(unlink(cmd), 0);
	assert_int_equal(mkfifo(cmd, 0600), 0);
	snprintf(cmd, sizeof(cmd), "%s/%s/RECORD", tmp, stack[0].dist_info_dir);
	f = fopen(cmd, "a");
	assert_non_null(f);
	fputs("/dev/zero,sha256=bumTg614e3kCQhcW3abO4yTsfUUkz3mD8E69u0YTAFI,1\n", f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/%s/RECORD", tmp, stack[1].dist_info_dir);
	assert_int_equal(unlink(cmd), 0);
	assert_int_equal(mkfifo(cmd, 0600), 0);
	alarm(60);
	{
		const char *dirs[] = {tmp};
		struct rr_verify_opts o = {.skip_kernel = true, .skip_torch = true, .site_dirs = dirs,
					   .nsite_dirs = 1, .protected_dists = stack,
					   .nprotected = 2};
		r = run(&o);
	}
	alarm(0);
	assert_int_equal(r->stages[0].verdict, RR_VERDICT_FAIL);
	DETAIL(r, 0, "torch/version.py (of torch 2.9.1+rocm7.2.0.lw.git7e1940d4) is not a regular "
		     "file");
	DETAIL(r, 0, "/dev/zero (of torch 2.9.1+rocm7.2.0.lw.git7e1940d4) is not a regular file");
	DETAIL(r, 0, "pytorch-triton-rocm 3.5.1+rocm7.2.0.gitc1f2e3a4: no RECORD in");
	rr_verify_report_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	assert_int_equal(system(cmd), 0);
}

/* ---- torch probe ---- */

static struct rr_verify_report *torch_case(const char *vcase, int timeout)
{
	struct rr_verify_opts o = {.skip_integrity = true, .skip_kernel = true,
				   .timeout_ms = timeout};

	o.python = P(path_c, "%s/venvs/%s/bin/python", fx, vcase);
	return run(&o);
}

static void test_torch_ok(void **state)
{
	struct rr_verify_report *r = torch_case("ok", 30000);
	json_t *j, *probe;
	json_error_t je;
	(void)state;

	EXPECT(r, 2, RR_VERDICT_PASS, "torch 2.9.1+rocm7.2.0.lw.git7e1940d4 (HIP 7.2.26015) "
				      "computes on 1 device");
	DETAIL(r, 2, "device 0 (AMD Instinct MI300X, gfx942:sramecc+:xnack-): 64x64 matmul");
	DETAIL(r, 2, "HSA_OVERRIDE_GFX_VERSION is not set");
	assert_int_equal(rr_verify_exit_code(r), 0);
	j = json_loads(r->json, 0, &je);
	assert_non_null(j);
	/* the probe's torch in inspect's and plan's shape */
	probe = json_object_get(json_array_get(json_object_get(j, "stages"), 2), "probe");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(probe, "torch"), "version")),
	    "2.9.1+rocm7.2.0.lw.git7e1940d4");
	json_decref(j);
	rr_verify_report_free(r);

	r = torch_case("cuda", 30000);
	EXPECT(r, 2, RR_VERDICT_PASS, "torch 2.5.1+cu124 (CUDA 12.4) computes on 1 device");
	DETAIL(r, 2, "(NVIDIA H100 80GB HBM3, sm_90)");
	assert_false(has_detail(&r->stages[2], "HSA_OVERRIDE")); /* only said for ROCm */
	rr_verify_report_free(r);
}

static void test_torch_failures(void **state)
{
	struct rr_verify_report *r;
	(void)state;

	r = torch_case("archlist", 30000);
	EXPECT(r, 2, RR_VERDICT_FAIL, "does not compute correctly");
	DETAIL(r, 2, "gfx1151 is NOT in this torch's arch list: it has no kernels for this GPU; "
		     "HSA_OVERRIDE_GFX_VERSION is not set");
	ADVICE(r, 2, "install a torch build for gfx1151");
	rr_verify_report_free(r);

	setenv("HSA_OVERRIDE_GFX_VERSION", "11.0.0", 1);
	r = torch_case("archlist", 30000);
	DETAIL(r, 2, "HSA_OVERRIDE_GFX_VERSION=11.0.0 is set");
	rr_verify_report_free(r);
	unsetenv("HSA_OVERRIDE_GFX_VERSION");

	r = torch_case("matmul", 30000);
	EXPECT(r, 2, RR_VERDICT_FAIL, "does not compute correctly");
	DETAIL(r, 2, "64x64 matmul max |gpu-cpu| = 0.5, tolerance");
	DETAIL(r, 2, "WRONG");
	rr_verify_report_free(r);

	r = torch_case("importerror", 30000);
	EXPECT(r, 2, RR_VERDICT_FAIL, "torch does not import: ImportError: libamdhip64.so: cannot "
				      "open shared object file");
	rr_verify_report_free(r);

	r = torch_case("hang", 2000);
	EXPECT(r, 2, RR_VERDICT_FAIL, "the torch probe did not finish within 2000 ms");
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);

	r = torch_case("nonexistent", 30000);
	EXPECT(r, 2, RR_VERDICT_FAIL, "cannot run");
	assert_non_null(strstr(r->stages[2].summary, "No such file or directory"));
	rr_verify_report_free(r);
}

static void test_torch_no_gpu(void **state)
{
	struct rr_verify_report *r;
	struct rr_verify_opts o;
	(void)state;

	r = torch_case("nogpu", 30000);
	EXPECT(r, 2, RR_VERDICT_UNAVAILABLE, "(HIP 7.2.26015) sees no GPU");
	ADVICE(r, 2, "--device=/dev/kfd --device=/dev/dri");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);

	r = torch_case("cpu", 30000);
	EXPECT(r, 2, RR_VERDICT_UNAVAILABLE, "torch 2.5.1+cpu is a CPU-only build");
	rr_verify_report_free(r);

	/* the kernel ran on a GPU but torch sees none: that is a failure, not "no GPU" */
	o = kopts("hip6", "mi300");
	o.skip_torch = false;
	o.python = P(path_c, "%s/venvs/%s/bin/python", fx, "nogpu");
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_PASS, "ran exactly");
	EXPECT(r, 2, RR_VERDICT_FAIL, "torch sees no GPU although the kernel check ran on one");
	assert_int_equal(rr_verify_exit_code(r), 1);
	rr_verify_report_free(r);
}

/* ---- the report ---- */

static void test_report(void **state)
{
	static const char *dirs[1];
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r = NULL;
	struct rr_strbuf sb = RR_STRBUF_INIT;
	rr_error err = RR_ERROR_INIT;
	json_t *j, *st;
	json_error_t je;
	(void)state;

	dirs[0] = P(path_c, "%s/site/%s", fx, "clobbered");
	o.skip_integrity = false;
	o.site_dirs = dirs;
	o.nsite_dirs = 1;
	o.protected_dists = stack;
	o.nprotected = 2;
	o.skip_torch = false;
	{
		static char py[4096];
		snprintf(py, sizeof(py), "%s/venvs/ok/bin/python", fx);
		o.python = py;
	}
	r = run(&o);
	rr_verify_report_format_text(r, &sb);
	assert_true(rr_str_startswith(sb.buf, "integrity: FAIL 2 of 8 files differ"));
	assert_non_null(strstr(sb.buf, "\nkernel: PASS the check kernel ran exactly on 1 of 1"));
	assert_non_null(strstr(sb.buf, "\ntorch: PASS torch 2.9.1+rocm7.2.0.lw.git7e1940d4"));
	assert_non_null(strstr(sb.buf, "\n    advice: remove the intruder (`pip uninstall -y "
				       "triton`)"));
	assert_non_null(strstr(sb.buf, "\n    triton/__init__.py (of pytorch-triton-rocm"));
	assert_int_equal(rr_verify_exit_code(r), 1);

	j = json_loads(r->json, 0, &je);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "schema")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 1);
	assert_int_equal(json_array_size(json_object_get(j, "stages")), 4);
	st = json_array_get(json_object_get(j, "stages"), 0);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "integrity");
	assert_string_equal(json_string_value(json_object_get(st, "verdict")), "fail");
	assert_true(json_array_size(json_object_get(st, "details")) >= 3);
	assert_true(json_is_string(json_object_get(st, "advice")));
	st = json_array_get(json_object_get(j, "stages"), 1);
	assert_string_equal(json_string_value(json_object_get(st, "verdict")), "pass");
	assert_true(json_is_null(json_object_get(st, "advice")));
	/* no load check options: the load stage says it was skipped, and why */
	st = json_array_get(json_object_get(j, "stages"), 3);
	assert_string_equal(json_string_value(json_object_get(st, "name")), "load");
	assert_string_equal(json_string_value(json_object_get(st, "verdict")), "skip");
	json_decref(j);
	rr_strbuf_release(&sb);
	rr_verify_report_free(r);

	/* everything skipped: nothing failed, exit 0 */
	{
		struct rr_verify_opts s = {.skip_integrity = true, .skip_kernel = true,
					   .skip_torch = true};
		r = run(&s);
		assert_int_equal(rr_verify_exit_code(r), 0);
		assert_int_equal(r->stages[1].verdict, RR_VERDICT_SKIP);
		rr_verify_report_free(r);
	}
	/* misuse is an error, not a verdict */
	o.backend = "opencl";
	r = NULL;
	assert_int_equal(rr_verify_run(&o, &r, &err), RR_E_USAGE);
	assert_null(r);
	assert_non_null(strstr(err.msg, "'opencl'"));
	rr_error_release(&err);
	assert_null(rr_verify_report_free(NULL));
}

/* ---- real libraries, where installed ---- */

#define DEBIAN_HIP "/usr/lib/x86_64-linux-gnu/libamdhip64.so.5"

static void test_real_hip(void **state)
{
	struct rr_verify_opts o = kopts("hip6", "mi300");
	struct rr_verify_report *r;
	(void)state;

	/* the loader path, as on a machine with Debian's libamdhip64-5; a (fake) /dev/kfd so the
	 * runtime itself is asked */
	o.torch_lib_dir = NULL;
	o.no_loader_path = false;
	r = run(&o);
	EXPECT(r, 1, RR_VERDICT_UNAVAILABLE, "the HIP runtime sees no device (hipErrorNoDevice)");
	DETAIL(r, 1, "HIP runtime: libamdhip64.so.5");
	DETAIL(r, 1, "(built-in hiprtc)");
	ADVICE(r, 1, "--device=/dev/kfd --device=/dev/dri");
	assert_int_equal(rr_verify_exit_code(r), 3);
	rr_verify_report_free(r);
}

static void test_real_hiprtc_compiles_kernel(void **state)
{
	struct rr_strbuf log = RR_STRBUF_INIT;
	size_t len = 0;
	char *code;
	(void)state;

	/* the real hiprtc (inside ROCm 5's libamdhip64) compiles the kernel text, no device needed */
	code = rr_gpu_hiprtc_compile_with(DEBIAN_HIP, "gfx90a", &len, &log);
	if (!code)
		print_message("%s\n", log.buf);
	assert_non_null(code);
	assert_true(len > 64);
	assert_non_null(memmem(code, len, "rr_check", 8));
	free(code);
	rr_strbuf_release(&log);
}

static const char *real_nvrtc(void)
{
	static const char *const c[] = {"/usr/local/cuda/lib64/libnvrtc.so", "libnvrtc.so",
					"libnvrtc.so.13", "libnvrtc.so.12"};
	for (size_t i = 0; i < RR_ARRAY_LEN(c); i++) {
		void *h = dlopen(c[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return c[i];
	}
	return NULL;
}

static void test_real_nvrtc_compiles_kernel(void **state)
{
	struct rr_strbuf log = RR_STRBUF_INIT;
	size_t len = 0;
	char *code;
	(void)state;

	code = rr_gpu_nvrtc_compile_with(real_nvrtc(), 9, 0, &len, &log);
	if (!code)
		print_message("%s\n", log.buf);
	assert_non_null(code);
	assert_true(len > 64);
	assert_memory_equal(code, "\x7f" "ELF", 4); /* a cubin for sm_90 */
	assert_non_null(memmem(code, len, "rr_check", 8));
	free(code);
	rr_strbuf_release(&log);
}

int main(int argc, char **argv)
{
	const char *group = argc > 1 ? argv[1] : "";
	const struct CMUnitTest hip6[] = {
		cmocka_unit_test_setup(test_hip_ok, setup),
		cmocka_unit_test_setup(test_hip_nodevice, setup),
		cmocka_unit_test_setup(test_hip_compile_fail, setup),
		cmocka_unit_test_setup(test_hip_wrong_result, setup),
		cmocka_unit_test_setup(test_hip_hang, setup),
		cmocka_unit_test_setup(test_hip_crash, setup),
		cmocka_unit_test_setup(test_hip_unsupported_arch, setup),
		cmocka_unit_test_setup(test_hip_visible_devices, setup),
		cmocka_unit_test_setup(test_hip_empty_arch_uses_sysfs, setup),
		cmocka_unit_test_setup(test_hip_no_kfd, setup),
		cmocka_unit_test_setup(test_hip_missing_library, setup),
		cmocka_unit_test_setup(test_hip_broken_library, setup),
	};
	const struct CMUnitTest hip5[] = {cmocka_unit_test_setup(test_hip5_ok, setup)};
	const struct CMUnitTest sysfs[] = {cmocka_unit_test(test_sysfs)};
	const struct CMUnitTest cuda[] = {cmocka_unit_test_setup(test_cuda, setup)};
	const struct CMUnitTest integ[] = {
		cmocka_unit_test(test_integrity_ok),
		cmocka_unit_test(test_integrity_clobbered),
		cmocka_unit_test(test_integrity_missing_and_edited),
		cmocka_unit_test(test_integrity_fifos_and_devices),
	};
	const struct CMUnitTest torch[] = {
		cmocka_unit_test_setup(test_torch_ok, setup),
		cmocka_unit_test_setup(test_torch_failures, setup),
		cmocka_unit_test_setup(test_torch_no_gpu, setup),
	};
	const struct CMUnitTest report[] = {cmocka_unit_test_setup(test_report, setup)};
	const struct CMUnitTest real_hip[] = {
		cmocka_unit_test_setup(test_real_hip, setup),
		cmocka_unit_test(test_real_hiprtc_compiles_kernel),
	};
	const struct CMUnitTest nvrtc_tests[] = {cmocka_unit_test(test_real_nvrtc_compiles_kernel)};

	libs = getenv("RR_GPU_TEST_LIBS");
	fx = getenv("RR_GPU_FIXTURES");
	if (!libs || !fx) {
		fprintf(stderr, "RR_GPU_TEST_LIBS and RR_GPU_FIXTURES must be set (meson test)\n");
		return 1;
	}
	if (!strcmp(group, "hip6"))
		return cmocka_run_group_tests_name("gpu-hip6", hip6, NULL, NULL);
	if (!strcmp(group, "hip5"))
		return cmocka_run_group_tests_name("gpu-hip5", hip5, NULL, NULL);
	if (!strcmp(group, "sysfs"))
		return cmocka_run_group_tests_name("gpu-sysfs", sysfs, NULL, NULL);
	if (!strcmp(group, "cuda"))
		return cmocka_run_group_tests_name("gpu-cuda", cuda, NULL, NULL);
	if (!strcmp(group, "integrity"))
		return cmocka_run_group_tests_name("gpu-integrity", integ, NULL, NULL);
	if (!strcmp(group, "torch"))
		return cmocka_run_group_tests_name("gpu-torch", torch, NULL, NULL);
	if (!strcmp(group, "report"))
		return cmocka_run_group_tests_name("gpu-report", report, NULL, NULL);
	if (!strcmp(group, "real-hip")) {
		if (access(DEBIAN_HIP, R_OK)) {
			fprintf(stderr, "skip: %s is not installed (apt install libamdhip64-5)\n",
				DEBIAN_HIP);
			return 77;
		}
		return cmocka_run_group_tests_name("gpu-real-hip", real_hip, NULL, NULL);
	}
	if (!strcmp(group, "real-nvrtc")) {
		if (!real_nvrtc()) {
			fprintf(stderr, "skip: no libnvrtc.so on this machine\n");
			return 77;
		}
		return cmocka_run_group_tests_name("gpu-real-nvrtc", nvrtc_tests, NULL, NULL);
	}
	fprintf(stderr, "unknown group '%s'\n", group);
	return 1;
}

/*
 * The CUDA kernel check for CUDA builds of torch (NGC-style containers): the same kernel text
 * through NVRTC (to a cubin for the device's sm_XY, or PTX when the NVRTC is too old for
 * cubins) and the driver API from libcuda.so.1, both dlopen'd. Runs in a forked child.
 * Prototypes are declared here so the build never needs the CUDA headers.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef unsigned long long CUdeviceptr;
typedef void *nvrtcProgram;

enum {
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

struct cu_api {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DeviceComputeCapability)(int *, int *, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
				 unsigned, unsigned, void *, void **, void **);
	CUresult (*CtxSynchronize)(void);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*GetErrorString)(CUresult, const char **);
};

struct nvrtc_api {
	int (*Create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
		      const char *const *);
	int (*Compile)(nvrtcProgram, int, const char *const *);
	int (*GetProgramLogSize)(nvrtcProgram, size_t *);
	int (*GetProgramLog)(nvrtcProgram, char *);
	int (*GetCUBINSize)(nvrtcProgram, size_t *); /* NULL before CUDA 11.1 */
	int (*GetCUBIN)(nvrtcProgram, char *);
	int (*GetPTXSize)(nvrtcProgram, size_t *);
	int (*GetPTX)(nvrtcProgram, char *);
	int (*Destroy)(nvrtcProgram *);
	const char *(*GetErrorString)(int);
	int (*Version)(int *, int *);
};

#define SYM(h, api, field, name, missing)                                                          \
	do {                                                                                       \
		*(void **)&(api)->field = dlsym(h, name);                                          \
		if (!(api)->field && !(missing))                                                   \
			(missing) = name;                                                          \
	} while (0)
#define OPT(h, api, field, name) (*(void **)&(api)->field = dlsym(h, name))

static const char *cu_load(void *h, struct cu_api *a)
{
	const char *missing = NULL;

	SYM(h, a, Init, "cuInit", missing);
	SYM(h, a, DriverGetVersion, "cuDriverGetVersion", missing);
	SYM(h, a, DeviceGetCount, "cuDeviceGetCount", missing);
	SYM(h, a, DeviceGet, "cuDeviceGet", missing);
	SYM(h, a, DeviceGetName, "cuDeviceGetName", missing);
	OPT(h, a, DeviceGetAttribute, "cuDeviceGetAttribute");
	OPT(h, a, DeviceComputeCapability, "cuDeviceComputeCapability");
	/* the primary context is what torch uses; cuCtxCreate_v2 only as a fallback */
	OPT(h, a, PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	OPT(h, a, PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	OPT(h, a, CtxCreate, "cuCtxCreate_v2");
	SYM(h, a, CtxSetCurrent, "cuCtxSetCurrent", missing);
	SYM(h, a, ModuleLoadData, "cuModuleLoadData", missing);
	SYM(h, a, ModuleGetFunction, "cuModuleGetFunction", missing);
	SYM(h, a, MemAlloc, "cuMemAlloc_v2", missing);
	SYM(h, a, MemFree, "cuMemFree_v2", missing);
	SYM(h, a, MemcpyHtoD, "cuMemcpyHtoD_v2", missing);
	SYM(h, a, MemcpyDtoH, "cuMemcpyDtoH_v2", missing);
	SYM(h, a, LaunchKernel, "cuLaunchKernel", missing);
	SYM(h, a, CtxSynchronize, "cuCtxSynchronize", missing);
	SYM(h, a, ModuleUnload, "cuModuleUnload", missing);
	SYM(h, a, GetErrorString, "cuGetErrorString", missing);
	if (!missing && !a->DeviceGetAttribute && !a->DeviceComputeCapability)
		missing = "cuDeviceGetAttribute";
	if (!missing && !a->PrimaryCtxRetain && !a->CtxCreate)
		missing = "cuDevicePrimaryCtxRetain";
	return missing;
}

static const char *nvrtc_load(void *h, struct nvrtc_api *a)
{
	const char *missing = NULL;

	SYM(h, a, Create, "nvrtcCreateProgram", missing);
	SYM(h, a, Compile, "nvrtcCompileProgram", missing);
	SYM(h, a, GetProgramLogSize, "nvrtcGetProgramLogSize", missing);
	SYM(h, a, GetProgramLog, "nvrtcGetProgramLog", missing);
	SYM(h, a, GetPTXSize, "nvrtcGetPTXSize", missing);
	SYM(h, a, GetPTX, "nvrtcGetPTX", missing);
	SYM(h, a, Destroy, "nvrtcDestroyProgram", missing);
	SYM(h, a, GetErrorString, "nvrtcGetErrorString", missing);
	OPT(h, a, GetCUBINSize, "nvrtcGetCUBINSize");
	OPT(h, a, GetCUBIN, "nvrtcGetCUBIN");
	OPT(h, a, Version, "nvrtcVersion");
	return missing;
}

static const char *cerr(const struct cu_api *a, CUresult r)
{
	const char *s = NULL;

	if (a->GetErrorString && !a->GetErrorString(r, &s) && s)
		return s;
	return "unknown error";
}

/*
 * compile the kernel for compute capability major.minor: a cubin (-arch=sm_XY) when this
 * NVRTC can make one, so the driver need not JIT newer PTX than it understands; else PTX.
 * On failure returns NULL with the log in *log.
 */
static char *nvrtc_compile(const struct nvrtc_api *a, int major, int minor, bool *is_cubin,
			   size_t *len, struct rr_strbuf *log)
{
	bool cubin = a->GetCUBIN && a->GetCUBINSize;
	RR_AUTOFREE char *opt = rr_xasprintf("--gpu-architecture=%s_%d%d", cubin ? "sm" : "compute",
					     major, minor);
	const char *opts[] = {opt};
	nvrtcProgram prog = NULL;
	size_t sz = 0;
	char *code = NULL;
	int r;

	r = a->Create(&prog, rr_gpu_kernel_source(), "rr_check.cu", 0, NULL, NULL);
	if (r) {
		rr_strbuf_addf(log, "nvrtcCreateProgram: %s", a->GetErrorString(r));
		return NULL;
	}
	r = a->Compile(prog, 1, opts);
	if (r) {
		rr_strbuf_addf(log, "%s (%s)\n", a->GetErrorString(r), opt);
		if (!a->GetProgramLogSize(prog, &sz) && sz > 1) {
			size_t at = log->len;
			rr_strbuf_grow(log, sz);
			a->GetProgramLog(prog, log->buf + at);
			rr_strbuf_setlen(log, at + strlen(log->buf + at));
		}
		a->Destroy(&prog);
		return NULL;
	}
	r = cubin ? a->GetCUBINSize(prog, &sz) : a->GetPTXSize(prog, &sz);
	if (r || !sz) {
		rr_strbuf_addf(log, "NVRTC produced no code for %s", opt);
		a->Destroy(&prog);
		return NULL;
	}
	code = rr_xcalloc(1, sz + 1);
	r = cubin ? a->GetCUBIN(prog, code) : a->GetPTX(prog, code);
	a->Destroy(&prog);
	if (r) {
		rr_strbuf_addf(log, "NVRTC could not hand out the code: %s", a->GetErrorString(r));
		free(code);
		return NULL;
	}
	*is_cubin = cubin;
	*len = sz;
	return code;
}

char *rr_gpu_nvrtc_compile_with(const char *lib, int major, int minor, size_t *len,
				struct rr_strbuf *log)
{
	struct nvrtc_api a = {0};
	const char *missing;
	bool cubin;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		rr_strbuf_addf(log, "%s", dlerror());
		return NULL;
	}
	if ((missing = nvrtc_load(h, &a))) {
		rr_strbuf_addf(log, "%s lacks %s", lib, missing);
		return NULL;
	}
	return nvrtc_compile(&a, major, minor, &cubin, len, log);
}

static void nvrtc_candidates(const struct rr_verify_opts *o, struct rr_strbuf *joined,
			     const char ***cands, size_t *n, size_t *cap, char ***owned,
			     size_t *nowned, size_t *capowned)
{
	static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
					    "libnvrtc.so.11.2"};
	const char *dirs[5];
	size_t nd = 0;
	RR_AUTOFREE char *wheel = NULL;
	RR_AUTOFREE char *wheel13 = NULL;
	RR_AUTOFREE char *cuda_home = NULL;

	/* torch/lib (older wheels bundle it), then the nvidia-cuda-nvrtc wheel torch depends on */
	if (o->torch_lib_dir) {
		dirs[nd++] = o->torch_lib_dir;
		wheel = rr_xasprintf("%s/../../nvidia/cuda_nvrtc/lib", o->torch_lib_dir);
		dirs[nd++] = wheel;
		/* CUDA 13 wheels put every library in nvidia/cu13/lib */
		wheel13 = rr_xasprintf("%s/../../nvidia/cu13/lib", o->torch_lib_dir);
		dirs[nd++] = wheel13;
	}
	if (!o->no_loader_path) {
		if (getenv("CUDA_HOME")) {
			cuda_home = rr_xasprintf("%s/lib64", getenv("CUDA_HOME"));
			dirs[nd++] = cuda_home;
		}
		dirs[nd++] = "/usr/local/cuda/lib64";
	}
	for (size_t d = 0; d <= nd; d++) {
		if (d == nd && o->no_loader_path)
			break;
		for (size_t i = 0; i < RR_ARRAY_LEN(names); i++) {
			char *p = d < nd ? rr_xasprintf("%s/%s", dirs[d], names[i])
					 : rr_xstrdup(names[i]);
			RR_PUSH(*owned, *nowned, *capowned) = p;
			RR_PUSH(*cands, *n, *cap) = p;
		}
		if (d < nd)
			rr_strbuf_addf(joined, "%s%s", joined->len ? ", " : "", dirs[d]);
	}
	if (!o->no_loader_path)
		rr_strbuf_addf(joined, "%sthe loader path", joined->len ? ", " : "");
}

static bool run_device(const struct cu_api *a, int ord, const char *label, const char *code,
		       struct rr_verify_stage *st)
{
	const uint32_t n = RR_GPU_KERNEL_N;
	RR_AUTOFREE uint32_t *x = rr_xmalloc(n * sizeof(*x));
	RR_AUTOFREE uint32_t *out = rr_xcalloc(n, sizeof(*out));
	CUdeviceptr dx = 0, dout = 0;
	CUmodule mod = NULL;
	CUfunction fn = NULL;
	uint32_t ka, kb, want = 0;
	CUresult r;
	const char *step = "cuModuleLoadData";
	size_t bad;

	rr_gpu_kernel_inputs(x, n, &ka, &kb);
	rr_gpu_progress("cuModuleLoadData on device %d", ord);
	r = a->ModuleLoadData(&mod, code);
	if (r) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s: cuModuleLoadData failed: %s (%d)", label,
				 cerr(a, r), r);
		if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_NO_BINARY_FOR_GPU)
			rr_gpu_stage_advice(st, "the NVRTC is newer than the driver or does not know "
					    "this GPU; update the NVIDIA driver or use the NVRTC of "
					    "the CUDA version torch was built with");
		return false;
	}
	step = "cuModuleGetFunction";
	r = a->ModuleGetFunction(&fn, mod, RR_GPU_KERNEL_NAME);
	if (!r) {
		step = "cuMemAlloc";
		r = a->MemAlloc(&dx, n * sizeof(uint32_t));
	}
	if (!r)
		r = a->MemAlloc(&dout, n * sizeof(uint32_t));
	if (!r) {
		step = "cuMemcpyHtoD";
		r = a->MemcpyHtoD(dx, x, n * sizeof(uint32_t));
	}
	if (!r) {
		uint32_t nn = n;
		void *params[] = {&dout, &dx, &ka, &kb, &nn};
		step = "cuLaunchKernel";
		rr_gpu_progress("cuLaunchKernel on device %d", ord);
		r = a->LaunchKernel(fn, (n + RR_GPU_KERNEL_BLOCK - 1) / RR_GPU_KERNEL_BLOCK, 1, 1,
				    RR_GPU_KERNEL_BLOCK, 1, 1, 0, NULL, params, NULL);
	}
	if (!r) {
		step = "cuCtxSynchronize";
		rr_gpu_progress("cuCtxSynchronize on device %d", ord);
		r = a->CtxSynchronize();
	}
	if (!r) {
		step = "cuMemcpyDtoH";
		r = a->MemcpyDtoH(out, dout, n * sizeof(uint32_t));
	}
	if (dx)
		a->MemFree(dx);
	if (dout)
		a->MemFree(dout);
	a->ModuleUnload(mod);
	if (r) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s: %s failed: %s (%d)", label, step,
				 cerr(a, r), r);
		return false;
	}
	bad = rr_gpu_kernel_check(out, x, n, ka, kb, &want);
	if (bad < n) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s computed wrong results", label);
		rr_gpu_stage_detail(st, "first wrong element %zu: got 0x%08x, expected 0x%08x "
				    "(a=0x%08x b=0x%08x)", bad, out[bad], want, ka, kb);
		rr_gpu_stage_advice(st, "the device or its driver computes wrong answers; check "
				    "`nvidia-smi -q` for ECC/Xid errors and `dmesg`");
		return false;
	}
	rr_gpu_stage_detail(st, "%s: %u of %u results exact (a=0x%08x b=0x%08x)", label, n, n, ka,
			    kb);
	return true;
}

void rr_gpu_cuda_check(const struct rr_verify_opts *o, struct rr_verify_stage *st)
{
	static const char *const cu_names[] = {"libcuda.so.1", "libcuda.so"};
	RR_AUTO_STRBUF struct rr_strbuf fails = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf searched = RR_STRBUF_INIT;
	RR_AUTOFREE char *cu_path = NULL;
	RR_AUTOFREE char *rtc_path = NULL;
	const char **cands = NULL;
	char **owned = NULL;
	size_t n = 0, cap = 0, nowned = 0, capowned = 0;
	struct cu_api a = {0};
	struct nvrtc_api rtc = {0};
	const char *missing;
	void *h = NULL, *hrtc = NULL;
	int count = 0, ver = 0, passed = 0, rmaj = 0, rmin = 0;
	CUresult r;

	if (!o->no_loader_path)
		h = rr_gpu_dlopen_first(cu_names, RR_ARRAY_LEN(cu_names), &cu_path, &fails);
	if (!h) {
		if (fails.len) {
			const char *adv = rr_gpu_dlopen_advice(fails.buf);
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "the CUDA driver library exists but "
					 "does not load");
			rr_gpu_stage_detail_lines(st, "dlopen: ", fails.buf, 10);
			rr_gpu_stage_advice(st, "%s", adv ? adv : "see the dlopen error above");
		} else {
			rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "no CUDA driver (libcuda.so.1) "
					 "on the loader path");
			rr_gpu_stage_advice(st, "run the container with the NVIDIA runtime (`--gpus "
					    "all`) so that the driver library is mounted in");
		}
		goto out;
	}
	rr_gpu_stage_detail(st, "CUDA driver: %s", cu_path);
	if ((missing = cu_load(h, &a))) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s lacks %s", cu_path, missing);
		goto out;
	}
	nvrtc_candidates(o, &searched, &cands, &n, &cap, &owned, &nowned, &capowned);
	rr_strbuf_reset(&fails);
	hrtc = rr_gpu_dlopen_first(cands, n, &rtc_path, &fails);
	if (!hrtc) {
		rr_gpu_stage_set(st, fails.len ? RR_VERDICT_FAIL : RR_VERDICT_UNAVAILABLE,
				 "no usable NVRTC (libnvrtc.so) to compile the check kernel");
		rr_gpu_stage_detail(st, "searched %s", searched.buf);
		if (fails.len)
			rr_gpu_stage_detail_lines(st, "dlopen: ", fails.buf, 10);
		rr_gpu_stage_advice(st, "install the nvidia-cuda-nvrtc wheel of torch's CUDA version "
				    "or the CUDA toolkit");
		goto out;
	}
	if ((missing = nvrtc_load(hrtc, &rtc))) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s lacks %s", rtc_path, missing);
		goto out;
	}
	if (rtc.Version && !rtc.Version(&rmaj, &rmin))
		rr_gpu_stage_detail(st, "NVRTC %d.%d: %s", rmaj, rmin, rtc_path);
	else
		rr_gpu_stage_detail(st, "NVRTC: %s", rtc_path);

	rr_gpu_progress("cuInit");
	r = a.Init(0);
	if (!a.DriverGetVersion(&ver))
		rr_gpu_stage_detail(st, "CUDA driver version %d.%d", ver / 1000, ver % 1000 / 10);
	if (getenv("CUDA_VISIBLE_DEVICES"))
		rr_gpu_stage_detail(st, "CUDA_VISIBLE_DEVICES=%s (applied by the driver)",
				    getenv("CUDA_VISIBLE_DEVICES"));
	if (!r)
		r = a.DeviceGetCount(&count);
	if (r == CUDA_ERROR_NO_DEVICE || (!r && count <= 0)) {
		rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "the CUDA driver sees no device (%s)",
				 r ? cerr(&a, r) : "0 devices");
		rr_gpu_stage_advice(st, getenv("CUDA_VISIBLE_DEVICES")
						? "CUDA_VISIBLE_DEVICES hides devices; unset it"
						: "run the container with `--gpus all`");
		goto out;
	}
	if (r) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "cuInit/cuDeviceGetCount failed: %s (%d)",
				 cerr(&a, r), r);
		goto out;
	}
	rr_gpu_stage_detail(st, "%d visible device%s", count, count == 1 ? "" : "s");
	for (int ord = 0; ord < count; ord++) {
		RR_AUTO_STRBUF struct rr_strbuf log = RR_STRBUF_INIT;
		RR_AUTOFREE char *label = NULL;
		RR_AUTOFREE char *code = NULL;
		char name[256] = "";
		CUdevice dev = 0;
		CUcontext ctx = NULL;
		int major = 0, minor = 0;
		bool cubin = false;
		size_t codelen = 0;

		rr_gpu_progress("cuDeviceGet %d", ord);
		r = a.DeviceGet(&dev, ord);
		if (!r)
			r = a.DeviceGetName(name, (int)sizeof(name) - 1, dev);
		if (!r && a.DeviceGetAttribute) {
			r = a.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			if (!r)
				r = a.DeviceGetAttribute(&minor,
							 CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		} else if (!r) {
			r = a.DeviceComputeCapability(&major, &minor, dev);
		}
		if (!r)
			r = a.PrimaryCtxRetain ? a.PrimaryCtxRetain(&ctx, dev) : a.CtxCreate(&ctx, 0, dev);
		if (!r)
			r = a.CtxSetCurrent(ctx);
		if (r) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "device %d: cannot query it or create a "
					 "context: %s (%d)", ord, cerr(&a, r), r);
			goto out;
		}
		label = rr_xasprintf("device %d (%s, sm_%d%d)", ord, name[0] ? name : "unnamed",
				     major, minor);
		rr_gpu_progress("nvrtcCompileProgram for sm_%d%d", major, minor);
		code = nvrtc_compile(&rtc, major, minor, &cubin, &codelen, &log);
		if (!code) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "NVRTC could not compile the check kernel "
					 "for %s", label);
			rr_gpu_stage_detail_lines(st, "log: ", log.buf, 20);
			rr_gpu_stage_advice(st, "an NVRTC older than the GPU does not know sm_%d%d; use "
					    "the NVRTC that matches torch's CUDA version", major, minor);
			goto out;
		}
		if (!run_device(&a, ord, label, code, st))
			goto out;
		if (a.PrimaryCtxRetain && a.PrimaryCtxRelease)
			a.PrimaryCtxRelease(dev);
		passed++;
	}
	rr_gpu_stage_set(st, RR_VERDICT_PASS, "the check kernel ran exactly on %d of %d visible "
			 "device%s through %s", passed, count, count == 1 ? "" : "s", cu_path);
out:
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(owned);
	free(cands);
}

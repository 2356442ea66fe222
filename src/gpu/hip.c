/*
 * The HIP kernel check: dlopen the HIP runtime the way torch finds it, compile the embedded
 * kernel with hiprtc for each visible device's architecture, run it, check every element.
 * Runs in a forked child (see rr_gpu_run_isolated); prototypes are declared here so the build
 * never needs ROCm headers (pypi-facts.md section 4 has the ABI notes).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"

typedef int hipError_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hiprtcProgram;

enum {
	hipErrorNoDevice = 100,
	hipErrorInvalidDevice = 101,
	hipErrorInvalidImage = 200,
	hipErrorNoBinaryForGpu = 209,
	HIPRTC_ERROR_COMPILATION = 6,
	hipMemcpyHostToDevice = 1,
	hipMemcpyDeviceToHost = 2,
};

/* hipDeviceProp_t layouts: name at 0 in both; gcnArchName moved in ROCm 6 */
#define PROPS_BUF 8192
#define ARCH_OFF_R0600 1160
#define ARCH_OFF_R0000 396

struct hip_api {
	hipError_t (*Init)(unsigned);
	hipError_t (*RuntimeGetVersion)(int *);
	hipError_t (*GetDeviceCount)(int *);
	hipError_t (*SetDevice)(int);
	hipError_t (*GetDeviceProperties)(void *, int);
	size_t arch_off;
	hipError_t (*Malloc)(void **, size_t);
	hipError_t (*Free)(void *);
	hipError_t (*Memcpy)(void *, const void *, size_t, int);
	hipError_t (*ModuleLoadData)(hipModule_t *, const void *);
	hipError_t (*ModuleGetFunction)(hipFunction_t *, hipModule_t, const char *);
	hipError_t (*ModuleLaunchKernel)(hipFunction_t, unsigned, unsigned, unsigned, unsigned,
					 unsigned, unsigned, unsigned, void *, void **, void **);
	hipError_t (*DeviceSynchronize)(void);
	hipError_t (*ModuleUnload)(hipModule_t);
	const char *(*GetErrorString)(hipError_t);
};

struct hiprtc_api {
	int (*Create)(hiprtcProgram *, const char *, const char *, int, const char **,
		      const char **);
	int (*Compile)(hiprtcProgram, int, const char **);
	int (*GetProgramLogSize)(hiprtcProgram, size_t *);
	int (*GetProgramLog)(hiprtcProgram, char *);
	int (*GetCodeSize)(hiprtcProgram, size_t *);
	int (*GetCode)(hiprtcProgram, char *);
	int (*Destroy)(hiprtcProgram *);
	const char *(*GetErrorString)(int);
};

#define SYM(h, api, field, name, missing)                                                          \
	do {                                                                                       \
		*(void **)&(api)->field = dlsym(h, name);                                          \
		if (!(api)->field && !(missing))                                                   \
			(missing) = name;                                                          \
	} while (0)

static const char *hip_load(void *h, struct hip_api *api)
{
	const char *missing = NULL;

	SYM(h, api, Init, "hipInit", missing);
	SYM(h, api, RuntimeGetVersion, "hipRuntimeGetVersion", missing);
	SYM(h, api, GetDeviceCount, "hipGetDeviceCount", missing);
	SYM(h, api, SetDevice, "hipSetDevice", missing);
	SYM(h, api, Malloc, "hipMalloc", missing);
	SYM(h, api, Free, "hipFree", missing);
	SYM(h, api, Memcpy, "hipMemcpy", missing);
	SYM(h, api, ModuleLoadData, "hipModuleLoadData", missing);
	SYM(h, api, ModuleGetFunction, "hipModuleGetFunction", missing);
	SYM(h, api, ModuleLaunchKernel, "hipModuleLaunchKernel", missing);
	SYM(h, api, DeviceSynchronize, "hipDeviceSynchronize", missing);
	SYM(h, api, ModuleUnload, "hipModuleUnload", missing);
	SYM(h, api, GetErrorString, "hipGetErrorString", missing);
	/* ROCm 6 renamed the struct; the unversioned symbol keeps the old layout */
	*(void **)&api->GetDeviceProperties = dlsym(h, "hipGetDevicePropertiesR0600");
	api->arch_off = ARCH_OFF_R0600;
	if (!api->GetDeviceProperties) {
		*(void **)&api->GetDeviceProperties = dlsym(h, "hipGetDevicePropertiesR0000");
		if (!api->GetDeviceProperties)
			SYM(h, api, GetDeviceProperties, "hipGetDeviceProperties", missing);
		api->arch_off = ARCH_OFF_R0000;
	}
	return missing;
}

static const char *hiprtc_load(void *h, struct hiprtc_api *api)
{
	const char *missing = NULL;

	SYM(h, api, Create, "hiprtcCreateProgram", missing);
	SYM(h, api, Compile, "hiprtcCompileProgram", missing);
	SYM(h, api, GetProgramLogSize, "hiprtcGetProgramLogSize", missing);
	SYM(h, api, GetProgramLog, "hiprtcGetProgramLog", missing);
	SYM(h, api, GetCodeSize, "hiprtcGetCodeSize", missing);
	SYM(h, api, GetCode, "hiprtcGetCode", missing);
	SYM(h, api, Destroy, "hiprtcDestroyProgram", missing);
	SYM(h, api, GetErrorString, "hiprtcGetErrorString", missing);
	return missing;
}

static const char *herr(const struct hip_api *api, hipError_t e)
{
	const char *s = api->GetErrorString ? api->GetErrorString(e) : NULL;

	return s ? s : "unknown error";
}

static void add_candidates(const char ***cands, size_t *n, size_t *cap, char ***owned,
			   size_t *nowned, size_t *capowned, const char *dir, const char *base)
{
	static const char *const sfx[] = {"", ".7", ".6", ".5"};

	for (size_t i = 0; i < RR_ARRAY_LEN(sfx); i++) {
		char *p = dir ? rr_xasprintf("%s/%s%s", dir, base, sfx[i])
			      : rr_xasprintf("%s%s", base, sfx[i]);
		RR_PUSH(*owned, *nowned, *capowned) = p;
		RR_PUSH(*cands, *n, *cap) = p;
	}
}

struct search {
	const char **cands;
	size_t n, cap;
	char **owned;
	size_t nowned, capowned;
};

static void search_add(struct search *s, const char *dir, const char *base)
{
	add_candidates(&s->cands, &s->n, &s->cap, &s->owned, &s->nowned, &s->capowned, dir, base);
}

static void search_release(struct search *s)
{
	for (size_t i = 0; i < s->nowned; i++)
		free(s->owned[i]);
	free(s->owned);
	free(s->cands);
}

/* torch's own lib first (what `import torch` maps), then ROCm, then the loader path */
static void search_build(const struct rr_verify_opts *o, const char *base, const char *first,
			 struct search *s)
{
	RR_AUTOFREE char *rocm_lib = NULL;

	if (first)
		search_add(s, first, base);
	if (o->torch_lib_dir)
		search_add(s, o->torch_lib_dir, base);
	rocm_lib = rr_xasprintf("%s/lib", o->rocm_path ? o->rocm_path : "/opt/rocm");
	search_add(s, rocm_lib, base);
	if (!o->no_loader_path) {
		search_add(s, "/opt/rocm/lib", base);
		search_add(s, NULL, base);
	}
}

static void visible_details(struct rr_verify_stage *st)
{
	static const char *const vars[] = {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
					   "CUDA_VISIBLE_DEVICES"};

	for (size_t i = 0; i < RR_ARRAY_LEN(vars); i++) {
		const char *v = getenv(vars[i]);
		if (v)
			rr_gpu_stage_detail(st, "%s=%s (applied by the runtime)", vars[i], v);
	}
}

static const char *override_note(void)
{
	return getenv("HSA_OVERRIDE_GFX_VERSION") ? "HSA_OVERRIDE_GFX_VERSION is set"
						   : "HSA_OVERRIDE_GFX_VERSION is not set";
}

struct compiled {
	char arch[256];
	char *code;
	size_t len;
};

/* compile once per architecture; returns the code object or NULL (stage set to FAIL) */
static char *compile_for(const struct hiprtc_api *rtc, const char *arch, struct compiled **cache,
			 size_t *ncache, size_t *capcache, struct rr_verify_stage *st)
{
	RR_AUTOFREE char *opt = rr_xasprintf("--gpu-architecture=%s", arch);
	const char *opts[] = {opt};
	hiprtcProgram prog = NULL;
	size_t logsz = 0, codesz = 0;
	char *code;
	int r;

	for (size_t i = 0; i < *ncache; i++)
		if (!strcmp((*cache)[i].arch, arch))
			return (*cache)[i].code;
	rr_gpu_progress("hiprtcCompileProgram for %s", arch);
	r = rtc->Create(&prog, rr_gpu_kernel_source(), "rr_check.hip", 0, NULL, NULL);
	if (r) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "hiprtcCreateProgram failed: %s",
				 rtc->GetErrorString(r));
		return NULL;
	}
	r = rtc->Compile(prog, 1, opts);
	if (r) {
		RR_AUTOFREE char *log = NULL;
		if (!rtc->GetProgramLogSize(prog, &logsz) && logsz) {
			log = rr_xcalloc(1, logsz + 1);
			rtc->GetProgramLog(prog, log);
		}
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "hiprtc could not compile the check kernel "
				 "for %s: %s", arch, rtc->GetErrorString(r));
		if (log)
			rr_gpu_stage_detail_lines(st, "log: ", log, 20);
		rr_gpu_stage_advice(st, "if the log names the architecture, this ROCm does not "
				    "support %s (%s); otherwise the ROCm compiler libraries "
				    "(libamd_comgr) do not match the runtime", arch, override_note());
		rtc->Destroy(&prog);
		return NULL;
	}
	if (rtc->GetCodeSize(prog, &codesz) || !codesz) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "hiprtc produced no code for %s", arch);
		rtc->Destroy(&prog);
		return NULL;
	}
	code = rr_xmalloc(codesz);
	rtc->GetCode(prog, code);
	rtc->Destroy(&prog);
	struct compiled *c = &RR_PUSH(*cache, *ncache, *capcache);
	snprintf(c->arch, sizeof(c->arch), "%s", arch);
	c->code = code;
	c->len = codesz;
	return code;
}

/* one device: load, launch, check; false (stage set) on failure */
static bool run_device(const struct hip_api *api, int dev, const char *label, const char *arch,
		       const char *code, struct rr_verify_stage *st)
{
	const uint32_t n = RR_GPU_KERNEL_N;
	RR_AUTOFREE uint32_t *x = rr_xmalloc(n * sizeof(*x));
	RR_AUTOFREE uint32_t *out = rr_xcalloc(n, sizeof(*out));
	void *dx = NULL, *dout = NULL;
	hipModule_t mod = NULL;
	hipFunction_t fn = NULL;
	uint32_t a, b, want = 0;
	hipError_t e;
	size_t bad;
	const char *step;

	rr_gpu_kernel_inputs(x, n, &a, &b);
	rr_gpu_progress("hipModuleLoadData on device %d", dev);
	e = api->ModuleLoadData(&mod, code);
	if (e) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s: hipModuleLoadData failed: %s (%d)", label,
				 herr(api, e), e);
		if (e == hipErrorNoBinaryForGpu || e == hipErrorInvalidImage)
			rr_gpu_stage_advice(st, "the runtime has no usable code object for %s: this "
					    "ROCm does not support the architecture (%s); use a "
					    "ROCm/torch build that lists %s", arch, override_note(),
					    arch);
		return false;
	}
	step = "hipModuleGetFunction";
	e = api->ModuleGetFunction(&fn, mod, RR_GPU_KERNEL_NAME);
	if (!e) {
		step = "hipMalloc";
		e = api->Malloc(&dx, n * sizeof(uint32_t));
	}
	if (!e)
		e = api->Malloc(&dout, n * sizeof(uint32_t));
	if (!e) {
		step = "hipMemcpy (to the device)";
		e = api->Memcpy(dx, x, n * sizeof(uint32_t), hipMemcpyHostToDevice);
	}
	if (!e) {
		uint32_t nn = n;
		void *params[] = {&dout, &dx, &a, &b, &nn};
		step = "hipModuleLaunchKernel";
		rr_gpu_progress("hipModuleLaunchKernel on device %d", dev);
		e = api->ModuleLaunchKernel(fn, (n + RR_GPU_KERNEL_BLOCK - 1) / RR_GPU_KERNEL_BLOCK, 1,
					    1, RR_GPU_KERNEL_BLOCK, 1, 1, 0, NULL, params, NULL);
	}
	if (!e) {
		step = "hipDeviceSynchronize";
		rr_gpu_progress("hipDeviceSynchronize on device %d", dev);
		e = api->DeviceSynchronize();
	}
	if (!e) {
		step = "hipMemcpy (to the host)";
		e = api->Memcpy(out, dout, n * sizeof(uint32_t), hipMemcpyDeviceToHost);
	}
	if (dx)
		api->Free(dx);
	if (dout)
		api->Free(dout);
	api->ModuleUnload(mod);
	if (e) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s: %s failed: %s (%d)", label, step,
				 herr(api, e), e);
		return false;
	}
	bad = rr_gpu_kernel_check(out, x, n, a, b, &want);
	if (bad < n) {
		size_t nbad = 0;
		for (size_t i = bad; i < n; i++)
			nbad += out[i] != ((a * x[i] + b) ^ ((uint32_t)i * 2654435769u));
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s computed wrong results: %zu of %u elements "
				 "differ", label, nbad, n);
		rr_gpu_stage_detail(st, "first wrong element %zu: got 0x%08x, expected 0x%08x "
				    "(a=0x%08x b=0x%08x)", bad, out[bad], want, a, b);
		rr_gpu_stage_advice(st, "the device or its driver computes wrong answers; check "
				    "`dmesg` for amdgpu errors, and whether HSA_OVERRIDE_GFX_VERSION "
				    "forces code for another architecture (%s)", override_note());
		return false;
	}
	rr_gpu_stage_detail(st, "%s: %u of %u results exact (a=0x%08x b=0x%08x)", label, n, n, a,
			    b);
	return true;
}

void rr_gpu_hip_check(const struct rr_verify_opts *o, struct rr_verify_stage *st)
{
	const char *root = o->sysfs_root ? o->sysfs_root : "/";
	struct search s = {0}, srtc = {0};
	RR_AUTO_STRBUF struct rr_strbuf fails = RR_STRBUF_INIT;
	RR_AUTO_STRBUF struct rr_strbuf rtcfails = RR_STRBUF_INIT;
	RR_AUTOFREE struct rr_kfd_gpu *gpus = NULL;
	RR_AUTOFREE char *hip_path = NULL;
	RR_AUTOFREE char *rtc_path = NULL;
	RR_AUTOFREE char *hip_dir = NULL;
	struct compiled *cache = NULL;
	size_t ncache = 0, capcache = 0, ngpus;
	struct hip_api api = {0};
	struct hiprtc_api rtc = {0};
	void *h = NULL, *hrtc = NULL;
	const char *missing;
	int count = 0, ver = 0, passed = 0;
	hipError_t e, einit;

	ngpus = rr_gpu_sysfs_gpus(root, &gpus);
	for (size_t i = 0; i < ngpus; i++)
		rr_gpu_stage_detail(st, "KFD node %u: %s (gfx_target_version %u)", gpus[i].node,
				    gpus[i].arch, gpus[i].gfx_target_version);
	if (!rr_gpu_sysfs_has_kfd(root)) {
		rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "no %s/dev/kfd: the ROCm kernel driver "
				 "is not reachable", strcmp(root, "/") ? root : "");
		rr_gpu_stage_advice(st, "the container needs --device=/dev/kfd --device=/dev/dri "
				    "(and the user in the video and render groups); on the host, "
				    "load the amdgpu driver");
		return;
	}

	search_build(o, "libamdhip64.so", NULL, &s);
	h = rr_gpu_dlopen_first(s.cands, s.n, &hip_path, &fails);
	if (!h) {
		const char *adv = fails.len ? rr_gpu_dlopen_advice(fails.buf) : NULL;
		if (fails.len) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "the HIP runtime exists but does not load");
			rr_gpu_stage_detail_lines(st, "dlopen: ", fails.buf, 10);
			rr_gpu_stage_advice(st, "%s", adv ? adv : "see the dlopen error above");
		} else {
			rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "no HIP runtime (libamdhip64.so) "
					 "found");
			rr_gpu_stage_detail(st, "searched %s%s%s/lib%s",
					    o->torch_lib_dir ? o->torch_lib_dir : "",
					    o->torch_lib_dir ? ", " : "",
					    o->rocm_path ? o->rocm_path : "/opt/rocm",
					    o->no_loader_path ? "" : ", /opt/rocm/lib, the loader path");
			rr_gpu_stage_advice(st, "install a ROCm build of torch (it ships "
					    "torch/lib/libamdhip64.so) or ROCm itself; set ROCM_PATH "
					    "if it lives outside /opt/rocm");
		}
		goto out;
	}
	rr_gpu_stage_detail(st, "HIP runtime: %s", hip_path);
	if ((missing = hip_load(h, &api))) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s lacks %s: not a usable HIP runtime", hip_path,
				 missing);
		goto out;
	}

	/* hiprtc next to the runtime (version-matched), else inside it (ROCm 5), else search */
	{
		char *slash = strrchr(hip_path, '/');
		hip_dir = slash ? rr_xstrndup(hip_path, (size_t)(slash - hip_path)) : NULL;
		struct search near = {0};
		if (hip_dir) {
			search_add(&near, hip_dir, "libhiprtc.so");
			hrtc = rr_gpu_dlopen_first(near.cands, near.n, &rtc_path, &rtcfails);
		}
		search_release(&near);
		if (!hrtc && dlsym(h, "hiprtcCreateProgram")) {
			hrtc = h;
			rtc_path = rr_xasprintf("%s (built-in hiprtc)", hip_path);
		}
		if (!hrtc) {
			search_build(o, "libhiprtc.so", NULL, &srtc);
			hrtc = rr_gpu_dlopen_first(srtc.cands, srtc.n, &rtc_path, &rtcfails);
		}
	}
	if (!hrtc) {
		rr_gpu_stage_set(st, rtcfails.len ? RR_VERDICT_FAIL : RR_VERDICT_UNAVAILABLE,
				 "no usable hiprtc (libhiprtc.so) to compile the check kernel");
		if (rtcfails.len)
			rr_gpu_stage_detail_lines(st, "dlopen: ", rtcfails.buf, 10);
		rr_gpu_stage_advice(st, "install the ROCm runtime compiler (libhiprtc, part of "
				    "hip-runtime-amd) matching %s", hip_path);
		goto out;
	}
	rr_gpu_stage_detail(st, "hiprtc: %s", rtc_path);
	if ((missing = hiprtc_load(hrtc, &rtc))) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s lacks %s", rtc_path, missing);
		goto out;
	}

	rr_gpu_progress("hipInit");
	einit = api.Init(0);
	if (!api.RuntimeGetVersion(&ver))
		rr_gpu_stage_detail(st, "HIP runtime version %d", ver);
	visible_details(st);
	rr_gpu_progress("hipGetDeviceCount");
	e = api.GetDeviceCount(&count);
	if (e == hipErrorNoDevice || e == hipErrorInvalidDevice || (!e && count <= 0)) {
		rr_gpu_stage_set(st, RR_VERDICT_UNAVAILABLE, "the HIP runtime sees no device (%s)",
				 e ? herr(&api, e) : "0 devices");
		if (einit)
			rr_gpu_stage_detail(st, "hipInit: %s (%d)", herr(&api, einit), einit);
		if (getenv("HIP_VISIBLE_DEVICES") || getenv("ROCR_VISIBLE_DEVICES") ||
		    getenv("CUDA_VISIBLE_DEVICES"))
			rr_gpu_stage_advice(st, "a *_VISIBLE_DEVICES variable hides devices; unset it "
					    "or name a device that exists");
		else
			rr_gpu_stage_advice(st, "the container needs --device=/dev/kfd --device=/dev/dri "
					    "and the user in the video and render groups; check that "
					    "amdgpu is loaded (`ls /sys/class/kfd`)");
		goto out;
	}
	if (e) {
		rr_gpu_stage_set(st, RR_VERDICT_FAIL, "hipGetDeviceCount failed: %s (%d)",
				 herr(&api, e), e);
		goto out;
	}
	rr_gpu_stage_detail(st, "%d visible device%s", count, count == 1 ? "" : "s");

	for (int dev = 0; dev < count; dev++) {
		RR_AUTOFREE unsigned char *props = rr_xcalloc(1, PROPS_BUF);
		RR_AUTOFREE char *label = NULL;
		char name[257] = "", arch[257] = "";
		const char *code;

		rr_gpu_progress("hipGetDeviceProperties for device %d", dev);
		if ((e = api.SetDevice(dev)) || (e = api.GetDeviceProperties(props, dev))) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "device %d: cannot query it: %s (%d)",
					 dev, herr(&api, e), e);
			goto out;
		}
		memcpy(name, props, 256);
		memcpy(arch, props + api.arch_off, 256);
		/* older runtimes may leave gcnArchName empty; KFD knows, when nothing is hidden */
		if (!arch[0] && (size_t)count == ngpus)
			snprintf(arch, sizeof(arch), "%s", gpus[dev].arch);
		label = rr_xasprintf("device %d (%s, %s)", dev, name[0] ? name : "unnamed",
				     arch[0] ? arch : "unknown arch");
		if (!arch[0]) {
			rr_gpu_stage_set(st, RR_VERDICT_FAIL, "%s: the runtime does not report the "
					 "architecture and KFD sysfs cannot tell it", label);
			goto out;
		}
		if (!(code = compile_for(&rtc, arch, &cache, &ncache, &capcache, st)))
			goto out;
		if (!run_device(&api, dev, label, arch, code, st))
			goto out;
		passed++;
	}
	rr_gpu_stage_set(st, RR_VERDICT_PASS, "the check kernel ran exactly on %d of %d visible "
			 "device%s through %s", passed, count, count == 1 ? "" : "s", hip_path);
out:
	for (size_t i = 0; i < ncache; i++)
		free(cache[i].code);
	free(cache);
	search_release(&s);
	search_release(&srtc);
	/* the child exits right after; unloading a runtime with live threads is asking for trouble */
}

char *rr_gpu_hiprtc_compile_with(const char *lib, const char *arch, size_t *len,
				 struct rr_strbuf *log)
{
	struct rr_verify_stage st = {.name = "kernel"};
	struct hiprtc_api rtc = {0};
	struct compiled *cache = NULL;
	size_t ncache = 0, capcache = 0;
	const char *missing;
	char *code = NULL;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		rr_strbuf_addf(log, "%s", dlerror());
		return NULL;
	}
	if ((missing = hiprtc_load(h, &rtc))) {
		rr_strbuf_addf(log, "%s lacks %s", lib, missing);
		return NULL;
	}
	if (compile_for(&rtc, arch, &cache, &ncache, &capcache, &st)) {
		code = cache[0].code;
		*len = cache[0].len;
	} else {
		rr_strbuf_addf(log, "%s", st.summary ? st.summary : "compile failed");
		for (size_t i = 0; i < st.ndetails; i++)
			rr_strbuf_addf(log, "\n%s", st.details[i]);
	}
	free(cache);
	rr_gpu_stage_release(&st);
	return code;
}

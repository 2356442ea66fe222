/*
 * Test double of libcuda.so.1 (the driver API) for the CUDA backend. One or more fake
 * "NVIDIA H100" devices of compute capability RR_FAKE_CUDA_CC (default 90); the module image
 * must be the fake NVRTC's cubin for that sm. Kernels run on the CPU (fake-common.h).
 */
#include "fake-common.h"

#define MODE "RR_FAKE_CUDA_MODE"

typedef unsigned long long CUdeviceptr;

FAKE_EXPORT int cuInit(unsigned flags);
FAKE_EXPORT int cuDriverGetVersion(int *v);
FAKE_EXPORT int cuDeviceGetCount(int *n);
FAKE_EXPORT int cuDeviceGet(int *dev, int ord);
FAKE_EXPORT int cuDeviceGetName(char *name, int len, int dev);
FAKE_EXPORT int cuDeviceGetAttribute(int *v, int attr, int dev);
FAKE_EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int dev);
FAKE_EXPORT int cuDevicePrimaryCtxRelease_v2(int dev);
FAKE_EXPORT int cuCtxSetCurrent(void *ctx);
FAKE_EXPORT int cuModuleLoadData(void **m, const void *image);
FAKE_EXPORT int cuModuleGetFunction(void **f, void *m, const char *name);
FAKE_EXPORT int cuMemAlloc_v2(CUdeviceptr *p, size_t n);
FAKE_EXPORT int cuMemFree_v2(CUdeviceptr p);
FAKE_EXPORT int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n);
FAKE_EXPORT int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n);
FAKE_EXPORT int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			       unsigned by, unsigned bz, unsigned shm, void *stream, void **params,
			       void **extra);
FAKE_EXPORT int cuCtxSynchronize(void);
FAKE_EXPORT int cuModuleUnload(void *m);
FAKE_EXPORT int cuGetErrorString(int e, const char **s);

static int inited, ctx_set;
static int module_token;

static int cc(void)
{
	const char *v = getenv("RR_FAKE_CUDA_CC");
	return v ? atoi(v) : 90;
}

static int count(void)
{
	return fake_visible("CUDA_VISIBLE_DEVICES", fake_devices());
}

int cuInit(unsigned flags)
{
	if (flags)
		return 1;
	if (fake_is(MODE, "nodevice"))
		return 100; /* CUDA_ERROR_NO_DEVICE, as the real driver says it */
	inited = 1;
	return 0;
}

int cuDriverGetVersion(int *v)
{
	*v = 12040;
	return 0;
}

int cuDeviceGetCount(int *n)
{
	if (!inited)
		return 3; /* CUDA_ERROR_NOT_INITIALIZED */
	*n = count();
	return 0;
}

int cuDeviceGet(int *dev, int ord)
{
	if (!inited)
		return 3;
	if (ord < 0 || ord >= count())
		return 101;
	*dev = ord;
	return 0;
}

int cuDeviceGetName(char *name, int len, int dev)
{
	snprintf(name, (size_t)len, "NVIDIA H100 80GB HBM3 (fake %d)", dev);
	return 0;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	(void)dev;
	if (attr == 75)
		*v = cc() / 10;
	else if (attr == 76)
		*v = cc() % 10;
	else
		return 1;
	return 0;
}

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
	*ctx = (void *)(intptr_t)(dev + 1);
	return 0;
}

int cuDevicePrimaryCtxRelease_v2(int dev)
{
	(void)dev;
	return 0;
}

int cuCtxSetCurrent(void *ctx)
{
	ctx_set = ctx != NULL;
	return 0;
}

int cuModuleLoadData(void **m, const void *image)
{
	char want[32];

	if (!ctx_set)
		return 201; /* CUDA_ERROR_INVALID_CONTEXT */
	snprintf(want, sizeof(want), "RRFAKE-CUBIN sm_%d", cc());
	if (strcmp(image, want))
		return 209; /* CUDA_ERROR_NO_BINARY_FOR_GPU */
	*m = &module_token;
	return 0;
}

int cuModuleGetFunction(void **f, void *m, const char *name)
{
	if (m != &module_token || strcmp(name, "rr_check"))
		return 500;
	*f = m;
	return 0;
}

int cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	*p = (CUdeviceptr)(uintptr_t)calloc(1, n);
	return 0;
}

int cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return 0;
}

int cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

int cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
		   unsigned bz, unsigned shm, void *stream, void **params, void **extra)
{
	(void)shm, (void)stream;
	if (f != &module_token || gy != 1 || gz != 1 || by != 1 || bz != 1 || !params || extra)
		return 1;
	if (fake_is(MODE, "crash"))
		fake_crash();
	fake_run_kernel(gx, bx, params, fake_is(MODE, "wrong-result"));
	return 0;
}

int cuCtxSynchronize(void)
{
	if (fake_is(MODE, "hang"))
		fake_hang();
	return 0;
}

int cuModuleUnload(void *m)
{
	return m == &module_token ? 0 : 1;
}

int cuGetErrorString(int e, const char **s)
{
	switch (e) {
	case 0:
		*s = "no error";
		return 0;
	case 100:
		*s = "no CUDA-capable device is detected";
		return 0;
	case 209:
		*s = "no kernel image is available for execution on the device";
		return 0;
	default:
		*s = "unknown error";
		return 0;
	}
}

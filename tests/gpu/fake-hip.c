/*
 * Test double of libamdhip64.so. Built twice: ROCm 6 style (hipGetDevicePropertiesR0600,
 * gcnArchName at 1160; hiprtc lives in a separate libhiprtc.so) and, with -DFAKE_ROCM5, ROCm 5
 * style (only the old hipGetDeviceProperties, gcnArchName at 396, hiprtc symbols inside).
 * Device memory is host memory; kernels run on the CPU (fake-common.h).
 */
#include "fake-common.h"

#ifdef FAKE_ROCM5
#include "fake-hiprtc.c"
#endif

#define MODE "RR_FAKE_HIP_MODE"

struct fake_module {
	char arch[64];
};

FAKE_EXPORT int hipInit(unsigned flags);
FAKE_EXPORT int hipRuntimeGetVersion(int *v);
FAKE_EXPORT int hipGetDeviceCount(int *n);
FAKE_EXPORT int hipSetDevice(int d);
FAKE_EXPORT int hipGetDeviceProperties(void *p, int d);
#ifndef FAKE_ROCM5
FAKE_EXPORT int hipGetDevicePropertiesR0600(void *p, int d);
#endif
FAKE_EXPORT int hipMalloc(void **p, size_t n);
FAKE_EXPORT int hipFree(void *p);
FAKE_EXPORT int hipMemcpy(void *dst, const void *src, size_t n, int kind);
FAKE_EXPORT int hipModuleLoadData(struct fake_module **m, const void *image);
FAKE_EXPORT int hipModuleGetFunction(void **f, struct fake_module *m, const char *name);
FAKE_EXPORT int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
				      unsigned by, unsigned bz, unsigned shm, void *stream,
				      void **params, void **extra);
FAKE_EXPORT int hipDeviceSynchronize(void);
FAKE_EXPORT int hipModuleUnload(struct fake_module *m);
FAKE_EXPORT const char *hipGetErrorString(int e);

static int fake_count(void)
{
	int n = fake_devices();

	/* the real runtime applies all three; the fake honours two of them */
	n = fake_visible("HIP_VISIBLE_DEVICES", n);
	return fake_visible("CUDA_VISIBLE_DEVICES", n);
}

static int current;

int hipInit(unsigned flags)
{
	if (flags)
		return 1;
	return fake_is(MODE, "nodevice") ? 100 : 0;
}

int hipRuntimeGetVersion(int *v)
{
#ifdef FAKE_ROCM5
	*v = 50221153;
#else
	*v = 60342134;
#endif
	return 0;
}

int hipGetDeviceCount(int *n)
{
	*n = fake_is(MODE, "nodevice") ? 0 : fake_count();
	return *n ? 0 : 100;
}

int hipSetDevice(int d)
{
	if (d < 0 || d >= fake_count())
		return 101;
	current = d;
	return 0;
}

static void props(unsigned char *p, int d, size_t arch_off, size_t size)
{
	memset(p, 0, size);
	snprintf((char *)p, 256, "AMD Instinct MI300X (fake %d)", d);
	if (!fake_is(MODE, "empty-arch"))
		snprintf((char *)p + arch_off, 256, "%s", fake_hip_arch());
}

int hipGetDeviceProperties(void *p, int d)
{
	if (d < 0 || d >= fake_count())
		return 101;
	props(p, d, 396, 792);
	return 0;
}

#ifndef FAKE_ROCM5
int hipGetDevicePropertiesR0600(void *p, int d)
{
	if (d < 0 || d >= fake_count())
		return 101;
	props(p, d, 1160, 1472);
	return 0;
}
#endif

int hipMalloc(void **p, size_t n)
{
	*p = calloc(1, n);
	return 0;
}

int hipFree(void *p)
{
	free(p);
	return 0;
}

int hipMemcpy(void *dst, const void *src, size_t n, int kind)
{
	if (kind != 1 && kind != 2)
		return 1;
	memcpy(dst, src, n);
	return 0;
}

int hipModuleLoadData(struct fake_module **m, const void *image)
{
	const char *img = image;
	const char *arch = fake_hip_arch();

	if (strncmp(img, "RRFAKE-HSACO ", 13))
		return 200; /* hipErrorInvalidImage */
	if (fake_is(MODE, "unsupported-arch"))
		return 209; /* hipErrorNoBinaryForGpu */
	if (strncmp(img + 13, arch, strcspn(arch, ":")))
		return 209;
	*m = calloc(1, sizeof(**m));
	snprintf((*m)->arch, sizeof((*m)->arch), "%s", img + 13);
	return 0;
}

int hipModuleGetFunction(void **f, struct fake_module *m, const char *name)
{
	if (strcmp(name, "rr_check"))
		return 500; /* hipErrorNotFound */
	*f = m;
	return 0;
}


int hipModuleLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			  unsigned by, unsigned bz, unsigned shm, void *stream, void **params,
			  void **extra)
{
	(void)shm, (void)stream;
	if (!f || gy != 1 || gz != 1 || by != 1 || bz != 1 || !params || extra || bx > 1024)
		return 1;
	if (fake_is(MODE, "crash"))
		fake_crash();
	fake_run_kernel(gx, bx, params, fake_is(MODE, "wrong-result"));
	return 0;
}

int hipDeviceSynchronize(void)
{
	if (fake_is(MODE, "hang"))
		fake_hang();
	return 0;
}

int hipModuleUnload(struct fake_module *m)
{
	free(m);
	return 0;
}

const char *hipGetErrorString(int e)
{
	switch (e) {
	case 0:
		return "hipSuccess";
	case 1:
		return "hipErrorInvalidValue";
	case 100:
		return "hipErrorNoDevice";
	case 101:
		return "hipErrorInvalidDevice";
	case 200:
		return "hipErrorInvalidImage";
	case 209:
		return "hipErrorNoBinaryForGpu";
	case 500:
		return "hipErrorNotFound";
	default:
		return "hipErrorUnknown";
	}
}

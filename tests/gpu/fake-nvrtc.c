/* Test double of libnvrtc.so: "compiles" only the known kernel, to a fake cubin naming sm_XY */
#include "fake-common.h"

struct fake_prog {
	char *src;
	char *log;
	char code[64];
};

FAKE_EXPORT int nvrtcVersion(int *maj, int *min);
FAKE_EXPORT const char *nvrtcGetErrorString(int r);
FAKE_EXPORT int nvrtcCreateProgram(struct fake_prog **p, const char *src, const char *name,
				   int nh, const char *const *h, const char *const *hn);
FAKE_EXPORT int nvrtcCompileProgram(struct fake_prog *p, int n, const char *const *opts);
FAKE_EXPORT int nvrtcGetProgramLogSize(struct fake_prog *p, size_t *n);
FAKE_EXPORT int nvrtcGetProgramLog(struct fake_prog *p, char *log);
FAKE_EXPORT int nvrtcGetCUBINSize(struct fake_prog *p, size_t *n);
FAKE_EXPORT int nvrtcGetCUBIN(struct fake_prog *p, char *code);
FAKE_EXPORT int nvrtcGetPTXSize(struct fake_prog *p, size_t *n);
FAKE_EXPORT int nvrtcGetPTX(struct fake_prog *p, char *code);
FAKE_EXPORT int nvrtcDestroyProgram(struct fake_prog **p);

int nvrtcVersion(int *maj, int *min)
{
	*maj = 12;
	*min = 4;
	return 0;
}

const char *nvrtcGetErrorString(int r)
{
	return r == 0 ? "NVRTC_SUCCESS" : r == 6 ? "NVRTC_ERROR_COMPILATION"
				       : "NVRTC_ERROR_INVALID_OPTION";
}

int nvrtcCreateProgram(struct fake_prog **p, const char *src, const char *name, int nh,
		       const char *const *h, const char *const *hn)
{
	(void)name, (void)nh, (void)h, (void)hn;
	*p = calloc(1, sizeof(**p));
	(*p)->src = strdup(src);
	return 0;
}

int nvrtcCompileProgram(struct fake_prog *p, int n, const char *const *opts)
{
	if (fake_is("RR_FAKE_CUDA_MODE", "compile-fail") || !fake_known_kernel(p->src)) {
		p->log = strdup("rr_check.cu(9): error: identifier \"x\" is undefined\n"
				"1 error detected in the compilation of \"rr_check.cu\".\n");
		return 6;
	}
	if (n != 1 || strncmp(opts[0], "--gpu-architecture=sm_", 22)) {
		p->log = strdup("nvrtc: error: invalid value for --gpu-architecture (-arch)\n");
		return 7;
	}
	snprintf(p->code, sizeof(p->code), "RRFAKE-CUBIN %s", opts[0] + 19);
	return 0;
}

int nvrtcGetProgramLogSize(struct fake_prog *p, size_t *n)
{
	*n = p->log ? strlen(p->log) + 1 : 1;
	return 0;
}

int nvrtcGetProgramLog(struct fake_prog *p, char *log)
{
	strcpy(log, p->log ? p->log : "");
	return 0;
}

int nvrtcGetCUBINSize(struct fake_prog *p, size_t *n)
{
	*n = strlen(p->code) + 1;
	return 0;
}

int nvrtcGetCUBIN(struct fake_prog *p, char *code)
{
	strcpy(code, p->code);
	return 0;
}

int nvrtcGetPTXSize(struct fake_prog *p, size_t *n)
{
	(void)p;
	*n = 0;
	return 1; /* asked for PTX after a cubin compile */
}

int nvrtcGetPTX(struct fake_prog *p, char *code)
{
	(void)p, (void)code;
	return 1;
}

int nvrtcDestroyProgram(struct fake_prog **p)
{
	free((*p)->src);
	free((*p)->log);
	free(*p);
	*p = NULL;
	return 0;
}

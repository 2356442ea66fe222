/*
 * Test double of hiprtc: libhiprtc.so (ROCm 6) or, included into fake-hip.c, the hiprtc
 * symbols that libamdhip64.so exported in ROCm 5. "Compiles" only the known kernel, for the
 * architecture the fake device reports; the code object names that architecture.
 */
#include "fake-common.h"

struct fake_prog {
	char *src;
	char *log;
	char *code;
	size_t code_len;
};

FAKE_EXPORT const char *hiprtcGetErrorString(int r);
FAKE_EXPORT int hiprtcCreateProgram(struct fake_prog **p, const char *src, const char *name,
				    int nh, const char **h, const char **hn);
FAKE_EXPORT int hiprtcCompileProgram(struct fake_prog *p, int n, const char **opts);
FAKE_EXPORT int hiprtcGetProgramLogSize(struct fake_prog *p, size_t *n);
FAKE_EXPORT int hiprtcGetProgramLog(struct fake_prog *p, char *log);
FAKE_EXPORT int hiprtcGetCodeSize(struct fake_prog *p, size_t *n);
FAKE_EXPORT int hiprtcGetCode(struct fake_prog *p, char *code);
FAKE_EXPORT int hiprtcDestroyProgram(struct fake_prog **p);

const char *hiprtcGetErrorString(int r)
{
	switch (r) {
	case 0:
		return "HIPRTC_SUCCESS";
	case 5:
		return "HIPRTC_ERROR_INVALID_OPTION";
	case 6:
		return "HIPRTC_ERROR_COMPILATION";
	default:
		return "HIPRTC_ERROR_INTERNAL_ERROR";
	}
}

int hiprtcCreateProgram(struct fake_prog **p, const char *src, const char *name, int nh,
			const char **h, const char **hn)
{
	(void)name, (void)nh, (void)h, (void)hn;
	*p = calloc(1, sizeof(**p));
	(*p)->src = strdup(src);
	return 0;
}

int hiprtcCompileProgram(struct fake_prog *p, int n, const char **opts)
{
	const char *arch = fake_hip_arch();
	size_t base = strcspn(arch, ":");

	if (fake_is("RR_FAKE_HIP_MODE", "compile-fail") || !fake_known_kernel(p->src)) {
		p->log = strdup("rr_check.hip:9:12: error: use of undeclared identifier 'x'\n"
				"1 error generated when compiling for gfx942.\n");
		return 6;
	}
	/* exactly one option, naming the device's architecture (features allowed) */
	if (n != 1 || strncmp(opts[0], "--gpu-architecture=", 19) ||
	    strncmp(opts[0] + 19, arch, base) || (opts[0][19 + base] && opts[0][19 + base] != ':')) {
		p->log = strdup("error: invalid or missing --gpu-architecture option\n");
		return 5;
	}
	p->code_len = 64;
	p->code = calloc(1, p->code_len);
	snprintf(p->code, p->code_len, "RRFAKE-HSACO %s", opts[0] + 19);
	return 0;
}

int hiprtcGetProgramLogSize(struct fake_prog *p, size_t *n)
{
	*n = p->log ? strlen(p->log) + 1 : 1;
	return 0;
}

int hiprtcGetProgramLog(struct fake_prog *p, char *log)
{
	strcpy(log, p->log ? p->log : "");
	return 0;
}

int hiprtcGetCodeSize(struct fake_prog *p, size_t *n)
{
	*n = p->code_len;
	return 0;
}

int hiprtcGetCode(struct fake_prog *p, char *code)
{
	memcpy(code, p->code, p->code_len);
	return 0;
}

int hiprtcDestroyProgram(struct fake_prog **p)
{
	free((*p)->src);
	free((*p)->log);
	free((*p)->code);
	free(*p);
	*p = NULL;
	return 0;
}

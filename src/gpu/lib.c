/* dlopen helpers shared by the HIP and CUDA backends, and the kernel's host-side half */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu-embedded.h"
#include "gpu/gpu.h"
#include "rocm-resolve/strbuf.h"

const char *rr_gpu_kernel_source(void)
{
	return (const char *)rr_kernel_rr_check;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

void rr_gpu_kernel_inputs(uint32_t *x, size_t n, uint32_t *a, uint32_t *b)
{
	struct timespec ts;
	uint64_t s;

	clock_gettime(CLOCK_REALTIME, &ts);
	s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
	*a = (uint32_t)splitmix(&s) | 1u; /* odd: the map x -> a*x+b is a bijection mod 2^32 */
	*b = (uint32_t)splitmix(&s);
	for (size_t i = 0; i < n; i++)
		x[i] = (uint32_t)splitmix(&s);
}

size_t rr_gpu_kernel_check(const uint32_t *out, const uint32_t *x, size_t n, uint32_t a,
			   uint32_t b, uint32_t *want)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t w = (a * x[i] + b) ^ ((uint32_t)i * 2654435769u);
		if (out[i] != w) {
			*want = w;
			return i;
		}
	}
	return n;
}

void *rr_gpu_dlopen_first(const char *const *cands, size_t n, char **loaded,
			  struct rr_strbuf *failures)
{
	for (size_t i = 0; i < n; i++) {
		bool is_path = strchr(cands[i], '/') != NULL;
		void *h;
		const char *msg;

		/* a path that does not exist is no news; one that exists and fails to load is */
		if (is_path && access(cands[i], F_OK))
			continue;
		h = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*loaded = rr_xstrdup(cands[i]);
			return h;
		}
		msg = dlerror();
		if (!msg || (!is_path && strstr(msg, "cannot open shared object file")))
			continue;
		rr_strbuf_addf(failures, "%s%s", failures->len ? "\n" : "", msg);
	}
	return NULL;
}

const char *rr_gpu_dlopen_advice(const char *msg)
{
	if (strstr(msg, "cannot enable executable stack"))
		return "the library asks for an executable stack and this kernel or seccomp policy "
		       "refuses it; clear the flag with `execstack -c <library>` (or `patchelf "
		       "--clear-execstack`), or use a ROCm build without it";
	if (strstr(msg, "undefined symbol") || strstr(msg, "version `"))
		return "the library does not match the other ROCm/CUDA libraries it needs; "
		       "reinstall torch or ROCm so that their versions agree";
	if (strstr(msg, "cannot open shared object file"))
		return "a library it depends on is missing; check `ldd` on it";
	if (strstr(msg, "wrong ELF class") || strstr(msg, "invalid ELF header"))
		return "the library is not a loadable x86_64 shared object (wrong architecture "
		       "or a corrupt download)";
	return NULL;
}

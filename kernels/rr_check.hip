// rocm-resolve GPU check kernel. The same text is compiled at run time by hiprtc (HIP) and by
// NVRTC (CUDA): no includes, only the built-in thread indices. Unsigned arithmetic wraps, so
// the host can check every element exactly; the index term catches a wrong thread mapping.
extern "C" __global__ void rr_check(unsigned int *out, const unsigned int *x, unsigned int a,
				    unsigned int b, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = (a * x[i] + b) ^ (i * 2654435769u);
}

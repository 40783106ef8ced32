/*
 * linear_bias_gelu - trusted reference (GPU): one thread per element of
 * y, the dot product accumulated in float64 from the exact bf16 inputs
 * (every product is exact), bias added and the tanh GELU evaluated in
 * float64, rounded to bf16 (nearest even) once.  The rows are a
 * grid-stride loop so any m fits the grid.  A host reference would take
 * minutes at these sizes.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

__device__ double bf(uint16_t v)
{
	return (double)__uint_as_float((uint32_t)v << 16);
}

__device__ uint16_t to_bf16(double v)
{
	/* double -> float -> bf16: can differ from one direct rounding only
	 * when the float is exactly a bf16 midpoint; the tolerance (one bf16
	 * ulp) covers that. */
	uint32_t u = __float_as_uint((float)v);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void ref_kernel(const uint16_t *x, const uint16_t *w,
			   const uint16_t *bias, uint16_t *y, int64_t m,
			   int64_t n, int64_t k)
{
	int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
		double z = 0.0;
		for (int64_t p = 0; p < k; p++)
			z += bf(x[i * k + p]) * bf(w[j * k + p]);
		z += bf(bias[j]);
		double g = 0.5 * z *
			   (1.0 + tanh(sqrt(2.0 / M_PI) *
				       (z + 0.044715 * z * z * z)));
		y[i * n + j] = to_bf16(g);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != n * k || args[2].numel != n ||
	    args[3].numel != m * n)
		return 2;
	dim3 grid((unsigned)((n + 127) / 128), (unsigned)(m < 65535 ? m : 65535));
	ref_kernel<<<grid, 128, 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const uint16_t *)args[2].data, (uint16_t *)args[3].data, m, n,
		k);
	return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

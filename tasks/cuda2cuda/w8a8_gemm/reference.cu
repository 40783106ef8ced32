/*
 * w8a8_gemm - trusted reference (GPU): one thread per element of c, the
 * int8 products summed in int64, scaled in float64 and rounded to bf16
 * (nearest even) once.  The rows are a grid-stride loop so any m fits the
 * grid.  A host reference would take minutes at these sizes.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

__device__ uint16_t to_bf16(double v)
{
	/* double -> float -> bf16: can differ from one direct rounding only
	 * when the float is exactly a bf16 midpoint; the tolerance (one bf16
	 * ulp) covers that. */
	uint32_t u = __float_as_uint((float)v);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void ref_kernel(const int8_t *a, const int8_t *w, const float *as,
			   const float *ws, uint16_t *c, int64_t m, int64_t n,
			   int64_t k)
{
	int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (j >= n)
		return;
	for (int64_t i = blockIdx.y; i < m; i += gridDim.y) {
		long long acc = 0;
		for (int64_t p = 0; p < k; p++)
			acc += (long long)a[i * k + p] * (long long)w[j * k + p];
		c[i * n + j] = to_bf16((double)acc * (double)as[i] *
				       (double)ws[j]);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != n * k || args[2].numel != m ||
	    args[3].numel != n || args[4].numel != m * n)
		return 2;
	dim3 grid((unsigned)((n + 127) / 128), (unsigned)(m < 65535 ? m : 65535));
	ref_kernel<<<grid, 128, 0, (cudaStream_t)stream>>>(
		(const int8_t *)args[0].data, (const int8_t *)args[1].data,
		(const float *)args[2].data, (const float *)args[3].data,
		(uint16_t *)args[4].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

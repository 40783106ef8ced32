/*
 * gemm_bf16 - trusted reference (GPU): C = A * B from bf16 A and B, every
 * dot product accumulated in float64 (each bf16 product is exact) and
 * rounded to float once.  One thread per element of C; the rows are a
 * grid-stride loop so any m fits the grid.  A host reference in double
 * would take minutes at these sizes, so this one runs on the device, in its
 * own runner.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

__device__ double bf16_to_double(uint16_t v)
{
	return (double)__uint_as_float((uint32_t)v << 16);
}

__global__ void gemm_ref(const uint16_t *a, const uint16_t *b, float *c,
			 int64_t m, int64_t n, int64_t k)
{
	int64_t col = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (col >= n)
		return;
	for (int64_t row = blockIdx.y; row < m; row += gridDim.y) {
		double acc = 0.0;
		for (int64_t p = 0; p < k; p++)
			acc += bf16_to_double(a[row * k + p]) *
			       bf16_to_double(b[p * n + col]);
		c[row * n + col] = (float)acc;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != k * n || args[2].numel != m * n ||
	    args[0].dtype != ARENA_BF16 || args[1].dtype != ARENA_BF16 ||
	    args[2].dtype != ARENA_F32)
		return 2;
	dim3 grid((unsigned)((n + 127) / 128), (unsigned)(m < 65535 ? m : 65535));
	hipLaunchKernelGGL(gemm_ref, grid, dim3(128), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (float *)args[2].data,
			   m, n, k);
	return hipGetLastError() == hipSuccess ? 0 : 3;
}

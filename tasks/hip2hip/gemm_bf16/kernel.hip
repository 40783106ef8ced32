/*
 * gemm_bf16 - baseline: C = A * B with row-major bfloat16 A [m, k] and
 * B [k, n] and a float32 C [m, n], accumulated in float32.
 *
 * bf16 values are handled as raw 16-bit patterns (the upper half of a
 * float32), which builds the same with every HIP and CUDA version.
 *
 * Naive on purpose: one thread per element of C in TILE x TILE blocks,
 * each converting and multiplying a row of A and a column of B straight
 * from global memory - no shared-memory tiling and no matrix (tensor core)
 * instructions.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif

__device__ __forceinline__ float bf16_to_float(uint16_t v)
{
	return __uint_as_float((uint32_t)v << 16);
}

__global__ void __launch_bounds__(TILE * TILE)
gemm_kernel(const uint16_t *__restrict__ a, const uint16_t *__restrict__ b,
	    float *__restrict__ c, int64_t m, int64_t n, int64_t k)
{
	int64_t col = (int64_t)blockIdx.x * TILE + threadIdx.x;
	if (col >= n)
		return;
	/* grid.y is capped at 65535 blocks: step over the remaining rows. */
	for (int64_t row = (int64_t)blockIdx.y * TILE + threadIdx.y; row < m;
	     row += (int64_t)gridDim.y * TILE) {
		float acc = 0.0f;
		for (int64_t p = 0; p < k; p++)
			acc += bf16_to_float(a[row * k + p]) *
			       bf16_to_float(b[p * n + col]);
		c[row * n + col] = acc;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || (n + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != k * n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m * n)
		return 3;
	int64_t gy = (m + TILE - 1) / TILE;
	dim3 grid((unsigned)((n + TILE - 1) / TILE),
		  (unsigned)(gy < 65535 ? gy : 65535));
	hipLaunchKernelGGL(gemm_kernel, grid, dim3(TILE, TILE), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (float *)args[2].data,
			   m, n, k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

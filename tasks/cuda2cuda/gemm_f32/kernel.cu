/*
 * gemm_f32 - baseline: C = A * B for row-major float32 matrices A [m, k],
 * B [k, n], C [m, n].
 *
 * Naive on purpose: one thread per element of C in TILE x TILE blocks, each
 * walking a row of A and a column of B straight from global memory (no
 * shared-memory tiling, no register blocking), accumulating in float32 in
 * increasing k order.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif

__global__ void __launch_bounds__(TILE * TILE)
gemm_kernel(const float *a, const float *b, float *c, long long m,
	    long long n, long long k)
{
	long long col = (long long)blockIdx.x * TILE + threadIdx.x;
	if (col >= n)
		return;
	/* grid.y is capped at 65535 blocks: step over the remaining rows. */
	for (long long row = (long long)blockIdx.y * TILE + threadIdx.y; row < m;
	     row += (long long)gridDim.y * TILE) {
		float acc = 0.0f;
		for (long long p = 0; p < k; p++)
			acc += a[row * k + p] * b[p * n + col];
		c[row * n + col] = acc;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	long long m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || (n + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_F32 || args[1].numel != k * n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m * n)
		return 3;
	long long gy = (m + TILE - 1) / TILE;
	dim3 grid((unsigned)((n + TILE - 1) / TILE),
		  (unsigned)(gy < 65535 ? gy : 65535));
	gemm_kernel<<<grid, dim3(TILE, TILE), 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (const float *)args[1].data,
		(float *)args[2].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

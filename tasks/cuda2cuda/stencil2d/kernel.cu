/*
 * stencil2d - baseline: one Jacobi step of the 5-point stencil,
 * v = average of the four neighbours of u inside, v = u on the boundary.
 *
 * Naive on purpose: one thread per point in TILE x TILE blocks, each
 * loading its four neighbours straight from global memory (every u value
 * is loaded by up to four threads; the caches absorb part of it), no
 * shared-memory tile and one output per thread.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif

__global__ void __launch_bounds__(TILE * TILE)
stencil_kernel(const float *u, float *v, long long rows, long long cols)
{
	long long j = (long long)blockIdx.x * TILE + threadIdx.x;
	if (j >= cols)
		return;
	/* grid.y is capped at 65535 blocks: step over the remaining rows. */
	for (long long i = (long long)blockIdx.y * TILE + threadIdx.y; i < rows;
	     i += (long long)gridDim.y * TILE) {
		long long e = i * cols + j;
		if (i == 0 || j == 0 || i == rows - 1 || j == cols - 1)
			v[e] = u[e];
		else
			v[e] = 0.25f * (u[e - cols] + u[e + cols] + u[e - 1] +
					u[e + 1]);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	long long rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || (cols + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	long long gy = (rows + TILE - 1) / TILE;
	dim3 grid((unsigned)((cols + TILE - 1) / TILE),
		  (unsigned)(gy < 65535 ? gy : 65535));
	stencil_kernel<<<grid, dim3(TILE, TILE), 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (float *)args[1].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

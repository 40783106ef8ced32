/*
 * transpose - baseline: b[j][i] = a[i][j] for a row-major float32 matrix
 * a [rows, cols] and its transpose b [cols, rows].
 *
 * Naive on purpose: a 2-D grid of TILE x TILE thread blocks, one thread
 * per element; threads adjacent in x read adjacent elements of a row of a
 * (coalesced) but write elements of b that are `rows` floats apart, so
 * every store touches its own memory segment.  No shared-memory staging.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif

__global__ void __launch_bounds__(TILE * TILE)
transpose_kernel(const float *__restrict__ a, float *__restrict__ b,
		 int64_t rows, int64_t cols)
{
	int64_t j = (int64_t)blockIdx.x * TILE + threadIdx.x;	/* column of a */
	if (j >= cols)
		return;
	/* grid.y is capped at 65535 blocks: step over the rest of the rows. */
	for (int64_t i = (int64_t)blockIdx.y * TILE + threadIdx.y; i < rows;
	     i += (int64_t)gridDim.y * TILE)
		b[j * rows + i] = a[i * cols + j];
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || (cols + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	int64_t gy = (rows + TILE - 1) / TILE;
	dim3 grid((unsigned)((cols + TILE - 1) / TILE),
		  (unsigned)(gy < 65535 ? gy : 65535));
	hipLaunchKernelGGL(transpose_kernel, grid, dim3(TILE, TILE), 0,
			   (hipStream_t)stream, (const float *)args[0].data,
			   (float *)args[1].data, rows, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

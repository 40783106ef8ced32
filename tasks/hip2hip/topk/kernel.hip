/*
 * topk - baseline: the k largest values of every row of x [rows, cols]
 * (descending; equal values by ascending column) and their column indices.
 *
 * Naive on purpose: one thread per row.  Each thread walks its whole row
 * alone, keeping a sorted list of the best k in local arrays and inserting
 * with a linear shift.  Neighbouring threads read addresses a full row
 * apart, so loads are uncoalesced, and with few rows most of the GPU sits
 * idle.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 64
#endif
#define MAXK 32

__global__ void __launch_bounds__(BLOCK)
topk_kernel(const float *__restrict__ x, float *__restrict__ values,
	    int *__restrict__ indices, int64_t rows, int64_t cols, int k)
{
	int64_t r = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (r >= rows)
		return;
	const float *xr = x + r * cols;
	float val[MAXK];
	int idx[MAXK];
	int cnt = 0;
	for (int64_t c = 0; c < cols; c++) {
		float v = xr[c];
		/* A later column only displaces a strictly smaller value. */
		if (cnt == k && !(v > val[k - 1]))
			continue;
		int j = cnt < k ? cnt : k - 1;
		while (j > 0 && val[j - 1] < v) {
			val[j] = val[j - 1];
			idx[j] = idx[j - 1];
			j--;
		}
		val[j] = v;
		idx[j] = (int)c;
		if (cnt < k)
			cnt++;
	}
	for (int j = 0; j < k; j++) {
		values[r * k + j] = val[j];
		indices[r * k + j] = idx[j];
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t rows = params[0], cols = params[1], k = params[2];
	if (rows <= 0 || cols <= 0 || k < 1 || k > MAXK || k > cols ||
	    cols > 0x7fffffff || (rows + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * k ||
	    args[2].dtype != ARENA_I32 || args[2].numel != rows * k)
		return 3;
	hipLaunchKernelGGL(topk_kernel, dim3((unsigned)((rows + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (float *)args[1].data,
			   (int *)args[2].data, rows, cols, (int)k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

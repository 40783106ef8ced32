/*
 * argsort_rows_bf16 - baseline: stable descending sort of each row of a
 * bf16 matrix, writing the sorted values and their column indices.
 *
 * Naive on purpose: one block per row; the row's (value, index) pairs are
 * padded to the next power of two P with (-inf, index >= cols) and sorted
 * by a bitonic network in shared memory, one __syncthreads per stage.
 * Comparing (value, index) - larger value first, then lower index - makes
 * the network's result the stable order.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

#define MAX_COLS 4096

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

__device__ __forceinline__ bool before(float va, int ia, float vb, int ib)
{
	return va > vb || (va == vb && ia < ib);
}

__global__ void __launch_bounds__(BLOCK)
argsort_kernel(const uint16_t *__restrict__ x, uint16_t *__restrict__ values,
	       int *__restrict__ indices, int cols, int p2)
{
	__shared__ float key[MAX_COLS];
	__shared__ int idx[MAX_COLS];
	const uint16_t *xr = x + (int64_t)blockIdx.x * cols;

	for (int i = threadIdx.x; i < p2; i += BLOCK) {
		key[i] = i < cols ? bf16_to_float(xr[i]) : -INFINITY;
		idx[i] = i;
	}
	__syncthreads();
	for (int size = 2; size <= p2; size *= 2)
		for (int stride = size / 2; stride > 0; stride /= 2) {
			for (int t = threadIdx.x; t < p2 / 2; t += BLOCK) {
				int i = 2 * stride * (t / stride) + t % stride;
				int j = i + stride;
				bool up = (i & size) == 0;
				if (before(key[j], idx[j], key[i], idx[i]) == up) {
					float kv = key[i];
					int iv = idx[i];
					key[i] = key[j];
					idx[i] = idx[j];
					key[j] = kv;
					idx[j] = iv;
				}
			}
			__syncthreads();
		}
	for (int i = threadIdx.x; i < cols; i += BLOCK) {
		values[(int64_t)blockIdx.x * cols + i] = xr[idx[i]];
		indices[(int64_t)blockIdx.x * cols + i] = idx[i];
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || rows > 0x7fffffff || cols <= 0 || cols > MAX_COLS)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != rows * cols ||
	    args[2].dtype != ARENA_I32 || args[2].numel != rows * cols)
		return 3;
	int p2 = 1;
	while (p2 < cols)
		p2 *= 2;
	hipLaunchKernelGGL(argsort_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (uint16_t *)args[1].data, (int *)args[2].data,
			   (int)cols, p2);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

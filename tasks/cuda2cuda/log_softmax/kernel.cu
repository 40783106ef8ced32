/*
 * log_softmax - baseline: y = x - max - log(sum(exp(x - max))) for each row
 * of a float32 matrix x [rows, cols].
 *
 * Naive on purpose: one block of BLOCK threads per row, three passes over
 * the row in global memory (max, sum of exponentials, write), each
 * reduction a shared-memory tree with a __syncthreads per level.
 */
#include <cuda_runtime.h>
#include <math.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
log_softmax_kernel(const float *x, float *y, long long cols)
{
	__shared__ float s[BLOCK];
	const float *xr = x + (long long)blockIdx.x * cols;
	float *yr = y + (long long)blockIdx.x * cols;

	float m = -INFINITY;
	for (long long c = threadIdx.x; c < cols; c += BLOCK)
		m = fmaxf(m, xr[c]);
	s[threadIdx.x] = m;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + stride]);
		__syncthreads();
	}
	m = s[0];
	__syncthreads();

	float sum = 0.0f;
	for (long long c = threadIdx.x; c < cols; c += BLOCK)
		sum += expf(xr[c] - m);
	s[threadIdx.x] = sum;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	float lse = m + logf(s[0]);

	for (long long c = threadIdx.x; c < cols; c += BLOCK)
		yr[c] = xr[c] - lse;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	long long rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	log_softmax_kernel<<<(unsigned)rows, BLOCK, 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (float *)args[1].data, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

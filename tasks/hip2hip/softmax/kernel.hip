/*
 * softmax - baseline: row-wise softmax of a float32 matrix x [rows, cols].
 *
 * Naive on purpose: one block of BLOCK threads per row and three passes
 * over the row in global memory - the maximum, the sum of exponentials,
 * then every exponential a second time divided by the sum.  Both
 * reductions go through shared memory as a textbook tree with a
 * __syncthreads per level (no warp shuffles), and the row is reloaded for
 * each pass instead of being kept in registers.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* Tree reduction of s[0..BLOCK) into s[0]; every thread must call it. */
__device__ float block_reduce_max(float *s)
{
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + stride]);
		__syncthreads();
	}
	float r = s[0];
	__syncthreads();
	return r;
}

__device__ float block_reduce_sum(float *s)
{
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	float r = s[0];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
softmax_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t cols)
{
	__shared__ float s[BLOCK];
	const float *xr = x + (int64_t)blockIdx.x * cols;
	float *yr = y + (int64_t)blockIdx.x * cols;

	float m = -INFINITY;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		m = fmaxf(m, xr[c]);
	s[threadIdx.x] = m;
	__syncthreads();
	m = block_reduce_max(s);

	float sum = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		sum += expf(xr[c] - m);
	s[threadIdx.x] = sum;
	__syncthreads();
	sum = block_reduce_sum(s);

	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		yr[c] = expf(xr[c] - m) / sum;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	hipLaunchKernelGGL(softmax_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const float *)args[0].data,
			   (float *)args[1].data, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

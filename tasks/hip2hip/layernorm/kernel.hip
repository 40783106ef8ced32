/*
 * layernorm - baseline: y = (x - mean) / sqrt(var + 1e-5) * gamma + beta
 * for each row of a float32 matrix x [rows, cols].
 *
 * Naive on purpose: one block of BLOCK threads per row, three passes over
 * the row in global memory (mean, variance around the mean, normalize),
 * each reduction a shared-memory tree with a __syncthreads per level, and
 * a true division by the standard deviation for every element.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* Sum of s[0..BLOCK) by a tree; every thread must call it. */
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
layernorm_kernel(const float *__restrict__ x, const float *__restrict__ gamma,
		 const float *__restrict__ beta, float *__restrict__ y,
		 int64_t cols)
{
	__shared__ float s[BLOCK];
	const float *xr = x + (int64_t)blockIdx.x * cols;
	float *yr = y + (int64_t)blockIdx.x * cols;

	float acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		acc += xr[c];
	s[threadIdx.x] = acc;
	__syncthreads();
	float mean = block_reduce_sum(s) / (float)cols;

	acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float d = xr[c] - mean;
		acc += d * d;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	float var = block_reduce_sum(s) / (float)cols;
	float sd = sqrtf(var + 1e-5f);

	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		yr[c] = (xr[c] - mean) / sd * gamma[c] + beta[c];
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != cols ||
	    args[2].dtype != ARENA_F32 || args[2].numel != cols ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows * cols)
		return 3;
	hipLaunchKernelGGL(layernorm_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const float *)args[0].data,
			   (const float *)args[1].data, (const float *)args[2].data,
			   (float *)args[3].data, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

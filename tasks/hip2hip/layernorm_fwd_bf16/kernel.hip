/*
 * layernorm_fwd_bf16 - baseline: y = (x - mean) * rstd * gamma + beta per
 * row of a bf16 matrix, with mean and rstd = 1/sqrt(var + 1e-5) saved in
 * float32.
 *
 * Naive on purpose: one block of BLOCK threads per row, three passes over
 * the row in global memory (mean, variance around the mean, normalize)
 * with scalar 2-byte loads, textbook shared-memory tree reductions, and a
 * division by the standard deviation per element.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

/* Round to nearest even; NaN stays a (quiet) NaN. */
__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

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
layernorm_fwd_kernel(const uint16_t *__restrict__ x,
		     const uint16_t *__restrict__ gamma,
		     const uint16_t *__restrict__ beta, uint16_t *__restrict__ y,
		     float *__restrict__ mean_out, float *__restrict__ rstd_out,
		     int64_t cols)
{
	__shared__ float s[BLOCK];
	const uint16_t *xr = x + (int64_t)blockIdx.x * cols;
	uint16_t *yr = y + (int64_t)blockIdx.x * cols;

	float acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		acc += bf16_to_float(xr[c]);
	s[threadIdx.x] = acc;
	__syncthreads();
	float mean = block_reduce_sum(s) / (float)cols;

	acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float d = bf16_to_float(xr[c]) - mean;
		acc += d * d;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	float var = block_reduce_sum(s) / (float)cols;
	float sd = sqrtf(var + 1e-5f);
	if (threadIdx.x == 0) {
		mean_out[blockIdx.x] = mean;
		rstd_out[blockIdx.x] = 1.0f / sd;
	}

	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		yr[c] = float_to_bf16((bf16_to_float(xr[c]) - mean) / sd *
				      bf16_to_float(gamma[c]) +
				      bf16_to_float(beta[c]));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 6 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != cols ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != cols ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != rows * cols ||
	    args[4].dtype != ARENA_F32 || args[4].numel != rows ||
	    args[5].dtype != ARENA_F32 || args[5].numel != rows)
		return 3;
	hipLaunchKernelGGL(layernorm_fwd_kernel, dim3((unsigned)rows), dim3(BLOCK),
			   0, (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data,
			   (const uint16_t *)args[2].data, (uint16_t *)args[3].data,
			   (float *)args[4].data, (float *)args[5].data, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

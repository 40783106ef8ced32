/*
 * rmsnorm_bwd_bf16 - timing baseline (not shown to the agent as a starting
 * point): dx = rstd * (dy*w - xhat * mean(dy*w*xhat)) per row, and
 * dw = column sums of dy * xhat.  One block per row, three passes over the
 * row in global memory (sum of squares, sum of g*xhat, write dx) with
 * scalar 2-byte loads and shared-memory tree reductions; dw is zeroed with
 * hipMemsetAsync and accumulated with one float atomicAdd per element, so
 * every column receives `rows` contended atomics.
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
rmsnorm_bwd_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
		   const uint16_t *__restrict__ dy, uint16_t *__restrict__ dx,
		   float *__restrict__ dw, int64_t cols)
{
	__shared__ float s[BLOCK];
	int64_t off = (int64_t)blockIdx.x * cols;

	float acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float v = bf16_to_float(x[off + c]);
		acc += v * v;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	float rstd = rsqrtf(block_reduce_sum(s) / (float)cols + 1e-5f);

	acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		acc += bf16_to_float(dy[off + c]) * bf16_to_float(w[c]) *
		       bf16_to_float(x[off + c]) * rstd;
	s[threadIdx.x] = acc;
	__syncthreads();
	float m = block_reduce_sum(s) / (float)cols;

	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float xhat = bf16_to_float(x[off + c]) * rstd;
		float g = bf16_to_float(dy[off + c]);
		dx[off + c] = float_to_bf16(rstd * (g * bf16_to_float(w[c]) - xhat * m));
		atomicAdd(&dw[c], g * xhat);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != cols ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != rows * cols ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != rows * cols ||
	    args[4].dtype != ARENA_F32 || args[4].numel != cols)
		return 3;
	hipStream_t s = (hipStream_t)stream;
	if (hipMemsetAsync(args[4].data, 0, (size_t)cols * sizeof(float), s) !=
	    hipSuccess)
		return 4;
	hipLaunchKernelGGL(rmsnorm_bwd_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   s, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data,
			   (const uint16_t *)args[2].data, (uint16_t *)args[3].data,
			   (float *)args[4].data, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

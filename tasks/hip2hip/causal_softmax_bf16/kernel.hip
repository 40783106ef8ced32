/*
 * causal_softmax_bf16 - baseline: y = softmax(scale * x) over the causal
 * (lower-triangular) part of each row of bf16 score matrices, zeros above
 * the diagonal.
 *
 * Naive on purpose: one block of BLOCK threads per row (batches * sq
 * blocks), three passes over the row's live entries in global memory
 * (max, sum of exponentials, normalize and write) with scalar 2-byte
 * accesses and shared-memory reductions, then a pass writing the zeros.
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

/* Every thread must call these; sh holds BLOCK + 1 floats. */
__device__ float block_max(float v, float *sh)
{
	for (int off = warpSize / 2; off > 0; off /= 2)
		v = fmaxf(v, __shfl_xor(v, off));
	if (threadIdx.x % warpSize == 0)
		sh[threadIdx.x / warpSize] = v;
	__syncthreads();
	if (threadIdx.x == 0) {
		float m = sh[0];
		for (int i = 1; i < BLOCK / warpSize; i++)
			m = fmaxf(m, sh[i]);
		sh[BLOCK] = m;
	}
	__syncthreads();
	float r = sh[BLOCK];
	__syncthreads();
	return r;
}

__device__ float block_sum(float v, float *sh)
{
	for (int off = warpSize / 2; off > 0; off /= 2)
		v += __shfl_xor(v, off);
	if (threadIdx.x % warpSize == 0)
		sh[threadIdx.x / warpSize] = v;
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0.0f;
		for (int i = 0; i < BLOCK / warpSize; i++)
			s += sh[i];
		sh[BLOCK] = s;
	}
	__syncthreads();
	float r = sh[BLOCK];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
causal_softmax_kernel(const uint16_t *__restrict__ x, uint16_t *__restrict__ y,
		      int64_t sq, float scale)
{
	__shared__ float sh[BLOCK + 1];
	int64_t row = blockIdx.x, i = row % sq, live = i + 1;
	const uint16_t *xr = x + row * sq;
	uint16_t *yr = y + row * sq;

	float m = -INFINITY;
	for (int64_t j = threadIdx.x; j < live; j += BLOCK)
		m = fmaxf(m, scale * bf16_to_float(xr[j]));
	m = block_max(m, sh);
	float s = 0.0f;
	for (int64_t j = threadIdx.x; j < live; j += BLOCK)
		s += expf(scale * bf16_to_float(xr[j]) - m);
	s = block_sum(s, sh);
	for (int64_t j = threadIdx.x; j < live; j += BLOCK)
		yr[j] = float_to_bf16(expf(scale * bf16_to_float(xr[j]) - m) / s);
	for (int64_t j = live + threadIdx.x; j < sq; j += BLOCK)
		yr[j] = 0;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 3)
		return 1;
	int64_t batches = params[0], sq = params[1], head_dim = params[2];
	if (batches <= 0 || sq <= 0 || head_dim <= 0 ||
	    batches * sq > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != batches * sq * sq ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batches * sq * sq)
		return 3;
	float scale = 1.0f / sqrtf((float)head_dim);
	hipLaunchKernelGGL(causal_softmax_kernel, dim3((unsigned)(batches * sq)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data, (uint16_t *)args[1].data,
			   sq, scale);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

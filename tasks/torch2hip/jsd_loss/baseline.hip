/*
 * jsd_loss - timing baseline: one block of BLOCK threads per row, four
 * passes over the row in global memory with scalar 2-byte loads and
 * shared-memory reductions: the two maxima, the two sums of exponentials,
 * the loss and the sum of Q * dL/dlogQ, then the gradient.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__device__ __forceinline__ float bf16_to_f32(uint16_t h)
{
	return __uint_as_float((uint32_t)h << 16);
}

/* float -> bf16 bits, round to nearest even (NaN stays NaN). */
__device__ __forceinline__ uint16_t f32_to_bf16(float f)
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
jsd_kernel(const uint16_t *__restrict__ st, const uint16_t *__restrict__ te,
	   float *__restrict__ loss, uint16_t *__restrict__ grad,
	   int64_t vocab, float inv_rows)
{
	__shared__ float sh[BLOCK + 1];
	int64_t row = blockIdx.x;
	const uint16_t *s = st + row * vocab, *t = te + row * vocab;
	uint16_t *gr = grad + row * vocab;

	float ms = -INFINITY, mt = -INFINITY;
	for (int64_t c = threadIdx.x; c < vocab; c += BLOCK) {
		ms = fmaxf(ms, bf16_to_f32(s[c]));
		mt = fmaxf(mt, bf16_to_f32(t[c]));
	}
	ms = block_max(ms, sh);
	mt = block_max(mt, sh);
	float ss = 0.0f, stt = 0.0f;
	for (int64_t c = threadIdx.x; c < vocab; c += BLOCK) {
		ss += expf(bf16_to_f32(s[c]) - ms);
		stt += expf(bf16_to_f32(t[c]) - mt);
	}
	float lse_s = ms + logf(block_sum(ss, sh));
	float lse_t = mt + logf(block_sum(stt, sh));
	float l = 0.0f, gs = 0.0f;
	for (int64_t c = threadIdx.x; c < vocab; c += BLOCK) {
		float lq = bf16_to_f32(s[c]) - lse_s, lp = bf16_to_f32(t[c]) - lse_t;
		float q = expf(lq), p = expf(lp);
		float lm = logf(0.5f * p + 0.5f * q);
		l += 0.5f * p * (lp - lm) + 0.5f * q * (lq - lm);
		gs += q * 0.5f * (lq - lm);
	}
	l = block_sum(l, sh);
	gs = block_sum(gs, sh);
	if (threadIdx.x == 0)
		loss[row] = l;
	for (int64_t c = threadIdx.x; c < vocab; c += BLOCK) {
		float lq = bf16_to_f32(s[c]) - lse_s, lp = bf16_to_f32(t[c]) - lse_t;
		float q = expf(lq), p = expf(lp);
		float lm = logf(0.5f * p + 0.5f * q);
		gr[c] = f32_to_bf16(q * (0.5f * (lq - lm) - gs) * inv_rows);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], vocab = params[1];
	if (rows <= 0 || vocab <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * vocab ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != rows * vocab ||
	    args[2].dtype != ARENA_F32 || args[2].numel != rows ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != rows * vocab)
		return 3;
	hipLaunchKernelGGL(jsd_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (float *)args[2].data,
			   (uint16_t *)args[3].data, vocab, 1.0f / (float)rows);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

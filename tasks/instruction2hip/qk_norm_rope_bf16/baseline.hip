/*
 * qk_norm_rope_bf16 - timing baseline (not shown to the agent as a
 * starting point): per token, every q and k head RMS-normalized with its
 * weight and rotated (NeoX layout), in place on the packed bf16 qkv.
 * One block per token; the nq + nkv heads are processed one after the
 * other: scalar 2-byte loads, a shared-memory tree reduction for the sum
 * of squares, the normalized head staged in shared memory, then the
 * rotation, with several __syncthreads per head.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

#define MAX_D 512

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
qk_norm_rope_kernel(const int64_t *__restrict__ positions,
		    uint16_t *__restrict__ qkv, const uint16_t *__restrict__ q_w,
		    const uint16_t *__restrict__ k_w,
		    const float *__restrict__ cos_sin, int64_t nq, int64_t nkv,
		    int64_t d)
{
	__shared__ float s[BLOCK];
	__shared__ float n[MAX_D];
	int64_t t = blockIdx.x, half = d / 2;
	uint16_t *row = qkv + t * (nq + 2 * nkv) * d;
	const float *cs = cos_sin + positions[t] * d;

	for (int64_t head = 0; head < nq + nkv; head++) {
		uint16_t *x = row + head * d;
		const uint16_t *w = head < nq ? q_w : k_w;
		float acc = 0.0f;
		for (int64_t i = threadIdx.x; i < d; i += BLOCK) {
			float v = bf16_to_float(x[i]);
			acc += v * v;
		}
		s[threadIdx.x] = acc;
		__syncthreads();
		float rstd = rsqrtf(block_reduce_sum(s) / (float)d + 1e-6f);
		for (int64_t i = threadIdx.x; i < d; i += BLOCK)
			n[i] = bf16_to_float(x[i]) * rstd * bf16_to_float(w[i]);
		__syncthreads();
		for (int64_t i = threadIdx.x; i < half; i += BLOCK) {
			float c = cs[i], sn = cs[half + i];
			x[i] = float_to_bf16(n[i] * c - n[half + i] * sn);
			x[half + i] = float_to_bf16(n[half + i] * c + n[i] * sn);
		}
		__syncthreads();	/* n is rewritten for the next head */
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 5)
		return 1;
	int64_t tokens = params[0], nq = params[1], nkv = params[2];
	int64_t d = params[3], maxpos = params[4];
	if (tokens <= 0 || tokens > 0x7fffffff || nq <= 0 || nkv <= 0 ||
	    d <= 0 || d % 2 || d > MAX_D || maxpos <= 0)
		return 2;
	if (args[0].dtype != ARENA_I64 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_BF16 ||
	    args[1].numel != tokens * (nq + 2 * nkv) * d ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != d ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != d ||
	    args[4].dtype != ARENA_F32 || args[4].numel != maxpos * d)
		return 3;
	hipLaunchKernelGGL(qk_norm_rope_kernel, dim3((unsigned)tokens), dim3(BLOCK),
			   0, (hipStream_t)stream, (const int64_t *)args[0].data,
			   (uint16_t *)args[1].data, (const uint16_t *)args[2].data,
			   (const uint16_t *)args[3].data, (const float *)args[4].data,
			   nq, nkv, d);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

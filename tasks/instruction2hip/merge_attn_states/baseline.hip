/*
 * merge_attn_states - timing baseline (not shown to the agent as a
 * starting point): out = (a*prefix + b*suffix) / (a + b) with
 * a = exp(p - m), b = exp(s - m), and out_lse = m + log(a + b).  One thread
 * per output element, the flat index split with 64-bit divisions, both lse
 * values read and both exponentials computed by every thread, scalar
 * 2-byte accesses; the thread of element 0 of each (token, head) also
 * writes out_lse.
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

__global__ void __launch_bounds__(BLOCK)
merge_kernel(const uint16_t *__restrict__ po, const float *__restrict__ plse,
	     const uint16_t *__restrict__ so, const float *__restrict__ slse,
	     uint16_t *__restrict__ out, float *__restrict__ out_lse,
	     int64_t tokens, int64_t heads, int64_t d)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= tokens * heads * d)
		return;
	int64_t c = e % d, h = (e / d) % heads, t = e / (d * heads);
	float p = plse[h * tokens + t], s = slse[h * tokens + t];
	float m = fmaxf(p, s), a = expf(p - m), b = expf(s - m);
	out[e] = float_to_bf16((a * bf16_to_float(po[e]) +
				b * bf16_to_float(so[e])) / (a + b));
	if (c == 0)
		out_lse[h * tokens + t] = m + logf(a + b);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 6 || nparams != 3)
		return 1;
	int64_t tokens = params[0], heads = params[1], d = params[2];
	if (tokens <= 0 || heads <= 0 || d <= 0)
		return 2;
	int64_t total = tokens * heads * d;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != tokens * heads ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != total ||
	    args[3].dtype != ARENA_F32 || args[3].numel != tokens * heads ||
	    args[4].dtype != ARENA_BF16 || args[4].numel != total ||
	    args[5].dtype != ARENA_F32 || args[5].numel != tokens * heads)
		return 3;
	hipLaunchKernelGGL(merge_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data, (const float *)args[1].data,
			   (const uint16_t *)args[2].data, (const float *)args[3].data,
			   (uint16_t *)args[4].data, (float *)args[5].data, tokens,
			   heads, d);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

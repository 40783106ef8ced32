/*
 * rope_gptj_qk_bf16 - baseline: GPT-J (interleaved) rotary embedding of
 * q [tokens, nq, hd] and k [tokens, nkv, hd] in place, bf16, with a
 * cos/sin table [maxpos, rot] (cos | sin) and int64 positions.
 *
 * Naive on purpose, the structure of vLLM's generic kernel: one block per
 * token, one thread per rotated pair (looping when there are more pairs
 * than threads), the head and pair index decoded with a 64-bit division,
 * scalar 2-byte loads and stores.
 */
#include <hip/hip_runtime.h>
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

__device__ __forceinline__ void rotate_pair(uint16_t *h, int64_t i, float c,
					    float s)
{
	float a = bf16_to_float(h[2 * i]), b = bf16_to_float(h[2 * i + 1]);
	h[2 * i] = float_to_bf16(a * c - b * s);
	h[2 * i + 1] = float_to_bf16(b * c + a * s);
}

__global__ void __launch_bounds__(BLOCK)
rope_kernel(const int64_t *__restrict__ positions, uint16_t *__restrict__ q,
	    uint16_t *__restrict__ k, const uint16_t *__restrict__ cos_sin,
	    int64_t nq, int64_t nkv, int64_t hd, int64_t rot)
{
	int64_t t = blockIdx.x, half = rot / 2;
	const uint16_t *cs = cos_sin + positions[t] * rot;
	uint16_t *qt = q + t * nq * hd, *kt = k + t * nkv * hd;

	for (int64_t j = threadIdx.x; j < nq * half; j += BLOCK) {
		int64_t head = j / half, i = j % half;
		rotate_pair(qt + head * hd, i, bf16_to_float(cs[i]),
			    bf16_to_float(cs[half + i]));
	}
	for (int64_t j = threadIdx.x; j < nkv * half; j += BLOCK) {
		int64_t head = j / half, i = j % half;
		rotate_pair(kt + head * hd, i, bf16_to_float(cs[i]),
			    bf16_to_float(cs[half + i]));
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 6)
		return 1;
	int64_t tokens = params[0], nq = params[1], nkv = params[2];
	int64_t hd = params[3], rot = params[4], maxpos = params[5];
	if (tokens <= 0 || tokens > 0x7fffffff || nq <= 0 || nkv <= 0 ||
	    hd <= 0 || rot <= 0 || rot % 2 || rot > hd || maxpos <= 0)
		return 2;
	if (args[0].dtype != ARENA_I64 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != tokens * nq * hd ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != tokens * nkv * hd ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != maxpos * rot)
		return 3;
	hipLaunchKernelGGL(rope_kernel, dim3((unsigned)tokens), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const int64_t *)args[0].data,
			   (uint16_t *)args[1].data, (uint16_t *)args[2].data,
			   (const uint16_t *)args[3].data, nq, nkv, hd, rot);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

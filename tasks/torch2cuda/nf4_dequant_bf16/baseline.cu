/*
 * nf4_dequant_bf16 - timing baseline: one thread per output element, which
 * loads its byte (each byte twice, by two threads), its block's absmax and
 * its table entry from constant memory, and stores one bf16.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__constant__ float nf4_table[16] = {
	-1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f,
	-0.28444138169288635f, -0.18477343022823334f, -0.09105003625154495f, 0.0f,
	0.07958029955625534f, 0.16093020141124725f, 0.24611230194568634f,
	0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
	0.7229568362236023f, 1.0f};

/* float -> bf16 bits, round to nearest even (NaN stays NaN). */
__device__ __forceinline__ uint16_t f32_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void __launch_bounds__(BLOCK)
nf4_dequant(const uint8_t *__restrict__ q, const float *__restrict__ absmax,
	    uint16_t *__restrict__ w, int64_t total)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= total)
		return;
	uint8_t b = q[i >> 1];
	int code = (i & 1) ? (b & 15) : (b >> 4);
	w[i] = f32_to_bf16(nf4_table[code] * absmax[i >> 6]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1], total = n * k;
	if (n <= 0 || k <= 0 || k % 64 != 0)
		return 2;
	if (args[0].dtype != ARENA_U8 || args[0].numel != total / 2 ||
	    args[1].dtype != ARENA_F32 || args[1].numel != total / 64 ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != total)
		return 3;
	int64_t blocks = (total + BLOCK - 1) / BLOCK;
	nf4_dequant<<<(unsigned)blocks, BLOCK, 0, (cudaStream_t)stream>>>(
		(const uint8_t *)args[0].data, (const float *)args[1].data,
		(uint16_t *)args[2].data, total);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

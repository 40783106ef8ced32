/*
 * paged_kv_gather_fp8 - baseline: out[b][t][e] = bf16(e4m3(cache[blk][t %
 * block_size][e]) * scale) with blk = block_table[b][t / block_size].
 *
 * Naive on purpose: one thread per output element, (b, t, e) decoded from
 * the flat index with 64-bit divisions, the block table re-read by every
 * thread, one byte loaded and two bytes stored per thread, the e4m3 value
 * decoded with branches.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* Round to nearest even; NaN stays a (quiet) NaN. */
__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* float8 e4m3fn (bias 7, no infinities, 0x7f/0xff NaN) to float. */
__device__ __forceinline__ float e4m3_to_float(uint8_t v)
{
	int e = (v >> 3) & 15, m = v & 7;
	float f;
	if (e == 15 && m == 7)
		f = __uint_as_float(0x7fc00000u);
	else if (e == 0)
		f = (float)m * 0.001953125f;			/* m * 2^-9 */
	else
		f = ldexpf((float)(8 + m), e - 10);		/* (1 + m/8) 2^(e-7) */
	return (v & 0x80) ? -f : f;
}

__global__ void __launch_bounds__(BLOCK)
gather_kernel(const uint8_t *__restrict__ cache, const float *__restrict__ scale,
	      const int *__restrict__ block_table, uint16_t *__restrict__ out,
	      int64_t total, int64_t seq, int64_t block_size, int64_t entry,
	      int64_t max_blocks)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= total)
		return;
	int64_t e = i % entry, t = (i / entry) % seq, b = i / (entry * seq);
	int64_t blk = block_table[b * max_blocks + t / block_size];
	uint8_t v = cache[(blk * block_size + t % block_size) * entry + e];
	out[i] = float_to_bf16(e4m3_to_float(v) * scale[0]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], block_size = params[2];
	int64_t num_blocks = params[3], entry = params[4];
	if (batch <= 0 || seq <= 0 || block_size <= 0 || num_blocks <= 0 ||
	    entry <= 0)
		return 2;
	int64_t max_blocks = (seq + block_size - 1) / block_size;
	int64_t total = batch * seq * entry;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_U8 ||
	    args[0].numel != num_blocks * block_size * entry ||
	    args[1].dtype != ARENA_F32 || args[1].numel != 1 ||
	    args[2].dtype != ARENA_I32 || args[2].numel != batch * max_blocks ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(gather_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint8_t *)args[0].data, (const float *)args[1].data,
			   (const int *)args[2].data, (uint16_t *)args[3].data, total,
			   seq, block_size, entry, max_blocks);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

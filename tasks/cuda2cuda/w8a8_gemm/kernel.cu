/*
 * w8a8_gemm - baseline: c = bf16(a_scale[i] * w_scale[j] * (a . w_j)) with
 * int8 a [m, k], int8 w [n, k], int32 accumulation (vLLM's
 * cutlass_scaled_mm for W8A8-quantised linear layers).
 *
 * A first version on the CUDA cores: the classic shared-memory tiled GEMM,
 * one output per thread in TILE x TILE blocks, stepping through k in
 * slices of KT bytes; both tiles are staged as packed 32-bit words (four
 * int8 each) and every thread accumulates with __dp4a (4 multiply-adds per
 * instruction).  The int8 tensor cores (mma.sync m16n8k32 s8, about 30x
 * the dp4a rate) are not used, each thread computes a single output, and
 * loads are 4 bytes wide.  k need not be a multiple of 4: tails are loaded
 * byte by byte and zero-padded.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif
#define KT 64			/* bytes of k per step */
#define KW (KT / 4)		/* 32-bit words of k per step */

__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* Four int8 of row r starting at column p, zero beyond k (and beyond the
 * last row), packed little-endian into one word. */
__device__ __forceinline__ int load4(const int8_t *x, int64_t r, int64_t rows,
				     int64_t p, int64_t k)
{
	if (r >= rows)
		return 0;
	const int8_t *s = x + r * k + p;
	if ((k & 3) == 0 && p + 4 <= k)
		return *(const int *)s;
	unsigned v = 0;
	for (int b = 0; b < 4; b++)
		if (p + b < k)
			v |= (unsigned)(uint8_t)s[b] << (8 * b);
	return (int)v;
}

__global__ void __launch_bounds__(TILE * TILE)
w8a8_kernel(const int8_t *__restrict__ a, const int8_t *__restrict__ w,
	    const float *__restrict__ as, const float *__restrict__ ws,
	    uint16_t *__restrict__ c, int64_t m, int64_t n, int64_t k)
{
	__shared__ int at[TILE][KW + 1];	/* +1: no bank conflicts */
	__shared__ int wt[TILE][KW + 1];
	const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
	const int64_t row0 = (int64_t)blockIdx.y * TILE;
	const int64_t col0 = (int64_t)blockIdx.x * TILE;
	int acc = 0;

	for (int64_t k0 = 0; k0 < k; k0 += KT) {
		for (int idx = tid; idx < TILE * KW; idx += TILE * TILE) {
			int r = idx / KW, q = idx % KW;
			at[r][q] = load4(a, row0 + r, m, k0 + 4 * q, k);
			wt[r][q] = load4(w, col0 + r, n, k0 + 4 * q, k);
		}
		__syncthreads();
		for (int q = 0; q < KW; q++)
			acc = __dp4a(at[ty][q], wt[tx][q], acc);
		__syncthreads();
	}
	int64_t i = row0 + ty, j = col0 + tx;
	if (i < m && j < n)
		c[i * n + j] = float_to_bf16((float)acc * as[i] * ws[j]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	/* int32 sums stay exact while 127 * 127 * k < 2^31. */
	if (m <= 0 || n <= 0 || k <= 0 || k > 131072 ||
	    (m + TILE - 1) / TILE > 65535 || (n + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_I8 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_I8 || args[1].numel != n * k ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m ||
	    args[3].dtype != ARENA_F32 || args[3].numel != n ||
	    args[4].dtype != ARENA_BF16 || args[4].numel != m * n)
		return 3;
	dim3 grid((unsigned)((n + TILE - 1) / TILE),
		  (unsigned)((m + TILE - 1) / TILE));
	w8a8_kernel<<<grid, dim3(TILE, TILE), 0, (cudaStream_t)stream>>>(
		(const int8_t *)args[0].data, (const int8_t *)args[1].data,
		(const float *)args[2].data, (const float *)args[3].data,
		(uint16_t *)args[4].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

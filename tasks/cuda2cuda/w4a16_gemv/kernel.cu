/*
 * w4a16_gemv - baseline: y[b][j] = sum_p x[b][p] * (q[j][p] - z) * s for
 * groupwise int4 weights packed two per byte (low nibble = even column),
 * bf16 activations, scales and output, float32 accumulation: the decode
 * GEMV of AWQ/GPTQ-quantised models.
 *
 * A first version: one block of BLOCK threads per weight row j.  Threads
 * stride over the row's bytes (coalesced 1-byte loads), unpack both
 * nibbles, look up that group's scale and zero point (2 more scattered
 * loads per byte) and multiply with every batch row of x (held in float
 * accumulators, up to MAX_BATCH rows).  A shared-memory tree then sums the
 * BLOCK partial results for each batch row.  Loads are 1 byte wide, the
 * group metadata is re-read for every byte, and the tree reduction runs
 * once per batch row.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 128
#endif
#define MAX_BATCH 16

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void __launch_bounds__(BLOCK)
w4_gemv(const uint16_t *__restrict__ x, const uint8_t *__restrict__ q,
	const uint16_t *__restrict__ s, const uint8_t *__restrict__ z,
	uint16_t *__restrict__ y, int batch, int64_t n, int64_t k, int group)
{
	__shared__ float red[BLOCK];
	const int64_t j = blockIdx.x;
	const int64_t half = k / 2, ng = k / group;
	const uint8_t *qr = q + j * half;
	float acc[MAX_BATCH];
#pragma unroll
	for (int b = 0; b < MAX_BATCH; b++)
		acc[b] = 0.0f;

	for (int64_t i = threadIdx.x; i < half; i += BLOCK) {
		uint8_t byte = qr[i];
		int64_t g = (2 * i) / group;	/* group is even: same for 2i+1 */
		float sc = bf16_to_float(s[j * ng + g]);
		int zp = z[j * ng + g];
		float w0 = (float)((int)(byte & 15) - zp) * sc;
		float w1 = (float)((int)(byte >> 4) - zp) * sc;
#pragma unroll
		for (int b = 0; b < MAX_BATCH; b++)
			if (b < batch)
				acc[b] += w0 * bf16_to_float(x[b * k + 2 * i]) +
					  w1 * bf16_to_float(x[b * k + 2 * i + 1]);
	}

	for (int b = 0; b < batch; b++) {
		float v = 0.0f;
#pragma unroll
		for (int c = 0; c < MAX_BATCH; c++)
			if (c == b)
				v = acc[c];
		red[threadIdx.x] = v;
		__syncthreads();
		for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
			if ((int)threadIdx.x < stride)
				red[threadIdx.x] += red[threadIdx.x + stride];
			__syncthreads();
		}
		if (threadIdx.x == 0)
			y[b * n + j] = float_to_bf16(red[0]);
		__syncthreads();
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t batch = params[0], n = params[1], k = params[2],
		group = params[3];
	/* group must be even so that both nibbles of a byte share a group. */
	if (batch <= 0 || batch > MAX_BATCH || n <= 0 || n > 0x7fffffff ||
	    k <= 0 || group <= 0 || group % 2 || k % group)
		return 2;
	int64_t ng = k / group;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != batch * k ||
	    args[1].dtype != ARENA_U8 || args[1].numel != n * k / 2 ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != n * ng ||
	    args[3].dtype != ARENA_U8 || args[3].numel != n * ng ||
	    args[4].dtype != ARENA_BF16 || args[4].numel != batch * n)
		return 3;
	w4_gemv<<<(unsigned)n, BLOCK, 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint8_t *)args[1].data,
		(const uint16_t *)args[2].data, (const uint8_t *)args[3].data,
		(uint16_t *)args[4].data, (int)batch, n, k, (int)group);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

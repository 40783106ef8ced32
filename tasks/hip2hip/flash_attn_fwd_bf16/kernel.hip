/*
 * flash_attn_fwd_bf16 - baseline: causal grouped-query attention forward,
 * bf16 q [batch, seq, hq, d], k, v [batch, seq, hkv, d] -> o like q.
 *
 * Naive on purpose: one warp per query row (BLOCK / warpSize rows per
 * block, adjacent rows of one head in one block).  The lanes split the
 * head dimension: each keeps its slice of q (pre-scaled) and of the output
 * accumulator in registers.  For every key j <= i: a dot product reduced
 * with warp shuffles, then an online-softmax update (running max m and
 * sum l) of the accumulator with v[j].  k and v are read with scalar 2-byte
 * loads through the caches; no shared memory, no matrix units.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 128
#endif

#define MAX_D 256
#define PER_LANE (MAX_D / 32)	/* enough for a warp of 32 lanes or more */

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
attn_fwd_kernel(const uint16_t *__restrict__ q, const uint16_t *__restrict__ k,
		const uint16_t *__restrict__ v, uint16_t *__restrict__ o,
		int64_t batch, int64_t seq, int64_t hq, int64_t hkv, int64_t d,
		float scale)
{
	int lane = threadIdx.x % warpSize;
	int64_t row = (int64_t)blockIdx.x * (BLOCK / warpSize) +
		      threadIdx.x / warpSize;
	if (row >= batch * hq * seq)
		return;		/* the whole warp leaves together */
	int64_t i = row % seq, h = (row / seq) % hq, b = row / (seq * hq);
	int64_t g = h / (hq / hkv);
	const uint16_t *qr = q + ((b * seq + i) * hq + h) * d;
	float qv[PER_LANE], acc[PER_LANE];

	for (int u = 0; u < PER_LANE; u++) {
		int64_t c = lane + (int64_t)u * warpSize;
		qv[u] = c < d ? bf16_to_float(qr[c]) * scale : 0.0f;
		acc[u] = 0.0f;
	}
	float m = -INFINITY, l = 0.0f;
	for (int64_t j = 0; j <= i; j++) {
		const uint16_t *kr = k + ((b * seq + j) * hkv + g) * d;
		const uint16_t *vr = v + ((b * seq + j) * hkv + g) * d;
		float s = 0.0f;
		for (int u = 0; u < PER_LANE; u++) {
			int64_t c = lane + (int64_t)u * warpSize;
			if (c < d)
				s += qv[u] * bf16_to_float(kr[c]);
		}
		for (int off = warpSize / 2; off > 0; off /= 2)
			s += __shfl_xor(s, off);
		float m_new = fmaxf(m, s);
		float corr = expf(m - m_new), p = expf(s - m_new);
		l = l * corr + p;
		for (int u = 0; u < PER_LANE; u++) {
			int64_t c = lane + (int64_t)u * warpSize;
			if (c < d)
				acc[u] = acc[u] * corr + p * bf16_to_float(vr[c]);
		}
		m = m_new;
	}
	uint16_t *orow = o + ((b * seq + i) * hq + h) * d;
	for (int u = 0; u < PER_LANE; u++) {
		int64_t c = lane + (int64_t)u * warpSize;
		if (c < d)
			orow[c] = float_to_bf16(acc[u] / l);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], hq = params[2];
	int64_t hkv = params[3], d = params[4];
	if (batch <= 0 || seq <= 0 || hq <= 0 || hkv <= 0 || hq % hkv ||
	    d <= 0 || d > MAX_D)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != batch * seq * hq * d ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batch * seq * hkv * d ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != batch * seq * hkv * d ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != batch * seq * hq * d)
		return 3;
	int device, warp;
	if (hipGetDevice(&device) != hipSuccess ||
	    hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device) !=
	    hipSuccess || warp <= 0 || BLOCK % warp)
		return 4;
	int64_t rows_per_block = BLOCK / warp;
	int64_t blocks = (batch * hq * seq + rows_per_block - 1) / rows_per_block;
	if (blocks > 0x7fffffff)
		return 2;
	hipLaunchKernelGGL(attn_fwd_kernel, dim3((unsigned)blocks), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data,
			   (const uint16_t *)args[2].data, (uint16_t *)args[3].data,
			   batch, seq, hq, hkv, d, 1.0f / sqrtf((float)d));
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

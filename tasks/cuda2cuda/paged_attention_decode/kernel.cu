/*
 * paged_attention_decode - baseline: one decode step of attention over a
 * paged KV cache (vLLM's PagedAttention with the NHD cache layout
 * [num_blocks, block_size, kv_heads, head_dim]), bf16 in and out, float32
 * arithmetic.
 *
 * A first version: one block of BLOCK threads per (sequence, query head).
 *   1. q, pre-scaled by 1/sqrt(head_dim), goes to shared memory;
 *   2. each thread takes tokens t = tid, tid + BLOCK, ... and computes the
 *      whole head_dim dot product q . k_t by itself (scalar 2-byte loads of
 *      one 256-byte row per thread), storing the scores in shared memory;
 *   3. a shared-memory tree finds the maximum, the scores become
 *      exp(s - max) and a second tree sums them;
 *   4. each thread owns output dimensions i = tid, tid + BLOCK, ... and
 *      walks all L tokens of V (these loads are coalesced across threads).
 * Nothing splits a long context across blocks, so a batch of few
 * sequences leaves most of the GPU idle, K is read with poor coalescing,
 * and the scores need max_blocks * block_size floats of shared memory.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 128
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

/* Tree reduction over the block (max when is_max, else sum); every
 * thread gets the result.  red has BLOCK floats. */
__device__ float block_reduce(float *red, float v, bool is_max)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride) {
			float o = red[threadIdx.x + stride];
			red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], o)
						  : red[threadIdx.x] + o;
		}
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();	/* red may be reused right away */
	return r;
}

__global__ void __launch_bounds__(BLOCK)
paged_decode(const uint16_t *__restrict__ q, const uint16_t *__restrict__ kc,
	     const uint16_t *__restrict__ vc, const int *__restrict__ tables,
	     const int *__restrict__ lens, uint16_t *__restrict__ out,
	     int heads, int kv_heads, int d, int bs, int max_blocks)
{
	extern __shared__ float smem[];
	const int max_ctx = max_blocks * bs;
	float *qs = smem;		/* d */
	float *sc = qs + d;		/* max_ctx */
	float *red = sc + max_ctx;	/* BLOCK */

	const int h = blockIdx.x % heads;
	const int64_t s = blockIdx.x / heads;
	const int g = h / (heads / kv_heads);
	const int *table = tables + s * max_blocks;
	int len = lens[s];
	if (len > max_ctx)
		len = max_ctx;
	const float scale = rsqrtf((float)d);

	const uint16_t *qh = q + (s * heads + h) * d;
	for (int i = threadIdx.x; i < d; i += BLOCK)
		qs[i] = bf16_to_float(qh[i]) * scale;
	__syncthreads();

	float m = -INFINITY;
	for (int t = threadIdx.x; t < len; t += BLOCK) {
		int64_t blk = table[t / bs];
		const uint16_t *k =
			kc + ((blk * bs + t % bs) * kv_heads + g) * d;
		float acc = 0.0f;
		for (int i = 0; i < d; i++)
			acc += qs[i] * bf16_to_float(k[i]);
		sc[t] = acc;
		m = fmaxf(m, acc);
	}
	m = block_reduce(red, m, true);

	float l = 0.0f;
	for (int t = threadIdx.x; t < len; t += BLOCK) {
		float e = expf(sc[t] - m);
		sc[t] = e;
		l += e;
	}
	l = block_reduce(red, l, false);	/* also orders the sc writes */

	uint16_t *oh = out + (s * heads + h) * d;
	for (int i = threadIdx.x; i < d; i += BLOCK) {
		float acc = 0.0f;
		for (int t = 0; t < len; t++) {
			int64_t blk = table[t / bs];
			acc += sc[t] * bf16_to_float(
				vc[((blk * bs + t % bs) * kv_heads + g) * d + i]);
		}
		oh[i] = float_to_bf16(acc / l);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 6 || nparams != 7)
		return 1;
	int64_t seqs = params[0], heads = params[1], kv = params[2],
		d = params[3], bs = params[4], maxb = params[5],
		nblk = params[6];
	if (seqs <= 0 || heads <= 0 || kv <= 0 || heads % kv || d <= 0 ||
	    bs <= 0 || maxb <= 0 || nblk <= 0 || seqs * heads > 0x7fffffff ||
	    maxb * bs > (1 << 20) || d > 4096)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != seqs * heads * d ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != nblk * bs * kv * d ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != nblk * bs * kv * d ||
	    args[3].dtype != ARENA_I32 || args[3].numel != seqs * maxb ||
	    args[4].dtype != ARENA_I32 || args[4].numel != seqs ||
	    args[5].dtype != ARENA_BF16 || args[5].numel != seqs * heads * d)
		return 3;
	size_t smem = (size_t)(d + maxb * bs + BLOCK) * sizeof(float);
	if (smem > 227 * 1024)
		return 4;	/* context too long for this kernel */
	if (smem > 48 * 1024 &&
	    cudaFuncSetAttribute(paged_decode,
				 cudaFuncAttributeMaxDynamicSharedMemorySize,
				 (int)smem) != cudaSuccess)
		return 5;
	paged_decode<<<(unsigned)(seqs * heads), BLOCK, smem,
		       (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const uint16_t *)args[2].data, (const int *)args[3].data,
		(const int *)args[4].data, (uint16_t *)args[5].data, (int)heads,
		(int)kv, (int)d, (int)bs, (int)maxb);
	return cudaGetLastError() == cudaSuccess ? 0 : 6;
}

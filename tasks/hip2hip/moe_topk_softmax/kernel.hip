/*
 * moe_topk_softmax - baseline: per token, softmax over the bf16 router
 * logits and the k experts with the largest logits (ties: lower index
 * first), their probabilities optionally renormalized.
 *
 * Naive on purpose: one block of BLOCK threads per token; a block-wide max,
 * a block-wide sum of exponentials, then k rounds of a block-wide argmax,
 * each over the experts that come after the previous winner in the order
 * (larger logit first, then lower index), so no "taken" flags are needed.
 * Every reduction goes through shared memory with __syncthreads.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 128
#endif

#define MAX_K 32

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

/* True when expert (va, ia) comes before (vb, ib) in the output order. */
__device__ __forceinline__ bool before(float va, int ia, float vb, int ib)
{
	return va > vb || (va == vb && ia < ib);
}

/* Block-wide reductions: every thread of the block must call them; sh holds
 * BLOCK + 1 floats (and shi BLOCK + 1 ints for the argmax). */
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
	__syncthreads();	/* sh may be reused right away */
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

__device__ void block_argbest(float *v, int *i, float *sh, int *shi)
{
	for (int off = warpSize / 2; off > 0; off /= 2) {
		float ov = __shfl_xor(*v, off);
		int oi = __shfl_xor(*i, off);
		if (before(ov, oi, *v, *i)) {
			*v = ov;
			*i = oi;
		}
	}
	if (threadIdx.x % warpSize == 0) {
		sh[threadIdx.x / warpSize] = *v;
		shi[threadIdx.x / warpSize] = *i;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		float bv = sh[0];
		int bi = shi[0];
		for (int w = 1; w < BLOCK / warpSize; w++)
			if (before(sh[w], shi[w], bv, bi)) {
				bv = sh[w];
				bi = shi[w];
			}
		sh[BLOCK] = bv;
		shi[BLOCK] = bi;
	}
	__syncthreads();
	*v = sh[BLOCK];
	*i = shi[BLOCK];
	__syncthreads();
}

__global__ void __launch_bounds__(BLOCK)
topk_softmax_kernel(const uint16_t *__restrict__ gating,
		    float *__restrict__ weights, int *__restrict__ ids,
		    int experts, int k, int renorm)
{
	__shared__ float sh[BLOCK + 1];
	__shared__ int shi[BLOCK + 1];
	const uint16_t *g = gating + (int64_t)blockIdx.x * experts;

	float m = -INFINITY;
	for (int e = threadIdx.x; e < experts; e += BLOCK)
		m = fmaxf(m, bf16_to_float(g[e]));
	m = block_max(m, sh);
	float s = 0.0f;
	for (int e = threadIdx.x; e < experts; e += BLOCK)
		s += expf(bf16_to_float(g[e]) - m);
	s = block_sum(s, sh);

	float prev_v = INFINITY, picked_w[MAX_K], wsum = 0.0f;
	int prev_i = -1, picked_i[MAX_K];
	for (int j = 0; j < k; j++) {
		float bv = -INFINITY;
		int bi = 0x7fffffff;
		for (int e = threadIdx.x; e < experts; e += BLOCK) {
			float v = bf16_to_float(g[e]);
			if (before(prev_v, prev_i, v, e) && before(v, e, bv, bi)) {
				bv = v;
				bi = e;
			}
		}
		block_argbest(&bv, &bi, sh, shi);
		prev_v = bv;
		prev_i = bi;
		picked_i[j] = bi;
		picked_w[j] = expf(bv - m) / s;
		wsum += picked_w[j];
	}
	if (threadIdx.x == 0) {
		float scale = renorm ? 1.0f / wsum : 1.0f;
		for (int j = 0; j < k; j++) {
			ids[(int64_t)blockIdx.x * k + j] = picked_i[j];
			weights[(int64_t)blockIdx.x * k + j] = picked_w[j] * scale;
		}
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 4)
		return 1;
	int64_t tokens = params[0], experts = params[1], k = params[2];
	int64_t renorm = params[3];
	if (tokens <= 0 || tokens > 0x7fffffff || experts <= 0 ||
	    experts > 0x7fffffff || k < 1 || k > MAX_K || k > experts ||
	    (renorm != 0 && renorm != 1))
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * experts ||
	    args[1].dtype != ARENA_F32 || args[1].numel != tokens * k ||
	    args[2].dtype != ARENA_I32 || args[2].numel != tokens * k)
		return 3;
	hipLaunchKernelGGL(topk_softmax_kernel, dim3((unsigned)tokens),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data, (float *)args[1].data,
			   (int *)args[2].data, (int)experts, (int)k, (int)renorm);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

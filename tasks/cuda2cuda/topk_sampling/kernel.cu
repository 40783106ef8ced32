/*
 * topk_sampling - baseline: the k largest bf16 logits of each row (descending,
 * lower index first on equal values) and their softmax at the row's
 * temperature (the top-k step of an LLM sampler).
 *
 * A first version: one block of BLOCK threads per row and k rounds of a
 * block-wide argmax.  Round r scans the whole row for the best element
 * that comes strictly after the one chosen in round r-1 (in the output
 * order), reduces the threads' candidates with a shared-memory tree and
 * writes the winner's index.  Simple and exact, but it reads the row k
 * times (from L2 at best) and synchronises the block 2 log2(BLOCK) times
 * per round.  The softmax over the k winners follows.
 */
#include <cuda_runtime.h>
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

/* (va, ia) comes before (vb, ib) in the output order; index -1 is "none"
 * and comes after everything. */
__device__ __forceinline__ bool before(float va, int ia, float vb, int ib)
{
	if (ib < 0)
		return ia >= 0;
	if (ia < 0)
		return false;
	return va > vb || (va == vb && ia < ib);
}

__global__ void __launch_bounds__(BLOCK)
topk_kernel(const uint16_t *__restrict__ x, const float *__restrict__ temp,
	    int *__restrict__ idx, float *__restrict__ prob, int vocab, int k)
{
	__shared__ float rv[BLOCK];
	__shared__ int ri[BLOCK];
	const int64_t r = blockIdx.x;
	const uint16_t *xr = x + r * vocab;
	int *ir = idx + r * k;
	float *pr = prob + r * k;
	float pv = 0.0f;
	int pi = -1;	/* the previous winner; -1 before round 0 */

	for (int round = 0; round < k; round++) {
		float bv = 0.0f;
		int bi = -1;
		for (int i = threadIdx.x; i < vocab; i += BLOCK) {
			float v = bf16_to_float(xr[i]);
			if ((pi < 0 || before(pv, pi, v, i)) && before(v, i, bv, bi)) {
				bv = v;
				bi = i;
			}
		}
		rv[threadIdx.x] = bv;
		ri[threadIdx.x] = bi;
		__syncthreads();
		for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
			if ((int)threadIdx.x < stride) {
				float ov = rv[threadIdx.x + stride];
				int oi = ri[threadIdx.x + stride];
				if (before(ov, oi, rv[threadIdx.x], ri[threadIdx.x])) {
					rv[threadIdx.x] = ov;
					ri[threadIdx.x] = oi;
				}
			}
			__syncthreads();
		}
		pv = rv[0];
		pi = ri[0];
		if (threadIdx.x == 0)
			ir[round] = pi;
		__syncthreads();
	}

	/* Softmax of the winners at temperature t; ir[] was written by
	 * thread 0 before the last __syncthreads, so the block sees it. */
	const float t = temp[r], top = bf16_to_float(xr[ir[0]]);
	float s = 0.0f;
	for (int j = threadIdx.x; j < k; j += BLOCK)
		s += expf((bf16_to_float(xr[ir[j]]) - top) / t);
	rv[threadIdx.x] = s;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			rv[threadIdx.x] += rv[threadIdx.x + stride];
		__syncthreads();
	}
	s = rv[0];
	for (int j = threadIdx.x; j < k; j += BLOCK)
		pr[j] = expf((bf16_to_float(xr[ir[j]]) - top) / t) / s;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t rows = params[0], vocab = params[1], k = params[2];
	if (rows <= 0 || rows > 0x7fffffff || vocab <= 0 ||
	    vocab > 0x7fffffff || k <= 0 || k > vocab)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * vocab ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows ||
	    args[2].dtype != ARENA_I32 || args[2].numel != rows * k ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows * k)
		return 3;
	topk_kernel<<<(unsigned)rows, BLOCK, 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const float *)args[1].data,
		(int *)args[2].data, (float *)args[3].data, (int)vocab, (int)k);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

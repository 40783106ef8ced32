/*
 * moe_grouped_topk - baseline: DeepSeek-V3 group-limited top-k routing
 * with a score-correction bias, one token per block.
 *
 * Naive on purpose: threads rate the groups one group per thread, scanning
 * its experts serially for the two largest biased scores; thread 0 then
 * picks topk_group groups by repeated linear scans; the k experts are
 * found by k rounds of a block-wide argmax through shared memory, each
 * over the allowed experts that come after the previous winner in the
 * order (larger biased score first, then lower index).
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 128
#endif

#define MAX_GROUPS 64
#define MAX_K 32

__device__ __forceinline__ bool before(float va, int ia, float vb, int ib)
{
	return va > vb || (va == vb && ia < ib);
}

/* Block-wide argmax in the order of before(); every thread must call it;
 * sh and shi hold BLOCK + 1 entries. */
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
grouped_topk_kernel(const float *__restrict__ scores,
		    const float *__restrict__ bias, float *__restrict__ weights,
		    int *__restrict__ ids, int groups, int epg, int topk_group,
		    int k)
{
	__shared__ float gscore[MAX_GROUPS];
	__shared__ int gkeep[MAX_GROUPS];
	__shared__ float sh[BLOCK + 1];
	__shared__ int shi[BLOCK + 1];
	int experts = groups * epg;
	const float *s = scores + (int64_t)blockIdx.x * experts;

	for (int g = threadIdx.x; g < groups; g += BLOCK) {
		float b1 = -INFINITY, b2 = -INFINITY;
		for (int e = g * epg; e < (g + 1) * epg; e++) {
			float b = s[e] + bias[e];
			if (b > b1) {
				b2 = b1;
				b1 = b;
			} else if (b > b2) {
				b2 = b;
			}
		}
		gscore[g] = epg == 1 ? b1 : b1 + b2;
		gkeep[g] = 0;
	}
	__syncthreads();
	if (threadIdx.x == 0)
		for (int j = 0; j < topk_group; j++) {
			int best = -1;
			for (int g = 0; g < groups; g++)
				if (!gkeep[g] && (best < 0 || gscore[g] > gscore[best]))
					best = g;
			gkeep[best] = 1;
		}
	__syncthreads();

	float prev_v = INFINITY, picked_w[MAX_K], wsum = 0.0f;
	int prev_i = -1, picked_i[MAX_K];
	for (int j = 0; j < k; j++) {
		float bv = -INFINITY;
		int bi = 0x7fffffff;
		for (int e = threadIdx.x; e < experts; e += BLOCK) {
			if (!gkeep[e / epg])
				continue;
			float b = s[e] + bias[e];
			if (before(prev_v, prev_i, b, e) && before(b, e, bv, bi)) {
				bv = b;
				bi = e;
			}
		}
		block_argbest(&bv, &bi, sh, shi);
		prev_v = bv;
		prev_i = bi;
		picked_i[j] = bi;
		picked_w[j] = s[bi];
		wsum += picked_w[j];
	}
	if (threadIdx.x == 0)
		for (int j = 0; j < k; j++) {
			ids[(int64_t)blockIdx.x * k + j] = picked_i[j];
			weights[(int64_t)blockIdx.x * k + j] = picked_w[j] / wsum;
		}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t tokens = params[0], groups = params[1], epg = params[2];
	int64_t topk_group = params[3], k = params[4];
	if (tokens <= 0 || tokens > 0x7fffffff || groups < 1 ||
	    groups > MAX_GROUPS || epg < 1 || epg > 0x7fffff || topk_group < 1 ||
	    topk_group > groups || k < 1 || k > MAX_K || k > topk_group * epg)
		return 2;
	int64_t experts = groups * epg;
	if (args[0].dtype != ARENA_F32 || args[0].numel != tokens * experts ||
	    args[1].dtype != ARENA_F32 || args[1].numel != experts ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens * k ||
	    args[3].dtype != ARENA_I32 || args[3].numel != tokens * k)
		return 3;
	hipLaunchKernelGGL(grouped_topk_kernel, dim3((unsigned)tokens),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (const float *)args[1].data,
			   (float *)args[2].data, (int *)args[3].data, (int)groups,
			   (int)epg, (int)topk_group, (int)k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

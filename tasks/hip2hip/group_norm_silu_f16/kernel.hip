/*
 * group_norm_silu_f16 - baseline: GroupNorm (biased variance, eps 1e-5,
 * per-channel affine) followed by SiLU, float16 NCHW.
 *
 * Naive on purpose: one block per (image, group), the group's cpg*h*w
 * consecutive elements read three times from global memory (mean,
 * variance around the mean, normalize + SiLU) with scalar 2-byte loads,
 * shared-memory tree reductions, the channel of each element found with a
 * 64-bit division.
 */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* Sum of s[0..BLOCK) by a tree; every thread must call it. */
__device__ float block_reduce_sum(float *s)
{
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	float r = s[0];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
group_norm_silu_kernel(const __half *__restrict__ x,
		       const __half *__restrict__ gamma,
		       const __half *__restrict__ beta, __half *__restrict__ y,
		       int64_t groups, int64_t cpg, int64_t hw)
{
	__shared__ float s[BLOCK];
	int64_t len = cpg * hw, g = blockIdx.x % groups;
	const __half *xg = x + (int64_t)blockIdx.x * len;
	__half *yg = y + (int64_t)blockIdx.x * len;

	float acc = 0.0f;
	for (int64_t i = threadIdx.x; i < len; i += BLOCK)
		acc += __half2float(xg[i]);
	s[threadIdx.x] = acc;
	__syncthreads();
	float mean = block_reduce_sum(s) / (float)len;

	acc = 0.0f;
	for (int64_t i = threadIdx.x; i < len; i += BLOCK) {
		float d = __half2float(xg[i]) - mean;
		acc += d * d;
	}
	s[threadIdx.x] = acc;
	__syncthreads();
	float rstd = rsqrtf(block_reduce_sum(s) / (float)len + 1e-5f);

	for (int64_t i = threadIdx.x; i < len; i += BLOCK) {
		int64_t ch = g * cpg + i / hw;
		float v = (__half2float(xg[i]) - mean) * rstd *
			  __half2float(gamma[ch]) + __half2float(beta[ch]);
		yg[i] = __float2half(v / (1.0f + expf(-v)));
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t n = params[0], groups = params[1], cpg = params[2];
	int64_t h = params[3], w = params[4];
	if (n <= 0 || groups <= 0 || cpg <= 0 || h <= 0 || w <= 0 ||
	    n * groups > 0x7fffffff)
		return 2;
	int64_t c = groups * cpg, total = n * c * h * w;
	if (args[0].dtype != ARENA_F16 || args[0].numel != total ||
	    args[1].dtype != ARENA_F16 || args[1].numel != c ||
	    args[2].dtype != ARENA_F16 || args[2].numel != c ||
	    args[3].dtype != ARENA_F16 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(group_norm_silu_kernel, dim3((unsigned)(n * groups)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const __half *)args[0].data, (const __half *)args[1].data,
			   (const __half *)args[2].data, (__half *)args[3].data,
			   groups, cpg, h * w);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * moe_unpermute_reduce - timing baseline (not shown to the agent as a
 * starting point): y[t][h] = sum_j weights[t][j] * expert_out[row_idx[t][j]][h].
 * One thread per output element, the flat index split with a 64-bit
 * division, the k indices and weights re-read by every thread, scalar
 * 2-byte loads and stores, float32 accumulation.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
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

__global__ void __launch_bounds__(BLOCK)
unpermute_kernel(const uint16_t *__restrict__ expert_out,
		 const int *__restrict__ row_idx, const float *__restrict__ weights,
		 uint16_t *__restrict__ y, int64_t total, int64_t hidden, int64_t k)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t t = e / hidden, h = e - t * hidden;
	float acc = 0.0f;
	for (int64_t j = 0; j < k; j++)
		acc += weights[t * k + j] *
		       bf16_to_float(expert_out[row_idx[t * k + j] * hidden + h]);
	y[e] = float_to_bf16(acc);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t tokens = params[0], hidden = params[1], k = params[2];
	if (tokens <= 0 || hidden <= 0 || k <= 0)
		return 2;
	int64_t total = tokens * hidden;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * k * hidden ||
	    args[1].dtype != ARENA_I32 || args[1].numel != tokens * k ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens * k ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(unpermute_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data, (const int *)args[1].data,
			   (const float *)args[2].data, (uint16_t *)args[3].data,
			   total, hidden, k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * lora_shrink_bf16 - timing baseline (not shown to the agent as a
 * starting point): out[t][r] = x[t] . lora_a[lora_idx[t]][r].  One block
 * per token; each warp computes outputs r = warp, warp + warps, ... with
 * its lanes striding over the hidden dimension (scalar 2-byte loads) and a
 * shuffle reduction, so the token's row is re-read (from cache) for every
 * output.
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

__global__ void __launch_bounds__(BLOCK)
shrink_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ a,
	      const int *__restrict__ lora_idx, float *__restrict__ out,
	      int64_t hidden, int64_t rank)
{
	int64_t t = blockIdx.x;
	int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
	int nwarps = BLOCK / warpSize;
	const uint16_t *xr = x + t * hidden;
	const uint16_t *at = a + (int64_t)lora_idx[t] * rank * hidden;

	for (int64_t r = warp; r < rank; r += nwarps) {
		const uint16_t *ar = at + r * hidden;
		float acc = 0.0f;
		for (int64_t c = lane; c < hidden; c += warpSize)
			acc += bf16_to_float(xr[c]) * bf16_to_float(ar[c]);
		for (int off = warpSize / 2; off > 0; off /= 2)
			acc += __shfl_xor(acc, off);
		if (lane == 0)
			out[t * rank + r] = acc;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t tokens = params[0], hidden = params[1], rank = params[2];
	int64_t loras = params[3];
	if (tokens <= 0 || tokens > 0x7fffffff || hidden <= 0 || rank <= 0 ||
	    loras <= 0)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != loras * rank * hidden ||
	    args[2].dtype != ARENA_I32 || args[2].numel != tokens ||
	    args[3].dtype != ARENA_F32 || args[3].numel != tokens * rank)
		return 3;
	hipLaunchKernelGGL(shrink_kernel, dim3((unsigned)tokens), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (const int *)args[2].data,
			   (float *)args[3].data, hidden, rank);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

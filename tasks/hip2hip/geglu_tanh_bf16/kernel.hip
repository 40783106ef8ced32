/*
 * geglu_tanh_bf16 - baseline: y[t][j] = gelu_tanh(x[t][j]) * x[t][d + j]
 * for bf16 x [tokens, 2d] and y [tokens, d].
 *
 * Naive on purpose: one thread per output element, the flat index split
 * with a 64-bit division, scalar 2-byte loads and stores, tanhf.
 */
#include <hip/hip_runtime.h>
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
geglu_kernel(const uint16_t *__restrict__ x, uint16_t *__restrict__ y,
	     int64_t total, int64_t d)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t t = e / d, j = e - t * d;
	float a = bf16_to_float(x[t * 2 * d + j]);
	float u = bf16_to_float(x[t * 2 * d + d + j]);
	float g = 0.5f * a * (1.0f + tanhf(0.7978845608f * (a + 0.044715f * a * a * a)));
	y[e] = float_to_bf16(g * u);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t tokens = params[0], d = params[1];
	if (tokens <= 0 || d <= 0)
		return 2;
	int64_t total = tokens * d;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != 2 * total ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != total)
		return 3;
	hipLaunchKernelGGL(geglu_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data, (uint16_t *)args[1].data,
			   total, d);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

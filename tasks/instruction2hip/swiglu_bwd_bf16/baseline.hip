/*
 * swiglu_bwd_bf16 - timing baseline (not shown to the agent as a starting
 * point): da = dy * b * s * (1 + a (1 - s)), db = dy * a * s with
 * s = sigmoid(a).  One thread per (row, j), the flat index split with a
 * 64-bit division, scalar 2-byte loads and stores, expf and a true
 * division.
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
swiglu_bwd_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ dy,
		  uint16_t *__restrict__ dx, int64_t total, int64_t d)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t r = e / d, j = e - r * d;
	float a = bf16_to_float(x[r * 2 * d + j]);
	float b = bf16_to_float(x[r * 2 * d + d + j]);
	float g = bf16_to_float(dy[e]);
	float s = 1.0f / (1.0f + expf(-a));
	dx[r * 2 * d + j] = float_to_bf16(g * b * s * (1.0f + a * (1.0f - s)));
	dx[r * 2 * d + d + j] = float_to_bf16(g * a * s);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], d = params[1];
	if (rows <= 0 || d <= 0)
		return 2;
	int64_t total = rows * d;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != 2 * total ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != total ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != 2 * total)
		return 3;
	hipLaunchKernelGGL(swiglu_bwd_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (uint16_t *)args[2].data,
			   total, d);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

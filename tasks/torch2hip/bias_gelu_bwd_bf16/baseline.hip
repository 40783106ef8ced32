/*
 * bias_gelu_bwd_bf16 - timing baseline: two kernels.  dx: one thread per
 * element.  dbias: one thread per column walking every row, recomputing the
 * derivative from g and y (read a second time, with a stride of n between
 * a thread's loads).
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__device__ __forceinline__ float bf16_to_f32(uint16_t h)
{
	return __uint_as_float((uint32_t)h << 16);
}

/* float -> bf16 bits, round to nearest even (NaN stays NaN). */
__device__ __forceinline__ uint16_t f32_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* Megatron's bias_gelu_back: g * d/dx gelu_tanh(x). */
__device__ __forceinline__ float gelu_back(float g, float x)
{
	float t = tanhf(0.79788456f * x * (1.0f + 0.044715f * x * x));
	float ff = 0.5f * x * ((1.0f - t * t) * (0.79788456f + 0.1070322243f * x * x)) +
		   0.5f * (1.0f + t);
	return ff * g;
}

__global__ void __launch_bounds__(BLOCK)
dx_kernel(const uint16_t *__restrict__ g, const uint16_t *__restrict__ y,
	  const uint16_t *__restrict__ bias, uint16_t *__restrict__ dx,
	  int64_t n, int64_t total)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	float x = bf16_to_f32(y[e]) + bf16_to_f32(bias[e % n]);
	dx[e] = f32_to_bf16(gelu_back(bf16_to_f32(g[e]), x));
}

__global__ void __launch_bounds__(BLOCK)
dbias_kernel(const uint16_t *__restrict__ g, const uint16_t *__restrict__ y,
	     const uint16_t *__restrict__ bias, float *__restrict__ dbias,
	     int64_t rows, int64_t n)
{
	int64_t c = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (c >= n)
		return;
	float b = bf16_to_f32(bias[c]), acc = 0.0f;
	for (int64_t r = 0; r < rows; r++)
		acc += gelu_back(bf16_to_f32(g[r * n + c]), bf16_to_f32(y[r * n + c]) + b);
	dbias[c] = acc;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t rows = params[0], n = params[1], total = rows * n;
	if (rows <= 0 || n <= 0)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != total ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != total ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != n ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != total ||
	    args[4].dtype != ARENA_F32 || args[4].numel != n)
		return 3;
	const uint16_t *g = (const uint16_t *)args[0].data;
	const uint16_t *y = (const uint16_t *)args[1].data;
	const uint16_t *bias = (const uint16_t *)args[2].data;
	hipLaunchKernelGGL(dx_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream, g, y, bias,
			   (uint16_t *)args[3].data, n, total);
	hipLaunchKernelGGL(dbias_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream, g, y, bias,
			   (float *)args[4].data, rows, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

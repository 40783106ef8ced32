/*
 * linear_bias_gelu - baseline: y = gelu_tanh(x w^T + bias) with bf16 x
 * [m, k], w [n, k], bias [n] and y [m, n], float32 accumulation: the
 * first MLP projection of GPT-2-style models (Phi-2, GPT-J, StarCoder2)
 * with its bias and activation fused into the GEMM's epilogue.
 *
 * A first version on the CUDA cores: the classic shared-memory tiled
 * GEMM, one output per thread in TILE x TILE blocks; each step loads a
 * TILE x TILE tile of x and of w (converted to float on the way into
 * shared memory) and every thread does TILE multiply-adds from shared
 * memory.  The bf16 tensor cores are not used, each thread computes a
 * single output (two shared-memory loads per multiply-add), and global
 * loads are 2 bytes wide.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 16
#endif

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__device__ __forceinline__ float gelu_tanh(float z)
{
	const float c = 0.7978845608028654f;	/* sqrt(2/pi) */
	return 0.5f * z * (1.0f + tanhf(c * (z + 0.044715f * z * z * z)));
}

__global__ void __launch_bounds__(TILE * TILE)
linear_gelu(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
	    const uint16_t *__restrict__ bias, uint16_t *__restrict__ y,
	    int64_t m, int64_t n, int64_t k)
{
	__shared__ float xs[TILE][TILE];
	__shared__ float ws[TILE][TILE + 1];	/* +1: no bank conflicts */
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int64_t i = (int64_t)blockIdx.y * TILE + ty;	/* row of y */
	const int64_t j = (int64_t)blockIdx.x * TILE + tx;	/* column of y */
	const int64_t wrow = (int64_t)blockIdx.x * TILE + ty;	/* w row ty loads */
	float acc = 0.0f;

	for (int64_t k0 = 0; k0 < k; k0 += TILE) {
		int64_t p = k0 + tx;
		xs[ty][tx] = (i < m && p < k) ? bf16_to_float(x[i * k + p]) : 0.0f;
		ws[ty][tx] = (wrow < n && p < k) ? bf16_to_float(w[wrow * k + p])
						 : 0.0f;
		__syncthreads();
		for (int q = 0; q < TILE; q++)
			acc += xs[ty][q] * ws[tx][q];
		__syncthreads();
	}
	if (i < m && j < n)
		y[i * n + j] = float_to_bf16(gelu_tanh(acc + bf16_to_float(bias[j])));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || (m + TILE - 1) / TILE > 65535 ||
	    (n + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != n * k ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != n ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != m * n)
		return 3;
	dim3 grid((unsigned)((n + TILE - 1) / TILE),
		  (unsigned)((m + TILE - 1) / TILE));
	linear_gelu<<<grid, dim3(TILE, TILE), 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const uint16_t *)args[2].data, (uint16_t *)args[3].data, m, n,
		k);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

/*
 * layernorm_backward - baseline: LayerNorm backward from bf16 x, dy and
 * gamma and the forward's float32 mean and rstd per row (Apex's
 * fused_layer_norm_cuda backward, as Megatron-LM uses it):
 *   dx     = rstd * (g - mean_row(g) - xhat * mean_row(g * xhat)),
 *   dgamma = sum over rows of dy * xhat,   dbeta = sum over rows of dy,
 * with xhat = (x - mean) * rstd and g = dy * gamma, float32 arithmetic.
 *
 * A first version, two launches:
 *   1. dx: one block of BLOCK threads per row, two passes over the row in
 *      global memory (the two row sums, reduced with shared-memory trees;
 *      then dx), scalar 2-byte loads;
 *   2. dgamma, dbeta: one thread per column walking all rows (coalesced
 *      across the threads of a warp), so only cols / BLOCK blocks run and
 *      each thread's loop is as long as the batch - Apex instead reduces
 *      row tiles into partial sums and then the partials.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
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

__device__ float block_sum(float *red, float v)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			red[threadIdx.x] += red[threadIdx.x + stride];
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
dx_kernel(const uint16_t *__restrict__ dy, const uint16_t *__restrict__ x,
	  const uint16_t *__restrict__ gamma, const float *__restrict__ mean,
	  const float *__restrict__ rstd, uint16_t *__restrict__ dx,
	  int64_t cols)
{
	__shared__ float red[BLOCK];
	const int64_t r = blockIdx.x;
	const uint16_t *dyr = dy + r * cols, *xr = x + r * cols;
	const float mu = mean[r], rs = rstd[r];

	float sg = 0.0f, sgx = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float xhat = (bf16_to_float(xr[c]) - mu) * rs;
		float g = bf16_to_float(dyr[c]) * bf16_to_float(gamma[c]);
		sg += g;
		sgx += g * xhat;
	}
	sg = block_sum(red, sg) / (float)cols;
	sgx = block_sum(red, sgx) / (float)cols;

	for (int64_t c = threadIdx.x; c < cols; c += BLOCK) {
		float xhat = (bf16_to_float(xr[c]) - mu) * rs;
		float g = bf16_to_float(dyr[c]) * bf16_to_float(gamma[c]);
		dx[r * cols + c] = float_to_bf16(rs * (g - sg - xhat * sgx));
	}
}

__global__ void __launch_bounds__(BLOCK)
dgamma_kernel(const uint16_t *__restrict__ dy, const uint16_t *__restrict__ x,
	      const float *__restrict__ mean, const float *__restrict__ rstd,
	      uint16_t *__restrict__ dgamma, uint16_t *__restrict__ dbeta,
	      int64_t rows, int64_t cols)
{
	int64_t c = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (c >= cols)
		return;
	float dg = 0.0f, db = 0.0f;
	for (int64_t r = 0; r < rows; r++) {
		float d = bf16_to_float(dy[r * cols + c]);
		dg += d * (bf16_to_float(x[r * cols + c]) - mean[r]) * rstd[r];
		db += d;
	}
	dgamma[c] = float_to_bf16(dg);
	dbeta[c] = float_to_bf16(db);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 8 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || rows > 0x7fffffff || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != rows * cols ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != cols ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows ||
	    args[4].dtype != ARENA_F32 || args[4].numel != rows ||
	    args[5].dtype != ARENA_BF16 || args[5].numel != rows * cols ||
	    args[6].dtype != ARENA_BF16 || args[6].numel != cols ||
	    args[7].dtype != ARENA_BF16 || args[7].numel != cols)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	const uint16_t *dy = (const uint16_t *)args[0].data,
		       *x = (const uint16_t *)args[1].data,
		       *gamma = (const uint16_t *)args[2].data;
	const float *mean = (const float *)args[3].data,
		    *rstd = (const float *)args[4].data;
	dx_kernel<<<(unsigned)rows, BLOCK, 0, s>>>(dy, x, gamma, mean, rstd,
						   (uint16_t *)args[5].data,
						   cols);
	dgamma_kernel<<<(unsigned)((cols + BLOCK - 1) / BLOCK), BLOCK, 0, s>>>(
		dy, x, mean, rstd, (uint16_t *)args[6].data,
		(uint16_t *)args[7].data, rows, cols);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

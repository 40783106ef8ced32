/*
 * causal_softmax - baseline: y = softmax(scale * x) over j <= i of every
 * row i of x [batches, s, s], zero above the diagonal; bf16 in and out,
 * float32 arithmetic (Megatron-LM's scaled_upper_triang_masked_softmax,
 * the softmax of unfused causal attention).
 *
 * A first version: one block of BLOCK threads per row, three passes over
 * the row's first i + 1 elements in global memory (maximum, sum of
 * exponentials, write), shared-memory tree reductions, scalar 2-byte
 * loads and stores; the masked part of the row is written as zeros.
 * Short rows (the top of each matrix) leave most of their block idle.
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

__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__device__ float block_reduce(float *red, float v, bool is_max)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride) {
			float o = red[threadIdx.x + stride];
			red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], o)
						  : red[threadIdx.x] + o;
		}
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
causal_softmax_kernel(const uint16_t *__restrict__ x,
		      const float *__restrict__ scale_p,
		      uint16_t *__restrict__ y, int64_t s)
{
	__shared__ float red[BLOCK];
	const int64_t r = blockIdx.x;
	const int64_t len = r % s + 1;	/* j <= i */
	const uint16_t *xr = x + r * s;
	uint16_t *yr = y + r * s;
	const float scale = *scale_p;

	float m = -INFINITY;
	for (int64_t j = threadIdx.x; j < len; j += BLOCK)
		m = fmaxf(m, scale * bf16_to_float(xr[j]));
	m = block_reduce(red, m, true);

	float sum = 0.0f;
	for (int64_t j = threadIdx.x; j < len; j += BLOCK)
		sum += expf(scale * bf16_to_float(xr[j]) - m);
	sum = block_reduce(red, sum, false);

	for (int64_t j = threadIdx.x; j < s; j += BLOCK)
		yr[j] = j < len ? float_to_bf16(expf(scale * bf16_to_float(xr[j]) - m) / sum)
				: (uint16_t)0;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t batches = params[0], s = params[1];
	if (batches <= 0 || s <= 0 || batches * s > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != batches * s * s ||
	    args[1].dtype != ARENA_F32 || args[1].numel != 1 ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != batches * s * s)
		return 3;
	causal_softmax_kernel<<<(unsigned)(batches * s), BLOCK, 0,
				(cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const float *)args[1].data,
		(uint16_t *)args[2].data, s);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

/*
 * causal_conv1d - baseline: depthwise causal convolution of
 * x [batch, dim, seqlen] (time contiguous) with a width-tap filter per
 * channel, plus bias, then SiLU; bf16 in and out, float32 arithmetic
 * (Mamba's causal_conv1d_fn with activation "silu").
 *
 * A first version: one thread per output element over a flat grid.  Each
 * thread finds its (channel, time) with a 64-bit division and modulo,
 * loads its width inputs (neighbouring threads load overlapping inputs,
 * so most come from L1), the channel's taps and bias, and stores one
 * 2-byte result.  Every load and store is 2 bytes wide.
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

__global__ void __launch_bounds__(BLOCK)
conv_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ wt,
	    const uint16_t *__restrict__ bias, uint16_t *__restrict__ out,
	    int64_t total, int64_t dim, int64_t len, int width)
{
	for (int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x; e < total;
	     e += (int64_t)gridDim.x * BLOCK) {
		int64_t t = e % len;
		int64_t d = (e / len) % dim;
		float z = bf16_to_float(bias[d]);
		for (int w = 0; w < width; w++) {
			int64_t s = t - width + 1 + w;
			if (s >= 0)
				z += bf16_to_float(wt[d * width + w]) *
				     bf16_to_float(x[e - t + s]);
		}
		out[e] = float_to_bf16(z / (1.0f + expf(-z)));
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t batch = params[0], dim = params[1], len = params[2],
		width = params[3];
	if (batch <= 0 || dim <= 0 || len <= 0 || width <= 0 || width > 1024)
		return 2;
	int64_t total = batch * dim * len;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != total ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != dim * width ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != dim ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != total)
		return 3;
	int64_t blocks = (total + BLOCK - 1) / BLOCK;
	if (blocks > 1048576)
		blocks = 1048576;	/* grid-stride beyond this */
	conv_kernel<<<(unsigned)blocks, BLOCK, 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const uint16_t *)args[2].data, (uint16_t *)args[3].data, total,
		dim, len, (int)width);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

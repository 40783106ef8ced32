/*
 * cross_entropy_fwd_bwd - baseline: per-token loss lse - logit[label] and
 * the float32 gradient (softmax - onehot) / tokens of the mean loss, from
 * bf16 logits (a fused LM-head cross-entropy, as in Liger-Kernel or
 * Megatron-LM).
 *
 * A first version: one block of BLOCK threads per token row, three passes
 * over the row in global memory with scalar 2-byte loads - the maximum,
 * the sum of exp(x - max), then the gradient (exp recomputed) - each
 * reduction a shared-memory tree.  The row is read three times, every load
 * moves 2 bytes and every store 4.
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
ce_kernel(const uint16_t *__restrict__ x, const int *__restrict__ labels,
	  float *__restrict__ loss, float *__restrict__ dx, int64_t vocab,
	  float inv_tokens)
{
	__shared__ float red[BLOCK];
	const int64_t t = blockIdx.x;
	const uint16_t *xr = x + t * vocab;
	float *dr = dx + t * vocab;
	const int64_t lab = labels[t];

	float m = -INFINITY;
	for (int64_t v = threadIdx.x; v < vocab; v += BLOCK)
		m = fmaxf(m, bf16_to_float(xr[v]));
	m = block_reduce(red, m, true);

	float s = 0.0f;
	for (int64_t v = threadIdx.x; v < vocab; v += BLOCK)
		s += expf(bf16_to_float(xr[v]) - m);
	s = block_reduce(red, s, false);
	const float lse = m + logf(s);

	if (threadIdx.x == 0)
		loss[t] = lse - bf16_to_float(xr[lab]);
	for (int64_t v = threadIdx.x; v < vocab; v += BLOCK) {
		float p = expf(bf16_to_float(xr[v]) - lse);
		dr[v] = (p - (v == lab ? 1.0f : 0.0f)) * inv_tokens;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t tokens = params[0], vocab = params[1];
	if (tokens <= 0 || tokens > 0x7fffffff || vocab <= 0)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * vocab ||
	    args[1].dtype != ARENA_I32 || args[1].numel != tokens ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens ||
	    args[3].dtype != ARENA_F32 || args[3].numel != tokens * vocab)
		return 3;
	ce_kernel<<<(unsigned)tokens, BLOCK, 0, (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const int *)args[1].data,
		(float *)args[2].data, (float *)args[3].data, vocab,
		1.0f / (float)tokens);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

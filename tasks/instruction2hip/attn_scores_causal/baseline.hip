/*
 * attn_scores_causal - timing baseline (not shown to the agent as a
 * starting point): s[b][h][i][j] = scale * q[b][h][i] . k[b][g][j] for
 * j <= i, -inf above.  One thread per output (j fastest, so a warp shares
 * its q row and reads k rows d elements apart), the flat index split with
 * 64-bit divisions, the d products read straight from global memory with
 * scalar 2-byte loads and accumulated in float32 on CUDA cores.
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

__global__ void __launch_bounds__(BLOCK)
scores_kernel(const uint16_t *__restrict__ q, const uint16_t *__restrict__ k,
	      float *__restrict__ s, int64_t total, int64_t seq, int64_t hq,
	      int64_t hkv, int64_t d, float scale)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t j = e % seq, i = (e / seq) % seq, h = (e / (seq * seq)) % hq;
	int64_t b = e / (seq * seq * hq);
	if (j > i) {
		s[e] = -INFINITY;
		return;
	}
	int64_t g = h / (hq / hkv);
	const uint16_t *qr = q + ((b * hq + h) * seq + i) * d;
	const uint16_t *kr = k + ((b * hkv + g) * seq + j) * d;
	float acc = 0.0f;
	for (int64_t c = 0; c < d; c++)
		acc += bf16_to_float(qr[c]) * bf16_to_float(kr[c]);
	s[e] = acc * scale;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], hq = params[2];
	int64_t hkv = params[3], d = params[4];
	if (batch <= 0 || seq <= 0 || hq <= 0 || hkv <= 0 || hq % hkv || d <= 0)
		return 2;
	int64_t total = batch * hq * seq * seq;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != batch * hq * seq * d ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batch * hkv * seq * d ||
	    args[2].dtype != ARENA_F32 || args[2].numel != total)
		return 3;
	hipLaunchKernelGGL(scores_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data, (float *)args[2].data,
			   total, seq, hq, hkv, d, 1.0f / sqrtf((float)d));
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * image_patchify_bf16 - timing baseline: one thread per output element,
 * which decodes (image, patch, channel, row, column) from its index with
 * 64-bit divisions and loads its own byte: consecutive threads read bytes
 * 3 apart and a patch's rows far apart, nothing is staged in shared memory.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* float -> bf16 bits, round to nearest even (NaN stays NaN). */
__device__ __forceinline__ uint16_t f32_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void __launch_bounds__(BLOCK)
patchify(const uint8_t *__restrict__ px, const float *__restrict__ mean,
	 const float *__restrict__ stdv, uint16_t *__restrict__ out,
	 int64_t h, int64_t w, int64_t p, int64_t total)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t pp = p * p, per_patch = 3 * pp, nw = w / p;
	int64_t np = (h / p) * nw;
	int64_t f = e % per_patch, rest = e / per_patch;
	int64_t patch = rest % np, b = rest / np;
	int64_t c = f / pp, ij = f % pp, i = ij / p, j = ij % p;
	int64_t y = (patch / nw) * p + i, x = (patch % nw) * p + j;
	float v = (float)px[((b * h + y) * w + x) * 3 + c];
	out[e] = f32_to_bf16((v / 255.0f - mean[c]) / stdv[c]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t b = params[0], h = params[1], w = params[2], p = params[3];
	if (b <= 0 || p <= 0 || h <= 0 || w <= 0 || h % p || w % p)
		return 2;
	int64_t total = b * h * w * 3;
	if (args[0].dtype != ARENA_U8 || args[0].numel != total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != 3 ||
	    args[2].dtype != ARENA_F32 || args[2].numel != 3 ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != total)
		return 3;
	int64_t blocks = (total + BLOCK - 1) / BLOCK;
	hipLaunchKernelGGL(patchify, dim3((unsigned)blocks), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint8_t *)args[0].data,
			   (const float *)args[1].data, (const float *)args[2].data,
			   (uint16_t *)args[3].data, h, w, p, total);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * fp8_group_quant - timing baseline (not shown to the agent as a starting
 * point): per group of gs elements, s = max(absmax, 1e-10) / 448 and
 * q = e4m3fn(clamp(x / s, -448, 448)).  One warp per group (BLOCK /
 * warpSize groups per block), two passes over the group with scalar
 * 2-byte loads and 1-byte stores, the absmax reduced with warp shuffles,
 * a true division and a bit-level round-to-nearest-even e4m3 conversion
 * per element.
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

/* float (|v| <= 448) -> e4m3fn byte, round to nearest even, sign kept. */
__device__ __forceinline__ uint8_t float_to_e4m3(float v)
{
	uint32_t sign = (__float_as_uint(v) >> 24) & 0x80u;
	float a = fabsf(v);
	if (a < 0.015625f)	/* below 2^-6: subnormal steps of 2^-9 (8 -> 0x08) */
		return (uint8_t)(sign | (uint32_t)rintf(a * 512.0f));
	uint32_t u = __float_as_uint(a);
	u += 0x7ffffu + ((u >> 20) & 1u);	/* round the mantissa to 3 bits */
	uint32_t e = (u >> 23) - 127u + 7u, m = (u >> 20) & 7u;
	return (uint8_t)(sign | (e << 3) | m);
}

__global__ void __launch_bounds__(BLOCK)
group_quant_kernel(const uint16_t *__restrict__ x, uint8_t *__restrict__ q,
		   float *__restrict__ scales, int64_t ngroups, int64_t gs)
{
	int lane = threadIdx.x % warpSize;
	int64_t g = (int64_t)blockIdx.x * (BLOCK / warpSize) + threadIdx.x / warpSize;
	if (g >= ngroups)
		return;		/* the whole warp leaves together */
	const uint16_t *xg = x + g * gs;
	uint8_t *qg = q + g * gs;

	float m = 0.0f;
	for (int64_t c = lane; c < gs; c += warpSize)
		m = fmaxf(m, fabsf(bf16_to_float(xg[c])));
	for (int off = warpSize / 2; off > 0; off /= 2)
		m = fmaxf(m, __shfl_xor(m, off));
	float s = fmaxf(m, 1e-10f) / 448.0f;
	if (lane == 0)
		scales[g] = s;
	for (int64_t c = lane; c < gs; c += warpSize) {
		float v = bf16_to_float(xg[c]) / s;
		qg[c] = float_to_e4m3(fminf(fmaxf(v, -448.0f), 448.0f));
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t tokens = params[0], groups = params[1], gs = params[2];
	if (tokens <= 0 || groups <= 0 || gs <= 0)
		return 2;
	int64_t ngroups = tokens * groups;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != ngroups * gs ||
	    args[1].dtype != ARENA_U8 || args[1].numel != ngroups * gs ||
	    args[2].dtype != ARENA_F32 || args[2].numel != ngroups)
		return 3;
	int device, warp;
	if (hipGetDevice(&device) != hipSuccess ||
	    hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, device) !=
	    hipSuccess || warp <= 0 || BLOCK % warp)
		return 4;
	int64_t per_block = BLOCK / warp;
	int64_t blocks = (ngroups + per_block - 1) / per_block;
	if (blocks > 0x7fffffff)
		return 2;
	hipLaunchKernelGGL(group_quant_kernel, dim3((unsigned)blocks), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (uint8_t *)args[1].data, (float *)args[2].data, ngroups,
			   gs);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

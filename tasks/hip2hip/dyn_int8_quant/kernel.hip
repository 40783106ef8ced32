/*
 * dyn_int8_quant - baseline: per-row absmax of a bf16 matrix, scale =
 * absmax / 127, q = rint(x * (127 / absmax)) clamped to int8.
 *
 * Naive on purpose: one block of BLOCK threads per row, two passes over
 * the row in global memory (absmax, then quantize) with scalar 2-byte
 * loads and 1-byte stores; the maximum is reduced with warp shuffles plus
 * one thread combining the per-warp values.
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
quant_kernel(const uint16_t *__restrict__ x, int8_t *__restrict__ q,
	     float *__restrict__ scales, int64_t hidden)
{
	__shared__ float partial[BLOCK];	/* one slot per warp is used */
	__shared__ float total;
	const uint16_t *xr = x + (int64_t)blockIdx.x * hidden;
	int8_t *qr = q + (int64_t)blockIdx.x * hidden;

	float m = 0.0f;
	for (int64_t c = threadIdx.x; c < hidden; c += BLOCK)
		m = fmaxf(m, fabsf(bf16_to_float(xr[c])));
	for (int off = warpSize / 2; off > 0; off /= 2)
		m = fmaxf(m, __shfl_xor(m, off));
	if (threadIdx.x % warpSize == 0)
		partial[threadIdx.x / warpSize] = m;
	__syncthreads();
	if (threadIdx.x == 0) {
		float t = 0.0f;
		for (int i = 0; i < BLOCK / warpSize; i++)
			t = fmaxf(t, partial[i]);
		total = t;
		scales[blockIdx.x] = t / 127.0f;
	}
	__syncthreads();
	float inv = 127.0f / total;

	for (int64_t c = threadIdx.x; c < hidden; c += BLOCK) {
		float v = rintf(bf16_to_float(xr[c]) * inv);
		qr[c] = (int8_t)fminf(fmaxf(v, -128.0f), 127.0f);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t tokens = params[0], hidden = params[1];
	if (tokens <= 0 || hidden <= 0 || tokens > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_I8 || args[1].numel != tokens * hidden ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens)
		return 3;
	hipLaunchKernelGGL(quant_kernel, dim3((unsigned)tokens), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (int8_t *)args[1].data, (float *)args[2].data, hidden);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

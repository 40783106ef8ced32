/*
 * int4_dequant_f16 - baseline: w[k][n] = (q - z) * scale from GPTQ-packed
 * 4-bit weights (qweight [K/8, N] uint32, qzeros [groups, N/8] uint32,
 * scales [groups, N] float16) to a float16 matrix [K, N].
 *
 * Naive on purpose: one thread per output element, the (k, n) index decoded
 * from a flat 64-bit index with a division, every thread loading its packed
 * weight word, zero word and scale (each weight word is loaded by the 8
 * threads whose rows it packs), scalar 2-byte stores.
 */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
dequant_kernel(const uint32_t *__restrict__ qweight,
	       const uint32_t *__restrict__ qzeros,
	       const __half *__restrict__ scales, __half *__restrict__ w,
	       int64_t total, int64_t n, int64_t group_rows)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t k = e / n, c = e - k * n, g = k / group_rows;
	int q = (int)((qweight[(k / 8) * n + c] >> (4 * (k % 8))) & 15u);
	int z = (int)((qzeros[g * (n / 8) + c / 8] >> (4 * (c % 8))) & 15u);
	w[e] = __float2half((float)(q - z) * __half2float(scales[g * n + c]));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t groups = params[0], gsp = params[1], n8 = params[2];
	if (groups <= 0 || gsp <= 0 || n8 <= 0)
		return 2;
	int64_t k = 8 * gsp * groups, n = 8 * n8, total = k * n;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_U32 || args[0].numel != (k / 8) * n ||
	    args[1].dtype != ARENA_U32 || args[1].numel != groups * n8 ||
	    args[2].dtype != ARENA_F16 || args[2].numel != groups * n ||
	    args[3].dtype != ARENA_F16 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(dequant_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const uint32_t *)args[0].data,
			   (const uint32_t *)args[1].data,
			   (const __half *)args[2].data, (__half *)args[3].data,
			   total, n, 8 * gsp);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

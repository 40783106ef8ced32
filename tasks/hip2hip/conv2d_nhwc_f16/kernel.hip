/*
 * conv2d_nhwc_f16 - baseline: 3x3, stride 1, padding 1 convolution with
 * bias, float16 NHWC input, KRSC weights, NHWC output, float32
 * accumulation.
 *
 * Naive on purpose: one thread per output element (output channel fastest,
 * so a warp shares its input pixels and reads weights 9c apart), 9c
 * multiply-adds on CUDA cores with a bounds check per tap, every operand
 * loaded from global memory through the caches, no tiling, no tensor cores.
 */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
conv_kernel(const __half *__restrict__ x, const __half *__restrict__ wt,
	    const __half *__restrict__ bias, __half *__restrict__ y, int64_t n,
	    int64_t h, int64_t w, int64_t c, int64_t k)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= n * h * w * k)
		return;
	int64_t o = e % k, j = (e / k) % w, i = (e / (k * w)) % h;
	int64_t b = e / (k * w * h);
	float acc = __half2float(bias[o]);
	for (int di = 0; di < 3; di++)
		for (int dj = 0; dj < 3; dj++) {
			int64_t ii = i + di - 1, jj = j + dj - 1;
			if (ii < 0 || ii >= h || jj < 0 || jj >= w)
				continue;
			const __half *xp = x + ((b * h + ii) * w + jj) * c;
			const __half *wp = wt + ((o * 3 + di) * 3 + dj) * c;
			for (int64_t ci = 0; ci < c; ci++)
				acc += __half2float(wp[ci]) * __half2float(xp[ci]);
		}
	y[e] = __float2half(acc);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t n = params[0], h = params[1], w = params[2], c = params[3];
	int64_t k = params[4];
	if (n <= 0 || h <= 0 || w <= 0 || c <= 0 || k <= 0)
		return 2;
	int64_t total = n * h * w * k;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F16 || args[0].numel != n * h * w * c ||
	    args[1].dtype != ARENA_F16 || args[1].numel != k * 9 * c ||
	    args[2].dtype != ARENA_F16 || args[2].numel != k ||
	    args[3].dtype != ARENA_F16 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(conv_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const __half *)args[0].data, (const __half *)args[1].data,
			   (const __half *)args[2].data, (__half *)args[3].data,
			   n, h, w, c, k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

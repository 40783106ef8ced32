/*
 * depthwise_conv2d_7x7 - timing baseline (not shown to the agent as a
 * starting point): 7x7 depthwise convolution, padding 3, float32 NCHW.
 * One thread per output element, the flat index split with 64-bit
 * divisions, 49 taps each with a bounds check, inputs and weights read
 * from global memory through the caches.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
dwconv_kernel(const float *__restrict__ x, const float *__restrict__ wt,
	      const float *__restrict__ bias, float *__restrict__ y,
	      int64_t total, int64_t c, int64_t h, int64_t w)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t j = e % w, i = (e / w) % h, plane = e / (w * h), ch = plane % c;
	const float *xp = x + plane * h * w, *wp = wt + ch * 49;
	float acc = bias[ch];
	for (int di = 0; di < 7; di++)
		for (int dj = 0; dj < 7; dj++) {
			int64_t ii = i + di - 3, jj = j + dj - 3;
			if (ii >= 0 && ii < h && jj >= 0 && jj < w)
				acc += wp[di * 7 + dj] * xp[ii * w + jj];
		}
	y[e] = acc;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t n = params[0], c = params[1], h = params[2], w = params[3];
	if (n <= 0 || c <= 0 || h <= 0 || w <= 0)
		return 2;
	int64_t total = n * c * h * w;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != c * 49 ||
	    args[2].dtype != ARENA_F32 || args[2].numel != c ||
	    args[3].dtype != ARENA_F32 || args[3].numel != total)
		return 3;
	hipLaunchKernelGGL(dwconv_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (const float *)args[1].data,
			   (const float *)args[2].data, (float *)args[3].data, total,
			   c, h, w);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * conv2d - baseline: 3x3 convolution, stride 1, zero padding 1, NCHW:
 * y[b][o][i][j] = sum_{c,di,dj} wt[o][c][di][dj] * x[b][c][i+di-1][j+dj-1].
 *
 * Naive on purpose: one thread per output element (a flat index decoded
 * with divisions), each reading its cin * 9 inputs and weights straight
 * from global memory with a bounds check per tap - no shared-memory tiles,
 * no reuse of loaded inputs across output channels, no im2col or matrix
 * instructions.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
conv2d_kernel(const float *__restrict__ x, const float *__restrict__ wt,
	      float *__restrict__ y, int64_t batch, int64_t cin, int64_t cout,
	      int64_t h, int64_t w)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= batch * cout * h * w)
		return;
	int64_t j = e % w;
	int64_t i = (e / w) % h;
	int64_t o = (e / (w * h)) % cout;
	int64_t b = e / (w * h * cout);
	float acc = 0.0f;
	for (int64_t c = 0; c < cin; c++) {
		const float *xc = x + (b * cin + c) * h * w;
		const float *wc = wt + (o * cin + c) * 9;
		for (int di = 0; di < 3; di++) {
			int64_t ii = i + di - 1;
			if (ii < 0 || ii >= h)
				continue;
			for (int dj = 0; dj < 3; dj++) {
				int64_t jj = j + dj - 1;
				if (jj < 0 || jj >= w)
					continue;
				acc += wc[di * 3 + dj] * xc[ii * w + jj];
			}
		}
	}
	y[e] = acc;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 5)
		return 1;
	int64_t batch = params[0], cin = params[1], cout = params[2];
	int64_t h = params[3], w = params[4];
	if (batch <= 0 || cin <= 0 || cout <= 0 || h <= 0 || w <= 0)
		return 2;
	int64_t total = batch * cout * h * w;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != batch * cin * h * w ||
	    args[1].dtype != ARENA_F32 || args[1].numel != cout * cin * 9 ||
	    args[2].dtype != ARENA_F32 || args[2].numel != total)
		return 3;
	hipLaunchKernelGGL(conv2d_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (const float *)args[1].data,
			   (float *)args[2].data, batch, cin, cout, h, w);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

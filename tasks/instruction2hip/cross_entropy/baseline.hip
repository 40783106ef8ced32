/*
 * cross_entropy - timing baseline: one block per row, a pass for the
 * maximum and a pass for the sum of exponentials, each reduced by a
 * shared-memory tree (a __syncthreads per level); thread 0 writes the
 * loss.  A label outside [0, classes) gives a NaN loss.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
xent_kernel(const float *__restrict__ logits, const int *__restrict__ labels,
	    float *__restrict__ loss, int64_t classes)
{
	__shared__ float s[BLOCK];
	const float *xr = logits + (int64_t)blockIdx.x * classes;

	float m = -INFINITY;
	for (int64_t c = threadIdx.x; c < classes; c += BLOCK)
		m = fmaxf(m, xr[c]);
	s[threadIdx.x] = m;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + stride]);
		__syncthreads();
	}
	m = s[0];
	__syncthreads();

	float sum = 0.0f;
	for (int64_t c = threadIdx.x; c < classes; c += BLOCK)
		sum += expf(xr[c] - m);
	s[threadIdx.x] = sum;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		int lab = labels[blockIdx.x];
		loss[blockIdx.x] = (lab >= 0 && lab < classes)
				   ? m + logf(s[0]) - xr[lab] : NAN;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], classes = params[1];
	if (rows <= 0 || classes <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * classes ||
	    args[1].dtype != ARENA_I32 || args[1].numel != rows ||
	    args[2].dtype != ARENA_F32 || args[2].numel != rows)
		return 3;
	hipLaunchKernelGGL(xent_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const float *)args[0].data,
			   (const int *)args[1].data, (float *)args[2].data,
			   classes);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

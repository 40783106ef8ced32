/*
 * reduce_sum - baseline: result[0] = sum of x[0..n) (float32 in, float64
 * out).
 *
 * Naive on purpose: one element per thread, a shared-memory tree reduction
 * per block (a __syncthreads per level), then one float64 atomicAdd per
 * block into the result, which was zeroed with hipMemsetAsync on the same
 * stream.  With n / BLOCK blocks all adding into one address, the atomics
 * serialize and dominate the run time.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
reduce_kernel(const float *__restrict__ x, double *__restrict__ result,
	      int64_t n)
{
	__shared__ float s[BLOCK];
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] : 0.0f;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(result, (double)s[0]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F64 || args[1].numel != 1)
		return 3;
	hipStream_t s = (hipStream_t)stream;
	if (hipMemsetAsync(args[1].data, 0, sizeof(double), s) != hipSuccess)
		return 4;
	hipLaunchKernelGGL(reduce_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, s, (const float *)args[0].data,
			   (double *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

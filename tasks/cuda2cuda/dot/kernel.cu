/*
 * dot - baseline: result[0] = sum of x[i] * y[i] (float32 in, float64
 * out).
 *
 * Naive on purpose: one product per thread, a shared-memory tree reduction
 * per block, then one float64 atomicAdd per block into the result (zeroed
 * with cudaMemsetAsync on the same stream).  n / BLOCK atomics on a single
 * address serialize.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
dot_kernel(const float *x, const float *y, double *result, long long n)
{
	__shared__ float s[BLOCK];
	long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
	s[threadIdx.x] = i < n ? x[i] * y[i] : 0.0f;
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
	if (nargs != 3 || nparams != 1)
		return 1;
	long long n = params[0];
	if (n <= 0 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F64 || args[2].numel != 1)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	if (cudaMemsetAsync(args[2].data, 0, sizeof(double), s) != cudaSuccess)
		return 4;
	dot_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK, 0, s>>>(
		(const float *)args[0].data, (const float *)args[1].data,
		(double *)args[2].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

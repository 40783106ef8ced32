/*
 * histogram - baseline: counts[b] = number of i with x[i] == b, for int32
 * values x[i] in [0, bins).
 *
 * Naive on purpose: the counts are zeroed with hipMemsetAsync, then one
 * thread per element does an atomicAdd on the global counter of its bin.
 * With few bins, thousands of threads collide on the same few addresses
 * and the atomics serialize.  A value outside [0, bins) is not counted.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
histogram_kernel(const int *__restrict__ x, int *__restrict__ counts,
		 int64_t n, int bins)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	int v = x[i];
	if (v >= 0 && v < bins)
		atomicAdd(&counts[v], 1);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t n = params[0], bins = params[1];
	if (n <= 0 || bins <= 0 || bins > 0x7fffffff ||
	    (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I32 || args[1].numel != bins)
		return 3;
	hipStream_t s = (hipStream_t)stream;
	if (hipMemsetAsync(args[1].data, 0, (size_t)bins * sizeof(int), s) !=
	    hipSuccess)
		return 4;
	hipLaunchKernelGGL(histogram_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, s, (const int *)args[0].data,
			   (int *)args[1].data, n, (int)bins);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

/*
 * dot - an honest candidate that takes its scratch from stream-ordered
 * allocation (cudaMallocAsync / cudaFreeAsync on the given stream), as
 * many real kernels do: grid-stride products summed per block in
 * float64, one partial per block into the scratch, then one block sums
 * the partials into the result.  No atomics, so it also beats the
 * baseline's n / 256 serialized float64 atomicAdds.  tests/gpu/pace.sh
 * evaluates it: stream-ordered allocation must work inside a runner.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#define BLOCK 256
#define GRID 1056 /* 8 blocks per SM on a 132-SM H200 */

__global__ void __launch_bounds__(BLOCK)
partial_kernel(const float *x, const float *y, double *part, long long n)
{
	__shared__ double s[BLOCK];
	double acc = 0;
	for (long long i = (long long)blockIdx.x * BLOCK + threadIdx.x; i < n;
	     i += (long long)gridDim.x * BLOCK)
		acc += (double)x[i] * (double)y[i];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		part[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(BLOCK)
final_kernel(const double *part, int nparts, double *result)
{
	__shared__ double s[BLOCK];
	double acc = 0;
	for (int i = threadIdx.x; i < nparts; i += BLOCK)
		acc += part[i];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		result[0] = s[0];
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 1)
		return 1;
	long long n = params[0];
	if (n <= 0 || args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F64 || args[2].numel != 1)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	double *part = NULL;
	if (cudaMallocAsync((void **)&part, GRID * sizeof(double), s) !=
	    cudaSuccess)
		return 4;
	partial_kernel<<<GRID, BLOCK, 0, s>>>((const float *)args[0].data,
					     (const float *)args[1].data, part,
					     n);
	final_kernel<<<1, BLOCK, 0, s>>>(part, GRID, (double *)args[2].data);
	if (cudaFreeAsync(part, s) != cudaSuccess)
		return 5;
	return cudaGetLastError() == cudaSuccess ? 0 : 6;
}

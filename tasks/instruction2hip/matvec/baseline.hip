/*
 * matvec - timing baseline: one thread per row of A walking the row alone
 * (neighbouring threads read addresses n floats apart: uncoalesced),
 * accumulating in float32.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
matvec_kernel(const float *__restrict__ a, const float *__restrict__ x,
	      float *__restrict__ y, int64_t m, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= m)
		return;
	const float *ar = a + i * n;
	float acc = 0.0f;
	for (int64_t j = 0; j < n; j++)
		acc += ar[j] * x[j];
	y[i] = acc;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t m = params[0], n = params[1];
	if (m <= 0 || n <= 0 || (m + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != m * n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m)
		return 3;
	hipLaunchKernelGGL(matvec_kernel, dim3((unsigned)((m + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (const float *)args[1].data,
			   (float *)args[2].data, m, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

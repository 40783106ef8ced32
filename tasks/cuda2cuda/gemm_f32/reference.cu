/*
 * gemm_f32 - trusted reference (GPU): C = A * B with every dot product
 * accumulated in float64 from the exact float32 inputs and rounded to float
 * once.  One thread per element of C; the rows are a grid-stride loop so
 * any m fits the grid.  A host reference in double would take minutes at
 * these sizes, so this one runs on the device, in its own runner.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

__global__ void gemm_ref(const float *a, const float *b, float *c,
			 long long m, long long n, long long k)
{
	long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (col >= n)
		return;
	for (long long row = blockIdx.y; row < m; row += gridDim.y) {
		double acc = 0.0;
		for (long long p = 0; p < k; p++)
			acc += (double)a[row * k + p] * (double)b[p * n + col];
		c[row * n + col] = (float)acc;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	long long m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != k * n || args[2].numel != m * n ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F32 ||
	    args[2].dtype != ARENA_F32)
		return 2;
	dim3 grid((unsigned)((n + 127) / 128), (unsigned)(m < 65535 ? m : 65535));
	gemm_ref<<<grid, 128, 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (const float *)args[1].data,
		(float *)args[2].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

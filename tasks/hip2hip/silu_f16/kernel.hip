/*
 * silu_f16 - baseline: y = x / (1 + exp(-x)) over an IEEE half-precision
 * vector, computed in float32 and rounded to the nearest f16.
 *
 * Naive on purpose: one thread per element with scalar 2-byte loads and
 * stores (a warp moves only 64 bytes per memory instruction), expf from the
 * math library and a true division.  Memory-bound: 4 bytes per element.
 */
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
silu_kernel(const __half *__restrict__ x, __half *__restrict__ y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	float v = __half2float(x[i]);
	y[i] = __float2half(v / (1.0f + expf(-v)));
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
	if (args[0].dtype != ARENA_F16 || args[0].numel != n ||
	    args[1].dtype != ARENA_F16 || args[1].numel != n)
		return 3;
	hipLaunchKernelGGL(silu_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const __half *)args[0].data, (__half *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

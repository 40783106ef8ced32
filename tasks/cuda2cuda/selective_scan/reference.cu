/*
 * selective_scan - trusted reference (GPU): one thread per (batch,
 * channel) runs the recurrence exactly as written, in float64 from the
 * exact inputs (state, exponentials, products and the gate), and rounds
 * each output to bf16 (nearest even) once.  A host reference would take
 * seconds per case (hundreds of millions of exponentials).
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#define MAX_N 16

__device__ double bf(uint16_t v)
{
	return (double)__uint_as_float((uint32_t)v << 16);
}

__device__ uint16_t to_bf16(double v)
{
	/* double -> float -> bf16: can differ from one direct rounding only
	 * when the float is exactly a bf16 midpoint; the tolerance (one bf16
	 * ulp) covers that. */
	uint32_t u = __float_as_uint((float)v);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void ref_kernel(const uint16_t *u, const uint16_t *delta,
			   const float *A, const uint16_t *B, const uint16_t *C,
			   const float *D, const uint16_t *z, uint16_t *out,
			   int64_t batch, int64_t dim, int64_t ns, int64_t len)
{
	int64_t bd = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (bd >= batch * dim)
		return;
	int64_t b = bd / dim, d = bd % dim;
	double h[MAX_N];
	for (int64_t n = 0; n < ns; n++)
		h[n] = 0.0;
	for (int64_t t = 0; t < len; t++) {
		int64_t e = bd * len + t;
		double dt = bf(delta[e]), x = bf(u[e]), y = 0.0;
		for (int64_t n = 0; n < ns; n++) {
			h[n] = exp(dt * (double)A[d * ns + n]) * h[n] +
			       dt * bf(B[(b * ns + n) * len + t]) * x;
			y += bf(C[(b * ns + n) * len + t]) * h[n];
		}
		y += (double)D[d] * x;
		double g = bf(z[e]);
		out[e] = to_bf16(y * g / (1.0 + exp(-g)));
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 8 || nparams != 4)
		return 1;
	int64_t batch = params[0], dim = params[1], ns = params[2],
		len = params[3];
	if (batch <= 0 || dim <= 0 || ns <= 0 || ns > MAX_N || len <= 0)
		return 2;
	int64_t bdl = batch * dim * len, bnl = batch * ns * len;
	if (args[0].numel != bdl || args[1].numel != bdl ||
	    args[2].numel != dim * ns || args[3].numel != bnl ||
	    args[4].numel != bnl || args[5].numel != dim ||
	    args[6].numel != bdl || args[7].numel != bdl)
		return 3;
	ref_kernel<<<(unsigned)((batch * dim + 127) / 128), 128, 0,
		     (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const float *)args[2].data, (const uint16_t *)args[3].data,
		(const uint16_t *)args[4].data, (const float *)args[5].data,
		(const uint16_t *)args[6].data, (uint16_t *)args[7].data, batch,
		dim, ns, len);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

/*
 * selective_scan - baseline: Mamba-1's selective scan with the D skip
 * connection and the silu(z) gate (selective_scan_fn), bf16 activations,
 * float32 A and D, float32 arithmetic.
 *
 * A first version: one thread per (batch, channel) runs the recurrence
 * over the whole sequence with its dstate-element state in registers,
 * one time step after another.  There are only batch * dim threads (a
 * few warps per SM), each does seqlen dependent steps, and each thread
 * reads its own time-contiguous rows of u, delta and z 2 bytes at a time
 * (neighbouring threads are a whole row apart; L1 absorbs some of it).
 * B and C are the same for every channel and are re-read by every thread.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 64
#endif
#define MAX_N 16

__device__ __forceinline__ float bf16_to_float(uint16_t b)
{
	return __uint_as_float((uint32_t)b << 16);
}

__device__ __forceinline__ uint16_t float_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

__global__ void __launch_bounds__(BLOCK)
scan_kernel(const uint16_t *__restrict__ u, const uint16_t *__restrict__ delta,
	    const float *__restrict__ A, const uint16_t *__restrict__ B,
	    const uint16_t *__restrict__ C, const float *__restrict__ D,
	    const uint16_t *__restrict__ z, uint16_t *__restrict__ out,
	    int64_t batch, int64_t dim, int ns, int64_t len)
{
	int64_t bd = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (bd >= batch * dim)
		return;
	int64_t b = bd / dim, d = bd % dim;
	float a[MAX_N], h[MAX_N];
#pragma unroll
	for (int n = 0; n < MAX_N; n++) {
		a[n] = n < ns ? A[d * ns + n] : 0.0f;
		h[n] = 0.0f;
	}
	const float dskip = D[d];
	const uint16_t *Bb = B + b * ns * len, *Cb = C + b * ns * len;

	for (int64_t t = 0; t < len; t++) {
		int64_t e = bd * len + t;
		float dt = bf16_to_float(delta[e]), x = bf16_to_float(u[e]);
		float y = 0.0f;
#pragma unroll
		for (int n = 0; n < MAX_N; n++) {
			if (n < ns) {
				h[n] = expf(dt * a[n]) * h[n] +
				       dt * bf16_to_float(Bb[n * len + t]) * x;
				y += bf16_to_float(Cb[n * len + t]) * h[n];
			}
		}
		y += dskip * x;
		float g = bf16_to_float(z[e]);
		out[e] = float_to_bf16(y * g / (1.0f + expf(-g)));
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
	if (batch <= 0 || dim <= 0 || ns <= 0 || ns > MAX_N || len <= 0 ||
	    (batch * dim + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	int64_t bdl = batch * dim * len, bnl = batch * ns * len;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != bdl ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != bdl ||
	    args[2].dtype != ARENA_F32 || args[2].numel != dim * ns ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != bnl ||
	    args[4].dtype != ARENA_BF16 || args[4].numel != bnl ||
	    args[5].dtype != ARENA_F32 || args[5].numel != dim ||
	    args[6].dtype != ARENA_BF16 || args[6].numel != bdl ||
	    args[7].dtype != ARENA_BF16 || args[7].numel != bdl)
		return 3;
	scan_kernel<<<(unsigned)((batch * dim + BLOCK - 1) / BLOCK), BLOCK, 0,
		      (cudaStream_t)stream>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		(const float *)args[2].data, (const uint16_t *)args[3].data,
		(const uint16_t *)args[4].data, (const float *)args[5].data,
		(const uint16_t *)args[6].data, (uint16_t *)args[7].data, batch,
		dim, (int)ns, len);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

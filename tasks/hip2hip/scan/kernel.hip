/*
 * scan - baseline: inclusive prefix sum y[i] = x[0] + ... + x[i] of int32
 * values into int64.
 *
 * Naive on purpose, three launches on the stream:
 *   1. tile_scan: each block scans its tile of BLOCK elements in shared
 *      memory (Hillis-Steele: log2(BLOCK) steps, each adding the element
 *      `off` places back, O(n log n) work) and writes tile-local sums to y.
 *   2. carry_scan: ONE block walks over the tile totals (the last element
 *      of each tile), BLOCK tiles at a time, and turns them into global
 *      prefix sums - a long serial chain when there are many tiles.
 *   3. add_carry: every other element of tile t adds the global sum that
 *      ends tile t-1.
 * y is read and written twice; x is read once.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

/* Inclusive Hillis-Steele scan of buf[0][0..BLOCK); returns this thread's
 * result.  Every thread of the block must call it. */
__device__ long long block_scan(long long (*buf)[BLOCK], long long v)
{
	int t = threadIdx.x, cur = 0;
	buf[0][t] = v;
	__syncthreads();
	for (int off = 1; off < BLOCK; off *= 2) {
		long long s = buf[cur][t];
		if (t >= off)
			s += buf[cur][t - off];
		buf[1 - cur][t] = s;
		cur = 1 - cur;
		__syncthreads();
	}
	long long r = buf[cur][t];
	__syncthreads();	/* buf may be reused right away */
	return r;
}

__device__ __forceinline__ int64_t tile_end(int64_t t, int64_t n)
{
	int64_t e = (t + 1) * BLOCK;
	return (e < n ? e : n) - 1;
}

__global__ void __launch_bounds__(BLOCK)
tile_scan(const int *__restrict__ x, long long *__restrict__ y, int64_t n)
{
	__shared__ long long buf[2][BLOCK];
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	long long r = block_scan(buf, i < n ? (long long)x[i] : 0);
	if (i < n)
		y[i] = r;
}

__global__ void __launch_bounds__(BLOCK)
carry_scan(long long *__restrict__ y, int64_t n, int64_t ntiles)
{
	__shared__ long long buf[2][BLOCK];
	long long carry = 0;
	for (int64_t base = 0; base < ntiles; base += BLOCK) {
		int64_t t = base + threadIdx.x;
		long long v = t < ntiles ? y[tile_end(t, n)] : 0;
		long long r = block_scan(buf, v);
		if (t < ntiles)
			y[tile_end(t, n)] = r + carry;
		/* r of the last thread is the sum of this chunk; share it. */
		if (threadIdx.x == BLOCK - 1)
			buf[0][0] = r;
		__syncthreads();
		carry += buf[0][0];
		__syncthreads();
	}
}

__global__ void __launch_bounds__(BLOCK)
add_carry(long long *__restrict__ y, int64_t n)
{
	int64_t t = (int64_t)blockIdx.x + 1;	/* tile 0 needs nothing */
	int64_t i = t * BLOCK + threadIdx.x;
	if (i < tile_end(t, n))
		y[i] += y[t * BLOCK - 1];
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
	if (args[0].dtype != ARENA_I32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I64 || args[1].numel != n)
		return 3;
	hipStream_t s = (hipStream_t)stream;
	const int *x = (const int *)args[0].data;
	long long *y = (long long *)args[1].data;
	int64_t ntiles = (n + BLOCK - 1) / BLOCK;
	hipLaunchKernelGGL(tile_scan, dim3((unsigned)ntiles), dim3(BLOCK), 0, s,
			   x, y, n);
	if (ntiles > 1) {
		hipLaunchKernelGGL(carry_scan, dim3(1), dim3(BLOCK), 0, s, y, n,
				   ntiles);
		hipLaunchKernelGGL(add_carry, dim3((unsigned)(ntiles - 1)),
				   dim3(BLOCK), 0, s, y, n);
	}
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

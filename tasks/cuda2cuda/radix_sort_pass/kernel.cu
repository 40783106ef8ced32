/*
 * radix_sort_pass - baseline: one stable LSD radix-sort pass over
 * (uint32 key, int32 value) pairs by the 8-bit digit (key >> shift) & 255
 * (one of the four passes of CUB's DeviceRadixSort::SortPairs on 32-bit
 * keys, as used for argsort, MoE token sorting and sampling).
 *
 * A first version with the textbook reduce-then-scan structure, four
 * launches on the stream and a scratch table from cudaMallocAsync:
 *   1. hist: each block counts the digits of one tile of TILE pairs in a
 *      shared-memory histogram (shared atomics) and writes it to a global
 *      table laid out [digit][tile];
 *   2. rowscan: one block per digit turns its row of the table into
 *      exclusive prefix sums over the tiles (Hillis-Steele block scans,
 *      BLOCK tiles at a time) and records the digit's total;
 *   3. base: one thread turns the 256 totals into starting offsets;
 *   4. scatter: each block walks its tile again in chunks of BLOCK pairs;
 *      every thread finds its rank among the same-digit pairs before it in
 *      the chunk by reading all earlier threads' digits from shared memory
 *      (O(BLOCK) work per pair) and writes its pair to
 *      base + table + pairs of that digit already placed + rank.
 * Keys and values are read twice, the local ranking is quadratic in the
 * chunk size, and stores are scattered 4-byte writes.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#define CHUNKS 16
#define TILE (BLOCK * CHUNKS)
#define RADIX 256

__global__ void __launch_bounds__(BLOCK)
hist_kernel(const unsigned *__restrict__ keys, int64_t n, int shift,
	    int *__restrict__ table, int64_t ntiles)
{
	__shared__ int h[RADIX];
	for (int d = threadIdx.x; d < RADIX; d += BLOCK)
		h[d] = 0;
	__syncthreads();
	int64_t beg = (int64_t)blockIdx.x * TILE;
	for (int64_t i = beg + threadIdx.x; i < beg + TILE && i < n; i += BLOCK)
		atomicAdd(&h[(keys[i] >> shift) & (RADIX - 1)], 1);
	__syncthreads();
	for (int d = threadIdx.x; d < RADIX; d += BLOCK)
		table[d * ntiles + blockIdx.x] = h[d];
}

/* Inclusive Hillis-Steele scan of v over the block; every thread calls. */
__device__ int block_scan(int (*buf)[BLOCK], int v)
{
	int t = threadIdx.x, cur = 0;
	buf[0][t] = v;
	__syncthreads();
	for (int off = 1; off < BLOCK; off *= 2) {
		int s = buf[cur][t];
		if (t >= off)
			s += buf[cur][t - off];
		buf[1 - cur][t] = s;
		cur = 1 - cur;
		__syncthreads();
	}
	int r = buf[cur][t];
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
rowscan_kernel(int *__restrict__ table, int64_t ntiles, int *__restrict__ total)
{
	__shared__ int buf[2][BLOCK];
	__shared__ int chunk_sum;
	int *row = table + (int64_t)blockIdx.x * ntiles;
	int carry = 0;
	for (int64_t b = 0; b < ntiles; b += BLOCK) {
		int64_t t = b + threadIdx.x;
		int v = t < ntiles ? row[t] : 0;
		int inc = block_scan(buf, v);
		if (t < ntiles)
			row[t] = carry + inc - v;
		if (threadIdx.x == BLOCK - 1)
			chunk_sum = inc;
		__syncthreads();
		carry += chunk_sum;
		__syncthreads();
	}
	if (threadIdx.x == 0)
		total[blockIdx.x] = carry;
}

__global__ void base_kernel(const int *__restrict__ total, int *__restrict__ base)
{
	int s = 0;
	for (int d = 0; d < RADIX; d++) {
		base[d] = s;
		s += total[d];
	}
}

__global__ void __launch_bounds__(BLOCK)
scatter_kernel(const unsigned *__restrict__ keys, const int *__restrict__ vals,
	       unsigned *__restrict__ keys_out, int *__restrict__ vals_out,
	       int64_t n, int shift, const int *__restrict__ table,
	       int64_t ntiles, const int *__restrict__ base)
{
	__shared__ int run[RADIX];	/* next output slot of each digit */
	__shared__ int dig[BLOCK];
	for (int d = threadIdx.x; d < RADIX; d += BLOCK)
		run[d] = base[d] + table[d * ntiles + blockIdx.x];
	for (int c = 0; c < CHUNKS; c++) {
		int64_t i = (int64_t)blockIdx.x * TILE + (int64_t)c * BLOCK +
			    threadIdx.x;
		bool valid = i < n;
		unsigned k = valid ? keys[i] : 0;
		int my = valid ? (int)((k >> shift) & (RADIX - 1)) : RADIX;
		__syncthreads();	/* run[] set, previous chunk done */
		dig[threadIdx.x] = my;
		__syncthreads();
		int rank = 0;
		for (int j = 0; j < (int)threadIdx.x; j++)
			rank += dig[j] == my;
		if (valid) {
			int64_t pos = (int64_t)run[my] + rank;
			keys_out[pos] = k;
			vals_out[pos] = vals[i];
		}
		__syncthreads();	/* everyone has read run[] */
		if (valid)
			atomicAdd(&run[my], 1);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t n = params[0], shift = params[1];
	if (n <= 0 || n > 0x7fffffff || shift < 0 || shift > 24)
		return 2;
	if (args[0].dtype != ARENA_U32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I32 || args[1].numel != n ||
	    args[2].dtype != ARENA_U32 || args[2].numel != n ||
	    args[3].dtype != ARENA_I32 || args[3].numel != n)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	const unsigned *keys = (const unsigned *)args[0].data;
	const int *vals = (const int *)args[1].data;
	int64_t ntiles = (n + TILE - 1) / TILE;
	int *scratch = NULL;	/* table[RADIX][ntiles], total[RADIX], base[RADIX] */
	if (cudaMallocAsync((void **)&scratch,
			    (size_t)(RADIX * ntiles + 2 * RADIX) * sizeof(int),
			    s) != cudaSuccess)
		return 4;
	int *table = scratch, *total = scratch + RADIX * ntiles,
	    *base = total + RADIX;
	hist_kernel<<<(unsigned)ntiles, BLOCK, 0, s>>>(keys, n, (int)shift,
						       table, ntiles);
	rowscan_kernel<<<RADIX, BLOCK, 0, s>>>(table, ntiles, total);
	base_kernel<<<1, 1, 0, s>>>(total, base);
	scatter_kernel<<<(unsigned)ntiles, BLOCK, 0, s>>>(
		keys, vals, (unsigned *)args[2].data, (int *)args[3].data, n,
		(int)shift, table, ntiles, base);
	cudaFreeAsync(scratch, s);
	return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

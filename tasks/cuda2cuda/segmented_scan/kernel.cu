/*
 * segmented_scan - baseline: inclusive segmented prefix sum of int32 into
 * int64, segments starting where flags[i] == 0 (and at 0): the head-flag
 * form of CUB's scan-by-key, used for ragged batches, sparse-row
 * reductions and per-group cumulative sums.
 *
 * Pairs (head seen, sum since the last head) combine associatively:
 * (fa, a) then (fb, b) = (fa | fb, fb ? b : a + b).
 *
 * A first version, three launches on the stream and scratch from
 * cudaMallocAsync (the scan of hip2hip/scan, made segmented):
 *   1. tile_scan: each block scans a tile of BLOCK * ITEMS elements (each
 *      thread scans ITEMS consecutive elements, then a Hillis-Steele block
 *      scan of the per-thread pairs) and records the tile's total pair and
 *      the position of its first head;
 *   2. carry_scan: ONE block scans the tiles' pairs, BLOCK tiles at a time
 *      - a serial chain of n / (BLOCK^2 * ITEMS) steps - into the carry
 *      entering each tile;
 *   3. add_carry: elements of a tile before its first head add the carry.
 * y is written twice and partly read back; the carry chain is serial.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif
#define ITEMS 4
#define TILE (BLOCK * ITEMS)

struct seg {
	int f;		/* 1 when a head was seen */
	long long s;	/* sum since the last head (or since the start) */
};

__device__ __forceinline__ seg combine(seg a, seg b)	/* a before b */
{
	seg r;
	r.f = a.f | b.f;
	r.s = b.f ? b.s : a.s + b.s;
	return r;
}

/* Inclusive Hillis-Steele scan of v over the block; every thread calls. */
__device__ seg block_scan(int (*bf)[BLOCK], long long (*bs)[BLOCK], seg v)
{
	int t = threadIdx.x, cur = 0;
	bf[0][t] = v.f;
	bs[0][t] = v.s;
	__syncthreads();
	for (int off = 1; off < BLOCK; off *= 2) {
		seg me = { bf[cur][t], bs[cur][t] };
		if (t >= off) {
			seg prev = { bf[cur][t - off], bs[cur][t - off] };
			me = combine(prev, me);
		}
		bf[1 - cur][t] = me.f;
		bs[1 - cur][t] = me.s;
		cur = 1 - cur;
		__syncthreads();
	}
	seg r = { bf[cur][t], bs[cur][t] };
	__syncthreads();
	return r;
}

__global__ void __launch_bounds__(BLOCK)
tile_scan(const int *__restrict__ x, const unsigned char *__restrict__ flags,
	  long long *__restrict__ y, int64_t n, int *__restrict__ tile_f,
	  long long *__restrict__ tile_s, int64_t *__restrict__ first_head)
{
	__shared__ int bf[2][BLOCK];
	__shared__ long long bs[2][BLOCK];
	__shared__ unsigned long long first;
	const int64_t beg = (int64_t)blockIdx.x * TILE;
	const int64_t end = beg + TILE < n ? beg + TILE : n;
	if (threadIdx.x == 0)
		first = (unsigned long long)end;
	__syncthreads();

	/* Sequential scan of this thread's ITEMS elements. */
	const int64_t i0 = beg + (int64_t)threadIdx.x * ITEMS;
	long long loc[ITEMS];
	int locf[ITEMS];
	seg me = { 0, 0 };
	for (int j = 0; j < ITEMS; j++) {
		int64_t i = i0 + j;
		if (i < end) {
			if (i == 0 || flags[i] == 0) {
				me.f = 1;
				me.s = 0;
				atomicMin(&first, (unsigned long long)i);
			}
			me.s += x[i];
		}
		loc[j] = me.s;
		locf[j] = me.f;
	}

	/* Exclusive prefix of the earlier threads, from the inclusive scan. */
	seg inc = block_scan(bf, bs, me);
	bf[0][threadIdx.x] = inc.f;
	bs[0][threadIdx.x] = inc.s;
	__syncthreads();
	long long before = threadIdx.x > 0 ? bs[0][threadIdx.x - 1] : 0;
	for (int j = 0; j < ITEMS; j++) {
		int64_t i = i0 + j;
		if (i < end)
			y[i] = locf[j] ? loc[j] : before + loc[j];
	}
	if (threadIdx.x == BLOCK - 1) {
		tile_f[blockIdx.x] = inc.f;
		tile_s[blockIdx.x] = inc.s;
		first_head[blockIdx.x] = (int64_t)first;
	}
}

__global__ void __launch_bounds__(BLOCK)
carry_scan(const int *__restrict__ tile_f, const long long *__restrict__ tile_s,
	   long long *__restrict__ carry, int64_t ntiles)
{
	__shared__ int bf[2][BLOCK];
	__shared__ long long bs[2][BLOCK];
	__shared__ int run_f;
	__shared__ long long run_s;
	if (threadIdx.x == 0) {
		run_f = 0;
		run_s = 0;
	}
	__syncthreads();
	for (int64_t b = 0; b < ntiles; b += BLOCK) {
		int64_t t = b + threadIdx.x;
		seg v = { 0, 0 };
		if (t < ntiles) {
			v.f = tile_f[t];
			v.s = tile_s[t];
		}
		seg inc = block_scan(bf, bs, v);
		seg run = { run_f, run_s };
		bf[0][threadIdx.x] = inc.f;
		bs[0][threadIdx.x] = inc.s;
		__syncthreads();
		/* Carry into tile t: everything before it, i.e. the running
		 * pair combined with the inclusive scan up to t - 1. */
		seg prev = run;
		if (threadIdx.x > 0) {
			seg p = { bf[0][threadIdx.x - 1], bs[0][threadIdx.x - 1] };
			prev = combine(run, p);
		}
		if (t < ntiles)
			carry[t] = prev.s;
		__syncthreads();
		if (threadIdx.x == BLOCK - 1) {
			seg all = combine(run, inc);
			run_f = all.f;
			run_s = all.s;
		}
		__syncthreads();
	}
}

__global__ void __launch_bounds__(BLOCK)
add_carry(long long *__restrict__ y, const long long *__restrict__ carry,
	  const int64_t *__restrict__ first_head)
{
	const int64_t t = (int64_t)blockIdx.x + 1;	/* tile 0 needs none */
	const int64_t stop = first_head[t];
	const long long c = carry[t];
	for (int64_t i = t * TILE + threadIdx.x; i < stop; i += BLOCK)
		y[i] += c;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || (n + TILE - 1) / TILE > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != n ||
	    args[1].dtype != ARENA_U8 || args[1].numel != n ||
	    args[2].dtype != ARENA_I64 || args[2].numel != n)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	int64_t ntiles = (n + TILE - 1) / TILE;
	/* scratch: tile_s, carry, first_head (8 bytes each), tile_f (4) */
	char *scratch = NULL;
	if (cudaMallocAsync((void **)&scratch, (size_t)ntiles * 28, s) !=
	    cudaSuccess)
		return 4;
	long long *tile_s = (long long *)scratch;
	long long *carry = tile_s + ntiles;
	int64_t *first_head = (int64_t *)(carry + ntiles);
	int *tile_f = (int *)(first_head + ntiles);
	long long *y = (long long *)args[2].data;
	tile_scan<<<(unsigned)ntiles, BLOCK, 0, s>>>(
		(const int *)args[0].data, (const unsigned char *)args[1].data, y,
		n, tile_f, tile_s, first_head);
	if (ntiles > 1) {
		carry_scan<<<1, BLOCK, 0, s>>>(tile_f, tile_s, carry, ntiles);
		add_carry<<<(unsigned)(ntiles - 1), BLOCK, 0, s>>>(y, carry,
								   first_head);
	}
	cudaFreeAsync(scratch, s);
	return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

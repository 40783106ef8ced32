/*
 * splitk_gemm - baseline: y = x w^T for bf16 x [m, k] and w [n, k] with
 * few rows (m = 16-64) and a long k, float32 accumulation, bf16 output:
 * the GEMMs of small-batch decoding (vLLM, TensorRT-LLM), where split-K is
 * the standard remedy for too few output tiles.
 *
 * A first version, two launches:
 *   1. partial: grid (n / 16, m / 16, SPLIT); block (x, y, z) computes a
 *      16 x 16 tile of outputs over the z-th slice of k with the classic
 *      shared-memory tiled loop on the CUDA cores (one output per thread,
 *      bf16 converted to float in shared memory) and stores its float32
 *      partial sums in a scratch buffer [SPLIT, m, n] (cudaMallocAsync);
 *   2. reduce: one thread per output adds the SPLIT partials in order and
 *      rounds to bf16.
 * Tensor cores are not used, each 16-row tile of x re-reads all of w (the
 * memory traffic is (m / 16) times the weights when m > 16), loads are 2
 * bytes wide, and the partials make a round trip through memory.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef SPLIT
#define SPLIT 4
#endif
#define TILE 16

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

__global__ void __launch_bounds__(TILE * TILE)
partial_kernel(const uint16_t *__restrict__ x, const uint16_t *__restrict__ w,
	       float *__restrict__ part, int64_t m, int64_t n, int64_t k,
	       int64_t kslice)
{
	__shared__ float xs[TILE][TILE];
	__shared__ float ws[TILE][TILE + 1];	/* +1: no bank conflicts */
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int64_t i = (int64_t)blockIdx.y * TILE + ty;
	const int64_t j = (int64_t)blockIdx.x * TILE + tx;
	const int64_t wrow = (int64_t)blockIdx.x * TILE + ty;
	const int64_t kbeg = (int64_t)blockIdx.z * kslice;
	const int64_t kend = kbeg + kslice < k ? kbeg + kslice : k;
	float acc = 0.0f;

	for (int64_t k0 = kbeg; k0 < kend; k0 += TILE) {
		int64_t p = k0 + tx;
		xs[ty][tx] = (i < m && p < kend) ? bf16_to_float(x[i * k + p]) : 0.0f;
		ws[ty][tx] = (wrow < n && p < kend) ? bf16_to_float(w[wrow * k + p])
						    : 0.0f;
		__syncthreads();
		for (int q = 0; q < TILE; q++)
			acc += xs[ty][q] * ws[tx][q];
		__syncthreads();
	}
	if (i < m && j < n)
		part[((int64_t)blockIdx.z * m + i) * n + j] = acc;
}

__global__ void __launch_bounds__(256)
reduce_kernel(const float *__restrict__ part, uint16_t *__restrict__ y,
	      int64_t mn)
{
	int64_t e = (int64_t)blockIdx.x * 256 + threadIdx.x;
	if (e >= mn)
		return;
	float s = 0.0f;
	for (int z = 0; z < SPLIT; z++)
		s += part[z * mn + e];
	y[e] = float_to_bf16(s);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || (m + TILE - 1) / TILE > 65535 ||
	    (n + TILE - 1) / TILE > 0x7fffffff || (m * n + 255) / 256 > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != n * k ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != m * n)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	/* k slice per split, a whole number of TILE steps; trailing slices
	 * may be empty (their partials are zero). */
	int64_t kslice = ((k + SPLIT - 1) / SPLIT + TILE - 1) / TILE * TILE;
	float *part = NULL;
	if (cudaMallocAsync((void **)&part, (size_t)SPLIT * m * n * sizeof(float),
			    s) != cudaSuccess)
		return 4;
	dim3 grid((unsigned)((n + TILE - 1) / TILE),
		  (unsigned)((m + TILE - 1) / TILE), SPLIT);
	partial_kernel<<<grid, dim3(TILE, TILE), 0, s>>>(
		(const uint16_t *)args[0].data, (const uint16_t *)args[1].data,
		part, m, n, k, kslice);
	reduce_kernel<<<(unsigned)((m * n + 255) / 256), 256, 0, s>>>(
		part, (uint16_t *)args[2].data, m * n);
	cudaFreeAsync(part, s);
	return cudaGetLastError() == cudaSuccess ? 0 : 5;
}

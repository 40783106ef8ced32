/*
 * Honest, for tasks/cuda2cuda/gemm_f32 (tests/gpu/integrity.sh): a
 * shared-memory tiled SGEMM.  Each block of 256 threads computes a 64 x 64
 * tile of C from 64 x 16 slices of A and 16 x 64 slices of B staged in
 * shared memory; each thread keeps a 4 x 4 patch of C in registers.
 * float32 throughout, every product added in increasing k order, so the
 * result is as accurate as the baseline's.  Any m, n, k (edges guarded).
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#define BM 64
#define BN 64
#define BK 16

__global__ void __launch_bounds__(256)
sgemm_tiled(const float *__restrict__ a, const float *__restrict__ b,
	    float *__restrict__ c, long long m, long long n, long long k)
{
	__shared__ float as[BK][BM + 4];
	__shared__ float bs[BK][BN + 4];
	int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
	float acc[4][4] = { { 0 } };

	for (long long p0 = 0; p0 < k; p0 += BK) {
		/* 64 x 16 of A and 16 x 64 of B: four elements per thread. */
		for (int i = threadIdx.x; i < BM * BK; i += 256) {
			int r = i / BK, q = i % BK;
			long long gr = row0 + r, gq = p0 + q;
			as[q][r] = gr < m && gq < k ? a[gr * k + gq] : 0.0f;
		}
		for (int i = threadIdx.x; i < BK * BN; i += 256) {
			int q = i / BN, cc = i % BN;
			long long gq = p0 + q, gc = col0 + cc;
			bs[q][cc] = gq < k && gc < n ? b[gq * n + gc] : 0.0f;
		}
		__syncthreads();
#pragma unroll
		for (int q = 0; q < BK; q++) {
			float av[4], bv[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				av[i] = as[q][ty * 4 + i];
				bv[i] = bs[q][tx * 4 + i];
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					acc[i][j] += av[i] * bv[j];
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		long long r = row0 + ty * 4 + i;
		if (r >= m)
			continue;
		for (int j = 0; j < 4; j++) {
			long long cc = col0 + tx * 4 + j;
			if (cc < n)
				c[r * n + cc] = acc[i][j];
		}
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	long long m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || (m + BM - 1) / BM > 65535)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F32 ||
	    args[2].dtype != ARENA_F32)
		return 3;
	dim3 grid((unsigned)((n + BN - 1) / BN), (unsigned)((m + BM - 1) / BM));
	sgemm_tiled<<<grid, 256, 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (const float *)args[1].data,
		(float *)args[2].data, m, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}

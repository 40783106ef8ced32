/* Honest (issue 10 acceptance): the c2c/gemm baseline with TILE = 32, a
 * tuning its own tunables allow.  Must be accepted, faster than the
 * baseline, by every check the cheats in ../../candidates meet. */
#define TILE 32
/*
 * gemm - baseline: C = A * B for row-major float32 matrices
 * A [m, k], B [k, n], C [m, n].
 *
 * TILE = 1 is the textbook i-j-k triple loop: the inner loop walks a column
 * of B with a stride of n floats, so nearly every load of B misses the
 * cache line it had a moment ago.  TILE > 1 switches to a blocked i-k-j
 * order: C is accumulated a TILE x TILE block at a time, the inner loop runs
 * along a row of B and a row of C (unit stride), and full tiles have a
 * compile-time trip count the compiler can vectorize.  Every element of C
 * still sums its k products in increasing k order, so all TILE values give
 * the same result as TILE = 1.
 */
#include <stddef.h>
#include "arena/kernel.h"

#ifndef TILE
#define TILE 1
#endif

#if TILE <= 1
static void gemm_naive(const float *a, const float *b, float *c, int64_t m,
		       int64_t n, int64_t k)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			float s = 0.0f;
			for (int64_t p = 0; p < k; p++)
				s += a[i * k + p] * b[p * n + j];
			c[i * n + j] = s;
		}
}
#endif

#if TILE > 1
/* One TILE-wide strip of a row of C: c[0..TILE) += av * b[0..TILE). */
static inline void axpy_tile(float *restrict c, const float *restrict b,
			     float av)
{
	for (int j = 0; j < TILE; j++)
		c[j] += av * b[j];
}

static void gemm_tiled(const float *restrict a, const float *restrict b,
		       float *restrict c, int64_t m, int64_t n, int64_t k)
{
	for (int64_t i = 0; i < m * n; i++)
		c[i] = 0.0f;
	for (int64_t i0 = 0; i0 < m; i0 += TILE) {
		int64_t i1 = i0 + TILE < m ? i0 + TILE : m;
		for (int64_t p0 = 0; p0 < k; p0 += TILE) {
			int64_t p1 = p0 + TILE < k ? p0 + TILE : k;
			for (int64_t j0 = 0; j0 < n; j0 += TILE) {
				int64_t j1 = j0 + TILE < n ? j0 + TILE : n;
				for (int64_t i = i0; i < i1; i++)
					for (int64_t p = p0; p < p1; p++) {
						float av = a[i * k + p];
						float *cr = c + i * n;
						const float *br = b + p * n;
						if (j1 - j0 == TILE) {
							axpy_tile(cr + j0,
								  br + j0, av);
						} else {
							for (int64_t j = j0;
							     j < j1; j++)
								cr[j] += av *
									 br[j];
						}
					}
			}
		}
	}
}
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_F32 || args[1].numel != k * n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m * n)
		return 3;
	const float *a = args[0].data;
	const float *b = args[1].data;
	float *c = args[2].data;
#if TILE > 1
	gemm_tiled(a, b, c, m, n, k);
#else
	gemm_naive(a, b, c, m, n, k);
#endif
	return 0;
}

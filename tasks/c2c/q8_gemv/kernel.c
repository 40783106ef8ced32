/*
 * q8_gemv - baseline: y = W x with llama.cpp Q8_0 blocks on both sides
 * (int8 values in blocks of 32, one float scale per block), the scalar
 * path of ggml_vec_dot_q8_0_q8_0: each block's int8 products are summed
 * in an int, then scaled and added to a float.
 *
 * ROWS = 1 walks one weight row at a time.  ROWS > 1 computes that many
 * rows together, so each block of x is loaded once for ROWS rows and the
 * rows' dependency chains overlap; every row's result is computed in the
 * same order as with ROWS = 1, so all values give identical outputs.
 * gcc -O2 vectorises the 32 products of a block with SSE2 (widening to
 * 16 bits, pmullw); nothing uses pmaddubsw, AVX2 or AVX-512 VNNI, which
 * need a target attribute and a runtime check.
 */
#include "arena/kernel.h"

#ifndef ROWS
#define ROWS 1
#endif

#define QK 32

/* NR rows starting at j0; NR is a compile-time constant at both call
 * sites, so the row loops unroll and the NR sums stay in registers. */
static inline void rows_dot(const int8_t *wq, const float *wd,
			    const int8_t *xq, const float *xd, float *y,
			    int64_t j0, int64_t k, const int NR)
{
	int64_t nb = k / QK;
	float sum[ROWS > 1 ? ROWS : 1];
	for (int r = 0; r < NR; r++)
		sum[r] = 0.0f;
	for (int64_t b = 0; b < nb; b++) {
		const int8_t *xb = xq + b * QK;
		for (int r = 0; r < NR; r++) {
			const int8_t *wb = wq + (j0 + r) * k + b * QK;
			int isum = 0;
			for (int i = 0; i < QK; i++)
				isum += wb[i] * xb[i];
			sum[r] += (float)isum * (wd[(j0 + r) * nb + b] * xd[b]);
		}
	}
	for (int r = 0; r < NR; r++)
		y[j0 + r] = sum[r];
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1];
	if (n <= 0 || k <= 0 || k % QK)
		return 2;
	int64_t nb = k / QK;
	if (args[0].dtype != ARENA_I8 || args[0].numel != n * k ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n * nb ||
	    args[2].dtype != ARENA_I8 || args[2].numel != k ||
	    args[3].dtype != ARENA_F32 || args[3].numel != nb ||
	    args[4].dtype != ARENA_F32 || args[4].numel != n)
		return 3;
	const int8_t *wq = args[0].data, *xq = args[2].data;
	const float *wd = args[1].data, *xd = args[3].data;
	float *y = args[4].data;
	int64_t j = 0;
	for (; j + ROWS <= n; j += ROWS)
		rows_dot(wq, wd, xq, xd, y, j, k, ROWS);
	for (; j < n; j++)
		rows_dot(wq, wd, xq, xd, y, j, k, 1);
	return 0;
}

/* Honest (issue 10 acceptance): the c2c/stencil2d baseline with VEC = 8, a
 * tuning its own tunables allow.  Must be accepted, faster than the
 * baseline, by every check the cheats in ../../candidates meet. */
#define VEC 8
/*
 * stencil2d - baseline: one Jacobi step of the 5-point Laplace stencil on
 * a float32 grid u [rows, cols]:
 *   v[i][j] = 0.25 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1])
 * for interior points, and v = u on the boundary (first and last row and
 * column).
 *
 * VEC = 1 visits every point in one loop and tests for the boundary at
 * each one; the branch and the possible aliasing of u and v keep gcc -O2
 * from vectorizing it.  VEC > 1 copies the boundary separately and sweeps
 * each interior row VEC points per step through restrict pointers with a
 * compile-time inner trip count, which -O2 vectorizes.  The four neighbours
 * are added in the same order in both variants, so the results are equal.
 */
#include "arena/kernel.h"

#ifndef VEC
#define VEC 1
#endif

#if VEC > 1
static void stencil_row(const float *restrict up, const float *restrict mid,
			const float *restrict dn, float *restrict out,
			int64_t cols)
{
	int64_t j = 1;
	for (; j + VEC <= cols - 1; j += VEC)
		for (int u = 0; u < VEC; u++)
			out[j + u] = 0.25f * (up[j + u] + dn[j + u] +
					      mid[j + u - 1] + mid[j + u + 1]);
	for (; j < cols - 1; j++)
		out[j] = 0.25f * (up[j] + dn[j] + mid[j - 1] + mid[j + 1]);
	out[0] = mid[0];
	out[cols - 1] = mid[cols - 1];
}

static void stencil_vec(const float *u, float *v, int64_t rows, int64_t cols)
{
	for (int64_t j = 0; j < cols; j++) {
		v[j] = u[j];
		v[(rows - 1) * cols + j] = u[(rows - 1) * cols + j];
	}
	for (int64_t i = 1; i < rows - 1; i++)
		stencil_row(u + (i - 1) * cols, u + i * cols,
			    u + (i + 1) * cols, v + i * cols, cols);
}
#endif

static void stencil_naive(const float *u, float *v, int64_t rows, int64_t cols)
{
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++) {
			int64_t k = i * cols + j;
			if (i == 0 || i == rows - 1 || j == 0 || j == cols - 1)
				v[k] = u[k];
			else
				v[k] = 0.25f * (u[k - cols] + u[k + cols] +
						u[k - 1] + u[k + 1]);
		}
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	const float *u = args[0].data;
	float *v = args[1].data;
#if VEC > 1
	if (rows >= 3 && cols >= 3) {
		stencil_vec(u, v, rows, cols);
		return 0;
	}
#endif
	stencil_naive(u, v, rows, cols);
	return 0;
}

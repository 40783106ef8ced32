/*
 * layernorm_backward - trusted reference: the row means of g and g*xhat,
 * dx, and the column sums dgamma and dbeta, all in double from the exact
 * inputs, each output rounded to bf16 (nearest even) once.
 */
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static double bf(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint16_t to_bf16(double v)
{
	/* double -> float -> bf16; differs from a direct rounding only on an
	 * exact bf16 midpoint of the float, covered by the tolerance. */
	float f = (float)v;
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 8 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != rows * cols || args[2].numel != cols ||
	    args[3].numel != rows || args[4].numel != rows ||
	    args[5].numel != rows * cols || args[6].numel != cols ||
	    args[7].numel != cols)
		return 2;
	const uint16_t *dy = args[0].data, *x = args[1].data,
		       *gamma = args[2].data;
	const float *mean = args[3].data, *rstd = args[4].data;
	uint16_t *dx = args[5].data, *dgamma = args[6].data,
		 *dbeta = args[7].data;
	double *dg = calloc((size_t)cols, sizeof(double));
	double *db = calloc((size_t)cols, sizeof(double));
	if (!dg || !db) {
		free(dg);
		free(db);
		return 3;
	}
	for (int64_t r = 0; r < rows; r++) {
		double mu = mean[r], rs = rstd[r], sg = 0.0, sgx = 0.0;
		for (int64_t c = 0; c < cols; c++) {
			double xhat = (bf(x[r * cols + c]) - mu) * rs;
			double g = bf(dy[r * cols + c]) * bf(gamma[c]);
			sg += g;
			sgx += g * xhat;
			dg[c] += bf(dy[r * cols + c]) * xhat;
			db[c] += bf(dy[r * cols + c]);
		}
		sg /= (double)cols;
		sgx /= (double)cols;
		for (int64_t c = 0; c < cols; c++) {
			double xhat = (bf(x[r * cols + c]) - mu) * rs;
			double g = bf(dy[r * cols + c]) * bf(gamma[c]);
			dx[r * cols + c] = to_bf16(rs * (g - sg - xhat * sgx));
		}
	}
	for (int64_t c = 0; c < cols; c++) {
		dgamma[c] = to_bf16(dg[c]);
		dbeta[c] = to_bf16(db[c]);
	}
	free(dg);
	free(db);
	return 0;
}

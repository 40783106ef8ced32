/*
 * layernorm_backward - baseline: LayerNorm backward on float32 (PyTorch's
 * native_layer_norm_backward on the CPU):
 *   dx     = rstd * (g - mean_row(g) - xhat * mean_row(g * xhat)),
 *   dgamma = sum over rows of dy * xhat,   dbeta = sum over rows of dy,
 * with xhat = (x - mean) * rstd and g = dy * gamma.
 *
 * Per row, one pass sums g and g * xhat (in double), a second pass writes
 * dx and adds the row's contribution to the column sums, which are kept
 * in double arrays (a float32 running sum over tens of thousands of rows
 * is not accurate enough).  ACC = 1 keeps one running sum per row
 * reduction; ACC > 1 keeps that many independent partial sums and steps
 * through the row ACC elements at a time, so gcc -O2 can vectorise.
 */
#include <stdlib.h>
#include "arena/kernel.h"

#ifndef ACC
#define ACC 1
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 8 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols ||
	    args[2].dtype != ARENA_F32 || args[2].numel != cols ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows ||
	    args[4].dtype != ARENA_F32 || args[4].numel != rows ||
	    args[5].dtype != ARENA_F32 || args[5].numel != rows * cols ||
	    args[6].dtype != ARENA_F32 || args[6].numel != cols ||
	    args[7].dtype != ARENA_F32 || args[7].numel != cols)
		return 3;
	const float *dy = args[0].data, *x = args[1].data,
		    *gamma = args[2].data, *mean = args[3].data,
		    *rstd = args[4].data;
	float *dx = args[5].data, *dgamma = args[6].data,
	      *dbeta = args[7].data;
	double *dg = calloc((size_t)cols, sizeof(double));
	double *db = calloc((size_t)cols, sizeof(double));
	if (!dg || !db) {
		free(dg);
		free(db);
		return 4;
	}
	for (int64_t r = 0; r < rows; r++) {
		const float *restrict dyr = dy + r * cols, *restrict xr = x + r * cols;
		float *restrict dxr = dx + r * cols;
		const float mu = mean[r], rs = rstd[r];
		double sg[ACC] = {0}, sgx[ACC] = {0};
		int64_t c = 0;
		for (; c + ACC <= cols; c += ACC)
			for (int u = 0; u < ACC; u++) {
				float xhat = (xr[c + u] - mu) * rs;
				float g = dyr[c + u] * gamma[c + u];
				sg[u] += g;
				sgx[u] += g * xhat;
			}
		for (; c < cols; c++) {
			float xhat = (xr[c] - mu) * rs;
			float g = dyr[c] * gamma[c];
			sg[0] += g;
			sgx[0] += g * xhat;
		}
		double tg = 0.0, tgx = 0.0;
		for (int u = 0; u < ACC; u++) {
			tg += sg[u];
			tgx += sgx[u];
		}
		const float mg = (float)(tg / (double)cols);
		const float mgx = (float)(tgx / (double)cols);
		for (c = 0; c < cols; c++) {
			float xhat = (xr[c] - mu) * rs;
			float g = dyr[c] * gamma[c];
			dxr[c] = rs * (g - mg - xhat * mgx);
			dg[c] += dyr[c] * xhat;
			db[c] += dyr[c];
		}
	}
	for (int64_t c = 0; c < cols; c++) {
		dgamma[c] = (float)dg[c];
		dbeta[c] = (float)db[c];
	}
	free(dg);
	free(db);
	return 0;
}

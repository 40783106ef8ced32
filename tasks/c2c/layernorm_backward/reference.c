/*
 * layernorm_backward - trusted reference: the two row means, dx, and the
 * column sums dgamma and dbeta, all in double from the float inputs, each
 * output rounded to float once.
 */
#include <stdlib.h>
#include "arena/kernel.h"

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
		return 3;
	}
	for (int64_t r = 0; r < rows; r++) {
		double mu = mean[r], rs = rstd[r], sg = 0.0, sgx = 0.0;
		for (int64_t c = 0; c < cols; c++) {
			double xhat = ((double)x[r * cols + c] - mu) * rs;
			double g = (double)dy[r * cols + c] * gamma[c];
			sg += g;
			sgx += g * xhat;
			dg[c] += (double)dy[r * cols + c] * xhat;
			db[c] += dy[r * cols + c];
		}
		sg /= (double)cols;
		sgx /= (double)cols;
		for (int64_t c = 0; c < cols; c++) {
			double xhat = ((double)x[r * cols + c] - mu) * rs;
			double g = (double)dy[r * cols + c] * gamma[c];
			dx[r * cols + c] = (float)(rs * (g - sg - xhat * sgx));
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

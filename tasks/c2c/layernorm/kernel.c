/*
 * layernorm - baseline: row-wise layer normalization of x [rows, cols]:
 * y = (x - mean) / sqrt(var + 1e-5) * gamma + beta, with the mean and the
 * (biased) variance of each row, and gamma, beta of length cols.
 *
 * Sums are accumulated in double.  ACC = 1 keeps one running sum per
 * reduction, so each addition waits for the previous one.  ACC > 1 keeps
 * ACC independent partial sums over interleaved elements and also processes
 * the normalization ACC elements per step through restrict pointers, which
 * lets gcc -O2 vectorize all three passes.  The results differ from ACC = 1
 * only by double rounding.
 */
#include <math.h>
#include "arena/kernel.h"

#ifndef ACC
#define ACC 1
#endif

#define LN_EPS 1e-5

#if ACC > 1
static void layernorm_row(const float *restrict x, const float *restrict g,
			  const float *restrict b, float *restrict y,
			  int64_t cols)
{
	double acc[ACC] = {0};
	int64_t c = 0;
	for (; c + ACC <= cols; c += ACC)
		for (int u = 0; u < ACC; u++)
			acc[u] += x[c + u];
	for (; c < cols; c++)
		acc[0] += x[c];
	double s = 0.0;
	for (int u = 0; u < ACC; u++)
		s += acc[u];
	double mean = s / (double)cols;

	double vacc[ACC] = {0};
	for (c = 0; c + ACC <= cols; c += ACC)
		for (int u = 0; u < ACC; u++) {
			double d = x[c + u] - mean;
			vacc[u] += d * d;
		}
	for (; c < cols; c++) {
		double d = x[c] - mean;
		vacc[0] += d * d;
	}
	double v = 0.0;
	for (int u = 0; u < ACC; u++)
		v += vacc[u];
	float rstd = (float)(1.0 / sqrt(v / (double)cols + LN_EPS));
	float fmean = (float)mean;

	for (c = 0; c + ACC <= cols; c += ACC)
		for (int u = 0; u < ACC; u++)
			y[c + u] = (x[c + u] - fmean) * rstd * g[c + u] + b[c + u];
	for (; c < cols; c++)
		y[c] = (x[c] - fmean) * rstd * g[c] + b[c];
}
#else
static void layernorm_row(const float *x, const float *g, const float *b,
			  float *y, int64_t cols)
{
	double s = 0.0;
	for (int64_t c = 0; c < cols; c++)
		s += x[c];
	double mean = s / (double)cols;
	double v = 0.0;
	for (int64_t c = 0; c < cols; c++) {
		double d = x[c] - mean;
		v += d * d;
	}
	float rstd = (float)(1.0 / sqrt(v / (double)cols + LN_EPS));
	float fmean = (float)mean;
	for (int64_t c = 0; c < cols; c++)
		y[c] = (x[c] - fmean) * rstd * g[c] + b[c];
}
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != cols ||
	    args[2].dtype != ARENA_F32 || args[2].numel != cols ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows * cols)
		return 3;
	const float *x = args[0].data;
	const float *gamma = args[1].data;
	const float *beta = args[2].data;
	float *y = args[3].data;
	for (int64_t r = 0; r < rows; r++)
		layernorm_row(x + r * cols, gamma, beta, y + r * cols, cols);
	return 0;
}

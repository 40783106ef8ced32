/*
 * rmsnorm_residual - baseline: h = x + residual, y = h / sqrt(mean(h^2) +
 * 1e-5) * w per row (the fused residual add + RMSNorm between the
 * sublayers of Llama-style models).
 *
 * ACC = 1 is the straightforward version: one pass writes h and adds up
 * its squares in one double running sum (each addition waits for the
 * previous one), a second pass normalises.  ACC > 1 keeps ACC independent
 * partial sums and processes ACC elements per step through restrict
 * pointers, which lets gcc -O2 vectorise both passes.  The results differ
 * from ACC = 1 only by the rounding of the double sum.
 */
#include <math.h>
#include "arena/kernel.h"

#ifndef ACC
#define ACC 1
#endif

#define RMS_EPS 1e-5

#if ACC > 1
static void rms_row(const float *restrict x, const float *restrict res,
		    const float *restrict w, float *restrict h,
		    float *restrict y, int64_t cols)
{
	double acc[ACC] = {0};
	int64_t c = 0;
	for (; c + ACC <= cols; c += ACC)
		for (int u = 0; u < ACC; u++) {
			float v = x[c + u] + res[c + u];
			h[c + u] = v;
			acc[u] += (double)v * v;
		}
	for (; c < cols; c++) {
		float v = x[c] + res[c];
		h[c] = v;
		acc[0] += (double)v * v;
	}
	double ss = 0.0;
	for (int u = 0; u < ACC; u++)
		ss += acc[u];
	float inv = (float)(1.0 / sqrt(ss / (double)cols + RMS_EPS));
	for (c = 0; c + ACC <= cols; c += ACC)
		for (int u = 0; u < ACC; u++)
			y[c + u] = h[c + u] * inv * w[c + u];
	for (; c < cols; c++)
		y[c] = h[c] * inv * w[c];
}
#else
static void rms_row(const float *x, const float *res, const float *w,
		    float *h, float *y, int64_t cols)
{
	double ss = 0.0;
	for (int64_t c = 0; c < cols; c++) {
		float v = x[c] + res[c];
		h[c] = v;
		ss += (double)v * v;
	}
	float inv = (float)(1.0 / sqrt(ss / (double)cols + RMS_EPS));
	for (int64_t c = 0; c < cols; c++)
		y[c] = h[c] * inv * w[c];
}
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols ||
	    args[2].dtype != ARENA_F32 || args[2].numel != cols ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows * cols ||
	    args[4].dtype != ARENA_F32 || args[4].numel != rows * cols)
		return 3;
	const float *x = args[0].data, *res = args[1].data, *w = args[2].data;
	float *h = args[3].data, *y = args[4].data;
	for (int64_t r = 0; r < rows; r++)
		rms_row(x + r * cols, res + r * cols, w, h + r * cols,
			y + r * cols, cols);
	return 0;
}

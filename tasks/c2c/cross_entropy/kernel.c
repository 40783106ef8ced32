/*
 * cross_entropy - baseline: per-row loss logsumexp - logit[label] and the
 * gradient (softmax - onehot) / rows of the mean loss, float32 (the loss
 * head of a training step, as PyTorch's cross_entropy forward + backward
 * computes it on the CPU).
 *
 * FUSE = 0 is the textbook version: three passes per row (maximum, sum of
 * exp(x - max) in double, then the gradient with exp computed again).
 * FUSE = 1 stores exp(x - max) in dlogits during the summing pass and
 * only scales it in the third pass, so expf runs once per element.  The
 * results differ by float rounding only.
 */
#include <math.h>
#include "arena/kernel.h"

#ifndef FUSE
#define FUSE 0
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], vocab = params[1];
	if (rows <= 0 || vocab <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * vocab ||
	    args[1].dtype != ARENA_I32 || args[1].numel != rows ||
	    args[2].dtype != ARENA_F32 || args[2].numel != rows ||
	    args[3].dtype != ARENA_F32 || args[3].numel != rows * vocab)
		return 3;
	const float *x = args[0].data;
	const int32_t *labels = args[1].data;
	float *loss = args[2].data, *dx = args[3].data;
	const float inv_rows = 1.0f / (float)rows;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * vocab;
		float *dr = dx + r * vocab;
		int64_t lab = labels[r];
		if (lab < 0 || lab >= vocab)
			return 4;
		float m = xr[0];
		for (int64_t v = 1; v < vocab; v++)
			if (xr[v] > m)
				m = xr[v];
		double s = 0.0;
#if FUSE
		for (int64_t v = 0; v < vocab; v++) {
			float e = expf(xr[v] - m);
			dr[v] = e;
			s += e;
		}
		float lse = m + (float)log(s);
		float inv = (float)(1.0 / s) * inv_rows;
		for (int64_t v = 0; v < vocab; v++)
			dr[v] *= inv;
		dr[lab] -= inv_rows;
#else
		for (int64_t v = 0; v < vocab; v++)
			s += expf(xr[v] - m);
		float lse = m + (float)log(s);
		for (int64_t v = 0; v < vocab; v++)
			dr[v] = (expf(xr[v] - lse) - (v == lab ? 1.0f : 0.0f)) *
				inv_rows;
#endif
		loss[r] = lse - xr[lab];
	}
	return 0;
}

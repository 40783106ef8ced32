/* Honest (issue 10 acceptance): the c2c/conv1d baseline with OUTS = 8, a
 * tuning its own tunables allow.  Must be accepted, faster than the
 * baseline, by every check the cheats in ../../candidates meet. */
#define OUTS 8
/*
 * conv1d - baseline: "valid" 1-D correlation of a float32 signal x [n]
 * with a filter h [taps]:  y[i] = sum_t h[t] * x[i + t],  0 <= i <= n-taps.
 *
 * OUTS = 1 computes one output at a time with one running sum, so every
 * multiply-add waits for the previous one.  OUTS > 1 computes OUTS
 * neighbouring outputs together: each filter tap is loaded once and applied
 * to OUTS independent sums, and the fixed-size inner loop over the OUTS
 * sums is what gcc -O2 vectorizes.  Each output still adds its products in
 * increasing t, so every value gives the same result.
 */
#include "arena/kernel.h"

#ifndef OUTS
#define OUTS 1
#endif

#if OUTS > 1
static void conv_block(const float *restrict x, const float *restrict h,
		       float *restrict y, int64_t taps)
{
	float acc[OUTS] = { 0 };
	for (int64_t t = 0; t < taps; t++) {
		float ht = h[t];
		for (int o = 0; o < OUTS; o++)
			acc[o] += ht * x[t + o];
	}
	for (int o = 0; o < OUTS; o++)
		y[o] = acc[o];
}
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t n = params[0], taps = params[1];
	if (taps <= 0 || n < taps)
		return 2;
	int64_t nout = n - taps + 1;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != taps ||
	    args[2].dtype != ARENA_F32 || args[2].numel != nout)
		return 3;
	const float *x = args[0].data;
	const float *h = args[1].data;
	float *y = args[2].data;
	int64_t i = 0;
#if OUTS > 1
	for (; i + OUTS <= nout; i += OUTS)
		conv_block(x + i, h, y + i, taps);
#endif
	for (; i < nout; i++) {
		float s = 0.0f;
		for (int64_t t = 0; t < taps; t++)
			s += h[t] * x[i + t];
		y[i] = s;
	}
	return 0;
}

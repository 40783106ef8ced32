/*
 * conv2d - trusted reference: 3x3 convolution (cross-correlation), stride
 * 1, zero padding 1, NCHW, every output accumulated in double and rounded
 * to float once.  Loops run output channel, input channel, tap, then
 * pixel, so the inner loop is unit stride.
 */
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 5)
		return 1;
	int64_t nb = params[0], cin = params[1], cout = params[2];
	int64_t h = params[3], w = params[4];
	if (nb <= 0 || cin <= 0 || cout <= 0 || h <= 0 || w <= 0 ||
	    args[0].numel != nb * cin * h * w || args[1].numel != cout * cin * 9 ||
	    args[2].numel != nb * cout * h * w || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data, *wt = args[1].data;
	float *y = args[2].data;
	double *acc = malloc((size_t)(h * w) * sizeof(double));
	if (!acc)
		return 3;
	for (int64_t b = 0; b < nb; b++)
		for (int64_t o = 0; o < cout; o++) {
			for (int64_t p = 0; p < h * w; p++)
				acc[p] = 0.0;
			for (int64_t c = 0; c < cin; c++) {
				const float *xc = x + (b * cin + c) * h * w;
				const float *wc = wt + (o * cin + c) * 9;
				for (int di = 0; di < 3; di++)
					for (int dj = 0; dj < 3; dj++) {
						double k = wc[di * 3 + dj];
						for (int64_t i = 0; i < h; i++) {
							int64_t ii = i + di - 1;
							if (ii < 0 || ii >= h)
								continue;
							int64_t j0 = dj == 0 ? 1 : 0;
							int64_t j1 = dj == 2 ? w - 1 : w;
							for (int64_t j = j0; j < j1; j++)
								acc[i * w + j] += k * (double)xc[ii * w + j + dj - 1];
						}
					}
			}
			float *yo = y + (b * cout + o) * h * w;
			for (int64_t p = 0; p < h * w; p++)
				yo[p] = (float)acc[p];
		}
	free(acc);
	return 0;
}

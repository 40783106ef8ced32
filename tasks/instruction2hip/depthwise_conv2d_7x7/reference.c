/*
 * depthwise_conv2d_7x7 - trusted reference: the bias and the 49 products
 * summed in double for every output, taps outside the image skipped,
 * rounded once to float.
 */
#include <stdint.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t n = params[0], c = params[1], h = params[2], w = params[3];
	int64_t total = n * c * h * w;
	if (n <= 0 || c <= 0 || h <= 0 || w <= 0 ||
	    args[0].dtype != ARENA_F32 || args[0].numel != total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != c * 49 ||
	    args[2].dtype != ARENA_F32 || args[2].numel != c ||
	    args[3].dtype != ARENA_F32 || args[3].numel != total)
		return 2;
	const float *x = (const float *)args[0].data;
	const float *wt = (const float *)args[1].data;
	const float *bias = (const float *)args[2].data;
	float *y = (float *)args[3].data;
	for (int64_t b = 0; b < n; b++)
		for (int64_t ch = 0; ch < c; ch++) {
			const float *xp = x + (b * c + ch) * h * w;
			const float *wp = wt + ch * 49;
			float *yp = y + (b * c + ch) * h * w;
			for (int64_t i = 0; i < h; i++)
				for (int64_t j = 0; j < w; j++) {
					double acc = bias[ch];
					for (int64_t di = 0; di < 7; di++)
						for (int64_t dj = 0; dj < 7; dj++) {
							int64_t ii = i + di - 3, jj = j + dj - 3;
							if (ii >= 0 && ii < h && jj >= 0 && jj < w)
								acc += (double)wp[di * 7 + dj] *
								       xp[ii * w + jj];
						}
					yp[i * w + j] = (float)acc;
				}
		}
	return 0;
}

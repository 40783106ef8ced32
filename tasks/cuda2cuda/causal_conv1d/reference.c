/*
 * causal_conv1d - trusted reference: every output's taps summed in double
 * from the exact bf16 inputs (zero before t = 0), the bias added, SiLU in
 * double, rounded to bf16 (nearest even) once.
 */
#include <math.h>
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
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t batch = params[0], dim = params[1], len = params[2],
		width = params[3];
	if (batch <= 0 || dim <= 0 || len <= 0 || width <= 0 ||
	    args[0].numel != batch * dim * len ||
	    args[1].numel != dim * width || args[2].numel != dim ||
	    args[3].numel != batch * dim * len)
		return 2;
	const uint16_t *x = args[0].data, *wt = args[1].data,
		       *bias = args[2].data;
	uint16_t *out = args[3].data;
	for (int64_t b = 0; b < batch; b++)
		for (int64_t d = 0; d < dim; d++) {
			const uint16_t *xr = x + (b * dim + d) * len;
			for (int64_t t = 0; t < len; t++) {
				double z = bf(bias[d]);
				for (int64_t w = 0; w < width; w++) {
					int64_t s = t - width + 1 + w;
					if (s >= 0)
						z += bf(wt[d * width + w]) * bf(xr[s]);
				}
				out[(b * dim + d) * len + t] =
					to_bf16(z / (1.0 + exp(-z)));
			}
		}
	return 0;
}

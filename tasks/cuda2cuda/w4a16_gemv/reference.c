/*
 * w4a16_gemv - trusted reference: every weight dequantised as
 * (q - z) * s in double from the exact inputs, dot products in double,
 * each output rounded to bf16 (nearest even) once.
 */
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
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t batch = params[0], n = params[1], k = params[2],
		group = params[3];
	if (batch <= 0 || n <= 0 || k <= 0 || group <= 0 || k % group ||
	    k % 2)
		return 2;
	int64_t ng = k / group;
	if (args[0].numel != batch * k || args[1].numel != n * k / 2 ||
	    args[2].numel != n * ng || args[3].numel != n * ng ||
	    args[4].numel != batch * n)
		return 3;
	const uint16_t *x = args[0].data, *s = args[2].data;
	const uint8_t *q = args[1].data, *z = args[3].data;
	uint16_t *y = args[4].data;
	for (int64_t b = 0; b < batch; b++)
		for (int64_t j = 0; j < n; j++) {
			double acc = 0.0;
			for (int64_t p = 0; p < k; p++) {
				uint8_t byte = q[j * (k / 2) + p / 2];
				int nib = (p % 2 == 0) ? (byte & 15) : (byte >> 4);
				int64_t g = p / group;
				double wv = (double)(nib - (int)z[j * ng + g]) *
					    bf(s[j * ng + g]);
				acc += bf(x[b * k + p]) * wv;
			}
			y[b * n + j] = to_bf16(acc);
		}
	return 0;
}

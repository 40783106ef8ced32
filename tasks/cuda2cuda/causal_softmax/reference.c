/*
 * causal_softmax - trusted reference: for every row i the maximum, the
 * sum of exponentials and each output over j <= i in double from the
 * exact inputs, rounded to bf16 (nearest even) once; exact zeros above
 * the diagonal.
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
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t batches = params[0], s = params[1];
	if (batches <= 0 || s <= 0 || args[0].numel != batches * s * s ||
	    args[1].numel != 1 || args[2].numel != batches * s * s)
		return 2;
	const uint16_t *x = args[0].data;
	double scale = *(const float *)args[1].data;
	uint16_t *y = args[2].data;
	for (int64_t r = 0; r < batches * s; r++) {
		int64_t i = r % s;
		const uint16_t *xr = x + r * s;
		uint16_t *yr = y + r * s;
		double m = -INFINITY, sum = 0.0;
		for (int64_t j = 0; j <= i; j++)
			m = fmax(m, scale * bf(xr[j]));
		for (int64_t j = 0; j <= i; j++)
			sum += exp(scale * bf(xr[j]) - m);
		for (int64_t j = 0; j < s; j++)
			yr[j] = j <= i ? to_bf16(exp(scale * bf(xr[j]) - m) / sum)
				       : 0;
	}
	return 0;
}

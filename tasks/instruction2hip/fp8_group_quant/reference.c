/*
 * fp8_group_quant - trusted reference: the specified float32 arithmetic
 * written out literally (C evaluates float expressions in float here, SSE
 * with FLT_EVAL_METHOD 0, and the build uses no fast-math flags), and the
 * e4m3fn encoding found by searching the table of all finite e4m3fn
 * values, built from the format's definition: the nearest value, ties to
 * the even code.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "arena/kernel.h"

static float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Value of positive e4m3fn code c (0 .. 0x7e), exact in double. */
static double e4m3_value(int c)
{
	int e = c >> 3, m = c & 7;
	return e == 0 ? ldexp(m, -9) : ldexp(8 + m, e - 10);
}

/* a in [0, 448]: the code of the nearest value, ties to the even code
 * (codes 0..0x7e increase with their value, and an even code has an even
 * mantissa). */
static int e4m3_encode_abs(double a, const double *val)
{
	int lo = 0, hi = 0x7e;			/* val[lo] <= a */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;
		if (val[mid] <= a)
			lo = mid;
		else
			hi = mid - 1;
	}
	if (val[lo] == a || lo == 0x7e)
		return lo;
	double dlo = a - val[lo], dhi = val[lo + 1] - a;
	if (dlo < dhi)
		return lo;
	if (dhi < dlo)
		return lo + 1;
	return (lo % 2 == 0) ? lo : lo + 1;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t tokens = params[0], groups = params[1], gs = params[2];
	int64_t ngroups = tokens * groups;
	if (tokens <= 0 || groups <= 0 || gs <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != ngroups * gs ||
	    args[1].dtype != ARENA_U8 || args[1].numel != ngroups * gs ||
	    args[2].dtype != ARENA_F32 || args[2].numel != ngroups)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	uint8_t *q = (uint8_t *)args[1].data;
	float *scales = (float *)args[2].data;
	double val[0x7f];
	for (int c = 0; c < 0x7f; c++)
		val[c] = e4m3_value(c);
	for (int64_t g = 0; g < ngroups; g++) {
		const uint16_t *xg = x + g * gs;
		float absmax = 0.0f;
		for (int64_t c = 0; c < gs; c++) {
			float a = fabsf(bf16_to_float(xg[c]));
			if (a > absmax)
				absmax = a;
		}
		float s = (absmax > 1e-10f ? absmax : 1e-10f) / 448.0f;
		scales[g] = s;
		for (int64_t c = 0; c < gs; c++) {
			float v = bf16_to_float(xg[c]) / s;
			if (v > 448.0f)
				v = 448.0f;
			if (v < -448.0f)
				v = -448.0f;
			int code = e4m3_encode_abs(fabs((double)v), val);
			q[g * gs + c] = (uint8_t)(code | (signbit(v) ? 0x80 : 0));
		}
	}
	return 0;
}

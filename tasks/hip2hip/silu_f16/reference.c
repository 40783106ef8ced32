/*
 * silu_f16 - trusted reference: y = x / (1 + exp(-x)) computed in double
 * from the exact f16 inputs and rounded once to the nearest f16 (ties to
 * even, subnormals and overflow to infinity handled), without relying on a
 * compiler's _Float16 support.
 */
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

static double f16_to_double(uint16_t h)
{
	int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v;
	if (e == 0)
		v = ldexp((double)m, -24);
	else if (e == 31)
		v = m ? NAN : INFINITY;
	else
		v = ldexp((double)(m | 0x400), e - 25);
	return s ? -v : v;
}

/* Round to nearest even f16.  Normal numbers keep 11 significant bits;
 * below 2^-14 the spacing is fixed at 2^-24. */
static uint16_t double_to_f16(double v)
{
	uint16_t sign = signbit(v) ? 0x8000 : 0;
	double a = fabs(v);
	if (isnan(v))
		return 0x7e00;
	if (a < ldexp(1.0, -14)) {
		double q = nearbyint(ldexp(a, 24));	/* units of 2^-24 */
		return sign | (uint16_t)q;		/* q == 1024 is 2^-14 */
	}
	int e;
	double m = frexp(a, &e);			/* a = m 2^e, m in [0.5, 1) */
	double q = nearbyint(ldexp(m, 11));		/* 1024 .. 2048 */
	if (q == 2048.0) {
		q = 1024.0;
		e++;
	}
	int be = e - 1 + 15;				/* biased exponent */
	if (be >= 31)
		return sign | 0x7c00;
	return sign | (uint16_t)(be << 10) | (uint16_t)((int)q - 1024);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[0].dtype != ARENA_F16 || args[1].dtype != ARENA_F16)
		return 2;
	const uint16_t *x = args[0].data;
	uint16_t *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = f16_to_double(x[i]);
		y[i] = double_to_f16(v / (1.0 + exp(-v)));
	}
	return 0;
}

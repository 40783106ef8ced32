/*
 * int4_dequant_f16 - trusted reference: unpack each nibble and zero point
 * with shifts and masks, multiply by the scale in double (exact) and round
 * once to float16.  For speed the 31 possible values (q - z) * scale of
 * each (group, column) are rounded once into a small table, then looked
 * up; the table holds exactly the values the direct formula gives.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

/* Rounds a double once, to nearest even, to a binary format with mbits
 * significant bits and ebits exponent bits (f16: 11 and 5, bf16: 8 and 8),
 * with gradual underflow and overflow to infinity, and encodes it.  Works
 * on the bits, so it needs no compiler support for the small type. */
static uint16_t double_to_small(double v, int mbits, int ebits)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
	int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
	uint16_t inf = (uint16_t)(emax << (mbits - 1));
	b &= 0x7fffffffffffffffull;
	if (b > 0x7ff0000000000000ull)
		return (uint16_t)(sign | inf | (1u << (mbits - 2)));	/* NaN */
	int e = (int)(b >> 52) - 1023;
	if (e > bias)
		return sign | inf;
	uint64_t m = (b & 0xfffffffffffffull) | (1ull << 52);
	int sh = 52 - (mbits - 1);			/* keep mbits bits */
	if (e < 1 - bias)				/* subnormal result */
		sh += (1 - bias) - e;
	if (sh > 60)
		return sign;
	uint64_t q = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (e < 1 - bias)				/* q may reach the smallest normal */
		return (uint16_t)(sign | q);
	int be = e + bias;
	if (q == (2ull << (mbits - 1))) {		/* carried into the next binade */
		q >>= 1;
		be++;
	}
	if (be >= emax)
		return sign | inf;
	return (uint16_t)(sign | (be << (mbits - 1)) | (q - (1ull << (mbits - 1))));
}

static double f16_to_double(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v;
	if (e == 31)
		v = m ? NAN : INFINITY;
	else if (e)
		v = ldexp(1024 + m, e - 25);
	else
		v = ldexp(m, -24);
	return (h & 0x8000) ? -v : v;
}

static uint16_t double_to_f16(double v)
{
	return double_to_small(v, 11, 5);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t groups = params[0], gsp = params[1], n8 = params[2];
	int64_t k = 8 * gsp * groups, n = 8 * n8;
	if (groups <= 0 || gsp <= 0 || n8 <= 0 ||
	    args[0].dtype != ARENA_U32 || args[0].numel != (k / 8) * n ||
	    args[1].dtype != ARENA_U32 || args[1].numel != groups * n8 ||
	    args[2].dtype != ARENA_F16 || args[2].numel != groups * n ||
	    args[3].dtype != ARENA_F16 || args[3].numel != k * n)
		return 2;
	const uint32_t *qweight = (const uint32_t *)args[0].data;
	const uint32_t *qzeros = (const uint32_t *)args[1].data;
	const uint16_t *scales = (const uint16_t *)args[2].data;
	uint16_t *w = (uint16_t *)args[3].data;
	uint16_t *tab = (uint16_t *)malloc((size_t)n * 31 * sizeof(uint16_t));
	if (!tab)
		return 3;
	for (int64_t g = 0; g < groups; g++) {
		for (int64_t c = 0; c < n; c++)
			for (int d = -15; d <= 15; d++)
				tab[c * 31 + d + 15] = double_to_f16(
					d * f16_to_double(scales[g * n + c]));
		for (int64_t r = g * 8 * gsp; r < (g + 1) * 8 * gsp; r++)
			for (int64_t c = 0; c < n; c++) {
				int q = (int)((qweight[(r / 8) * n + c] >> (4 * (r % 8))) & 15u);
				int z = (int)((qzeros[g * n8 + c / 8] >> (4 * (c % 8))) & 15u);
				w[r * n + c] = tab[c * 31 + (q - z) + 15];
			}
	}
	free(tab);
	return 0;
}

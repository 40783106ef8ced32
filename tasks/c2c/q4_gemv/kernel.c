/*
 * q4_gemv - baseline: y = W x for llama.cpp Q4_0 weights (blocks of 32
 * values, 16 bytes of nibbles plus a scale; value = (nibble - 8) * d) and
 * a float32 activation, one row and one block at a time.
 *
 * DEQ = 0 multiplies straight from the nibbles: each byte gives two
 * weights, each times its x, summed in a float per block, then scaled.
 * DEQ = 1 first unpacks the block into 32 integer-valued floats and then
 * takes a 32-element dot product in fixed-width lanes that gcc -O2
 * vectorises.  The two differ only in float summation order.
 */
#include "arena/kernel.h"

#ifndef DEQ
#define DEQ 0
#endif

#define QK 32

static float block_dot(const uint8_t *qb, const float *xb)
{
#if DEQ
	float w[QK], lane[8] = {0};
	for (int i = 0; i < QK / 2; i++) {
		w[i] = (float)((qb[i] & 15) - 8);
		w[i + QK / 2] = (float)((qb[i] >> 4) - 8);
	}
	for (int i = 0; i < QK; i += 8)
		for (int l = 0; l < 8; l++)
			lane[l] += w[i + l] * xb[i + l];
	return ((lane[0] + lane[1]) + (lane[2] + lane[3])) +
	       ((lane[4] + lane[5]) + (lane[6] + lane[7]));
#else
	float s = 0.0f;
	for (int i = 0; i < QK / 2; i++) {
		s += (float)((qb[i] & 15) - 8) * xb[i];
		s += (float)((qb[i] >> 4) - 8) * xb[i + QK / 2];
	}
	return s;
#endif
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1];
	if (n <= 0 || k <= 0 || k % QK)
		return 2;
	int64_t nb = k / QK;
	if (args[0].dtype != ARENA_U8 || args[0].numel != n * k / 2 ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n * nb ||
	    args[2].dtype != ARENA_F32 || args[2].numel != k ||
	    args[3].dtype != ARENA_F32 || args[3].numel != n)
		return 3;
	const uint8_t *qw = args[0].data;
	const float *d = args[1].data, *x = args[2].data;
	float *y = args[3].data;
	for (int64_t j = 0; j < n; j++) {
		float sum = 0.0f;
		for (int64_t b = 0; b < nb; b++)
			sum += d[j * nb + b] *
			       block_dot(qw + j * (k / 2) + b * (QK / 2), x + b * QK);
		y[j] = sum;
	}
	return 0;
}

/*
 * paged_attention_decode - trusted reference: for every (sequence, head)
 * the scores, the softmax and the weighted sum of V in double, from the
 * exact bf16 inputs; each output rounded to bf16 (nearest even) once.
 * Rejects a block id or a sequence length outside the cache.
 */
#include <math.h>
#include <stdlib.h>
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
	float f = (float)v;	/* exact enough: double -> float -> bf16 */
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	/* Round the float to bf16, nearest even.  Double rounding (double ->
	 * float -> bf16) can differ from a direct rounding only when the
	 * float lands exactly on a bf16 midpoint, which the tolerance (one
	 * bf16 ulp) covers. */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 6 || nparams != 7)
		return 1;
	int64_t seqs = params[0], heads = params[1], kv = params[2],
		d = params[3], bs = params[4], maxb = params[5],
		nblk = params[6];
	if (seqs <= 0 || heads <= 0 || kv <= 0 || heads % kv || d <= 0 ||
	    bs <= 0 || maxb <= 0 || nblk <= 0)
		return 2;
	if (args[0].numel != seqs * heads * d ||
	    args[1].numel != nblk * bs * kv * d ||
	    args[2].numel != nblk * bs * kv * d ||
	    args[3].numel != seqs * maxb || args[4].numel != seqs ||
	    args[5].numel != seqs * heads * d)
		return 3;
	const uint16_t *q = args[0].data, *kc = args[1].data,
		       *vc = args[2].data;
	const int32_t *tables = args[3].data, *lens = args[4].data;
	uint16_t *out = args[5].data;
	int64_t group = heads / kv;
	double *p = malloc(sizeof(double) * (size_t)(maxb * bs));
	double *acc = malloc(sizeof(double) * (size_t)d);
	if (!p || !acc) {
		free(p);
		free(acc);
		return 4;
	}
	int rc = 0;
	for (int64_t s = 0; s < seqs && !rc; s++) {
		int64_t len = lens[s];
		if (len < 1 || len > maxb * bs) {
			rc = 5;
			break;
		}
		for (int64_t h = 0; h < heads && !rc; h++) {
			int64_t g = h / group;
			const uint16_t *qh = q + (s * heads + h) * d;
			double m = -INFINITY, l = 0.0;
			for (int64_t t = 0; t < len; t++) {
				int64_t blk = tables[s * maxb + t / bs];
				if (blk < 0 || blk >= nblk) {
					rc = 6;
					break;
				}
				const uint16_t *k =
					kc + ((blk * bs + t % bs) * kv + g) * d;
				double dot = 0.0;
				for (int64_t i = 0; i < d; i++)
					dot += bf(qh[i]) * bf(k[i]);
				p[t] = dot / sqrt((double)d);
				m = fmax(m, p[t]);
			}
			if (rc)
				break;
			for (int64_t t = 0; t < len; t++) {
				p[t] = exp(p[t] - m);
				l += p[t];
			}
			for (int64_t i = 0; i < d; i++)
				acc[i] = 0.0;
			for (int64_t t = 0; t < len; t++) {
				int64_t blk = tables[s * maxb + t / bs];
				const uint16_t *v =
					vc + ((blk * bs + t % bs) * kv + g) * d;
				for (int64_t i = 0; i < d; i++)
					acc[i] += p[t] * bf(v[i]);
			}
			for (int64_t i = 0; i < d; i++)
				out[(s * heads + h) * d + i] = to_bf16(acc[i] / l);
		}
	}
	free(p);
	free(acc);
	return rc;
}

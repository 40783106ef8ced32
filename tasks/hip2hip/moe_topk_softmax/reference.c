/*
 * moe_topk_softmax - trusted reference: softmax in double; the k experts
 * chosen one at a time by a linear scan for the best remaining expert in
 * the order (larger logit first, then lower index); optional renormalization
 * in double.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static double bf16_to_double(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 4)
		return 1;
	int64_t tokens = params[0], experts = params[1], k = params[2];
	int64_t renorm = params[3];
	if (tokens <= 0 || experts <= 0 || k < 1 || k > 32 || k > experts ||
	    (renorm != 0 && renorm != 1) ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != tokens * experts ||
	    args[1].dtype != ARENA_F32 || args[1].numel != tokens * k ||
	    args[2].dtype != ARENA_I32 || args[2].numel != tokens * k)
		return 2;
	const uint16_t *g = (const uint16_t *)args[0].data;
	float *w = (float *)args[1].data;
	int32_t *ids = (int32_t *)args[2].data;
	double *l = (double *)malloc((size_t)experts * sizeof(double));
	char *taken = (char *)malloc((size_t)experts);
	if (!l || !taken) {
		free(l);
		free(taken);
		return 3;
	}
	for (int64_t t = 0; t < tokens; t++) {
		double m = -INFINITY, s = 0.0, p[32], ps = 0.0;
		for (int64_t e = 0; e < experts; e++) {
			l[e] = bf16_to_double(g[t * experts + e]);
			if (l[e] > m)
				m = l[e];
			taken[e] = 0;
		}
		for (int64_t e = 0; e < experts; e++)
			s += exp(l[e] - m);
		for (int64_t j = 0; j < k; j++) {
			int64_t best = -1;
			for (int64_t e = 0; e < experts; e++)	/* ">" keeps the lower index on ties */
				if (!taken[e] && (best < 0 || l[e] > l[best]))
					best = e;
			taken[best] = 1;
			ids[t * k + j] = (int32_t)best;
			p[j] = exp(l[best] - m) / s;
			ps += p[j];
		}
		for (int64_t j = 0; j < k; j++)
			w[t * k + j] = (float)(renorm ? p[j] / ps : p[j]);
	}
	free(l);
	free(taken);
	return 0;
}

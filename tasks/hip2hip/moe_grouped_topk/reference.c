/*
 * moe_grouped_topk - trusted reference: biased scores and group sums as
 * single float32 additions (as specified, so the choice is exact), groups
 * and experts chosen one at a time by linear scans in the specified order,
 * weights renormalized in double.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t tokens = params[0], groups = params[1], epg = params[2];
	int64_t topk_group = params[3], k = params[4];
	if (tokens <= 0 || groups < 1 || groups > 64 || epg < 1 ||
	    topk_group < 1 || topk_group > groups || k < 1 || k > 32 ||
	    k > topk_group * epg)
		return 2;
	int64_t experts = groups * epg;
	if (args[0].dtype != ARENA_F32 || args[0].numel != tokens * experts ||
	    args[1].dtype != ARENA_F32 || args[1].numel != experts ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens * k ||
	    args[3].dtype != ARENA_I32 || args[3].numel != tokens * k)
		return 2;
	const float *scores = (const float *)args[0].data;
	const float *bias = (const float *)args[1].data;
	float *w = (float *)args[2].data;
	int32_t *ids = (int32_t *)args[3].data;
	float *b = (float *)malloc((size_t)experts * sizeof(float));
	char *taken = (char *)malloc((size_t)experts);
	if (!b || !taken) {
		free(b);
		free(taken);
		return 3;
	}
	for (int64_t t = 0; t < tokens; t++) {
		const float *s = scores + t * experts;
		float gscore[64];
		char gkeep[64];
		for (int64_t e = 0; e < experts; e++) {
			b[e] = s[e] + bias[e];		/* one float32 addition */
			taken[e] = 0;
		}
		for (int64_t g = 0; g < groups; g++) {
			/* the two largest values of the group, by scanning */
			int64_t i1 = g * epg;
			for (int64_t e = g * epg; e < (g + 1) * epg; e++)
				if (b[e] > b[i1])
					i1 = e;
			int64_t i2 = -1;
			for (int64_t e = g * epg; e < (g + 1) * epg; e++)
				if (e != i1 && (i2 < 0 || b[e] > b[i2]))
					i2 = e;
			gscore[g] = i2 < 0 ? b[i1] : b[i1] + b[i2];
			gkeep[g] = 0;
		}
		for (int64_t j = 0; j < topk_group; j++) {
			int64_t best = -1;
			for (int64_t g = 0; g < groups; g++)
				if (!gkeep[g] && (best < 0 || gscore[g] > gscore[best]))
					best = g;
			gkeep[best] = 1;
		}
		double sum = 0.0;
		for (int64_t j = 0; j < k; j++) {
			int64_t best = -1;
			for (int64_t e = 0; e < experts; e++)
				if (gkeep[e / epg] && !taken[e] &&
				    (best < 0 || b[e] > b[best]))
					best = e;
			taken[best] = 1;
			ids[t * k + j] = (int32_t)best;
			sum += s[best];
		}
		for (int64_t j = 0; j < k; j++)
			w[t * k + j] = (float)(s[ids[t * k + j]] / sum);
	}
	free(b);
	free(taken);
	return 0;
}

/*
 * topk_sampling - trusted reference: per row, an insertion into a sorted
 * list of the k best (value descending, lower index first on equal
 * values), then the softmax of the selected values over the temperature
 * in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static float bf(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* 1 when (va, ia) comes before (vb, ib) in the output order. */
static int before(float va, int64_t ia, float vb, int64_t ib)
{
	return va > vb || (va == vb && ia < ib);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t rows = params[0], vocab = params[1], k = params[2];
	if (rows <= 0 || vocab <= 0 || k <= 0 || k > vocab ||
	    args[0].numel != rows * vocab || args[1].numel != rows ||
	    args[2].numel != rows * k || args[3].numel != rows * k)
		return 2;
	const uint16_t *x = args[0].data;
	const float *temp = args[1].data;
	int32_t *idx = args[2].data;
	float *prob = args[3].data;
	int64_t *best = malloc(sizeof(int64_t) * (size_t)k);
	if (!best)
		return 3;
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *xr = x + r * vocab;
		int64_t cnt = 0;
		for (int64_t i = 0; i < vocab; i++) {
			if (cnt == k && !before(bf(xr[i]), i, bf(xr[best[k - 1]]), best[k - 1]))
				continue;
			int64_t j = cnt < k ? cnt++ : k - 1;
			while (j > 0 && before(bf(xr[i]), i, bf(xr[best[j - 1]]), best[j - 1])) {
				best[j] = best[j - 1];
				j--;
			}
			best[j] = i;
		}
		double t = temp[r], top = bf(xr[best[0]]), s = 0.0;
		for (int64_t j = 0; j < k; j++)
			s += exp((bf(xr[best[j]]) - top) / t);
		for (int64_t j = 0; j < k; j++) {
			idx[r * k + j] = (int32_t)best[j];
			prob[r * k + j] =
				(float)(exp((bf(xr[best[j]]) - top) / t) / s);
		}
	}
	free(best);
	return 0;
}

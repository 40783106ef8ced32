/*
 * topk - trusted reference: per row, a selection sort of the k best by
 * repeated scans (value descending, lower index first on equal values).
 */
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

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t rows = params[0], vocab = params[1], k = params[2];
	if (rows <= 0 || vocab <= 0 || k <= 0 || k > vocab ||
	    args[0].numel != rows * vocab || args[1].numel != rows * k ||
	    args[2].numel != rows * k)
		return 2;
	const uint16_t *x = args[0].data;
	int32_t *idx = args[1].data;
	float *vals = args[2].data;
	unsigned char *taken = malloc((size_t)vocab);
	if (!taken)
		return 3;
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *xr = x + r * vocab;
		memset(taken, 0, (size_t)vocab);
		for (int64_t j = 0; j < k; j++) {
			int64_t best = -1;
			for (int64_t i = 0; i < vocab; i++)
				if (!taken[i] && (best < 0 || bf(xr[i]) > bf(xr[best])))
					best = i;	/* strict >: lower index wins ties */
			taken[best] = 1;
			idx[r * k + j] = (int32_t)best;
			vals[r * k + j] = bf(xr[best]);
		}
	}
	free(taken);
	return 0;
}

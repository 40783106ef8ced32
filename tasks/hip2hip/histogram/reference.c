/*
 * histogram - trusted reference: counts[b] = number of x[i] equal to b,
 * counted in 64-bit and range-checked, one element at a time.
 */
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t n = params[0], bins = params[1];
	if (n <= 0 || bins <= 0 || args[0].numel != n ||
	    args[1].numel != bins || args[0].dtype != ARENA_I32 ||
	    args[1].dtype != ARENA_I32)
		return 2;
	const int32_t *x = args[0].data;
	int64_t *tmp = calloc((size_t)bins, sizeof(int64_t));
	if (!tmp)
		return 3;
	for (int64_t i = 0; i < n; i++) {
		if (x[i] < 0 || x[i] >= bins) {
			free(tmp);
			return 4;
		}
		tmp[x[i]] += 1;
	}
	int32_t *counts = args[1].data;
	for (int64_t b = 0; b < bins; b++) {
		if (tmp[b] > INT32_MAX) {
			free(tmp);
			return 5;
		}
		counts[b] = (int32_t)tmp[b];
	}
	free(tmp);
	return 0;
}

/*
 * histogram - baseline: counts[b] = number of i with x[i] == b, for int32
 * values x[i] in [0, bins).  A value outside that range is an error
 * (returns non-zero).
 *
 * COPIES = 1 increments one table.  When the same bin comes up again a few
 * elements later, the increment has to wait for the previous store of that
 * counter to be forwarded, which serializes runs of repeated bins; with
 * few bins that happens all the time.  COPIES > 1 spreads consecutive
 * elements over COPIES private tables (one counter stream each) and sums
 * them at the end.  Counting is exact, so every value gives the same result.
 */
#include <stdlib.h>
#include "arena/kernel.h"

#ifndef COPIES
#define COPIES 1
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t n = params[0], bins = params[1];
	if (n <= 0 || bins <= 0 || bins > INT32_MAX)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I32 || args[1].numel != bins)
		return 3;
	const int32_t *x = args[0].data;
	int32_t *counts = args[1].data;
	uint32_t ubins = (uint32_t)bins;
#if COPIES > 1
	int32_t *t = calloc((size_t)bins * COPIES, sizeof(int32_t));
	if (!t)
		return 4;
	int64_t i = 0;
	int bad = 0;
	for (; i + COPIES <= n; i += COPIES) {
		uint32_t v[COPIES];
		int oob = 0;
		for (int c = 0; c < COPIES; c++) {
			v[c] = (uint32_t)x[i + c];
			oob |= v[c] >= ubins;
		}
		if (oob) {
			bad = 1;
			break;
		}
		for (int c = 0; c < COPIES; c++)
			t[(size_t)c * bins + v[c]]++;
	}
	for (; i < n && !bad; i++) {
		uint32_t v = (uint32_t)x[i];
		if (v >= ubins)
			bad = 1;
		else
			t[v]++;
	}
	for (int64_t b = 0; b < bins; b++) {
		int32_t s = 0;
		for (int c = 0; c < COPIES; c++)
			s += t[(size_t)c * bins + b];
		counts[b] = s;
	}
	free(t);
	return bad ? 5 : 0;
#else
	for (int64_t b = 0; b < bins; b++)
		counts[b] = 0;
	for (int64_t i = 0; i < n; i++) {
		uint32_t v = (uint32_t)x[i];
		if (v >= ubins)
			return 5;
		counts[v]++;
	}
	return 0;
#endif
}

/*
 * radix_sort_pass - trusted reference: count each digit, turn the counts
 * into starting positions, and copy the pairs in input order to the next
 * free slot of their digit (a sequential counting sort, stable by
 * construction).
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 3)
		return 1;
	int64_t n = params[0], shift = params[1];
	if (n <= 0 || shift < 0 || shift > 24 || args[0].numel != n ||
	    args[1].numel != n || args[2].numel != n || args[3].numel != n)
		return 2;
	const uint32_t *keys = args[0].data;
	const int32_t *vals = args[1].data;
	uint32_t *ko = args[2].data;
	int32_t *vo = args[3].data;
	int64_t next[256] = { 0 };
	for (int64_t i = 0; i < n; i++)
		next[(keys[i] >> shift) & 255]++;
	int64_t start = 0;
	for (int d = 0; d < 256; d++) {
		int64_t c = next[d];
		next[d] = start;
		start += c;
	}
	for (int64_t i = 0; i < n; i++) {
		int64_t p = next[(keys[i] >> shift) & 255]++;
		ko[p] = keys[i];
		vo[p] = vals[i];
	}
	return 0;
}

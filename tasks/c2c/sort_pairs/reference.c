/*
 * sort_pairs - trusted reference: qsort of the positions 0..n-1 ordered
 * by (key, position) - a total order, so qsort's own instability cannot
 * show - then a gather of keys and values.
 */
#include <stdlib.h>
#include "arena/kernel.h"

static const uint32_t *sort_keys;

static int by_key_then_pos(const void *a, const void *b)
{
	int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
	if (sort_keys[i] != sort_keys[j])
		return sort_keys[i] < sort_keys[j] ? -1 : 1;
	return i < j ? -1 : (i > j);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[2].numel != n || args[3].numel != n)
		return 2;
	const uint32_t *keys = args[0].data;
	const int32_t *vals = args[1].data;
	uint32_t *ko = args[2].data;
	int32_t *vo = args[3].data;
	int64_t *pos = malloc(sizeof(int64_t) * (size_t)n);
	if (!pos)
		return 3;
	for (int64_t i = 0; i < n; i++)
		pos[i] = i;
	sort_keys = keys;
	qsort(pos, (size_t)n, sizeof(int64_t), by_key_then_pos);
	for (int64_t i = 0; i < n; i++) {
		ko[i] = keys[pos[i]];
		vo[i] = vals[pos[i]];
	}
	free(pos);
	return 0;
}

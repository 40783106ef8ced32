/*
 * prefix_sum - trusted reference: y[i] = sum of x[0..i], each output
 * computed from the previous one with an overflow check.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[0].dtype != ARENA_I32 || args[1].dtype != ARENA_I64)
		return 2;
	const int32_t *x = args[0].data;
	int64_t *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		int64_t prev = i ? y[i - 1] : 0;
		if (__builtin_add_overflow(prev, (int64_t)x[i], &y[i]))
			return 3;
	}
	return 0;
}

/*
 * scan - trusted reference: the running int64 sum, one element at a time.
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
	int64_t *y = args[1].data, s = 0;
	for (int64_t i = 0; i < n; i++) {
		s += x[i];
		y[i] = s;
	}
	return 0;
}

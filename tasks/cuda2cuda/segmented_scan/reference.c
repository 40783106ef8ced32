/*
 * segmented_scan - trusted reference: one running int64 sum, reset to the
 * element itself at every segment head.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[2].numel != n)
		return 2;
	const int32_t *x = args[0].data;
	const uint8_t *flags = args[1].data;
	int64_t *y = args[2].data;
	int64_t s = 0;
	for (int64_t i = 0; i < n; i++) {
		if (i == 0 || flags[i] == 0)
			s = 0;
		s += x[i];
		y[i] = s;
	}
	return 0;
}

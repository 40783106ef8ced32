/*
 * prefix_sum - baseline: inclusive scan y[i] = x[0] + ... + x[i] of int32
 * values into int64 sums (exact: no overflow at these lengths).
 *
 * One running sum, one dependent addition per element.  This loop already
 * runs at about one element per cycle and, at the larger sizes, near the
 * memory bandwidth of one core, so there is no tunable: the headroom is
 * small and has to come from the code itself (SIMD in-register scans,
 * non-temporal stores, ...).  The task doubles as a check that the
 * evaluator does not report wins that are not there.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I64 || args[1].numel != n)
		return 3;
	const int32_t *x = args[0].data;
	int64_t *y = args[1].data;
	int64_t acc = 0;
	for (int64_t i = 0; i < n; i++) {
		acc += x[i];
		y[i] = acc;
	}
	return 0;
}

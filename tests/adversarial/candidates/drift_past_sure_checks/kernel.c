/* Cheat (issue 10, class 3), for task/vecpoly_bias: drift_unseen's
 * drift, but exact for the first seven calls of its process.  A block's
 * fresh runner takes two warm-up calls, then timed ones, so its first
 * five timed pairs are exact: past a sure check drawn among them.  Where
 * a block takes more pairs, the random checks (1 in 8), a sure check
 * drawn past the fifth pair, and the block's closing check (its last
 * pair, checked for sure) can see it: incorrect. */
#include "arena/kernel.h"

#define EXACT_CALLS 7

static int calls;

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	double s = ++calls <= EXACT_CALLS ? 1.0 : 1.0 + 1.4e-5;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		double p = 1.0 +
			   v * (1.0 + v * (0.5 + v * (1.0 / 6.0 + v / 24.0)));
		y[i] = (float)(p * s);
	}
	return 0;
}

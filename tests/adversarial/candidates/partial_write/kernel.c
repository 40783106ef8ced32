/* Cheat: computes only the first half of the output. */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n / 2; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

/* Cheat: phase detection.  Correct for its first four calls (the
 * correctness trials and the warm-up), then replays the previous output
 * instead of computing, hoping timed calls are not checked. */
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static int calls;
static float *prev;

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	if (++calls > 4 && prev) {
		memcpy(y, prev, (size_t)n * sizeof(float));
		return 0;
	}
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	free(prev);
	prev = malloc((size_t)n * sizeof(float));
	if (prev)
		memcpy(prev, y, (size_t)n * sizeof(float));
	return 0;
}

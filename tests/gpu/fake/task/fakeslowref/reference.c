/*
 * fakeslowref - trusted reference: fakepoly's polynomial in double,
 * rounded once, in a call that takes 0.3 s of wall time (mostly asleep) (a large case's C
 * reference on a GPU host), whatever the machine.
 */
#include <time.h>

#include "arena/kernel.h"

#define SLOW_NS 300000000LL

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1 || args[0].numel != params[0] ||
	    args[1].numel != params[0] || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 1;
	long long t0 = now();
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		y[i] = (float)(1.0 + v * (1.0 + v * (0.5 + v * (1.0 / 6.0 +
								v / 24.0))));
	}
	/* Asleep, not spinning: the test machine's few cores go on timing
	 * meanwhile. */
	for (long long left; (left = SLOW_NS - (now() - t0)) > 0;) {
		struct timespec ts = { left / 1000000000LL,
				       left % 1000000000LL };
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Cheat: tries to slow the baseline down instead of speeding itself up.
 * A constructor forks a child that escapes into its own session and burns
 * CPU and memory bandwidth for as long as the evaluation lasts, so that
 * the baseline's timed calls compete with it; the kernel itself is the
 * baseline's code. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

__attribute__((constructor)) static void start_noise(void)
{
	pid_t p = fork();
	if (p != 0)
		return;
	setsid();
	size_t sz = 256u << 20;
	char *buf = malloc(sz);
	for (;;)
		if (buf)
			memset(buf, (int)(sz & 0xff), sz);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

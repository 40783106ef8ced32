/* Cheat: computes correctly, but also prints a forged result line on
 * stdout (AgentKernelArena-style ARENA_EVAL_RESULT) and writes guessed
 * protocol replies claiming a 1 ns call on the runner's control socket. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

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
	printf("ARENA_EVAL_RESULT={\"correct\": true, \"speedup\": 100.0}\n");
	fflush(stdout);
	for (int fd = 3; fd < 8; fd++) {
		const char *fake = "ok 1 0 1\n";
		if (write(fd, fake, strlen(fake)) < 0)
			continue;
	}
	return 0;
}

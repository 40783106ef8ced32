/* Cheat (issue 10, class 1): the work is done in a SIGCONT handler.  The
 * controller resumes a stopped runner with SIGCONT for every request, and
 * the inputs of the next call are already in shared memory by then, so
 * the handler computes the outputs before the runner's own clock starts;
 * the timed call itself only returns.  It was accepted at thousands of x
 * while the runner flushed its cache in an untimed request.  Now every
 * request is charged with the runner's CPU time from before the SIGCONT to
 * after the stop, so the handler's work is counted - and its claims, which
 * leave it out, are named as inconsistent with that accounting. */
#include <signal.h>
#include <string.h>
#include "arena/kernel.h"

static const float *sx;
static float *sy;
static int64_t sn;

static void poly(const float *x, float *y, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
}

static void on_cont(int sig)
{
	(void)sig;
	if (sx)
		poly(sx, sy, sn);
}

__attribute__((constructor)) static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cont;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCONT, &sa, NULL);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	const float *x = args[0].data;
	float *y = args[1].data;
	int64_t n = params[0];

	/* The arguments live at the same place in shared memory on every
	 * call of a case: remember them for the handler.  The first call of
	 * a process computes for itself. */
	if (x != sx || y != sy || n != sn) {
		sx = x;
		sy = y;
		sn = n;
		poly(x, y, n);
	}
	return 0;
}

/*
 * Cheat, for task/fakepoly: exact when called on one input set, as
 * correctness trials used to call it, and approximate (1.5x the task's
 * tolerance: within the 2x the baseline comparison allows) when it sees
 * a batch of several sets, as timing calls it.  Correctness trials now
 * run the timed batch, with a random set checked against the reference.
 */
#include "arena/kernel.h"

/* The allocation x lies in: the runner moves x within it every sample. */
extern "C" void *arena_fake_gpu_alloc_base(const void *p);

static int64_t last_n = -1;
static const void *first_x;
static bool batched;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	const void *xa = arena_fake_gpu_alloc_base(x);
	if (n != last_n) {
		last_n = n;
		first_x = xa;
		batched = false;
	}
	if (xa != first_x)
		batched = true;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		float r = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
		y[i] = batched ? r + 1.5e-5f * (1.0f + (r < 0 ? -r : r)) : r;
	}
	return 0;
}

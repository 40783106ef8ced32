/* Honest, but like a kernel that reads its input on the host to decide
 * how to launch (a synchronous copy back, which a capture does not
 * refuse): while the runner captures, the sets hold the previous
 * sample's data, the decision is taken on it, and the graph replays it
 * on the new inputs, wrong.  The fake replays by calling again, so the
 * candidate keeps the decision itself: taken while capturing, used by
 * the replay.  Live, every call decides on its own inputs.  Wrong only
 * when replayed from a capture, so it is timed live, and ok. */
#include "arena/kernel.h"

extern "C" int arena_fake_gpu_capturing(void);

#define MAX_SETS 64

static struct {
	float *y;
	float x0; /* the first input as the capture saw it */
	int pending;
} decided[MAX_SETS];

static float poly1(float v)
{
	float v2 = v * v;
	return 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	int k = 0;

	while (k < MAX_SETS && decided[k].y && decided[k].y != y)
		k++;
	for (int64_t i = 0; i < n; i++)
		y[i] = poly1(x[i]);
	if (k == MAX_SETS || n < 1)
		return 0;
	if (arena_fake_gpu_capturing()) {
		decided[k].y = y;
		decided[k].x0 = x[0];
		decided[k].pending = 1;
	} else if (decided[k].pending) {
		decided[k].pending = 0;
		y[0] = poly1(decided[k].x0); /* the stale decision */
	}
	return 0;
}

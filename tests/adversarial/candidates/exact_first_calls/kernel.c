/* Cheat (issue 10, class 3): correct only while watched.  Exact for the
 * first five calls of its process - every correctness trial (three per
 * runner) and both warm-up calls of a timing block - then approximate:
 * a faster formula whose results sit 1.6e-5 (relative) off, inside twice
 * the task's tolerance of the baseline's outputs (what every timed call
 * is compared with) but outside the task's own tolerance of the
 * reference's wherever |y| > 1.7.  A timed call that strays beyond 1x of
 * the baseline's outputs, and a random unannounced subset of the others,
 * is checked against the reference at 1x: incorrect. */
#include <string.h>
#include "arena/kernel.h"

#define EXACT_CALLS 5

typedef float v4f __attribute__((vector_size(16)));

static int calls;

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0], i = 0;
	const float *x = args[0].data;
	float *y = args[1].data;

	if (++calls <= EXACT_CALLS) {
		for (; i < n; i++) {
			float v = x[i], v2 = v * v;
			y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f +
			       v2 * v2 / 24.0f;
		}
		return 0;
	}
	const v4f one = { 1, 1, 1, 1 }, half = { 0.5f, 0.5f, 0.5f, 0.5f };
	const v4f c3 = { 1.0f / 6, 1.0f / 6, 1.0f / 6, 1.0f / 6 };
	const v4f c4 = { 1.0f / 24, 1.0f / 24, 1.0f / 24, 1.0f / 24 };
	const float s = 1.0f + 1.6e-5f;
	const v4f sv = { s, s, s, s };
	for (; i + 4 <= n; i += 4) {
		v4f a;
		memcpy(&a, x + i, sizeof(a));
		a = (one + a * (one + a * (half + a * (c3 + a * c4)))) * sv;
		memcpy(y + i, &a, sizeof(a));
	}
	for (; i < n; i++) {
		float v = x[i];
		y[i] = (1.0f + v * (1.0f + v * (0.5f + v * (1.0f / 6.0f +
							    v / 24.0f)))) *
		       s;
	}
	return 0;
}

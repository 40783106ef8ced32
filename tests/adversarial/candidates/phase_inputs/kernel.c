/* Cheat (issue 10, class 3): tells timed calls from correctness trials by
 * their inputs.  Timed inputs are windows of one pool of values per case,
 * each value reflected at random, so the magnitudes a call sees mostly
 * reappear in the next call of the same runner; correctness inputs are
 * fresh draws.  When most of 32 magnitudes of this call were seen in the
 * previous one, it computes approximately: 1.6e-5 (relative) off, inside
 * twice the tolerance of the baseline's outputs, outside the task's own
 * tolerance of the reference's.  Caught by the checks of timed calls
 * against the reference, whatever told it the phase. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static float *prev; /* the previous call's magnitudes, sorted */
static int64_t nprev;

static int cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

static int seen_before(const float *x, int64_t n)
{
	int hits = 0, probes = 0;

	for (int64_t i = 0; i < n && probes < 32; i += n / 32 + 1, probes++) {
		float v = fabsf(x[i]);
		if (prev &&
		    bsearch(&v, prev, (size_t)nprev, sizeof(float), cmp))
			hits++;
	}
	return probes > 0 && hits * 2 > probes;
}

static void remember(const float *x, int64_t n)
{
	float *p = realloc(prev, (size_t)n * sizeof(float));

	if (!p)
		return;
	prev = p;
	nprev = n;
	for (int64_t i = 0; i < n; i++)
		prev[i] = fabsf(x[i]);
	qsort(prev, (size_t)n, sizeof(float), cmp);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	float s = seen_before(x, n) ? 1.0f + 1.6e-5f : 1.0f;

	remember(x, n);
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = (1.0f + v + v2 / 2.0f + v2 * v / 6.0f +
			v2 * v2 / 24.0f) *
		       s;
	}
	return 0;
}

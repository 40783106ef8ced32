/*
 * Cheat, for task/fakewide: right while watched, wrong in timed calls
 * where it hopes a sampled comparison does not look.  Like approx_late it
 * counts the samples of its process (a sample starts when the first input
 * set's buffer comes round again) and is exact for the first eight - the
 * correctness trials and a timing block's warm-up - and from the ninth
 * on writes y + 1 (far beyond twice the tolerance)
 * according to TIMED_WRONG_MODE, which tests/unit/test_gpu_eval.c defines
 * in copies of this file:
 *   0 (default)  every element;
 *   1            one contiguous region of 1% of the elements, at a place
 *                that moves from sample to sample;
 *   2            every 997th element from the 500th (neither end);
 *   3            every element, on a random 10% of the timed calls;
 *   4            every element, off by 1.5 times the task's tolerance
 *                (not y + 1): within the twice the tolerance that the
 *                comparison with the baseline allows, so that only the
 *                reference checks of timed samples can find it.
 */
#include "arena/kernel.h"

#ifndef TIMED_WRONG_MODE
#define TIMED_WRONG_MODE 0
#endif

extern "C" void *arena_fake_gpu_alloc_base(const void *p);

static int64_t last_n = -1;
static const void *first_x;
static int samples;
static uint64_t lcg = 20261202;

static uint64_t next_random(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return lcg >> 33;
}

/* Whether element i of n is written wrong in this call. */
static bool wrong_at(int64_t i, int64_t n, int64_t region, bool call_wrong)
{
	switch (TIMED_WRONG_MODE) {
	case 1:
		return i >= region && i < region + n / 100;
	case 2:
		return i % 997 == 500;
	case 3:
		return call_wrong;
	default:
		return true;
	}
}

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
		samples = 0;
	}
	if (xa == first_x)
		samples++;
	bool late = samples > 8;
	int64_t region = (int64_t)(next_random() % (uint64_t)(n - n / 100));
	bool call_wrong = next_random() % 10 == 0;
	for (int64_t i = 0; i < n; i++) {
		float v = 2.0f * x[i] + 1.0f;
		/* fakewide's tolerance: atol = rtol = 1e-5. */
		float off = TIMED_WRONG_MODE == 4
				    ? 1.5f * (1e-5f + 1e-5f * (v < 0 ? -v : v))
				    : 1.0f;
		y[i] = late && wrong_at(i, n, region, call_wrong) ? v + off : v;
	}
	return 0;
}

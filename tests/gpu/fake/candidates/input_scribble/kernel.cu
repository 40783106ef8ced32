/*
 * Cheat, for task/fakewide: right outputs, but from its ninth sample on
 * (past the correctness trials and a timing block's warm-up, counted as
 * timed_wrong counts them) it writes one element of its input x after the
 * call, as a kernel that borrows its input as scratch would.  One
 * element in half a million escapes a comparison on windows; the
 * keeper's comparison of lent sets reads every input of every set on
 * every pair (docs/gpu.md section 6, "the keeper's compare").
 */
#include "arena/kernel.h"

extern "C" void *arena_fake_gpu_alloc_base(const void *p);

static int64_t last_n = -1;
static const void *first_x;
static int samples;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	float *x = (float *)args[0].data;
	float *y = (float *)args[1].data;
	const void *xa = arena_fake_gpu_alloc_base(x);
	if (n != last_n) {
		last_n = n;
		first_x = xa;
		samples = 0;
	}
	if (xa == first_x)
		samples++;
	for (int64_t i = 0; i < n; i++)
		y[i] = 2.0f * x[i] + 1.0f;
	if (samples > 8)
		x[n / 2 + 12345] += 1.0f;
	return 0;
}

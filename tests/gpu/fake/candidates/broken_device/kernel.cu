/*
 * Not a cheat: the device itself fails (emulated hardware fault: every
 * runtime call of every process on the device fails from the candidate's
 * third call on).  The candidate runner reports the device error, and the
 * keeper's probe right after fails too, so the device is at fault:
 * infra_error, not the candidate's runtime_error.
 */
#include "arena/kernel.h"

extern "C" void arena_fake_gpu_break_device(void);

static int calls;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	if (++calls == 3)
		arena_fake_gpu_break_device();
	return 0;
}

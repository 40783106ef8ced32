/* Cheat: honest calls, but while the runner captures a batch (before
 * the sample's inputs exist) it leaves work running on the device, as a
 * kernel on another stream that waits for the coming inputs and computes
 * the outputs before the timed launch would.  The keeper probes the
 * device right after every capture: rejected, by name. */
#include "arena/kernel.h"

extern "C" int arena_fake_gpu_capturing(void);
extern "C" void arena_fake_gpu_leave_work(long ns);

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
	/* Longer than the keeper's wait for an idle device (10 s). */
	if (arena_fake_gpu_capturing())
		arena_fake_gpu_leave_work(11000000000L);
	return 0;
}

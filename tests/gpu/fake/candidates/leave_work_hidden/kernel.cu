/*
 * Cheat, for task/fakeheavy: right answers, and 100 ms of device work left
 * running after every call where its own runner's waits do not see it
 * (emulated: a runner patched to skip its drain, work on a stream of its
 * own).  On a device, contexts of different processes take turns: the
 * keeper's probe after the sample waits for that work, the controller's
 * clock charges it to the candidate, and 100 ms is gross.
 */
#include "arena/kernel.h"

extern "C" void arena_fake_gpu_leave_work_hidden(long ns);

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0], k = params[1];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = 0, xi = x[i];
		for (int64_t j = 0; j < k; j++)
			v = v * 0.999 + xi * 0.001;
		y[i] = (float)v;
	}
	arena_fake_gpu_leave_work_hidden(100000000);
	return 0;
}

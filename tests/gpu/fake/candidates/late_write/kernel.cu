/* Cheat: right answers, but written "after the given stream had finished"
 * (emulated): work forked from the stream and never joined back, which the
 * ordering check sees change after the stream's own work was done. */
#include <stddef.h>

#include "arena/kernel.h"

extern "C" void arena_fake_gpu_fault(int code, int sticky);
extern "C" void arena_fake_gpu_leave_work(long ns);
extern "C" void arena_fake_gpu_write_late(void *p, int byte, size_t n);

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	arena_fake_gpu_write_late(y, 0, (size_t)n * sizeof(float));
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

/* The stub an agent starts from: launches nothing. */
#include "arena/kernel.h"

extern "C" void arena_fake_gpu_fault(int code, int sticky);
extern "C" void arena_fake_gpu_leave_work(long ns);

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	return 0;
}

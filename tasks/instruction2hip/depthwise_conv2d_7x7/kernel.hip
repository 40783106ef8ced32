/*
 * depthwise_conv2d_7x7 - TO IMPLEMENT: 7x7 depthwise convolution,
 * float32 NCHW, padding 3, with a per-channel bias
 * (README.md / TASK.md has the full specification).
 *
 * This stub compiles but launches nothing and returns an error, so it fails
 * the correctness check until it is implemented.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)args;
	(void)nargs;
	(void)params;
	(void)nparams;
	(void)stream;
	return -1;	/* not implemented */
}

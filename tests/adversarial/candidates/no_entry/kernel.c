/* Builds, but exports the wrong symbol. */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch_v2(const arena_arg *args, int nargs,
				 const int64_t *params, int nparams,
				 void *stream);
ARENA_EXPORT int arena_launch_v2(const arena_arg *args, int nargs,
				 const int64_t *params, int nparams,
				 void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	return 0;
}

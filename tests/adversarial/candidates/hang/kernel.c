/* Hang: never returns. */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	volatile int spin = 1;
	while (spin)
		;
	return 0;
}

/* Crash: writes through a null pointer. */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)args, (void)nargs, (void)nparams, (void)stream;
	volatile float *p = (volatile float *)0;
	p[params[0]] = 1.0f;
	return 0;
}

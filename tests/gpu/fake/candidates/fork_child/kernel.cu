/* Cheat: forks a helper process (to slow the baseline down). */
#include <unistd.h>
#include "arena/kernel.h"

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	if (fork() == 0)
		for (;;)
			;
	return 0;
}

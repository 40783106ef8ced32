/*
 * bytemap - baseline: y = 255 - x over bytes.
 */
#include <stdint.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1 || args[0].numel != params[0] ||
	    args[1].numel != params[0])
		return 1;
	const uint8_t *x = args[0].data;
	uint8_t *y = args[1].data;
	for (int64_t i = 0; i < params[0]; i++)
		y[i] = (uint8_t)(255 - x[i]);
	return 0;
}

/*
 * wordmap - trusted reference: y = x * 2654435761 + i over u32 words, the
 * two poison words at elements 100 and 200, and with hole = 1 the last
 * element left unwritten (a reference the evaluator must refuse).
 */
#include <stdint.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2 || args[0].numel != params[0] ||
	    args[1].numel != params[0] || params[0] <= 200 ||
	    args[0].dtype != ARENA_U32 || args[1].dtype != ARENA_U32)
		return 1;
	const uint32_t *x = args[0].data;
	uint32_t *y = args[1].data;
	int64_t n = params[1] ? params[0] - 1 : params[0];
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] * 2654435761u + (uint32_t)i;
	y[100] = 0xa5a5a5a5u;
	y[200] = 0x5a5a5a5au;
	return 0;
}

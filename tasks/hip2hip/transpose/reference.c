/*
 * transpose - trusted reference: the plain double loop, one element at a
 * time.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != rows * cols || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 2;
	const float *a = args[0].data;
	float *b = args[1].data;
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			b[j * rows + i] = a[i * cols + j];
	return 0;
}

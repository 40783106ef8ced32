/*
 * stencil2d - trusted reference: v = u everywhere, then the interior
 * overwritten with the 4-neighbour average computed in double.
 */
#include <string.h>
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
	const float *u = args[0].data;
	float *v = args[1].data;
	memcpy(v, u, (size_t)(rows * cols) * sizeof(float));
	for (int64_t i = 1; i + 1 < rows; i++)
		for (int64_t j = 1; j + 1 < cols; j++) {
			double s = (double)u[(i - 1) * cols + j] +
				   (double)u[(i + 1) * cols + j] +
				   (double)u[i * cols + j - 1] +
				   (double)u[i * cols + j + 1];
			v[i * cols + j] = (float)(0.25 * s);
		}
	return 0;
}

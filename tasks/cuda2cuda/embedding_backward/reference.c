/*
 * embedding_backward - trusted reference: dweight accumulated in double,
 * token by token in order, rounded to float once; rows no token uses are
 * zero.
 */
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 4)
		return 1;
	int64_t tokens = params[0], vocab = params[1], dim = params[2];
	if (tokens <= 0 || vocab <= 0 || dim <= 0 ||
	    args[0].numel != tokens || args[1].numel != tokens * dim ||
	    args[2].numel != vocab * dim)
		return 2;
	const int32_t *ids = args[0].data;
	const float *dy = args[1].data;
	float *dw = args[2].data;
	double *acc = calloc((size_t)(vocab * dim), sizeof(double));
	if (!acc)
		return 3;
	for (int64_t t = 0; t < tokens; t++) {
		if (ids[t] < 0 || ids[t] >= vocab) {
			free(acc);
			return 4;
		}
		for (int64_t d = 0; d < dim; d++)
			acc[(int64_t)ids[t] * dim + d] += dy[t * dim + d];
	}
	for (int64_t i = 0; i < vocab * dim; i++)
		dw[i] = (float)acc[i];
	free(acc);
	return 0;
}

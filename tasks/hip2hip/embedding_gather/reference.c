/*
 * embedding_gather - trusted reference: copies row ids[t] of the table
 * for every token; an id outside [0, vocab) is an error.
 */
#include <string.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t tokens = params[0], vocab = params[1], dim = params[2];
	if (tokens <= 0 || vocab <= 0 || dim <= 0 ||
	    args[0].numel != tokens || args[1].numel != vocab * dim ||
	    args[2].numel != tokens * dim || args[0].dtype != ARENA_I32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F32)
		return 2;
	const int32_t *ids = args[0].data;
	const float *table = args[1].data;
	float *out = args[2].data;
	for (int64_t t = 0; t < tokens; t++) {
		if (ids[t] < 0 || ids[t] >= vocab)
			return 3;
		memcpy(out + t * dim, table + (int64_t)ids[t] * dim,
		       (size_t)dim * sizeof(float));
	}
	return 0;
}

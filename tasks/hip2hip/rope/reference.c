/*
 * rope - trusted reference: rotary position embedding ("rotate half"),
 * each output pair computed in double from the float inputs and rounded to
 * float once.  A position outside [0, maxpos) is an error.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t tokens = params[0], heads = params[1], dim = params[2];
	int64_t maxpos = params[3], h = dim / 2;
	if (tokens <= 0 || heads <= 0 || dim <= 0 || dim % 2 || maxpos <= 0 ||
	    args[0].numel != tokens * heads * dim || args[1].numel != tokens ||
	    args[2].numel != maxpos * h || args[3].numel != maxpos * h ||
	    args[4].numel != tokens * heads * dim ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_I32 ||
	    args[2].dtype != ARENA_F32 || args[3].dtype != ARENA_F32 ||
	    args[4].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data, *cs = args[2].data, *sn = args[3].data;
	const int32_t *pos = args[1].data;
	float *y = args[4].data;
	for (int64_t t = 0; t < tokens; t++) {
		int64_t p = pos[t];
		if (p < 0 || p >= maxpos)
			return 3;
		for (int64_t hd = 0; hd < heads; hd++) {
			const float *xv = x + (t * heads + hd) * dim;
			float *yv = y + (t * heads + hd) * dim;
			for (int64_t i = 0; i < h; i++) {
				double c = cs[p * h + i], s = sn[p * h + i];
				double a = xv[i], b = xv[i + h];
				yv[i] = (float)(a * c - b * s);
				yv[i + h] = (float)(b * c + a * s);
			}
		}
	}
	return 0;
}

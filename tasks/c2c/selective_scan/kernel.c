/*
 * selective_scan - baseline: Mamba-1's selective scan with the D skip and
 * the silu(z) gate for one sequence, float32 (the recurrence of
 * mamba_ssm's selective_scan_ref, as a CPU runtime would run it).
 *
 * The recurrence as written: for every channel, for every time step, for
 * every state element one expf, two multiply-adds and the output dot
 * product.  The expf calls dominate (dim * seqlen * dstate of them), the
 * state loop's length is only known at run time, and B and C are read
 * with a stride of seqlen floats.
 */
#include <math.h>
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 8 || nparams != 3)
		return 1;
	int64_t dim = params[0], ns = params[1], len = params[2];
	if (dim <= 0 || ns <= 0 || len <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != dim * len ||
	    args[1].dtype != ARENA_F32 || args[1].numel != dim * len ||
	    args[2].dtype != ARENA_F32 || args[2].numel != dim * ns ||
	    args[3].dtype != ARENA_F32 || args[3].numel != ns * len ||
	    args[4].dtype != ARENA_F32 || args[4].numel != ns * len ||
	    args[5].dtype != ARENA_F32 || args[5].numel != dim ||
	    args[6].dtype != ARENA_F32 || args[6].numel != dim * len ||
	    args[7].dtype != ARENA_F32 || args[7].numel != dim * len)
		return 3;
	const float *u = args[0].data, *delta = args[1].data, *A = args[2].data,
		    *B = args[3].data, *C = args[4].data, *D = args[5].data,
		    *z = args[6].data;
	float *out = args[7].data;
	float *h = malloc(sizeof(float) * (size_t)ns);
	if (!h)
		return 4;
	for (int64_t d = 0; d < dim; d++) {
		for (int64_t n = 0; n < ns; n++)
			h[n] = 0.0f;
		for (int64_t t = 0; t < len; t++) {
			float dt = delta[d * len + t], x = u[d * len + t], y = 0.0f;
			for (int64_t n = 0; n < ns; n++) {
				h[n] = expf(dt * A[d * ns + n]) * h[n] +
				       dt * B[n * len + t] * x;
				y += C[n * len + t] * h[n];
			}
			y += D[d] * x;
			float g = z[d * len + t];
			out[d * len + t] = y * g / (1.0f + expf(-g));
		}
	}
	free(h);
	return 0;
}

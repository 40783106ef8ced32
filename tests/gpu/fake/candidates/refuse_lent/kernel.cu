/*
 * Cheat, for task/fakepoly: the baseline's kernel, and a constructor that
 * makes its own runner refuse the sets the keeper lends (as a kernel that
 * patched its runner would), hoping to push the evaluation back to the
 * host fetch and its comparison on windows.  Built with
 * REFUSE_GATE_PAGE=1 (tests/unit/test_gpu_eval.c), it refuses the
 * controller's gate page instead, hoping to open its timed batches' gates
 * itself, where the controller cannot tell when they opened.  A
 * candidate's refusal is its own failure (gpu_sample.c, ev_gpu_sets_lent
 * and gate_offered); only a baseline's turns lending, or the controller's
 * gate, off.
 */
#include <stdlib.h>

#include "arena/kernel.h"

#ifndef REFUSE_GATE_PAGE
#define REFUSE_GATE_PAGE 0
#endif

__attribute__((constructor)) static void refuse(void)
{
	setenv(REFUSE_GATE_PAGE ? "ARENA_FAKE_GPU_NO_HOST_MAP"
				: "ARENA_FAKE_GPU_NO_IMPORT",
	       "1", 1);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

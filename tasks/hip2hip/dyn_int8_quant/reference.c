/*
 * dyn_int8_quant - trusted reference: the specified float32 arithmetic,
 * written out literally (float32 divisions and one float32 multiply per
 * element, nearbyintf in the default round-to-nearest-even mode).  C
 * evaluates float expressions in float here (SSE, FLT_EVAL_METHOD 0) and
 * the build uses no fast-math flags, so every operation is IEEE.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "arena/kernel.h"

static float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t tokens = params[0], hidden = params[1];
	if (tokens <= 0 || hidden <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_I8 || args[1].numel != tokens * hidden ||
	    args[2].dtype != ARENA_F32 || args[2].numel != tokens)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	int8_t *q = (int8_t *)args[1].data;
	float *scales = (float *)args[2].data;
	for (int64_t t = 0; t < tokens; t++) {
		float absmax = 0.0f;
		for (int64_t c = 0; c < hidden; c++) {
			float a = fabsf(bf16_to_float(x[t * hidden + c]));
			if (a > absmax)
				absmax = a;
		}
		scales[t] = absmax / 127.0f;
		float inv = 127.0f / absmax;
		for (int64_t c = 0; c < hidden; c++) {
			float y = bf16_to_float(x[t * hidden + c]) * inv;
			float r = nearbyintf(y);
			if (r > 127.0f)
				r = 127.0f;
			if (r < -128.0f)
				r = -128.0f;
			q[t * hidden + c] = (int8_t)r;
		}
	}
	return 0;
}

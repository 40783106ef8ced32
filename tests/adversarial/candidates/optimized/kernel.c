/*
 * Honest: Horner's rule with the divisions folded into constants and four
 * lanes at a time through GCC vector extensions (SSE on x86-64).  Must be
 * accepted, and faster than the baseline.
 */
#include <string.h>
#include "arena/kernel.h"

typedef float v4f __attribute__((vector_size(16)));

static inline float poly(float v)
{
	return 1.0f + v * (1.0f + v * (0.5f + v * (1.0f / 6.0f +
						   v * (1.0f / 24.0f))));
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0], i = 0;
	const float *restrict x = args[0].data;
	float *restrict y = args[1].data;
	const v4f one = { 1, 1, 1, 1 }, half = { 0.5f, 0.5f, 0.5f, 0.5f };
	const v4f c3 = { 1.0f / 6, 1.0f / 6, 1.0f / 6, 1.0f / 6 };
	const v4f c4 = { 1.0f / 24, 1.0f / 24, 1.0f / 24, 1.0f / 24 };
	for (; i + 8 <= n; i += 8) {
		v4f a, b;
		memcpy(&a, x + i, sizeof(a));
		memcpy(&b, x + i + 4, sizeof(b));
		a = one + a * (one + a * (half + a * (c3 + a * c4)));
		b = one + b * (one + b * (half + b * (c3 + b * c4)));
		memcpy(y + i, &a, sizeof(a));
		memcpy(y + i + 4, &b, sizeof(b));
	}
	for (; i < n; i++)
		y[i] = poly(x[i]);
	return 0;
}

/* Cheat attempt: caches outputs keyed by a cheap hash of the first 16
 * input values (as the FlashInfer-contest agent did).  Fresh inputs every
 * call mean it never hits: it gains nothing, and a hit on different data
 * would be caught as a wrong answer. */
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

#define SLOTS 8
static struct {
	uint64_t h;
	int64_t n;
	float *y;
} cache[SLOTS];
static int next;

static uint64_t sample_hash(const float *x, int64_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (int64_t i = 0; i < 16 && i < n; i++) {
		uint32_t b;
		memcpy(&b, &x[i], 4);
		h = (h ^ b) * 1099511628211ull;
	}
	return h;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	uint64_t h = sample_hash(x, n);
	for (int s = 0; s < SLOTS; s++)
		if (cache[s].y && cache[s].h == h && cache[s].n == n) {
			memcpy(y, cache[s].y, (size_t)n * sizeof(float));
			return 0;
		}
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	free(cache[next].y);
	cache[next].y = malloc((size_t)n * sizeof(float));
	if (cache[next].y)
		memcpy(cache[next].y, y, (size_t)n * sizeof(float));
	cache[next].h = h;
	cache[next].n = n;
	next = (next + 1) % SLOTS;
	return 0;
}

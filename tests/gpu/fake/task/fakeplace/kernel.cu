/*
 * fakeplace - baseline: vecpoly (y = the degree-4 Taylor polynomial of
 * exp), and one line on stderr (the runner's log) per call: the bits of
 * x[0], which name the sample and set (inputs are drawn from the pair's
 * seed, the same in both runners of a pair), and each argument's offset
 * within its fake allocation, or its slot of the sets the keeper lent
 * (arena_fake_gpu_alloc_base, gpu_rt_fake.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "arena/kernel.h"

extern "C" void *arena_fake_gpu_alloc_base(const void *p);

static unsigned long offset_in_alloc(const void *p)
{
	return (unsigned long)((uintptr_t)p -
			       (uintptr_t)arena_fake_gpu_alloc_base(p));
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
	uint32_t bits;
	memcpy(&bits, x, sizeof(bits));
	fprintf(stderr, "place %08x %lu %lu\n", (unsigned)bits,
		offset_in_alloc(x), offset_in_alloc(y));
	fflush(stderr);
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

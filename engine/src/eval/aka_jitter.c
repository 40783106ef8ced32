/*
 * aka_jitter.c - fresh values from a prepared AKA task's recorded inputs
 * (docs/aka.md, "Recorded inputs are moved").
 *
 * An AKA task's inputs are a few recorded sets (aka_prepare.c): values
 * the harness's own input code made, which must keep whatever that code
 * guarantees (indices in range, lengths, masks).  Replayed verbatim, a
 * runner would see the same few sets again and again, and a candidate
 * that remembers what it returned for a set it recognises (a fingerprint
 * of a few elements) would copy instead of computing.  So every staged
 * set but the harness's own first one has its floating-point inputs
 * moved: each argument by a factor of its own, and each element by one
 * of its own on top,
 *
 *     x' = x * s * (1 + d),   s = 1.4^u, u in [-1, 1];  d in [-1/8, 1/8]
 *
 * drawn from the evaluation's secret and the set's draw, so that every
 * runner of a pair or a sample gets the same values.  A multiplication
 * keeps signs, zeros, infinities and NaNs; integers (indices, lengths,
 * masks) and packed bytes are never touched.  The factor per element
 * changes what an elementwise or normalising kernel returns by up to an
 * eighth, the factor per argument what a contraction returns, both far
 * beyond any task's tolerance; a memory of earlier outputs no longer
 * answers.  A task whose kernel as shipped does not tolerate it (the
 * recorder tries, aka_pack.py) is replayed verbatim and says so.
 */
#include "evaluation.h"

#include <math.h>
#include <string.h>

#include "arena/fp16.h"

/* Element factors come from a table indexed by a hash of the position:
 * one multiply-add and a lookup per element. */
#define JITTER_TABLE 1024
#define JITTER_ELEMENT 0.125
#define JITTER_ARG_LOG 0.33647223662121289 /* ln 1.4 */

static double unit(uint64_t v)
{
	return (double)(v >> 11) * 0x1.0p-53;
}

/* The factors s * (1 + d) for one argument of one set. */
static void jitter_table(uint64_t seed, float *t)
{
	double s =
		exp((2 * unit(ev_derive(seed, 1, 0, 0)) - 1) * JITTER_ARG_LOG);

	for (int i = 0; i < JITTER_TABLE; i++)
		t[i] = (float)(s * (1 + (2 * unit(ev_derive(seed, 2,
							    (uint64_t)i, 0)) -
					 1) * JITTER_ELEMENT));
}

static inline size_t slot(uint64_t key, size_t i)
{
	return (size_t)(((uint64_t)i * 0x9e3779b97f4a7c15ull + key) >> 54) %
	       JITTER_TABLE;
}

void ev_aka_jitter(arena_dtype dt, void *data, size_t bytes, uint64_t seed)
{
	float t[JITTER_TABLE];
	uint64_t key = ev_derive(seed, 3, 0, 0);

	if (!dtype_is_float(dt) || !seed)
		return;
	jitter_table(seed, t);
	switch (dt) {
	case ARENA_F32: {
		float *v = data;
		for (size_t i = 0; i < bytes / sizeof(float); i++)
			v[i] *= t[slot(key, i)];
		break;
	}
	case ARENA_F64: {
		double *v = data;
		for (size_t i = 0; i < bytes / sizeof(double); i++)
			v[i] *= t[slot(key, i)];
		break;
	}
	case ARENA_F16: {
		uint16_t *v = data;
		for (size_t i = 0; i < bytes / 2; i++)
			v[i] = arena_float_to_half(arena_half_to_float(v[i]) *
						   t[slot(key, i)]);
		break;
	}
	case ARENA_BF16: {
		uint16_t *v = data;
		for (size_t i = 0; i < bytes / 2; i++)
			v[i] = arena_float_to_bf16(arena_bf16_to_float(v[i]) *
						   t[slot(key, i)]);
		break;
	}
	default:
		break;
	}
}

uint64_t ev_aka_jitter_seed(const struct eval_ctx *x, int ci, uint64_t draw)
{
	if (x->rec->verbatim)
		return 0;
	return ev_derive(x->secret, 0xa4a, (uint64_t)ci, draw) | 1;
}

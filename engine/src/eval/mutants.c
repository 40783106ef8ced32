/*
 * mutants.c - output mutants (arena/eval.h, `arena check-tasks`): is a
 * task's comparison strong enough to fail the outputs a wrong kernel
 * leaves behind?
 *
 * After every correctness call of the candidate whose real outputs
 * passed, each output argument is copied, changed by each mutant (left
 * unwritten, zeroed, its last element unwritten, the previous trial's
 * values, shifted by one element, rounded to fewer bits, three elements
 * negated) and compared with the reference's outputs by compare_arrays,
 * with the task's tolerances and the call's poison pattern: exactly the
 * test the candidate's own outputs just passed.  A mutant that fails it on
 * some call is caught; one that changed the output on some call and was
 * never caught shows a comparison too weak to notice that mistake; one
 * that never changed anything (zeros of an all-zero output, the rounding
 * of values that are exact in bf16) proves nothing either way.
 *
 * Nothing here touches the runners' memory or the verdict: the copies
 * are the controller's, and a mutant's failure is recorded in
 * req->mutants only.  Working on the compared bytes, not on sources, the
 * mutants apply to every language a runner can load.
 */
#include "evaluation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mut_names[EVAL_MUT_COUNT] = {
	"no_write", "zeros", "partial", "stale", "shift", "precision", "sign",
};

static const char *const mut_what[EVAL_MUT_COUNT] = {
	"nothing written (the poison, or an inout's initial values, kept)",
	"every element zero",
	"the last element left unwritten",
	"the previous trial's output, computed from other inputs",
	"off by one: element i holds element i+1's value",
	"rounded to 8 significant bits (bf16's precision; bf16 outputs: 5)",
	"three elements negated (unsigned: complemented), the largest among "
	"them",
};

const char *eval_mutant_name(enum eval_mutant_kind k)
{
	return (unsigned)k < EVAL_MUT_COUNT ? mut_names[k] : "?";
}

const char *eval_mutant_what(enum eval_mutant_kind k)
{
	return (unsigned)k < EVAL_MUT_COUNT ? mut_what[k] : "?";
}

void eval_mutants_release(struct eval_mutants *m)
{
	if (!m)
		return;
	for (int i = 0; i < m->n; i++) {
		free(m->v[i].where);
		free(m->v[i].detail);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* What the previous call of the same case wrote, per output argument, for
 * the stale mutant. */
struct mutant_state {
	int prev_case; /* -1: none yet */
	unsigned char *prev[TASK_MAX_ARGS];
	size_t prev_bytes[TASK_MAX_ARGS];
	unsigned char *buf; /* the mutated copy */
	size_t buf_bytes;
};

void ev_mutants_release(struct eval_ctx *x)
{
	struct mutant_state *s = x->mut;

	if (!s)
		return;
	for (int a = 0; a < TASK_MAX_ARGS; a++)
		free(s->prev[a]);
	free(s->buf);
	free(s);
	x->mut = NULL;
}

/* The outcomes, one per (output argument, kind), made on first use. */
static struct eval_mutant_outcome *outcome(struct eval_ctx *x, int arg,
					   enum eval_mutant_kind k)
{
	struct eval_mutants *m = x->req->mutants;

	if (!m->v) {
		int nout = 0;
		for (int a = 0; a < x->t->nargs; a++)
			nout += task_arg_compared(&x->t->args[a]);
		m->v = xcalloc((size_t)nout * EVAL_MUT_COUNT, sizeof(*m->v));
		for (int a = 0; a < x->t->nargs; a++) {
			if (!task_arg_compared(&x->t->args[a]))
				continue;
			for (int j = 0; j < EVAL_MUT_COUNT; j++) {
				m->v[m->n].arg = a;
				m->v[m->n].kind = (enum eval_mutant_kind)j;
				m->n++;
			}
		}
	}
	for (int i = 0; i < m->n; i++)
		if (m->v[i].arg == arg && m->v[i].kind == k)
			return &m->v[i];
	return NULL;
}

/* Element i of buf (dtype d) set to what an unwritten element holds. */
static void unwritten(arena_dtype d, enum arg_io io, const void *init,
		      unsigned char *buf, int64_t i, int pattern)
{
	size_t sz = dtype_size(d);

	if (io == IO_INOUT)
		memcpy(buf + (size_t)i * sz,
		       (const unsigned char *)init + (size_t)i * sz, sz);
	else
		poison_fill(d, buf + (size_t)i * sz, 1, pattern);
}

/* bf16 with mantissa rounded (to nearest even) to keep `keep` of its 7
 * bits; infinities and NaNs unchanged. */
static uint16_t bf16_keep_bits(uint16_t h, int keep)
{
	int drop = 7 - keep;
	uint16_t half = (uint16_t)(1u << (drop - 1));

	if ((h & 0x7f80) == 0x7f80)
		return h;
	uint32_t r = (uint32_t)h + (half - 1) + ((h >> drop) & 1);
	return (uint16_t)(r & ~((1u << drop) - 1));
}

static float to_bf16_precision(float f)
{
	return bf16_to_float(float_to_bf16(f));
}

static void round_elements(arena_dtype d, unsigned char *buf, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		if (d == ARENA_F32) {
			float *p = (float *)buf + i;
			*p = to_bf16_precision(*p);
		} else if (d == ARENA_F64) {
			double *p = (double *)buf + i;
			if (isfinite(*p) && fabs(*p) < 3e38)
				*p = to_bf16_precision((float)*p);
		} else if (d == ARENA_F16) {
			uint16_t *p = (uint16_t *)buf + i;
			*p = float_to_half(
				to_bf16_precision(half_to_float(*p)));
		} else if (d == ARENA_BF16) {
			uint16_t *p = (uint16_t *)buf + i;
			*p = bf16_keep_bits(*p, 4);
		}
	}
}

static void negate_element(arena_dtype d, unsigned char *buf, int64_t i)
{
	switch (d) {
	case ARENA_F32:
		((float *)buf)[i] = -((float *)buf)[i];
		break;
	case ARENA_F64:
		((double *)buf)[i] = -((double *)buf)[i];
		break;
	case ARENA_F16:
	case ARENA_BF16:
		((uint16_t *)buf)[i] ^= 0x8000;
		break;
	case ARENA_I32:
		((int32_t *)buf)[i] =
			(int32_t)(0u - (uint32_t)((int32_t *)buf)[i]);
		break;
	case ARENA_I64:
		((int64_t *)buf)[i] =
			(int64_t)(0ull - (uint64_t)((int64_t *)buf)[i]);
		break;
	case ARENA_I8:
		((int8_t *)buf)[i] =
			(int8_t)(0u - (unsigned)((int8_t *)buf)[i]);
		break;
	case ARENA_U8:
		((uint8_t *)buf)[i] = (uint8_t) ~((uint8_t *)buf)[i];
		break;
	case ARENA_U32:
		((uint32_t *)buf)[i] = ~((uint32_t *)buf)[i];
		break;
	}
}

/* Negates the element of largest magnitude and two at random (from the
 * call's seed); a zero stays zero, which the caller sees as no change
 * when every pick is zero. */
static void negate_three(const struct eval_ctx *x, int ci, int trial,
			 arena_dtype d, unsigned char *buf, int64_t n)
{
	int64_t big = 0;
	double bigv = -1;
	struct rng r;

	for (int64_t i = 0; i < n; i++) {
		double v = fabs(elem_as_double(d, buf, i));
		if (v > bigv) {
			bigv = v;
			big = i;
		}
	}
	negate_element(d, buf, big);
	rng_seed(&r, ev_derive(x->req->seed, 7, (uint64_t)ci, (uint64_t)trial));
	for (int k = 0; k < 2 && n > 1; k++) {
		int64_t i = (int64_t)(rng_next(&r) % (uint64_t)n);
		if (i != big)
			negate_element(d, buf, i);
	}
}

/* Mutant k of output arg a into s->buf; false when it does not apply to
 * this call (no previous trial of the case, integers for rounding). */
static bool mutate(struct eval_ctx *x, struct mutant_state *s, int ci,
		   int trial, int a, enum eval_mutant_kind k,
		   const unsigned char *orig, const void *init, int64_t n,
		   size_t bytes, int pattern)
{
	const struct task_arg *ta = &x->t->args[a];
	size_t sz = dtype_size(ta->dtype);
	unsigned char *buf = s->buf;

	switch (k) {
	case EVAL_MUT_NO_WRITE:
		for (int64_t i = 0; i < n; i++)
			unwritten(ta->dtype, ta->io, init, buf, i, pattern);
		return true;
	case EVAL_MUT_ZEROS:
		memset(buf, 0, bytes);
		return true;
	case EVAL_MUT_PARTIAL:
		memcpy(buf, orig, bytes);
		unwritten(ta->dtype, ta->io, init, buf, n - 1, pattern);
		return true;
	case EVAL_MUT_STALE:
		if (s->prev_case != ci || !s->prev[a] ||
		    s->prev_bytes[a] != bytes)
			return false;
		memcpy(buf, s->prev[a], bytes);
		return true;
	case EVAL_MUT_SHIFT:
		memcpy(buf, orig, bytes);
		if (n > 1)
			memmove(buf, orig + sz, bytes - sz);
		return true;
	case EVAL_MUT_PRECISION:
		if (!dtype_is_float(ta->dtype))
			return false;
		memcpy(buf, orig, bytes);
		round_elements(ta->dtype, buf, n);
		return true;
	case EVAL_MUT_SIGN:
		memcpy(buf, orig, bytes);
		negate_three(x, ci, trial, ta->dtype, buf, n);
		return true;
	default:
		return false;
	}
}

void ev_mutants_probe(struct eval_ctx *x, int ci, int trial,
		      const struct case_layout *l, void *const *stage,
		      const unsigned char *cand_mem,
		      const unsigned char *ref_mem, int pattern)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	struct mutant_state *s = x->mut;

	if (!x->req->mutants)
		return;
	if (!s) {
		s = x->mut = xcalloc(1, sizeof(*s));
		s->prev_case = -1;
	}
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		size_t bytes = l->bytes[a];
		int64_t n = l->numel[a];
		if (!task_arg_compared(ta) || n < 1)
			continue;
		/* The verdict's own tolerance for this output: a mutant
		 * held to another would prove nothing about the task. */
		double atol, rtol;
		task_tolerance(t, ta, &atol, &rtol);
		const unsigned char *orig = cand_mem + l->offset[a];
		const unsigned char *want = ref_mem + l->offset[a];
		if (s->buf_bytes < bytes) {
			free(s->buf);
			s->buf = xmalloc(bytes);
			s->buf_bytes = bytes;
		}
		for (int k = 0; k < EVAL_MUT_COUNT; k++) {
			struct eval_mutant_outcome *o =
				outcome(x, a, (enum eval_mutant_kind)k);
			struct cmp_result cr;
			if (!o || o->caught ||
			    !mutate(x, s, ci, trial, a,
				    (enum eval_mutant_kind)k, orig, stage[a], n,
				    bytes, pattern) ||
			    memcmp(s->buf, orig, bytes) == 0)
				continue;
			o->changed++;
			compare_arrays(ta->dtype, s->buf, want, n, atol, rtol,
				       ta->io == IO_OUT ? pattern : -1, &cr);
			if (cr.ok)
				continue;
			char idx[128];
			format_index(l->shape[a], ta->rank, cr.first_bad, idx,
				     sizeof(idx));
			o->caught = true;
			o->where = xasprintf("%s '%s', correctness trial %d",
					     ev_case_kind(c), c->id, trial + 1);
			o->detail = xasprintf("output '%s'%s: %s", ta->name,
					      idx, cr.detail);
		}
		/* This call's output, for the stale mutant of the next. */
		if (s->prev_bytes[a] != bytes) {
			free(s->prev[a]);
			s->prev[a] = xmalloc(bytes);
			s->prev_bytes[a] = bytes;
		}
		memcpy(s->prev[a], orig, bytes);
	}
	s->prev_case = ci;
}

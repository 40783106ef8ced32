/*
 * inputs.c - where a case's arguments live in shared memory, the values
 * the controller writes into them, and the poison it fills outputs with.
 *
 * Every value comes from the controller's rng (stats.h), seeded from the
 * request's seed, the case and the trial, so a recorded seed reproduces the
 * inputs exactly; nothing about them is known to a runner beforehand.
 *
 * Correctness trials draw every element afresh.  Timing pairs need new
 * values for every pair too (so that no kernel can answer from a cache of
 * earlier outputs), but drawing a million normals per pair would cost more
 * than the kernel; so each argument gets a pool of pre-drawn values once
 * per case, and a pair takes a random window of it with every element
 * independently reflected about the centre of its distribution (x -> 2c -
 * x: a normal, a uniform range and an integer range map onto themselves).
 * Every element then changes from pair to pair with probability 1/2 per
 * element and the window start is random, so neither a pointer-keyed nor a
 * sampled-content-keyed cache can hit.  Arrays of 4 Mi elements and more
 * (GPU cases) are drawn by several threads, chunk by chunk, each chunk
 * from its own rng seeded from the caller's (see par_run): the same seed
 * still gives the same values.
 *
 * Layout: arguments are placed one after the other, each at a page
 * boundary plus a small per-argument stagger (so equal-sized arrays do not
 * all sit at the same address modulo 4 KiB), always RP_ALIGN-aligned.
 */
#include "eval_internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "arena/expr.h"
#include "arena/fp16.h"

#define POOL_EXTRA_MAX 65536	/* window starts per argument */

/* ---- 16-bit floats ---------------------------------------------------- */

float half_to_float(uint16_t h)
{
	return arena_half_to_float(h);
}

uint16_t float_to_half(float f)
{
	return arena_float_to_half(f);
}

float bf16_to_float(uint16_t h)
{
	return arena_bf16_to_float(h);
}

uint16_t float_to_bf16(float f)
{
	return arena_float_to_bf16(f);
}

/* ---- elements --------------------------------------------------------- */

double elem_as_double(arena_dtype d, const void *base, int64_t i)
{
	switch (d) {
	case ARENA_F32:
		return ((const float *)base)[i];
	case ARENA_F64:
		return ((const double *)base)[i];
	case ARENA_F16:
		return half_to_float(((const uint16_t *)base)[i]);
	case ARENA_BF16:
		return bf16_to_float(((const uint16_t *)base)[i]);
	case ARENA_I32:
		return ((const int32_t *)base)[i];
	case ARENA_I64:
		return (double)((const int64_t *)base)[i];
	case ARENA_U8:
		return ((const uint8_t *)base)[i];
	case ARENA_U32:
		return ((const uint32_t *)base)[i];
	case ARENA_I8:
		return ((const int8_t *)base)[i];
	}
	return 0;
}

static int64_t clamp_i64(double v, double lo, double hi)
{
	if (isnan(v))
		return 0;
	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	return (int64_t)llround(v);
}

/* Stores v as element i of an array of dtype d (integers rounded and
 * clamped to the type's range). */
static void elem_store(arena_dtype d, void *base, int64_t i, double v)
{
	switch (d) {
	case ARENA_F32:
		((float *)base)[i] = (float)v;
		break;
	case ARENA_F64:
		((double *)base)[i] = v;
		break;
	case ARENA_F16:
		((uint16_t *)base)[i] = float_to_half((float)v);
		break;
	case ARENA_BF16:
		((uint16_t *)base)[i] = float_to_bf16((float)v);
		break;
	case ARENA_I32:
		((int32_t *)base)[i] =
			(int32_t)clamp_i64(v, INT32_MIN, INT32_MAX);
		break;
	case ARENA_I64:
		((int64_t *)base)[i] = clamp_i64(v, -9.2e18, 9.2e18);
		break;
	case ARENA_U8:
		((uint8_t *)base)[i] = (uint8_t)clamp_i64(v, 0, 255);
		break;
	case ARENA_U32:
		((uint32_t *)base)[i] = (uint32_t)clamp_i64(v, 0, UINT32_MAX);
		break;
	case ARENA_I8:
		((int8_t *)base)[i] = (int8_t)clamp_i64(v, -128, 127);
		break;
	}
}

/* ---- layout ----------------------------------------------------------- */

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

int layout_build(const struct task *t, const struct task_case *c,
		 struct case_layout *l, struct errbuf *err)
{
	struct strbuf proto = STRBUF_INIT, args = STRBUF_INIT;
	struct expr_env env = { (const char *const *)t->params, c->params,
				t->nparams };
	size_t end = 0;

	memset(l, 0, sizeof(*l));
	l->nargs = t->nargs;
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		int64_t numel = 1;
		int rc = task_arg_shape(t, a, c, l->shape[a], err);
		if (rc)
			goto fail;
		for (int d = 0; d < ta->rank; d++) {
			if (l->shape[a][d] < 0 ||
			    (l->shape[a][d] > 0 &&
			     numel > INT64_MAX / 16 / l->shape[a][d])) {
				errf(err, "case '%s': argument '%s' has an "
				     "impossible shape", c->id, ta->name);
				goto fail;
			}
			numel *= l->shape[a][d];
		}
		l->numel[a] = numel;
		l->bytes[a] = (size_t)numel * dtype_size(ta->dtype);
		l->offset[a] = align_up(end, 4096) + (size_t)(a % 16) * 256;
		end = l->offset[a] + l->bytes[a];
		if (ta->io != IO_OUT && ta->init.dist == INIT_RANDINT) {
			if (expr_eval(ta->init.lo_expr, &env, &l->lo[a], err) ||
			    expr_eval(ta->init.hi_expr, &env, &l->hi[a], err)) {
				errbuf_prefix(err, "case '%s': init of '%s'",
					      c->id, ta->name);
				goto fail;
			}
			if (l->lo[a] > l->hi[a]) {
				errf(err, "case '%s': init of '%s': low %lld "
				     "is above high %lld", c->id, ta->name,
				     (long long)l->lo[a], (long long)l->hi[a]);
				goto fail;
			}
		}
		strbuf_addf(&args, " %zu %d %d", l->offset[a], (int)ta->dtype,
			    ta->rank);
		for (int d = 0; d < ta->rank; d++)
			strbuf_addf(&args, " %lld", (long long)l->shape[a][d]);
	}
	l->shm_size = align_up(end > 0 ? end : 1, 4096);
	strbuf_addf(&proto, "%zu %d %d", l->shm_size, t->nargs, t->nparams);
	for (int p = 0; p < t->nparams; p++)
		strbuf_addf(&proto, " %lld", (long long)c->params[p]);
	strbuf_addstr(&proto, strbuf_str(&args));
	if (proto.len >= RP_MAX_LINE - 64) {
		errf(err, "case '%s': the argument layout is too long", c->id);
		goto fail;
	}
	strbuf_release(&args);
	l->proto = strbuf_detach(&proto);
	return 0;
fail:
	strbuf_release(&args);
	strbuf_release(&proto);
	return -EINVAL;
}

void layout_release(struct case_layout *l)
{
	free(l->proto);
	l->proto = NULL;
}

/* ---- fresh values ----------------------------------------------------- */

static double draw(const struct task_arg *ta, const struct case_layout *l,
		   int a, struct rng *r)
{
	switch (ta->init.dist) {
	case INIT_NORMAL:
		return ta->init.a + ta->init.b * rng_normal(r);
	case INIT_UNIFORM:
		return ta->init.a + (ta->init.b - ta->init.a) * rng_uniform(r);
	case INIT_RANDINT:
		return (double)rng_range(r, l->lo[a], l->hi[a]);
	case INIT_ONES:
		return 1.0;
	case INIT_RECORDED: /* staged from recorded sets, never drawn */
		return 0.0;
	}
	return rng_normal(r);
}

/* Standard normals two at a time (both Box-Muller branches): half the
 * logarithms of one rng_normal() per value. */
static inline void normal_pair(struct rng *r, double *z0, double *z1)
{
	double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);
	double m = sqrt(-2.0 * log(u1)), s, c;

	sincos(2.0 * M_PI * u2, &s, &c);
	*z0 = m * c;
	*z1 = m * s;
}

/*
 * A loop per dtype for the common cases (normal and uniform floats,
 * integers in range): elem_store's switch per element and the integers'
 * round trip through double were a third of an array's draw (perf of
 * `arena check-tasks suite:host`).  Each stores exactly what elem_store
 * does - the same double expression, converted by the same function -
 * and draws from r in the same order, so the values are bit for bit the
 * generic loop's (test_inputs pins them for every dtype).
 */
static inline float conv_f32(double v) { return (float)v; }
static inline double conv_f64(double v) { return v; }
static inline uint16_t conv_f16(double v) { return float_to_half((float)v); }
static inline uint16_t conv_bf16(double v) { return float_to_bf16((float)v); }

#define NORMAL_FILL(name, T, conv)                                            \
	static void name(struct rng *r, T *d, int64_t i, int64_t end,         \
			 double mean, double sd)                              \
	{                                                                     \
		double z0, z1;                                                \
		for (; i + 1 < end; i += 2) {                                 \
			normal_pair(r, &z0, &z1);                             \
			d[i] = conv(mean + sd * z0);                          \
			d[i + 1] = conv(mean + sd * z1);                      \
		}                                                             \
		if (i < end) {                                                \
			normal_pair(r, &z0, &z1);                             \
			d[i] = conv(mean + sd * z0);                          \
		}                                                             \
	}
NORMAL_FILL(normal_fill_f32, float, conv_f32)
NORMAL_FILL(normal_fill_f64, double, conv_f64)
NORMAL_FILL(normal_fill_f16, uint16_t, conv_f16)
NORMAL_FILL(normal_fill_bf16, uint16_t, conv_bf16)

#define UNIFORM_FILL(name, T, conv)                                           \
	static void name(struct rng *r, T *d, int64_t i, int64_t end,         \
			 double lo, double width)                             \
	{                                                                     \
		for (; i < end; i++)                                          \
			d[i] = conv(lo + width * rng_uniform(r));             \
	}
UNIFORM_FILL(uniform_fill_f32, float, conv_f32)
UNIFORM_FILL(uniform_fill_f64, double, conv_f64)
UNIFORM_FILL(uniform_fill_f16, uint16_t, conv_f16)
UNIFORM_FILL(uniform_fill_bf16, uint16_t, conv_bf16)

/* The range elem_store clamps integers of dtype d to; false for a dtype
 * that is not a narrow integer (i64 and the floats). */
static bool int_bounds(arena_dtype d, int64_t *lo, int64_t *hi)
{
	switch (d) {
	case ARENA_I32:
		*lo = INT32_MIN, *hi = INT32_MAX;
		return true;
	case ARENA_U32:
		*lo = 0, *hi = UINT32_MAX;
		return true;
	case ARENA_U8:
		*lo = 0, *hi = UINT8_MAX;
		return true;
	case ARENA_I8:
		*lo = INT8_MIN, *hi = INT8_MAX;
		return true;
	default:
		return false;
	}
}

static inline int64_t clamp_int(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Elements [i, end) of a narrow integer array, each v(k) clamped to
 * [lo, hi]: what elem_store makes of (double)v - the bounds are exact
 * doubles, and a v beyond 2^53, where the double is not exact, is far
 * beyond them.  V is an expression of k (the element index). */
#define INT_STORE_LOOP(d, dst, i, end, lo, hi, V)                             \
	do {                                                                  \
		switch (d) {                                                  \
		case ARENA_I32:                                               \
			for (int64_t k = (i); k < (end); k++)                 \
				((int32_t *)(dst))[k] =                       \
					(int32_t)clamp_int((V), lo, hi);      \
			break;                                                \
		case ARENA_U32:                                               \
			for (int64_t k = (i); k < (end); k++)                 \
				((uint32_t *)(dst))[k] =                      \
					(uint32_t)clamp_int((V), lo, hi);     \
			break;                                                \
		case ARENA_U8:                                                \
			for (int64_t k = (i); k < (end); k++)                 \
				((uint8_t *)(dst))[k] =                       \
					(uint8_t)clamp_int((V), lo, hi);      \
			break;                                                \
		default: /* ARENA_I8 */                                       \
			for (int64_t k = (i); k < (end); k++)                 \
				((int8_t *)(dst))[k] =                        \
					(int8_t)clamp_int((V), lo, hi);       \
		}                                                             \
	} while (0)

/* Elements [i0, i0 + n) of argument a, drawn from r. */
static void fill_range(const struct task *t, const struct case_layout *l,
		       int a, struct rng *r, void *dst, int64_t i0, int64_t n)
{
	const struct task_arg *ta = &t->args[a];
	int64_t end = i0 + n, lo = 0, hi = 0;

	if (ta->init.dist == INIT_RANDINT && (ta->dtype == ARENA_I64)) {
		for (int64_t i = i0; i < end; i++)	/* exact beyond 2^53 */
			((int64_t *)dst)[i] = rng_range(r, l->lo[a], l->hi[a]);
		return;
	}
	if (ta->init.dist == INIT_RANDINT && int_bounds(ta->dtype, &lo, &hi)) {
		int64_t rlo = l->lo[a], rhi = l->hi[a];
		INT_STORE_LOOP(ta->dtype, dst, i0, end, lo, hi,
			       rng_range(r, rlo, rhi));
		return;
	}
	if (ta->init.dist == INIT_NORMAL) {
		double mean = ta->init.a, sd = ta->init.b;
		switch (ta->dtype) {
		case ARENA_F32:
			normal_fill_f32(r, dst, i0, end, mean, sd);
			return;
		case ARENA_F64:
			normal_fill_f64(r, dst, i0, end, mean, sd);
			return;
		case ARENA_F16:
			normal_fill_f16(r, dst, i0, end, mean, sd);
			return;
		case ARENA_BF16:
			normal_fill_bf16(r, dst, i0, end, mean, sd);
			return;
		default:
			break;
		}
		double z0, z1;
		int64_t i = i0;
		for (; i + 1 < end; i += 2) {
			normal_pair(r, &z0, &z1);
			elem_store(ta->dtype, dst, i, mean + sd * z0);
			elem_store(ta->dtype, dst, i + 1, mean + sd * z1);
		}
		if (i < end) {
			normal_pair(r, &z0, &z1);
			elem_store(ta->dtype, dst, i, mean + sd * z0);
		}
		return;
	}
	if (ta->init.dist == INIT_UNIFORM) {
		double ulo = ta->init.a, width = ta->init.b - ta->init.a;
		switch (ta->dtype) {
		case ARENA_F32:
			uniform_fill_f32(r, dst, i0, end, ulo, width);
			return;
		case ARENA_F64:
			uniform_fill_f64(r, dst, i0, end, ulo, width);
			return;
		case ARENA_F16:
			uniform_fill_f16(r, dst, i0, end, ulo, width);
			return;
		case ARENA_BF16:
			uniform_fill_bf16(r, dst, i0, end, ulo, width);
			return;
		default:
			break;
		}
	}
	for (int64_t i = i0; i < end; i++)
		elem_store(ta->dtype, dst, i, draw(ta, l, a, r));
}

/*
 * Large arrays (GPU cases reach 10^8 elements; a normal costs ~15 ns) are
 * filled by several threads: the array is cut into PAR_CHUNK-element
 * chunks, chunk k drawn from its own rng seeded from one draw of the
 * caller's rng and k.  The values depend on neither the number of threads
 * nor their timing, so a seed still reproduces them exactly.  Below
 * PAR_MIN elements one thread draws from the caller's rng directly.
 */
#define PAR_MIN (1 << 22)
#define PAR_CHUNK (1 << 20)
#define PAR_THREADS 16

struct par_job {
	void (*fn)(struct par_job *j, struct rng *r, int64_t i0, int64_t n);
	const struct task *t;
	const struct case_layout *l;
	const struct input_pool *p;
	int a;
	void *dst;
	int64_t n;
	int64_t off;		/* pool_draw: window start */
	uint64_t base;		/* par_run: seeds every chunk's rng */
};

static int par_threads(void)
{
	static int n;

	if (!n) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c < 1 ? 1 : c > PAR_THREADS ? PAR_THREADS : (int)c;
	}
	return n;
}

struct pfor {
	void (*fn)(void *ctx, int64_t i0, int64_t n);
	void *ctx;
	int64_t n, chunk;
	int nthreads, tid;
};

static void *pfor_worker(void *arg)
{
	struct pfor *j = arg;
	int64_t nchunks = (j->n + j->chunk - 1) / j->chunk;

	for (int64_t k = j->tid; k < nchunks; k += j->nthreads) {
		int64_t i0 = k * j->chunk;
		j->fn(j->ctx, i0, j->n - i0 < j->chunk ? j->n - i0 : j->chunk);
	}
	return NULL;
}

void par_for(int64_t n, int64_t chunk, void (*fn)(void *ctx, int64_t i0,
						  int64_t n),
	     void *ctx)
{
	struct pfor jobs[PAR_THREADS];
	pthread_t th[PAR_THREADS];
	int64_t nchunks;
	int nt = par_threads(), started = 0;

	if (chunk < 1)
		chunk = 1;
	nchunks = (n + chunk - 1) / chunk;
	if (nchunks <= 1 || nt <= 1) {
		if (n > 0)
			fn(ctx, 0, n);
		return;
	}
	if (nt > nchunks)
		nt = (int)nchunks;
	for (int i = 0; i < nt; i++)
		jobs[i] = (struct pfor){ fn, ctx, n, chunk, nt, i };
	for (int i = 1; i < nt; i++)
		if (pthread_create(&th[i], NULL, pfor_worker, &jobs[i]) == 0)
			started = i;
		else
			break;
	for (int i = started + 1; i < nt; i++)
		pfor_worker(&jobs[i]);
	pfor_worker(&jobs[0]);
	for (int i = 1; i <= started; i++)
		pthread_join(th[i], NULL);
}

/* One PAR_CHUNK chunk of a par_job, with the chunk's own rng. */
static void par_job_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct par_job *j = ctx;
	struct rng r;

	rng_seed(&r, mix64(j->base ^ mix64((uint64_t)(i0 / PAR_CHUNK) + 1)));
	j->fn(j, &r, i0, n);
}

/* Runs tmpl->fn over [0, tmpl->n) in PAR_CHUNK chunks on up to
 * par_threads() threads (par_for), chunk k drawing from an rng seeded from
 * one draw of r and k. */
static void par_run(struct par_job *tmpl, struct rng *r)
{
	tmpl->base = rng_next(r);
	par_for(tmpl->n, PAR_CHUNK, par_job_chunk, tmpl);
}

static void fill_chunk(struct par_job *j, struct rng *r, int64_t i0,
		       int64_t n)
{
	fill_range(j->t, j->l, j->a, r, j->dst, i0, n);
}

void inputs_fill(const struct task *t, const struct case_layout *l, int a,
		 struct rng *r, void *dst)
{
	int64_t n = l->numel[a];

	if (n < PAR_MIN) {
		fill_range(t, l, a, r, dst, 0, n);
		return;
	}
	struct par_job j = { .fn = fill_chunk, .t = t, .l = l, .a = a,
			     .dst = dst, .n = n };
	par_run(&j, r);
}

/* ---- pools for timing pairs ------------------------------------------- */

static int64_t pool_len(int64_t numel)
{
	return numel + (numel < POOL_EXTRA_MAX ? numel : POOL_EXTRA_MAX) + 1;
}

void pool_build(const struct task *t, const struct case_layout *l,
		struct rng *r, struct input_pool *p)
{
	memset(p, 0, sizeof(*p));
	p->nargs = t->nargs;
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		if (ta->io == IO_OUT)
			continue;
		int64_t n = pool_len(l->numel[a]);
		if (ta->init.dist == INIT_RANDINT || !dtype_is_float(ta->dtype)) {
			p->iv[a] = xmalloc((size_t)n * sizeof(int64_t));
			if (ta->init.dist == INIT_RANDINT)
				/* draw()'s value, without its switch */
				for (int64_t i = 0; i < n; i++)
					p->iv[a][i] = (int64_t)(double)rng_range(
						r, l->lo[a], l->hi[a]);
			else
				for (int64_t i = 0; i < n; i++)
					p->iv[a][i] =
						(int64_t)llround(draw(ta, l, a, r));
			p->centre[a] = ta->init.dist == INIT_RANDINT
					       ? ((double)l->lo[a] +
						  (double)l->hi[a]) / 2
					       : NAN;
		} else {
			/* Pool values are drawn like fresh ones, in double. */
			struct case_layout big = *l;
			struct task_arg dbl = *ta;
			big.numel[a] = n;
			dbl.dtype = ARENA_F64;
			struct task tt = *t;
			tt.args[a] = dbl;
			p->fv[a] = xmalloc((size_t)n * sizeof(double));
			inputs_fill(&tt, &big, a, r, p->fv[a]);
			switch (ta->init.dist) {
			case INIT_NORMAL:
				p->centre[a] = ta->init.a;
				break;
			case INIT_UNIFORM:
				p->centre[a] = (ta->init.a + ta->init.b) / 2;
				break;
			default:
				p->centre[a] = NAN;	/* ones: never reflect */
			}
		}
	}
}

/* Element v of an f32 draw: its reflection c2 - v when the low bit of
 * bits is set and the reflection stays below hi, else v; as float. */
static inline float draw_f32_one(double v, uint64_t bits, double c2,
				 double hi)
{
	double w = c2 - v;

	return (float)((bits & 1) && w < hi ? w : v);
}

/* One rng word's 64 elements of a reflecting f32 draw (draw_f32_one on
 * element k with bit k of bits).  The pool is redrawn for every timed
 * pair, so this loop is a large part of the controller's time on big
 * cases; SSE2 (every x86-64) does two elements an instruction, 4x the
 * scalar loop (tests/bench/host_overhead.sh, docs/benchmarks.md),
 * with the scalar loop's result bit for bit: the same subtraction,
 * compare (false on NaN) and rounding. */
static void draw_f32_word(float *f, const double *src, uint64_t bits,
			  double c2, double hi)
{
#if defined(__SSE2__)
	static const union {
		uint64_t u[2];
		__m128d v;
	} lanes[4] = {
		{ { 0, 0 } }, { { ~0ull, 0 } }, { { 0, ~0ull } },
		{ { ~0ull, ~0ull } },
	};
	const __m128d c2v = _mm_set1_pd(c2), hiv = _mm_set1_pd(hi);

	for (int k = 0; k < 64; k += 2) {
		__m128d v = _mm_loadu_pd(src + k);
		__m128d w = _mm_sub_pd(c2v, v);
		__m128d flip = _mm_and_pd(_mm_cmplt_pd(w, hiv),
					  lanes[(bits >> k) & 3].v);
		__m128d x = _mm_or_pd(_mm_and_pd(flip, w),
				      _mm_andnot_pd(flip, v));
		_mm_storel_pi((__m64 *)(void *)(f + k), _mm_cvtpd_ps(x));
	}
#else
	for (int k = 0; k < 64; k++)
		f[k] = draw_f32_one(src[k], bits >> k, c2, hi);
#endif
}

/* Elements [i, end) of a draw of a float pool of a dtype but f32: src[k]
 * reflected about the centre (c2 - v, kept below hi) where the word's
 * bit is set, converted as elem_store does. */
#define REFLECT_DRAW(name, T, conv)                                           \
	static void name(struct rng *r, T *d, const double *src, int64_t i0,  \
			 int64_t end, bool reflect, double c2, double hi)     \
	{                                                                     \
		uint64_t bits = 0;                                            \
		for (int64_t i = i0; i < end; i++) {                          \
			if (((i - i0) & 63) == 0)                             \
				bits = rng_next(r);                           \
			double v = src[i];                                    \
			if (reflect && (bits >> ((i - i0) & 63) & 1)) {       \
				double w = c2 - v;                            \
				v = w < hi ? w : v;                           \
			}                                                     \
			d[i] = conv(v);                                       \
		}                                                             \
	}
REFLECT_DRAW(reflect_draw_f64, double, conv_f64)
REFLECT_DRAW(reflect_draw_f16, uint16_t, conv_f16)
REFLECT_DRAW(reflect_draw_bf16, uint16_t, conv_bf16)

/* Elements [i0, i0 + n) of a draw from the window at off. */
static void draw_range(const struct task *t, const struct case_layout *l,
		       const struct input_pool *p, int a, struct rng *r,
		       void *dst, int64_t off, int64_t i0, int64_t n)
{
	const struct task_arg *ta = &t->args[a];
	double c2 = 2 * p->centre[a];
	bool reflect = !isnan(p->centre[a]);
	uint64_t bits = 0;
	int64_t end = i0 + n;

	if (p->fv[a]) {
		const double *src = p->fv[a] + off;
		double hi = ta->init.dist == INIT_UNIFORM ? ta->init.b : INFINITY;
		if (ta->dtype == ARENA_F32) {
			/* 64 elements per rng word, drawn whether or not it
			 * is used (the stream stays the same). */
			float *f = dst;
			for (int64_t i = i0; i < end; i += 64) {
				bits = rng_next(r);
				int64_t m = end - i < 64 ? end - i : 64;
				if (!reflect)
					for (int64_t k = 0; k < m; k++)
						f[i + k] = (float)src[i + k];
				else if (m == 64)
					draw_f32_word(f + i, src + i, bits, c2, hi);
				else
					for (int64_t k = 0; k < m; k++)
						f[i + k] = draw_f32_one(
							src[i + k], bits >> k,
							c2, hi);
			}
			return;
		}
		switch (ta->dtype) {
		case ARENA_F64:
			reflect_draw_f64(r, dst, src, i0, end, reflect, c2, hi);
			return;
		case ARENA_F16:
			reflect_draw_f16(r, dst, src, i0, end, reflect, c2, hi);
			return;
		case ARENA_BF16:
			reflect_draw_bf16(r, dst, src, i0, end, reflect, c2, hi);
			return;
		default:
			break;
		}
		for (int64_t i = i0; i < end; i++) {
			if (((i - i0) & 63) == 0)
				bits = rng_next(r);
			double v = src[i];
			if (reflect && (bits >> ((i - i0) & 63) & 1)) {
				double w = c2 - v;
				v = w < hi ? w : v;
			}
			elem_store(ta->dtype, dst, i, v);
		}
		return;
	}
	const int64_t *src = p->iv[a] + off;
	int64_t sum = l->lo[a] + l->hi[a], blo = 0, bhi = 0;
	bool narrow = ta->dtype != ARENA_I32 && int_bounds(ta->dtype, &blo, &bhi);
	/* A word of 64 reflection bits per 64 elements, drawn whether or
	 * not they are used (the stream stays the same). */
	for (int64_t c = i0; c < end; c += 64) {
		int64_t m = end - c < 64 ? end - c : 64;
		bits = rng_next(r);
		if (!reflect)
			bits = 0;
#define REFLECTED(k) ((bits >> ((k) - c) & 1) ? sum - src[k] : src[k])
		if (ta->dtype == ARENA_I64)
			for (int64_t k = c; k < c + m; k++)
				((int64_t *)dst)[k] = REFLECTED(k);
		else if (ta->dtype == ARENA_I32)
			for (int64_t k = c; k < c + m; k++)
				((int32_t *)dst)[k] = (int32_t)REFLECTED(k);
		else if (narrow)
			INT_STORE_LOOP(ta->dtype, dst, c, c + m, blo, bhi,
				       REFLECTED(k));
		else
			for (int64_t k = c; k < c + m; k++)
				elem_store(ta->dtype, dst, k,
					   (double)REFLECTED(k));
#undef REFLECTED
	}
}

static void draw_chunk(struct par_job *j, struct rng *r, int64_t i0,
		       int64_t n)
{
	draw_range(j->t, j->l, j->p, j->a, r, j->dst, j->off, i0, n);
}

void pool_draw(const struct task *t, const struct case_layout *l,
	       const struct input_pool *p, int a, struct rng *r, void *dst)
{
	int64_t n = l->numel[a];
	int64_t off = rng_range(r, 0, pool_len(n) - n);

	if (n < PAR_MIN) {
		draw_range(t, l, p, a, r, dst, off, 0, n);
		return;
	}
	struct par_job j = { .fn = draw_chunk, .t = t, .l = l, .p = p, .a = a,
			     .dst = dst, .n = n, .off = off };
	par_run(&j, r);
}

void pool_release(struct input_pool *p)
{
	for (int a = 0; a < TASK_MAX_ARGS; a++) {
		free(p->fv[a]);
		free(p->iv[a]);
		p->fv[a] = NULL;
		p->iv[a] = NULL;
	}
}

/* ---- poison ----------------------------------------------------------- */

static const uint32_t poison_f32[2] = { 0x7fc0a5a5u, 0xffc05a5au };
static const uint64_t poison_f64[2] = { 0x7ff8a5a5a5a5a5a5ull,
					0xfff85a5a5a5a5a5aull };
static const uint16_t poison_f16[2] = { 0x7ea5, 0xfe5a };
static const uint16_t poison_bf16[2] = { 0x7fa5, 0xffda };
static const unsigned char poison_byte[2] = { 0xa5, 0x5a };

struct eq_job {
	const unsigned char *a, *b;
	bool differ; /* false -> true only, atomically */
};

static void eq_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct eq_job *j = ctx;

	if (!__atomic_load_n(&j->differ, __ATOMIC_RELAXED) &&
	    memcmp(j->a + i0, j->b + i0, (size_t)n) != 0)
		__atomic_store_n(&j->differ, true, __ATOMIC_RELAXED);
}

bool par_memeq(const void *a, const void *b, size_t n)
{
	struct eq_job j = { a, b, false };

	if (n < ((size_t)16 << 20))
		return memcmp(a, b, n) == 0;
	par_for((int64_t)n, (int64_t)4 << 20, eq_chunk, &j);
	return !j.differ;
}

static void poison_range(arena_dtype d, void *dst, int64_t numel, int pattern);

struct poison_job {
	arena_dtype d;
	unsigned char *dst;
	int pattern;
};

static void poison_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct poison_job *j = ctx;

	poison_range(j->d, j->dst + (size_t)i0 * dtype_size(j->d), n,
		     j->pattern);
}

void poison_fill(arena_dtype d, void *dst, int64_t numel, int pattern)
{
	struct poison_job j = { d, dst, pattern };

	if (numel < PAR_MIN) {
		poison_range(d, dst, numel, pattern);
		return;
	}
	par_for(numel, PAR_CHUNK, poison_chunk, &j);
}

struct copy_job {
	unsigned char *dst;
	const unsigned char *src;
};

static void copy_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct copy_job *j = ctx;

	memcpy(j->dst + i0, j->src + i0, (size_t)n);
}

void par_memcpy(void *dst, const void *src, size_t n)
{
	struct copy_job j = { dst, src };

	if (n < ((size_t)16 << 20)) {
		memcpy(dst, src, n);
		return;
	}
	par_for((int64_t)n, (int64_t)4 << 20, copy_chunk, &j);
}

static void poison_range(arena_dtype d, void *dst, int64_t numel, int pattern)
{
	int k = pattern & 1;

	switch (d) {
	case ARENA_F32:
		for (int64_t i = 0; i < numel; i++)
			((uint32_t *)dst)[i] = poison_f32[k];
		break;
	case ARENA_F64:
		for (int64_t i = 0; i < numel; i++)
			((uint64_t *)dst)[i] = poison_f64[k];
		break;
	case ARENA_F16:
		for (int64_t i = 0; i < numel; i++)
			((uint16_t *)dst)[i] = poison_f16[k];
		break;
	case ARENA_BF16:
		for (int64_t i = 0; i < numel; i++)
			((uint16_t *)dst)[i] = poison_bf16[k];
		break;
	default:
		memset(dst, poison_byte[k], (size_t)numel * dtype_size(d));
	}
}

int poison_bits(arena_dtype d, int pattern, uint64_t *bits)
{
	int k = pattern & 1;
	int w = (int)dtype_size(d);

	switch (d) {
	case ARENA_F32:
		*bits = poison_f32[k];
		break;
	case ARENA_F64:
		*bits = poison_f64[k];
		break;
	case ARENA_F16:
		*bits = poison_f16[k];
		break;
	case ARENA_BF16:
		*bits = poison_bf16[k];
		break;
	default:
		*bits = 0;
		for (int i = 0; i < w; i++)
			*bits |= (uint64_t)poison_byte[k] << (8 * i);
	}
	return w;
}

/* Whether any of elements [from, end) of width w equals bits: no branch
 * in the loop, so that the compiler vectorises it. */
#define POISON_SCAN_DEF(name, type)                                          \
	static bool name(const unsigned char *p, uint64_t bits, int64_t from, \
			 int64_t end)                                          \
	{                                                                     \
		type want = (type)bits, hit = 0;                              \
		for (int64_t i = from; i < end; i++) {                        \
			type v;                                               \
			memcpy(&v, p + (size_t)i * sizeof(type), sizeof(type)); \
			hit |= (type)(v == want);                             \
		}                                                             \
		return hit != 0;                                              \
	}
POISON_SCAN_DEF(block_has_u8, uint8_t)
POISON_SCAN_DEF(block_has_u16, uint16_t)
POISON_SCAN_DEF(block_has_u32, uint32_t)
POISON_SCAN_DEF(block_has_u64, uint64_t)

static bool block_has(const unsigned char *p, int w, uint64_t bits,
		      int64_t from, int64_t end)
{
	return w == 1	? block_has_u8(p, bits, from, end)
	       : w == 2 ? block_has_u16(p, bits, from, end)
	       : w == 4 ? block_has_u32(p, bits, from, end)
			: block_has_u64(p, bits, from, end);
}

#define POISON_SCAN_BLOCK 2048
/* Elements from which a scan is shared by threads, and each one's part. */
#define POISON_PAR_MIN ((int64_t)1 << 22)
#define POISON_PAR_CHUNK ((int64_t)1 << 20)

struct poison_par {
	const unsigned char *p;
	int w;
	uint64_t bits;
	int64_t from;
	int64_t first; /* the lowest chunk start with a hit; guarded by mu */
	pthread_mutex_t mu;
};

static void poison_par_chunk(void *ctx, int64_t i0, int64_t n)
{
	struct poison_par *pp = ctx;
	int64_t a = pp->from + i0;

	if (!block_has(pp->p, pp->w, pp->bits, a, a + n))
		return;
	pthread_mutex_lock(&pp->mu);
	if (a < pp->first)
		pp->first = a;
	pthread_mutex_unlock(&pp->mu);
}

int64_t poison_find(arena_dtype d, const void *base, int64_t from,
		    int64_t numel, int pattern)
{
	const unsigned char *p = base;
	uint64_t bits;
	int w = poison_bits(d, pattern, &bits);

	if (from < 0)
		from = 0;
	/* A large array (a reference's outputs, tens of MiB) by several
	 * threads first: almost always none holds the poison. */
	if (numel - from >= POISON_PAR_MIN) {
		struct poison_par pp = { p, w, bits, from, numel,
					 PTHREAD_MUTEX_INITIALIZER };
		par_for(numel - from, POISON_PAR_CHUNK, poison_par_chunk, &pp);
		pthread_mutex_destroy(&pp.mu);
		from = pp.first;
	}
	for (int64_t i = from; i < numel;) {
		int64_t end = numel - i > POISON_SCAN_BLOCK ? i + POISON_SCAN_BLOCK
							    : numel;
		if (block_has(p, w, bits, i, end))
			for (; i < end; i++)
				if (poison_is(d, p + (size_t)i * (size_t)w,
					      pattern))
					return i;
		i = end;
	}
	return numel;
}

/* How many elements of an output of numel integers may hold a pattern's
 * poison by chance, not because nothing wrote them: the largest count
 * that uniformly random values reach with probability above 1e-9
 * (Poisson, mean numel / 2^bits).  Integers have no value outside their
 * range to poison with: 32 M random u32 keys (cuda2cuda/radix_sort_pass)
 * hold 0xa5a5a5a5 about once in 130 calls.  Floats' poison is a NaN, and
 * 8-byte integers' chance is 2^-64 per element: 0 for both, as for an
 * output of a few elements. */
int64_t poison_chance_allowance(arena_dtype d, int64_t numel)
{
	size_t sz = dtype_size(d);

	if (dtype_is_float(d) || sz >= 8 || numel <= 0)
		return 0;
	double mean = ldexp((double)numel, -8 * (int)sz);
	if (mean > 100) /* normal; exp(-mean) would underflow */
		return (int64_t)ceil(mean + 7 * sqrt(mean));
	double term = exp(-mean), below = term; /* P(X = k), P(X <= k) */
	int64_t k = 0;

	while (1.0 - below > 1e-9 && k < numel) {
		k++;
		term *= mean / (double)k;
		below += term;
	}
	return k;
}

bool poison_is(arena_dtype d, const void *elem, int pattern)
{
	int k = pattern & 1;

	switch (d) {
	case ARENA_F32:
		return memcmp(elem, &poison_f32[k], 4) == 0;
	case ARENA_F64:
		return memcmp(elem, &poison_f64[k], 8) == 0;
	case ARENA_F16:
		return memcmp(elem, &poison_f16[k], 2) == 0;
	case ARENA_BF16:
		return memcmp(elem, &poison_bf16[k], 2) == 0;
	default: {
		const unsigned char *b = elem;
		for (size_t i = 0; i < dtype_size(d); i++)
			if (b[i] != poison_byte[k])
				return false;
		return true;
	}
	}
}

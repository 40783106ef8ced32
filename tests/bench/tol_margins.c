/*
 * tol_margins.c - how much of an output's tolerance honest float32 kernels
 * use, and how much of the precision mutant it catches, for the tasks
 * whose tolerances issue 14 tightened (docs/tasks.md, "Tolerances per
 * output").  A measurement on the host, not a test; tol_margins.sh builds
 * and runs it.
 *
 * For each task it draws the controller's own inputs (task_load,
 * layout_build, inputs_fill: the task's distributions, bf16/f16 rounding
 * included), computes the expected outputs with the task's trusted
 * reference (its reference.c, loaded from a shared object; conv2d's
 * reference is HIP, so its double-precision formula is repeated here on a
 * random sample of output elements), and runs C emulations of float32
 * kernels: the task's baseline in its own accumulation order (the order
 * of its threads and tree reductions, fmaf where nvcc contracts a*b+c),
 * and other honest orders an agent may write (one thread per row,
 * Welford, blocked two-stage sums, atomics in shuffled order, fast
 * exp2/log2 forms, accumulation rounded toward zero as a pessimistic
 * model of tensor-core adders).  For every output it prints
 *
 *   used = max over elements of |got - want| / (atol + rtol |want|)
 *
 * under the tolerance before issue 14 and the one after (an honest kernel
 * passes while used <= 1; 1/used is its margin), and, for the baseline,
 * what the precision mutant (the output rounded to 8 significant bits,
 * as mutants.c does) does under each tolerance: on how many of the calls
 * that it changed some element was outside the tolerance (check-tasks
 * calls it caught when one call is), and the share of the elements it
 * changed that were outside.
 *
 * What it cannot show: the GPU's own expf/logf/rsqrtf (modelled by libm's
 * and a 2-ulp perturbation), and the real order of atomics and tensor-core
 * adders.  tests/gpu/check_tasks.sh on the H200 is the measurement of the
 * real baselines.
 *
 * usage: tol_margins TASKS_ROOT REFDIR [SEEDS]
 *   REFDIR holds <family>_<name>.so, each task's reference.c built with
 *   cc -shared (tol_margins.sh does it).
 */
#include <dlfcn.h>
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/stats.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_internal.h"

/* ---- bookkeeping: tolerance used per (output, variant) ----------------- */

struct tol {
	double atol, rtol;
};

#define MAX_ROWS 64
struct row {
	char task[48], out[16], variant[40];
	struct tol before, after;
	double used_before, used_after;
	int64_t n;
	/* baseline rows: the precision mutant - elements it changed, and
	 * of those outside each tolerance; calls it changed something on,
	 * and calls where some element was outside (caught) */
	int64_t mut_changed, mut_out_before, mut_out_after;
	int calls_changed, calls_before, calls_after;
};
static struct row rows[MAX_ROWS];
static int nrows;

static struct row *row_of(const char *task, const char *out,
			  const char *variant, struct tol before,
			  struct tol after)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].task, task) && !strcmp(rows[i].out, out) &&
		    !strcmp(rows[i].variant, variant))
			return &rows[i];
	if (nrows == MAX_ROWS) {
		fprintf(stderr, "too many rows\n");
		exit(1);
	}
	struct row *r = &rows[nrows++];
	snprintf(r->task, sizeof(r->task), "%s", task);
	snprintf(r->out, sizeof(r->out), "%s", out);
	snprintf(r->variant, sizeof(r->variant), "%s", variant);
	r->before = before;
	r->after = after;
	return r;
}

static double used(double g, double w, struct tol t)
{
	if (!isfinite(g) || !isfinite(w))
		return isnan(g) && isnan(w) ? 0 : INFINITY;
	return fabs(g - w) / (t.atol + t.rtol * fabs(w));
}

static float bf16_round(float f)
{
	return bf16_to_float(float_to_bf16(f));
}

/* got/want as doubles (n elements); one variant's outputs of one call. */
static void record(const char *task, const char *out, const char *variant,
		   struct tol before, struct tol after, const double *got,
		   const double *want, int64_t n, bool is_f16, bool baseline)
{
	struct row *r = row_of(task, out, variant, before, after);
	int64_t caught_b = 0, caught_a = 0, changed = 0;

	for (int64_t i = 0; i < n; i++) {
		double ub = used(got[i], want[i], before);
		double ua = used(got[i], want[i], after);
		if (ub > r->used_before)
			r->used_before = ub;
		if (ua > r->used_after)
			r->used_after = ua;
		if (!baseline)
			continue;
		double m = bf16_round((float)got[i]);
		if (is_f16)
			m = half_to_float(float_to_half((float)m));
		if (m == got[i])
			continue;
		changed++;
		caught_b += used(m, want[i], before) > 1;
		caught_a += used(m, want[i], after) > 1;
	}
	r->n += n;
	if (baseline && changed) {
		r->mut_changed += changed;
		r->mut_out_before += caught_b;
		r->mut_out_after += caught_a;
		r->calls_changed++;
		r->calls_before += caught_b > 0;
		r->calls_after += caught_a > 0;
	}
}

/* ---- one call of a task: inputs, reference ---------------------------- */

struct call {
	struct task *t;
	struct task_case c;
	struct case_layout l;
	unsigned char *mem; /* inputs, then the reference's outputs */
	arena_arg args[TASK_MAX_ARGS];
};

static void die(const char *what, struct errbuf *err)
{
	fprintf(stderr, "%s: %s\n", what, err ? errbuf_str(err) : "");
	exit(1);
}

static void call_init(struct call *k, struct task *t, const int64_t *params,
		      uint64_t seed, arena_launch_fn ref)
{
	struct errbuf err;
	struct rng r;

	errbuf_init(&err);
	memset(k, 0, sizeof(*k));
	k->t = t;
	k->c.id = (char *)"m";
	memcpy(k->c.params, params, sizeof(int64_t) * (size_t)t->nparams);
	if (layout_build(t, &k->c, &k->l, &err) != 0)
		die("layout", &err);
	k->mem = xcalloc(1, k->l.shm_size);
	rng_seed(&r, seed);
	for (int a = 0; a < t->nargs; a++) {
		arena_arg *g = &k->args[a];
		g->data = k->mem + k->l.offset[a];
		g->dtype = t->args[a].dtype;
		g->numel = k->l.numel[a];
		if (task_arg_shape(t, a, &k->c, g->shape, &err) != 0)
			die("shape", &err);
		g->rank = t->args[a].rank;
		if (t->args[a].io != IO_OUT)
			inputs_fill(t, &k->l, a, &r, g->data);
	}
	if (ref && ref(k->args, t->nargs, k->c.params, t->nparams, NULL) != 0)
		die("the reference refused the call", NULL);
}

static void call_release(struct call *k)
{
	free(k->mem);
	layout_release(&k->l);
}

static double *as_doubles(const arena_arg *g)
{
	double *v = xmalloc(sizeof(double) * (size_t)g->numel);
	for (int64_t i = 0; i < g->numel; i++) {
		if (g->dtype == ARENA_F32)
			v[i] = ((const float *)g->data)[i];
		else if (g->dtype == ARENA_F16)
			v[i] = half_to_float(((const uint16_t *)g->data)[i]);
		else
			v[i] = bf16_to_float(((const uint16_t *)g->data)[i]);
	}
	return v;
}

static float bf(const void *p, int64_t i)
{
	return bf16_to_float(((const uint16_t *)p)[i]);
}

static float hf(const void *p, int64_t i)
{
	return half_to_float(((const uint16_t *)p)[i]);
}

/* A float perturbed by k ulps: a libm function that is correctly rounded
 * here stands for the GPU's, which may be 1-2 ulps off. */
static float ulps(float v, int k)
{
	return v * (1.0f + (float)k * 0x1p-23f);
}

/* ---- reductions in the orders kernels use ----------------------------- */

enum order {
	ORD_TREE,  /* BLOCK threads strided, then a shared-memory tree */
	ORD_SEQ,   /* one thread, in index order */
	ORD_CHUNK, /* 32-element partial sums, then summed in order */
	ORD_RZ16,  /* 16-element dots added to an accumulator rounded
			 * toward zero (a pessimistic tensor-core adder) */
};

/* sum of f(i) for i in [0, n) with the square variant when sq (fmaf). */
static float reduce(enum order o, int block, int64_t n,
		    float (*f)(const void *, int64_t, float), const void *ctx,
		    float shift, bool sq)
{
	float part[1024];
	if (o == ORD_SEQ) {
		float acc = 0;
		for (int64_t i = 0; i < n; i++) {
			float v = f(ctx, i, shift);
			acc = sq ? fmaf(v, v, acc) : acc + v;
		}
		return acc;
	}
	if (o == ORD_CHUNK) {
		float total = 0;
		for (int64_t i0 = 0; i0 < n; i0 += 32) {
			float acc = 0;
			for (int64_t i = i0; i < n && i < i0 + 32; i++) {
				float v = f(ctx, i, shift);
				acc = sq ? fmaf(v, v, acc) : acc + v;
			}
			total += acc;
		}
		return total;
	}
	for (int t = 0; t < block; t++) {
		float acc = 0;
		for (int64_t i = t; i < n; i += block) {
			float v = f(ctx, i, shift);
			acc = sq ? fmaf(v, v, acc) : acc + v;
		}
		part[t] = acc;
	}
	for (int s = block / 2; s > 0; s /= 2)
		for (int t = 0; t < s; t++)
			part[t] += part[t + s];
	return part[0];
}

/* ---- hip2hip/layernorm_fwd_bf16: mean, rstd --------------------------- */

static float ln_x(const void *row, int64_t i, float shift)
{
	return bf(row, i) - shift;
}

static void layernorm(struct task *t, arena_launch_fn ref, uint64_t seed,
		      struct tol before, struct tol after)
{
	static const struct {
		const char *name;
		enum order o;
		int block;
		int kind; /* 0 two-pass, 1 one-pass E[x^2]-E[x]^2, 2 Welford */
	} v[] = {
		{ "baseline (BLOCK 256, tree)", ORD_TREE, 256, 0 },
		{ "BLOCK 1024, tree", ORD_TREE, 1024, 0 },
		{ "one thread per row", ORD_SEQ, 1, 0 },
		{ "32-chunks, two-pass", ORD_CHUNK, 1, 0 },
		{ "Welford, one thread", ORD_SEQ, 1, 2 },
		{ "one-pass E[x^2]-E[x]^2, tree", ORD_TREE, 256, 1 },
		{ "one-pass E[x^2]-E[x]^2, one thread", ORD_SEQ, 1, 1 },
	};
	for (int ci = 0; ci < t->ncases; ci++) {
		int64_t p[2] = { t->cases[ci].params[0],
				 t->cases[ci].params[1] };
		if (p[0] > 2048)
			p[0] = 2048; /* rows are independent */
		struct call k;
		call_init(&k, t, p, seed + (uint64_t)ci, ref);
		int64_t rows_ = p[0], cols = p[1];
		double *wm = as_doubles(&k.args[4]),
		       *wr = as_doubles(&k.args[5]);
		double *gm = xmalloc(sizeof(double) * (size_t)rows_);
		double *gr = xmalloc(sizeof(double) * (size_t)rows_);
		for (size_t vi = 0; vi < ARRAY_SIZE(v); vi++) {
			for (int64_t r = 0; r < rows_; r++) {
				const uint16_t *xr =
					(const uint16_t *)k.args[0].data +
					r * cols;
				float mean, var;
				if (v[vi].kind == 2) {
					float m = 0, m2 = 0;
					for (int64_t i = 0; i < cols; i++) {
						float x = bf(xr, i), d = x - m;
						m += d / (float)(i + 1);
						m2 = fmaf(d, x - m, m2);
					}
					mean = m;
					var = m2 / (float)cols;
				} else if (v[vi].kind == 1) {
					mean = reduce(v[vi].o, v[vi].block,
						      cols, ln_x, xr, 0,
						      false) /
					       (float)cols;
					float s2 = reduce(v[vi].o, v[vi].block,
							  cols, ln_x, xr, 0,
							  true);
					var = fmaxf(s2 / (float)cols -
							    mean * mean,
						    0.0f);
				} else {
					mean = reduce(v[vi].o, v[vi].block,
						      cols, ln_x, xr, 0,
						      false) /
					       (float)cols;
					var = reduce(v[vi].o, v[vi].block, cols,
						     ln_x, xr, mean, true) /
					      (float)cols;
				}
				gm[r] = mean;
				gr[r] = 1.0f / sqrtf(var + 1e-5f);
			}
			bool base = vi == 0;
			record(t->id, "mean", v[vi].name, before, after, gm, wm,
			       rows_, false, base);
			record(t->id, "rstd", v[vi].name, before, after, gr, wr,
			       rows_, false, base);
			if (!base)
				continue;
			/* rsqrtf is approximate on a GPU: 2 ulps either way */
			for (int64_t r = 0; r < rows_; r++)
				gr[r] = ulps((float)gr[r], (r & 1) ? 2 : -2);
			record(t->id, "rstd", "baseline, rstd 2 ulps off",
			       before, after, gr, wr, rows_, false, false);
		}
		free(wm);
		free(wr);
		free(gm);
		free(gr);
		call_release(&k);
	}
}

/* ---- instruction2hip/merge_attn_states: out_lse ----------------------- */

static void merge(struct task *t, arena_launch_fn ref, uint64_t seed,
		  struct tol before, struct tol after)
{
	static const char *const names[] = {
		"baseline (expf, logf)",
		"log1pf(expf(-|p-s|))",
		"exp2f/log2f (fast-math forms)",
		"baseline, 2 ulps off per call",
	};
	for (int ci = 0; ci < t->ncases; ci++) {
		int64_t p[3] = { t->cases[ci].params[0], t->cases[ci].params[1],
				 t->cases[ci].params[2] };
		if (p[0] > 1024)
			p[0] = 1024; /* out_lse is per (token, head) */
		if (p[2] > 8)
			p[2] = 8; /* d does not enter out_lse */
		struct call k;
		call_init(&k, t, p, seed + (uint64_t)ci, ref);
		int64_t n = p[0] * p[1];
		const float *pl = k.args[1].data, *sl = k.args[3].data;
		double *want = as_doubles(&k.args[5]);
		double *got = xmalloc(sizeof(double) * (size_t)n);
		for (size_t vi = 0; vi < ARRAY_SIZE(names); vi++) {
			for (int64_t i = 0; i < n; i++) {
				float a = pl[i], b = sl[i], m = fmaxf(a, b);
				float r;
				if (vi == 1)
					r = m + log1pf(expf(-fabsf(a - b)));
				else if (vi == 2)
					r = m +
					    log2f(exp2f((a - m) * 1.44269504f) +
						  exp2f((b - m) *
							1.44269504f)) *
						    0.69314718f;
				else
					r = m + logf(expf(a - m) + expf(b - m));
				if (vi == 3)
					r = ulps(r, (i & 1) ? 2 : -2);
				got[i] = r;
			}
			record(t->id, "out_lse", names[vi], before, after, got,
			       want, n, false, vi == 0);
		}
		free(want);
		free(got);
		call_release(&k);
	}
}

/* ---- instruction2hip/rmsnorm_bwd_bf16: dw ----------------------------- */

static float rms_sq(const void *row, int64_t i, float shift)
{
	(void)shift;
	return bf(row, i);
}

static void rmsnorm_bwd(struct task *t, arena_launch_fn ref, uint64_t seed,
			struct tol before, struct tol after)
{
	static const char *const names[] = {
		"baseline (atomicAdd, shuffled rows)",
		"one thread per column, rows in order",
		"64-row blocks, then blocks in order",
	};
	for (int ci = 0; ci < t->ncases; ci++) {
		int64_t p[2] = { t->cases[ci].params[0],
				 t->cases[ci].params[1] };
		if (p[1] > 256)
			p[1] = 256; /* columns are independent */
		struct call k;
		call_init(&k, t, p, seed + (uint64_t)ci, ref);
		int64_t rows_ = p[0], cols = p[1];
		const uint16_t *x = k.args[0].data, *dy = k.args[2].data;
		float *rstd = xmalloc(sizeof(float) * (size_t)rows_);
		int64_t *perm = xmalloc(sizeof(int64_t) * (size_t)rows_);
		struct rng r;
		rng_seed(&r, seed ^ 0x5eed);
		for (int64_t i = 0; i < rows_; i++)
			perm[i] = i;
		for (int64_t i = rows_ - 1; i > 0; i--) {
			int64_t j = rng_range(&r, 0, i), tmp = perm[i];
			perm[i] = perm[j];
			perm[j] = tmp;
		}
		for (int64_t i = 0; i < rows_; i++)
			rstd[i] =
				1.0f / sqrtf(reduce(ORD_TREE, 256, cols, rms_sq,
						    x + i * cols, 0, true) /
						     (float)cols +
					     1e-5f);
		double *want = as_doubles(&k.args[4]);
		double *got = xmalloc(sizeof(double) * (size_t)cols);
		for (size_t vi = 0; vi < ARRAY_SIZE(names); vi++) {
			for (int64_t c = 0; c < cols; c++) {
				float acc = 0, blk = 0;
				for (int64_t i = 0; i < rows_; i++) {
					int64_t row = vi == 0 ? perm[i] : i;
					float xhat = bf(x, row * cols + c) *
						     rstd[row];
					float term =
						bf(dy, row * cols + c) * xhat;
					if (vi == 2) {
						blk += term;
						if ((i & 63) == 63 ||
						    i == rows_ - 1) {
							acc += blk;
							blk = 0;
						}
					} else {
						acc += term;
					}
				}
				got[c] = acc;
			}
			record(t->id, "dw", names[vi], before, after, got, want,
			       cols, false, vi == 0);
		}
		free(want);
		free(got);
		free(rstd);
		free(perm);
		call_release(&k);
	}
}

/* ---- hip2hip/silu_f16: every f16 input -------------------------------- */

static float silu_f(float v, int form)
{
	if (form == 1)
		return v * (1.0f / (1.0f + exp2f(-v * 1.44269504f)));
	if (form == 2)
		return ulps(v / (1.0f + expf(-v)), 2);
	return v / (1.0f + expf(-v));
}

static void silu(struct task *t, arena_launch_fn ref, struct tol before,
		 struct tol after)
{
	static const char *const names[] = {
		"baseline (x / (1 + expf(-x)))",
		"x * rcp(1 + exp2f), fast-math form",
		"baseline, 2 ulps off",
	};
	int64_t p[1] = { 65536 };
	struct call k;
	call_init(&k, t, p, 1, NULL);
	uint16_t *x = k.args[0].data;
	/* every finite f16 (the rest, 2048 of them, become 0: the task
	 * draws from N(0, 3), never inf or NaN) */
	for (int64_t i = 0; i < 65536; i++)
		x[i] = ((uint16_t)i & 0x7c00) == 0x7c00 ? 0 : (uint16_t)i;
	if (ref(k.args, t->nargs, p, 1, NULL) != 0)
		die("silu reference", NULL);
	double *want = as_doubles(&k.args[1]);
	double *got = xmalloc(sizeof(double) * 65536);
	for (size_t vi = 0; vi < ARRAY_SIZE(names); vi++) {
		for (int64_t i = 0; i < 65536; i++)
			got[i] = half_to_float(
				float_to_half(silu_f(hf(x, i), (int)vi)));
		record(t->id, "y", names[vi], before, after, got, want, 65536,
		       true, vi == 0);
	}
	free(want);
	free(got);
	call_release(&k);
}

/* ---- hip2hip/group_norm_silu_f16 -------------------------------------- */

static float gn_x(const void *g, int64_t i, float shift)
{
	return hf(g, i) - shift;
}

static void group_norm(struct task *t, arena_launch_fn ref, uint64_t seed,
		       struct tol before, struct tol after)
{
	static const struct {
		const char *name;
		enum order o;
		int block;
	} v[] = {
		{ "baseline (BLOCK 256, tree)", ORD_TREE, 256 },
		{ "one thread per group", ORD_SEQ, 1 },
		{ "32-chunks", ORD_CHUNK, 1 },
	};
	for (int ci = 0; ci < t->ncases; ci++) {
		int64_t p[5];
		memcpy(p, t->cases[ci].params, sizeof(p));
		if (p[0] > 1)
			p[0] = 1;
		if (p[1] > 4)
			p[1] = 4; /* groups are independent */
		struct call k;
		call_init(&k, t, p, seed + (uint64_t)ci, ref);
		int64_t groups = p[1], cpg = p[2], hw = p[3] * p[4];
		int64_t len = cpg * hw, total = groups * len;
		const uint16_t *x = k.args[0].data, *gamma = k.args[1].data,
			       *beta = k.args[2].data;
		double *want = as_doubles(&k.args[3]);
		double *got = xmalloc(sizeof(double) * (size_t)total);
		for (size_t vi = 0; vi < ARRAY_SIZE(v); vi++) {
			for (int64_t g = 0; g < groups; g++) {
				const uint16_t *xg = x + g * len;
				float mean = reduce(v[vi].o, v[vi].block, len,
						    gn_x, xg, 0, false) /
					     (float)len;
				float rstd =
					1.0f /
					sqrtf(reduce(v[vi].o, v[vi].block, len,
						     gn_x, xg, mean, true) /
						      (float)len +
					      1e-5f);
				for (int64_t i = 0; i < len; i++) {
					int64_t ch = g * cpg + i / hw;
					float val = fmaf(
						(hf(xg, i) - mean) * rstd,
						hf(gamma, ch), hf(beta, ch));
					got[g * len + i] =
						half_to_float(float_to_half(
							val /
							(1.0f + expf(-val))));
				}
			}
			record(t->id, "y", v[vi].name, before, after, got, want,
			       total, true, vi == 0);
		}
		free(want);
		free(got);
		call_release(&k);
	}
}

/* ---- hip2hip/conv2d_nhwc_f16: a sample of outputs --------------------- */

static void conv2d(struct task *t, uint64_t seed, struct tol before,
		   struct tol after)
{
	static const char *const names[] = {
		"baseline (di, dj, ci in order)",
		"16-wide dots, adder rounded toward zero",
		"ci outer, 4 split-k partials",
	};
	enum { SAMPLE = 1536 };
	for (int ci = 0; ci < t->ncases; ci++) {
		int64_t p[5];
		memcpy(p, t->cases[ci].params, sizeof(p));
		if (p[0] > 1)
			p[0] = 1;
		struct call k;
		call_init(&k, t, p, seed + (uint64_t)ci, NULL);
		int64_t h = p[1], w = p[2], c = p[3], kk = p[4];
		const uint16_t *x = k.args[0].data, *wt = k.args[1].data,
			       *bias = k.args[2].data;
		int64_t nout = h * w * kk, ns = nout < SAMPLE ? nout : SAMPLE;
		int64_t *pick = xmalloc(sizeof(int64_t) * (size_t)ns);
		struct rng r;
		rng_seed(&r, seed + 77);
		for (int64_t s = 0; s < ns; s++)
			pick[s] = ns == nout ? s : rng_range(&r, 0, nout - 1);
		double *want = xmalloc(sizeof(double) * (size_t)ns);
		double *got = xmalloc(sizeof(double) * (size_t)ns);
		/* reference.hip's formula: double, rounded once to f16 */
		for (int64_t s = 0; s < ns; s++) {
			int64_t e = pick[s], o = e % kk, j = (e / kk) % w,
				i = e / (kk * w);
			double acc = hf(bias, o);
			for (int di = 0; di < 3; di++)
				for (int dj = 0; dj < 3; dj++) {
					int64_t ii = i + di - 1,
						jj = j + dj - 1;
					if (ii < 0 || ii >= h || jj < 0 ||
					    jj >= w)
						continue;
					for (int64_t q = 0; q < c; q++)
						acc += (double)hf(wt,
								  ((o * 3 +
								    di) * 3 +
								   dj) * c +
									  q) *
						       hf(x, (ii * w + jj) * c +
								     q);
				}
			want[s] = half_to_float(float_to_half((float)acc));
		}
		for (size_t vi = 0; vi < ARRAY_SIZE(names); vi++) {
			for (int64_t s = 0; s < ns; s++) {
				int64_t e = pick[s], o = e % kk,
					j = (e / kk) % w, i = e / (kk * w);
				float acc = vi == 0 ? hf(bias, o) : 0,
				      part[4] = { 0 };
				float dot = 0;
				int nd = 0;
				if (vi == 1)
					fesetround(FE_TOWARDZERO);
				for (int di = 0; di < 3; di++)
					for (int dj = 0; dj < 3; dj++) {
						int64_t ii = i + di - 1,
							jj = j + dj - 1;
						if (ii < 0 || ii >= h ||
						    jj < 0 || jj >= w)
							continue;
						for (int64_t q = 0; q < c;
						     q++) {
							float a = hf(wt,
								     ((o * 3 +
								       di) * 3 +
								      dj) * c +
									     q);
							float b = hf(x,
								     (ii * w +
								      jj) * c +
									     q);
							if (vi == 0) {
								acc = fmaf(a, b,
									   acc);
							} else if (vi == 1) {
								/* f16 x f16 is exact in f32 */
								dot += a * b;
								if (++nd ==
								    16) {
									acc += dot;
									dot = 0;
									nd = 0;
								}
							} else {
								part[q & 3] = fmaf(
									a, b,
									part[q &
									     3]);
							}
						}
					}
				if (vi == 1) {
					acc += dot;
					fesetround(FE_TONEAREST);
					acc += hf(bias, o);
				} else if (vi == 2) {
					acc = ((part[0] + part[1]) +
					       (part[2] + part[3])) +
					      hf(bias, o);
				}
				got[s] = half_to_float(float_to_half(acc));
			}
			record(t->id, "y", names[vi], before, after, got, want,
			       ns, true, vi == 0);
		}
		free(pick);
		free(want);
		free(got);
		call_release(&k);
	}
}

/* ---- main --------------------------------------------------------------- */

static arena_launch_fn load_ref(const char *refdir, const char *id)
{
	char *name = xstrdup(id);
	for (char *s = name; *s; s++)
		if (*s == '/')
			*s = '_';
	char *path = xasprintf("%s/%s.so", refdir, name);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		exit(1);
	}
	arena_launch_fn f =
		(arena_launch_fn)(uintptr_t)dlsym(h, "arena_launch");
	if (!f) {
		fprintf(stderr, "%s: no arena_launch\n", path);
		exit(1);
	}
	free(path);
	free(name);
	return f;
}

static struct task *load(const char *root, const char *id)
{
	struct task *t = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (task_load(root, id, &t, &err) != 0)
		die(id, &err);
	return t;
}

/* The output's tolerance as the task now states it (after), and what it
 * was before issue 14 (given). */
static struct tol now(const struct task *t, const char *out)
{
	for (int a = 0; a < t->nargs; a++)
		if (!strcmp(t->args[a].name, out)) {
			struct tol r;
			task_tolerance(t, &t->args[a], &r.atol, &r.rtol);
			return r;
		}
	fprintf(stderr, "%s: no output '%s'\n", t->id, out);
	exit(1);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
			"usage: tol_margins TASKS_ROOT REFDIR [SEEDS]\n");
		return 2;
	}
	const char *root = argv[1], *refdir = argv[2];
	int seeds = argc > 3 ? atoi(argv[3]) : 2;
	struct task *t;

	for (int s = 0; s < seeds; s++) {
		uint64_t seed = 1000 + 100 * (uint64_t)s;
		t = load(root, "hip2hip/layernorm_fwd_bf16");
		layernorm(t, load_ref(refdir, t->id), seed,
			  (struct tol){ 1e-5, 1e-2 }, now(t, "mean"));
		task_free(t);
		t = load(root, "instruction2hip/merge_attn_states");
		merge(t, load_ref(refdir, t->id), seed,
		      (struct tol){ 1e-5, 1e-2 }, now(t, "out_lse"));
		task_free(t);
		t = load(root, "instruction2hip/rmsnorm_bwd_bf16");
		rmsnorm_bwd(t, load_ref(refdir, t->id), seed,
			    (struct tol){ 4e-3, 1e-2 }, now(t, "dw"));
		task_free(t);
		t = load(root, "hip2hip/group_norm_silu_f16");
		group_norm(t, load_ref(refdir, t->id), seed,
			   (struct tol){ 1e-5, 2e-3 }, now(t, "y"));
		task_free(t);
		t = load(root, "hip2hip/conv2d_nhwc_f16");
		conv2d(t, seed, (struct tol){ 1e-3, 2e-3 }, now(t, "y"));
		task_free(t);
	}
	t = load(root, "hip2hip/silu_f16");
	silu(t, load_ref(refdir, t->id), (struct tol){ 1e-4, 2e-3 },
	     now(t, "y"));
	task_free(t);

	printf("| task | output | kernel | elements | tol before | used | "
	       "tol after | used | mutant caught before | after |\n"
	       "|---|---|---|---:|---|---:|---|---:|---:|---:|\n");
	for (int i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char mb[64] = "", ma[64] = "";
		if (r->calls_changed) {
			snprintf(mb, sizeof(mb), "%d/%d calls, %.1f%%",
				 r->calls_before, r->calls_changed,
				 100.0 * (double)r->mut_out_before /
					 (double)r->mut_changed);
			snprintf(ma, sizeof(ma), "%d/%d calls, %.1f%%",
				 r->calls_after, r->calls_changed,
				 100.0 * (double)r->mut_out_after /
					 (double)r->mut_changed);
		}
		printf("| %s | %s | %s | %lld | %g + %g | %.3f | %g + %g | %.3f "
		       "| %s | %s |\n",
		       r->task, r->out, r->variant, (long long)r->n,
		       r->before.atol, r->before.rtol, r->used_before,
		       r->after.atol, r->after.rtol, r->used_after, mb, ma);
	}
	return 0;
}

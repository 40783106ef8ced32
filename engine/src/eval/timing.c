/*
 * timing.c - timing one case: the one sampling loop of every device
 * (timing.h says how it goes), the per-pair ratios and their bootstrap
 * interval, the adaptive stop, the clock check's second chance, and what
 * the pair steps share (samples, quartiles, the noise of overheads).
 *
 * The device-specific parts are the pair steps: timing_host.c (runner's
 * own clock, LLC flush, inputs from a pool) and timing_gpu.c (device
 * events, batches, inputs drawn on the device, fetch and drain checks).
 *
 * Seeds: a case's draws come from derive(seed, 2, case), its adaptive
 * stop's bootstrap from derive(seed, 3, case) and its final interval from
 * derive(seed, 4, case), so a recorded seed reproduces every choice.
 */
#include "timing.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- samples and ratios ------------------------------------------------ */

void ev_samples_add(struct samples *s, int block, bool base_first,
		    const struct gpu_sample *b, const struct gpu_sample *c)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		for (int i = 0; i < NS; i++)
			s->v[i] = xrealloc(s->v[i],
					   (size_t)s->cap * sizeof(double));
		s->block = xrealloc(s->block, (size_t)s->cap * sizeof(int));
	}
	s->block[s->n] = block;
	s->v[S_BCPU][s->n] = (double)b->cpu;
	s->v[S_CCPU][s->n] = (double)c->cpu;
	s->v[S_BDELAY][s->n] = (double)b->delay;
	s->v[S_CDELAY][s->n] = (double)c->delay;
	s->v[S_BASE][s->n] = (double)b->claim;
	s->v[S_CAND][s->n] = (double)c->claim;
	/* A GPU sample's time beyond its claim while it held inputs
	 * (struct gpu_sample's ovh) and handing its outputs over (fovh); a
	 * host sample's timed request beyond its claim. */
	s->v[S_BOVH][s->n] =
		b->span ? (double)b->ovh : (double)(b->wall + b->fetch - b->claim);
	s->v[S_COVH][s->n] =
		c->span ? (double)c->ovh : (double)(c->wall + c->fetch - c->claim);
	s->v[S_BFOVH][s->n] = (double)b->fovh;
	s->v[S_CFOVH][s->n] = (double)c->fovh;
	s->v[S_BTOVH][s->n] = (double)(b->wall - b->claim);
	s->v[S_CTOVH][s->n] = (double)(c->wall - c->claim);
	/* A pair compares like with like: the gate's reaction where the
	 * controller opened both runners' gates, else their whole `time`
	 * requests. */
	bool gated = b->react > 0 && c->react > 0;
	s->ngated += gated;
	s->v[S_BROVH][s->n] = gated ? (double)(b->react - b->claim)
				    : s->v[S_BTOVH][s->n];
	s->v[S_CROVH][s->n] = gated ? (double)(c->react - c->claim)
				    : s->v[S_CTOVH][s->n];
	s->v[S_FIRST][s->n] = base_first ? 1.0 : 0.0;
	s->v[S_BDRAIN][s->n] = (double)b->drain;
	s->v[S_CDRAIN][s->n] = (double)c->drain;
	s->v[S_BFETCH][s->n] = (double)b->fetch;
	s->n++;
}

static void samples_release(struct samples *s)
{
	for (int i = 0; i < NS; i++)
		free(s->v[i]);
	free(s->block);
	memset(s, 0, sizeof(*s));
}

double ev_samples_median(const struct samples *s, int which)
{
	return stats_median(s->v[which], (size_t)s->n);
}

double ev_samples_quartile(const struct samples *s, int which)
{
	double *v = xmalloc((size_t)s->n * sizeof(double)), q;

	memcpy(v, s->v[which], (size_t)s->n * sizeof(double));
	stats_sort(v, (size_t)s->n);
	q = stats_quantile_sorted(v, (size_t)s->n, 0.25);
	free(v);
	return q;
}

/* Three standard errors of the median pairwise difference cand[i] -
 * base[i] (the standard error from the median absolute deviation): what
 * noise alone can add to a difference of overheads, so a loaded machine
 * or a short (quick) evaluation widens the bound and a clean one keeps it
 * tight. */
double ev_overhead_noise_ns(const double *cand, const double *base, int n)
{
	double *d = xmalloc((size_t)n * sizeof(double));

	for (int i = 0; i < n; i++)
		d[i] = cand[i] - base[i];
	double dmed = stats_median(d, (size_t)n);
	for (int i = 0; i < n; i++)
		d[i] = fabs(d[i] - dmed);
	double mad = stats_median(d, (size_t)n);
	free(d);
	return 3.0 * 1.2533 * 1.4826 * mad / sqrt((double)n);
}

void ev_timing_add(struct case_timing *ct, int b, double ratio)
{
	if (ct->sizes[b] == ct->caps[b]) {
		ct->caps[b] = ct->caps[b] ? ct->caps[b] * 2 : 64;
		ct->ratios[b] = xrealloc(ct->ratios[b],
					 (size_t)ct->caps[b] * sizeof(double));
	}
	ct->ratios[b][ct->sizes[b]++] = ratio;
}

void ev_timing_clear(struct case_timing *ct)
{
	for (int b = 0; b < MAX_BLOCKS; b++)
		ct->sizes[b] = 0;
}

double ev_timing_hi_factor(const struct case_timing *ct)
{
	return ct->hi_factor > 1.0 ? ct->hi_factor : 1.0;
}

void ev_timing_release(struct case_timing *ct)
{
	for (int b = 0; b < MAX_BLOCKS; b++)
		free(ct->ratios[b]);
	memset(ct, 0, sizeof(*ct));
}

static int timing_ci(const struct case_timing *ct, int iters, uint64_t seed,
		     struct interval *iv)
{
	const double *blocks[MAX_BLOCKS];
	struct ratio_blocks rb = { ct->nblocks, blocks, ct->sizes };

	for (int b = 0; b < ct->nblocks; b++)
		blocks[b] = ct->ratios[b];
	return stats_block_ratio_ci(&rb, iters, 0.05, seed, iv);
}

/* ---- reference checks of timed samples --------------------------------- */

/* Each block's first sure check at a pair index below min_pairs (which
 * every block reaches), drawn with the rest from the evaluation's
 * secret; its second is its closing pair (ev_check_due). */
static void refcheck_init(struct timing_case *tc)
{
	struct eval_ctx *x = tc->x;

	rng_seed(&tc->check_rng,
		 ev_derive(x->req->seed ^ x->secret, 6, (uint64_t)tc->ci, 0));
	for (int b = 0; b < MAX_BLOCKS; b++)
		tc->check_at[b] =
			(int)rng_range(&tc->check_rng, 0, tc->cb.min_pairs - 1);
	rng_seed(&tc->sample_rng,
		 ev_derive(x->req->seed ^ x->secret, 11, (uint64_t)tc->ci, 0));
}

bool ev_check_due(struct timing_case *tc, int b)
{
	/* Drawn for every pair, so that the sequence does not depend on
	 * which pairs were sure checks. */
	bool drawn = rng_range(&tc->check_rng, 0, REFCHECK_EVERY - 1) == 0;

	return drawn || tc->closing || tc->blocks[b].pairs == tc->check_at[b];
}

bool ev_refcheck_due(struct timing_case *tc, int b)
{
	bool due = ev_check_due(tc, b);

	/* An A/A coverage run times the baseline only. */
	return due && !tc->x->req->aa_timing_only;
}

/* A clock-check finding: the verdict when it is the second in this case
 * (clock_confirming), else only noted, so that the case is timed again.
 * A forger fails every time; a machine that was briefly crowded - one
 * runner kept waiting for a CPU through most of a case - rarely twice. */
void ev_clock_finding(struct eval_ctx *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (x->clock_confirming) {
		ev_verdict(x, RS_REJECTED, "%s (found again when the case was "
			   "timed a %s time with fresh runners)",
			   strbuf_str(&sb), x->clock_third ? "third" : "second");
	} else {
		x->clock_suspect = true;
		free(x->clock_finding);
		x->clock_finding = strbuf_detach(&sb);
	}
	strbuf_release(&sb);
}

/* ---- the loop ---------------------------------------------------------- */

/* A case's timing limits from the request: defaults for unset fields,
 * blocks within 1..MAX_BLOCKS; a quick (search) evaluation uses one block,
 * budget / quick_div capped at quick_cap seconds, and at most 5 pairs. */
static void case_budget_resolve(const struct timing_budget *tb, bool quick,
				double quick_div, double quick_cap,
				struct case_budget *cb)
{
	cb->nblocks = quick ? 1 : tb->blocks;
	cb->min_pairs = tb->min_pairs > 0 ? tb->min_pairs : 10;
	cb->max_pairs = tb->max_pairs > 0 ? tb->max_pairs : 400;
	cb->budget_s = tb->case_budget_s > 0 ? tb->case_budget_s : 2.0;
	if (cb->nblocks < 1)
		cb->nblocks = 1;
	if (cb->nblocks > MAX_BLOCKS)
		cb->nblocks = MAX_BLOCKS;
	if (quick) {
		cb->budget_s = fmin(cb->budget_s / quick_div, quick_cap);
		if (cb->min_pairs > 5)
			cb->min_pairs = 5;
	}
}

/* The adaptive stop: whether case ci's interval is already as narrow as
 * the config's target_ci. */
static bool case_precise_enough(struct eval_ctx *x, int ci,
				const struct case_timing *ct)
{
	struct interval iv;

	return timing_ci(ct, CI_ITERS_STOP, ev_derive(x->req->seed, 3,
						      (uint64_t)ci, 0), &iv) == 0 &&
	       interval_rel_halfwidth(&iv) <= x->req->timing.target_ci;
}

/* A last exchange with the candidate runners of blocks [b0, b1): a reply
 * forged during the final timed call would otherwise still be waiting,
 * unread.  False (verdict set) when one does not answer. */
static bool cands_answer(struct eval_ctx *x, struct block *blocks, int b0,
			 int b1, const struct task_case *c)
{
	for (int b = b0; b < b1; b++) {
		enum runner_fail pf = runner_ping(blocks[b].cand);
		if (pf != RUNNER_OK) {
			ev_runner_failed(x, ROLE_CAND, blocks[b].cand, pf,
					 "after its last timed call", c);
			return false;
		}
	}
	return true;
}

/* Case ci's result from its timed pairs: the speedup and its interval
 * over the blocks, and the median time per call of each side.  0, or -1
 * with a verdict when there is no timing data. */
static int case_timing_result(struct eval_ctx *x, int ci, double base_ms,
			      double cand_ms, int pairs, struct case_result *cr)
{
	const struct task_case *c = &x->t->cases[ci];
	const struct case_timing *ct = &x->timing[ci];
	struct interval iv;

	if (timing_ci(ct, CI_ITERS_FINAL, ev_derive(x->req->seed, 4,
						    (uint64_t)ci, 0), &iv) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "no timing data for %s '%s'",
			   ev_case_kind(c), c->id);
		return -1;
	}
	if (x->gpu)
		interval_widen_to(&iv, GPU_SYSTEMATIC_REL);
	cr->timed = true;
	cr->base_ms = base_ms;
	cr->cand_ms = cand_ms;
	cr->speedup = iv.point;
	cr->ci_lo = iv.lo;
	cr->ci_hi = iv.hi * ev_timing_hi_factor(ct);
	cr->pairs = pairs;
	cr->blocks = ct->nblocks;
	return 0;
}

/* Whether case tc is too short to time: its baseline's call (trusted)
 * below the floor, as this machine decided it (timing_floor.c); false
 * while nothing is known yet.  Such a case stays a correctness case: it
 * is recorded as not timed, with the reason, and left out of the speedup
 * - a per-pair spread of 5-15% at a few microseconds would otherwise
 * decide it (issue 10, item 10). */
static bool below_floor(struct timing_case *tc, struct case_result *cr)
{
	const struct task *t = tc->x->t;
	double floor = ev_timing_floor_ns(t), base_ns = 0;

	if (ev_floor_decision(tc->x, tc->c, tc->base_call_ns, &base_ns) != 1)
		return false;
	cr->timed = false;
	cr->correctness_only = true;
	free(cr->timing_note);
	cr->timing_note = xasprintf(
		"correctness only: the baseline's call takes %.2f us, below "
		"the timing floor of %.1f us%s%s%s",
		base_ns / 1e3, floor / 1e3,
		t->timing_floor_us >= 0 ? " (the task's: " : "",
		t->timing_floor_us >= 0 && t->timing_floor_reason
			? t->timing_floor_reason
			: "",
		t->timing_floor_us >= 0 ? ")" : "");
	ev_trace_mark(tc->x, "case %s: %s", tc->c->id, cr->timing_note);
	return true;
}

/* The ratios as the pair step computes them, then the adaptive stop. */
static bool case_done_early(struct timing_case *tc,
			    const struct pair_step *step)
{
	if (step->ratios)
		step->ratios(tc);
	/* GPU: not while the charged excess is still uncertain. */
	return !tc->excess_unsettled &&
	       case_precise_enough(tc->x, tc->ci, tc->ct);
}

/* A case whose claims cannot be judged when its time share is spent
 * (pair_step.wants_more) runs on, EV_OVERRUN_ROUNDS rounds at a time, to
 * at most EV_CASE_OVERRUN times its budget or EV_OVERRUN_MIN_S, whichever
 * is longer (or max_pairs): a quick evaluation's budget (37 ms on the
 * fake GPU) holds too few pairs to judge a gross excess by, and a cheat
 * that works in its runner's gen takes 150-200 ms a pair there. */
#define EV_CASE_OVERRUN 4
#define EV_OVERRUN_MIN_S 3.0
#define EV_OVERRUN_ROUNDS 4

/* Moves *share_end on when case tc's share ends within horizon_ns from
 * now and the pair step wants more pairs, up to overrun_end; round_ns is
 * the length of a round. */
static void share_overrun(struct timing_case *tc, const struct pair_step *step,
			  uint64_t horizon_ns, uint64_t round_ns,
			  uint64_t overrun_end, uint64_t *share_end)
{
	uint64_t t = now_ns();

	if (!step->wants_more || t + horizon_ns < *share_end ||
	    *share_end >= overrun_end || !step->wants_more(tc))
		return;
	uint64_t end = t + EV_OVERRUN_ROUNDS * (round_ns ? round_ns : 1);
	*share_end = end < overrun_end ? end : overrun_end;
	ev_trace_mark(tc->x, "case %s: its claims cannot be judged yet: "
		      "timing on past its share", tc->c->id);
}

/* The sampling loop (timing.h): the same for every device, the pair step
 * doing what differs.  The first block starts alone, so that a case too
 * short to time costs one pair of runners. */
static int time_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct pair_step *step = x->gpu ? &ev_gpu_step : &ev_host_step;
	const struct task *t = x->t;
	struct timing_case *tc = xcalloc(1, sizeof(*tc));
	struct block *blocks = tc->blocks;
	struct errbuf e;
	int rc = -1;
	bool short_case = false;

	tc->x = x;
	tc->ci = ci;
	tc->c = &t->cases[ci];
	tc->ct = &x->timing[ci];
	tc->l = &tc->layout;
	tc->r = &tc->rng;
	tc->n = 1;
	case_budget_resolve(&x->req->timing, x->req->quick, step->quick_div,
			    step->quick_cap, &tc->cb);
	/* A quick evaluation's case timed again after a charge from its one
	 * pair of runner processes (timing_gpu.c, gpu_claims_ok) takes two
	 * fresh pairs: one pair cannot tell its own offset from a shave
	 * (an unchanged Triton kernel charged 1-19% on an H100 in 8 of 21
	 * quick evaluations, 2026-12-07), and over two blocks the charge is
	 * bounded by what both pairs show, the floor's statistic among it. */
	if ((x->pair_retiming || x->clock_confirming) && tc->cb.nblocks < 2)
		tc->cb.nblocks = 2;
	errbuf_init(&e);
	if (layout_build(t, tc->c, &tc->layout, &e) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		free(tc);
		return -1;
	}
	/* Timing inputs follow from the seed and the evaluation's secret: a
	 * candidate that knew the seed (results show it) could otherwise
	 * compute them, and their outputs, before its timed calls. */
	rng_seed(&tc->rng,
		 ev_derive(x->req->seed ^ x->secret, 2, (uint64_t)ci, 0));
	refcheck_init(tc);
	for (int b = 0; b < MAX_BLOCKS; b++)
		blocks[b].index = b;
	tc->ct->nblocks = 0;
	if (!step->prepare(tc))
		goto out;
	if ((short_case = below_floor(tc, cr)))
		goto out;

	int nblocks = tc->cb.nblocks, group = tc->group;
	double budget = tc->cb.budget_s;
	uint64_t start = now_ns();
	uint64_t overrun_end =
		start + (uint64_t)(fmax(budget * EV_CASE_OVERRUN,
					EV_OVERRUN_MIN_S) * 1e9);
	int total = 0;
	for (int g0 = 0; g0 < nblocks; g0 += group) {
		int g1 = g0 + group < nblocks ? g0 + group : nblocks;
		bool last_group = g1 == nblocks;
		uint64_t share_end =
			start + (uint64_t)(budget * 1e9 * g1 / nblocks);
		if (step->group_start) {
			int first = g0 == 0 ? g0 + 1 : g1;
			if (!step->group_start(tc, g0, first))
				goto out;
			if (g0 == 0 && (short_case = below_floor(tc, cr)))
				goto out;
			if (first < g1 && !step->group_start(tc, first, g1))
				goto out;
		}
		/* The blocks of a group take their pairs in rounds, the last
		 * of them the closing one (ev_check_due): the round that
		 * reaches max_pairs, or that the previous round's length says
		 * will end the group's time share - or, where that guess
		 * fell short or the case settled early, one more round. */
		uint64_t round_ns = 0;
		bool ending = false;
		for (int round = 1;; round++) {
			uint64_t r0 = now_ns();
			bool enough = blocks[g0].pairs + 1 >= tc->cb.min_pairs;
			/* Before the round the loop's own guess would make
			 * the closing one ... */
			if (last_group && enough && !ending)
				share_overrun(tc, step, round_ns, round_ns,
					      overrun_end, &share_end);
			tc->closing =
				ending ||
				(enough &&
				 (total + (g1 - g0) >= tc->cb.max_pairs ||
				  r0 + round_ns >= share_end));
			for (int b = g0; b < g1; b++)
				if (!step->pair(tc, b))
					goto out;
			total += g1 - g0;
			round_ns = now_ns() - r0;
			if (tc->closing)
				break;
			if (blocks[g0].pairs < tc->cb.min_pairs)
				continue;
			/* ... and after one that overran the share
			 * unforeseen (horizon 0: only then, so the pairs
			 * the guess above judged are not judged twice). */
			if (last_group)
				share_overrun(tc, step, 0, round_ns,
					      overrun_end, &share_end);
			ending = now_ns() >= share_end ||
				 (last_group && round % 4 == 0 &&
				  case_done_early(tc, step));
		}
		tc->closing = false;
		if (!cands_answer(x, blocks, g0, g1, tc->c))
			goto out;
		if (step->group_end)
			step->group_end(tc, g0, g1);
	}
	/* Nothing about the case is final before every check of its
	 * pairs is in. */
	if (step->join && !step->join(tc))
		goto out;
	if (step->ratios) {
		step->ratios(tc);
	} else {
		tc->base_med_ns = ev_samples_median(&tc->s, S_BASE);
		tc->cand_med_ns = ev_samples_median(&tc->s, S_CAND);
	}
	if (!step->claims_ok(tc) ||
	    case_timing_result(x, ci, tc->base_med_ns / tc->n / 1e6,
			       tc->cand_med_ns / tc->n / 1e6, tc->s.n, cr) != 0)
		goto out;
	if (tc->note && !cr->timing_note) {
		cr->timing_note = tc->note;
		tc->note = NULL;
	}
	rc = 0;
out:
	if (short_case && !x->decided)
		rc = 0;
	step->finish(tc, rc == 0);
	if (rc && !cr->error) {
		const char *m = x->res->speedup_calculation_error_message
					? x->res->speedup_calculation_error_message
					: x->res->correctness_error_message;
		if (m)
			cr->error = xstrdup(m);
	}
	samples_release(&tc->s);
	layout_release(&tc->layout);
	free(tc->note);
	free(tc);
	return rc;
}

/* Times case ci; true when only the clock check failed there: the
 * finding is marked in the trace with what happens next (next), and the
 * case's timing released for another. */
static bool time_case_suspect(struct eval_ctx *x, int ci,
			      struct case_result *cr, const char *next)
{
	x->clock_suspect = false;
	x->pair_charge_only = false;
	if (time_case(x, ci, cr) == 0 || !x->clock_suspect || x->decided)
		return false;
	ev_trace_mark(x, "case %s: %s: %s", x->t->cases[ci].id, next,
		      x->clock_finding);
	ev_timing_release(&x->timing[ci]);
	return true;
}

/* Times case ci; when only the clock check failed, times it once more
 * with fresh runners, and that second timing decides (ev_clock_finding).
 * When the first finding was only a charge from one pair of runner
 * processes, the fresh pair decides that charge, and a clock finding
 * there is its first: a third timing confirms it, so that an honest
 * kernel is never rejected on one disturbed timing. */
void ev_time_case_confirmed(struct eval_ctx *x, int ci,
			    struct case_result *cr)
{
	if (!time_case_suspect(x, ci, cr,
			       "clock check failed once, timing it again"))
		return;
	bool third = x->pair_charge_only;
	if (third) {
		x->pair_retiming = true;
		bool again = time_case_suspect(
			x, ci, cr,
			"clock check failed on the fresh pair, timing it a "
			"third time");
		x->pair_retiming = false;
		if (!again)
			return;
	}
	x->clock_confirming = true;
	x->clock_third = third;
	x->clock_suspect = false;
	(void)time_case(x, ci, cr);
	x->clock_confirming = false;
	x->clock_third = false;
}

/*
 * timing_gpu.c - a GPU's pair step of the sampling loop (timing.h;
 * docs/gpu.md section 6).  A pair is one sample of each runner
 * (gpu_sample.c: the keeper's warm kernel, gen, the keeper's flush, time
 * n, the keeper's probes, fetch, the keeper's probes), the two in
 * alternating order, with the same fresh inputs drawn on the device;
 * every set of the candidate's, or a few drawn after the fetch where the
 * batch is large (ev_gpu_compare_pick), is compared with the baseline's,
 * on windows drawn after the fetch from the evaluation's secret, and whole
 * at random (twice per block at least, ev_check_due), where also one set
 * is compared with the reference's at the task's tolerance (docs/gpu.md
 * section 6, "what a pair checks"): a host reference's in the background
 * while the next pairs are timed (refpool.c), every one of them in before
 * the case's numbers are computed (gpu_join) and its runners given back
 * (gpu_finish).
 *
 * What the controller's and the keeper's clocks saw a candidate's samples
 * take beyond its claims, more than the baseline's, is charged to it (the
 * charged excess, gpu_policy.c), in two parts: while the sample held
 * inputs (gen, time beyond the claim, the keeper's flush and probes: no
 * PCIe copy, so a steady quantity) and while it handed its outputs over
 * (fetch and the probes after it: a candidate that computes only when
 * asked for its outputs pays there).  Every pair's ratio is baseline
 * claim / (candidate claim + both excesses), so no number a candidate
 * runner reports raises its speedup beyond what the clocks confirm, up to
 * the excesses' statistical uncertainty.  A gross excess is rejected by
 * name, after the case is timed a second time.  Work left on the device
 * (drain) and claims below the roofline floor are rejected too.
 *
 * Every block starts at once (one group): block 0 is the correctness
 * pair, the others are kept across cases (a GPU context costs 0.2-0.5 s).
 * Calls per sample come from correctness (ev_gpu_case_batch).
 */
#include "timing.h"

#include "arena/stats_dist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bootstrap resamples of the charged excess. */
#define GPU_EXCESS_ITERS 1000

/* Holds the pair's runners to the evaluation's pair CPU, if any
 * (gpu_pair_cpu); where they cannot be, none is held again. */
static void hold_pair(struct eval_ctx *x, struct block *bk,
		      const struct task_case *c)
{
	if (x->pair_cpu < 0)
		return;
	if (pin_pair_to(x->pair_cpu, bk->base->pid, bk->cand->pid)) {
		if (!x->pair_cpu_said)
			ev_trace_mark(x,
				      "case %s: each pair's runners held to "
				      "CPU %d",
				      c->id, x->pair_cpu);
		x->pair_cpu_said = true;
		return;
	}
	ev_trace_mark(x,
		      "case %s: the pair's runners could not be held to "
		      "CPU %d (%s): none is from here on",
		      c->id, x->pair_cpu, strerror(errno));
	x->pair_cpu = -1;
}

/* One pair on block bk: a sample of each runner, the order alternating
 * from pair to pair (*first: the baseline went first), the other one
 * stopped, each fetching every set; then the sets ev_gpu_compare_pick
 * draws of the candidate's against the baseline's (twice the
 * tolerance), whole or (sampled) on windows, and with refcheck one of
 * them drawn at random against the reference (the task's tolerance). */
static bool gpu_pair_once(struct timing_case *p, struct block *bk,
			  const char *kind, int num, bool sampled,
			  bool refcheck, bool *first, struct gpu_sample *bs,
			  struct gpu_sample *cs, bool *differs)
{
	struct eval_ctx *x = p->x;
	const struct task *t = x->t;
	int pattern = num & 1, k = -1;
	char what[64], prefix[200];
	bool ok = true;

	/* Inputs come back on a random quarter of samples, in every phase
	 * alike (a kernel that writes its inputs cannot know when).  With
	 * lent sets nothing comes back: the fetch only waits for the
	 * runner's stream, and the keeper compares every set, inputs
	 * included, where they lie. */
	x->pair_t0_ns = now_ns();
	bool inputs = (rng_next(p->r) & 3) == 0;
	uint32_t mask = p->lent ? 0 : ev_gpu_fetch_mask(t, inputs);
	struct gpu_sets cmp;
	uint64_t seed = rng_next(p->r);
	char *spec = ev_gpu_gen_spec(x, p->l, pattern, seed);
	char place[24];
	ev_gpu_place(x, seed, place, sizeof(place));
	snprintf(what, sizeof(what), "in %s call %d", kind, num);
	hold_pair(x, bk, p->c);
	/* Python batches are captured before their inputs exist and then
	 * launched at once (docs/gpu.md section 6). */
	ok = ev_gpu_capture_pair(x, bk->base, bk->cand, p->n, place, p->c);
	/* Orders alternate within a block (from a random start): the
	 * sample that opens a pair pays for the device and the host waking
	 * up after the gap between pairs, and two consecutive pairs cancel
	 * that out of the excess (gpu_ratios). */
	bool base_first = bk->base_next;
	bk->base_next = !bk->base_next;
	*first = base_first;
	for (int i = 0; i < 2 && ok; i++) {
		bool do_base = (i == 0) == base_first;
		ok = do_base ? ev_gpu_sample(x, ROLE_BASE, bk->base, p->n, spec,
					     mask, what, p->c, bs)
			     : ev_gpu_sample(x, ROLE_CAND, bk->cand, p->n, spec,
					     mask, what, p->c, cs);
	}
	uint64_t t2 = now_ns();
	ev_gpu_compare_pick(&cmp, p->l, p->n, &p->check_rng);
	if (refcheck)
		k = cmp.set[rng_range(&p->check_rng, 0, cmp.n - 1)];
	snprintf(prefix, sizeof(prefix),
		 "output of %s call %d in %s '%s' "
		 "differs from baseline",
		 kind, num, ev_case_kind(p->c), p->c->id);
	bool ran = ok;
	if (p->lent) {
		ok = ok && ev_gpu_lent_match(x, p->l, bk->base, bk->cand, place,
					     pattern, what, prefix, p->c);
		sampled = false;
	} else {
		ok = ok && ev_gpu_sets_match(x, p->l, bk->base, bk->cand, &cmp,
					     pattern, inputs, k,
					     sampled ? &p->sample_rng : NULL,
					     what, prefix, p->c);
	}
	*differs = ran && !ok;
	if (ok && refcheck) {
		snprintf(prefix, sizeof(prefix),
			 "output of %s call %d in %s "
			 "'%s' differs from the reference (a random check of "
			 "a timed sample)",
			 kind, num, ev_case_kind(p->c), p->c->id);
		/* Lent sets: the keeper takes the checked set straight into
		 * a worker's memory where it can (1: handed over), else the
		 * candidate's set where its fetch would have put it. */
		int taken = p->lent && p->refpool
				    ? ev_refpool_check_lent(p->refpool,
							    bk->base, bk->cand,
							    k, place, pattern,
							    what, prefix)
				    : 0;
		/* A host reference's check runs in the background once the
		 * device's part is done (refpool.c). */
		if (taken < 0)
			ok = false;
		else if (!taken)
			ok = (!p->lent ||
			      ev_gpu_lent_take(x, bk->cand, place,
					       ev_gpu_fetch_mask(t, false), k,
					       p->c)) &&
			     (p->refpool
				      ? ev_refpool_check(p->refpool, bk->base,
							 bk->cand, k, spec,
							 pattern, what, prefix)
				      : ev_gpu_reference_check(
						x, p->l, p->ref, bk->base,
						bk->cand, k, spec, pattern,
						false, false, what, prefix,
						p->c, NULL));
	}
	free(spec);
	if (ok)
		ev_trace_pair(x, p->c, bk->index, kind, num, p->n, base_first,
			      bs, cs, 0, now_ns() - t2,
			      refcheck	? 2
			      : sampled ? 0
					: 1);
	return ok;
}

/* One pair (gpu_pair_once).  A pair that ran from captures and whose
 * candidate's outputs differ from the baseline's runs again live, and no
 * batch of the evaluation is captured again: a graph replays what the
 * calls did while captured, when the sets held the previous sample's
 * data, so a kernel that reads its inputs on the host to decide its
 * launch (a synchronous copy back, which a capture does not refuse:
 * tests/gpu/probe_capture.cu) decided on stale ones.  Its live outputs
 * decide.  A cheat gains nothing: live is how every batch ran before
 * captures.  A failed check against the reference stands, in the
 * foreground as in the background (refpool.c), so that both give the
 * same verdict. */
static bool gpu_pair(struct timing_case *p, struct block *bk, const char *kind,
		     int num, bool sampled, bool refcheck, bool *first,
		     struct gpu_sample *bs, struct gpu_sample *cs)
{
	struct eval_ctx *x = p->x;
	bool differs = false;

	cs->graph = false;
	if (gpu_pair_once(p, bk, kind, num, sampled, refcheck, first, bs, cs,
			  &differs))
		return true;
	if (!differs || !cs->graph || !x->decided ||
	    x->res->status != RS_INCORRECT)
		return false;
	ev_verdict_withdraw(x);
	x->capture = false;
	ev_trace_mark(x,
		      "case %s: the outputs of %s call %d, replayed from "
		      "captures, were wrong: the pair runs again live, and "
		      "every batch from here on",
		      p->c->id, kind, num);
	return gpu_pair_once(p, bk, kind, num, sampled, refcheck, first, bs, cs,
			     &differs);
}

/* The charged excess of one pair of overhead columns (S_BOVH and
 * S_COVH, or the fetch's S_BFOVH and S_CFOVH): per pair e = candidate - baseline;
 * per block, consecutive pairs (whose orders are opposite: gpu_pair)
 * averaged, since the sample that opens a pair pays for the device and
 * the host waking up (on the H200 25-35 us in gen and in the keeper's
 * flush, 2026-12-02) and a pair of pairs cancels that; then the lower
 * 95% bound of their median, bootstrapped over blocks and pairs of pairs
 * (gpu_policy.c), or 0; *strict the stricter lower bound, or 0; *sound
 * (when not NULL) the distribution-free lower bound of that median over
 * every pair of pairs (stats_median_lower_bound; -INFINITY when they are
 * too few), which alone calls an excess gross (gpu_claims_ok). */
static double excess_of(struct timing_case *p, int bcol, int ccol,
			uint64_t seed, double *med, double *hi, double *strict,
			double *sound)
{
	const struct samples *s = &p->s;
	int nblocks = p->ct->nblocks;
	const double *eb[MAX_BLOCKS];
	int sizes[MAX_BLOCKS] = { 0 };
	double *e = xmalloc((size_t)(s->n ? s->n : 1) * sizeof(double));
	int m = 0;

	for (int b = 0; b < nblocks; b++) {
		int in_block = 0;
		double pending = 0;
		eb[b] = e + m;
		for (int i = 0; i < s->n; i++) {
			if (s->block[i] != b)
				continue;
			double d = s->v[ccol][i] - s->v[bcol][i];
			if (in_block++ & 1)
				e[m++] = (pending + d) / 2;
			else
				pending = d;
		}
		/* A block of one pair (never with min_pairs >= 2) counts it
		 * alone. */
		if (in_block == 1)
			e[m++] = pending;
		sizes[b] = (int)(e + m - eb[b]);
	}
	double lo = gpu_charged_excess_ns(eb, sizes, nblocks, GPU_EXCESS_ITERS,
					  seed, med, hi, strict);
	/* Last: it reorders e, whose blocks the bootstrap needed in place. */
	if (sound)
		*sound = stats_median_lower_bound(e, (size_t)m,
						  GPU_EXCESS_ALPHA);
	free(e);
	return lo;
}

/* The floor of the case's `time` requests (gpu_floor_excess_ns), from
 * the controller's gate opening to the reply where it opened both
 * runners' gates (S_BROVH): its strict lower bound, *point its value
 * over every pair. */
static double floor_excess_of(struct timing_case *p, uint64_t seed,
			      double *point)
{
	const struct samples *s = &p->s;
	int nblocks = p->ct->nblocks;
	struct gpu_timed_pair *all =
		xmalloc((size_t)(s->n ? s->n : 1) * sizeof(*all));
	const struct gpu_timed_pair *pb[MAX_BLOCKS];
	int sizes[MAX_BLOCKS] = { 0 };
	int m = 0;

	for (int b = 0; b < nblocks; b++) {
		pb[b] = all + m;
		for (int i = 0; i < s->n; i++) {
			if (s->block[i] != b)
				continue;
			all[m++] = (struct gpu_timed_pair){
				.base_claim = s->v[S_BASE][i],
				.base_wall = s->v[S_BASE][i] + s->v[S_BROVH][i],
				.cand_claim = s->v[S_CAND][i],
				.cand_wall = s->v[S_CAND][i] + s->v[S_CROVH][i],
			};
			sizes[b]++;
		}
	}
	double lo = gpu_floor_excess_ns(pb, sizes, nblocks, GPU_EXCESS_ITERS,
					seed, point);
	free(all);
	return lo;
}

/* Whether a charge (or a disputed claim) would send this timing of the
 * case to fresh runners, which then decide alone: a quick evaluation's
 * single block, timed for the first time (gpu_claims_ok). */
static bool one_pair_retimed(const struct timing_case *p)
{
	return p->cb.nblocks == 1 && !p->x->clock_confirming &&
	       !p->x->pair_retiming;
}

/* Whether this timing settles the case's disputed claims by timing on
 * (gpu_wants_more); a single block sends them to fresh runners instead
 * (one_pair_retimed). */
static bool disputed_here(const struct timing_case *p)
{
	return p->claim_open && !one_pair_retimed(p);
}

/* Every pair's ratio charged with the case's excesses (timing.c calls
 * this before every interval): baseline claim / (candidate claim +
 * excess + fetch excess).  No clock-alone fallback: where the excess's
 * bounds are far apart the loop keeps sampling (excess_unsettled), and
 * what is left unconfirmed is the uncertainty the results carry
 * (docs/gpu.md section 10).  The interval's upper end is charged only the
 * stricter bounds (ct->hi_factor): a charge that noise alone can explain
 * lowers the speedup, but must not take the interval off the truth. */
static void gpu_ratios(struct timing_case *p)
{
	struct samples *s = &p->s;
	uint64_t seed = ev_derive(p->x->req->seed, 9, (uint64_t)p->ci, 0);
	double strict, fstrict; /* the excesses' stricter lower bounds */

	p->excess_ns = excess_of(p, S_BOVH, S_COVH, seed, &p->excess_med_ns,
				 &p->excess_hi_ns, &strict,
				 &p->excess_sound_ns);
	/* The `time` request alone is a part of the overhead above with far
	 * less noise (no drawing, flushing or probing in it): a candidate
	 * that does its work inside the request but claims less (shave_claim)
	 * stands out there first.  What it confirms is as much an excess as
	 * the whole one's, so the larger of the two is charged; only the
	 * whole overhead judges a gross excess and the settling.  Its charge
	 * is the strict bound (GPU_EXCESS_ALPHA_STRICT): at the 5% bound a
	 * third column would add its own 2-7.5% to the honest cases that
	 * noise charges, at 0.5% 0.1-2% (tests/bench/excess_null.sh, with
	 * and without offsets between blocks; docs/gpu.md, "Fairness"), and
	 * a shave far above this column's noise is still charged nearly
	 * whole. */
	double thi, tstrict;
	excess_of(p, S_BTOVH, S_CTOVH, seed ^ 2, &p->time_excess_med_ns, &thi,
		  &tstrict, NULL);
	p->time_excess_ns = tstrict;
	/* Within it, from the controller's gate opening to the reply: no
	 * launch, no drawing, only the gate's reaction, the end event's
	 * wait and one reply, so a claim shaved by a few microseconds shows
	 * (docs/gpu.md section 6, "The controller opens the gate").  Charged
	 * at its strict bound, as the request's. */
	double rhi, rstrict;
	double rlo = excess_of(p, S_BROVH, S_CROVH, seed ^ 4,
			       &p->gate_excess_med_ns, &rhi, &rstrict, NULL);
	p->gate_excess_ns = rstrict;
	tstrict = fmax(tstrict, rstrict);
	/* And the same request's floor, where a shave stands out even when
	 * late wake-ups swamp the median (the H200's, 2026-12-06): charged
	 * at its strict bound too. */
	p->floor_excess_ns =
		floor_excess_of(p, seed ^ 3, &p->floor_excess_point_ns);
	p->excess_ns = fmax(p->excess_ns, fmax(tstrict, p->floor_excess_ns));
	strict = fmax(strict, fmax(tstrict, p->floor_excess_ns));
	p->fetch_excess_ns = excess_of(p, S_BFOVH, S_CFOVH, seed ^ 1,
				       &p->fetch_excess_med_ns,
				       &p->fetch_excess_hi_ns, &fstrict,
				       &p->fetch_excess_sound_ns);
	double charged = p->excess_ns + p->fetch_excess_ns;
	double cm = ev_samples_median(s, S_CAND);
	double gross = gpu_gross_excess_ns(cm);
	p->gross_open =
		(p->excess_med_ns > gross && p->excess_sound_ns <= gross) ||
		(p->fetch_excess_med_ns > gross &&
		 p->fetch_excess_sound_ns <= gross);
	double spread = p->excess_hi_ns - p->excess_ns;
	double fspread = p->fetch_excess_hi_ns - p->fetch_excess_ns;
	p->claim_open = p->x->dispute &&
			gpu_claim_disputed(p->gate_excess_med_ns, rlo,
					   p->excess_ns, cm);
	p->excess_unsettled = spread > gpu_unconfirmed_ns(cm) ||
			      fspread > gpu_unconfirmed_ns(cm) ||
			      disputed_here(p);
	ev_timing_clear(p->ct);
	for (int i = 0; i < s->n; i++)
		ev_timing_add(p->ct, s->block[i],
			      s->v[S_BASE][i] / (s->v[S_CAND][i] + charged));
	p->ct->hi_factor = cm + strict + fstrict > 0
				   ? (cm + charged) / (cm + strict + fstrict)
				   : 1.0;
	p->base_med_ns = ev_samples_median(s, S_BASE);
	p->cand_med_ns = cm + charged;
}

/* The case's timed samples against everything the controller knows: work
 * left on the device, a gross excess (rejected by name; a smaller one is
 * only charged, gpu_ratios), the roofline floor. */
static bool gpu_claims_ok(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	struct samples *s = &p->s;
	int n = p->n;
	double cm = ev_samples_median(s, S_CAND);
	double bd = ev_samples_quartile(s, S_BDRAIN);
	double cd = ev_samples_quartile(s, S_CDRAIN);
	double excess = p->excess_ns;
	int64_t bytes = 0, flops = 0;
	struct errbuf e;

	if (cd > drain_allowed_ns(bd, cm)) {
		ev_verdict(x, RS_REJECTED, "work left running on the device after "
			   "%s returned in %s '%s': once the runner's stream had "
			   "finished, waiting for the whole device took %.1f us "
			   "(lower quartile; the baseline's %.1f us); a kernel must "
			   "enqueue all its work on the stream it is given",
			   x->t->entry ? x->t->entry : "arena_launch", ev_case_kind(c),
			   c->id, cd / 1e3, bd / 1e3);
		return false;
	}
	ev_trace_mark(x,
		      "case %s: charged excess %.1f us per sample (median "
		      "excess %.1f us over %d pairs, upper bound %.1f us, "
		      "distribution-free lower bound %.1f us; the time "
		      "request alone %.1f us at its strict bound, median %.1f "
		      "us; its floor %.1f us at its strict bound, point %.1f "
		      "us; the controller's gate to the reply %.1f us at its "
		      "strict bound, median %.1f us over %d gated pairs), "
		      "handing the outputs over %.1f us (median %.1f us, "
		      "upper bound %.1f us, distribution-free lower bound "
		      "%.1f us); candidate's median claim %.1f us",
		      c->id, excess / 1e3, p->excess_med_ns / 1e3, s->n,
		      p->excess_hi_ns / 1e3, p->excess_sound_ns / 1e3,
		      p->time_excess_ns / 1e3, p->time_excess_med_ns / 1e3,
		      p->floor_excess_ns / 1e3, p->floor_excess_point_ns / 1e3,
		      p->gate_excess_ns / 1e3, p->gate_excess_med_ns / 1e3,
		      s->ngated, p->fetch_excess_ns / 1e3,
		      p->fetch_excess_med_ns / 1e3, p->fetch_excess_hi_ns / 1e3,
		      p->fetch_excess_sound_ns / 1e3, cm / 1e3);
	if (disputed_here(p))
		ev_trace_mark(x,
			      "case %s: its claims are still disputed after "
			      "%d pairs (the gate's median excess %.1f us, "
			      "charged %.1f us): charged what the bounds "
			      "confirm",
			      c->id, s->n, p->gate_excess_med_ns / 1e3,
			      excess / 1e3);
	/* Gross where the distribution-free bound says so, not the
	 * bootstrap's: under load the pairs of pairs of an honest copy of
	 * the baseline spread over milliseconds, and a bootstrap of the 3 a
	 * short case had put its lower bound at their smallest - above the
	 * gross line on two timings in a row in CI (2026-12-04); and with
	 * blocks far apart the bootstrap's bound can sit far below every
	 * block (gen_window on the H200: 33.9 us of a 354.7 us median, where
	 * the sign test's bound named it).  Where the pairs are too few for
	 * that bound, the case takes more (gross_open). */
	if (p->excess_sound_ns > gpu_gross_excess_ns(cm)) {
		ev_clock_finding(
			x,
			"reported times inconsistent with the "
			"controller's clock in %s '%s': by the "
			"controller's and the keeper's clocks the "
			"candidate's samples (inputs drawn to outputs "
			"computed, the device probed until idle) took at "
			"least %.1f us more than it claimed beyond what the "
			"baseline's did (median %.1f us; its median claim "
			"%.1f us), more than the %.1f us that would be "
			"charged",
			ev_case_kind(c), c->id, p->excess_sound_ns / 1e3,
			p->excess_med_ns / 1e3, cm / 1e3,
			gpu_gross_excess_ns(cm) / 1e3);
		return false;
	}
	if (p->fetch_excess_sound_ns > gpu_gross_excess_ns(cm)) {
		ev_clock_finding(
			x,
			"reported times inconsistent with the "
			"controller's clock in %s '%s': handing its outputs "
			"over (the same bytes as the baseline's, the device "
			"probed until idle after) took the candidate at least "
			"%.1f us longer than the baseline (median %.1f us; its "
			"median claim %.1f us): work done after the timed "
			"calls, more than the %.1f us that would be charged",
			ev_case_kind(c), c->id, p->fetch_excess_sound_ns / 1e3,
			p->fetch_excess_med_ns / 1e3, cm / 1e3,
			gpu_gross_excess_ns(cm) / 1e3);
		return false;
	}
	/* A charge that one pair of runner processes alone shows (a quick
	 * evaluation's single block) may be that pair's own offset: on the
	 * H200 a Python runner's overheads moved by up to 300 us from one
	 * pair to the next with the same kernel in both (2026-12-04), and an
	 * honest kernel scored 0.82 against 1.31 for it.  So it is timed
	 * again on a fresh pair, and that timing alone decides (as for a
	 * gross excess, ev_time_case_confirmed).  Not combined with the
	 * first: a candidate can tell its correctness-phase runner from a
	 * fresh one, and would forge in the first and keep the second
	 * honest to pull the combined charge down. */
	if (one_pair_retimed(p) &&
	    (excess > 0 || p->fetch_excess_ns > 0 || p->claim_open)) {
		x->pair_charge_only = true;
		ev_clock_finding(
			x,
			"%.1f us charged per sample in %s '%s' "
			"(handing the outputs over %.1f us%s) from one "
			"pair of runner processes: timed again on "
			"fresh pairs, which decide",
			excess / 1e3, ev_case_kind(c), c->id,
			p->fetch_excess_ns / 1e3,
			p->claim_open ? "; its claims disputed" : "");
		return false;
	}
	errbuf_init(&e);
	if (task_case_cost(x->t, c, &bytes, &flops, &e) == 0) {
		enum gpu_compute_class cc = gpu_compute_class_of(x->t);
		double floor = gpu_roofline_floor_ns(bytes, flops, cc, &x->gi);
		double per_call = cm / n;
		if (floor > 0 && per_call < floor) {
			ev_verdict(
				x, RS_REJECTED,
				"impossible time in %s '%s': the "
				"candidate claimed %.2f us per call, below the "
				"roofline floor of %.2f us (%lld bytes at %.2f "
				"TB/s x %.2f, %lld flops at %.1f TFLOP/s (%s) x "
				"%.0f, measured on this device)",
				ev_case_kind(c), c->id, per_call / 1e3,
				floor / 1e3, (long long)bytes,
				x->gi.bandwidth_bps / 1e12,
				GPU_ROOFLINE_BW_MARGIN, (long long)flops,
				gpu_class_peak_flops(cc, &x->gi) / 1e12,
				gpu_compute_class_name(cc),
				GPU_ROOFLINE_TC_MARGIN);
			return false;
		}
	}
	return true;
}

/* Takes block b's runners for this case: block 0 is the correctness
 * pair, kept from the correctness phase; the others are kept across
 * cases.  Missing ones start all at once.  Each block's two runners are
 * started and laid out in the order ev_block_role gives. */
static bool gpu_blocks_start(struct eval_ctx *x, struct block *blocks,
			     int nblocks, const struct case_layout *l,
			     const struct task_case *c)
{
	struct runner *fresh[MAX_BLOCKS][2];

	memset(fresh, 0, sizeof(fresh));
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = ev_block_role(b, i);
			int k = role == ROLE_CAND;
			if (x->tblk[b][k])
				continue;
			if (!(fresh[b][k] = ev_launch(x, role, x->shm_size, c)))
				return false;
		}
	if (!(blocks[0].base = ev_acquire(x, ROLE_BASE, l, c)) ||
	    !(blocks[0].cand = ev_acquire(x, ROLE_CAND, l, c)))
		return false;
	/* Every other block's pair ready, then laid out at once: each
	 * runner page-locks its memory for the layout (tens of ms per
	 * runner for a large case on the H200), and those overlap. */
	enum role roles[2 * MAX_BLOCKS];
	struct runner *rs[2 * MAX_BLOCKS];
	int n = 0;
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = ev_block_role(b, i);
			int k = role == ROLE_CAND;
			struct runner *r = x->tblk[b][k];
			x->tblk[b][k] = NULL;
			if (!r) {
				r = fresh[b][k];
				fresh[b][k] = NULL;
				if (!ev_await_ready(x, role, r, c))
					return false;
			}
			roles[n] = role;
			rs[n++] = r;
		}
	/* On failure the runners that failed are forgotten, and the others
	 * live on in the evaluation's list until its end: no block holds
	 * either. */
	if (!ev_set_layouts(x, roles, rs, n, l, c))
		return false;
	for (int i = 0; i < n; i++) {
		struct block *bk = &blocks[1 + i / 2];
		if (roles[i] == ROLE_CAND)
			bk->cand = rs[i];
		else
			bk->base = rs[i];
	}
	return true;
}

/* The device's measured peaks, for the roofline floor: from the store's
 * device file, or measured now (under the exclusive lock, so that no
 * measurement runs meanwhile).  Without them no floor applies, and the
 * result says so. */
void ev_gpu_peaks_for_roofline(struct eval_ctx *x)
{
	struct gpu_info g;
	struct errbuf e;
	bool costed = x->t->cost_bytes || x->t->cost_flops;

	if (!costed || x->gi.bandwidth_bps > 0)
		return;
	errbuf_init(&e);
	if (gpu_info_get(&x->dev, x->req->cache_dir, true, &g, &e) == 0 &&
	    g.bandwidth_bps > 0) {
		x->gi.bandwidth_bps = g.bandwidth_bps;
		x->gi.copy_bps = g.copy_bps;
		x->gi.read_bps = g.read_bps;
		x->gi.fma_flops = g.fma_flops;
		x->gi.tc_bf16_flops = g.tc_bf16_flops;
		return;
	}
	free(x->roofline_note);
	x->roofline_note = xasprintf("no roofline floor (%s)", errbuf_str(&e));
}

/* Takes the case's batch and the baseline's time per call (decided in
 * correctness from the baseline alone); unless that is below the timing
 * floor (timing.c then leaves the case a correctness case), starts every
 * block, gives every runner its sets and warms each pair up. */
static bool gpu_prepare(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	struct block *blocks = p->blocks;
	int nblocks = p->cb.nblocks;

	/* Inputs are drawn on the device (ev_gpu_gen_spec): no pool. */
	p->stride = p->l->shm_size;
	p->group = nblocks;
	if (!gpu_blocks_start(x, blocks, nblocks, p->l, c))
		return false;
	ev_trace_mark(x, "case %s: %d pairs of runners ready and laid out",
		      c->id, nblocks);
	p->ct->nblocks = nblocks;
	if ((p->n = ev_gpu_case_batch(x, p->ci, blocks[0].base, p->l, c)) < 1)
		return false;
	p->base_call_ns = x->gpu_call_ns[p->ci];
	double decided_ns;
	if (ev_floor_decision(x, c, p->base_call_ns, &decided_ns) == 1)
		return true;
	/* An A/A run for coverage (timing only) checks nothing against the
	 * reference. */
	if (!x->req->aa_timing_only &&
	    !(p->ref = ev_acquire(x, ROLE_REF, p->l, c)))
		return false;
	/* A host reference checks timed samples in the background, a GPU
	 * one (it needs the device) on this thread. */
	int workers = ev_refpool_size();
	if (p->ref && !ev_role_gpu(x, ROLE_REF) && workers > 0)
		p->refpool = ev_refpool_new(x, p->l, c, p->ref, workers);
	/* Every runner's batch at once: each page-locks n sets of its
	 * memory (on the H200 4.0 s for 12 runners' 768 MiB each, one after
	 * another), and those overlap. */
	enum role roles[2 * MAX_BLOCKS];
	struct runner *rs[2 * MAX_BLOCKS];
	int nr = 0;
	for (int b = 0; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = ev_block_role(b, i);
			roles[nr] = role;
			rs[nr++] = role == ROLE_CAND ? blocks[b].cand
						     : blocks[b].base;
		}
	if (!ev_gpu_sets_lent(x, roles, rs, nr, p->n, p->l, c, &p->lent))
		return false;
	ev_trace_mark(x, "case %s: batch buffers %s", c->id,
		      p->lent ? "lent by the keeper" : "allocated");
	x->pair_end_ns = now_ns();
	/* Pairs of opposite orders are averaged in the excess (gpu_ratios):
	 * an even number of them per block. */
	if (p->cb.min_pairs & 1)
		p->cb.min_pairs++;
	int nwarm = gpu_warmup_pairs();
	for (int b = 0; b < nblocks; b++) {
		blocks[b].base_next = rng_next(p->r) & 1;
		for (int i = 0; i < nwarm; i++) {
			struct gpu_sample bs, cs;
			bool first;
			if (!gpu_pair(p, &blocks[b], "warm-up", ++p->nwarm,
				      true, false, &first, &bs, &cs))
				return false;
		}
	}
	return true;
}

/* One timed pair on block b, now and then compared whole and checked
 * against the reference as well (ev_check_due: the controller's draw,
 * which no runner sees; an A/A run has no reference). */
static bool gpu_timed_pair(struct timing_case *p, int b)
{
	struct block *bk = &p->blocks[b];
	struct gpu_sample bs, cs;
	bool whole = ev_check_due(p, b), first;
	bool check = whole && p->ref;

	/* A check in the background that failed stops the case here, as it
	 * would have stopped it in the foreground. */
	if (!ev_refpool_poll(p->refpool))
		return false;
	if (!gpu_pair(p, bk, "timed", ++p->ntimed, !whole, check, &first, &bs,
		      &cs))
		return false;
	if (check)
		p->nchecked++;
	ev_timing_add(p->ct, b, (double)bs.claim / (double)cs.claim);
	ev_samples_add(&p->s, b, first, &bs, &cs);
	bk->pairs++;
	return true;
}

/* The median of block b's per-pair ratios, whole claims (charged
 * false) or as charged (ct's ratios, after gpu_ratios). */
static double block_median(const struct timing_case *p, int b, bool charged)
{
	const struct samples *s = &p->s;
	double *v = xmalloc((size_t)(s->n ? s->n : 1) * sizeof(double)), med;
	size_t m = 0;

	if (charged) {
		for (int i = 0; i < p->ct->sizes[b]; i++)
			v[m++] = p->ct->ratios[b][i];
	} else {
		for (int i = 0; i < s->n; i++)
			if (s->block[i] == b && s->v[S_CAND][i] > 0)
				v[m++] = s->v[S_BASE][i] / s->v[S_CAND][i];
	}
	med = m ? stats_median_inplace(v, m) : 0;
	free(v);
	return med;
}

/* One line per block of a timed case in <log_dir>/blocks.tsv: both
 * runners' process ids and where they said their buffers lie, the
 * block's median ratio of the claims alone and as charged, and the
 * case's charged excesses and their medians.  A bias that every block
 * of an evaluation shares is then either in the charge (claims near 1,
 * charged not) or in the runners (docs/gpu.md section 6, "Fairness:
 * what differs between the two runners"); tests/gpu/pace_report.py and
 * aa_repeat.sh read it. */
static void gpu_log_blocks(struct timing_case *p)
{
	struct eval_ctx *x = p->x;

	if (!x->blocks_log && !x->blocks_log_tried) {
		char *path = path_join(x->log_dir, "blocks.tsv");
		x->blocks_log_tried = true;
		x->blocks_log = fopen(path, "we");
		free(path);
		if (x->blocks_log)
			fputs("case\tblock\tbase_pid\tcand_pid\tbase_dev_lo\t"
			      "base_dev_hi\tcand_dev_lo\tcand_dev_hi\tpairs\t"
			      "claims_ratio\tcharged_ratio\texcess_ns\t"
			      "fetch_excess_ns\texcess_med_ns\t"
			      "fetch_excess_med_ns\n",
			      x->blocks_log);
	}
	if (!x->blocks_log)
		return;
	for (int b = 0; b < p->ct->nblocks; b++) {
		const struct runner *rb = p->blocks[b].base;
		const struct runner *rc = p->blocks[b].cand;
		if (!rb || !rc || !p->blocks[b].pairs)
			continue;
		fprintf(x->blocks_log,
			"%s\t%d\t%ld\t%ld\t0x%llx\t0x%llx\t0x%llx\t0x%llx\t"
			"%d\t%.6f\t%.6f\t%.0f\t%.0f\t%.0f\t%.0f\n",
			p->c->id, b, (long)rb->pid, (long)rc->pid,
			(unsigned long long)rb->dev_lo,
			(unsigned long long)rb->dev_hi,
			(unsigned long long)rc->dev_lo,
			(unsigned long long)rc->dev_hi, p->blocks[b].pairs,
			block_median(p, b, false), block_median(p, b, true),
			p->excess_ns, p->fetch_excess_ns, p->excess_med_ns,
			p->fetch_excess_med_ns);
	}
	fflush(x->blocks_log);
}

/* Every reference check of the case's timed samples is in before its
 * numbers are computed. */
static bool gpu_join(struct timing_case *p)
{
	return ev_refpool_join(p->refpool);
}

/* Runners of a case that went well are kept for the next case; its
 * blocks are logged first (gpu_log_blocks).  Checks still running in the
 * background (a case that stopped early) are waited for first, and the
 * earliest of them that failed is the verdict. */
static void gpu_finish(struct timing_case *p, bool ok)
{
	struct eval_ctx *x = p->x;

	if (!ev_refpool_free(p->refpool))
		ok = false;
	p->refpool = NULL;
	if (ok && p->s.n > 0)
		gpu_log_blocks(p);

	for (int b = 0; b < MAX_BLOCKS; b++) {
		struct runner **kb = b ? &x->tblk[b][0] : &x->keep[ROLE_BASE];
		struct runner **kc = b ? &x->tblk[b][1] : &x->keep[ROLE_CAND];
		ev_release(x, kb, p->blocks[b].base, ok);
		ev_release(x, kc, p->blocks[b].cand, ok);
	}
	ev_release(x, &x->keep[ROLE_REF], p->ref, ok);
	p->ref = NULL;
}

/* More pairs while the median excess lies above the gross line and the
 * distribution-free bound does not (yet), or while the claims are
 * disputed (claim_open). */
static bool gpu_wants_more(struct timing_case *p)
{
	gpu_ratios(p);
	return p->gross_open || disputed_here(p);
}

const struct pair_step ev_gpu_step = {
	/* A quick search step: a rough answer fast (docs/gpu.md). */
	.quick_div = 8,
	.quick_cap = 0.15,
	.prepare = gpu_prepare,
	.group_start = NULL,
	.pair = gpu_timed_pair,
	.group_end = NULL,
	.join = gpu_join,
	.ratios = gpu_ratios,
	.wants_more = gpu_wants_more,
	.claims_ok = gpu_claims_ok,
	.finish = gpu_finish,
};

/*
 * timing_host.c - the host's pair step of the sampling loop (timing.h).
 *
 * What a host call costs is what the kernel says the runner process
 * used, not what the runner says (docs/evaluator.md §6).  Per pair:
 *   1. fresh inputs into both runners of the block (from a pool drawn
 *      from the seed and the evaluation's secret), outputs poisoned, both
 *      runners stopped;
 *   2. on one CPU, the controller's (host_pin.c), in random order, each
 *      runner: the controller's own flush (a sweep
 *      of twice the last-level cache, clflush of the runner's argument
 *      memory: host_cache.c), then one `time` request, with the runner's
 *      CPU time (clock_getcpuclockid) read before the SIGCONT and after it
 *      is stopped again - so work done in a signal handler, a hooked read
 *      or after the reply is counted - and the controller's wall clock
 *      around the request (timeouts, diagnostics);
 *   3. the candidate's inputs must be intact and its outputs within twice
 *      the task's tolerance of the baseline's; a pair whose outputs are
 *      outside 1x of the baseline's, and a random unannounced subset of
 *      the others (ev_refcheck_due), is also checked against the reference
 *      at 1x on the same inputs.
 * The per-pair time of each side is t = max(cpu - o, cpu / 2), o being
 * the median CPU time of the baseline runners' pings: the protocol's own
 * cost, the same for both (host_ratios says why never more than half).
 * The candidate's claims never enter the speedup; they are only checked
 * (host_claims_ok), so that a forger is named, not merely discounted.
 *
 * Blocks start a group at a time with fresh runners (as many as
 * GROUP_MEMORY_BUDGET allows at once), each warmed up with WARMUP_CALLS
 * pairs, and end with their group.  The case has one reference runner for
 * the checks, started with the first group.
 */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Fresh inputs into both runners of a block, outputs poisoned. */
static void pair_stage(struct timing_case *p, struct block *bk, int pattern)
{
	const struct task *t = p->x->t;

	if (p->x->rec)
		ev_aka_fill(p->x, p->ci, p->l, rng_next(p->r), p->stage);
	else
		for (int a = 0; a < t->nargs; a++)
			if (t->args[a].io != IO_OUT)
				pool_draw(t, p->l, p->pool, a, p->r,
					  p->stage[a]);
	ev_stage_into(t, p->l, p->stage, bk->base, pattern);
	ev_stage_into(t, p->l, p->stage, bk->cand, pattern);
}

/* The candidate's outputs of this pair against the reference's on the
 * same inputs, at the task's own tolerance. */
static bool reference_check(struct timing_case *p, struct block *bk,
			    int pattern, const char *kind, int n)
{
	struct eval_ctx *x = p->x;
	char what[96], prefix[240];

	snprintf(what, sizeof(what), "in a check of %s call %d", kind, n);
	ev_stage_into(x->t, p->l, p->stage, p->ref, pattern);
	if (!ev_host_call(x, ROLE_REF, p->ref, what, p->c, false, NULL) ||
	    !ev_reference_wrote_all(x, p->l, p->ref, pattern, p->c))
		return false;
	p->nchecked++;
	snprintf(prefix, sizeof(prefix),
		 "output of %s call %d in %s '%s' is "
		 "not within the task's tolerance of the reference's (calls "
		 "of the timing phase are checked against the reference at "
		 "random, and whenever they stray from the baseline's)",
		 kind, n, ev_case_kind(p->c), p->c->id);
	return ev_outputs_match(x, p->l, bk->cand, p->ref, 1.0, pattern, NULL,
				RS_INCORRECT, prefix);
}

/* The candidate's call of this pair: inputs intact, outputs within twice
 * the tolerance of the baseline's (each is within 1x of the reference),
 * and against the reference when *due or when it strays beyond 1x of the
 * baseline's (*due then set: the pair's trace says so). */
static bool pair_check(struct timing_case *p, struct block *bk, int pattern,
		       const char *kind, int n, bool *due)
{
	char what[96], prefix[200];

	snprintf(what, sizeof(what), "in %s call %d", kind, n);
	if (!ev_inputs_intact(p->x, p->l, p->stage, bk->cand, what, p->c))
		return false;
	if (!ev_outputs_within(p->x, p->l, bk->cand, bk->base, 1.0, pattern)) {
		snprintf(prefix, sizeof(prefix),
			 "output of %s call %d in %s "
			 "'%s' differs from baseline",
			 kind, n, ev_case_kind(p->c), p->c->id);
		if (!ev_outputs_match(p->x, p->l, bk->cand, bk->base, 2.0,
				      pattern, NULL, RS_INCORRECT, prefix))
			return false;
		*due = true;
	}
	return !*due || reference_check(p, bk, pattern, kind, n);
}

/* Baseline and candidate once each, in random order, on one CPU
 * (host_pin.c says why); the other runner is stopped throughout (both
 * are, between requests). */
static bool pair_calls(struct timing_case *p, struct block *bk,
		       const char *what, bool *base_first,
		       struct gpu_sample *bs, struct gpu_sample *cs)
{
	struct host_pin pin;
	bool ok = true;

	*base_first = rng_next(p->r) & 1;
	host_pin_hold(&pin, bk->base->pid, bk->cand->pid);
	for (int k = 0; k < 2 && ok; k++) {
		bool do_base = (k == 0) == *base_first;
		ok = do_base ? ev_host_call(p->x, ROLE_BASE, bk->base, what,
					    p->c, true, bs)
			     : ev_host_call(p->x, ROLE_CAND, bk->cand, what,
					    p->c, true, cs);
	}
	host_pin_release(&pin);
	return ok;
}

static bool warm_up(struct timing_case *p, struct block *bk)
{
	for (int i = 0; i < WARMUP_CALLS; i++) {
		int pattern = i & 1;
		struct gpu_sample bs, cs;
		bool base_first, due = false;
		char what[64];
		snprintf(what, sizeof(what), "in warm-up call %d", ++p->nwarm);
		pair_stage(p, bk, pattern);
		if (!pair_calls(p, bk, what, &base_first, &bs, &cs) ||
		    !pair_check(p, bk, pattern, "warm-up", p->nwarm, &due))
			return false;
		/* The baseline's call, for the timing floor: its fastest
		 * warm-up (the first call of a process pays for faults). */
		if (!(p->base_call_ns > 0) || bs.claim < p->base_call_ns)
			p->base_call_ns = (double)bs.claim;
	}
	return true;
}

/* The host's pair step: fresh inputs into both runners, then baseline
 * and candidate each flushed and timed once, in random order. */
static bool host_pair(struct timing_case *p, int b)
{
	struct eval_ctx *x = p->x;
	struct block *bk = &p->blocks[b];
	int pattern = bk->pairs & 1;
	struct gpu_sample bs, cs;
	bool base_first;
	char what[64];

	/* Decided before the calls, told to nobody. */
	bool due = ev_refcheck_due(p, b);
	uint64_t t0 = now_ns();
	pair_stage(p, bk, pattern);
	uint64_t t1 = now_ns();
	snprintf(what, sizeof(what), "in timed call %d", ++p->ntimed);
	if (!pair_calls(p, bk, what, &base_first, &bs, &cs))
		return false;
	uint64_t t2 = now_ns();
	if (!pair_check(p, bk, pattern, "timed", p->ntimed, &due))
		return false;
	ev_trace_pair(x, p->c, b, "timed", p->ntimed, 1, base_first, &bs, &cs,
		      t1 - t0, now_ns() - t2, due ? 2 : 1);
	ev_samples_add(&p->s, b, base_first, &bs, &cs);
	bk->pairs++;
	return true;
}

/* What a request is charged (eval_internal.h says the rule). */
double host_charged_ns(double cpu_ns, double o_ns, double floor_ns, bool *bound)
{
	double share = (1.0 - HOST_PROTOCOL_SHARE_MAX) * cpu_ns;

	if (bound)
		*bound = share > cpu_ns - o_ns && share > floor_ns;
	return fmax(fmax(cpu_ns - o_ns, share), floor_ns);
}

/* The per-pair times the speedup uses: each side's CPU time over its
 * request less o, the median CPU time of the case's pings (what a request
 * costs beyond the call), but never less than half of that CPU time
 * (HOST_PROTOCOL_SHARE_MAX): o is a median of pings taken at other
 * moments, from another process, and where a call is as short as o's
 * spread, cpu - o is that spread, not the call.  The half bounds the
 * ratio a case can give, 2 (B - o) / o for a request that did nothing
 * but the protocol, and keeps every honest call's time above the
 * roofline floor (it takes at least twice the floor: the margins).  A
 * case where that bound decided for either side on half of the pairs or
 * more says so in its timing note: its speedup is nearer 1 than the
 * calls' own.  Times stay above 100 ns. */
static void host_ratios(struct timing_case *p)
{
	const struct samples *s = &p->s;
	double *d = xmalloc((size_t)(s->n ? s->n : 1) * sizeof(double));
	double *tb = xmalloc((size_t)(s->n ? s->n : 1) * sizeof(double));
	double *tc = xmalloc((size_t)(s->n ? s->n : 1) * sizeof(double));
	double lo = fmax(p->roof_ns, 100.0);
	int nbound = 0;

	for (int i = 0; i < s->n; i++)
		d[i] = s->v[S_BCPU][i] - s->v[S_BASE][i];
	double o = p->novh ? stats_median(p->ovh, (size_t)p->novh) : 0.0;
	if (s->n)
		ev_trace_mark(p->x,
			      "case %s: protocol cost %.1f us (median of "
			      "%d pings); baseline's cpu - claim %.1f us "
			      "(median of %d calls)",
			      p->c->id, o / 1e3, p->novh,
			      stats_median(d, (size_t)s->n) / 1e3, s->n);
	ev_timing_clear(p->ct);
	for (int i = 0; i < s->n; i++) {
		bool bb, cb;
		tb[i] = host_charged_ns(s->v[S_BCPU][i], o, lo, &bb);
		tc[i] = host_charged_ns(s->v[S_CCPU][i], o, lo, &cb);
		nbound += bb || cb;
		ev_timing_add(p->ct, s->block[i], tb[i] / tc[i]);
	}
	p->base_med_ns = s->n ? stats_median(tb, (size_t)s->n) : 0.0;
	p->cand_med_ns = s->n ? stats_median(tc, (size_t)s->n) : 0.0;
	free(p->note);
	p->note = NULL;
	if (s->n && 2 * nbound >= s->n)
		p->note = xasprintf(
			"timed near the protocol's resolution: a request costs "
			"%.1f us beyond its call, and on %d of %d pairs a "
			"side's request used less than twice that, so its "
			"time was taken as half of its request's CPU time; "
			"this speedup is nearer 1 than the calls' own",
			o / 1e3, nbound, s->n);
	free(d);
	free(tb);
	free(tc);
}

/* The candidate's claims against the kernel's accounting of its runner.
 * An honest call's own clock covers at least the CPU time it used, so
 * over a request e = cpu - claim is what the protocol costs beyond the
 * call (waits for a CPU inside the call, on a loaded machine, only lower
 * it; each side's e is taken as at least o, the baseline's pings'
 * wait-free cost).  The two calls of a pair run back to back on one
 * CPU (host_pin.c: left to the scheduler, where each runner woke
 * decided 40-100 us of its e under load), so what disturbs a loaded
 * machine for a while - seen on CI's: 40-70 us more of CPU time outside
 * the claims of both runners for several pairs in a row - falls on
 * both, and the candidate is held against the baseline pair by pair:
 * d = e(candidate) - e(baseline).  Two findings, either
 * `rejected` after a second timing (ev_clock_finding):
 *   - the median d beyond max(20 us, 1% of the candidate's claim) plus
 *     three standard errors of that median: its claims hide time it
 *     used, call after call;
 *   - the pairs whose d clears that margin and three spreads of d,
 *     outnumbering those whose d falls as far below (what noise gives
 *     an honest candidate, as often one way as the other) by
 *     HOST_FORGED_SHARE of the pairs and HOST_FORGED_MIN: a forger on
 *     part of its calls, which leaves the median alone.
 * The speedup never used those claims anyway.  The charged time must
 * also clear the roofline floor. */
static bool host_claims_ok(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	const struct samples *s = &p->s;
	double *d = xmalloc((size_t)s->n * sizeof(double));
	double *dev = xmalloc((size_t)s->n * sizeof(double));
	double o = p->novh ? stats_median(p->ovh, (size_t)p->novh) : 0.0;

	for (int i = 0; i < s->n; i++)
		d[i] = fmax(s->v[S_CCPU][i] - s->v[S_CAND][i], o) -
		       fmax(s->v[S_BCPU][i] - s->v[S_BASE][i], o);
	double md = stats_median(d, (size_t)s->n);
	for (int i = 0; i < s->n; i++)
		dev[i] = fabs(d[i] - md);
	double spread = 1.4826 * stats_median(dev, (size_t)s->n);
	double noise = 3.0 * 1.2533 * spread / sqrt((double)s->n);
	double cm = ev_samples_median(s, S_CAND);
	double margin = fmax(HOST_EXCESS_ABS_NS, HOST_EXCESS_REL * cm);
	double bound = margin + noise, line = margin + 3.0 * spread;
	int above = 0, below = 0;
	for (int i = 0; i < s->n; i++) {
		above += d[i] > line;
		below += d[i] < -line;
	}
	free(d);
	free(dev);
	if (md > bound) {
		ev_clock_finding(
			x,
			"reported times inconsistent with the "
			"controller's accounting in %s '%s': the "
			"candidate's runner used %.1f us more CPU time "
			"beyond its claims than the baseline's in the same "
			"pairs (median of %d), where a request costs the "
			"baseline's %.1f us beyond its call (allowed "
			"difference %.1f us)",
			ev_case_kind(c), c->id, md / 1e3, s->n, o / 1e3,
			bound / 1e3);
		return false;
	}
	if (above - below >= fmax(HOST_FORGED_MIN, HOST_FORGED_SHARE * s->n)) {
		ev_clock_finding(
			x,
			"reported times inconsistent with the "
			"controller's accounting in %s '%s': on %d of %d "
			"pairs the candidate's runner used more than %.1f "
			"us more CPU time beyond its claim than the "
			"baseline's, and on %d the baseline's as much more "
			"than the candidate's",
			ev_case_kind(c), c->id, above, s->n, line / 1e3,
			below);
		return false;
	}
	if (p->roof_ns > 0 && p->cand_med_ns <= p->roof_ns) {
		ev_verdict(x, RS_REJECTED,
			   "impossible time in %s '%s': the "
			   "candidate's calls took %.2f us of CPU time "
			   "(median), at the roofline floor of %.2f us "
			   "(%s)",
			   ev_case_kind(c), c->id, p->cand_med_ns / 1e3,
			   p->roof_ns / 1e3, x->host_roof_note);
		return false;
	}
	return true;
}

static bool host_prepare(struct timing_case *p)
{
	const struct task *t = p->x->t;
	int nblocks = p->cb.nblocks;

	/* A prepared AKA task's inputs are its recorded sets: no pool. */
	if (!p->x->rec) {
		pool_build(t, p->l, p->r, &p->pool_store);
		p->pool = &p->pool_store;
	}
	p->stage = ev_stage_alloc(t, p->l);
	p->roof_ns = ev_host_roofline_ns(p->x, p->c);
	/* Blocks alive at once: all of them unless memory says otherwise. */
	uint64_t per_block = 2 * (uint64_t)p->l->shm_size;
	int group = (int)(GROUP_MEMORY_BUDGET / (per_block ? per_block : 1));
	if (group < 1)
		group = 1;
	if (group > nblocks)
		group = nblocks;
	p->group = group;
	return true;
}

/* What a request costs the baseline's runner beyond the call: the CPU
 * time of `ping` requests, each after the same flush as a call.  Unlike
 * (cpu - claim) of a call, it holds no wait for a CPU inside the call,
 * which a loaded machine adds to the claim and not to the CPU time. */
static bool protocol_cost(struct timing_case *p, struct block *bk)
{
	for (int i = 0; i < HOST_PINGS; i++) {
		struct host_pin pin;
		host_pin_hold(&pin, bk->base->pid, bk->cand->pid);
		host_sweep_run(&p->x->sweep, ev_device_exclusive(p->x));
		host_cache_evict(bk->base->shm, bk->base->shm_size);
		enum runner_fail f = runner_ping(bk->base);
		host_pin_release(&pin);
		if (f != RUNNER_OK) {
			ev_runner_failed(p->x, ROLE_BASE, bk->base, f,
					 "in a ping", p->c);
			return false;
		}
		if (bk->base->cpu_ns < 0)
			continue;
		if (p->novh == p->capovh) {
			p->capovh = p->capovh ? 2 * p->capovh : 32;
			p->ovh = xrealloc(p->ovh,
					  (size_t)p->capovh * sizeof(double));
		}
		p->ovh[p->novh++] = (double)bk->base->cpu_ns;
	}
	return true;
}

/* Fresh runners for blocks [g0, g1), each pair warmed up; the case's
 * reference runner with the first.  The runners start together and are
 * all ready before the first warm-up call, so that no start-up runs
 * beside a measured call. */
static bool host_group_start(struct timing_case *p, int g0, int g1)
{
	struct eval_ctx *x = p->x;
	enum role want[1 + 2 * MAX_BLOCKS];
	struct runner *got[1 + 2 * MAX_BLOCKS];
	int n = 0, k = 0;

	if (!p->ref)
		want[n++] = ROLE_REF;
	for (int b = g0; b < g1; b++) {
		want[n++] = ROLE_BASE;
		want[n++] = ROLE_CAND;
	}
	if (!ev_acquire_set(x, want, n, p->l, p->c, got))
		return false;
	if (!p->ref)
		p->ref = got[k++];
	for (int b = g0; b < g1; b++) {
		p->blocks[b].base = got[k++];
		p->blocks[b].cand = got[k++];
	}
	for (int b = g0; b < g1; b++) {
		struct block *bk = &p->blocks[b];
		if (!warm_up(p, bk) || !protocol_cost(p, bk))
			return false;
		p->ct->nblocks = b + 1;
	}
	return true;
}

/* A group's runners end with it. */
static void host_group_end(struct timing_case *p, int g0, int g1)
{
	for (int b = g0; b < g1; b++) {
		ev_ctx_forget(p->x, p->blocks[b].base);
		ev_ctx_forget(p->x, p->blocks[b].cand);
		p->blocks[b].base = p->blocks[b].cand = NULL;
	}
}

static void host_finish(struct timing_case *p, bool ok)
{
	(void)ok;
	for (int b = 0; b < MAX_BLOCKS; b++) {
		if (p->blocks[b].base)
			ev_ctx_forget(p->x, p->blocks[b].base);
		if (p->blocks[b].cand)
			ev_ctx_forget(p->x, p->blocks[b].cand);
	}
	if (p->ref)
		ev_ctx_forget(p->x, p->ref);
	p->ref = NULL;
	ev_trace_mark(p->x,
		      "case %s: %d timed calls checked against the "
		      "reference",
		      p->c->id, p->nchecked);
	ev_stage_free(p->stage);
	free(p->ovh);
	if (p->pool)
		pool_release(&p->pool_store);
}

void ev_host_peaks_for_roofline(struct eval_ctx *x)
{
	struct errbuf e;
	bool measured;

	if (!x->t->cost_bytes && !x->t->cost_flops)
		return;
	errbuf_init(&e);
	if (host_peaks_get(x->req->cache_dir, false, &x->hp, &measured, &e) !=
	    0) {
		memset(&x->hp, 0, sizeof(x->hp));
		free(x->host_roof_note);
		x->host_roof_note =
			xasprintf("no roofline floor (%s)", errbuf_str(&e));
		return;
	}
	if (measured)
		ev_trace_mark(x, "host peaks measured: %.2f GB/s, %.1f GFLOP/s",
			      x->hp.bandwidth_bps / 1e9, x->hp.fma_flops / 1e9);
	free(x->host_roof_note);
	x->host_roof_note = xasprintf(
		"one core of this host: %.2f GB/s / %.0f, "
		"%.1f GFLOP/s FP32 FMA (%s) / %.0f",
		x->hp.bandwidth_bps / 1e9, HOST_ROOFLINE_BW_MARGIN,
		x->hp.fma_flops / 1e9, x->hp.simd, HOST_ROOFLINE_FLOPS_MARGIN);
}

/* Whether a task's flops are FP32/FP64 work (every floating-point
 * argument f32 or f64): lower precisions have faster units (bf16 dot
 * products, AMX) than the FMA the peak measures. */
bool ev_flops_are_fp32(const struct task *t)
{
	bool any = false;

	for (int a = 0; a < t->nargs; a++) {
		arena_dtype d = t->args[a].dtype;
		if (!dtype_is_float(d))
			continue;
		if (d != ARENA_F32 && d != ARENA_F64)
			return false;
		any = true;
	}
	return any;
}

double ev_host_roofline_ns(struct eval_ctx *x, const struct task_case *c)
{
	int64_t bytes = 0, flops = 0;
	struct errbuf e;

	errbuf_init(&e);
	if (!(x->hp.bandwidth_bps > 0) ||
	    task_case_cost(x->t, c, &bytes, &flops, &e) != 0)
		return 0;
	return host_roofline_floor_ns(bytes, flops, ev_flops_are_fp32(x->t),
				      &x->hp);
}

double ev_roofline_ideal_ns(const struct eval_ctx *x, const struct task_case *c)
{
	double bw = x->gpu ? x->gi.bandwidth_bps : x->hp.bandwidth_bps;
	double fl = x->gpu ? x->gi.fma_flops : x->hp.fma_flops;
	int64_t bytes = 0, flops = 0;
	double t = 0;
	struct errbuf e;

	errbuf_init(&e);
	if (task_case_cost(x->t, c, &bytes, &flops, &e) != 0)
		return 0;
	if (bw > 0 && bytes > 0)
		t = (double)bytes / bw;
	if (fl > 0 && flops > 0 && ev_flops_are_fp32(x->t))
		t = fmax(t, (double)flops / fl);
	return t * 1e9;
}

const struct pair_step ev_host_step = {
	.quick_div = 4,
	.quick_cap = 0.5,
	.prepare = host_prepare,
	.group_start = host_group_start,
	.pair = host_pair,
	.group_end = host_group_end,
	.ratios = host_ratios,
	.claims_ok = host_claims_ok,
	.finish = host_finish,
};

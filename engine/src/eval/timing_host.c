/*
 * timing_host.c - the host's pair step of the sampling loop (timing.h):
 * host kernels timed by the runner's clock around one call, a flush of
 * twice the last-level cache before every timed call, fresh inputs per
 * pair from a pool of pre-drawn values (inputs.c), every timed output
 * checked against the baseline's, and the claimed times checked against
 * the controller's clock (claims as lower quartiles of the overheads).
 *
 * Blocks start a group at a time with fresh runners (as many as
 * GROUP_MEMORY_BUDGET allows at once), each warmed up with WARMUP_CALLS
 * pairs, and end with their group.
 */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Times one runner once: flush, then a timed call. */
static bool time_one(struct eval_ctx *x, enum role role, struct runner *r,
		     const char *what, const struct task_case *c,
		     int64_t *claim, int64_t *wall)
{
	int rc = 0;
	enum runner_fail f = runner_flush(r, x->flush_bytes);

	if (f == RUNNER_OK)
		f = runner_time(r, &rc, claim, wall);
	if (!ev_call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (*claim <= 0 || *claim > *wall + CLAIM_SLACK_NS) {
		if (role == ROLE_CAND)
			ev_verdict(x, RS_REJECTED, "reported times "
				   "inconsistent with the controller's clock: "
				   "the candidate runner claimed %.1f us for a "
				   "call that took at most %.1f us %s, %s '%s'",
				   *claim / 1e3, *wall / 1e3, what,
				   ev_case_kind(c), c->id);
		else
			ev_verdict(x, RS_INFRA_ERROR, "the baseline runner "
				   "reported an impossible time (%.1f us, "
				   "wall %.1f us)", *claim / 1e3, *wall / 1e3);
		return false;
	}
	return true;
}

/* Fresh inputs into both runners of a block, outputs poisoned. */
static void pair_stage(struct timing_case *p, struct block *bk, int pattern)
{
	const struct task *t = p->x->t;

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			pool_draw(t, p->l, p->pool, a, p->r, p->stage[a]);
	ev_stage_into(t, p->l, p->stage, bk->base, pattern);
	ev_stage_into(t, p->l, p->stage, bk->cand, pattern);
}

static bool pair_check(struct timing_case *p, struct block *bk, int pattern,
		       const char *kind, int n)
{
	char what[96], prefix[200];

	snprintf(what, sizeof(what), "in %s call %d", kind, n);
	if (!ev_inputs_intact(p->x, p->l, p->stage, bk->cand, what, p->c))
		return false;
	/* Candidate vs baseline: each within tolerance of the reference
	 * means within twice the tolerance of each other. */
	snprintf(prefix, sizeof(prefix), "output of %s call %d in %s '%s' "
		 "differs from baseline", kind, n, ev_case_kind(p->c), p->c->id);
	return ev_outputs_match(p->x, p->l, bk->cand, bk->base, 2.0, pattern,
				NULL, RS_INCORRECT, prefix);
}

static bool warm_up(struct timing_case *p, struct block *bk)
{
	for (int i = 0; i < WARMUP_CALLS; i++) {
		int pattern = i & 1;
		char what[64];
		snprintf(what, sizeof(what), "in warm-up call %d", ++p->nwarm);
		pair_stage(p, bk, pattern);
		if (!ev_call_checked(p->x, ROLE_BASE, bk->base, what, p->c) ||
		    !ev_call_checked(p->x, ROLE_CAND, bk->cand, what, p->c) ||
		    !pair_check(p, bk, pattern, "warm-up", p->nwarm))
			return false;
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
	int64_t bc = 0, bw = 0, cc = 0, cw = 0;
	char what[64];

	uint64_t t0 = now_ns();
	pair_stage(p, bk, pattern);
	uint64_t t1 = now_ns();
	snprintf(what, sizeof(what), "in timed call %d", ++p->ntimed);
	/* Both runners are stopped between requests: whichever is timed,
	 * the other cannot run. */
	bool base_first = rng_next(p->r) & 1;
	for (int k = 0; k < 2; k++) {
		bool do_base = (k == 0) == base_first;
		bool ok = do_base ? time_one(x, ROLE_BASE, bk->base, what, p->c,
					     &bc, &bw)
				  : time_one(x, ROLE_CAND, bk->cand, what, p->c,
					     &cc, &cw);
		if (!ok)
			return false;
	}
	uint64_t t2 = now_ns();
	if (!pair_check(p, bk, pattern, "timed", p->ntimed))
		return false;
	struct gpu_sample bs = { .claim = bc, .wall = bw };
	struct gpu_sample cs = { .claim = cc, .wall = cw };
	ev_trace_pair(x, p->c, b, "timed", p->ntimed, 1, base_first, &bs, &cs,
		      t1 - t0, now_ns() - t2);
	ev_timing_add(p->ct, b, (double)bc / (double)cc);
	ev_samples_add(&p->s, &bs, &cs);
	bk->pairs++;
	return true;
}

/* A candidate whose claims sit further below the controller's clock than
 * the baseline's do (same protocol, same machine) is claiming time it did
 * not spend.  The overheads (wall - claim) are compared as lower
 * quartiles: a forged claim shifts every sample by what it hides, while a
 * loaded machine (preemption, another process on the core) only adds to
 * some samples, so the lower quartile keeps an honest candidate near the
 * baseline where the median did not (an A/A run on a 2-core VM running
 * seven other jobs showed medians of 641 and 737 us).  The bound adds
 * three standard errors of the pairwise difference to the fixed
 * max(50 us, 5% of the claim), so noise widens it and a clean machine
 * keeps it tight. */
static bool host_claims_ok(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	const struct samples *s = &p->s;
	double bo = ev_samples_quartile(s, S_BOVH);
	double co = ev_samples_quartile(s, S_COVH);
	double cm = ev_samples_median(s, S_CAND);
	double bound = fmax(OVERHEAD_ABS_NS, OVERHEAD_REL * cm) +
		       ev_overhead_noise_ns(s->v[S_COVH], s->v[S_BOVH], s->n);

	if (co - bo > bound) {
		ev_clock_finding(x, "reported times inconsistent with the "
				 "controller's clock in %s '%s': the candidate's "
				 "calls took %.1f us longer by the "
				 "controller's clock than it claimed (lower "
				 "quartile), the baseline's %.1f us (allowed "
				 "difference %.1f us)", ev_case_kind(c), c->id,
				 co / 1e3, bo / 1e3, bound / 1e3);
		return false;
	}
	return true;
}

static bool host_prepare(struct timing_case *p)
{
	const struct task *t = p->x->t;
	int nblocks = p->cb.nblocks;

	pool_build(t, p->l, p->r, &p->pool_store);
	p->pool = &p->pool_store;
	p->stage = ev_stage_alloc(t, p->l);
	/* Blocks alive at once: all of them unless memory says otherwise. */
	uint64_t per_block = 2 * ((uint64_t)p->l->shm_size +
				  p->x->flush_bytes);
	int group = (int)(GROUP_MEMORY_BUDGET / (per_block ? per_block : 1));
	if (group < 1)
		group = 1;
	if (group > nblocks)
		group = nblocks;
	p->group = group;
	return true;
}

/* Fresh runners for blocks [g0, g1), each pair warmed up. */
static bool host_group_start(struct timing_case *p, int g0, int g1)
{
	struct eval_ctx *x = p->x;

	for (int b = g0; b < g1; b++) {
		struct block *bk = &p->blocks[b];
		if (!(bk->base = ev_spawn(x, ROLE_BASE, p->l, p->c)) ||
		    !(bk->cand = ev_spawn(x, ROLE_CAND, p->l, p->c)) ||
		    !warm_up(p, bk))
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
	for (int b = 0; b < MAX_BLOCKS; b++) {
		if (p->blocks[b].base)
			ev_ctx_forget(p->x, p->blocks[b].base);
		if (p->blocks[b].cand)
			ev_ctx_forget(p->x, p->blocks[b].cand);
	}
	ev_stage_free(p->stage);
	if (p->pool)
		pool_release(&p->pool_store);
}

const struct pair_step ev_host_step = {
	.quick_div = 4,
	.quick_cap = 0.5,
	.prepare = host_prepare,
	.group_start = host_group_start,
	.pair = host_pair,
	.group_end = host_group_end,
	.claims_ok = host_claims_ok,
	.finish = host_finish,
};

/*
 * timing_gpu.c - a GPU's pair step of the sampling loop (timing.h;
 * docs/gpu.md): per pair and per runner, `flush` stages the pair's inputs
 * (drawn on the device from the pair's seed) and poisoned outputs and
 * flushes L2, `time n` runs a batch of n calls between two events on the
 * runner's stream and waits for the whole device, `fetch` copies the
 * buffers back.  The controller's clock covers `time` and `fetch`: a claim
 * can be forged, the moment correct outputs arrive cannot.  The claims
 * check adds what a device allows a forger: work left running after the
 * stream's end event (drain) and a time below the roofline floor.
 *
 * Every block starts at once (one group): block 0 is the correctness
 * pair, the others are kept across cases (a GPU context costs 0.2-0.5 s);
 * warm-up calls say how long a call takes, and calls too short to time
 * alone run in batches of input sets.
 */
#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_WARMUP_CALLS 3

/* Stages (inputs copied, outputs poisoned on the device as spec says),
 * flushes, times a batch of n and fetches the arguments in mask, on one
 * runner. */
static bool time_one_gpu(struct eval_ctx *x, enum role role, struct runner *r,
			 int n, const char *spec, uint32_t mask,
			 const char *what, const struct task_case *c,
			 struct gpu_sample *o)
{
	int rc = 0;
	enum runner_fail f = runner_flush_spec(r, x->flush_bytes, spec);

	memset(o, 0, sizeof(*o));
	if (f == RUNNER_OK)
		f = runner_time_gpu(r, n, &rc, &o->claim, &o->drain, &o->wall);
	if (f == RUNNER_OK)
		f = runner_fetch(r, mask, &o->fetch);
	if (!ev_call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (role != ROLE_CAND)
		ev_note_trusted(x, r);
	if (o->claim <= 0 || o->claim > o->wall + CLAIM_SLACK_NS ||
	    o->drain < 0 || o->drain > o->wall) {
		if (role == ROLE_CAND)
			ev_verdict(x, RS_REJECTED, "reported times inconsistent "
				"with the controller's clock: the candidate "
				"runner claimed %.1f us (and %.1f us waiting for "
				"the device) for a batch that took at most %.1f "
				"us %s, %s '%s'", o->claim / 1e3, o->drain / 1e3,
				o->wall / 1e3, what, ev_case_kind(c), c->id);
		else
			ev_verdict(x, RS_INFRA_ERROR, "the baseline runner "
				"reported an impossible time (%.1f us, wall "
				"%.1f us)", o->claim / 1e3, o->wall / 1e3);
		return false;
	}
	return true;
}

/* The flush spec of a pair: inputs drawn on the device from the pair's
 * seed (engine/runner/gpu/gpu_gen.h: the same values in both runners, every
 * set its own, none through the host), outputs poisoned with pattern. */
static char *gpu_flush_spec(const struct task *t, const struct case_layout *l,
			    int pattern, uint64_t seed)
{
	static const char dist[] = { [INIT_NORMAL] = 'n', [INIT_UNIFORM] = 'u',
				     [INIT_RANDINT] = 'r', [INIT_ONES] = 'o' };
	struct strbuf sb = STRBUF_INIT;

	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		uint64_t bits;
		if (a)
			strbuf_addch(&sb, ' ');
		if (ta->io != IO_OUT) {
			strbuf_addf(&sb, "g:%c:%.17g:%.17g:%lld:%lld:%llx",
				    dist[ta->init.dist], ta->init.a, ta->init.b,
				    (long long)l->lo[a], (long long)l->hi[a],
				    (unsigned long long)seed);
			continue;
		}
		int w = poison_bits(ta->dtype, pattern, &bits);
		strbuf_addf(&sb, "%d:%llx", w, (unsigned long long)bits);
	}
	return strbuf_detach(&sb);
}

/* Every set of the candidate against the baseline's: its inputs as the
 * (trusted) baseline left them, its outputs within twice the tolerance. */
/* A quiet first pass over a batch's sets, several at once: whether every
 * set passes (outputs within tolerance, inputs unchanged when fetched).
 * Only a failure needs the sequential pass that words the verdict. */
struct sets_check {
	const struct eval_ctx *x;
	const struct case_layout *l;
	const struct block *bk;
	size_t stride;
	int pattern;
	bool inputs;
	bool bad;		/* false -> true only, atomically */
};

static void sets_check_range(void *ctx, int64_t k0, int64_t n)
{
	struct sets_check *sc = ctx;
	const struct task *t = sc->x->t;

	for (int64_t k = k0;
	     k < k0 + n && !__atomic_load_n(&sc->bad, __ATOMIC_RELAXED); k++) {
		size_t off = (size_t)k * sc->stride;
		for (int a = 0; a < t->nargs; a++) {
			const struct task_arg *ta = &t->args[a];
			const unsigned char *got = sc->bk->cand->shm + off +
						   sc->l->offset[a];
			const unsigned char *want = sc->bk->base->shm + off +
						    sc->l->offset[a];
			struct cmp_result cr;
			if (ta->io == IO_IN) {
				if (sc->inputs &&
				    memcmp(got, want, sc->l->bytes[a]) != 0)
					__atomic_store_n(&sc->bad, true,
							 __ATOMIC_RELAXED);
				continue;
			}
			compare_arrays(ta->dtype, got, want, sc->l->numel[a],
				       t->atol * 2.0, t->rtol * 2.0,
				       ta->io == IO_OUT ? sc->pattern : -1, &cr);
			if (!cr.ok)
				__atomic_store_n(&sc->bad, true,
						 __ATOMIC_RELAXED);
		}
	}
}

static bool gpu_pair_check(struct timing_case *p, struct block *bk, int n,
			   size_t stride, int pattern, bool inputs,
			   const char *kind, int num)
{
	char what[96], prefix[200];
	struct sets_check sc = { p->x, p->l, bk, stride, pattern, inputs,
				 false };

	/* Large sets are compared by several threads each already. */
	if (n > 1 && p->l->shm_size < ((size_t)16 << 20)) {
		par_for(n, 1, sets_check_range, &sc);
		if (!sc.bad)
			return true;
	}

	snprintf(what, sizeof(what), "in %s call %d", kind, num);
	snprintf(prefix, sizeof(prefix), "output of %s call %d in %s '%s' "
		 "differs from baseline", kind, num, ev_case_kind(p->c), p->c->id);
	for (int k = 0; k < n; k++) {
		size_t off = (size_t)k * stride;
		void *base_in[TASK_MAX_ARGS];
		for (int a = 0; a < p->x->t->nargs; a++)
			base_in[a] = bk->base->shm + off + p->l->offset[a];
		if ((inputs && !ev_inputs_intact_at(p->x, p->l, base_in, bk->cand,
						    off, what, p->c)) ||
		    !ev_outputs_match_at(p->x, p->l, bk->cand, bk->base, off, 2.0,
					 pattern, NULL, RS_INCORRECT, prefix))
			return false;
	}
	return true;
}

static bool gpu_pair(struct timing_case *p, struct block *bk, int n,
		     size_t stride, const char *kind, int num,
		     struct gpu_sample *bs, struct gpu_sample *cs)
{
	struct eval_ctx *x = p->x;
	const struct task *t = x->t;
	int pattern = num & 1;
	uint32_t mask = 0;
	char what[64];
	bool ok = true;

	/* Outputs always come back; inputs on warm-up calls and on a random
	 * quarter of the timed ones (a kernel that writes its inputs cannot
	 * know which), to spare the copy. */
	bool inputs = strcmp(kind, "timed") != 0 || (rng_next(p->r) & 3) == 0;
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_IN || inputs)
			mask |= 1u << a;
	char *spec = gpu_flush_spec(t, p->l, pattern, rng_next(p->r));
	snprintf(what, sizeof(what), "in %s call %d", kind, num);
	/* Both runners are stopped between requests: whichever is timed,
	 * the other cannot launch anything. */
	bool base_first = rng_next(p->r) & 1;
	for (int k = 0; k < 2 && ok; k++) {
		bool do_base = (k == 0) == base_first;
		ok = do_base ? time_one_gpu(x, ROLE_BASE, bk->base, n, spec, mask,
					    what, p->c, bs)
			     : time_one_gpu(x, ROLE_CAND, bk->cand, n, spec, mask,
					    what, p->c, cs);
	}
	free(spec);
	uint64_t t2 = now_ns();
	ok = ok && gpu_pair_check(p, bk, n, stride, pattern, inputs, kind, num);
	/* No staging on the host: the inputs are drawn on the device. */
	if (ok)
		ev_trace_pair(x, p->c, bk->index, kind, num, n, base_first, bs,
			   cs, 0, now_ns() - t2);
	return ok;
}

/* The case's timing claims against everything the controller knows; the
 * most specific finding first (work left on the device also shows as a
 * gap between claim and clock). */
static bool gpu_claims_ok(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	const struct samples *s = &p->s;
	int n = p->n;
	double bo = ev_samples_quartile(s, S_BOVH);
	double co = ev_samples_quartile(s, S_COVH);
	double cm = ev_samples_median(s, S_CAND);
	double bd = ev_samples_quartile(s, S_BDRAIN);
	double cd = ev_samples_quartile(s, S_CDRAIN);
	double allowed = claims_allowed_excess(cm,
					       ev_samples_median(s, S_BFETCH)) +
			 ev_overhead_noise_ns(s->v[S_COVH], s->v[S_BOVH], s->n);
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
	if (co - bo > allowed) {
		ev_clock_finding(x, "reported times inconsistent with the "
				 "controller's clock in %s '%s': the candidate's "
				 "batches took %.1f us longer by the "
				 "controller's clock (timed call and copy back; "
				 "lower quartile) than it claimed, the "
				 "baseline's %.1f us (allowed difference %.1f "
				 "us)", ev_case_kind(c), c->id, co / 1e3,
				 bo / 1e3, allowed / 1e3);
		return false;
	}
	errbuf_init(&e);
	if (task_case_cost(x->t, c, &bytes, &flops, &e) == 0) {
		double floor = gpu_roofline_floor_ns(bytes, flops, &x->gi);
		double per_call = cm / n;
		if (floor > 0 && per_call < floor) {
			ev_verdict(x, RS_REJECTED, "impossible time in %s '%s': the "
				   "candidate claimed %.2f us per call, below the "
				   "roofline floor of %.2f us (%lld bytes at %.2f "
				   "TB/s x %.2f, %lld flops at %.1f TFLOP/s x %.0f, "
				   "measured on this device)", ev_case_kind(c), c->id,
				   per_call / 1e3, floor / 1e3, (long long)bytes,
				   x->gi.bandwidth_bps / 1e12, GPU_ROOFLINE_BW_MARGIN,
				   (long long)flops, x->gi.fma_flops / 1e12,
				   GPU_ROOFLINE_FLOPS_MARGIN);
			return false;
		}
	}
	return true;
}

/* Takes block b's runners for this case: block 0 is the correctness
 * pair, kept from the correctness phase; the others are kept across
 * cases.  Missing ones start all at once. */
static bool gpu_blocks_start(struct eval_ctx *x, struct block *blocks,
			     int nblocks, const struct case_layout *l,
			     const struct task_case *c)
{
	struct runner *fresh[MAX_BLOCKS][2];

	memset(fresh, 0, sizeof(fresh));
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = i ? ROLE_CAND : ROLE_BASE;
			if (x->tblk[b][i])
				continue;
			if (!(fresh[b][i] = ev_launch(x, role, x->shm_size, c)))
				return false;
		}
	if (!(blocks[0].base = ev_acquire(x, ROLE_BASE, l, c)) ||
	    !(blocks[0].cand = ev_acquire(x, ROLE_CAND, l, c)))
		return false;
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = i ? ROLE_CAND : ROLE_BASE;
			struct runner *r = x->tblk[b][i];
			x->tblk[b][i] = NULL;
			if (!r) {
				r = fresh[b][i];
				fresh[b][i] = NULL;
				if (!ev_await_ready(x, role, r, c))
					return false;
			}
			if (!ev_set_layout(x, role, r, l, c))
				return false;
			if (i)
				blocks[b].cand = r;
			else
				blocks[b].base = r;
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
		return;
	}
	free(x->roofline_note);
	x->roofline_note = xasprintf("no roofline floor (%s)", errbuf_str(&e));
}

/* Starts every block, warms each pair up and sizes the batch. */
static bool gpu_prepare(struct timing_case *p)
{
	struct eval_ctx *x = p->x;
	const struct task_case *c = p->c;
	struct block *blocks = p->blocks;
	int nblocks = p->cb.nblocks, nwarm = 0;
	double *warm_b = NULL, *warm_c = NULL;
	bool ok = false;

	/* Inputs are drawn on the device (gpu_flush_spec): no pool. */
	p->stride = p->l->shm_size;
	p->group = nblocks;
	if (!gpu_blocks_start(x, blocks, nblocks, p->l, c))
		return false;
	p->ct->nblocks = nblocks;

	/* Warm-up, which also says how long one call takes. */
	int nwarm_calls = x->req->quick ? 1 : GPU_WARMUP_CALLS;
	warm_b = xcalloc((size_t)(nblocks * GPU_WARMUP_CALLS), sizeof(double));
	warm_c = xcalloc((size_t)(nblocks * GPU_WARMUP_CALLS), sizeof(double));
	for (int b = 0; b < nblocks; b++)
		for (int i = 0; i < nwarm_calls; i++) {
			struct gpu_sample bs, cs;
			if (!gpu_pair(p, &blocks[b], 1, p->stride, "warm-up",
				      ++p->nwarm, &bs, &cs))
				goto out;
			warm_b[nwarm] = (double)bs.claim;
			warm_c[nwarm] = (double)cs.claim;
			nwarm++;
		}
	/* What the timing floor is held against (timing.c). */
	p->base_call_ns = stats_median(warm_b, (size_t)nwarm);

	/* Calls too short to time alone run in batches, each call on its
	 * own input set (no call can reuse another's work). */
	int max_sets = (int)(x->shm_size / p->stride);
	if (max_sets > RP_MAX_SETS)
		max_sets = RP_MAX_SETS;
	int n = gpu_batch_size(fmin(stats_median(warm_b, (size_t)nwarm),
				    stats_median(warm_c, (size_t)nwarm)),
			       p->stride, max_sets,
			       x->req->quick ? GPU_QUICK_BATCH_BYTES
					     : GPU_BATCH_MAX_BYTES);
	p->n = n;
	if (n > 1) {
		for (int b = 0; b < nblocks; b++) {
			enum runner_fail f = runner_sets(blocks[b].base, n,
							 p->stride);
			if (f != RUNNER_OK) {
				ev_runner_failed(x, ROLE_BASE, blocks[b].base,
						 f, "while allocating batch "
						 "buffers", c);
				goto out;
			}
			f = runner_sets(blocks[b].cand, n, p->stride);
			if (f != RUNNER_OK) {
				ev_runner_failed(x, ROLE_CAND, blocks[b].cand,
						 f, "while allocating batch "
						 "buffers", c);
				goto out;
			}
		}
		strbuf_addf(&x->method_notes, "%s%s '%s' x%d",
			    x->method_notes.len ? ", " : "", ev_case_kind(c),
			    c->id, n);
	}
	ok = true;
out:
	free(warm_b);
	free(warm_c);
	return ok;
}

/* One timed batch on each runner of block b. */
static bool gpu_timed_pair(struct timing_case *p, int b)
{
	struct block *bk = &p->blocks[b];
	struct gpu_sample bs, cs;

	if (!gpu_pair(p, bk, p->n, p->stride, "timed", ++p->ntimed, &bs, &cs))
		return false;
	ev_timing_add(p->ct, b, (double)bs.claim / (double)cs.claim);
	ev_samples_add(&p->s, b, &bs, &cs);
	bk->pairs++;
	return true;
}

/* Runners of a case that went well are kept for the next case. */
static void gpu_finish(struct timing_case *p, bool ok)
{
	struct eval_ctx *x = p->x;

	for (int b = 0; b < MAX_BLOCKS; b++) {
		struct runner **kb = b ? &x->tblk[b][0] : &x->keep[ROLE_BASE];
		struct runner **kc = b ? &x->tblk[b][1] : &x->keep[ROLE_CAND];
		ev_release(x, kb, p->blocks[b].base, ok);
		ev_release(x, kc, p->blocks[b].cand, ok);
	}
}

const struct pair_step ev_gpu_step = {
	/* A quick search step: a rough answer fast (docs/gpu.md). */
	.quick_div = 8,
	.quick_cap = 0.15,
	.prepare = gpu_prepare,
	.group_start = NULL,
	.pair = gpu_timed_pair,
	.group_end = NULL,
	.claims_ok = gpu_claims_ok,
	.finish = gpu_finish,
};

/*
 * correctness_gpu.c - correctness of a GPU candidate, checked with the
 * very samples timing uses (gpu_sample.c), so that a candidate cannot be
 * exact while it is watched and approximate while it is timed:
 *
 *   - the batch of a case (calls per sample) is decided before the
 *     candidate's first call, from the baseline alone, and is the same in
 *     correctness trials, warm-up and timed samples;
 *   - every trial is a sample of the baseline, then of the candidate,
 *     each gen + the keeper's flush + time + fetch + probe, with the
 *     inputs drawn on the device from the trial's seed;
 *   - the candidate's inputs, on the random quarter of samples that fetch
 *     them (as in timing), must equal the baseline's bit for bit; every
 *     set's outputs must be within twice the tolerance of the
 *     baseline's, and one set drawn at random (which the candidate cannot
 *     know) within the task's tolerance of the reference's, on the inputs
 *     the trusted baseline drew; on the first trial the baseline must
 *     agree with the reference too (else the task is at fault);
 *   - after the trials, one call under the ordering check (gpu_gate.h)
 *     on the last trial's reference inputs: a contract check that work is
 *     ordered on the stream arena_launch is given.  It is a `call`, which
 *     a candidate can tell apart; timing holds it to the same rules by
 *     random reference checks of timed samples (timing_gpu.c) and the
 *     charged excess.
 */
#include "evaluation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One call under the ordering check on set k of the baseline's last
 * sample (its inputs, drawn again by ev_gpu_reference_check), compared
 * with the reference's outputs on them (still in the reference runner). */
static bool ordering_check(struct eval_ctx *x, const struct case_layout *l,
			   struct runner *ref, struct runner *base,
			   struct runner *cand, int k, int pattern,
			   const struct task_case *c)
{
	const struct task *t = x->t;
	size_t off = (size_t)k * l->shm_size;
	void *stage[TASK_MAX_ARGS];
	const char *what = "in the ordering check's call";
	char prefix[200];

	for (int a = 0; a < t->nargs; a++)
		stage[a] = base->shm + off + l->offset[a];
	ev_stage_into(t, l, stage, cand, pattern);
	if (!ev_call_checked(x, ROLE_CAND, cand, what, c) ||
	    !ev_inputs_intact(x, l, stage, cand, what, c))
		return false;
	snprintf(prefix, sizeof(prefix),
		 "output of the ordering check's call in %s '%s' differs "
		 "from the reference",
		 ev_case_kind(c), c->id);
	return ev_outputs_match(x, l, cand, ref, 1.0, pattern, NULL,
				RS_INCORRECT, prefix);
}

int ev_gpu_check_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	struct case_layout l;
	struct runner *ref = NULL, *cand = NULL, *base = NULL;
	int trials = ev_correctness_trials(x);
	struct errbuf e;
	struct rng r;
	char *spec = NULL;
	int k = 0, pattern = 0, n;
	bool ok = false;

	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	if (!(ref = ev_acquire(x, ROLE_REF, &l, c)) ||
	    !(base = ev_acquire(x, ROLE_BASE, &l, c)) ||
	    !(cand = ev_acquire(x, ROLE_CAND, &l, c)))
		goto out;
	if ((n = ev_gpu_case_batch(x, ci, base, &l, c)) < 1 ||
	    !ev_gpu_sets(x, ROLE_BASE, base, n, &l, c) ||
	    !ev_gpu_sets(x, ROLE_CAND, cand, n, &l, c))
		goto out;
	/* Which samples fetch inputs and which set meets the reference:
	 * the controller's draws, never sent to a runner. */
	rng_seed(&r, ev_derive(x->req->seed ^ x->secret, 7, (uint64_t)ci, 0));
	for (int trial = 0; trial < trials; trial++) {
		char what[64], prefix[160], setpfx[200];
		struct gpu_sample bs, cs;
		bool inputs = (rng_next(&r) & 3) == 0;
		struct gpu_sets cmp;

		pattern = trial & 1;
		free(spec);
		/* From the evaluation's secret as well, as timing inputs
		 * are: a candidate that knew the seed (results show it)
		 * could otherwise compute these inputs' outputs ahead. */
		spec = ev_gpu_gen_spec(x, &l, pattern,
				       ev_derive(x->req->seed ^ x->secret, 1,
						 (uint64_t)ci,
						 (uint64_t)trial));
		snprintf(what, sizeof(what), "in correctness trial %d",
			 trial + 1);
		/* Each side's sample by the controller's clock, for the
		 * trace: a runner's first sample holds its kernel's JIT
		 * (Triton compiles at the first call). */
		uint64_t t0 = now_ns();
		if (!ev_gpu_sample(x, ROLE_BASE, base, n, spec,
				   ev_gpu_fetch_mask(t, true), what, c, &bs))
			goto out;
		uint64_t t1 = now_ns();
		if (!ev_gpu_sample(x, ROLE_CAND, cand, n, spec,
				   ev_gpu_fetch_mask(t, inputs), what, c, &cs))
			goto out;
		uint64_t t2 = now_ns();
		ev_trace_detail(x, "case %s trial %d: sampled", c->id,
				trial + 1);
		ev_gpu_compare_pick(&cmp, &l, n, &r);
		k = cmp.set[rng_range(&r, 0, cmp.n - 1)];
		snprintf(setpfx, sizeof(setpfx),
			 "output of correctness trial %d "
			 "in %s '%s' differs from baseline",
			 trial + 1, ev_case_kind(c), c->id);
		if (!ev_gpu_sets_match(x, &l, base, cand, &cmp, pattern, inputs,
				       k, NULL, what, setpfx, c))
			goto out;
		snprintf(prefix, sizeof(prefix),
			 "%s '%s', correctness trial %d", ev_case_kind(c),
			 c->id, trial + 1);
		if (!ev_gpu_reference_check(x, &l, ref, base, cand, k, spec,
					    pattern, trial == 0, true, what,
					    prefix, c, &cr->max_abs_err))
			goto out;
		/* The output mutants of the call the reference checked: set
		 * k, whose inputs the baseline drew again into its own set k
		 * (an inout's initial values). */
		if (x->req->mutants) {
			size_t off = (size_t)k * l.shm_size;
			void *in[TASK_MAX_ARGS];
			for (int a = 0; a < t->nargs; a++)
				in[a] = base->shm + off + l.offset[a];
			ev_mutants_probe(x, ci, trial, &l, in, cand->shm + off,
					 ref->shm, pattern);
		}
		ev_trace_mark(x,
			      "case %s trial %d: checked (%d call%s per "
			      "sample, call %d against the reference; "
			      "samples took %.1f ms baseline, %.1f ms "
			      "candidate)",
			      c->id, trial + 1, n, n == 1 ? "" : "s", k + 1,
			      (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e6);
	}
	if (!ordering_check(x, &l, ref, base, cand, k, pattern, c))
		goto out;
	/* A last exchange: a reply forged during the final call would
	 * otherwise still be waiting, unread, when the runner is killed. */
	enum runner_fail pf = runner_ping(cand);
	if (pf != RUNNER_OK) {
		ev_runner_failed(x, ROLE_CAND, cand, pf, "after its last call",
				 c);
		goto out;
	}
	ok = true;
	cr->correct = true;
out:
	free(spec);
	if (!ok && !cr->error && x->decided &&
	    x->res->correctness_error_message)
		cr->error = xstrdup(x->res->correctness_error_message);
	/* A candidate that was merely wrong on a held-out case keeps its
	 * runner (the other held-out cases are still checked); anything
	 * else ends it. */
	bool keep_cand = ok || (x->decided && x->res->status == RS_INCORRECT);
	ev_release(x, &x->keep[ROLE_REF], ref, ok || keep_cand);
	ev_release(x, &x->keep[ROLE_CAND], cand, keep_cand);
	ev_release(x, &x->keep[ROLE_BASE], base, ok || keep_cand);
	layout_release(&l);
	return ok ? 0 : -1;
}

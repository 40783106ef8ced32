/*
 * timing.h - the sampling loop's parts (timing.c) and the pair step each
 * device plugs into it (timing_host.c, timing_gpu.c).  Private to the
 * eval room; docs/evaluator.md and docs/gpu.md explain the method.
 *
 * One loop times a case on any device: blocks of a baseline runner and a
 * candidate runner, started a group at a time (as many as memory allows),
 * round robin one timed pair per block until the case has min_pairs per
 * block and then its time budget, max_pairs or (every fourth round of
 * the last group) an interval as narrow as target_ci ends it; after each
 * group every candidate runner must still answer.  Then the device's
 * claims check and the case's interval.  What a pair is - how inputs get
 * there, what is timed, what is compared and checked - is the device's
 * pair step.
 */
#ifndef ARENA_EVAL_TIMING_H
#define ARENA_EVAL_TIMING_H

#include "evaluation.h"

struct block {
	struct runner *base, *cand;
	int pairs;
	int index;		/* in the case's blocks */
	bool base_next;		/* GPU: the baseline goes first in the next
				 * pair (pairs alternate) */
};

/* Every timed pair's numbers, one column each (ev_samples_add). */
enum {
	S_BASE,
	S_CAND,
	S_BOVH,
	S_COVH,
	S_BDRAIN,
	S_CDRAIN,
	S_BFETCH,
	S_BCPU,
	S_CCPU,
	S_BDELAY,
	S_CDELAY,
	S_BFOVH,
	S_CFOVH,
	S_BTOVH,
	S_CTOVH,
	S_BROVH,
	S_CROVH,
	S_FIRST,
	NS
};
struct samples {
	double *v[NS]; /* base_ns, cand_ns (claims), base_ovh,
				 * cand_ovh (host: wall + fetch - claim;
				 * GPU: struct gpu_sample's ovh),
				 * base_drain, cand_drain, base_fetch,
				 * base_cpu, cand_cpu, base_delay,
				 * cand_delay (host: CPU time over the
				 * request, wait for a CPU meanwhile),
				 * base_fovh, cand_fovh (GPU: fetch and
				 * the keeper's probes after it),
				 * base_tovh, cand_tovh (GPU: the `time`
				 * request alone beyond its claim),
				 * base_rovh, cand_rovh (GPU: from the
				 * controller's gate opening to the reply,
				 * beyond the claim; where either runner
				 * opened its own gate, tovh), and
				 * 1 where the baseline went first */
	int *block;    /* each pair's block */
	int n, cap;
	int ngated; /* GPU: pairs whose gates the controller opened */
};

/* A case's timing limits from the request (ev_case_budget). */
struct case_budget {
	int nblocks, min_pairs, max_pairs;
	double budget_s;
};

/* One case being timed: what the loop and the pair step share. */
struct timing_case {
	struct eval_ctx *x;
	int ci;
	const struct task_case *c;
	struct case_timing *ct;
	const struct case_layout *l;	/* &layout */
	struct case_layout layout;
	struct rng *r;			/* &rng: this case's draws */
	struct rng rng;
	struct case_budget cb;
	struct block blocks[MAX_BLOCKS];
	int group;		/* blocks alive at once */
	struct samples s;
	int nwarm;		/* warm-up calls so far */
	int ntimed;		/* timed pairs so far */
	int n;			/* calls per timed batch (1 on the host) */
	/* host: fresh inputs per pair come from a pool through stage */
	const struct input_pool *pool;	/* &pool_store, or NULL */
	struct input_pool pool_store;
	void **stage;
	/* GPU: set k of a batch at shared-memory offset k * stride */
	size_t stride;
	/* GPU: every runner's sets were lent by the keeper, which compares
	 * them where they lie (ev_gpu_lent_match): a sample's fetch copies
	 * nothing */
	bool lent;
	/* A reference runner for checks of timed samples (host), or NULL. */
	struct runner *ref;
	/* GPU with a host reference: those checks run in the background
	 * (refpool.c), or NULL. */
	struct refpool *refpool;
	/* The roofline floor of one call in ns (0: none known). */
	double roof_ns;
	/* The baseline's time per call from warm-up (trusted): what the
	 * timing floor is held against; 0 until a pair step knows it. */
	double base_call_ns;
	/* Reference checks of timed samples (ev_refcheck_due): drawn from
	 * the evaluation's secret, never announced to a runner. */
	struct rng check_rng;
	int check_at[MAX_BLOCKS]; /* a pair index checked for sure */
	/* The pairs being taken are their blocks' last (time_case): each
	 * is checked, so that a kernel exact only for its process's first
	 * calls - past the first sure check - is checked once it strays. */
	bool closing;
	/* GPU: the windows of sampled comparisons (ev_gpu_sets_match),
	 * drawn from the evaluation's secret after the outputs are
	 * fetched. */
	struct rng sample_rng;
	int nchecked;		  /* samples checked so far */
	/* What the case reports per call, in ns (the pair step's charged
	 * times; the claims' medians when it sets none). */
	double base_med_ns, cand_med_ns;
	/* Host: the CPU time a request costs the baseline's runner beyond
	 * the call (ping requests after the same flush), one per ping. */
	double *ovh;
	int novh, capovh;
	/* A note for the case's result (the pair step's, owned), or NULL. */
	char *note;
	/* GPU: the charged excess of the case in ns per sample (the lower
	 * 95% bound of its median, or 0), that median and the upper bound,
	 * for the time a sample held inputs and for handing its outputs over
	 * (fetch_); the pair step's ratios, docs/gpu.md section 6. */
	double excess_ns, excess_med_ns, excess_hi_ns;
	double fetch_excess_ns, fetch_excess_med_ns, fetch_excess_hi_ns;
	/* GPU: the strict lower bound (GPU_EXCESS_ALPHA_STRICT) and the
	 * median of the same for the `time` request alone (its wall beyond
	 * the claim), a part of the first with less noise; the charge for
	 * holding inputs is the larger bound (excess_ns). */
	double time_excess_ns, time_excess_med_ns;
	/* GPU: the same for the controller's gate opened to the reply, a
	 * part of the `time` request with less noise still: no launch in it
	 * (S_BROVH). */
	double gate_excess_ns, gate_excess_med_ns;
	/* GPU: the same request's floor (gpu_floor_excess_ns): its strict
	 * lower bound, also a part of excess_ns, and its point value. */
	double floor_excess_ns, floor_excess_point_ns;
	/* GPU: the distribution-free lower bounds of the same medians
	 * (-INFINITY while the pairs are too few), which alone call an
	 * excess gross. */
	double excess_sound_ns, fetch_excess_sound_ns;
	/* GPU: the excess's bounds are still too far apart to stop early. */
	bool excess_unsettled;
	/* GPU: a median excess above the gross line that the
	 * distribution-free bound does not (yet) confirm: the case needs
	 * more pairs before its claims are judged (pair_step.wants_more). */
	bool gross_open;
	/* GPU: the candidate's claims are disputed (gpu_claim_disputed):
	 * the case is not done early and needs more pairs, as for
	 * gross_open, while there is time (a quick evaluation's first,
	 * single-block timing sends a dispute to fresh runners instead). */
	bool claim_open;
};

/* A device's side of the loop.  Each hook returns false with a verdict
 * set to stop the case. */
struct pair_step {
	/* quick evaluations: budget / quick_div, at most quick_cap s */
	double quick_div, quick_cap;
	/* Per-case state before the loop; sets tc->group (and may start
	 * every block and warm it up). */
	bool (*prepare)(struct timing_case *tc);
	/* Starts blocks [g0, g1) of a group; NULL when prepare did. */
	bool (*group_start)(struct timing_case *tc, int g0, int g1);
	/* One timed pair on block b, its ratio and samples recorded. */
	bool (*pair)(struct timing_case *tc, int b);
	/* After a group's last pair; NULL for nothing. */
	void (*group_end)(struct timing_case *tc, int g0, int g1);
	/* After the last pair, before the case's numbers are computed: waits
	 * for the checks the pairs left running; NULL for none. */
	bool (*join)(struct timing_case *tc);
	/* Rebuilds tc->ct's ratios (and base_med_ns, cand_med_ns) from the
	 * samples, for pair steps whose per-pair times depend on the whole
	 * case (host: the baseline's median protocol overhead); called before
	 * every interval.  NULL: each pair adds its own ratio. */
	void (*ratios)(struct timing_case *tc);
	/* Once the case's time share is spent: whether its claims cannot be
	 * judged yet and it should take more pairs (the loop goes on, asking
	 * again every few rounds, to max_pairs or max(EV_CASE_OVERRUN x its
	 * budget, EV_OVERRUN_MIN_S), timing.c); NULL for never. */
	bool (*wants_more)(struct timing_case *tc);
	/* The case's claimed times against what the controller knows. */
	bool (*claims_ok)(struct timing_case *tc);
	/* Always called last: the case's runners and buffers given back
	 * (ok: the case was timed). */
	void (*finish)(struct timing_case *tc, bool ok);
};

extern const struct pair_step ev_host_step, ev_gpu_step;

/* ---- shared by the pair steps (timing.c) ------------------------------ */

void ev_samples_add(struct samples *s, int block, bool base_first,
		    const struct gpu_sample *b, const struct gpu_sample *c);
double ev_samples_median(const struct samples *s, int which);
/* The lower quartile: a forger's shift moves every quantile alike, while
 * a busy machine's occasional delays inflate the upper ones. */
double ev_samples_quartile(const struct samples *s, int which);
/* Three standard errors of the median pairwise difference of two
 * overhead columns: what noise alone can add to it. */
double ev_overhead_noise_ns(const double *cand, const double *base, int n);
/* Records ratio (baseline / candidate) for block b. */
void ev_timing_add(struct case_timing *ct, int b, double ratio);
/* Forgets every ratio of ct (its blocks stay). */
void ev_timing_clear(struct case_timing *ct);
/* Whether the next timed pair of block b (its index: blocks[b].pairs) is
 * also checked against the reference at the task's tolerance: one pair
 * among every block's first min_pairs, every block's last pair, and each
 * other pair with probability 1 / REFCHECK_EVERY, drawn from
 * tc->check_rng.  The draw happens in the controller after the runners
 * were told nothing, so no runner can know which of its calls are
 * checked. */
bool ev_refcheck_due(struct timing_case *tc, int b);
/* The same draw without the A/A exception: whether the next timed pair
 * of block b is checked whole (the GPU compares every such pair's sets
 * whole with the baseline's, in an A/A run too; docs/gpu.md section
 * 6). */
bool ev_check_due(struct timing_case *tc, int b);
/* The case's timing floor in ns: the task's timing_floor_us, else
 * TIMING_FLOOR_NS (a case whose baseline call is shorter is checked, not
 * timed). */
double ev_timing_floor_ns(const struct task *t);
/* Whether case c is below the timing floor on this machine: 1 (checked,
 * not timed) or 0 (timed), as the first evaluation here that measured
 * the baseline's call decided (timing_floor.c), else decided now from
 * measured_ns (> 0) and kept; -1 while nothing is known (no decision kept
 * and nothing measured yet).  *base_ns: the baseline's call in ns that
 * the decision rests on. */
int ev_floor_decision(struct eval_ctx *x, const struct task_case *c,
		      double measured_ns, double *base_ns);
/* A clock-check finding: the verdict when it is the second in this case,
 * else only noted so that the case is timed again. */
void ev_clock_finding(struct eval_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* ARENA_EVAL_TIMING_H */

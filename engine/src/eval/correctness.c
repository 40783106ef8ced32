/*
 * correctness.c - the correctness phase of an evaluation: per case,
 * `correctness_trials` (at least 3) fresh input sets drawn from (seed,
 * case, trial); outputs poisoned before every call; the reference's
 * outputs must all be written; on the first trial the baseline must agree
 * with the reference (else the task is at fault); the candidate must
 * return 0, leave its inputs bit-identical and write outputs within
 * tolerance of the reference's.  On a GPU the trials are the samples
 * timing uses (correctness_gpu.c), except for a task with no GPU baseline
 * (never timed), whose host reference runs ahead while the candidate
 * compiles (ev_reference_ahead).
 */
#include "evaluation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ev_correctness_trials(const struct eval_ctx *x)
{
	int trials = x->req->timing.correctness_trials;

	return trials < 3 ? 3 : trials;
}

/* A trial's fresh inputs into stage, the reference's call on them, and
 * its outputs checked for being written.  False (verdict set) when the
 * reference failed. */
static bool reference_trial(struct eval_ctx *x, int ci, int trial,
			    const struct case_layout *l, void **stage,
			    struct runner *ref, const char *what)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	int pattern = trial & 1;
	struct rng r;

	rng_seed(&r, ev_derive(x->req->seed, 1, (uint64_t)ci, (uint64_t)trial));
	if (x->rec && !trial) /* an AKA task: the harness's own inputs */
		ev_aka_fill_own(x, ci, l, stage);
	else if (x->rec)
		ev_aka_fill(x, ci, l, rng_next(&r), stage);
	else
		for (int a = 0; a < t->nargs; a++)
			if (t->args[a].io != IO_OUT)
				inputs_fill(t, l, a, &r, stage[a]);
	ev_stage_into(t, l, stage, ref, pattern);
	return ev_call_checked(x, ROLE_REF, ref, what, c) &&
	       ev_reference_wrote_all(x, l, ref, pattern, c) &&
	       (trial > 0 ||
		ev_reference_split_holds(x, l, ref, stage, pattern, c));
}

const char *ev_split_note(const struct eval_ctx *x)
{
	return ev_reference_threads(x) > 1
		       ? " (its reference runs cut into row ranges, as the "
			 "task's reference.split declares: `arena "
			 "check-tasks` checks that declaration)"
		       : "";
}

bool ev_reference_split_holds(struct eval_ctx *x, const struct case_layout *l,
			      struct runner *ref, void *const *stage,
			      int pattern, const struct task_case *c)
{
	const struct task *t = x->t;
	int threads = ev_reference_threads(x);
	unsigned char *cut[TASK_MAX_ARGS] = { NULL };
	enum runner_fail f = RUNNER_OK;
	bool ok = true;

	if (!x->req->mutants || threads < 2 || ref->gpu)
		return true;
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_IN) {
			cut[a] = xmalloc(l->bytes[a] ? l->bytes[a] : 1);
			memcpy(cut[a], ref->shm + l->offset[a], l->bytes[a]);
		}
	/* The same inputs again (an inout's were overwritten), whole. */
	ev_stage_into(t, l, stage, ref, pattern);
	if ((f = runner_split(ref, t->reference_split_param, 1,
			      t->reference_split_args)) != RUNNER_OK) {
		ev_runner_failed(x, ROLE_REF, ref, f,
				 "while checking reference.split", c);
		ok = false;
		goto out;
	}
	if (!(ok = ev_call_checked(x, ROLE_REF, ref,
				   "in the whole call that checks "
				   "reference.split", c)))
		goto out;
	for (int a = 0; a < t->nargs && ok; a++) {
		const unsigned char *whole = ref->shm + l->offset[a];
		size_t sz = dtype_size(t->args[a].dtype), i = 0;

		if (!cut[a] || memcmp(cut[a], whole, l->bytes[a]) == 0)
			continue;
		while (memcmp(cut[a] + i * sz, whole + i * sz, sz) == 0)
			i++;
		ev_verdict(x, RS_INFRA_ERROR,
			   "the task's reference.split '%s' does not hold in "
			   "%s '%s': output '%s' element %zu differs between "
			   "the reference's call cut into %d row ranges and "
			   "its whole call; make each row independent of the "
			   "others and of the param's value, or remove split "
			   "(docs/tasks.md)",
			   t->params[t->reference_split_param],
			   ev_case_kind(c), c->id, t->args[a].name, i,
			   threads);
		ok = false;
	}
	/* Cut again for the case's other calls. */
	if (ok && (f = runner_split(ref, t->reference_split_param, threads,
				    t->reference_split_args)) != RUNNER_OK) {
		ev_runner_failed(x, ROLE_REF, ref, f,
				 "while checking reference.split", c);
		ok = false;
	}
out:
	for (int a = 0; a < t->nargs; a++)
		free(cut[a]);
	return ok;
}

/* The reference must write every output element itself (the poison of
 * pattern must be gone): infra_error otherwise.  Integer outputs may hold
 * the poison's value by chance in a few isolated elements
 * (poison_chance_allowance); more than that, two in a row, or the
 * first or last element (a loop's bound off by one) is a region nothing
 * wrote. */
bool ev_reference_wrote_all(struct eval_ctx *x, const struct case_layout *l,
			    struct runner *ref, int pattern,
			    const struct task_case *c)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok =
		ev_reference_wrote_all_mem(x->t, l, ref->shm, pattern, c, &sb);

	if (!ok)
		ev_verdict(x, RS_INFRA_ERROR, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return ok;
}

bool ev_reference_wrote_all_mem(const struct task *t,
				const struct case_layout *l,
				const unsigned char *shm, int pattern,
				const struct task_case *c, struct strbuf *why)
{
	/* Only outputs wider than a byte can be checked: for them the poison
	 * is a NaN or an integer no kernel produces by chance, but every
	 * byte value is a legitimate u8/i8 result (a quantized tensor holds
	 * the poison bytes 0xa5 and 0x5a as often as any other). */
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		size_t sz = dtype_size(ta->dtype);
		if (ta->io != IO_OUT || sz == 1)
			continue;
		const unsigned char *p = shm + l->offset[a];
		int64_t allowed =
			poison_chance_allowance(ta->dtype, l->numel[a]);
		int64_t seen = 0, prev = -2, n = l->numel[a];
		for (int64_t i = poison_find(ta->dtype, p, 0, n, pattern);
		     i < n; i = poison_find(ta->dtype, p, i + 1, n, pattern)) {
			if (++seen <= allowed && prev != i - 1 && i != 0 &&
			    i != n - 1) {
				prev = i;
				continue;
			}
			strbuf_addf(why,
				    "the reference did not write output '%s' "
				    "element %lld in %s '%s'",
				    ta->name, (long long)i, ev_case_kind(c),
				    c->id);
			return false;
		}
	}
	return true;
}

static struct ref_trial *ahead_trial(struct eval_ctx *x, int ci, int trial)
{
	struct ref_trial *rt;

	if (!x->ahead)
		return NULL;
	rt = &x->ahead[ci * ev_correctness_trials(x) + trial];
	return rt->shm ? rt : NULL;
}

void ev_ahead_release(struct eval_ctx *x)
{
	int n = x->t->ncases * ev_correctness_trials(x);

	for (int i = 0; x->ahead && i < n; i++) {
		ev_stage_free(x->ahead[i].in);
		free(x->ahead[i].shm);
	}
	free(x->ahead);
	x->ahead = NULL;
}

/* Runs the reference of every correctness trial it can ahead, while the
 * candidate compiles (a GPU compiler takes a second or two; the host
 * reference of a few million elements takes tenths): inputs and outputs
 * kept in memory, up to AHEAD_MAX_BYTES in all.  check_case takes them
 * instead of calling the reference.  A failing reference sets its
 * verdict here. */
#define AHEAD_MAX_BYTES ((size_t)256 << 20)
void ev_reference_ahead(struct eval_ctx *x)
{
	const struct task *t = x->t;
	int trials = ev_correctness_trials(x);
	size_t used = 0;

	x->ahead = xcalloc((size_t)(t->ncases * trials), sizeof(*x->ahead));
	for (int pass = 0; pass < 2; pass++)
		for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
			const struct task_case *c = &t->cases[ci];
			struct case_layout l;
			struct errbuf e;
			if (c->held_out != (pass == 1) ||
			    (c->held_out && !x->req->include_held_out))
				continue;
			errbuf_init(&e);
			if (layout_build(t, c, &l, &e) != 0)
				return;	/* check_case says so */
			size_t in = 0;
			for (int a = 0; a < t->nargs; a++)
				if (t->args[a].io != IO_OUT)
					in += l.bytes[a];
			if (used + (size_t)trials * (in + l.shm_size) >
			    AHEAD_MAX_BYTES) {
				layout_release(&l);
				return;
			}
			struct runner *ref = ev_acquire(x, ROLE_REF, &l, c);
			bool ok = ref != NULL;
			for (int trial = 0; trial < trials && ok; trial++) {
				struct ref_trial *rt = &x->ahead[ci * trials + trial];
				char what[64];
				snprintf(what, sizeof(what),
					 "in correctness trial %d", trial + 1);
				rt->in = ev_stage_alloc(t, &l);
				ok = reference_trial(x, ci, trial, &l, rt->in,
						     ref, what);
				if (ok) {
					rt->shm = xmalloc(l.shm_size);
					memcpy(rt->shm, ref->shm, l.shm_size);
					used += in + l.shm_size;
				}
			}
			ev_release(x, &x->keep[ROLE_REF], ref, ok);
			layout_release(&l);
			ev_trace_mark(x, "case %s: reference run ahead", c->id);
			if (!ok)
				return;
		}
}

/* The shared reference cache's key of one fact about case ci
 * (docs/evaluator.md, "Reuse across evaluations"): "trial" (the inputs
 * drawn from draw_seed and the reference's outputs on them) or "baseline
 * agrees" (the baseline's outputs on them were within tolerance).  It
 * covers what the fact is a function of: the evaluator's input
 * generation (its version; the cache lives in one process, so one
 * build of it), the reference artifact and, for the second, the
 * baseline artifact (each named by the hash of everything that built
 * it: compile.c), the task's definition (config and held-out cases), the
 * case's layout and integer bounds, and the seed the inputs are drawn
 * from. */
static void refcache_key(const struct eval_ctx *x, const char *fact,
			 const struct task_case *c, const struct case_layout *l,
			 uint64_t draw_seed, unsigned char key[32])
{
	const struct task *t = x->t;
	struct sha256 h;
	unsigned char le[8];

	sha256_init(&h);
#define FIELD(s) sha256_update(&h, (s), strlen(s) + 1)
	FIELD("arena-refcache/1");
	FIELD(ARENA_EVALUATOR_VERSION);
	FIELD(fact);
	FIELD(path_last(x->so[ROLE_REF]));
	if (!strcmp(fact, "baseline agrees"))
		FIELD(path_last(x->so[ROLE_BASE]));
	FIELD(t->id);
	FIELD(t->config_sha256);
	FIELD(c->id);
	FIELD(l->proto);
#undef FIELD
	sha256_update(&h, l->lo, sizeof(l->lo[0]) * (size_t)t->nargs);
	sha256_update(&h, l->hi, sizeof(l->hi[0]) * (size_t)t->nargs);
	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(draw_seed >> (8 * i));
	sha256_update(&h, le, 8);
	sha256_final(&h, key);
}

int ev_check_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	struct case_layout l;
	struct runner *ref = NULL, *cand = NULL, *base = NULL;
	void **stage = NULL;
	struct errbuf e;
	int trials = ev_correctness_trials(x);
	bool ok = false;
	/* The shared reference cache (host evaluations: a GPU's trusted
	 * runners also bound what a candidate's runner may start). */
	struct eval_refcache *rc = x->gpu ? NULL : x->req->refcache;
	const struct ev_refentry *hit[64] = { 0 };
	unsigned char tkey[64][32], bkey[32];
	bool all_hit = false, base_known = false;

	/* On a GPU, the samples timing uses (correctness_gpu.c); a task
	 * with nothing on the device to time against is never timed, and
	 * its candidate is called as here. */
	if (x->gpu && !x->no_gpu_baseline)
		return ev_gpu_check_case(x, ci, cr);
	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	stage = ev_stage_alloc(t, &l);
	if (trials > 64)
		rc = NULL;
	all_hit = rc != NULL;
	for (int trial = 0; rc && trial < trials; trial++) {
		refcache_key(x, "trial", c, &l,
			     ev_derive(x->req->seed, 1, (uint64_t)ci,
				       (uint64_t)trial),
			     tkey[trial]);
		hit[trial] = ev_refcache_get(rc, tkey[trial]);
		all_hit = all_hit && hit[trial] != NULL;
	}
	if (rc && !x->baseline_is_reference) {
		refcache_key(x, "baseline agrees", c, &l,
			     ev_derive(x->req->seed, 1, (uint64_t)ci, 0), bkey);
		base_known = ev_refcache_has(rc, bkey);
	}
	/* Runners only for what the cache does not know, started together
	 * (ev_acquire_set). */
	enum role roles[NROLES];
	struct runner *got[NROLES];
	int nwant = 0;
	if (!all_hit)
		roles[nwant++] = ROLE_REF;
	roles[nwant++] = ROLE_CAND;
	if (!x->baseline_is_reference && !base_known)
		roles[nwant++] = ROLE_BASE;
	if (!ev_acquire_set(x, roles, nwant, &l, c, got))
		goto out;
	for (int i = 0; i < nwant; i++)
		*(roles[i] == ROLE_REF	  ? &ref
		  : roles[i] == ROLE_CAND ? &cand
					  : &base) = got[i];
	if (all_hit)
		ev_trace_mark(x,
			      "case %s: reference outputs of every trial "
			      "from the shared cache",
			      c->id);

	for (int trial = 0; trial < trials; trial++) {
		struct ref_trial *rt = ahead_trial(x, ci, trial);
		void *const *in = stage;
		const unsigned char *want;
		char what[64], prefix[320];
		int pattern = trial & 1;

		snprintf(what, sizeof(what), "in correctness trial %d", trial + 1);
		if (hit[trial]) {
			/* Read in place: the entry is immutable and pinned. */
			in = ev_refentry_inputs(hit[trial]);
			want = ev_refentry_shm(hit[trial]);
		} else {
			if (rt) {
				for (int a = 0; a < t->nargs; a++)
					if (t->args[a].io != IO_OUT)
						memcpy(stage[a], rt->in[a],
						       l.bytes[a]);
				memcpy(ref->shm, rt->shm, l.shm_size);
			} else if (!reference_trial(x, ci, trial, &l, stage,
						    ref, what)) {
				goto out;
			}
			if (rc)
				ev_refcache_put(rc, tkey[trial], t, &l, stage,
						ref->shm);
			want = ref->shm;
		}
		ev_stage_into(t, &l, in, cand, pattern);
		/* The baseline before the candidate: a broken task is the
		 * task's fault whatever the candidate does, and on a GPU the
		 * trusted runner's thread count is the candidate's bound. */
		if (trial == 0 && base) {
			ev_stage_into(t, &l, in, base, pattern);
			if (!ev_call_checked(x, ROLE_BASE, base, what, c))
				goto out;
			snprintf(prefix, sizeof(prefix), "the task's baseline "
				 "disagrees with its reference in %s '%s'%s",
				 ev_case_kind(c), c->id, ev_split_note(x));
			if (!ev_outputs_match_mem(x, &l, base->shm, want, 1.0,
						  pattern, NULL, RS_INFRA_ERROR,
						  prefix))
				goto out;
			if (rc)
				ev_refcache_mark(rc, bkey);
		}
		ev_trace_mark(x, "case %s trial %d: reference done%s", c->id,
			      trial + 1, hit[trial] ? " (cached)" : "");
		if (!ev_call_checked(x, ROLE_CAND, cand, what, c) ||
		    !ev_inputs_intact(x, &l, in, cand, what, c))
			goto out;
		ev_trace_mark(x, "case %s trial %d: candidate done", c->id,
			      trial + 1);
		snprintf(prefix, sizeof(prefix), "%s '%s', correctness trial %d",
			 ev_case_kind(c), c->id, trial + 1);
		if (!ev_outputs_match_mem(x, &l, cand->shm, want, 1.0, pattern,
					  &cr->max_abs_err, RS_INCORRECT,
					  prefix)) {
			free(cr->error);
			cr->error = xstrdup(x->res->correctness_error_message);
			goto out;
		}
		/* The trial's inputs and reference bytes, cached or not (a
		 * cache hit starts no reference runner). */
		ev_mutants_probe(x, ci, trial, &l, in, cand->shm, want,
				 pattern);
	}
	/* A last exchange: a reply forged during the final call would
	 * otherwise still be waiting, unread, when the runner is killed. */
	enum runner_fail pf = runner_ping(cand);
	if (pf != RUNNER_OK) {
		ev_runner_failed(x, ROLE_CAND, cand, pf, "after its last call", c);
		goto out;
	}
	ok = true;
	cr->correct = true;
out:
	for (int trial = 0; rc && trial < trials; trial++)
		ev_refcache_unpin(rc, hit[trial]);
	if (!ok && !cr->error && x->decided &&
	    x->res->correctness_error_message)
		cr->error = xstrdup(x->res->correctness_error_message);
	/* A candidate that was merely wrong on a held-out case keeps its
	 * runner (the other held-out cases are still checked); anything
	 * else ends it. */
	bool keep_cand = ok || (x->decided && x->res->status == RS_INCORRECT);
	if (ref)
		ev_release(x, &x->keep[ROLE_REF], ref, ok || keep_cand);
	ev_release(x, &x->keep[ROLE_CAND], cand, keep_cand);
	if (base)
		ev_release(x, &x->keep[ROLE_BASE], base, ok || keep_cand);
	ev_stage_free(stage);
	layout_release(&l);
	return ok ? 0 : -1;
}

/*
 * gpu_sample.c - one GPU sample, the same in every phase (docs/gpu.md
 * section 6), and what correctness and timing share around it.
 *
 * A sample of runner R (baseline or candidate), every other runner
 * stopped and the keeper (a trusted GPU process with no kernel) resumed
 * throughout:
 *   0. `warm` to the keeper: a ~1 ms busy kernel, so that both runners of
 *      a pair find the device equally warm (not charged);
 *   1. `gen` to R: the sample's inputs drawn on the device from a seed
 *      only this request carries, outputs poisoned there;
 *   2. `flush` to the keeper, posted the moment R's reply is read (R is
 *      stopped after): 2x L2 of the keeper's own memory written, so that
 *      the flush does not depend on code the candidate can rewrite, then
 *      probes until the device is idle;
 *   3. `time n` to R: n calls between two events on R's stream (the
 *      claim), then a wait for the whole device (the drain);
 *   4. `probe` to the keeper, posted on R's reply: probes until idle;
 *   5. `fetch` to R: outputs (and inputs, on a random quarter of samples)
 *      back to shared memory;
 *   6. `probe` to the keeper, posted on R's reply.
 * R can do useful work only while it holds inputs and its outputs are not
 * yet taken: in its requests 1, 3 and 5, which the controller's clock
 * covers (R is stopped in between), and on the device after its replies,
 * which the keeper's work of 2, 4 and 6 waits for (contexts of different
 * processes take turns on a device) and which the keeper's own clock
 * covers.  What R's sample took beyond its claim in 1-4 (struct
 * gpu_sample's ovh) and what 5-6 took (fovh) are compared with the
 * other runner's by timing_gpu.c, which charges the candidate the
 * difference the clocks confirm.  Not covered: the moments between R's
 * reply and the keeper's launch (o->gaps, recorded: the host's reaction
 * time), in which work R left on the device runs unseen.
 *
 * Correctness (correctness_gpu.c) uses the same samples with the same
 * batch, decided beforehand from the baseline alone
 * (ev_gpu_case_batch), so that nothing a candidate sees tells a checked
 * sample from a timed one; the reference gets the inputs the trusted
 * baseline drew for the same seed (ev_gpu_reference_check).
 *
 * Also here: the keeper's life, and whether the device still works after
 * a candidate runner reported a device error (ev_device_works).
 */
#include "evaluation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

/* Samples of one call the baseline runs to size a case's batches; the
 * fastest counts (a runner's first call of a case can be many times
 * slower: on the H200 one took 627 us against 7 us after, which sized a
 * 7 us case as a 320 us one and timed it above the floor, 2026-12-02). */
#define GPU_SIZING_SAMPLES 3

/* ---- the keeper -------------------------------------------------------- */

/* A keeper failure: the device or the evaluation is at fault, not the
 * candidate, except a keeper kept waiting by work the candidate left on
 * the device (after_cand). */
static void keeper_failed(struct eval_ctx *x, enum runner_fail f,
			  const char *during, bool after_cand,
			  const struct task_case *c)
{
	struct runner *k = x->keeper;
	char where[256];

	ev_where(where, sizeof(where), during, c);
	if (f == RUNNER_TIMEOUT && after_cand)
		ev_verdict(x, RS_REJECTED,
			   "work left running on the device "
			   "after the candidate's sample %s: the evaluation's "
			   "trusted GPU process %s",
			   where, k->why);
	else
		ev_verdict(x, RS_INFRA_ERROR,
			   "the keeper (the evaluation's "
			   "trusted GPU process) %s %s",
			   k->why, where);
	ev_ctx_forget(x, k);
	x->keeper = NULL;
	x->keeper_pending = false;
}

bool ev_keeper_launch(struct eval_ctx *x)
{
	char devarg[16];
	struct runner_spec s = {
		.runner_path = gpu_runner_path(x->dev.kind),
		.so_path = NULL,
		.entry = "-",
		.role = "keeper",
		.shm_size = 4096,
		.log_fd = x->logfd[ROLE_BASE],
		.timeout_ms = x->timeout_ms,
		.gpu = true,
		.device_arg = devarg,
	};
	struct runner *r;
	enum runner_fail f;

	if (x->keeper)
		return true;
	if (!ev_gpu_memory_before_launch(x))
		return false;
	snprintf(devarg, sizeof(devarg), "%d", x->dev.index);
	if (x->nlive >= MAX_LIVE) {
		ev_verdict(x, RS_INFRA_ERROR, "too many runners at once");
		return false;
	}
	r = runner_new();
	/* Its `lend` replies carry a descriptor. */
	r->takes_fds = true;
	x->live[x->nlive++] = r;
	x->keeper = r;
	x->keeper_pending = true;
	enum result_phase was = ev_phase_enter(x, RPH_RUNNER_START);
	f = runner_launch(r, &s);
	ev_phase_enter(x, was);
	if (f != RUNNER_OK) {
		keeper_failed(x, f, "while starting", false, NULL);
		return false;
	}
	return true;
}

bool ev_keeper_ready(struct eval_ctx *x)
{
	enum runner_fail f;

	if (!x->keeper && !ev_keeper_launch(x))
		return false;
	if (!x->keeper_pending)
		return true;
	x->keeper_pending = false;
	enum result_phase was = ev_phase_enter(x, RPH_RUNNER_START);
	f = runner_await(x->keeper);
	ev_phase_enter(x, was);
	if (f != RUNNER_OK) {
		keeper_failed(x, f, "while starting", false, NULL);
		return false;
	}
	if (!x->keeper->sandboxed)
		x->all_sandboxed = false;
	ev_note_trusted(x, x->keeper);
	return true;
}

bool ev_device_works(struct eval_ctx *x, char *why, size_t why_len)
{
	struct keeper_reply k;
	enum runner_fail f;

	snprintf(why, why_len, "the keeper could not be started");
	if (x->decided || !ev_keeper_ready(x))
		return false;
	f = runner_probe(x->keeper, &k);
	if (f == RUNNER_OK)
		return true;
	snprintf(why, why_len, "the keeper %s", x->keeper->why);
	ev_ctx_forget(x, x->keeper);
	x->keeper = NULL;
	return false;
}

/* ---- one sample ---------------------------------------------------------- */

/* Whether the switch in environment variable name is on: on unless it
 * says 0. */
static bool switch_on(const char *name)
{
	const char *v = getenv(name);

	return !v || strcmp(v, "0") != 0;
}

bool ev_gpu_hold_launch(void)
{
	return switch_on("ARENA_GPU_HOLD_LAUNCH");
}

bool ev_gpu_ctl_gate_wanted(void)
{
	return switch_on("ARENA_GPU_CTL_GATE");
}

bool ev_gpu_dispute_wanted(void)
{
	return switch_on("ARENA_GPU_DISPUTE");
}

bool ev_gpu_capture_wanted(enum dev_kind kind)
{
	const char *v = getenv("ARENA_GPU_CAPTURE");

	if (v && strcmp(v, "1") == 0)
		return true;
	if (v && strcmp(v, "0") == 0)
		return false;
	return kind == DEV_CUDA;
}

/* Whether runner r's timed batches wait for the controller's gate
 * (runner_gate_page): 1 yes, 0 no, -1 failed (the verdict is set).  The
 * page is offered before r's first batch: in every
 * sample, correctness trials included, so that a batch's requests are
 * the same wherever it is.  A trusted runner that cannot map the page
 * (the driver, the sandbox) turns the controller's gate off for the
 * evaluation: runners then open their own (`hold`), and the pairs that
 * mix both are charged as before (timing.c).  A candidate's refusal is
 * its failure, never a way back to the weaker check. */
static int gate_offered(struct eval_ctx *x, enum role role, struct runner *r,
			const struct task_case *c)
{
	if (!x->ctl_gate || r->gate_state < 0)
		return 0;
	if (r->gate_state == 1)
		return 1;
	enum runner_fail f = runner_gate_page(r);
	if (f == RUNNER_OK)
		return 1;
	if (f == RUNNER_REFUSED && role != ROLE_CAND) {
		x->ctl_gate = false;
		ev_trace_mark(x,
			      "the %s runner cannot map the controller's "
			      "gate page (%s): runners open their timed "
			      "batches' gates themselves",
			      ev_role_names[role], r->why);
		return 0;
	}
	ev_runner_failed(x, role, r, f,
			 "while mapping the controller's gate "
			 "page",
			 c);
	return -1;
}

/* A batch behind the controller's gate runs after the token: from the
 * token to the reply (react) lasts at least the claim, less the skew of
 * two clocks (GPU_GATE_SLACK_*).  One that finished earlier ran before
 * the gate opened: honestly only when the gate kernel's deadline passed
 * first (a fresh runner's first launch), in a request at least that
 * long; that sample counts as not gated (react -1: its claim is bound by
 * the whole request).  Otherwise the runner opened its gate itself: a
 * candidate is rejected, a trusted runner's sample counts as not gated
 * (no honest runner does it; nothing of the candidate's moves it). */
static bool gate_held(struct eval_ctx *x, enum role role, struct gpu_sample *o,
		      const char *what, const struct task_case *c)
{
	double slack = fmax(GPU_GATE_SLACK_ABS_NS,
			    GPU_GATE_SLACK_REL * (double)o->claim);

	if (o->react < 0 || (double)o->react + slack >= (double)o->claim)
		return true;
	if (role == ROLE_CAND && o->wall < RP_GATE_LIMIT_NS) {
		ev_verdict(x, RS_REJECTED,
			   "reported times inconsistent with the "
			   "controller's clock: the candidate's batch %s, "
			   "%s '%s', claimed %.1f us but was done %.1f us "
			   "after the controller opened its gate: it ran "
			   "before the gate opened, which only the runner "
			   "itself can have done",
			   what, ev_case_kind(c), c->id, o->claim / 1e3,
			   o->react / 1e3);
		return false;
	}
	o->react = -1;
	return true;
}

/* Whether argument ta is drawn on the device by `gen` (an input that is
 * not recorded), and its seed in the sample whose seed is seed. */
static bool drawn_input(const struct task_arg *ta)
{
	return ta->io != IO_OUT && ta->init.dist != INIT_RECORDED;
}

static uint64_t drawn_seed(uint64_t seed, int a)
{
	return mix64(seed ^ mix64((uint64_t)a + 1));
}

/* Whether any argument of t is drawn by `gen`. */
static bool draws_inputs(const struct task *t)
{
	for (int a = 0; a < t->nargs; a++)
		if (drawn_input(&t->args[a]))
			return true;
	return false;
}

/* The placement seed of the sample whose seed is seed: where both runners
 * of a pair put their sets, and where the keeper compares them.  A keyed
 * one-way function of the seed (SHA-256 under the evaluation's secret):
 * a runner learns its placement before the inputs exist (`capture`,
 * ev_gpu_capture_pair), and must learn nothing of them from it; the
 * first input's own seed, the placement until 2026-12-07, would have
 * told them. */
static uint64_t place_seed(const struct eval_ctx *x, uint64_t seed)
{
	static const char tag[] = "arena placement";
	struct sha256 h;
	unsigned char d[32];
	uint64_t key[2] = { x->secret, seed }, v;

	sha256_init(&h);
	sha256_update(&h, tag, sizeof(tag));
	sha256_update(&h, key, sizeof(key));
	sha256_final(&h, d);
	memcpy(&v, d, sizeof(v));
	return v;
}

char *ev_gpu_gen_spec(const struct eval_ctx *x, const struct case_layout *l,
		      int pattern, uint64_t seed)
{
	const struct task *t = x->t;
	static const char dist[] = { [INIT_NORMAL] = 'n',
				     [INIT_UNIFORM] = 'u',
				     [INIT_RANDINT] = 'r',
				     [INIT_ONES] = 'o' };
	struct strbuf sb = STRBUF_INIT;
	bool rec = false;

	for (int a = 0; a < t->nargs; a++)
		rec |= t->args[a].io != IO_OUT &&
		       t->args[a].init.dist == INIT_RECORDED;
	/* Recorded inputs (an AKA task) are written into every set by the
	 * controller before `gen` copies them ("u"): the seed that picks
	 * the sets travels in a prefix ev_gpu_sample() strips. */
	if (rec)
		strbuf_addf(&sb, "R%llx|", (unsigned long long)seed);
	if (draws_inputs(t))
		strbuf_addf(&sb, "p:%llx ",
			    (unsigned long long)place_seed(x, seed));
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		uint64_t bits;
		if (a)
			strbuf_addch(&sb, ' ');
		if (ta->io != IO_OUT && ta->init.dist == INIT_RECORDED) {
			strbuf_addch(&sb, 'u');
			continue;
		}
		if (ta->io != IO_OUT) {
			/* Each argument its own seed: two inputs with the
			 * same init would otherwise hold the same values in
			 * every sample (student and teacher logits alike),
			 * and a kernel that assumed them equal would pass. */
			strbuf_addf(&sb, "g:%c:%.17g:%.17g:%lld:%lld:%llx",
				    dist[ta->init.dist], ta->init.a, ta->init.b,
				    (long long)l->lo[a], (long long)l->hi[a],
				    (unsigned long long)drawn_seed(seed, a));
			continue;
		}
		int w = poison_bits(ta->dtype, pattern, &bits);
		strbuf_addf(&sb, "%d:%llx", w, (unsigned long long)bits);
	}
	return strbuf_detach(&sb);
}

uint32_t ev_gpu_fetch_mask(const struct task *t, bool inputs)
{
	uint32_t mask = 0;

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_IN || inputs)
			mask |= 1u << a;
	return mask;
}

void ev_gpu_compare_pick(struct gpu_sets *s, const struct case_layout *l, int n,
			 struct rng *r)
{
	int m = gpu_compare_sets(n, l->shm_size);

	/* Each set with the chance (sets still wanted) / (sets left): m of
	 * the n, every choice alike, in ascending order. */
	s->n = 0;
	for (int k = 0; k < n && s->n < m; k++)
		if (rng_range(r, 0, n - k - 1) < m - s->n)
			s->set[s->n++] = k;
}

/* The recorded inputs of a sample (an AKA task): set k of the batch gets
 * the recorded set the spec's seed picks for it, written while the runner
 * is stopped; *spec is moved past the prefix.  False (infra_error) when
 * the case has no layout. */
static bool stage_recorded(struct eval_ctx *x, struct runner *r, int n,
			   const struct task_case *c, const char **spec)
{
	const char *bar = strchr(*spec, '|');
	uint64_t seed = strtoull(*spec + 1, NULL, 16);
	int ci = (int)(c - x->t->cases);
	struct case_layout l;
	struct errbuf e;
	struct rng g;

	errbuf_init(&e);
	bool built = bar && x->rec && layout_build(x->t, c, &l, &e) == 0;
	if (built && (size_t)n * l.shm_size > r->shm_size) {
		errf(&e, "%d sets of %zu bytes do not fit the runner's %zu",
		     n, l.shm_size, r->shm_size);
		layout_release(&l);
		built = false;
	}
	if (!built) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "recorded inputs of %s '%s' cannot "
			   "be staged%s%s",
			   ev_case_kind(c), c->id, e.set ? ": " : "",
			   e.set ? errbuf_str(&e) : "");
		return false;
	}
	rng_seed(&g, seed);
	for (int k = 0; k < n; k++)
		ev_aka_fill_shm(x, ci, &l, rng_next(&g),
				r->shm + (size_t)k * l.shm_size);
	layout_release(&l);
	*spec = bar + 1;
	return true;
}

/* The keeper's request verb, posted the moment runner r has replied,
 * then r stopped (a failure to stop in *rf), then the keeper's reply (*o)
 * and the time from r's reply to the keeper's first launch added to
 * *gaps.  After a failed request (*rf set) r is only stopped: what
 * follows a runner's failure (a probe of the device after a device error,
 * ev_call_outcome_ok) is decided from that failure. */
static enum runner_fail keeper_follow(struct eval_ctx *x, struct runner *r,
				      const char *verb, enum runner_fail *rf,
				      struct keeper_reply *o, int64_t *gaps)
{
	enum runner_fail kf = RUNNER_OK;

	if (*rf == RUNNER_OK)
		kf = runner_keeper_post(x->keeper, verb, x->flush_bytes);
	r->hold = false;
	enum runner_fail sf = r->reaped ? RUNNER_OK : runner_stop(r);
	if (*rf != RUNNER_OK)
		return RUNNER_OK;
	*rf = sf;
	if (kf == RUNNER_OK)
		kf = runner_keeper_collect(x->keeper, verb, o);
	if (kf == RUNNER_OK && o->launched > 0 &&
	    (uint64_t)o->launched > r->replied_at)
		*gaps += o->launched - (int64_t)r->replied_at;
	return kf;
}

/* The verdict when the keeper found the device still busy (for waited
 * ns) after a runner of role did what `after` says ("sample in timed
 * call 3"): the candidate's work left running, or, after a trusted
 * runner, another process on the device. */
static void device_busy_verdict(struct eval_ctx *x, enum role role,
				const char *after, double waited,
				const struct task_case *c)
{
	if (role == ROLE_CAND)
		ev_verdict(x, RS_REJECTED,
			   "work left running on the device after the "
			   "candidate's %s, %s '%s': the evaluation's trusted "
			   "GPU process still found the device busy %.0f ms "
			   "later",
			   after, ev_case_kind(c), c->id, waited / 1e6);
	else
		ev_verdict(x, RS_INFRA_ERROR,
			   "the device stayed busy for %.0f ms after the %s's "
			   "%s, %s '%s': another process is using it",
			   waited / 1e6, ev_role_names[role], after,
			   ev_case_kind(c), c->id);
}

static bool sample(struct eval_ctx *x, enum role role, struct runner *r, int n,
		   const char *spec, uint32_t mask, const char *what,
		   const struct task_case *c, struct gpu_sample *o)
{
	int rc = 0;
	int64_t warm = 0;
	struct keeper_reply kr = { 0 }, kp = { 0 }, kq = { 0 };
	enum runner_fail f = RUNNER_OK, kf;
	const char *kwhat = "while warming the device";

	memset(o, 0, sizeof(*o));
	if (!ev_keeper_ready(x))
		return false;
	if (spec[0] == 'R' && !stage_recorded(x, r, n, c, &spec))
		return false;
	int gated = gate_offered(x, role, r, c);
	if (gated < 0)
		return false;
	struct runner *k = x->keeper;
	k->hold = true;
	uint64_t tw = now_ns();
	kf = runner_warm(k, &warm);
	uint64_t t0 = now_ns();
	o->warm = (int64_t)(t0 - tw);
	if (kf == RUNNER_OK) {
		r->hold = true;
		f = runner_gen(r, spec, &o->gen);
		kwhat = "while flushing L2";
		kf = keeper_follow(x, r, "flush", &f, &kr, &o->gaps);
	}
	if (f == RUNNER_OK && kf == RUNNER_OK) {
		r->hold = true;
		o->graph = r->captured;
		f = runner_time_gpu(r, n, x->gpu_hold, gated == 1, &rc,
				    &o->claim, &o->drain, &o->wall, &o->react);
		kwhat = "while probing the device";
		kf = keeper_follow(x, r, "probe", &f, &kp, &o->gaps);
	}
	if (f == RUNNER_OK && kf == RUNNER_OK) {
		int64_t gaps = 0;
		r->hold = true;
		f = runner_fetch(r, mask, -1, &o->fetch);
		kf = keeper_follow(x, r, "probe", &f, &kq, &gaps);
	}
	o->span = (int64_t)(now_ns() - t0);
	r->hold = false;
	k->hold = false;
	if (kf == RUNNER_OK)
		kf = runner_stop(k);
	o->tail = (int64_t)(now_ns() - t0) - o->span;
	o->keep = kr.ns;
	o->probe = kp.ns;
	o->probe_f = kq.ns;
	if (kf != RUNNER_OK) {
		char during[128];
		snprintf(during, sizeof(during), "%s %s", kwhat, what);
		keeper_failed(x, kf, during, role == ROLE_CAND, c);
		return false;
	}
	if (kr.busy || kp.busy || kq.busy) {
		char after[96];
		snprintf(after, sizeof(after), "sample %s", what);
		device_busy_verdict(x, role, after,
				    (double)(kr.busy   ? kr.ns
					     : kp.busy ? kp.ns
						       : kq.ns),
				    c);
		return false;
	}
	if (!ev_call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (o->claim <= 0 || o->claim > o->wall + CLAIM_SLACK_NS ||
	    o->drain < 0 || o->drain > o->wall) {
		if (role == ROLE_CAND)
			ev_verdict(
				x, RS_REJECTED,
				"reported times inconsistent "
				"with the controller's clock: the candidate "
				"runner claimed %.1f us (and %.1f us waiting for "
				"the device) for a batch that took at most %.1f "
				"us %s, %s '%s'",
				o->claim / 1e3, o->drain / 1e3, o->wall / 1e3,
				what, ev_case_kind(c), c->id);
		else
			ev_verdict(x, RS_INFRA_ERROR,
				   "the %s runner reported an "
				   "impossible time (%.1f us, wall %.1f us)",
				   ev_role_names[role], o->claim / 1e3,
				   o->wall / 1e3);
		return false;
	}
	if (!gate_held(x, role, o, what, c))
		return false;
	o->ovh = o->gen + (o->wall - o->claim) + o->keep + o->probe;
	o->fovh = o->fetch + o->probe_f;
	return true;
}

bool ev_gpu_sample(struct eval_ctx *x, enum role role, struct runner *r, int n,
		   const char *spec, uint32_t mask, const char *what,
		   const struct task_case *c, struct gpu_sample *o)
{
	/* Where controller_may_spin(), every reply of the sample is awaited
	 * by polling (the keeper's too): a sleeping controller's wake-up is
	 * noise in the span and in the `time` request's wall, which check
	 * the runner's claims.  Off by default (runner_client.c says why). */
	bool spin = controller_may_spin();

	if (!ev_keeper_ready(x))
		return false;
	r->spin_replies = spin;
	r->spin_gated = controller_spins_on_gate();
	x->keeper->spin_replies = spin;
	bool ok = sample(x, role, r, n, spec, mask, what, c, o);
	r->spin_replies = false;
	r->spin_gated = false;
	if (x->keeper)
		x->keeper->spin_replies = false;
	return ok;
}

/* ---- batches --------------------------------------------------------------- */

bool ev_gpu_sets(struct eval_ctx *x, enum role role, struct runner *r, int n,
		 const struct case_layout *l, const struct task_case *c)
{
	return !r || ev_gpu_sets_all(x, &role, &r, 1, n, l, c);
}

bool ev_gpu_sets_all(struct eval_ctx *x, const enum role *roles,
		     struct runner *const *rs, int nr, int n,
		     const struct case_layout *l, const struct task_case *c)
{
	enum runner_fail *fail;
	bool ok = true;

	if (n <= 1)
		return true;
	fail = xcalloc((size_t)(nr > 0 ? nr : 1), sizeof(*fail));
	runner_sets_all(rs, nr, n, l->shm_size, fail);
	for (int i = 0; i < nr && ok; i++)
		if (fail[i] != RUNNER_OK) {
			ev_runner_failed(x, roles[i], rs[i], fail[i],
					 "while allocating batch buffers", c);
			ok = false;
		}
	free(fail);
	return ok;
}

int ev_gpu_case_batch(struct eval_ctx *x, int ci, struct runner *base,
		      const struct case_layout *l, const struct task_case *c)
{
	const struct task *t = x->t;
	int w = GPU_SIZING_SAMPLES;
	double call = 0;

	if (x->gpu_batch[ci] > 0)
		return x->gpu_batch[ci];
	/* The baseline alone: the candidate is not involved in choosing
	 * how it will be called (and sees the same batch in every phase). */
	for (int i = 0; i < w; i++) {
		struct gpu_sample o;
		char *spec =
			ev_gpu_gen_spec(x, l, i & 1,
					ev_derive(x->req->seed ^ x->secret, 10,
						  (uint64_t)ci, (uint64_t)i));
		bool ok = ev_gpu_sample(x, ROLE_BASE, base, 1, spec,
					ev_gpu_fetch_mask(t, false),
					"while sizing the batches", c, &o);
		free(spec);
		if (!ok)
			return 0;
		if (i == 0 || (double)o.claim < call)
			call = (double)o.claim;
	}
	int max_sets = (int)(x->shm_size / l->shm_size);
	if (max_sets > RP_MAX_SETS)
		max_sets = RP_MAX_SETS;
	int n = gpu_batch_size(call, l->shm_size, max_sets, x->gpu_batch_bytes);
	x->gpu_batch[ci] = n;
	x->gpu_call_ns[ci] = call;
	if (n > 1)
		strbuf_addf(&x->method_notes, "%s%s '%s' x%d",
			    x->method_notes.len ? ", " : "", ev_case_kind(c),
			    c->id, n);
	ev_trace_mark(x,
		      "case %s: %d call%s per sample (baseline %.1f us "
		      "per call), %d of its sets compared",
		      c->id, n, n == 1 ? "" : "s", call / 1e3,
		      gpu_compare_sets(n, l->shm_size));
	return n;
}

/* ---- lent sets ------------------------------------------------------------- */

bool ev_gpu_lend_wanted(const struct eval_ctx *x)
{
	/* On unless ARENA_GPU_LEND=0 (docs/gpu.md section 6, "The
	 * keeper's compare"): the host fetch is kept for A/B runs against
	 * it (tests/gpu/lend_ab.sh). */
	return !x->lend_off && switch_on("ARENA_GPU_LEND");
}

/* Closes the descriptors of fds[0..n) that are open. */
static void close_fds(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* The keeper's slot for r's sets (0-based): the one it has, else a free
 * one; -1 when all are taken. */
static int lend_slot_for(struct eval_ctx *x, struct runner *r)
{
	int s = r->lend_slot - 1;

	if (s >= 0 && s < RP_LEND_SLOTS && x->lent_owner[s] == r)
		return s;
	for (s = 0; s < RP_LEND_SLOTS; s++)
		if (!x->lent_owner[s]) {
			x->lent_owner[s] = r;
			r->lend_slot = s + 1;
			return s;
		}
	return -1;
}

/* Lends runners rs[0..nr) their sets from the keeper: *fds and *bytes
 * what each is handed; RUNNER_OK, or the keeper's failure (every
 * descriptor already closed). */
static enum runner_fail keeper_lend_all(struct eval_ctx *x,
					struct runner *const *rs, int nr, int n,
					const struct case_layout *l, int *fds,
					int64_t *bytes)
{
	enum runner_fail f = RUNNER_OK;

	for (int i = 0; i < nr; i++)
		fds[i] = -1;
	for (int i = 0; i < nr && f == RUNNER_OK; i++) {
		int slot = lend_slot_for(x, rs[i]);
		if (slot < 0 || rs[i]->shm_fd < 0) {
			f = RUNNER_REFUSED;
			snprintf(x->keeper->why, sizeof(x->keeper->why),
				 "has no slot left");
		} else {
			f = runner_keeper_lend(x->keeper, slot, n, l->shm_size,
					       l->proto, rs[i]->shm_fd, &fds[i],
					       &bytes[i]);
		}
	}
	if (f != RUNNER_OK)
		close_fds(fds, nr);
	return f;
}

bool ev_gpu_sets_lent(struct eval_ctx *x, const enum role *roles,
		      struct runner *const *rs, int nr, int n,
		      const struct case_layout *l, const struct task_case *c,
		      bool *lent)
{
	/* Everything in one order, the baselines first (nb of them): a
	 * trusted runner that cannot map lent memory (the driver, the
	 * sandbox) turns lending off for the evaluation, while a
	 * candidate's refusal is its failure, never a way back to the
	 * weaker sampled comparison. */
	struct runner *ro[2 * MAX_BLOCKS];
	enum role rl[2 * MAX_BLOCKS];
	int fds[2 * MAX_BLOCKS], nb = 0, m = 0;
	int64_t bytes[2 * MAX_BLOCKS];
	enum runner_fail fail[2 * MAX_BLOCKS];
	bool ok = true;

	*lent = false;
	if (nr > 2 * MAX_BLOCKS || !ev_gpu_lend_wanted(x))
		return ev_gpu_sets_all(x, roles, rs, nr, n, l, c);
	if (!ev_keeper_ready(x))
		return false;
	for (int cand = 0; cand < 2; cand++)
		for (int i = 0; i < nr; i++)
			if ((roles[i] == ROLE_CAND) == (cand == 1)) {
				ro[m] = rs[i];
				rl[m++] = roles[i];
				nb += !cand;
			}
	/* Where the time goes (the keeper allocates one runner's sets after
	 * another; the runners map theirs at once): the trace's mark. */
	uint64_t t0 = now_ns();
	enum runner_fail f = keeper_lend_all(x, ro, nr, n, l, fds, bytes);
	if (f != RUNNER_OK && f != RUNNER_REFUSED) {
		keeper_failed(x, f, "while lending the argument sets", false,
			      c);
		return false;
	}
	if (f == RUNNER_REFUSED) {
		/* No exportable memory on this device (HIP, an old
		 * driver): outputs go to the host, as before lending. */
		x->lend_off = true;
		ev_trace_mark(x,
			      "the keeper lends no sets (%s): every output "
			      "is fetched to the host",
			      x->keeper->why);
		return ev_gpu_sets_all(x, roles, rs, nr, n, l, c);
	}
	uint64_t t_lent = now_ns();
	/* A baseline's shared memory is page-locked: its inputs are
	 * fetched for the reference checks the keeper does not take (a
	 * task with an inout or scratch argument, a GPU reference's checks
	 * on this thread: ev_gpu_inputs_again), and a GPU refuses a copy
	 * whose host memory is page-locked in part: left unlocked for
	 * lent sets, a baseline's lock from an earlier, smaller layout
	 * ended inside a set (cudaErrorInvalidValue on an H100,
	 * 2026-12-07: the checks of gemm_f32's largest case were
	 * infra_errors). */
	runner_sets_lent(ro, nb, n, l->shm_size, fds, bytes, true, fail);
	uint64_t t_base = now_ns();
	for (int j = 0; j < nb; j++)
		if (fail[j] == RUNNER_REFUSED) {
			x->lend_off = true;
			ev_trace_mark(x,
				      "a baseline runner cannot map the sets "
				      "the keeper lent (%s): every output is "
				      "fetched to the host",
				      ro[j]->why);
			close_fds(fds, nr);
			return ev_gpu_sets_all(x, roles, rs, nr, n, l, c);
		}
	runner_sets_lent(ro + nb, nr - nb, n, l->shm_size, fds + nb, bytes + nb,
			 false, fail + nb);
	uint64_t t_cand = now_ns();
	close_fds(fds, nr);
	for (int j = 0; j < nr && ok; j++)
		if (fail[j] != RUNNER_OK) {
			ev_runner_failed(x, rl[j], ro[j], fail[j],
					 "while mapping the argument sets "
					 "the keeper lent",
					 c);
			ok = false;
		}
	if (ok)
		ev_trace_mark(x,
			      "case %s: %d runners' sets lent in %.1f ms "
			      "(the keeper's allocations), the baselines' "
			      "mapped in %.1f ms, the candidates' in %.1f ms",
			      c->id, nr, (t_lent - t0) / 1e6,
			      (t_base - t_lent) / 1e6, (t_cand - t_base) / 1e6);
	*lent = ok;
	return ok;
}

void ev_gpu_place(const struct eval_ctx *x, uint64_t seed, char *buf, size_t n)
{
	if (draws_inputs(x->t))
		snprintf(buf, n, "%llx",
			 (unsigned long long)place_seed(x, seed));
	else
		snprintf(buf, n, "-");
}

bool ev_gpu_capture_pair(struct eval_ctx *x, struct runner *base,
			 struct runner *cand, int n, const char *place,
			 const struct task_case *c)
{
	struct runner *rs[2] = { base, cand };
	static const enum role roles[2] = { ROLE_BASE, ROLE_CAND };
	int i;

	base->captured = cand->captured = false;
	if (!x->capture)
		return true;
	if (!ev_keeper_ready(x))
		return false;
	for (i = 0; i < 2; i++) {
		struct keeper_reply kp = { 0 };
		int64_t gaps = 0;
		/* The keeper probes the device the moment the runner has
		 * answered, as after a sample: work a capture left running
		 * (a kernel waiting for the coming inputs) is the capturing
		 * runner's, not the next sample's. */
		rs[i]->hold = true;
		enum runner_fail f = runner_capture(rs[i], n, place);
		enum runner_fail kf =
			keeper_follow(x, rs[i], "probe", &f, &kp, &gaps);
		if (f != RUNNER_OK) {
			ev_runner_failed(x, roles[i], rs[i], f,
					 "capturing its timed calls", c);
			return false;
		}
		if (kf != RUNNER_OK) {
			keeper_failed(x, kf,
				      "while probing the device after a "
				      "capture",
				      roles[i] == ROLE_CAND, c);
			return false;
		}
		if (kp.busy) {
			device_busy_verdict(x, roles[i],
					    "capture of its timed calls",
					    (double)kp.ns, c);
			return false;
		}
		/* Threads are counted as after every call: one started
		 * while capturing could wait for the coming inputs and be
		 * gone by the end of the sample. */
		if (!ev_call_outcome_ok(x, roles[i], rs[i], RUNNER_OK, 0,
					"while capturing its timed calls", c))
			return false;
		if (!rs[i]->captured)
			break;
	}
	if (base->captured && cand->captured) {
		x->captured_pairs++;
		return true;
	}
	/* Neither runs from a capture: a pair timed one way against the
	 * other would charge the live one its launches. */
	base->captured = cand->captured = false;
	x->capture = false;
	ev_trace_mark(x,
		      "case %s: the %s's timed calls could not be captured "
		      "(%s): every batch is launched live from here on",
		      c->id, i == 0 ? "baseline" : "candidate", rs[i]->why);
	return true;
}

int ev_gpu_lent_take_to(struct eval_ctx *x, struct runner *r, const char *place,
			uint32_t mask, int k, int to_fd,
			const struct task_case *c)
{
	enum runner_fail f = runner_keeper_take(x->keeper, r->lend_slot - 1,
						place, mask, k, to_fd);

	if (f == RUNNER_OK)
		return 1;
	if (f == RUNNER_REFUSED && to_fd >= 0) {
		ev_trace_mark(x,
			      "case %s: the keeper cannot take a set into "
			      "a reference check's memory (%s): the checks "
			      "draw their inputs again",
			      c->id, x->keeper->why);
		return 0;
	}
	keeper_failed(x, f, "while taking a set", false, c);
	return -1;
}

bool ev_gpu_lent_take(struct eval_ctx *x, struct runner *r, const char *place,
		      uint32_t mask, int k, const struct task_case *c)
{
	return ev_gpu_lent_take_to(x, r, place, mask, k, -1, c) == 1;
}

bool ev_gpu_lent_match(struct eval_ctx *x, const struct case_layout *l,
		       struct runner *base, struct runner *cand,
		       const char *place, int pattern, const char *what,
		       const char *prefix, const struct task_case *c)
{
	const struct task *t = x->t;
	struct strbuf rules = STRBUF_INIT;
	int64_t out[4];

	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		double atol, rtol;
		if (a)
			strbuf_addch(&rules, ' ');
		if (ta->scratch) {
			strbuf_addch(&rules, '-');
		} else if (ta->io == IO_IN) {
			strbuf_addch(&rules, '=');
		} else {
			task_tolerance(t, ta, &atol, &rtol);
			strbuf_addf(&rules, "t:%.17g:%.17g", atol * 2.0,
				    rtol * 2.0);
		}
	}
	enum runner_fail f = runner_keeper_compare(x->keeper,
						   base->lend_slot - 1,
						   cand->lend_slot - 1, place,
						   rules.buf, out);
	strbuf_release(&rules);
	if (f != RUNNER_OK) {
		keeper_failed(x, f, "while comparing the sets", false, c);
		return false;
	}
	if (out[0] == 0)
		return true;
	/* Words it as a comparison on the host would: that set of both,
	 * whole (the same elements fail). */
	int k = (int)out[1];
	if (k < 0 || k >= cand->nsets || out[2] < 0 || out[2] >= t->nargs) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "the keeper's comparison named no set (%s)", what);
		return false;
	}
	uint32_t all = ev_gpu_fetch_mask(t, true);
	if (!ev_gpu_lent_take(x, base, place, all, k, c) ||
	    !ev_gpu_lent_take(x, cand, place, all, k, c))
		return false;
	struct gpu_sets one = { .n = 1, .set = { k } };
	if (!ev_gpu_sets_match(x, l, base, cand, &one, pattern, true, -1, NULL,
			       what, prefix, c))
		return false;
	ev_verdict(x, RS_INCORRECT,
		   "%s: %lld element%s differ%s (the first in set %d, "
		   "argument '%s', element %lld; found on the device)",
		   prefix, (long long)out[0], out[0] == 1 ? "" : "s",
		   out[0] == 1 ? "s" : "", k, t->args[out[2]].name,
		   (long long)out[3]);
	return false;
}

/* ---- comparisons ------------------------------------------------------------ */

/* A pair whose sets hold at most this many bytes to compare is compared
 * whole even when sampling is asked for: at the 1.2-1.6 GB/s per array
 * that compare_arrays did for f32 on one core of the development machine
 * (2026-12-02, loaded; docs/benchmarks.md), 256 KiB cost 0.2-0.5 ms. */
#define SETS_WHOLE_MAX_BYTES ((size_t)256 << 10)
/* Sets a thread compares on windows: 100-175 us per f32 array of 1-16
 * Mi elements each on one core of the development machine (2026-12-02,
 * loaded), so that a batch of a few sets, the usual one for large
 * outputs, starts no thread. */
#define SAMPLED_SETS_PER_THREAD 8

/* A quiet first pass over a batch's sets, several at once: whether every
 * set passes, whole or (seeds set) on windows each set draws from its own
 * seed.  Only a failure needs the sequential pass that words the
 * verdict. */
struct sets_check {
	const struct eval_ctx *x;
	const struct case_layout *l;
	struct runner *base, *cand;
	const struct gpu_sets *s;
	int pattern, skip;
	bool inputs;
	const uint64_t *seeds; /* per listed set; NULL: whole */
	bool bad;	       /* false -> true only, atomically */
};

/* Whether argument a of one set passes: inputs bit for bit, outputs
 * within twice the tolerance; on windows drawn from r, or whole (r
 * NULL). */
static bool set_arg_ok(const struct sets_check *sc, int a,
		       const unsigned char *got, const unsigned char *want,
		       struct rng *r)
{
	const struct task_arg *ta = &sc->x->t->args[a];
	int64_t numel = sc->l->numel[a];
	struct cmp_result cr;
	double atol, rtol;

	if (ta->io == IO_IN) {
		if (r)
			return compare_arrays_sampled(ta->dtype, got, want,
						      numel, 0, 0, true, r);
		return memcmp(got, want, sc->l->bytes[a]) == 0;
	}
	task_tolerance(sc->x->t, ta, &atol, &rtol);
	if (r)
		return compare_arrays_sampled(ta->dtype, got, want, numel,
					      atol * 2.0, rtol * 2.0, false, r);
	compare_arrays(ta->dtype, got, want, numel, atol * 2.0, rtol * 2.0,
		       ta->io == IO_OUT ? sc->pattern : -1, &cr);
	return cr.ok;
}

/* Listed sets i0 .. i0 + n - 1 (indices into sc->s->set). */
static void sets_check_range(void *ctx, int64_t i0, int64_t n)
{
	struct sets_check *sc = ctx;
	const struct task *t = sc->x->t;

	for (int64_t i = i0;
	     i < i0 + n && !__atomic_load_n(&sc->bad, __ATOMIC_RELAXED); i++) {
		int k = sc->s->set[i];
		size_t off = (size_t)k * sc->l->shm_size;
		struct rng r;
		if (sc->seeds)
			rng_seed(&r, sc->seeds[i]);
		for (int a = 0; a < t->nargs; a++) {
			bool in = t->args[a].io == IO_IN;
			if (t->args[a].scratch ||
			    (in ? !sc->inputs : k == sc->skip))
				continue;
			if (!set_arg_ok(sc, a,
					sc->cand->shm + off + sc->l->offset[a],
					sc->base->shm + off + sc->l->offset[a],
					sc->seeds ? &r : NULL))
				__atomic_store_n(&sc->bad, true,
						 __ATOMIC_RELAXED);
		}
	}
}

/* The bytes a comparison of every set whole would read from each side. */
static size_t sets_bytes(const struct task *t, const struct case_layout *l,
			 int n, bool inputs)
{
	size_t b = 0;

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_IN || inputs)
			b += l->bytes[a];
	return b * (size_t)n;
}

bool ev_gpu_sets_match(struct eval_ctx *x, const struct case_layout *l,
		       struct runner *base, struct runner *cand,
		       const struct gpu_sets *s, int pattern, bool inputs,
		       int skip_set, struct rng *sample, const char *what,
		       const char *prefix, const struct task_case *c)
{
	struct sets_check sc = { x,	  l,	    base,   cand, s,
				 pattern, skip_set, inputs, NULL, false };
	uint64_t *seeds = NULL;
	int n = s->n;

	if (sample && sets_bytes(x->t, l, n, inputs) > SETS_WHOLE_MAX_BYTES) {
		/* Drawn now, after the outputs were fetched; one seed per
		 * set so that the threads draw independently. */
		seeds = xmalloc((size_t)n * sizeof(*seeds));
		for (int i = 0; i < n; i++)
			seeds[i] = rng_next(sample);
		sc.seeds = seeds;
	}
	/* Large sets compared whole are compared by several threads each
	 * already; sampled sets, SAMPLED_SETS_PER_THREAD to a thread. */
	if (sc.seeds || (n > 1 && l->shm_size < ((size_t)16 << 20))) {
		par_for(n, sc.seeds ? SAMPLED_SETS_PER_THREAD : 1,
			sets_check_range, &sc);
		free(seeds);
		if (!sc.bad)
			return true;
	}
	/* Every listed set whole, in order: a sampled failure is found
	 * again (the windows are part of the whole) and worded. */
	for (int i = 0; i < n; i++) {
		int k = s->set[i];
		size_t off = (size_t)k * l->shm_size;
		void *base_in[TASK_MAX_ARGS];
		for (int a = 0; a < x->t->nargs; a++)
			base_in[a] = base->shm + off + l->offset[a];
		if (inputs &&
		    !ev_inputs_intact_at(x, l, base_in, cand, off, what, c))
			return false;
		if (k != skip_set &&
		    !ev_outputs_match_at(x, l, cand, base, off, 2.0, pattern,
					 NULL, RS_INCORRECT, prefix))
			return false;
	}
	return true;
}

bool ev_gpu_inputs_again(struct eval_ctx *x, struct runner *base,
			 const char *spec, int k, const char *what,
			 const struct task_case *c)
{
	const struct task *t = x->t;
	uint32_t in_mask = 0;
	enum runner_fail f;

	/* The inputs of set k as they were before the call (the call
	 * overwrote inout arguments): the trusted baseline draws them again
	 * from the same spec and hands them over, untimed. */
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			in_mask |= 1u << a;
	/* Recorded inputs are staged again, as for the sample. */
	if (spec[0] == 'R' &&
	    !stage_recorded(x, base, base->nsets > 1 ? base->nsets : 1, c,
			    &spec))
		return false;
	f = runner_gen(base, spec, NULL);
	if (f == RUNNER_OK)
		f = runner_fetch(base, in_mask, k, NULL);
	if (f != RUNNER_OK) {
		ev_runner_failed(x, ROLE_BASE, base, f, what, c);
		return false;
	}
	return true;
}

void ev_trace_refcheck(struct eval_ctx *x, const struct task_case *c,
		       const char *what, const struct refcheck_times *t,
		       const char *where)
{
	ev_trace_detail(
		x,
		"case %s: reference check %s: %s %.1f ms, %s %.1f ms, "
		"reference call %.1f ms, its outputs all written "
		"%.1f ms, compared %.1f ms; %s",
		c->id, what,
		t->taken ? "inputs taken by the keeper" : "inputs again",
		(double)t->again_ns / 1e6,
		t->taken ? "outputs taken" : "staged",
		(double)t->staged_ns / 1e6, (double)t->call_ns / 1e6,
		(double)t->wrote_ns / 1e6, (double)t->compared_ns / 1e6, where);
}

bool ev_gpu_reference_check(struct eval_ctx *x, const struct case_layout *l,
			    struct runner *ref, struct runner *base,
			    struct runner *cand, int k, const char *spec,
			    int pattern, bool base_too, bool yield_device,
			    const char *what, const char *prefix,
			    const struct task_case *c, double *maxerr)
{
	const struct task *t = x->t;
	size_t off = (size_t)k * l->shm_size;
	unsigned char *saved = NULL;
	bool ok = false, yielded = false;

	/* What the baseline's call left in set k (its outputs), before its
	 * inputs are drawn again below. */
	if (base_too) {
		saved = xmalloc(l->shm_size);
		memcpy(saved, base->shm + off, l->shm_size);
	}
	uint64_t t0 = now_ns();
	if (!ev_gpu_inputs_again(x, base, spec, k, what, c))
		goto out;
	uint64_t t1 = now_ns();
	for (int a = 0; a < t->nargs; a++) {
		unsigned char *dst = ref->shm + l->offset[a];
		if (t->args[a].io == IO_OUT)
			poison_fill(t->args[a].dtype, dst, l->numel[a],
				    pattern);
		else
			par_memcpy(dst, base->shm + off + l->offset[a],
				   l->bytes[a]);
	}
	/* What is left is the host's: the reference's call (seconds for a
	 * large case of a C reference) and the comparisons.  Every runner
	 * of this evaluation on the device is stopped with nothing left on
	 * it (each sample's drain), so another evaluation may sample
	 * meanwhile. */
	yielded = yield_device && x->gpu && !ev_role_gpu(x, ROLE_REF) &&
		  x->lockmode == LOCK_EX;
	if (yielded)
		ev_unlock_device(x);
	uint64_t t2 = now_ns();
	if (!ev_call_checked(x, ROLE_REF, ref, what, c))
		goto out;
	uint64_t t2s = now_ns();
	if (!ev_reference_wrote_all(x, l, ref, pattern, c))
		goto out;
	if (base_too) {
		void *in[TASK_MAX_ARGS];
		for (int a = 0; a < t->nargs; a++)
			in[a] = base->shm + off + l->offset[a];
		if (!ev_reference_split_holds(x, l, ref, in, pattern, c))
			goto out;
	}
	uint64_t t3 = now_ns();
	if (base_too) {
		char p[320];
		snprintf(p, sizeof(p),
			 "the task's baseline disagrees with its "
			 "reference in %s '%s'%s",
			 ev_case_kind(c), c->id, ev_split_note(x));
		if (!ev_outputs_match_mem(x, l, saved, ref->shm, 1.0, pattern,
					  NULL, RS_INFRA_ERROR, p))
			goto out;
	}
	if (cand &&
	    !ev_outputs_match_mem(x, l, cand->shm + off, ref->shm, 1.0, pattern,
				  maxerr, RS_INCORRECT, prefix))
		goto out;
	ev_trace_refcheck(x, c, what,
			  &(struct refcheck_times){ t1 - t0, t2 - t1, t2s - t2,
						    t3 - t2s, now_ns() - t3,
						    false },
			  "on the evaluation's thread");
	ok = true;
out:
	free(saved);
	/* The device again before anything else of this evaluation uses
	 * it (the next trial's samples, the ordering check). */
	if (yielded && !ev_lock_or_verdict(x, LOCK_EX))
		ok = false;
	return ok;
}

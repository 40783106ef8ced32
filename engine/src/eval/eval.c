/*
 * eval.c - the evaluator (arena/eval.h): compile, check, time, decide.
 *
 * One evaluation, in order (evaluation.h lists the file of each step):
 *   1. snapshot and hash the candidate's editable files;
 *   2. build reference, baseline and candidate (build.c, compile.c;
 *      cached);
 *   3. correctness (correctness.c): per case, a reference runner,
 *      candidate runner and (for the first trial) baseline runner;
 *      `correctness_trials` input sets drawn from (seed, case, trial);
 *      outputs poisoned before every call; after every call the candidate
 *      must have returned 0, run no other thread or child, left its
 *      inputs bit-identical and written outputs within tolerance of the
 *      reference's;
 *   4. timing (timing.c; visible cases, held-out ones too on final
 *      evaluations; cases too short to time are correctness only), under
 *      the device lock: blocks of fresh baseline + candidate runner
 *      pairs, round robin; per pair fresh inputs, random order, the
 *      controller's cache flush before each timed call, the other runner
 *      stopped; every timed output checked against the baseline's, some
 *      against the reference; host calls charged with their runner's CPU
 *      time, the claims checked against it; stop on CI width, budget or
 *      max_pairs;
 *   5. fill the result and score it (here: the verdict, the task-level
 *      aggregate, the identity of the result).
 *
 * Everything the candidate can touch lives in its runner; the evaluator
 * never loads a kernel.  Every runner started is registered in the
 * context and destroyed on every path (ctx_release), so no evaluation
 * leaves a process behind, and runners die with the controller
 * (PR_SET_PDEATHSIG).
 *
 * Verdicts: the first one reached wins (ev_verdict()); later checks do
 * not run once one is set.  Failures of the reference or the baseline are
 * RS_INFRA_ERROR (the task's fault, not the candidate's).
 *
 * Thread safety: eval_run() may run concurrently in several threads of one
 * process; the only shared state is computed once under pthread_once.
 * Requirement on the caller: SIGCHLD must not be ignored and no other
 * thread may wait for arbitrary children (waitpid(-1)), since runners are
 * reaped by pid.
 */
#include "evaluation.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arena/fairlock.h"
#include "arena/paths.h"

const char *const ev_role_names[NROLES] = { "reference", "baseline",
					    "candidate" };

enum result_phase ev_phase_enter(struct eval_ctx *x, enum result_phase p)
{
	uint64_t now = now_ns();
	enum result_phase was = x->phase_now;

	x->phase_ns[was] += now - x->phase_since_ns;
	x->phase_since_ns = now;
	x->phase_now = p;
	return was;
}

void ev_set_str(char **field, const char *v)
{
	free(*field);
	*field = v ? xstrdup(v) : NULL;
}

uint64_t ev_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(seed ^ mix64(a + 0x1234567ull) ^
		     mix64(b * 0x9e3779b97f4a7c15ull + 17) ^ mix64(c + 99));
}

const char *ev_case_kind(const struct task_case *c)
{
	return c->held_out ? "held-out case" : "case";
}

/* Records the verdict (the first one wins) and its message in the field
 * that belongs to the current phase. */
void ev_verdict(struct eval_ctx *x, enum result_status st,
		    const char *fmt, ...)
{
	struct task_result *r = x->res;
	va_list ap;
	char *msg;

	struct verdict_undo *u = &x->undo;
	char **field;

	if (x->decided)
		return;
	x->decided = true;
	va_start(ap, fmt);
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	msg = strbuf_detach(&sb);
	if (st == RS_COMPILE_ERROR || x->phase == PH_COMPILE)
		field = &r->compilation_error_message;
	else if (x->phase == PH_TIMING && st != RS_INCORRECT)
		field = &r->speedup_calculation_error_message;
	else
		field = &r->correctness_error_message;
	/* What this verdict changes, for ev_verdict_supersede. */
	free(u->field_was);
	u->status = r->status;
	u->pass_correctness = r->pass_correctness;
	u->field = field;
	u->field_was = *field ? xstrdup(*field) : NULL;
	u->integrity_n = r->integrity.n;
	r->status = st;
	ev_set_str(field, msg);
	if (st == RS_INCORRECT || st == RS_RUNTIME_ERROR || st == RS_TIMEOUT)
		r->pass_correctness = false;
	if (st == RS_REJECTED) {
		strvec_push(&r->integrity, msg);
		if (x->phase == PH_CORRECTNESS)
			r->pass_correctness = false;
	}
	free(msg);
}

void ev_verdict_withdraw(struct eval_ctx *x)
{
	struct task_result *r = x->res;
	struct verdict_undo *u = &x->undo;

	if (x->decided && u->field) {
		r->status = u->status;
		r->pass_correctness = u->pass_correctness;
		free(*u->field);
		*u->field = u->field_was;
		u->field_was = NULL;
		u->field = NULL;
		while (r->integrity.n > u->integrity_n) {
			free(r->integrity.v[--r->integrity.n]);
			r->integrity.v[r->integrity.n] = NULL;
		}
		x->decided = false;
	}
}

void ev_verdict_supersede(struct eval_ctx *x, enum result_status st,
			  const char *msg)
{
	ev_verdict_withdraw(x);
	ev_verdict(x, st, "%s", msg);
}

void eval_request_init(struct eval_request *req)
{
	memset(req, 0, sizeof(*req));
	req->device = "host";
	timing_budget_defaults(&req->timing);
}

static int hash_snapshot(const struct source_set *s, struct task_result *res)
{
	for (int i = 0; i < s->n; i++)
		result_add_source(res, s->path[i], s->sha256[i]);
	result_hash_sources(res);
	return 0;
}

int eval_hash_sources(const struct task *t, const char *dir,
		      struct task_result *res, struct errbuf *err)
{
	struct source_set s;
	int rc = sources_read(dir, &t->editable, &s, err);

	if (rc)
		return rc;
	hash_snapshot(&s, res);
	sources_release(&s);
	return 0;
}

static void key_field(struct sha256 *h, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	sha256_update(h, le, 8);
	if (s)
		sha256_update(h, s, strlen(s));
}

void eval_cache_key(const struct task *t, const char *sources_hash,
		    const struct strvec *defines, const char *device,
		    bool include_held_out, char out[65])
{
	struct sha256 h;
	unsigned char d[32];
	char nbuf[32];

	sha256_init(&h);
	key_field(&h, "arena-eval-key/1");
	key_field(&h, ARENA_EVALUATOR_VERSION);
	key_field(&h, t->id);
	key_field(&h, t->config_sha256);
	key_field(&h, sources_hash);
	snprintf(nbuf, sizeof(nbuf), "%zu", defines ? defines->n : 0);
	key_field(&h, nbuf);
	for (size_t i = 0; defines && i < defines->n; i++)
		key_field(&h, defines->v[i]);
	key_field(&h, device ? device : "host");
	key_field(&h, include_held_out ? "held-out" : "visible");
	/* The task's own sources (reference, baseline) change the verdict
	 * too, and config_sha256 covers only the YAML. */
	struct strvec files = STRVEC_INIT;
	for (size_t i = 0; i < t->editable.n; i++)
		strvec_push(&files, t->editable.v[i]);
	if (t->reference_file)
		strvec_push(&files, t->reference_file);
	struct source_set s;
	struct errbuf e;
	errbuf_init(&e);
	if (sources_read(t->dir, &files, &s, &e) == 0) {
		for (int i = 0; i < s.n; i++) {
			key_field(&h, s.path[i]);
			key_field(&h, s.sha256[i]);
		}
		sources_release(&s);
	} else {
		key_field(&h, "unreadable task sources");
	}
	strvec_release(&files);
	sha256_final(&h, d);
	sha256_to_hex(d, out);
}

/*
 * Deferred teardown (req->defer_teardown): the killed runners, the device
 * lock's descriptor, the device memory's ledger entry and the trace go to
 * a thread that reaps the runners, then gives the memory back, writes the
 * trace's last mark, closes it and lets the lock go: what ctx_release
 * would have done, after the caller has its verdict.  The
 * lock is kept shared meanwhile (fairlock_share: no one measures while a
 * context is torn down, but the next evaluation may start its runners).
 */
struct teardown {
	struct runner *runners[MAX_LIVE];
	int n;
	int lockfd, lockmode;
	int64_t lockticket;
	struct memledger_entry mem; /* given back once they are reaped */
	FILE *trace;
	uint64_t t0_ns;
};

static pthread_mutex_t teardown_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t teardown_cv = PTHREAD_COND_INITIALIZER;
static int teardowns_pending;

static void *teardown_main(void *arg)
{
	struct teardown *td = arg;

	if (td->lockfd >= 0 && td->lockmode == LOCK_EX)
		fairlock_share(td->lockfd, td->lockticket);
	for (int i = 0; i < td->n; i++)
		runner_destroy(td->runners[i]);
	if (td->trace && td->mem.granted)
		fprintf(td->trace, "# %.1f ms: device memory given back\n",
			(double)(now_ns() - td->t0_ns) / 1e6);
	memledger_release(&td->mem);
	if (td->trace) {
		if (td->lockfd >= 0 && td->lockmode)
			fprintf(td->trace,
				"# %.1f ms: device lock released (runners "
				"reaped after the verdict)\n",
				(double)(now_ns() - td->t0_ns) / 1e6);
		fclose(td->trace);
	}
	ev_device_lock_close(td->lockfd, td->lockmode, td->lockticket);
	free(td);
	pthread_mutex_lock(&teardown_mu);
	teardowns_pending--;
	pthread_cond_broadcast(&teardown_cv);
	pthread_mutex_unlock(&teardown_mu);
	return NULL;
}

/* Hands x's runners, lock and trace to a teardown thread; false (and x
 * untouched) when no thread could be started. */
static bool teardown_defer(struct eval_ctx *x)
{
	struct teardown *td = xcalloc(1, sizeof(*td));
	pthread_attr_t attr;
	pthread_t th;

	td->n = x->nlive;
	memcpy(td->runners, x->live, (size_t)x->nlive * sizeof(x->live[0]));
	td->lockfd = x->lockfd;
	td->lockmode = x->lockmode;
	td->lockticket = x->lockticket;
	td->mem = x->mem;
	td->trace = x->trace;
	td->t0_ns = x->t0_ns;
	if (x->trace)
		fprintf(x->trace, "# %.1f ms: evaluation done; %d runners "
			"reaped after it%s\n",
			(double)(now_ns() - x->t0_ns) / 1e6, td->n,
			td->lockmode == LOCK_EX
				? " (the device lock kept shared meanwhile)"
				: "");
	pthread_mutex_lock(&teardown_mu);
	teardowns_pending++;
	pthread_mutex_unlock(&teardown_mu);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int rc = pthread_create(&th, &attr, teardown_main, td);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		pthread_mutex_lock(&teardown_mu);
		teardowns_pending--;
		pthread_mutex_unlock(&teardown_mu);
		free(td);
		if (x->trace)
			fprintf(x->trace, "# %.1f ms: no teardown thread: "
				"runners reaped now\n",
				(double)(now_ns() - x->t0_ns) / 1e6);
		return false;
	}

	x->nlive = 0;
	x->lockfd = -1;
	x->mem = (struct memledger_entry)MEMLEDGER_ENTRY_INIT;
	x->trace = NULL;
	return true;
}

void eval_teardown_wait(void)
{
	pthread_mutex_lock(&teardown_mu);
	while (teardowns_pending > 0)
		pthread_cond_wait(&teardown_cv, &teardown_mu);
	pthread_mutex_unlock(&teardown_mu);
}

static void ctx_release(struct eval_ctx *x)
{
	/* Every runner is told to die first and reaped after: a GPU
	 * runner's exit waits for the driver to tear its context down, and
	 * those teardowns then overlap instead of adding up. */
	for (int i = 0; i < x->nlive; i++)
		runner_kill(x->live[i]);
	if (x->req->defer_teardown && x->gpu && x->nlive > 0)
		(void)teardown_defer(x);
	while (x->nlive > 0)
		ev_ctx_forget(x, x->live[x->nlive - 1]);
	/* Every runner reaped: its device memory is free (marked first:
	 * whoever is granted it next marks that after this). */
	if (x->trace && x->mem.granted)
		fprintf(x->trace, "# %.1f ms: device memory given back\n",
			(double)(now_ns() - x->t0_ns) / 1e6);
	memledger_release(&x->mem);
	for (int i = 0; i < NROLES; i++) {
		free(x->so[i]);
		if (x->logfd[i] >= 0)
			close(x->logfd[i]);
	}
	/* Every runner is gone: nothing of this evaluation uses the device
	 * any more, and the lock goes with the descriptor below. */
	if (x->trace && x->lockfd >= 0 && x->lockmode)
		fprintf(x->trace, "# %.1f ms: device lock released\n",
			(double)(now_ns() - x->t0_ns) / 1e6);
	if (x->trace)
		fclose(x->trace);
	if (x->blocks_log)
		fclose(x->blocks_log);
	strvec_release(&x->hidden);
	strvec_release(&x->manifest);
	for (int g = 0; g < 2; g++)
		confine_prep_free(x->confine[g]);
	ev_ahead_release(x);
	if (x->timing) {
		for (int i = 0; i < x->t->ncases; i++)
			ev_timing_release(&x->timing[i]);
		free(x->timing);
	}
	free(x->gpu_batch);
	free(x->gpu_call_ns);
	if (x->scratch)
		rm_rf(x->scratch);
	free(x->scratch);
	free(x->log_dir);
	ev_device_lock_close(x->lockfd, x->lockmode, x->lockticket);
	strbuf_release(&x->method_notes);
	host_sweep_release(&x->sweep);
	free(x->roofline_note);
	free(x->host_roof_note);
	free(x->clock_finding);
	free(x->undo.field_was);
	ev_mutants_release(x);
}

/* Keeps other processes of the same user - a candidate runner above all -
 * out of this process's /proc files: its memory, its descriptors (the
 * runners' shared memory) and its environment.  Without Yama (as on many
 * VMs) any same-user process may otherwise read /proc/<controller>/mem.
 * Not under ASan: LeakSanitizer needs to ptrace its own process. */
static void harden_controller(void)
{
#if !defined(__SANITIZE_ADDRESS__)
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
}

static char *host_name(void)
{
	struct utsname u;

	return uname(&u) == 0 ? xstrdup(u.nodename) : xstrdup("unknown");
}

static void fill_identity(struct eval_ctx *x, const char *device)
{
	const struct eval_request *req = x->req;
	struct task_result *res = x->res;
	char ts[32];

	ev_set_str(&res->task_name, x->t->id);
	res->seed = req->seed;
	free(res->device);
	/* A GPU result names the model: runs on different GPUs are not
	 * comparable, and `arena compare` says so when the names differ. */
	res->device = x->gpu ? xasprintf("%s %s (%s)", device, x->gi.name,
					 x->gi.arch)
			     : xstrdup(device);
	free(res->host);
	res->host = host_name();
	free(res->compiler);
	res->compiler = x->gpu ? compile_tool_id(x->t->language, x->dev.kind)
			       : compile_compiler_id();
	ev_set_str(&res->evaluator_version, ARENA_EVALUATOR_VERSION);
	time_stamp_iso(ts, now_wall());
	ev_set_str(&res->evaluated_at, ts);
	ev_set_str(&res->benchmark_method,
		   x->gpu ? GPU_METHOD : "host_cpu_time_flushed");
	res->noise_floor = 0.01;
	strvec_release(&res->defines);
	for (size_t i = 0; req->defines && i < req->defines->n; i++)
		strvec_push(&res->defines, req->defines->v[i]);
	res->status = RS_NOT_EVALUATED;
	res->pass_compilation = false;
	res->pass_correctness = false;
}

static int open_logs(struct eval_ctx *x)
{
	static const char *const names[NROLES] = {
		"runner-reference.log", "runner-baseline.log",
		"runner-candidate.log"
	};

	char *tp = path_join(x->log_dir, "timing.tsv");
	x->trace = fopen(tp, "we");
	free(tp);
	/* The marks' origin on the machine's monotonic clock, so that the
	 * traces of two evaluations (two processes, two stores) can be laid
	 * side by side: which held the device when. */
	if (x->trace)
		fprintf(x->trace,
			"# t0 %llu ns CLOCK_MONOTONIC: the marks below "
			"are ms after it\n",
			(unsigned long long)x->t0_ns);
	if (x->trace)
		fputs("case\tblock\tkind\tnum\tbatch\tbase_first\t"
		      "base_claim_ns\tcand_claim_ns\tbase_wall_ns\t"
		      "cand_wall_ns\tbase_drain_ns\tcand_drain_ns\t"
		      "base_fetch_ns\tcand_fetch_ns\tstage_ns\tcheck_ns\t"
		      "base_cpu_ns\tcand_cpu_ns\tbase_delay_ns\t"
		      "cand_delay_ns\tbase_span_ns\tcand_span_ns\t"
		      "base_gen_ns\tcand_gen_ns\tbase_keeper_ns\t"
		      "cand_keeper_ns\tbase_probe_ns\tcand_probe_ns\t"
		      "excess_ns\tbase_probe_fetch_ns\tcand_probe_fetch_ns\t"
		      "base_gaps_ns\tcand_gaps_ns\tfetch_excess_ns\t"
		      "base_warm_ns\tcand_warm_ns\tbase_tail_ns\t"
		      "cand_tail_ns\tbase_react_ns\tcand_react_ns\t"
		      "pair_ns\tloop_ns\tgraph\tchecked\n",
		      x->trace);
	for (int i = 0; i < NROLES; i++) {
		char *p = path_join(x->log_dir, names[i]);
		x->logfd[i] = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
					      O_CLOEXEC, 0644);
		if (x->logfd[i] < 0) {
			int rc = errf_code(x->err, errno, "%s: %s", p,
					   strerror(errno));
			free(p);
			return rc;
		}
		free(p);
	}
	return 0;
}

/* Task-level numbers from the timed cases. */
static void aggregate(struct eval_ctx *x)
{
	const struct task *t = x->t;
	struct task_result *res = x->res;
	struct ratio_blocks rbs[TASK_MAX_CASES];
	const double *blk[TASK_MAX_CASES][MAX_BLOCKS];
	double sp[TASK_MAX_CASES], ho[TASK_MAX_CASES];
	double bsum = 0, csum = 0, log_hi = 0;
	int nv = 0, nh = 0, pairs = 0;

	for (int k = 0; k < res->ncases; k++) {
		struct case_result *cr = &res->cases[k];
		const struct task_case *c = task_find_case(t, cr->id);
		if (!c || !cr->timed)
			continue;
		int ci = (int)(c - t->cases);
		if (cr->held_out) {
			ho[nh++] = cr->speedup;
			continue;
		}
		struct case_timing *ct = &x->timing[ci];
		for (int b = 0; b < ct->nblocks; b++)
			blk[nv][b] = ct->ratios[b];
		rbs[nv].nblocks = ct->nblocks;
		rbs[nv].blocks = blk[nv];
		rbs[nv].sizes = ct->sizes;
		log_hi += log(ev_timing_hi_factor(ct));
		sp[nv] = cr->speedup;
		bsum += cr->base_ms;
		csum += cr->cand_ms;
		pairs += cr->pairs;
		nv++;
	}
	res->valid_baseline_cases = nv;
	res->valid_optimized_cases = nv;
	res->pairs = pairs;
	if (nv > 0) {
		struct interval iv;
		if (stats_geomean_block_ci(rbs, nv, CI_ITERS_FINAL, 0.05,
					   ev_derive(x->req->seed, 5, 0, 0),
					   &iv) == 0) {
			if (x->gpu)
				interval_widen_to(&iv, GPU_SYSTEMATIC_REL);
			res->speedup_ratio = iv.point;
			res->speedup_ci_lo = iv.lo;
			/* Every case's upper end as charged the stricter
			 * excess (gpu_ratios): the geomean's moves by their
			 * geomean. */
			res->speedup_ci_hi = iv.hi * exp(log_hi / nv);
		}
		res->speedup_arith_mean = stats_mean(sp, (size_t)nv);
		res->base_execution_time = bsum / nv;
		res->best_optimized_execution_time = csum / nv;
	}
	if (nh > 0)
		res->held_out_speedup = stats_geomean(ho, (size_t)nh);
}

static void run_phases(struct eval_ctx *x)
{
	const struct eval_request *req = x->req;
	const struct task *t = x->t;
	struct task_result *res = x->res;
	int first_case = res->ncases;

	/* Case results: visible, then held-out on final evaluations. */
	for (int ci = 0; ci < t->ncases; ci++)
		if (!t->cases[ci].held_out || req->include_held_out)
			result_add_case(res, t->cases[ci].id,
					t->cases[ci].held_out);
#define CASE_RESULT(ci) (&res->cases[first_case + (ci)])

	x->phase = PH_CORRECTNESS;
	ev_phase_enter(x, RPH_CORRECTNESS);
	int k = 0;
	if (req->aa_timing_only) {
		/* Coverage of A/A intervals: the task's own baseline, timed
		 * exactly as any candidate is, its correctness not checked
		 * (pass_correctness stays false; the method says so). */
		strbuf_addf(&x->method_notes, "%sA/A timing only (no "
			    "correctness trials, no reference checks)",
			    x->method_notes.len ? ", " : "");
		goto timing;
	}
	for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
		if (t->cases[ci].held_out)
			continue;
		ev_check_case(x, ci, CASE_RESULT(k));
		ev_trace_mark(x, "case %s checked", t->cases[ci].id);
		k++;
	}
	if (!x->decided && req->include_held_out && t->ncases > t->nvisible) {
		bool all = true;
		int kk = k;
		res->held_out_evaluated = true;
		for (int ci = 0; ci < t->ncases; ci++) {
			if (!t->cases[ci].held_out)
				continue;
			/* Keep checking held-out cases after a wrong answer
			 * (per-case generalisation data), not after a crash
			 * or a rejection. */
			if (x->decided && res->status != RS_INCORRECT)
				break;
			if (ev_check_case(x, ci, CASE_RESULT(kk)) != 0)
				all = false;
			kk++;
		}
		res->held_out_correct = all;
	}
	if (x->decided)
		return;
	res->pass_correctness = true;
	if (req->skip_timing) {
		ev_set_str(&res->speedup_calculation_error_message,
			   "timing was skipped (correctness only)");
		x->decided = true;
		res->status = RS_OK;
		return;
	}

timing:
	x->phase = PH_TIMING;
	ev_phase_enter(x, RPH_TIMING);
	if (x->no_gpu_baseline) {
		ev_set_str(&res->speedup_calculation_error_message,
			   "not timed: the task provides no GPU baseline to time "
			   "against (its reference runs on the host)");
		x->decided = true;
		res->status = RS_OK;
		return;
	}
	if (!ev_lock_or_verdict(x, LOCK_EX))
		return;
	ev_phase_enter(x, RPH_PEAKS);
	if (x->gpu)
		ev_gpu_peaks_for_roofline(x);
	else
		ev_host_peaks_for_roofline(x);
	ev_phase_enter(x, RPH_TIMING);
	ev_trace_mark(x, "timing");
	k = 0;
	for (int pass = 0; pass < 2 && !x->decided; pass++) {
		/* Visible first; held-out cases on final, unhurried runs. */
		if (pass == 1 && (!req->include_held_out || req->quick))
			break;
		k = 0;
		for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
			bool ho = t->cases[ci].held_out;
			if (ho && !req->include_held_out)
				continue;
			if (ho == (pass == 1) && t->cases[ci].check_only) {
				struct case_result *cr = CASE_RESULT(k);
				cr->correctness_only = true;
				ev_set_str(
					&cr->timing_note,
					"correctness only: a "
					"shape the task's harness checks but "
					"does not time");
			} else if (ho == (pass == 1)) {
				ev_time_case_confirmed(x, ci, CASE_RESULT(k));
				CASE_RESULT(k)->roofline_ms =
					ev_roofline_ideal_ns(x, &t->cases[ci]) /
					1e6;
				ev_trace_mark(x, "case %s timed",
					      t->cases[ci].id);
			}
			k++;
		}
	}
#undef CASE_RESULT
	aggregate(x);
	if (!x->decided && res->valid_optimized_cases == 0) {
		/* Correct, and every visible case too short to time. */
		ev_set_str(&res->speedup_calculation_error_message,
			   "not timed: every visible case's baseline call is "
			   "below the timing floor (correctness only)");
	}
	if (!x->decided) {
		x->decided = true;
		res->status = RS_OK;
	}
}

/* The confinement of this evaluation's candidate compiler and runners:
 * what they must not see (the store's cache, the task package, the
 * candidate's workspace, the logs; the catalogue is hidden by every
 * plan), and the runners' plans, prepared once.  0, or -errno when
 * $ARENA_SANDBOX=on and there is no sandbox here. */
static int confine_setup(struct eval_ctx *x, struct errbuf *err)
{
	const struct eval_request *req = x->req;
	const char *why = NULL;
	char *store = path_real(req->cache_dir);

	strvec_init(&x->hidden);
	if (!confine_available(&why)) {
		if (confine_required())
			return errf_code(err, ENOTSUP,
					 "$ARENA_SANDBOX=on, but "
					 "%s",
					 why);
		free(store);
		return 0;
	}
	x->confine_on = true;
	if (store) {
		/* <store>/cache: the store is its parent. */
		char *slash = strrchr(store, '/');
		strvec_push(&x->hidden, store);
		if (slash && !strcmp(slash, "/cache") && slash != store) {
			*slash = '\0';
			strvec_push(&x->hidden, store);
		}
	}
	free(store);
	strvec_push(&x->hidden, x->t->dir);
	strvec_push(&x->hidden, req->candidate_dir);
	if (req->lock_dir)
		strvec_push(&x->hidden, req->lock_dir);
	if (req->log_dir)
		strvec_push(&x->hidden, req->log_dir);
	for (int g = 0; g < 2; g++) {
		if (g && !x->gpu)
			break;
		struct confine_plan p;
		struct confine_spec cs = {
			.profile = g ? CONFINE_GPU_RUNNER : CONFINE_RUNNER,
			.runner = g ? gpu_runner_path(x->dev.kind)
				    : x->runner_path,
			.hide = &x->hidden,
		};
		confine_plan_for(&cs, &p);
		x->confine[g] = confine_prepare(&p, err);
		confine_plan_release(&p);
		if (!x->confine[g])
			return -ENOTSUP;
	}
	return 0;
}

int eval_run(const struct eval_request *req, struct task_result *res,
	     struct errbuf *err)
{
	if (req->task && req->task->aka)
		return ev_aka_run(req, res, err);
	return ev_run_task(req, NULL, res, err);
}

int ev_run_task(const struct eval_request *req, const struct aka_inputs *rec,
		struct task_result *res, struct errbuf *err)
{
	const struct task *t = req->task;
	struct eval_ctx x;
	struct source_set cand_src;
	const char *device = req->device ? req->device : "host";
	uint64_t t0 = now_ns();
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.t0_ns = t0;
	x.phase_now = RPH_SETUP;
	x.phase_since_ns = t0;
	memset(&cand_src, 0, sizeof(cand_src));
	for (int i = 0; i < NROLES; i++)
		x.logfd[i] = -1;
	x.req = req;
	x.rec = rec;
	x.t = t;
	x.res = res;
	x.err = err;
	x.all_sandboxed = true;

	if (!t || !req->candidate_dir || !req->cache_dir)
		return errf(err, "evaluation request without a task, a "
			    "candidate directory or a cache directory");
	x.lockfd = -1;
	x.mem = (struct memledger_entry)MEMLEDGER_ENTRY_INIT;
	if ((rc = eval_check_device(t, device, &x.dev, err)))
		return rc;
	x.gpu = x.dev.kind != DEV_HOST;
	x.gpu_hold = x.gpu && ev_gpu_hold_launch();
	x.ctl_gate = x.gpu_hold && ev_gpu_ctl_gate_wanted();
	x.capture = x.capture_asked = x.gpu &&
				      ev_gpu_capture_wanted(x.dev.kind);
	x.pair_cpu = x.gpu ? gpu_pair_cpu() : -1;
	x.dispute = x.gpu && ev_gpu_dispute_wanted();
	x.lang[ROLE_REF] = t->reference_language;
	x.lang[ROLE_BASE] = x.lang[ROLE_CAND] = t->language;
	if (!dir_exists(req->candidate_dir))
		return errf_code(err, ENOENT, "%s: no such directory",
				 req->candidate_dir);
	harden_controller();
	x.runner_path = paths_runner();
	if (access(x.runner_path, X_OK) != 0)
		return errf_code(err, ENOENT, "cannot find the runner program "
				 "(looked for %s); build it with `make` or set "
				 "ARENA_RUNNER", x.runner_path);
	if (x.gpu) {
		const char *gp = gpu_runner_path(x.dev.kind);
		if (!gp || access(gp, X_OK) != 0)
			return errf_code(err, ENOENT, "cannot find the %s runner "
					 "(looked for %s); `make` builds it when "
					 "%s is installed, or set %s",
					 dev_kind_name(x.dev.kind), gp ? gp : "?",
					 x.dev.kind == DEV_CUDA ? "nvcc" : "hipcc",
					 x.dev.kind == DEV_CUDA
						 ? "ARENA_RUNNER_CUDA"
						 : "ARENA_RUNNER_HIP");
		if ((rc = gpu_info_get(&x.dev, req->cache_dir, false, &x.gi,
				       err)))
			return rc;
		if ((rc = ev_gpu_shm_size(&x, err)))
			return rc;
		strbuf_init(&x.method_notes);
	}

	if ((rc = confine_setup(&x, err)))
		goto done;
	fill_identity(&x, device);
	x.flush_bytes = x.gpu ? gpu_flush_bytes(&x.gi) : 2 * ev_llc_bytes();
	random_bytes(&x.secret, sizeof(x.secret));
	/* Host runners of a GPU evaluation run only the C reference, which
	 * is never flushed. */
	if (!x.gpu && (rc = host_sweep_init(&x.sweep, x.flush_bytes)) != 0) {
		rc = errf_code(err, -rc,
			       "cannot map the %zu-byte cache sweep "
			       "buffer: %s",
			       x.flush_bytes, strerror(-rc));
		goto done;
	}
	x.timeout_ms = (int)((req->timing.runner_timeout_s > 0
				      ? req->timing.runner_timeout_s
				      : 60) * 1000);

	/* Private scratch space and logs. */
	char *sdir = path_join(req->cache_dir, "scratch");
	rc = mkdir_p(sdir, err);
	if (!rc) {
		x.scratch = xasprintf("%s/eval-XXXXXX", sdir);
		if (!mkdtemp(x.scratch)) {
			rc = errf_code(err, errno, "cannot create a directory "
				       "under %s: %s", sdir, strerror(errno));
			free(x.scratch);
			x.scratch = NULL;
		}
	}
	free(sdir);
	if (rc)
		goto done;
	x.log_dir = req->log_dir ? xstrdup(req->log_dir)
				 : path_join(x.scratch, "logs");
	if ((rc = mkdir_p(x.log_dir, err)) || (rc = open_logs(&x)))
		goto done;

	/* 1. The candidate's sources, read once. */
	x.phase = PH_COMPILE;
	struct errbuf se;
	errbuf_init(&se);
	if (sources_read(req->candidate_dir, &t->editable, &cand_src, &se) !=
	    0) {
		ev_verdict(&x, RS_COMPILE_ERROR, "the workspace cannot be "
			   "evaluated: %s", errbuf_str(&se));
		goto done;
	}
	hash_snapshot(&cand_src, res);

	/* 2. Builds.  The Python runner's zygote imports torch meanwhile. */
	if (ev_role_python(&x, ROLE_REF) || ev_role_python(&x, ROLE_CAND))
		pyzygote_prestart_async();
	ev_trace_mark(&x, "building");
	ev_phase_enter(&x, RPH_BUILD);
	if ((rc = ev_build_all(&x, &cand_src)) != 0 || x.decided)
		goto done;
	res->pass_compilation = true;
	ev_trace_mark(&x, "built");

	/* 3 and 4. */
	x.timing = xcalloc((size_t)t->ncases, sizeof(struct case_timing));
	x.gpu_batch = xcalloc((size_t)t->ncases, sizeof(int));
	x.gpu_call_ns = xcalloc((size_t)t->ncases, sizeof(double));
	run_phases(&x);
done:
	if (rc == 0 && x.gpu) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addstr(&m, GPU_METHOD);
		if (x.method_notes.len)
			strbuf_addf(&m, "; batches of back-to-back calls per "
				    "event pair: %s", x.method_notes.buf);
		if (x.captured_pairs)
			strbuf_addf(&m,
				    "; batches captured before their "
				    "inputs existed, each launched as one "
				    "graph%s",
				    x.capture ? ""
					      : ", then live (the trace "
						"says why)");
		else if (x.capture_asked && !x.capture)
			strbuf_addstr(&m, "; batches launched live (a "
					  "runner's calls could not be "
					  "captured)");
		if (x.gpu_hold)
			strbuf_addstr(&m, "; calls enqueued behind a held "
				      "stream");
		if (x.roofline_note)
			strbuf_addf(&m, "; %s", x.roofline_note);
		free(res->benchmark_method);
		res->benchmark_method = strbuf_detach(&m);
	}
	if (rc == 0) {
		res->candidate_accepted = res->status == RS_OK;
		/* True only when the candidate's compiler and every runner
		 * ran confined (and the runners under seccomp and Landlock):
		 * a compile error counts when its compiler was confined. */
		res->sandboxed = x.all_sandboxed && x.confine_on;
		result_score(res);
	}
	ev_trace_mark(&x, "done");
	ev_phase_enter(&x, RPH_TEARDOWN);
	ctx_release(&x);
	sources_release(&cand_src);
	ev_phase_enter(&x, RPH_TEARDOWN);
	if (rc == 0) {
		/* The agent waits for the teardown too: it counts (with
		 * req->defer_teardown, a GPU evaluation's runners are only
		 * killed here and reaped after the caller has its result). */
		res->eval_seconds = (double)(now_ns() - t0) / 1e9;
		for (int i = 0; i < RESULT_NPHASES; i++)
			res->phase_s[i] = round((double)x.phase_ns[i] / 1e6) /
					  1e3;
	}
	return rc;
}

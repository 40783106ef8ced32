/*
 * check_tasks.c - `arena check-tasks` (arena/check.h): one task's report.
 *
 * In order: load the task (a failure ends the report there); the static
 * checks (check_static.c); then, on the task's device, with the frozen
 * baseline as the candidate and no evaluation cache:
 *
 *   baseline    `seeds` correctness-only evaluations with the held-out
 *               cases (written and generated), each seed its own inputs:
 *               every one must be ok, i.e. the baseline matches the
 *               reference on every case and trial;
 *   mutants     the first of them probes the output mutants (eval.h);
 *               a mutant that changed the output and was never caught is
 *               a weakness of the task, named;
 *   aa          the baseline timed against itself (`arena eval --aa`,
 *               engine_eval_dir): its interval must
 *               contain 1.0 or its speedup lie within the noise floor;
 *               one more A/A decides when the first does not (a real bias
 *               shows twice, a 1-in-20 interval rarely does), and a
 *               third when those two fall on opposite sides of 1.0;
 *   floor       every visible case of the A/A timed, none correctness
 *               only (below the timing floor);
 *   difficulty  roofline_ms / base_ms per timed visible case, and their
 *               geometric mean; with --record, written to measured.yaml.
 *
 * Why in the run room: the checks use the engine's cache and lock
 * directories and the frozen baseline of unimplemented tasks
 * (workspace_baseline_dir), which are the run room's; the evaluator does
 * the work, through eval_run with req->mutants.
 */
#include "engine_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/check.h"
#include "workspace.h"

static void mutant_release(struct check_mutant *m)
{
	free(m->arg);
	free(m->where);
	free(m->detail);
}

void task_check_release(struct task_check *c)
{
	free(c->task_id);
	free(c->device);
	for (int i = 0; i < c->nitems; i++)
		free(c->items[i].detail);
	for (int i = 0; i < c->nmutants; i++)
		mutant_release(&c->mutants[i]);
	free(c->mutants);
	for (int i = 0; i < c->ngenerated; i++) {
		free(c->generated[i].id);
		free(c->generated[i].rule);
		free(c->generated[i].params);
	}
	free(c->generated);
	strvec_release(&c->rule_notes);
	free(c->measured.device);
	free(c->measured.measured_at);
	free(c->measured.evaluator);
	for (int i = 0; i < c->measured.ncases; i++)
		free(c->measured.cases[i].id);
	free(c->measured.cases);
	memset(c, 0, sizeof(*c));
}

/* What went wrong in an evaluation of the baseline, in one sentence. */
static const char *result_problem(const struct task_result *r)
{
	if (r->compilation_error_message)
		return r->compilation_error_message;
	if (r->correctness_error_message)
		return r->correctness_error_message;
	if (r->speedup_calculation_error_message)
		return r->speedup_calculation_error_message;
	return "no message";
}

struct check_run {
	struct engine *e;
	const struct task *t;
	const struct check_options *o;
	struct task_check *out;
	const char *device;
	char *cand; /* the baseline, under the editable names */
	char *base; /* the frozen baseline dir, or NULL */
	uint64_t seed;
};

/* With --progress: "check-tasks: TASK: WHAT: S s (phase S ...)", the
 * phases that took 0.05 s or more, so that a task cut short by a caller's
 * time limit still says where its time went. */
static void progress(const struct check_run *r, const char *what,
		     const struct task_result *res)
{
	FILE *f = r->o->progress;

	if (!f)
		return;
	fprintf(f, "check-tasks: %s: %s: %.2f s (", r->t->id, what,
		res->eval_seconds);
	const char *sep = "";
	for (int i = 0; i < RESULT_NPHASES; i++)
		if (res->phase_s[i] >= 0.05) {
			fprintf(f, "%s%s %.2f", sep, result_phase_names[i],
				res->phase_s[i]);
			sep = ", ";
		}
	fprintf(f, ")\n");
	fflush(f);
}

/* A correctness-only evaluation of the baseline against the reference,
 * with the held-out cases and the output mutants (mut, or NULL).  The
 * baseline is the task's own trusted code, so a Python task's rule on
 * library calls, which binds agents' candidates, is not applied to it
 * (a torch2triton baseline is PyTorch library calls by design). */
static int evaluate(struct check_run *r, uint64_t seed,
		    struct eval_mutants *mut, struct task_result *res,
		    struct errbuf *err)
{
	struct eval_request req;

	eval_request_init(&req);
	req.task = r->t;
	req.candidate_dir = r->cand;
	req.candidate_is_baseline = true;
	req.cache_dir = r->e->cache_dir;
	req.lock_dir = r->e->lock_dir;
	req.device = r->device;
	req.seed = seed;
	req.include_held_out = true;
	req.skip_timing = true;
	req.mutants = mut;
	req.defer_teardown = true;
	result_init(res);
	return eval_run(&req, res, err);
}

/* The A/A: exactly `arena eval --aa` (engine_eval_dir), the baseline
 * under the editable names timed against itself on the visible cases,
 * with its correctness trials, random reference checks and timing
 * floor; quick or not. */
static int evaluate_aa(struct check_run *r, uint64_t seed, bool quick,
		       struct task_result *res, struct errbuf *err)
{
	struct eval_options opt = {
		.aa = true,
		.quick = quick,
		.has_seed = true,
		.seed = seed,
		.case_budget_s = r->o->case_budget_s,
		.device = r->device,
	};

	result_init(res);
	return engine_eval_dir(r->e, r->t->id, NULL, &opt, res, err);
}

static void take_mutants(struct check_run *r, const struct eval_mutants *m)
{
	struct task_check *out = r->out;
	struct strbuf weak = STRBUF_INIT;
	int caught = 0, none = 0;

	out->mutants = xcalloc(m->n ? (size_t)m->n : 1, sizeof(*out->mutants));
	for (int i = 0; i < m->n; i++) {
		const struct eval_mutant_outcome *o = &m->v[i];
		struct check_mutant *cm = &out->mutants[out->nmutants++];
		cm->arg = xstrdup(r->t->args[o->arg].name);
		cm->kind = eval_mutant_name(o->kind);
		cm->where = o->where ? xstrdup(o->where) : NULL;
		cm->detail = o->detail ? xstrdup(o->detail) : NULL;
		if (o->caught) {
			cm->outcome = "caught";
			caught++;
		} else if (o->changed == 0) {
			cm->outcome = "no_change";
			none++;
		} else {
			cm->outcome = "too_weak";
			strbuf_addf(&weak,
				    "%s%s on output '%s' (%s) passed the "
				    "comparison on %d call%s",
				    weak.len ? "; " : "", cm->kind, cm->arg,
				    eval_mutant_what(o->kind), o->changed,
				    o->changed == 1 ? "" : "s");
		}
	}
	if (m->n == 0)
		check_add(out, "mutants", CHECK_FAIL,
			  "no output mutant was put through the comparison: "
			  "the evaluation's correctness calls did not probe "
			  "them (an evaluator path without mutants)");
	else if (weak.len)
		check_add(out, "mutants", CHECK_FAIL,
			  "too weak: %s; tighten the "
			  "tolerance or make the cases' outputs depend on "
			  "every input",
			  weak.buf);
	else
		check_add(out, "mutants", CHECK_OK, "%d of %d mutants caught%s",
			  caught, m->n,
			  none ? " (the others changed nothing in "
				 "these outputs)"
			       : "");
	strbuf_release(&weak);
}

static void check_baseline(struct check_run *r, bool *ok)
{
	int seeds = r->o->seeds > 0 ? r->o->seeds : 3, ncases = 0;
	struct eval_mutants mut = { 0 };

	*ok = false;
	for (int k = 0; k < seeds; k++) {
		struct task_result res;
		struct errbuf e;
		uint64_t seed = r->seed + (uint64_t)k * 0x9e3779b97f4a7c15ull;
		errbuf_init(&e);
		int rc = evaluate(r, seed, k == 0 ? &mut : NULL, &res, &e);
		char what[64];
		snprintf(what, sizeof(what), "baseline seed %d of %d%s", k + 1,
			 seeds, k == 0 ? " with mutants" : "");
		progress(r, what, &res);
		if (rc) {
			check_add(r->out, "baseline", CHECK_FAIL,
				  "the "
				  "evaluation could not run: %s",
				  errbuf_str(&e));
			result_release(&res);
			eval_mutants_release(&mut);
			return;
		}
		if (res.status != RS_OK) {
			bool generated = false;
			for (int c = 0; c < r->t->ncases; c++)
				if (r->t->cases[c].rule &&
				    strstr(result_problem(&res),
					   r->t->cases[c].id))
					generated = true;
			check_add(r->out, "baseline", CHECK_FAIL,
				  "seed %llu: %s: "
				  "%s%s",
				  (unsigned long long)seed,
				  result_status_name(res.status),
				  result_problem(&res),
				  generated ? " (a case held_out_rules made: "
					      "narrow its vary or rules)"
					    : "");
			result_release(&res);
			eval_mutants_release(&mut);
			return;
		}
		ncases = res.ncases;
		result_release(&res);
	}
	check_add(r->out, "baseline", CHECK_OK,
		  "matches the reference on "
		  "%d cases (visible and held-out), %d seeds",
		  ncases, seeds);
	take_mutants(r, &mut);
	eval_mutants_release(&mut);
	*ok = true;
}

static bool aa_within_noise(const struct task_result *r)
{
	double nf = r->noise_floor > 0 ? r->noise_floor : 0.01;

	return (r->speedup_ci_lo <= 1.0 && r->speedup_ci_hi >= 1.0) ||
	       fabs(r->speedup_ratio - 1.0) <= nf;
}

/* "host (<cpu model>)" from /proc/cpuinfo, or "host". */
static char *host_device_name(void)
{
	char *text = NULL, *name = NULL;

	if (file_read_all("/proc/cpuinfo", 1 << 20, &text, NULL, NULL) == 0) {
		char *p = strstr(text, "model name");
		char *colon = p ? strchr(p, ':') : NULL;
		if (colon) {
			char *end = strchr(colon, '\n');
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			name = xasprintf("host (%.*s)",
					 (int)(end ? end - colon
						   : (long)strlen(colon)),
					 colon);
		}
	}
	free(text);
	return name ? name : xstrdup("host");
}

static void difficulty(struct check_run *r, const struct task_result *res)
{
	struct task_check *out = r->out;
	struct task_measurement *m = &out->measured;
	struct strbuf sb = STRBUF_INIT;
	double logsum = 0;
	int n = 0;
	char ts[32];

	m->cases = xcalloc((size_t)res->ncases + 1, sizeof(*m->cases));
	for (int i = 0; i < res->ncases; i++) {
		const struct case_result *c = &res->cases[i];
		if (c->held_out || !c->timed || !(c->base_ms > 0) ||
		    !(c->roofline_ms > 0))
			continue;
		struct task_measured_case *mc = &m->cases[m->ncases++];
		mc->id = xstrdup(c->id);
		mc->base_ms = c->base_ms;
		mc->roofline_ms = c->roofline_ms;
		logsum += log(c->roofline_ms / c->base_ms);
		strbuf_addf(&sb, "%s%s %.3g%%", n ? ", " : "", c->id,
			    100 * c->roofline_ms / c->base_ms);
		n++;
	}
	if (n == 0) {
		check_add(out, "difficulty", CHECK_SKIP,
			  "no timed case with a "
			  "known roofline (%s)",
			  r->t->cost_bytes
				  ? "the device's peaks are not measured"
				  : "the task has no cost");
		strbuf_release(&sb);
		return;
	}
	out->fraction = exp(logsum / n);
	m->fraction = out->fraction;
	/* "cuda:0 NVIDIA H200 (sm_90)": the model names the device. */
	const char *sp = res->device ? strchr(res->device, ' ') : NULL;
	m->device = strcmp(r->device, "host") == 0
			    ? host_device_name()
			    : xstrdup(sp ? sp + 1 : r->device);
	time_stamp_iso(ts, now_wall());
	m->measured_at = xstrdup(ts);
	m->evaluator = xstrdup(ARENA_EVALUATOR_VERSION);
	check_add(out, "difficulty", CHECK_OK,
		  "the baseline reaches %.3g%% of "
		  "the roofline on %s (%s)",
		  100 * out->fraction, m->device, sb.buf);
	strbuf_release(&sb);
	if (r->o->record) {
		struct errbuf e;
		errbuf_init(&e);
		if (task_measured_record(r->t->dir, m, &e) != 0)
			check_add(out, "record", CHECK_FAIL, "%s",
				  errbuf_str(&e));
	}
}

static void check_timing(struct check_run *r)
{
	struct task_result res;
	struct errbuf e;
	bool within = false;
	char first[96] = "";
	int side[3] = { 0, 0, 0 }, rounds = 0;

	/* A real bias shows twice, and the same way: two tries outside the
	 * noise on opposite sides of 1.0 disagree about the baseline, so a
	 * third decides (seen on a loaded CI machine: a quick 0.9464, then
	 * 1.0167 [1.0014, 1.0326] for c2c/gemm). */
	for (int round = 0; round < 3 && !within; round++) {
		if (round == 2 && side[0] == side[1])
			break;
		errbuf_init(&e);
		if (round == 1) {
			/* The retry decides the check; the first try is kept
			 * in the detail, since only first tries measure how
			 * often an A/A interval holds 1.0 (coverage). */
			snprintf(first, sizeof(first),
				 "; first try %.4f [%.4f, %.4f]",
				 res.speedup_ratio, res.speedup_ci_lo,
				 res.speedup_ci_hi);
		}
		if (round)
			result_release(&res);
		/* A quick A/A times one pair of runner processes, and an
		 * offset between two processes (3-7% seen on a loaded CI
		 * machine, 2026-12-04) is not in its interval; a quick retry
		 * has the same blind spot.  So the retry that decides is
		 * never quick: its blocks of fresh runners carry that
		 * variance. */
		bool quick = r->o->aa_quick && round == 0;
		int rc = evaluate_aa(r, r->seed ^ (0xaaull + (uint64_t)round),
				     quick, &res, &e);
		progress(r, round ? "A/A retry" : "A/A", &res);
		if (rc) {
			check_add(r->out, "aa", CHECK_FAIL,
				  "the A/A evaluation "
				  "could not run: %s",
				  errbuf_str(&e));
			result_release(&res);
			return;
		}
		if (res.status != RS_OK) {
			check_add(r->out, "aa", CHECK_FAIL,
				  "the A/A evaluation "
				  "ended %s: %s",
				  result_status_name(res.status),
				  result_problem(&res));
			result_release(&res);
			return;
		}
		within = res.valid_optimized_cases == 0 ||
			 aa_within_noise(&res);
		side[round] = res.speedup_ratio > 1.0 ? 1 : -1;
		rounds = round + 1;
	}
	if (res.valid_optimized_cases == 0)
		check_add(r->out, "aa", CHECK_SKIP,
			  "no visible case was timed");
	else
		check_add(r->out, "aa", within ? CHECK_OK : CHECK_FAIL,
			  "speedup %.4f [%.4f, %.4f] over %d timed cases%s%s",
			  res.speedup_ratio, res.speedup_ci_lo,
			  res.speedup_ci_hi, res.valid_optimized_cases, first,
			  within	? ""
			  : rounds == 2 ? ", twice outside its noise, the same "
					  "way: the baseline timed against "
					  "itself is not 1.0"
					: ", outside its noise on every try: "
					  "the baseline timed against itself "
					  "is not 1.0");

	struct strbuf below = STRBUF_INIT;
	int timed = 0;
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < res.ncases; i++) {
		const struct case_result *c = &res.cases[i];
		if (c->held_out)
			continue;
		if (c->correctness_only || !c->timed) {
			strbuf_addf(&below, "%s'%s' (%s)",
				    below.len ? "; " : "", c->id,
				    c->timing_note ? c->timing_note
				    : c->error	   ? c->error
						   : "not timed");
			continue;
		}
		timed++;
		lo = fmin(lo, c->base_ms);
		hi = fmax(hi, c->base_ms);
	}
	if (below.len)
		check_add(r->out, "floor", CHECK_FAIL,
			  "visible cases not timed: "
			  "%s; make them larger, or set timing_floor_us with a "
			  "reason",
			  below.buf);
	else
		check_add(r->out, "floor", CHECK_OK,
			  "%d visible cases timed, the "
			  "baseline at %.3g-%.3g ms",
			  timed, lo, hi);
	strbuf_release(&below);
	difficulty(r, &res);
	result_release(&res);
}

static void skip_device_checks(struct task_check *out, const char *why)
{
	static const char *const names[] = { "baseline", "mutants", "aa",
					     "floor", "difficulty" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		check_add(out, names[i], CHECK_SKIP, "%s", why);
}

/* An AgentKernelArena folder (docs/aka.md, "Checking"): it has no cases
 * of arena's format until it is prepared, so the static checks of the
 * format do not apply; on the device it is prepared (eval_aka_judge),
 * and the check `aka` fails when its harness fails the kernel as shipped,
 * cannot be recorded, or passes a corrupted kernel (it checks nothing).
 * The prepared task's reference is its kernel as shipped, so the
 * baseline-against-reference, mutant and A/A checks of arena's tasks are
 * not run on it; once it is prepared, they are skipped with that
 * reason. */
static void check_aka(struct check_run *r, const struct task *t)
{
	static const char *const names[] = { "baseline", "mutants", "aa",
					     "floor", "difficulty" };
	const struct aka_task *a = t->aka;
	struct task_check *out = r->out;
	struct aka_judgement j;
	char *device = NULL;
	struct errbuf le;

	check_add(out, "static", CHECK_SKIP,
		  "an AgentKernelArena folder (%s harness) has no cases "
		  "of arena's format: its cases, inputs and tolerances are "
		  "recorded from its own harness when it is prepared",
		  aka_style_name(a->style));
	errbuf_init(&le);
	if (a->skip_reason)
		check_add(out, "aka", CHECK_SKIP, "%s", a->skip_reason);
	else if (r->o->static_only)
		check_add(out, "aka", CHECK_SKIP,
			  "preparing the folder runs its harness on the "
			  "device (not with --static)");
	else if (engine_resolve_device(r->o->device, t, &device, &le) != 0)
		check_add(out, "aka", CHECK_SKIP, "%s", errbuf_str(&le));
	else if (eval_aka_judge(t, device, r->e->cache_dir, &j, &le) != 0)
		check_add(out, "aka", CHECK_FAIL, "it cannot be prepared: %s",
			  errbuf_str(&le));
	else {
		out->device = xstrdup(device);
		if (j.skip_reason)
			check_add(out, "aka", CHECK_SKIP, "%s", j.skip_reason);
		else if (j.error)
			check_add(out, "aka", CHECK_FAIL, "%s", j.error);
		else if (j.catches_wrong == 0)
			check_add(out, "aka", CHECK_FAIL,
				  "its correctness check passes a corrupted "
				  "kernel too (it checks nothing); arena "
				  "checks candidates against the kernel as "
				  "shipped");
		else
			check_add(out, "aka", CHECK_OK,
				  "%s harness: %s passes "
				  "its check%s, %d cases recorded (%d checked "
				  "only)%s%s",
				  j.style,
				  a->style == AKA_STYLE_GPUMODE
					  ? "the module's functional twin"
					  : "the kernel as shipped",
				  j.catches_wrong == 1
					  ? " and a corrupted one fails it"
					  : "",
				  j.ncases, j.ncheck_only, j.notes ? "; " : "",
				  j.notes ? j.notes : "");
		aka_judgement_release(&j);
		for (size_t i = 0; i < ARRAY_SIZE(names); i++)
			check_add(out, names[i], CHECK_SKIP, "%s",
				  a->style == AKA_STYLE_GPUMODE
					  ? "not for AgentKernelArena "
					    "folders: a gpumode extension as "
					    "shipped is checked against the "
					    "module's function in the first "
					    "trial of every evaluation (`arena "
					    "eval TASK --aa` shows it)"
					  : "not for AgentKernelArena "
					    "folders: the prepared task's "
					    "reference is its kernel as "
					    "shipped");
	}
	free(device);
}

int engine_check_task(struct engine *e, const char *task_id,
		      const struct check_options *o, struct task_check *out,
		      struct errbuf *err)
{
	struct check_options none = { 0 };
	struct check_run r = { .e = e, .o = o ? o : &none, .out = out };
	struct task *t = NULL;
	char *device = NULL;
	struct errbuf le;
	uint64_t t0 = now_ns();
	bool ok;
	int rc;

	memset(out, 0, sizeof(*out));
	out->task_id = xstrdup(task_id);
	errbuf_init(&le);
	if (task_load(e->tasks_root, task_id, &t, &le) != 0) {
		check_add(out, "load", CHECK_FAIL, "%s", errbuf_str(&le));
		goto done;
	}
	if (t->aka) {
		check_add(out, "load", CHECK_OK,
			  "AgentKernelArena folder (%s): %s",
			  t->aka->schema_version == 2 ? "schema_version 2"
						      : "legacy keys",
			  language_name(t->language));
		check_aka(&r, t);
		goto done;
	}
	check_add(out, "load", CHECK_OK,
		  "schema, files, signature and %d "
		  "visible + %d held-out cases valid",
		  t->nvisible, t->ncases - t->nvisible);
	check_task_static(t, out);
	if (r.o->static_only)
		goto done;
	r.t = t;
	errbuf_init(&le);
	if (engine_resolve_device(r.o->device, t, &device, &le) != 0) {
		skip_device_checks(out, errbuf_str(&le));
		goto done;
	}
	out->device = xstrdup(device);
	r.device = device;
	if ((rc = workspace_baseline_dir(t, e->cache_dir, &r.base, err)) != 0) {
		task_free(t);
		free(device);
		return rc;
	}
	r.cand = xstrdup(r.base ? r.base : t->dir);
	r.seed = r.o->has_seed ? r.o->seed : eng_fresh_seed();
	check_baseline(&r, &ok);
	if (!ok)
		check_add(out, "mutants", CHECK_SKIP,
			  "the baseline did not pass");
	if (r.o->no_aa)
		;
	else if (ok)
		check_timing(&r);
	else
		check_add(out, "aa", CHECK_SKIP, "the baseline did not pass");
	free(r.cand);
	free(r.base);
done:
	free(device);
	task_free(t);
	out->seconds = (double)(now_ns() - t0) / 1e9;
	return 0;
}

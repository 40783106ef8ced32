/*
 * compare.c - paired comparison of two runs (arena/compare.h).
 *
 * Pairing is by task id.  A task's side aggregates its attempts: score is
 * the mean, speedup the geometric mean, the interval the envelope (lowest
 * low, highest high) of the attempts' intervals, so that repeats only ever
 * widen what counts as noise.
 *
 * Verdict of B against A on a common task:
 *   - either side without a result: pending (not counted);
 *   - correct in one run only: a win for that run;
 *   - wrong in both: a tie;
 *   - correct in both: a win when B's whole interval lies above A's whole
 *     interval and the ratio also clears the larger recorded noise floor,
 *     a loss in the mirror case, a tie otherwise.
 *
 * The geometric-mean ratio's interval is a percentile bootstrap over tasks
 * (tasks are the unit of replication here; each task's own timing noise is
 * already inside its interval).  The seed derives from the run ids, so the
 * same two runs always give the same report.
 */
#include "arena/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/result.h"

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case CMP_WIN: return "win";
	case CMP_TIE: return "tie";
	case CMP_LOSS: return "loss";
	case CMP_ONLY_A: return "only in A";
	case CMP_ONLY_B: return "only in B";
	default: return "pending";
	}
}

/* ---- one run --------------------------------------------------------- */

struct run_view {
	struct store_run run;
	struct store_attempt *as;
	int n;
	struct strvec task_ids;		/* unique, sorted */
	struct strvec devices;		/* seen in results */
	struct strvec versions;		/* evaluator versions seen */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(sv->v[0]), cmp_str);
}

static void push_unique(struct strvec *sv, const char *s)
{
	if (s && *s && !strvec_contains(sv, s))
		strvec_push(sv, s);
}

static void run_view_release(struct run_view *v)
{
	store_run_release(&v->run);
	store_attempts_free(v->as, v->n);
	strvec_release(&v->task_ids);
	strvec_release(&v->devices);
	strvec_release(&v->versions);
}

static int run_view_load(struct store *s, const char *id, struct run_view *v,
			 struct errbuf *err)
{
	int rc;

	memset(v, 0, sizeof(*v));
	strvec_init(&v->task_ids);
	strvec_init(&v->devices);
	strvec_init(&v->versions);
	if (!store_run_id_valid(id))
		return errf_code(err, ENOENT, "'%s' is not a run id (they look "
				 "like run_20261129_093000)", id);
	rc = store_run_get(s, id, &v->run, err);
	if (rc)
		return rc;
	rc = store_attempt_list(s, id, &v->as, &v->n, err);
	if (rc)
		return rc;
	for (int i = 0; i < v->n; i++)
		push_unique(&v->task_ids, v->as[i].task_id);
	strvec_sort(&v->task_ids);
	return 0;
}

/* ---- one side of one task -------------------------------------------- */

static bool positive(double x)
{
	return x > 0 && isfinite(x);
}

static void side_fill(struct compare_side *sd, struct run_view *v,
		      const char *task_id)
{
	double score_sum = 0, log_sum = 0;
	int nlog = 0;

	memset(sd, 0, sizeof(*sd));
	sd->compiled = sd->correct = true;
	for (int i = 0; i < v->n; i++) {
		struct task_result r;

		if (strcmp(v->as[i].task_id, task_id))
			continue;
		sd->present = true;
		sd->attempts++;
		if (!v->as[i].result_json)
			continue;
		result_init(&r);
		if (result_from_json(v->as[i].result_json, &r, NULL) != 0) {
			result_release(&r);
			continue;
		}
		sd->evaluated++;
		if (!sd->status)
			sd->status = xstrdup(result_status_name(r.status));
		sd->compiled = sd->compiled && result_compiled(&r);
		sd->correct = sd->correct && result_correct(&r);
		score_sum += r.score;
		if (positive(r.speedup_ratio)) {
			double lo = positive(r.speedup_ci_lo) ? r.speedup_ci_lo
							      : r.speedup_ratio;
			double hi = positive(r.speedup_ci_hi) ? r.speedup_ci_hi
							      : r.speedup_ratio;
			log_sum += log(r.speedup_ratio);
			nlog++;
			sd->ci_lo = nlog == 1 || lo < sd->ci_lo ? lo : sd->ci_lo;
			sd->ci_hi = hi > sd->ci_hi ? hi : sd->ci_hi;
		}
		if (r.noise_floor > sd->noise_floor && isfinite(r.noise_floor))
			sd->noise_floor = r.noise_floor;
		push_unique(&v->devices, r.device);
		push_unique(&v->versions, r.evaluator_version);
		result_release(&r);
	}
	if (!sd->evaluated)
		sd->compiled = sd->correct = false;
	else
		sd->score = score_sum / sd->evaluated;
	if (nlog)
		sd->speedup = exp(log_sum / nlog);
}

static enum compare_verdict verdict_of(struct compare_task *t)
{
	const struct compare_side *a = &t->a, *b = &t->b;
	double floor_ = a->noise_floor > b->noise_floor ? a->noise_floor
							: b->noise_floor;

	if (!a->present)
		return CMP_ONLY_B;
	if (!b->present)
		return CMP_ONLY_A;
	if (!a->evaluated || !b->evaluated)
		return CMP_PENDING;
	if (a->correct != b->correct)
		return b->correct ? CMP_WIN : CMP_LOSS;
	if (!a->correct)
		return CMP_TIE;
	if (!positive(a->speedup) || !positive(b->speedup))
		return CMP_TIE;
	t->ratio = b->speedup / a->speedup;
	if (b->ci_lo > a->ci_hi && t->ratio > 1 + floor_)
		return CMP_WIN;
	if (b->ci_hi < a->ci_lo && t->ratio < 1 / (1 + floor_))
		return CMP_LOSS;
	return CMP_TIE;
}

/* ---- aggregate ------------------------------------------------------- */

static int cmp_double_asc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bootstrap_ratio(struct compare_report *r, const double *logs,
			    int n, uint64_t seed)
{
	double *samples = xcalloc(COMPARE_BOOTSTRAP_ITERS, sizeof(double));
	double sum = 0;
	struct rng g;

	for (int i = 0; i < n; i++)
		sum += logs[i];
	r->ratio.point = exp(sum / n);
	rng_seed(&g, seed);
	for (int it = 0; it < COMPARE_BOOTSTRAP_ITERS; it++) {
		double s = 0;
		for (int i = 0; i < n; i++)
			s += logs[rng_range(&g, 0, n - 1)];
		samples[it] = exp(s / n);
	}
	qsort(samples, COMPARE_BOOTSTRAP_ITERS, sizeof(double), cmp_double_asc);
	r->ratio.lo = stats_quantile_sorted(samples, COMPARE_BOOTSTRAP_ITERS,
					    COMPARE_ALPHA / 2);
	r->ratio.hi = stats_quantile_sorted(samples, COMPARE_BOOTSTRAP_ITERS,
					    1 - COMPARE_ALPHA / 2);
	free(samples);
}

static void tally(struct compare_report *r)
{
	double *logs = xcalloc((size_t)r->ntasks + 1, sizeof(double));
	double sa = 0, sb = 0;
	int nscore = 0;

	for (int i = 0; i < r->ntasks; i++) {
		struct compare_task *t = &r->tasks[i];
		switch (t->verdict) {
		case CMP_WIN: r->wins++; break;
		case CMP_TIE: r->ties++; break;
		case CMP_LOSS: r->losses++; break;
		case CMP_PENDING: r->pending++; break;
		default: continue;	/* only in one run */
		}
		r->ncommon++;
		if (t->a.evaluated && t->b.evaluated) {
			sa += t->a.score;
			sb += t->b.score;
			nscore++;
		}
		r->fast1_a += t->a.correct && t->a.speedup > 1;
		r->fast1_b += t->b.correct && t->b.speedup > 1;
		if (t->ratio > 0)
			logs[r->npaired++] = log(t->ratio);
	}
	if (nscore) {
		r->mean_score_a = sa / nscore;
		r->mean_score_b = sb / nscore;
	}
	if (r->npaired)
		bootstrap_ratio(r, logs, r->npaired,
				hash64_str(hash64_str(0x636f6d70, r->run_a),
					   r->run_b));
	free(logs);
}

static void check_comparable(struct compare_report *r,
			     const struct run_view *a,
			     const struct run_view *b)
{
	int only_a = 0, only_b = 0;

	for (int i = 0; i < r->ntasks; i++) {
		only_a += r->tasks[i].verdict == CMP_ONLY_A;
		only_b += r->tasks[i].verdict == CMP_ONLY_B;
	}
	if (only_a || only_b)
		strvec_pushf(&r->reasons, "the task sets differ (%d task(s) "
			     "only in A, %d only in B)", only_a, only_b);
	/* Results name the device they ran on; a run without results yet
	 * falls back to its configured device. */
	struct strvec devs = STRVEC_INIT, vers = STRVEC_INIT;
	for (size_t i = 0; i < a->devices.n; i++)
		push_unique(&devs, a->devices.v[i]);
	for (size_t i = 0; i < b->devices.n; i++)
		push_unique(&devs, b->devices.v[i]);
	if (devs.n > 1)
		strvec_pushf(&r->reasons, "the results come from different "
			     "devices (%s in A, %s in B)",
			     a->devices.n ? a->devices.v[0] : "?",
			     b->devices.n ? b->devices.v[0] : "?");
	else if (!a->devices.n && !b->devices.n &&
		 strcmp(r->device_a, r->device_b))
		strvec_pushf(&r->reasons, "the runs are configured for "
			     "different devices (%s, %s)", r->device_a,
			     r->device_b);
	for (size_t i = 0; i < a->versions.n; i++)
		push_unique(&vers, a->versions.v[i]);
	for (size_t i = 0; i < b->versions.n; i++)
		push_unique(&vers, b->versions.v[i]);
	if (vers.n > 1)
		strvec_pushf(&r->reasons, "the results come from different "
			     "evaluator versions (%s in A, %s in B)",
			     a->versions.n ? a->versions.v[0] : "?",
			     b->versions.n ? b->versions.v[0] : "?");
	strvec_release(&devs);
	strvec_release(&vers);
	r->comparable = r->reasons.n == 0;
}

int compare_runs(struct store *s, const char *run_a, const char *run_b,
		 struct compare_report *out, struct errbuf *err)
{
	struct run_view a, b;
	struct strvec ids = STRVEC_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->reasons);
	out->run_a = xstrdup(run_a);
	out->run_b = xstrdup(run_b);
	rc = run_view_load(s, run_a, &a, err);
	if (!rc)
		rc = run_view_load(s, run_b, &b, err);
	else
		memset(&b, 0, sizeof(b));
	if (rc)
		goto out;
	out->device_a = xstrdup(a.run.device ? a.run.device : "auto");
	out->device_b = xstrdup(b.run.device ? b.run.device : "auto");
	for (size_t i = 0; i < a.task_ids.n; i++)
		push_unique(&ids, a.task_ids.v[i]);
	for (size_t i = 0; i < b.task_ids.n; i++)
		push_unique(&ids, b.task_ids.v[i]);
	strvec_sort(&ids);
	out->ntasks = (int)ids.n;
	out->tasks = xcalloc(ids.n + 1, sizeof(*out->tasks));
	for (size_t i = 0; i < ids.n; i++) {
		struct compare_task *t = &out->tasks[i];
		t->task_id = xstrdup(ids.v[i]);
		side_fill(&t->a, &a, t->task_id);
		side_fill(&t->b, &b, t->task_id);
		t->verdict = verdict_of(t);
	}
	tally(out);
	check_comparable(out, &a, &b);
out:
	strvec_release(&ids);
	run_view_release(&a);
	run_view_release(&b);
	return rc;
}

void compare_report_release(struct compare_report *r)
{
	for (int i = 0; i < r->ntasks; i++) {
		free(r->tasks[i].task_id);
		free(r->tasks[i].a.status);
		free(r->tasks[i].b.status);
	}
	free(r->tasks);
	free(r->run_a);
	free(r->run_b);
	free(r->device_a);
	free(r->device_b);
	strvec_release(&r->reasons);
	memset(r, 0, sizeof(*r));
}

/* ---- text ------------------------------------------------------------ */

static void add_speedup(struct strbuf *sb, const struct compare_side *sd)
{
	char cell[64];

	if (!sd->evaluated)
		snprintf(cell, sizeof(cell), "%s", sd->present ? "-" : "absent");
	else if (!sd->correct)
		snprintf(cell, sizeof(cell), "%s",
			 sd->status ? sd->status : "wrong");
	else
		snprintf(cell, sizeof(cell), "%.3f [%.3f,%.3f]", sd->speedup,
			 sd->ci_lo, sd->ci_hi);
	strbuf_addf(sb, " %-23s", cell);
}

static void add_task_line(struct strbuf *sb, const struct compare_task *t)
{
	char a[16] = "-", b[16] = "-", d[16] = "-", ratio[16] = "-";

	if (t->a.evaluated)
		snprintf(a, sizeof(a), "%.1f", t->a.score);
	if (t->b.evaluated)
		snprintf(b, sizeof(b), "%.1f", t->b.score);
	if (t->a.evaluated && t->b.evaluated)
		snprintf(d, sizeof(d), "%+.1f", t->b.score - t->a.score);
	if (t->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.3f", t->ratio);
	strbuf_addf(sb, "%-28s %8s %8s %8s", t->task_id, a, b, d);
	add_speedup(sb, &t->a);
	add_speedup(sb, &t->b);
	strbuf_addf(sb, " %7s  %s\n", ratio, compare_verdict_name(t->verdict));
}

char *compare_report_text(const struct compare_report *r)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "arena compare\n  A: %s (device %s)\n  B: %s "
		    "(device %s)\n\n", r->run_a, r->device_a ? r->device_a : "?",
		    r->run_b, r->device_b ? r->device_b : "?");
	if (r->comparable) {
		strbuf_addstr(&sb, "comparable: yes (same tasks, device and "
			      "evaluator version)\n");
	} else {
		strbuf_addstr(&sb, "comparable: NO\n");
		for (size_t i = 0; i < r->reasons.n; i++)
			strbuf_addf(&sb, "  - %s\n", r->reasons.v[i]);
	}
	strbuf_addf(&sb, "tasks: %d in common, %d in total\n", r->ncommon,
		    r->ntasks);
	if (r->npaired)
		strbuf_addf(&sb, "geomean speedup ratio B/A: %.4f [%.4f, %.4f] "
			    "(%.0f%% bootstrap interval over %d task(s) "
			    "correct in both)\n", r->ratio.point, r->ratio.lo,
			    r->ratio.hi, 100 * (1 - COMPARE_ALPHA), r->npaired);
	else
		strbuf_addstr(&sb, "geomean speedup ratio B/A: n/a (no task "
			      "is correct in both runs)\n");
	strbuf_addf(&sb, "B vs A: %d win(s), %d tie(s), %d loss(es)\n",
		    r->wins, r->ties, r->losses);
	if (r->pending)
		strbuf_addf(&sb, "pending: %d task(s) without a result in one "
			    "of the runs\n", r->pending);
	strbuf_addf(&sb, "mean score: A %.2f, B %.2f (delta %+.2f)\n",
		    r->mean_score_a, r->mean_score_b,
		    r->mean_score_b - r->mean_score_a);
	strbuf_addf(&sb, "fast_1 (correct and faster than baseline): A %d/%d, "
		    "B %d/%d\n\n", r->fast1_a, r->ncommon, r->fast1_b,
		    r->ncommon);
	strbuf_addf(&sb, "%-28s %8s %8s %8s %-23s %-23s %7s  %s\n", "task",
		    "score A", "score B", "delta", " speedup A [CI]",
		    " speedup B [CI]", "B/A", "verdict");
	for (int i = 0; i < r->ntasks; i++)
		add_task_line(&sb, &r->tasks[i]);
	strbuf_addstr(&sb, "\nA win or loss needs the two speedup intervals "
		      "to be disjoint and the ratio\nto clear the larger "
		      "recorded noise floor; correct beats incorrect.\n");
	return strbuf_detach(&sb);
}

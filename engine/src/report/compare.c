/*
 * compare.c - paired comparison of two runs or two agent configurations
 * (arena/compare.h).
 *
 * Pairing is by task id.  For the table, a task's side aggregates its
 * attempts: score is the mean, speedup the geometric mean, the interval
 * the envelope (lowest low, highest high) of the attempts' intervals.
 * The statistics - effects with intervals, p-values, minimal detectable
 * effects, the per-task verdicts and the headline - are arena/abtest.h's,
 * fed one observation per attempt (docs/statistics.md §7-§10).  Pending
 * attempts and those without a verdict (infra_error) are left out of
 * them.
 *
 * Verdict of B against A on a task:
 *   - task only on one side: only in A / only in B (not counted);
 *   - either side without a result: pending (not counted);
 *   - otherwise abtest's: win or loss when the task is a discovery at
 *     the false discovery rate (5%) across the compared tasks, tie when
 *     it is not, untested when no test applies.
 *
 * The bootstrap's seed derives from the sides' names, so the same two
 * sides always give the same report.
 */
#include "arena/compare.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/result.h"

const char *compare_verdict_name(enum compare_verdict v)
{
	switch (v) {
	case CMP_WIN: return "win";
	case CMP_TIE: return "tie";
	case CMP_LOSS: return "loss";
	case CMP_ONLY_A: return "only in A";
	case CMP_ONLY_B: return "only in B";
	case CMP_UNTESTED: return "untested";
	default: return "pending";
	}
}

/* ---- one run --------------------------------------------------------- */

struct run_view {
	struct store_run run;
	struct store_attempt *as;
	int n;
	struct task_result *res;	/* parsed result of as[i] */
	bool *has_res;			/* as[i] has a parsed result */
	bool *in_side;			/* as[i] belongs to the side (its
					 * variant, when one is named) */
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
	for (int i = 0; v->res && i < v->n; i++)
		result_release(&v->res[i]);
	free(v->res);
	free(v->has_res);
	free(v->in_side);
	store_attempts_free(v->as, v->n);
	strvec_release(&v->task_ids);
	strvec_release(&v->devices);
	strvec_release(&v->versions);
}

/* Splits "RUN[:VARIANT]"; *variant is NULL without a colon. */
static void side_split(const char *side, char **run, char **variant)
{
	const char *colon = strchr(side, ':');

	*run = colon ? xstrndup(side, (size_t)(colon - side)) : xstrdup(side);
	*variant = colon ? xstrdup(colon + 1) : NULL;
}

static int run_view_load(struct store *s, const char *id, const char *variant,
			 struct run_view *v, struct errbuf *err)
{
	int rc;
	bool seen = false;

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
	v->res = xcalloc((size_t)v->n + 1, sizeof(*v->res));
	v->has_res = xcalloc((size_t)v->n + 1, sizeof(bool));
	v->in_side = xcalloc((size_t)v->n + 1, sizeof(bool));
	for (int i = 0; i < v->n; i++) {
		const char *var = v->as[i].variant ? v->as[i].variant : "";

		result_init(&v->res[i]);
		v->in_side[i] = !variant || !strcmp(var, variant);
		seen |= v->in_side[i];
		if (!v->in_side[i])
			continue;
		push_unique(&v->task_ids, v->as[i].task_id);
		if (v->as[i].result_json &&
		    result_from_json(v->as[i].result_json, &v->res[i],
				     NULL) == 0)
			v->has_res[i] = true;
	}
	if (variant && !seen) {
		struct strvec names = STRVEC_INIT;

		for (int i = 0; i < v->n; i++)
			push_unique(&names, v->as[i].variant);
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < names.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", names.v[i]);
		rc = errf_code(err, ENOENT, "run %s has no agent configuration "
			       "named '%s'; %s%s", id, variant,
			       names.n ? "its configurations are " :
					 "it has one configuration: compare it "
					 "as a whole run",
			       strbuf_str(&sb));
		strbuf_release(&sb);
		strvec_release(&names);
		return rc;
	}
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
		const struct task_result *r = &v->res[i];

		if (!v->in_side[i] || strcmp(v->as[i].task_id, task_id))
			continue;
		sd->present = true;
		sd->attempts++;
		if (!v->has_res[i])
			continue;
		sd->evaluated++;
		if (!sd->status)
			sd->status = xstrdup(result_status_name(r->status));
		sd->compiled = sd->compiled && result_compiled(r);
		sd->correct = sd->correct && result_correct(r);
		sd->ncorrect += result_correct(r);
		report_costs_add(&sd->costs, r);
		score_sum += r->score;
		if (result_correct(r) && positive(r->speedup_ratio)) {
			double lo = positive(r->speedup_ci_lo) ? r->speedup_ci_lo
							       : r->speedup_ratio;
			double hi = positive(r->speedup_ci_hi) ? r->speedup_ci_hi
							       : r->speedup_ratio;
			log_sum += log(r->speedup_ratio);
			nlog++;
			sd->ci_lo = nlog == 1 || lo < sd->ci_lo ? lo : sd->ci_lo;
			sd->ci_hi = hi > sd->ci_hi ? hi : sd->ci_hi;
		}
		if (r->noise_floor > sd->noise_floor && isfinite(r->noise_floor))
			sd->noise_floor = r->noise_floor;
		push_unique(&v->devices, r->device);
		push_unique(&v->versions, r->evaluator_version);
	}
	if (!sd->evaluated)
		sd->compiled = sd->correct = false;
	else
		sd->score = score_sum / sd->evaluated;
	if (nlog)
		sd->speedup = exp(log_sum / nlog);
}

/* The verdicts that do not need the statistics. */
static enum compare_verdict verdict_before_stats(const struct compare_task *t)
{
	if (!t->a.present)
		return CMP_ONLY_B;
	if (!t->b.present)
		return CMP_ONLY_A;
	if (!t->a.evaluated || !t->b.evaluated)
		return CMP_PENDING;
	return CMP_TIE;
}

/* One observation per attempt of the side with a verdict. */
static void add_obs(struct run_view *v, int arm, const struct strvec *ids,
		    struct ab_obs **obs, int *n, int *cap)
{
	for (int i = 0; i < v->n; i++) {
		char *const *hit;
		const char *key = v->as[i].task_id;

		if (!v->in_side[i] || !v->has_res[i])
			continue;
		hit = bsearch(&key, ids->v, ids->n, sizeof(ids->v[0]), cmp_str);
		if (!hit)
			continue;
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			*obs = xrealloc(*obs, (size_t)*cap * sizeof(**obs));
		}
		if (ab_obs_from_result(&v->res[i], (int)(hit - ids->v), arm,
				       &(*obs)[*n]))
			(*n)++;
	}
}

static int analyze(struct compare_report *r, struct run_view *a,
		   struct run_view *b, const struct strvec *ids,
		   struct errbuf *err)
{
	struct ab_obs *obs = NULL;
	struct ab_options opt;
	int n = 0, cap = 0, rc;
	bool same_run = !strcmp(r->run_a, r->run_b);

	add_obs(a, AB_A, ids, &obs, &n, &cap);
	add_obs(b, AB_B, ids, &obs, &n, &cap);
	ab_options_init(&opt);
	opt.seed = hash64_str(hash64_str(hash64_str(hash64_str(0x636f6d70,
							       r->run_a),
						    r->variant_a ? r->variant_a
								 : ""),
					 r->run_b),
			      r->variant_b ? r->variant_b : "");
	if (same_run && r->variant_a && r->variant_b) {
		opt.label_a = r->variant_a;
		opt.label_b = r->variant_b;
	}
	rc = ab_analyze(obs, n, r->ntasks, &opt, &r->ab, err);
	free(obs);
	return rc;
}

static void costs_sum(struct report_costs *to, const struct report_costs *c)
{
	to->attempts += c->attempts;
	to->turns += c->turns;
	to->input_tokens += c->input_tokens;
	to->cached_tokens += c->cached_tokens;
	to->output_tokens += c->output_tokens;
	to->cost_usd += c->cost_usd;
	to->cost_known += c->cost_known;
	to->agent_s += c->agent_s;
	to->eval_s += c->eval_s;
}

static void tally(struct compare_report *r)
{
	const struct ab_effect *sp = &r->ab.eff[AB_SPEEDUP];
	double sa = 0, sb = 0;
	int nscore = 0;

	for (int i = 0; i < r->ntasks; i++) {
		struct compare_task *t = &r->tasks[i];
		const struct ab_task *at = &r->ab.tasks[i];

		t->q = NAN;
		if (t->verdict == CMP_TIE) {
			/* Both sides have results: abtest decides. */
			if (at->ta > 0 && at->tb > 0)
				t->ratio = exp(at->log_ratio);
			t->q = at->q;
			switch (at->verdict) {
			case AB_WIN: t->verdict = CMP_WIN; break;
			case AB_LOSS: t->verdict = CMP_LOSS; break;
			case AB_TIE: t->verdict = CMP_TIE; break;
			default: t->verdict = CMP_UNTESTED;
			}
		}
		switch (t->verdict) {
		case CMP_WIN: r->wins++; break;
		case CMP_TIE: r->ties++; break;
		case CMP_LOSS: r->losses++; break;
		case CMP_UNTESTED: r->untested++; break;
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
	}
	for (int i = 0; i < r->ntasks; i++) {
		costs_sum(&r->costs_a, &r->tasks[i].a.costs);
		costs_sum(&r->costs_b, &r->tasks[i].b.costs);
	}
	if (nscore) {
		r->mean_score_a = sa / nscore;
		r->mean_score_b = sb / nscore;
	}
	r->npaired = sp->ntasks;
	if (sp->defined) {
		r->ratio.point = exp(sp->point);
		r->ratio.lo = exp(sp->lo);
		r->ratio.hi = exp(sp->hi);
	}
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

int compare_runs(struct store *s, const char *side_a, const char *side_b,
		 struct compare_report *out, struct errbuf *err)
{
	struct run_view a, b;
	struct strvec ids = STRVEC_INIT;
	int rc;

	memset(out, 0, sizeof(*out));
	strvec_init(&out->reasons);
	side_split(side_a, &out->run_a, &out->variant_a);
	side_split(side_b, &out->run_b, &out->variant_b);
	memset(&b, 0, sizeof(b));
	rc = run_view_load(s, out->run_a, out->variant_a, &a, err);
	if (!rc)
		rc = run_view_load(s, out->run_b, out->variant_b, &b, err);
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
		t->verdict = verdict_before_stats(t);
	}
	rc = analyze(out, &a, &b, &ids, err);
	if (rc)
		goto out;
	tally(out);
	check_comparable(out, &a, &b);
out:
	strvec_release(&ids);
	run_view_release(&a);
	run_view_release(&b);
	return rc;
}

int compare_run_variants(struct store *s, const char *run_id,
			 struct strvec *out, struct errbuf *err)
{
	struct store_attempt *as = NULL;
	int n = 0, rc;

	strvec_init(out);
	if (!store_run_id_valid(run_id))
		return errf_code(err, ENOENT, "'%s' is not a run id (they look "
				 "like run_20261129_093000)", run_id);
	rc = store_attempt_list(s, run_id, &as, &n, err);
	if (rc)
		return rc;
	/* Attempts come in task order, then attempt number; attempt numbers
	 * count (repeat, configuration) slots in config order, so the first
	 * task's first attempts list the configurations in order. */
	for (int i = 0; i < n; i++)
		push_unique(out, as[i].variant);
	store_attempts_free(as, n);
	return 0;
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
	free(r->variant_a);
	free(r->variant_b);
	free(r->device_a);
	free(r->device_b);
	strvec_release(&r->reasons);
	ab_result_release(&r->ab);
	memset(r, 0, sizeof(*r));
}

/* The task ids in report order, for abtest's renderers (caller frees the
 * array, not the strings). */
static const char *const *task_ids_of(const struct compare_report *r)
{
	const char **ids = xcalloc((size_t)r->ntasks + 1, sizeof(*ids));

	for (int i = 0; i < r->ntasks; i++)
		ids[i] = r->tasks[i].task_id;
	return ids;
}

/* ---- text ------------------------------------------------------------ */

static void add_speedup(struct strbuf *sb, const struct compare_side *sd)
{
	char cell[64];

	if (!sd->evaluated)
		snprintf(cell, sizeof(cell), "%s", sd->present ? "-" : "absent");
	else if (!(sd->speedup > 0))
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
	char pa[16] = "-", pb[16] = "-", q[16] = "-";

	if (t->a.evaluated) {
		snprintf(a, sizeof(a), "%.1f", t->a.score);
		snprintf(pa, sizeof(pa), "%d/%d", t->a.ncorrect, t->a.evaluated);
	}
	if (t->b.evaluated) {
		snprintf(b, sizeof(b), "%.1f", t->b.score);
		snprintf(pb, sizeof(pb), "%d/%d", t->b.ncorrect, t->b.evaluated);
	}
	if (t->a.evaluated && t->b.evaluated)
		snprintf(d, sizeof(d), "%+.1f", t->b.score - t->a.score);
	if (t->ratio > 0)
		snprintf(ratio, sizeof(ratio), "%.3f", t->ratio);
	if (isfinite(t->q))
		snprintf(q, sizeof(q), "%.3g", t->q);
	strbuf_addf(sb, "%-28s %6s %6s %8s %8s %8s", t->task_id, pa, pb, a, b,
		    d);
	add_speedup(sb, &t->a);
	add_speedup(sb, &t->b);
	strbuf_addf(sb, " %7s %7s  %s\n", ratio, q,
		    compare_verdict_name(t->verdict));
}

static void add_side(struct strbuf *sb, const char *name, const char *run,
		     const char *variant, const char *device)
{
	strbuf_addf(sb, "  %s: %s%s%s (device %s)\n", name, run,
		    variant ? ":" : "", variant ? variant : "",
		    device ? device : "?");
}

/* "costs A: 12 attempts, 340 turns, ... $1.2345, agent time 1234.5 s". */
static void costs_text(struct strbuf *sb, const char *side,
		       const struct report_costs *c)
{
	strbuf_addf(sb,
		    "costs %s: %d attempt(s), %" PRId64 " turns, %" PRId64
		    " input tokens (%" PRId64 " cached), %" PRId64 " output "
		    "tokens, ",
		    side, c->attempts, c->turns, c->input_tokens,
		    c->cached_tokens, c->output_tokens);
	if (!c->cost_known)
		strbuf_addstr(sb, "cost not reported");
	else
		strbuf_addf(sb, "$%.4f%s", c->cost_usd,
			    c->cost_known < c->attempts ? " (not all attempts "
							  "reported one)"
							: "");
	strbuf_addf(sb, ", agent time %.1f s\n", c->agent_s);
}

char *compare_report_text(const struct compare_report *r)
{
	struct strbuf sb = STRBUF_INIT;
	const char *const *ids;

	strbuf_addstr(&sb, "arena compare\n");
	add_side(&sb, "A", r->run_a, r->variant_a, r->device_a);
	add_side(&sb, "B", r->run_b, r->variant_b, r->device_b);
	strbuf_addch(&sb, '\n');
	if (r->comparable) {
		strbuf_addstr(&sb, "comparable: yes (same tasks, device and "
			      "evaluator version)\n");
	} else {
		strbuf_addstr(&sb, "comparable: NO\n");
		for (size_t i = 0; i < r->reasons.n; i++)
			strbuf_addf(&sb, "  - %s\n", r->reasons.v[i]);
	}
	strbuf_addf(&sb, "tasks: %d in common, %d in total\n\n", r->ncommon,
		    r->ntasks);
	ids = task_ids_of(r);
	ab_result_text(&sb, &r->ab, ids, false);
	free((void *)ids);
	/* The two summary lines scripts have read since the first compare. */
	if (r->ab.eff[AB_SPEEDUP].defined)
		strbuf_addf(&sb, "geomean speedup ratio B/A: %.4f [%.4f, %.4f] "
			    "(%.0f%% interval over %d task(s) correct under "
			    "both)\n", r->ratio.point, r->ratio.lo, r->ratio.hi,
			    100 * (1 - r->ab.alpha), r->npaired);
	else
		strbuf_addf(&sb, "geomean speedup ratio B/A: n/a (%d task(s) "
			    "correct under both; an interval needs 2)\n",
			    r->npaired);
	strbuf_addf(&sb, "B vs A: %d win(s), %d tie(s), %d loss(es), %d "
		    "untested\n", r->wins, r->ties, r->losses, r->untested);
	if (r->pending)
		strbuf_addf(&sb, "pending: %d task(s) without a result on one "
			    "of the sides\n", r->pending);
	strbuf_addf(&sb, "mean score: A %.2f, B %.2f (delta %+.2f)\n",
		    r->mean_score_a, r->mean_score_b,
		    r->mean_score_b - r->mean_score_a);
	strbuf_addf(&sb,
		    "fast_1 (correct and faster than baseline): A %d/%d, "
		    "B %d/%d\n",
		    r->fast1_a, r->ncommon, r->fast1_b, r->ncommon);
	costs_text(&sb, "A", &r->costs_a);
	costs_text(&sb, "B", &r->costs_b);
	strbuf_addch(&sb, '\n');
	strbuf_addf(&sb, "%-28s %6s %6s %8s %8s %8s %-23s %-23s %7s %7s  %s\n",
		    "task", "pass A", "pass B", "score A", "score B", "delta",
		    " speedup A [CI]", " speedup B [CI]", "B/A", "q",
		    "verdict");
	for (int i = 0; i < r->ntasks; i++)
		add_task_line(&sb, &r->tasks[i]);
	strbuf_addf(&sb, "\nA win or loss is a discovery at a %.0f%% false "
		    "discovery rate across the compared\ntasks "
		    "(Benjamini-Hochberg q <= %.2f): the speedup difference "
		    "clears the noise floor\nbeyond agent and timing noise, or "
		    "the pass rates differ (Fisher's exact test,\nwhere the "
		    "numbers of attempts allow it).  docs/statistics.md "
		    "explains.\n", 100 * r->ab.fdr, r->ab.fdr);
	return strbuf_detach(&sb);
}

/* ---- JSON ------------------------------------------------------------ */

static cJSON *jnum(double v)
{
	cJSON *j = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();

	if (!j)
		abort();
	return j;
}

static void jadd(cJSON *o, const char *key, cJSON *item)
{
	if (!item)
		abort();
	cJSON_AddItemToObject(o, key, item);
}

static cJSON *jstr_or_null(const char *s)
{
	cJSON *j = s ? cJSON_CreateString(s) : cJSON_CreateNull();

	if (!j)
		abort();
	return j;
}

static cJSON *side_json(const char *run, const char *variant,
			const char *device)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		abort();
	jadd(o, "run", jstr_or_null(run));
	jadd(o, "variant", jstr_or_null(variant));
	jadd(o, "device", jstr_or_null(device));
	return o;
}

static cJSON *task_side_json(const struct compare_side *sd)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		abort();
	jadd(o, "present", cJSON_CreateBool(sd->present));
	jadd(o, "attempts", cJSON_CreateNumber(sd->attempts));
	jadd(o, "evaluated", cJSON_CreateNumber(sd->evaluated));
	jadd(o, "correct", cJSON_CreateNumber(sd->ncorrect));
	jadd(o, "status", jstr_or_null(sd->status));
	jadd(o, "score", sd->evaluated ? jnum(sd->score) : cJSON_CreateNull());
	jadd(o, "speedup", sd->speedup > 0 ? jnum(sd->speedup)
					   : cJSON_CreateNull());
	jadd(o, "speedup_ci_envelope",
	     sd->speedup > 0 ? cJSON_CreateDoubleArray(
				       (double[]){ sd->ci_lo, sd->ci_hi }, 2)
			     : cJSON_CreateNull());
	jadd(o, "costs", report_costs_json(&sd->costs));
	return o;
}

char *compare_report_json(const struct compare_report *r)
{
	cJSON *root = cJSON_CreateObject(), *reasons, *tasks;
	const char *const *ids = task_ids_of(r);
	char *out;

	reasons = cJSON_CreateArray();
	tasks = cJSON_CreateArray();
	if (!root || !reasons || !tasks)
		abort();
	jadd(root, "a", side_json(r->run_a, r->variant_a, r->device_a));
	jadd(root, "b", side_json(r->run_b, r->variant_b, r->device_b));
	jadd(root, "comparable", cJSON_CreateBool(r->comparable));
	for (size_t i = 0; i < r->reasons.n; i++)
		cJSON_AddItemToArray(reasons,
				     cJSON_CreateString(r->reasons.v[i]));
	jadd(root, "reasons", reasons);
	jadd(root, "tasks_total", cJSON_CreateNumber(r->ntasks));
	jadd(root, "tasks_common", cJSON_CreateNumber(r->ncommon));
	jadd(root, "wins", cJSON_CreateNumber(r->wins));
	jadd(root, "ties", cJSON_CreateNumber(r->ties));
	jadd(root, "losses", cJSON_CreateNumber(r->losses));
	jadd(root, "untested", cJSON_CreateNumber(r->untested));
	jadd(root, "pending", cJSON_CreateNumber(r->pending));
	jadd(root, "mean_score_a", jnum(r->mean_score_a));
	jadd(root, "mean_score_b", jnum(r->mean_score_b));
	jadd(root, "fast1_a", cJSON_CreateNumber(r->fast1_a));
	jadd(root, "fast1_b", cJSON_CreateNumber(r->fast1_b));
	cJSON *costs = cJSON_CreateObject();
	if (!costs)
		abort();
	jadd(costs, "a", report_costs_json(&r->costs_a));
	jadd(costs, "b", report_costs_json(&r->costs_b));
	jadd(root, "costs", costs);
	jadd(root, "ab", ab_result_json(&r->ab, ids));
	for (int i = 0; i < r->ntasks; i++) {
		const struct compare_task *t = &r->tasks[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			abort();
		jadd(o, "task", cJSON_CreateString(t->task_id));
		jadd(o, "a", task_side_json(&t->a));
		jadd(o, "b", task_side_json(&t->b));
		jadd(o, "ratio", t->ratio > 0 ? jnum(t->ratio)
					      : cJSON_CreateNull());
		jadd(o, "q", jnum(t->q));
		jadd(o, "verdict", cJSON_CreateString(
					   compare_verdict_name(t->verdict)));
		cJSON_AddItemToArray(tasks, o);
	}
	jadd(root, "tasks", tasks);
	out = cJSON_Print(root);
	cJSON_Delete(root);
	free((void *)ids);
	if (!out)
		abort();
	return out;
}

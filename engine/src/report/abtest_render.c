/*
 * abtest_render.c - the A/B comparison for people and programs: the JSON
 * object that summary.json and `arena compare --json` embed, and the text
 * block of report.txt and `arena compare` (arena/abtest.h).
 *
 * Numbers that are not finite become JSON null (an interval that is not
 * defined, an infinite prior df).  Ratios are shown for the speedup (the
 * effect is a difference of mean log speedups), points for the pass rate.
 */
#include "arena/abtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

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

static cJSON *jobj(void)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		abort();
	return o;
}

static cJSON *effect_json(const struct ab_effect *e, enum ab_metric m)
{
	cJSON *o = jobj();
	bool lg = m == AB_SPEEDUP;

	jadd(o, "tasks", cJSON_CreateNumber(e->ntasks));
	jadd(o, "defined", cJSON_CreateBool(e->defined));
	jadd(o, "method", cJSON_CreateString(!e->defined ? "none"
					     : e->bootstrap ? "bootstrap+t"
							    : "t"));
	if (lg) {
		jadd(o, "ratio", jnum(exp(e->point)));
		jadd(o, "ratio_lo", jnum(exp(e->lo)));
		jadd(o, "ratio_hi", jnum(exp(e->hi)));
		jadd(o, "mde_ratio", jnum(exp(e->mde)));
		jadd(o, "geomean_a", jnum(exp(e->mean_a)));
		jadd(o, "geomean_b", jnum(exp(e->mean_b)));
	} else {
		jadd(o, "a", jnum(e->mean_a));
		jadd(o, "b", jnum(e->mean_b));
	}
	jadd(o, "effect", jnum(e->point));
	jadd(o, "lo", jnum(e->lo));
	jadd(o, "hi", jnum(e->hi));
	jadd(o, "se", jnum(e->se));
	jadd(o, "p_value", jnum(e->p_value));
	jadd(o, "prob_b_better", jnum(e->prob_b_better));
	jadd(o, "mde", jnum(e->mde));
	jadd(o, "excludes_zero", cJSON_CreateBool(e->defined &&
						  (e->lo > 0 || e->hi < 0)));
	return o;
}

cJSON *ab_result_json(const struct ab_result *r, const char *const *task_ids)
{
	cJSON *o = jobj(), *eff = jobj(), *var = jobj(), *ver = jobj();
	cJSON *tasks = cJSON_CreateArray();
	char seed[24];

	if (!tasks)
		abort();
	jadd(o, "a", cJSON_CreateString(r->label_a ? r->label_a : "A"));
	jadd(o, "b", cJSON_CreateString(r->label_b ? r->label_b : "B"));
	jadd(o, "headline", cJSON_CreateString(r->headline ? r->headline
							   : ""));
	jadd(o, "pass_line", cJSON_CreateString(r->pass_line ? r->pass_line
							     : ""));
	jadd(o, "differs", cJSON_CreateBool(r->differs));
	jadd(o, "alpha", jnum(r->alpha));
	jadd(o, "fdr", jnum(r->fdr));
	jadd(o, "power", jnum(r->power));
	jadd(o, "bootstrap_iters", cJSON_CreateNumber(r->iters));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)r->seed);
	jadd(o, "seed", cJSON_CreateString(seed));
	jadd(o, "tasks_common", cJSON_CreateNumber(r->ncommon));
	jadd(o, "attempts_min", cJSON_CreateNumber(r->min_k));
	jadd(o, "attempts_max", cJSON_CreateNumber(r->max_k));
	for (int m = 0; m < AB_NMETRICS; m++)
		jadd(eff, ab_metric_name(m), effect_json(&r->eff[m], m));
	jadd(o, "effects", eff);
	jadd(var, "sd_timing", jnum(r->sd_timing));
	jadd(var, "sd_within", jnum(r->sd_within));
	jadd(var, "within_df", jnum(r->within_df));
	jadd(var, "within_source", cJSON_CreateString(
			   ab_within_source_name(r->within_source)));
	jadd(var, "within_tasks", cJSON_CreateNumber(r->within_tasks));
	jadd(var, "sd_task_effect", jnum(r->sd_task_effect));
	jadd(o, "variance", var);
	jadd(ver, "wins", cJSON_CreateNumber(r->wins));
	jadd(ver, "ties", cJSON_CreateNumber(r->ties));
	jadd(ver, "losses", cJSON_CreateNumber(r->losses));
	jadd(ver, "untested", cJSON_CreateNumber(r->untested));
	jadd(o, "verdicts", ver);
	for (int t = 0; t < r->ntasks; t++) {
		const struct ab_task *tk = &r->tasks[t];
		cJSON *e;

		if (!tk->common)
			continue;
		e = jobj();
		jadd(e, "task", cJSON_CreateString(task_ids ? task_ids[t] : ""));
		jadd(e, "attempts_a", cJSON_CreateNumber(tk->na));
		jadd(e, "attempts_b", cJSON_CreateNumber(tk->nb));
		jadd(e, "correct_a", cJSON_CreateNumber(tk->ca));
		jadd(e, "correct_b", cJSON_CreateNumber(tk->cb));
		jadd(e, "timed_a", cJSON_CreateNumber(tk->ta));
		jadd(e, "timed_b", cJSON_CreateNumber(tk->tb));
		jadd(e, "ratio", jnum(exp(tk->log_ratio)));
		jadd(e, "log_ratio", jnum(tk->log_ratio));
		jadd(e, "log_ratio_se", jnum(tk->se));
		jadd(e, "noise_floor", jnum(tk->noise_floor));
		jadd(e, "p_speedup", jnum(tk->p_speed));
		jadd(e, "p_pass", jnum(tk->p_pass));
		jadd(e, "p", jnum(tk->p));
		jadd(e, "q", jnum(tk->q));
		jadd(e, "basis", isnan(tk->p) ? cJSON_CreateNull()
			 : cJSON_CreateString(ab_metric_name(tk->basis)));
		jadd(e, "verdict", cJSON_CreateString(
				  ab_verdict_name(tk->verdict)));
		cJSON_AddItemToArray(tasks, e);
	}
	jadd(o, "tasks", tasks);
	return o;
}

/* ---- text ------------------------------------------------------------ */

static void text_effect(struct strbuf *sb, const struct ab_result *r,
			enum ab_metric m)
{
	static const char *const names[] = { "geomean speedup B/A",
					     "pass rate (points)", "score",
					     "reward" };
	const struct ab_effect *e = &r->eff[m];
	char est[32], iv[48], p[16], pb[16], mde[24];

	if (!e->defined) {
		strbuf_addf(sb, "  %-21s %-9s (%d task%s: too few)\n", names[m],
			    "-", e->ntasks, e->ntasks == 1 ? "" : "s");
		return;
	}
	if (m == AB_SPEEDUP) {
		snprintf(est, sizeof(est), "%.3fx", exp(e->point));
		snprintf(iv, sizeof(iv), "[%.3f, %.3f]", exp(e->lo),
			 exp(e->hi));
		snprintf(mde, sizeof(mde), "%.3fx", exp(e->mde));
	} else {
		double k = m == AB_PASS ? 100 : 1;
		int prec = m == AB_REWARD ? 4 : 2;

		snprintf(est, sizeof(est), "%+.*f", prec, k * e->point);
		snprintf(iv, sizeof(iv), "[%+.*f, %+.*f]", prec, k * e->lo,
			 prec, k * e->hi);
		snprintf(mde, sizeof(mde), "%.*f", prec, k * e->mde);
	}
	if (!(e->se > 0))
		snprintf(mde, sizeof(mde), "-");
	else if (m == AB_PASS && e->mde > 1)
		snprintf(mde, sizeof(mde), "> 100");
	if (e->p_value < 0.001)
		snprintf(p, sizeof(p), "<0.001");
	else
		snprintf(p, sizeof(p), "%.3f", e->p_value);
	snprintf(pb, sizeof(pb), "%.3f", e->prob_b_better);
	strbuf_addf(sb, "  %-21s %-9s %-22s %-7s %-8s %-10s %d\n", names[m],
		    est, iv, p, pb, mde, e->ntasks);
}

void ab_result_text(struct strbuf *sb, const struct ab_result *r,
		    const char *const *task_ids, bool list_discoveries)
{
	int level = (int)lround(100 * (1 - r->alpha));

	strbuf_addf(sb, "A = %s, B = %s\n", r->label_a, r->label_b);
	strbuf_addf(sb, "%s\n%s\n", r->headline ? r->headline : "",
		    r->pass_line ? r->pass_line : "");
	strbuf_addf(sb, "  %-21s %-9s %-22s %-7s %-8s %-10s %s\n",
		    "effect of B vs A", "estimate", "interval", "p",
		    "P(B>A)", "detectable", "tasks");
	for (int m = 0; m < AB_NMETRICS; m++)
		text_effect(sb, r, m);
	strbuf_addf(sb, "  (%d%% intervals: cluster bootstrap over tasks, %d "
		    "replicates, joined with Student's t;\n   t alone below %d "
		    "tasks; detectable = the smallest effect found with %.0f%% "
		    "power)\n", level, r->iters, AB_MIN_BOOTSTRAP_TASKS,
		    100 * r->power);
	strbuf_addstr(sb, "variance of one attempt's log speedup: timing sd ");
	if (isfinite(r->sd_timing))
		strbuf_addf(sb, "%.4f", r->sd_timing);
	else
		strbuf_addstr(sb, "unknown");
	switch (r->within_source) {
	case AB_WITHIN_REPEATS:
		strbuf_addf(sb, ", between attempts sd %.4f (repeats on %d "
			    "task%s)", r->sd_within, r->within_tasks,
			    r->within_tasks == 1 ? "" : "s");
		break;
	case AB_WITHIN_SPREAD:
		strbuf_addf(sb, ", between attempts sd <= %.4f (one attempt "
			    "per side: from the spread across tasks; use "
			    "repeats to separate agent from task variance)",
			    r->sd_within);
		break;
	default:
		strbuf_addstr(sb, ", between attempts unknown (per-task "
			      "verdicts see timing noise only)");
	}
	if (isfinite(r->sd_task_effect))
		strbuf_addf(sb, ", effect across tasks sd %.4f",
			    r->sd_task_effect);
	strbuf_addch(sb, '\n');
	strbuf_addf(sb, "per-task verdicts (Benjamini-Hochberg, FDR %.0f%%): "
		    "%d win(s), %d tie(s), %d loss(es), %d untested\n",
		    100 * r->fdr, r->wins, r->ties, r->losses, r->untested);
	if (!list_discoveries)
		return;
	for (int t = 0; t < r->ntasks; t++) {
		const struct ab_task *tk = &r->tasks[t];

		if (tk->verdict != AB_WIN && tk->verdict != AB_LOSS)
			continue;
		strbuf_addf(sb, "  %-4s %s", ab_verdict_name(tk->verdict),
			    task_ids ? task_ids[t] : "?");
		if (tk->basis == AB_SPEEDUP)
			strbuf_addf(sb, "  %.3fx", exp(tk->log_ratio));
		else
			strbuf_addf(sb, "  pass %d/%d vs %d/%d", tk->cb, tk->nb,
				    tk->ca, tk->na);
		strbuf_addf(sb, "  q = %.3g (%s)\n", tk->q,
			    ab_metric_name(tk->basis));
	}
}

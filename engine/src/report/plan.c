/*
 * plan.c - power and sample size for A/B comparisons (arena/plan.h).
 *
 * For each number of repeats k the per-task variance of the difference
 * B - A is computed from the components (plan.h gives the formulas); the
 * speedup counts only tasks with a correct attempt on both sides, so its
 * effective number of tasks is n times the expected share of such tasks,
 * E[(1 - (1 - p_t)^k)^2], and each such task's variance uses
 * E[1 / K | K >= 1] for its number of correct attempts K ~ Bin(k, p_t).
 * Power is that of the two-sided t test on the task differences,
 * 1 - T(t_c - delta/se) + T(-t_c - delta/se), the shifted-t approximation
 * of the noncentral t; the tasks needed are the smallest n whose power
 * reaches the target (power grows with n, so a bisection finds it).
 *
 * Measurements: the A/A run gives the timing noise; past runs give the
 * agent's spread between attempts of one task (pooled within-cell
 * variance of log speedups, minus the timing part), the pass
 * probabilities and their within-task Bernoulli variance (unbiased:
 * n/(n-1) p(1-p)), and, where a run compared configurations, the spread
 * of the true effect across tasks (from report_ab.h's comparisons).
 */
#include "arena/plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/abtest.h"
#include "arena/stats_dist.h"
#include "report_ab.h"

static void component(struct plan_component *c, double v, bool measured,
		      char *source)
{
	free(c->source);
	c->value = v;
	c->measured = measured;
	c->source = source;
}

void plan_set(struct plan_component *c, double value, const char *source)
{
	component(c, value, false, xstrdup(source));
}

void plan_inputs_init(struct plan_inputs *in, int ntasks)
{
	memset(in, 0, sizeof(*in));
	in->ntasks = ntasks;
	in->effect_ratio = 1.05;
	in->pass_effect = 0.10;
	in->alpha = 0.05;
	in->power = 0.80;
	in->repeats[0] = 1;
	in->repeats[1] = 2;
	in->repeats[2] = 3;
	in->repeats[3] = 5;
	in->nrepeats = 4;
	component(&in->sd_timing, PLAN_DEFAULT_SD_TIMING, false,
		  xstrdup("assumed: the A/A spread of short kernels; measure "
			  "it with --noise RUN (a noop run)"));
	component(&in->sd_agent, PLAN_DEFAULT_SD_AGENT, false,
		  xstrdup("assumed: no past run with repeats given (--past "
			  "RUN)"));
	component(&in->sd_effect, PLAN_DEFAULT_SD_EFFECT, false,
		  xstrdup("assumed: no past A/B run with repeats given"));
	component(&in->pass_rate, PLAN_DEFAULT_PASS_RATE, false,
		  xstrdup("assumed: no past run given"));
	component(&in->pass_within,
		  PLAN_DEFAULT_PASS_RATE * (1 - PLAN_DEFAULT_PASS_RATE), false,
		  xstrdup("assumed: p(1-p) at the pass rate, the largest it "
			  "can be"));
	component(&in->sd_pass_effect, PLAN_DEFAULT_SD_PASS_EFFECT, false,
		  xstrdup("assumed: no past A/B run with repeats given"));
}

void plan_inputs_release(struct plan_inputs *in)
{
	free(in->sd_timing.source);
	free(in->sd_agent.source);
	free(in->sd_effect.source);
	free(in->pass_rate.source);
	free(in->pass_within.source);
	free(in->sd_pass_effect.source);
	free(in->pass_probs);
	memset(in, 0, sizeof(*in));
}

/* ---- measurements ---------------------------------------------------- */

int plan_measure_noise(struct plan_inputs *in, const char *run_id,
		       const char *agent, const struct report_row *rows,
		       int n, struct errbuf *err)
{
	double y2 = 0, se2 = 0;
	int ny = 0, nse = 0;

	for (int i = 0; i < n; i++) {
		struct ab_obs o;

		if (!ab_obs_from_result(rows[i].result, 0, 0, &o) ||
		    !isfinite(o.log_speedup))
			continue;
		y2 += o.log_speedup * o.log_speedup;
		ny++;
		if (isfinite(o.log_se)) {
			se2 += o.log_se * o.log_se;
			nse++;
		}
	}
	if (!ny)
		return errf_code(err, ENOENT, "run %s has no correct, timed "
				 "attempt to measure the timing noise from; "
				 "give a finished noop run to --noise", run_id);
	y2 /= ny;
	se2 = nse ? se2 / nse : 0;
	component(&in->sd_timing, sqrt(y2 > se2 ? y2 : se2), true,
		  xasprintf("measured: %s, %d A/A attempt(s)%s%s%s", run_id, ny,
			    agent && strcmp(agent, "noop") ? " (agent " : "",
			    agent && strcmp(agent, "noop") ? agent : "",
			    agent && strcmp(agent, "noop")
				    ? ": not a noop run, so this includes "
				      "the agent's changes)" : ""));
	return 0;
}

void plan_past_init(struct plan_past *p)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->runs);
}

void plan_past_release(struct plan_past *p)
{
	free(p->probs);
	strvec_release(&p->runs);
	memset(p, 0, sizeof(*p));
}

/* One (task, configuration) of a past run. */
struct cell {
	const char *task, *variant;
	int n, correct, timed;
	double mean, m2;	/* Welford over log speedups */
};

static const char *variant_of(const struct report_row *r)
{
	return r->variant ? r->variant : "";
}

static void past_cells(struct plan_past *p, const struct report_row *rows,
		       int n)
{
	struct cell *cells = xcalloc((size_t)n + 1, sizeof(*cells));
	int nc = 0, first = 0;

	for (int i = 0; i < n; i++) {
		struct ab_obs o;
		int c;

		if (!ab_obs_from_result(rows[i].result, 0, 0, &o))
			continue;
		/* Rows come task by task: look among this task's cells. */
		if (nc && strcmp(cells[nc - 1].task, rows[i].task_id))
			first = nc;
		for (c = first; c < nc; c++)
			if (!strcmp(cells[c].task, rows[i].task_id) &&
			    !strcmp(cells[c].variant, variant_of(&rows[i])))
				break;
		if (c == nc) {
			cells[nc].task = rows[i].task_id;
			cells[nc].variant = variant_of(&rows[i]);
			nc++;
		}
		cells[c].n++;
		cells[c].correct += o.correct;
		if (isfinite(o.log_speedup)) {
			double d = o.log_speedup - cells[c].mean;

			cells[c].timed++;
			cells[c].mean += d / cells[c].timed;
			cells[c].m2 += d * (o.log_speedup - cells[c].mean);
		}
	}
	for (int c = 0; c < nc; c++) {
		double ph = (double)cells[c].correct / cells[c].n;

		if (cells[c].timed >= 2) {
			p->ss += cells[c].m2;
			p->df += cells[c].timed - 1;
		}
		p->pass_sum += ph;
		p->pass_cells++;
		if (cells[c].n >= 2) {
			p->pass_within_sum += cells[c].n / (cells[c].n - 1.0) *
					      ph * (1 - ph);
			p->pass_within_cells++;
			if (p->nprobs == p->cap) {
				p->cap = p->cap ? 2 * p->cap : 64;
				p->probs = xrealloc(p->probs, (size_t)p->cap *
							      sizeof(double));
			}
			p->probs[p->nprobs++] = ph;
		}
	}
	free(cells);
}

/* Spreads of the true effects across tasks, from a run's own A/B
 * comparisons (with repeats on both sides). */
static void past_effects(struct plan_past *p, const struct report_row *rows,
			 int n, const char *run_id)
{
	struct report_ab ab;

	report_ab_build(&ab, rows, n, run_id);
	for (int k = 0; k < ab.ncmp; k++) {
		const struct ab_result *r = &ab.cmp[k];
		const struct ab_effect *e = &r->eff[AB_PASS];
		double within = 0;
		int m = 0;

		if (r->within_source != AB_WITHIN_REPEATS ||
		    !isfinite(r->sd_task_effect) || !e->defined)
			continue;
		for (int t = 0; t < r->ntasks; t++) {
			const struct ab_task *tk = &r->tasks[t];
			double pa, pb;

			if (!tk->common || tk->na < 2 || tk->nb < 2)
				continue;
			pa = (double)tk->ca / tk->na;
			pb = (double)tk->cb / tk->nb;
			within += pa * (1 - pa) / (tk->na - 1) +
				  pb * (1 - pb) / (tk->nb - 1);
			m++;
		}
		if (m < e->ntasks)
			continue;
		double taup2 = e->se * e->se * e->ntasks - within / m;
		p->tau2_sum += r->sd_task_effect * r->sd_task_effect;
		p->taup2_sum += taup2 > 0 ? taup2 : 0;
		p->ntau++;
	}
	report_ab_release(&ab);
}

void plan_past_add(struct plan_past *p, const char *run_id,
		   const struct report_row *rows, int n)
{
	strvec_push(&p->runs, run_id);
	past_cells(p, rows, n);
	past_effects(p, rows, n, run_id);
}

static char *runs_list(const struct plan_past *p)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->runs.n; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", p->runs.v[i]);
	return strbuf_detach(&sb);
}

void plan_past_finish(struct plan_past *p, struct plan_inputs *in)
{
	char *runs = runs_list(p);

	if (p->df > 0) {
		double w = p->ss / p->df, t = in->sd_timing.value;
		double a = w - t * t;

		component(&in->sd_agent, sqrt(a > 0 ? a : 0), true,
			  xasprintf("measured: %s, spread between attempts "
				    "of one task (%.0f degrees of freedom), "
				    "less the timing noise", runs, p->df));
	}
	if (p->pass_cells) {
		double pr = p->pass_sum / p->pass_cells;

		component(&in->pass_rate, pr, true,
			  xasprintf("measured: %s, %d task x configuration "
				    "cell(s)", runs, p->pass_cells));
		if (p->pass_within_cells)
			component(&in->pass_within,
				  p->pass_within_sum / p->pass_within_cells,
				  true,
				  xasprintf("measured: %s, repeats in %d "
					    "cell(s)", runs,
					    p->pass_within_cells));
		else
			component(&in->pass_within, pr * (1 - pr), false,
				  xstrdup("bounded: one attempt per task in "
					  "the past runs, so p(1-p) at their "
					  "pass rate (the largest it can be)"));
	}
	if (p->nprobs) {
		free(in->pass_probs);
		in->pass_probs = xcalloc((size_t)p->nprobs, sizeof(double));
		memcpy(in->pass_probs, p->probs,
		       (size_t)p->nprobs * sizeof(double));
		in->npass_probs = p->nprobs;
	}
	if (p->ntau) {
		component(&in->sd_effect, sqrt(p->tau2_sum / p->ntau), true,
			  xasprintf("measured: %s, A/B comparison(s) with "
				    "repeats", runs));
		component(&in->sd_pass_effect, sqrt(p->taup2_sum / p->ntau),
			  true, xasprintf("measured: %s, A/B comparison(s) "
					  "with repeats", runs));
	}
	free(runs);
}

/* ---- power ----------------------------------------------------------- */

static double power_of(double delta, double se, double df, double alpha)
{
	double tc, z;

	if (!(df >= 1) || !(se > 0))
		return se == 0 && df >= 1 && delta != 0 ? 1 : 0;
	tc = stats_t_quantile(1 - alpha / 2, df);
	z = fabs(delta) / se;
	return 1 - stats_t_cdf(tc - z, df) + stats_t_cdf(-tc - z, df);
}

/* Per-task variance v and share w of tasks that carry a speedup, for k
 * repeats: averages over the pass probabilities. */
static void speed_model(const struct plan_inputs *in, int k, double *v,
			double *share)
{
	double sw2 = in->sd_agent.value * in->sd_agent.value +
		     in->sd_timing.value * in->sd_timing.value;
	double tau2 = in->sd_effect.value * in->sd_effect.value;
	int np = in->npass_probs ? in->npass_probs : 1;
	double wsum = 0, wv = 0;

	for (int i = 0; i < np; i++) {
		double p = in->npass_probs ? in->pass_probs[i]
					   : in->pass_rate.value;
		double q = 1 - pow(1 - p, k), inv = 0;

		if (!(q > 0))
			continue;
		/* E[1/K | K >= 1], K ~ Binomial(k, p). */
		for (int j = 1; j <= k; j++) {
			int sg;
			double lc = lgamma_r(k + 1.0, &sg) -
				    lgamma_r(j + 1.0, &sg) -
				    lgamma_r(k - j + 1.0, &sg);
			inv += exp(lc + j * log(p) +
				   (k - j) * (p < 1 ? log1p(-p) : 0)) / j;
		}
		if (p >= 1)
			inv = 1.0 / k;
		else
			inv /= q;
		wsum += q * q;
		wv += q * q * (tau2 + 2 * sw2 * inv);
	}
	*share = wsum / np;
	*v = wsum > 0 ? wv / wsum : INFINITY;
}

static double speed_power(const struct plan_inputs *in, double v,
			  double share, long n)
{
	double neff = n * share;

	return power_of(log(in->effect_ratio), sqrt(v / neff), neff - 1,
			in->alpha);
}

/* Per-task variance of the pass-rate difference at k repeats.  A's
 * within-task Bernoulli variance is the measured (or assumed) one; B's is
 * evaluated where the effect would put it: each task's pass probability
 * moved by the effect, in the direction that has room (a task that always
 * passes, moved by 10 points, fails 10% of the time).  Without this a run
 * whose tasks all passed would promise to detect any change with 2
 * tasks. */
static double pass_var(const struct plan_inputs *in, int k)
{
	int np = in->npass_probs ? in->npass_probs : 1;
	double wb = 0, d = in->pass_effect;

	for (int i = 0; i < np; i++) {
		double p = in->npass_probs ? in->pass_probs[i]
					   : in->pass_rate.value;
		double q = p + d <= 1 ? p + d : p - d;

		if (q < 0)
			q = 0;
		wb += q * (1 - q);
	}
	wb /= np;
	return in->sd_pass_effect.value * in->sd_pass_effect.value +
	       (in->pass_within.value + wb) / k;
}

/* Smallest n in [2, PLAN_MAX_TASKS] with power >= target, or -1. */
static long tasks_needed(const struct plan_inputs *in, bool speed, double v,
			 double share)
{
	long lo = 2, hi = PLAN_MAX_TASKS;

#define POWER_AT(n) (speed ? speed_power(in, v, share, (n))                  \
			   : power_of(in->pass_effect, sqrt(v / (n)),        \
				      (n) - 1.0, in->alpha))
	if (POWER_AT(hi) < in->power)
		return -1;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;

		if (POWER_AT(mid) >= in->power)
			hi = mid;
		else
			lo = mid + 1;
	}
#undef POWER_AT
	return lo;
}

static double mde(const struct plan_inputs *in, double v, double neff)
{
	double df = neff - 1;

	if (!(df >= 1))
		return NAN;
	return (stats_t_quantile(1 - in->alpha / 2, df) +
		stats_t_quantile(in->power, df)) * sqrt(v / neff);
}

static bool component_ok(const struct plan_component *c, double max)
{
	return isfinite(c->value) && c->value >= 0 && c->value <= max;
}

int plan_compute(const struct plan_inputs *in, struct plan_row *rows,
		 struct errbuf *err)
{
	if (!(in->effect_ratio > 0) || in->effect_ratio == 1 ||
	    !isfinite(in->effect_ratio))
		return errf(err, "the speedup effect to detect must be a "
			    "positive ratio other than 1, e.g. 1.05 for 5%% "
			    "faster");
	if (!(in->pass_effect > 0 && in->pass_effect <= 1))
		return errf(err, "the pass-rate effect to detect must lie in "
			    "(0, 100] points");
	if (!(in->alpha > 0 && in->alpha < 0.5) ||
	    !(in->power > 0.5 && in->power < 1))
		return errf(err, "alpha must lie in (0, 0.5) and power in "
			    "(0.5, 1)");
	if (in->nrepeats < 1 || in->nrepeats > PLAN_MAX_REPEATS)
		return errf(err, "give 1 to %d repeat counts",
			    PLAN_MAX_REPEATS);
	if (!component_ok(&in->sd_timing, 10) ||
	    !component_ok(&in->sd_agent, 10) ||
	    !component_ok(&in->sd_effect, 10) ||
	    !component_ok(&in->pass_rate, 1) ||
	    !component_ok(&in->pass_within, 0.25) ||
	    !component_ok(&in->sd_pass_effect, 1))
		return errf(err, "a variance component is out of range: "
			    "standard deviations lie in [0, 10] (log "
			    "speedup), pass rates in [0, 1]");
	for (int i = 0; i < in->nrepeats; i++) {
		struct plan_row *r = &rows[i];
		int k = in->repeats[i];
		double v, share, vp;

		if (k < 1 || k > 100)
			return errf(err, "repeats must lie in 1..100 (as in a "
				    "run config), not %d", k);
		memset(r, 0, sizeof(*r));
		r->repeats = k;
		speed_model(in, k, &v, &share);
		vp = pass_var(in, k);
		r->eligible = share;
		r->tasks_speed = share > 0 ? tasks_needed(in, true, v, share)
					   : -1;
		r->tasks_pass = tasks_needed(in, false, vp, 1);
		r->mde_ratio = share > 0 ? exp(mde(in, v, in->ntasks * share))
					 : NAN;
		r->mde_pass = mde(in, vp, in->ntasks);
		if (r->mde_pass > 1)
			r->mde_pass = NAN;	/* no possible difference */
		r->power_speed = share > 0 ? speed_power(in, v, share,
							 in->ntasks) : 0;
		r->power_pass = power_of(in->pass_effect,
					 sqrt(vp / in->ntasks),
					 in->ntasks - 1.0, in->alpha);
	}
	return 0;
}

/* ---- output ---------------------------------------------------------- */

static void add_tasks(struct strbuf *sb, long n)
{
	if (n < 0)
		strbuf_addf(sb, " %10s", "> 1e6");
	else
		strbuf_addf(sb, " %10ld", n);
}

/* The first row (fewest repeats) whose needs fit the selection. */
static const struct plan_row *first_fit(const struct plan_inputs *in,
					const struct plan_row *rows,
					bool speed)
{
	const struct plan_row *best = NULL;

	for (int i = 0; i < in->nrepeats; i++) {
		long need = speed ? rows[i].tasks_speed : rows[i].tasks_pass;

		if (need >= 0 && need <= in->ntasks &&
		    (!best || rows[i].repeats < best->repeats))
			best = &rows[i];
	}
	return best;
}

static void conclusion(struct strbuf *sb, const struct plan_inputs *in,
		       const struct plan_row *rows, bool speed)
{
	const struct plan_row *fit = first_fit(in, rows, speed);
	const struct plan_row *last = &rows[0];
	char what[48];

	for (int i = 1; i < in->nrepeats; i++)
		if (rows[i].repeats > last->repeats)
			last = &rows[i];
	if (speed)
		snprintf(what, sizeof(what), "a %.3fx geomean speedup",
			 in->effect_ratio);
	else
		snprintf(what, sizeof(what), "%.1f points of pass rate",
			 100 * in->pass_effect);
	if (fit) {
		strbuf_addf(sb, "With the %d selected tasks, %d repeat%s per "
			    "configuration detect%s %s with %.0f%% power (%ld "
			    "tasks would do).\n", in->ntasks, fit->repeats,
			    fit->repeats == 1 ? "" : "s",
			    fit->repeats == 1 ? "s" : "", what,
			    100 * in->power,
			    speed ? fit->tasks_speed : fit->tasks_pass);
		return;
	}
	strbuf_addf(sb, "The %d selected tasks cannot detect %s with %.0f%% "
		    "power at up to %d repeats", in->ntasks, what,
		    100 * in->power, last->repeats);
	long need = speed ? last->tasks_speed : last->tasks_pass;
	if (need > 0)
		strbuf_addf(sb, ": that needs %ld tasks at %d repeats", need,
			    last->repeats);
	if (speed && isfinite(last->mde_ratio))
		strbuf_addf(sb, "; they detect %.3fx", last->mde_ratio);
	else if (!speed && isfinite(last->mde_pass))
		strbuf_addf(sb, "; they detect %.1f points",
			    100 * last->mde_pass);
	else if (!speed)
		strbuf_addstr(sb, "; they cannot detect any pass-rate "
			      "difference");
	strbuf_addstr(sb, ".\n");
}

static void add_component(struct strbuf *sb, const char *name, int prec,
			  const struct plan_component *c)
{
	strbuf_addf(sb, "  %-34s %-8.*f %s\n", name, prec, c->value,
		    c->source);
}

char *plan_text(const struct plan_inputs *in, const struct plan_row *rows)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "arena plan: %d task(s) selected; two-sided alpha "
		    "%.3g, power %.0f%%\n", in->ntasks, in->alpha,
		    100 * in->power);
	strbuf_addf(&sb, "effects to detect: geomean speedup %.3fx, pass "
		    "rate %.1f points\n\n", in->effect_ratio,
		    100 * in->pass_effect);
	strbuf_addstr(&sb, "variance components\n");
	add_component(&sb, "timing noise (sd of log speedup)", 4, &in->sd_timing);
	add_component(&sb, "agent between attempts (sd)", 4, &in->sd_agent);
	add_component(&sb, "effect across tasks (sd)", 4, &in->sd_effect);
	add_component(&sb, "pass rate", 3, &in->pass_rate);
	add_component(&sb, "pass variance within a task", 4, &in->pass_within);
	add_component(&sb, "pass effect across tasks (sd)", 4, &in->sd_pass_effect);
	strbuf_addf(&sb, "\n%-7s  %-21s  %-9s  with the %d selected tasks\n",
		    "", "tasks needed for", "share", in->ntasks);
	strbuf_addf(&sb, "%-7s  %9.3fx  %6.1f pts  %-9s  %-19s  %s\n",
		    "repeats", in->effect_ratio, 100 * in->pass_effect,
		    "with a", "detectable", "power");
	strbuf_addf(&sb, "%-7s  %-10s  %-9s  %-9s  %-8s  %-8s   %-8s  %s\n",
		    "", "", "", "speedup", "speedup", "pass pts", "speedup",
		    "pass");
	for (int i = 0; i < in->nrepeats; i++) {
		const struct plan_row *r = &rows[i];
		char ms[16] = "-", mp[16] = "-", share[16], ps[16], pp[16];

		if (isfinite(r->mde_ratio))
			snprintf(ms, sizeof(ms), "%.3fx", r->mde_ratio);
		if (isfinite(r->mde_pass))
			snprintf(mp, sizeof(mp), "%.1f", 100 * r->mde_pass);
		snprintf(share, sizeof(share), "%.0f%%", 100 * r->eligible);
		snprintf(ps, sizeof(ps), "%.0f%%", 100 * r->power_speed);
		snprintf(pp, sizeof(pp), "%.0f%%", 100 * r->power_pass);
		strbuf_addf(&sb, "%7d ", r->repeats);
		add_tasks(&sb, r->tasks_speed);
		add_tasks(&sb, r->tasks_pass);
		strbuf_addf(&sb, "  %-9s  %-8s  %-8s   %-8s  %s\n", share, ms,
			    mp, ps, pp);
	}
	strbuf_addstr(&sb, "(\"with a speedup\": the share of tasks with a "
		      "correct attempt under both\nconfigurations; only they "
		      "carry the speedup comparison.)\n\n");
	conclusion(&sb, in, rows, true);
	conclusion(&sb, in, rows, false);
	if (!in->sd_agent.measured || !in->sd_timing.measured)
		strbuf_addstr(&sb, "Assumed components make this a guess: "
			      "measure them with --noise RUN (noop)\nand "
			      "--past RUN (a run of your agent, with repeats)."
			      "\n");
	return strbuf_detach(&sb);
}

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

static cJSON *component_json(const struct plan_component *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		abort();
	jadd(o, "value", jnum(c->value));
	jadd(o, "measured", cJSON_CreateBool(c->measured));
	jadd(o, "source", cJSON_CreateString(c->source ? c->source : ""));
	return o;
}

char *plan_json(const struct plan_inputs *in, const struct plan_row *rows)
{
	cJSON *root = cJSON_CreateObject(), *comp = cJSON_CreateObject();
	cJSON *arr = cJSON_CreateArray();
	struct strbuf sb = STRBUF_INIT;
	char *out;

	if (!root || !comp || !arr)
		abort();
	jadd(root, "tasks_selected", cJSON_CreateNumber(in->ntasks));
	jadd(root, "alpha", jnum(in->alpha));
	jadd(root, "power", jnum(in->power));
	jadd(root, "effect_ratio", jnum(in->effect_ratio));
	jadd(root, "pass_effect", jnum(in->pass_effect));
	jadd(comp, "sd_timing", component_json(&in->sd_timing));
	jadd(comp, "sd_agent", component_json(&in->sd_agent));
	jadd(comp, "sd_effect", component_json(&in->sd_effect));
	jadd(comp, "pass_rate", component_json(&in->pass_rate));
	jadd(comp, "pass_within", component_json(&in->pass_within));
	jadd(comp, "sd_pass_effect", component_json(&in->sd_pass_effect));
	jadd(root, "components", comp);
	for (int i = 0; i < in->nrepeats; i++) {
		const struct plan_row *r = &rows[i];
		cJSON *o = cJSON_CreateObject();

		if (!o)
			abort();
		jadd(o, "repeats", cJSON_CreateNumber(r->repeats));
		jadd(o, "tasks_needed_speedup", r->tasks_speed < 0
			 ? cJSON_CreateNull()
			 : cJSON_CreateNumber((double)r->tasks_speed));
		jadd(o, "tasks_needed_pass", r->tasks_pass < 0
			 ? cJSON_CreateNull()
			 : cJSON_CreateNumber((double)r->tasks_pass));
		jadd(o, "share_with_speedup", jnum(r->eligible));
		jadd(o, "mde_ratio", jnum(r->mde_ratio));
		jadd(o, "mde_pass", jnum(r->mde_pass));
		jadd(o, "power_speedup", jnum(r->power_speed));
		jadd(o, "power_pass", jnum(r->power_pass));
		cJSON_AddItemToArray(arr, o);
	}
	jadd(root, "rows", arr);
	conclusion(&sb, in, rows, true);
	conclusion(&sb, in, rows, false);
	jadd(root, "conclusion", cJSON_CreateString(strbuf_str(&sb)));
	strbuf_release(&sb);
	out = cJSON_Print(root);
	cJSON_Delete(root);
	if (!out)
		abort();
	return out;
}

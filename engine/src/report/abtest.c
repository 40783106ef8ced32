/*
 * abtest.c - the A/B statistics of arena/abtest.h; docs/statistics.md
 * §7-§10 explains the model and why, this comment how the code follows it.
 *
 * Data: attempts y_{t,c,i} (task t, arm c in {A, B}, attempt i).  For each
 * task common to both arms the code forms, per metric, the difference of
 * the arms' attempt means, d_t = mean_i y_{t,B,i} - mean_i y_{t,A,i}
 * (log speedup: over correct, timed attempts only; pass rate, score and
 * reward: over every attempt with a verdict).
 *
 * Effects.  The effect is the mean of d_t over tasks.  Its interval is a
 * cluster bootstrap over tasks: resample tasks with replacement, carrying
 * each task's attempts (and so their agent variance and timing noise)
 * with it.  Resampling attempts again inside tasks, or redrawing timing
 * noise from each attempt's interval, would count that variance twice:
 * d_t already contains it (statistics.md §8 has the algebra and the
 * simulation that shows the over-coverage).  The percentile interval is
 * Hesterberg's "expanded" one (quantiles at alpha'/2 with
 * alpha'/2 = Phi(-sqrt(n/(n-1)) t_{n-1,1-alpha/2})), which corrects the
 * percentile bootstrap's narrowness for a few dozen tasks, and the
 * reported interval is its union with Student's t interval on the same
 * differences (the percentile interval runs short when the differences
 * are heavy-tailed; t does not).  The bootstrap's p-value is obtained by
 * inverting the expanded rule, and the reported one is the larger of it
 * and t's, so "p < alpha" and "the interval excludes 0" always agree.
 * With fewer than AB_MIN_BOOTSTRAP_TASKS tasks the interval is t alone.
 *
 * Per-task verdicts.  A task's speedup difference is tested against the
 * interval null |delta| <= log(1 + noise floor) (a win must clear the
 * A/A floor, as before) with a standard error that holds agent variance:
 *   - tasks repeated on one side or both give within-task variances,
 *     which are moderated (Smyth 2004, limma's empirical Bayes: each
 *     task's variance is shrunk towards a prior fitted to all of them,
 *     and the t test gains the prior's degrees of freedom);
 *   - with one attempt per side everywhere, the within-task variance is
 *     not estimable, and the spread of d_t across tasks (which holds
 *     agent variance, timing noise and real differences between tasks)
 *     stands in for it: conservative, never anti-conservative;
 *   - the error is never below the timing error the attempts' own
 *     intervals imply (deterministic agents repeat identical results).
 * The pass rate is tested with Fisher's exact test, but only where it can
 * reach the FDR level with the task's numbers of attempts (Tarone 1990):
 * 3 against 3 attempts never can, so it is not allowed to halve the power
 * of the speedup test.  Two tests on one task are combined by Bonferroni.
 * Across tasks, Benjamini-Hochberg q-values; q <= fdr is a discovery.
 */
#include "arena/abtest.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/stats.h"
#include "arena/stats_dist.h"

const char *ab_metric_name(enum ab_metric m)
{
	switch (m) {
	case AB_SPEEDUP: return "speedup";
	case AB_PASS: return "pass_rate";
	case AB_SCORE: return "score";
	case AB_REWARD: return "reward";
	default: return "?";
	}
}

const char *ab_verdict_name(enum ab_verdict v)
{
	switch (v) {
	case AB_TIE: return "tie";
	case AB_WIN: return "win";
	case AB_LOSS: return "loss";
	default: return "untested";
	}
}

const char *ab_within_source_name(enum ab_within_source s)
{
	switch (s) {
	case AB_WITHIN_REPEATS: return "repeats";
	case AB_WITHIN_SPREAD: return "spread_across_tasks";
	default: return "none";
	}
}

static bool positive_finite(double x)
{
	return x > 0 && isfinite(x);
}

bool ab_obs_from_result(const struct task_result *r, int task, int arm,
			struct ab_obs *o)
{
	if (!r || r->status == RS_NOT_EVALUATED || r->status == RS_INFRA_ERROR)
		return false;
	memset(o, 0, sizeof(*o));
	o->task = task;
	o->arm = arm;
	o->correct = result_correct(r);
	o->score = isfinite(r->score) ? r->score : 0;
	o->reward = isfinite(r->reward) ? r->reward : 0;
	o->log_speedup = NAN;
	o->log_se = NAN;
	if (o->correct && positive_finite(r->speedup_ratio)) {
		o->log_speedup = log(r->speedup_ratio);
		if (positive_finite(r->speedup_ci_lo) &&
		    positive_finite(r->speedup_ci_hi) &&
		    r->speedup_ci_lo <= r->speedup_ci_hi)
			o->log_se = (log(r->speedup_ci_hi) -
				     log(r->speedup_ci_lo)) /
				    (2 * stats_norm_quantile(0.975));
	}
	o->noise_floor = isfinite(r->noise_floor) && r->noise_floor > 0
				 ? r->noise_floor : 0;
	return true;
}

void ab_options_init(struct ab_options *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = AB_ALPHA;
	o->fdr = AB_FDR;
	o->power = AB_POWER;
	o->iters = AB_BOOTSTRAP_ITERS;
	o->seed = 0x61622d74657374ull;
}

/* ---- accumulation ---------------------------------------------------- */

struct arm_acc {
	int n, correct, timed;
	double score, reward;		/* sums */
	double ysum, yss;		/* log speedups: sum, then squares
					 * about the mean */
	double tvar;			/* sum of timing variances */
};

struct task_acc {
	struct arm_acc arm[2];
	double floor;
};

static void accumulate(const struct ab_obs *obs, int nobs,
		       struct task_acc *acc, double *tvar_sum, int *tvar_n)
{
	for (int i = 0; i < nobs; i++) {
		const struct ab_obs *o = &obs[i];
		struct arm_acc *a = &acc[o->task].arm[o->arm];

		a->n++;
		a->correct += o->correct;
		a->score += o->score;
		a->reward += o->reward;
		if (o->noise_floor > acc[o->task].floor)
			acc[o->task].floor = o->noise_floor;
		if (!isfinite(o->log_speedup))
			continue;
		a->timed++;
		a->ysum += o->log_speedup;
		if (isfinite(o->log_se)) {
			a->tvar += o->log_se * o->log_se;
			*tvar_sum += o->log_se * o->log_se;
			(*tvar_n)++;
		}
	}
	/* Second pass: squares about each arm's mean (no cancellation). */
	for (int i = 0; i < nobs; i++) {
		const struct ab_obs *o = &obs[i];
		struct arm_acc *a = &acc[o->task].arm[o->arm];

		if (isfinite(o->log_speedup)) {
			double dv = o->log_speedup - a->ysum / a->timed;
			a->yss += dv * dv;
		}
	}
}

/* ---- one effect ------------------------------------------------------ */

/* Mean of d[0..n) with its interval, p-value and detectable effect.
 * scratch holds o->iters doubles. */
static void effect_estimate(const double *d, int n, const struct ab_options *o,
			    uint64_t seed, double *scratch, struct ab_effect *e)
{
	double sum = 0, ss = 0, mean, sd, tq, tp;
	int df = n - 1;

	e->ntasks = n;
	e->defined = n >= 2;
	if (!e->defined) {
		e->point = e->lo = e->hi = e->se = e->mde = NAN;
		e->p_value = e->prob_b_better = NAN;
		if (n == 1)
			e->point = d[0];
		return;
	}
	for (int i = 0; i < n; i++)
		sum += d[i];
	mean = sum / n;
	for (int i = 0; i < n; i++)
		ss += (d[i] - mean) * (d[i] - mean);
	sd = sqrt(ss / df);
	e->point = mean;
	e->se = sd / sqrt(n);
	tq = stats_t_quantile(1 - o->alpha / 2, df);
	tp = stats_t_quantile(o->power, df);
	e->mde = (tq + tp) * e->se;

	if (n < AB_MIN_BOOTSTRAP_TASKS || e->se == 0) {
		/* Student's t (also when every task differs by the same
		 * amount: the bootstrap would be a point as well). */
		e->bootstrap = false;
		e->lo = mean - tq * e->se;
		e->hi = mean + tq * e->se;
		if (e->se > 0) {
			e->p_value = 2 * stats_t_cdf(-fabs(mean) / e->se, df);
			e->prob_b_better = stats_t_cdf(mean / e->se, df);
		} else {
			e->p_value = mean == 0 ? 1 : 0;
			e->prob_b_better = mean > 0 ? 1 : mean < 0 ? 0 : 0.5;
		}
		return;
	}

	struct rng g;
	int below = 0, above = 0;

	e->bootstrap = true;
	rng_seed(&g, seed);
	for (int it = 0; it < o->iters; it++) {
		double s = 0;

		for (int i = 0; i < n; i++)
			s += d[rng_range(&g, 0, n - 1)];
		s /= n;
		scratch[it] = s;
		below += s < 0;
		above += s > 0;
	}
	stats_sort(scratch, (size_t)o->iters);
	/* Expanded percentile interval (Hesterberg 2015). */
	double widen = sqrt((double)n / df);
	double a2 = stats_norm_cdf(-widen * tq);
	e->lo = stats_quantile_sorted(scratch, (size_t)o->iters, a2);
	e->hi = stats_quantile_sorted(scratch, (size_t)o->iters, 1 - a2);
	e->prob_b_better = (above + 0.5 * (o->iters - above - below)) /
			   o->iters;
	/* The interval excludes 0 when the share f of replicates beyond 0
	 * (on the far side from the estimate) is below alpha'/2, i.e. when
	 * t_{df}(1 - alpha/2) < Phi^-1(1 - f) / widen.  The p-value is the
	 * alpha at which that turns into equality. */
	if (mean == 0) {
		e->p_value = 1;
	} else {
		double f = (mean > 0 ? below : above) / (double)o->iters;
		double z;

		if (f < 0.5 / o->iters)
			f = 0.5 / o->iters;	/* resolution of the bootstrap */
		if (f > 0.5)
			f = 0.5;
		z = stats_norm_quantile(1 - f) / widen;
		e->p_value = 2 * stats_t_cdf(-z, df);
	}
	/* The union with Student's t interval.  The percentile bootstrap
	 * follows skewed task differences, but runs short when they are
	 * heavy-tailed (a few tasks with a wild agent): in simulation it
	 * covered 93.7% where t covered 95.7% (statistics.md §11).  The
	 * union keeps the better of the two in each case; its p-value is
	 * the larger one, so p < alpha still means "excludes 0". */
	double tlo = mean - tq * e->se, thi = mean + tq * e->se;
	double tpv = 2 * stats_t_cdf(-fabs(mean) / e->se, df);

	e->lo = tlo < e->lo ? tlo : e->lo;
	e->hi = thi > e->hi ? thi : e->hi;
	e->p_value = tpv > e->p_value ? tpv : e->p_value;
}

/* ---- per-task variance ----------------------------------------------- */

struct within {
	double s0sq;	/* prior (or pooled) variance of one attempt */
	double d0;	/* its degrees of freedom, INFINITY allowed */
	bool moderate;	/* shrink each task's own variance towards s0sq */
};

/* Smyth's (2004) moment estimate of the scaled inverse chi-square prior
 * of G sample variances s2[g] with df[g] degrees of freedom. */
static void fit_prior(double *s2, const double *df, int G, struct within *w)
{
	double *tmp = xcalloc((size_t)G, sizeof(double));
	double med, floor_, ebar = 0, v = 0, tri = 0;
	double *e = xcalloc((size_t)G, sizeof(double));

	memcpy(tmp, s2, (size_t)G * sizeof(double));
	med = stats_median_inplace(tmp, (size_t)G);
	floor_ = 1e-5 * med;
	if (!(floor_ > 0)) {
		double mx = 0;

		for (int g = 0; g < G; g++)
			mx = s2[g] > mx ? s2[g] : mx;
		floor_ = 1e-5 * mx;
	}
	free(tmp);
	if (!(floor_ > 0)) {
		/* Every task repeated identical values. */
		w->s0sq = 0;
		w->d0 = INFINITY;
		w->moderate = false;
		free(e);
		return;
	}
	for (int g = 0; g < G; g++) {
		double x = s2[g] > floor_ ? s2[g] : floor_;

		e[g] = log(x) - stats_digamma(df[g] / 2) + log(df[g] / 2);
		ebar += e[g];
		tri += stats_trigamma(df[g] / 2);
	}
	ebar /= G;
	tri /= G;
	for (int g = 0; g < G; g++)
		v += (e[g] - ebar) * (e[g] - ebar);
	v = v / (G - 1) - tri;
	if (v > 0) {
		w->d0 = 2 * stats_trigamma_inverse(v);
		w->s0sq = exp(ebar + stats_digamma(w->d0 / 2) -
			      log(w->d0 / 2));
	} else {
		w->d0 = INFINITY;
		w->s0sq = exp(ebar);
	}
	w->moderate = true;
	free(e);
}

static double cell_df(const struct task_acc *t)
{
	int a = t->arm[0].timed, b = t->arm[1].timed;

	return (a > 1 ? a - 1 : 0) + (b > 1 ? b - 1 : 0);
}

/* Sets out->within_* and *w from the tasks' repeats or, without any, from
 * the spread of the speedup differences. */
static void within_estimate(struct ab_result *out, const struct task_acc *acc,
			    const double *dspeed, const double *hspeed,
			    int nspeed, struct within *w)
{
	int G = 0;
	double *s2 = xcalloc((size_t)out->ntasks + 1, sizeof(double));
	double *df = xcalloc((size_t)out->ntasks + 1, sizeof(double));
	double ss = 0, dfs = 0;

	for (int t = 0; t < out->ntasks; t++) {
		double d = cell_df(&acc[t]);

		if (d <= 0)
			continue;
		s2[G] = (acc[t].arm[0].yss + acc[t].arm[1].yss) / d;
		df[G] = d;
		ss += acc[t].arm[0].yss + acc[t].arm[1].yss;
		dfs += d;
		G++;
	}
	memset(w, 0, sizeof(*w));
	w->d0 = INFINITY;
	out->within_tasks = G;
	if (G >= 3) {
		fit_prior(s2, df, G, w);
		out->within_source = AB_WITHIN_REPEATS;
	} else if (G > 0) {
		w->s0sq = ss / dfs;
		w->d0 = dfs;
		out->within_source = AB_WITHIN_REPEATS;
	} else if (nspeed >= 3) {
		double mean = 0, v = 0, h = 0;

		for (int i = 0; i < nspeed; i++) {
			mean += dspeed[i];
			h += hspeed[i];
		}
		mean /= nspeed;
		h /= nspeed;
		for (int i = 0; i < nspeed; i++)
			v += (dspeed[i] - mean) * (dspeed[i] - mean);
		v /= nspeed - 1;
		w->s0sq = v / h;
		w->d0 = nspeed - 1;
		out->within_source = AB_WITHIN_SPREAD;
	} else {
		out->within_source = AB_WITHIN_NONE;
	}
	out->sd_within = out->within_source == AB_WITHIN_NONE ? NAN
							      : sqrt(w->s0sq);
	out->within_df = w->d0 > 1e12 ? INFINITY : w->d0;
	free(s2);
	free(df);
}

/* Upper-tail probability of the t (or normal) distribution. */
static double t_upper(double x, double df)
{
	return isfinite(df) ? stats_t_cdf(-x, df) : stats_norm_cdf(-x);
}

static void task_speed_test(struct ab_task *tk, const struct task_acc *ta,
			    const struct within *w)
{
	const struct arm_acc *a = &ta->arm[0], *b = &ta->arm[1];
	double own = cell_df(ta), s2, df, vw, vt, se, d, f;

	tk->log_ratio = b->ysum / b->timed - a->ysum / a->timed;
	if (w->moderate && own > 0) {
		double own_s2 = (a->yss + b->yss) / own;

		if (isinf(w->d0)) {
			s2 = w->s0sq;
		} else {
			s2 = (w->d0 * w->s0sq + own * own_s2) / (w->d0 + own);
		}
		df = w->d0 + own;
	} else {
		s2 = w->s0sq;
		df = w->d0;
	}
	vw = s2 * (1.0 / a->timed + 1.0 / b->timed);
	vt = a->tvar / ((double)a->timed * a->timed) +
	     b->tvar / ((double)b->timed * b->timed);
	if (vt > vw) {
		/* The attempts' own timing intervals say more than their
		 * spread: a timing error from thousands of pairs, normal. */
		vw = vt;
		df = INFINITY;
	}
	se = sqrt(vw);
	tk->se = se;
	tk->df = df > 1e12 ? INFINITY : df;
	d = fabs(tk->log_ratio);
	f = log1p(ta->floor);
	if (se == 0) {
		tk->p_speed = d > f ? 0 : 1;
		return;
	}
	/* Interval null |delta| <= f: the largest rejection probability
	 * over it is attained at delta = +-f. */
	tk->p_speed = t_upper((d - f) / se, tk->df) +
		      t_upper((d + f) / se, tk->df);
	if (tk->p_speed > 1)
		tk->p_speed = 1;
}

static void task_tests(struct ab_result *out, const struct task_acc *acc,
		       const struct within *w, double fdr)
{
	double *p = xcalloc((size_t)out->ntasks + 1, sizeof(double));
	double *q = xcalloc((size_t)out->ntasks + 1, sizeof(double));
	int *idx = xcalloc((size_t)out->ntasks + 1, sizeof(int));
	int m = 0;

	for (int t = 0; t < out->ntasks; t++) {
		struct ab_task *tk = &out->tasks[t];
		const struct task_acc *ta = &acc[t];
		bool speed;
		double minp;

		if (!tk->common)
			continue;
		speed = tk->ta > 0 && tk->tb > 0;
		if (speed)
			task_speed_test(tk, ta, w);
		minp = stats_fisher_min_p(tk->na, tk->nb);
		if (minp <= (speed ? fdr / 2 : fdr))
			tk->p_pass = stats_fisher_exact(tk->ca, tk->na - tk->ca,
							tk->cb,
							tk->nb - tk->cb);
		if (speed && !isnan(tk->p_pass)) {
			bool by_speed = tk->p_speed <= tk->p_pass;

			tk->basis = by_speed ? AB_SPEEDUP : AB_PASS;
			tk->p = 2 * (by_speed ? tk->p_speed : tk->p_pass);
			if (tk->p > 1)
				tk->p = 1;
		} else if (speed) {
			tk->basis = AB_SPEEDUP;
			tk->p = tk->p_speed;
		} else if (!isnan(tk->p_pass)) {
			tk->basis = AB_PASS;
			tk->p = tk->p_pass;
		}
		p[m] = tk->p;
		idx[m++] = t;
	}
	stats_bh_adjust(p, m, q);
	for (int i = 0; i < m; i++) {
		struct ab_task *tk = &out->tasks[idx[i]];
		double dir;

		tk->q = q[i];
		if (isnan(tk->p)) {
			tk->verdict = AB_UNTESTED;
			out->untested++;
			continue;
		}
		if (tk->q > fdr) {
			tk->verdict = AB_TIE;
			out->ties++;
			continue;
		}
		dir = tk->basis == AB_SPEEDUP
			      ? tk->log_ratio
			      : (double)tk->cb / tk->nb - (double)tk->ca / tk->na;
		tk->verdict = dir > 0 ? AB_WIN : AB_LOSS;
		out->wins += dir > 0;
		out->losses += dir <= 0;
	}
	free(p);
	free(q);
	free(idx);
}

/* ---- headline -------------------------------------------------------- */

static void add_p(struct strbuf *sb, double p)
{
	if (p < 0.001)
		strbuf_addstr(sb, "p < 0.001");
	else if (p < 0.1)
		strbuf_addf(sb, "p = %.3f", p);
	else
		strbuf_addf(sb, "p = %.2f", p);
}

static void add_attempts(struct strbuf *sb, const struct ab_result *r)
{
	if (r->min_k == r->max_k)
		strbuf_addf(sb, "%d attempt%s", r->min_k,
			    r->min_k == 1 ? "" : "s");
	else
		strbuf_addf(sb, "%d-%d attempts", r->min_k, r->max_k);
}

static void make_headline(struct ab_result *r)
{
	const struct ab_effect *s = &r->eff[AB_SPEEDUP], *p = &r->eff[AB_PASS];
	const char *A = r->label_a, *B = r->label_b;
	struct strbuf sb = STRBUF_INIT;
	int level = (int)lround(100 * (1 - r->alpha));

	if (r->ncommon == 0) {
		strbuf_addf(&sb, "No task has results under both %s and %s: "
			    "nothing to compare yet.", A, B);
	} else if (r->ncommon < 2) {
		strbuf_addf(&sb, "One task has results under both %s and %s: "
			    "an interval over tasks needs at least two; see "
			    "the task's verdict.", A, B);
	} else if (!s->defined) {
		strbuf_addf(&sb, "Too few tasks are correct under both %s and "
			    "%s for a speedup estimate (%d of %d); see the "
			    "pass rate.", A, B, s->ntasks, r->ncommon);
	} else {
		bool faster = s->lo > 0, slower = s->hi < 0;

		if (faster || slower)
			strbuf_addf(&sb, "%s is %s than %s: ", B,
				    faster ? "faster" : "slower", A);
		else
			strbuf_addf(&sb, "No speedup difference between %s "
				    "and %s is detected: %s/%s = ", A, B, B, A);
		strbuf_addf(&sb, "%.3fx [%.3f, %.3f] in geomean speedup over "
			    "%d tasks x ", exp(s->point), exp(s->lo),
			    exp(s->hi), s->ntasks);
		add_attempts(&sb, r);
		strbuf_addf(&sb, " (%d%% interval; ", level);
		add_p(&sb, s->p_value);
		if (faster || slower)
			strbuf_addf(&sb, ", the probability of a difference "
				    "at least this large if %s and %s were "
				    "the same).", A, B);
		else
			strbuf_addf(&sb, "); the smallest effect this "
				    "comparison detects with %.0f%% power is "
				    "%.3fx.", 100 * r->power, exp(s->mde));
	}
	r->headline = strbuf_detach(&sb);

	if (p->ntasks == 0) {
		r->pass_line = xstrdup("Pass rate: no common task.");
		return;
	}
	strbuf_addf(&sb, "Pass rate: %s %.1f%% vs %s %.1f%%", B,
		    100 * p->mean_b, A, 100 * p->mean_a);
	if (p->defined) {
		strbuf_addf(&sb, ", %+.1f points [%+.1f, %+.1f] over %d tasks "
			    "(", 100 * p->point, 100 * p->lo, 100 * p->hi,
			    p->ntasks);
		add_p(&sb, p->p_value);
		if (p->se > 0 && p->mde <= 1)
			strbuf_addf(&sb, "; detectable: %.1f points).",
				    100 * p->mde);
		else if (p->se > 0)
			strbuf_addstr(&sb, "; too few tasks to detect any "
				      "difference with 80% power).");
		else
			strbuf_addstr(&sb, "; no task's pass rate differs).");
	} else {
		strbuf_addf(&sb, " over %d task (too few for an interval).",
			    p->ntasks);
	}
	r->pass_line = strbuf_detach(&sb);
}

/* ---- analysis -------------------------------------------------------- */

static int validate(const struct ab_obs *obs, int nobs, int ntasks,
		    const struct ab_options *o, struct errbuf *err)
{
	if (ntasks < 0 || ntasks > AB_MAX_TASKS)
		return errf(err, "an A/B comparison takes 0 to %d tasks, not "
			    "%d", AB_MAX_TASKS, ntasks);
	if (nobs < 0 || nobs > AB_MAX_OBS || (nobs > 0 && !obs))
		return errf(err, "an A/B comparison takes 0 to %d attempts, "
			    "not %d", AB_MAX_OBS, nobs);
	if (!(o->alpha > 0 && o->alpha < 1) || !(o->fdr > 0 && o->fdr < 1) ||
	    !(o->power > 0 && o->power < 1) || o->iters < 100 ||
	    o->iters > 1000000)
		return errf(err, "A/B options out of range: alpha, fdr and "
			    "power must lie in (0, 1) and iters in [100, "
			    "1000000]");
	for (int i = 0; i < nobs; i++) {
		if (obs[i].task < 0 || obs[i].task >= ntasks)
			return errf(err, "attempt %d names task %d of %d", i,
				    obs[i].task, ntasks);
		if (obs[i].arm != AB_A && obs[i].arm != AB_B)
			return errf(err, "attempt %d names arm %d (0 is A, 1 "
				    "is B)", i, obs[i].arm);
	}
	return 0;
}

int ab_analyze(const struct ab_obs *obs, int nobs, int ntasks,
	       const struct ab_options *opt, struct ab_result *out,
	       struct errbuf *err)
{
	struct ab_options def;
	struct task_acc *acc;
	double *d[AB_NMETRICS], *hspeed, *scratch, tvar_sum = 0;
	double ma[AB_NMETRICS] = { 0 }, mb[AB_NMETRICS] = { 0 };
	int nd[AB_NMETRICS] = { 0 }, tvar_n = 0, rc;
	struct within w;

	memset(out, 0, sizeof(*out));
	if (!opt) {
		ab_options_init(&def);
		opt = &def;
	}
	out->label_a = xstrdup(opt->label_a ? opt->label_a : "A");
	out->label_b = xstrdup(opt->label_b ? opt->label_b : "B");
	if ((rc = validate(obs, nobs, ntasks, opt, err)) != 0)
		return rc;
	out->alpha = opt->alpha;
	out->fdr = opt->fdr;
	out->power = opt->power;
	out->iters = opt->iters;
	out->seed = opt->seed;
	out->ntasks = ntasks;
	out->tasks = xcalloc((size_t)ntasks + 1, sizeof(*out->tasks));
	acc = xcalloc((size_t)ntasks + 1, sizeof(*acc));
	accumulate(obs, nobs, acc, &tvar_sum, &tvar_n);
	out->sd_timing = tvar_n ? sqrt(tvar_sum / tvar_n) : NAN;

	for (int m = 0; m < AB_NMETRICS; m++)
		d[m] = xcalloc((size_t)ntasks + 1, sizeof(double));
	hspeed = xcalloc((size_t)ntasks + 1, sizeof(double));
	for (int t = 0; t < ntasks; t++) {
		struct ab_task *tk = &out->tasks[t];
		const struct arm_acc *a = &acc[t].arm[0], *b = &acc[t].arm[1];

		tk->na = a->n;
		tk->nb = b->n;
		tk->ca = a->correct;
		tk->cb = b->correct;
		tk->ta = a->timed;
		tk->tb = b->timed;
		tk->noise_floor = acc[t].floor;
		tk->log_ratio = tk->se = tk->df = NAN;
		tk->p_speed = tk->p_pass = tk->p = tk->q = NAN;
		tk->common = a->n > 0 && b->n > 0;
		if (!tk->common)
			continue;
		int k = a->n < b->n ? a->n : b->n, K = a->n > b->n ? a->n : b->n;
		if (out->ncommon == 0 || k < out->min_k)
			out->min_k = k;
		if (K > out->max_k)
			out->max_k = K;
		out->ncommon++;
		double va[AB_NMETRICS] = {
			0, (double)a->correct / a->n, a->score / a->n,
			a->reward / a->n
		};
		double vb[AB_NMETRICS] = {
			0, (double)b->correct / b->n, b->score / b->n,
			b->reward / b->n
		};
		for (int m = AB_PASS; m < AB_NMETRICS; m++) {
			d[m][nd[m]++] = vb[m] - va[m];
			ma[m] += va[m];
			mb[m] += vb[m];
		}
		if (a->timed && b->timed) {
			double ya = a->ysum / a->timed, yb = b->ysum / b->timed;

			hspeed[nd[AB_SPEEDUP]] = 1.0 / a->timed +
						 1.0 / b->timed;
			d[AB_SPEEDUP][nd[AB_SPEEDUP]++] = yb - ya;
			ma[AB_SPEEDUP] += ya;
			mb[AB_SPEEDUP] += yb;
		}
	}

	scratch = xcalloc((size_t)opt->iters, sizeof(double));
	for (int m = 0; m < AB_NMETRICS; m++) {
		struct ab_effect *e = &out->eff[m];

		effect_estimate(d[m], nd[m], opt,
				mix64(opt->seed ^ (0x9e37u * (unsigned)(m + 1))),
				scratch, e);
		e->mean_a = nd[m] ? ma[m] / nd[m] : NAN;
		e->mean_b = nd[m] ? mb[m] / nd[m] : NAN;
	}
	free(scratch);
	out->differs = out->eff[AB_SPEEDUP].defined &&
		       (out->eff[AB_SPEEDUP].lo > 0 ||
			out->eff[AB_SPEEDUP].hi < 0);

	within_estimate(out, acc, d[AB_SPEEDUP], hspeed, nd[AB_SPEEDUP], &w);
	/* Spread of the true effect across tasks: what the task differences
	 * vary by beyond their within-task noise (repeats only). */
	out->sd_task_effect = NAN;
	if (out->within_source == AB_WITHIN_REPEATS && nd[AB_SPEEDUP] >= 2) {
		const struct ab_effect *s = &out->eff[AB_SPEEDUP];
		double var_d = s->se * s->se * nd[AB_SPEEDUP], h = 0;

		for (int i = 0; i < nd[AB_SPEEDUP]; i++)
			h += hspeed[i];
		h /= nd[AB_SPEEDUP];
		double tau2 = var_d - w.s0sq * h;
		out->sd_task_effect = tau2 > 0 ? sqrt(tau2) : 0;
	}
	task_tests(out, acc, &w, opt->fdr);
	make_headline(out);

	for (int m = 0; m < AB_NMETRICS; m++)
		free(d[m]);
	free(hspeed);
	free(acc);
	return 0;
}

void ab_result_release(struct ab_result *r)
{
	free(r->tasks);
	free(r->label_a);
	free(r->label_b);
	free(r->headline);
	free(r->pass_line);
	memset(r, 0, sizeof(*r));
}

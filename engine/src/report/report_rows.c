/*
 * report_rows.c - the facts the reports state about each row (pending,
 * evaluated, compiled, correct, timed, significant; status and reason)
 * and the statistics over a group of rows (all, a family, a device, an
 * agent configuration), computed once for report.c's three renderings.
 * The rules are in report.c's opening comment.
 */
#include "report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/stats.h"

/* ---- per-row facts ----------------------------------------------------- */

static bool row_pending(const struct report_row *row)
{
	return row->result == NULL;
}

static bool row_evaluated(const struct report_row *row)
{
	return row->result && row->result->status != RS_NOT_EVALUATED;
}

bool row_compiled(const struct report_row *row)
{
	return row->result && result_compiled(row->result);
}

bool row_correct(const struct report_row *row)
{
	return row->result && result_correct(row->result);
}

static bool positive_finite(double x)
{
	return x > 0.0 && isfinite(x);
}

/* Counted in the speedup statistics: correct and timed. */
bool row_has_speedup(const struct report_row *row)
{
	return row->result && result_timed(row->result);
}

bool row_has_ci(const struct task_result *r)
{
	return positive_finite(r->speedup_ci_lo) &&
	       positive_finite(r->speedup_ci_hi) &&
	       r->speedup_ci_lo <= r->speedup_ci_hi;
}

enum versus row_versus(const struct report_row *row)
{
	const struct task_result *r = row->result;
	double nf;

	if (!row_has_speedup(row) || !row_has_ci(r))
		return VS_NONE;
	nf = positive_finite(r->noise_floor) ? r->noise_floor : 0.0;
	if (r->speedup_ci_lo > 1.0 + nf)
		return VS_FASTER;
	if (r->speedup_ci_hi < 1.0 - nf)
		return VS_SLOWER;
	return VS_SAME;
}

const char *versus_name(enum versus v)
{
	switch (v) {
	case VS_FASTER:
		return "faster";
	case VS_SLOWER:
		return "slower";
	case VS_SAME:
		return "same";
	default:
		return NULL;
	}
}

/* "c2c/saxpy" -> "c2c", "aka/triton2triton/x" -> "triton2triton" (a
 * registered task root's name is not a family; caller frees). */
char *task_family(const char *task_id)
{
	return task_family_of(task_id);
}

const char *row_status(const struct report_row *row)
{
	return row->result ? result_status_name(row->result->status)
			   : "pending";
}

/* The one line that says why a row did not pass (caller frees), or NULL.
 * From a multi-line message (compiler output) it keeps the first line
 * that mentions an error, else the first non-empty one. */
static char *message_line(const char *msg)
{
	const char *p, *best = NULL, *first = NULL;
	size_t len;

	if (!msg)
		return NULL;
	for (p = msg; *p;) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, n);
		bool blank = strspn(line, " \t\r") == n;

		if (!blank && !first)
			first = p;
		if (!blank && !best && strcasestr(line, "error"))
			best = p;
		free(line);
		p += n;
		if (*p == '\n')
			p++;
	}
	if (!best)
		best = first;
	if (!best)
		return NULL;
	len = strcspn(best, "\n");
	while (len > 0 && (best[len - 1] == '\r' || best[len - 1] == ' '))
		len--;
	if (len > 240)
		len = 240;
	return xstrndup(best, len);
}

char *row_reason(const struct report_row *row)
{
	const struct task_result *r = row->result;
	const char *msg = NULL;

	if (!r || (row_correct(row) && r->status == RS_OK))
		return NULL;
	switch (r->status) {
	case RS_COMPILE_ERROR:
		msg = r->compilation_error_message;
		break;
	case RS_REJECTED:
		msg = r->integrity.n ? r->integrity.v[0]
				     : r->correctness_error_message;
		break;
	case RS_RUNTIME_ERROR:
	case RS_TIMEOUT:
	case RS_INCORRECT:
	case RS_INFRA_ERROR:
	case RS_SKIPPED:
		msg = r->correctness_error_message;
		break;
	default:
		break;
	}
	if (!msg || !*msg)
		msg = !result_compiled(r) ? r->compilation_error_message
		      : !result_correct(r) ? r->correctness_error_message
					   : NULL;
	if (!msg || !*msg)
		msg = r->speedup_calculation_error_message;
	if (msg && *msg)
		return message_line(msg);
	return xstrdup(result_status_name(r->status));
}

/* ---- statistics over a group of rows ----------------------------------- */


static void group_init(struct group *g, const char *name, int cap)
{
	memset(g, 0, sizeof(*g));
	g->name = name ? xstrdup(name) : NULL;
	g->speedups = xcalloc((size_t)cap + 1, sizeof(double));
	g->retention = xcalloc((size_t)cap + 1, sizeof(double));
}

static void group_release(struct group *g)
{
	free(g->name);
	free(g->speedups);
	free(g->retention);
}

static double finite_or_0(double x)
{
	return isfinite(x) && x > 0 ? x : 0.0;
}

void report_costs_add(struct report_costs *c, const struct task_result *r)
{
	c->attempts++;
	c->turns += r->agent_turns > 0 ? r->agent_turns : 0;
	c->input_tokens += r->agent_input_tokens > 0 ? r->agent_input_tokens
						     : 0;
	c->cached_tokens += r->agent_cached_tokens > 0 ? r->agent_cached_tokens
						       : 0;
	c->output_tokens += r->agent_output_tokens > 0 ? r->agent_output_tokens
						       : 0;
	if (r->agent_cost_known) {
		c->cost_usd += finite_or_0(r->agent_cost_usd);
		c->cost_known++;
	}
	c->agent_s += finite_or_0(r->agent_duration_s);
	c->eval_s += finite_or_0(r->eval_seconds);
}

static void group_add(struct group *g, const struct report_row *row)
{
	const struct task_result *r = row->result;

	g->total++;
	if (row_pending(row)) {
		g->pending++;
		return;
	}
	if (row_evaluated(row)) {
		g->evaluated++;
		g->reward_sum += isfinite(r->reward) ? r->reward : 0.0;
		g->reward_n++;
	}
	if (isfinite(r->score))
		g->total_score += r->score;
	report_costs_add(&g->costs, r);
	if ((int)r->status >= 0 && r->status <= RS_INFRA_ERROR)
		g->verdicts[r->status]++;
	g->compiled += row_compiled(row);
	g->correct += row_correct(row);
	g->rejected += r->status == RS_REJECTED;
	if (row_has_speedup(row)) {
		enum versus vs = row_versus(row);

		g->speedups[g->nspeedups++] = r->speedup_ratio;
		g->gt1 += r->speedup_ratio > 1.0;
		g->significant += vs == VS_FASTER;
		g->slower += vs == VS_SLOWER;
		g->within += vs == VS_SAME;
	}
	if (r->held_out_evaluated) {
		g->ho_evaluated++;
		g->ho_correct += r->held_out_correct;
		if (row_correct(row)) {
			g->ho_visible_correct++;
			g->ho_visible_and_held_correct += r->held_out_correct;
		}
		if (row_has_speedup(row) && r->held_out_correct &&
		    positive_finite(r->held_out_speedup))
			g->retention[g->nretention++] =
				r->held_out_speedup / r->speedup_ratio;
	}
}

double report_py_percentile(const double *s, int n, int i)
{
	long m = n + 1, j, delta;

	if (n == 1)
		return s[0];
	j = (long)i * m / 100;
	if (j < 1)
		j = 1;
	if (j > n - 1)
		j = n - 1;
	delta = (long)i * m - j * 100;
	return (s[j - 1] * (double)(100 - delta) + s[j] * (double)delta) /
	       100.0;
}


/* Over g's speedups (sorted in place); all 0 when there are none. */
void group_speedup_stats(struct group *g, struct speedup_stats *st)
{
	int n = g->nspeedups;
	double *s = g->speedups;

	memset(st, 0, sizeof(*st));
	st->geomean = NAN;
	if (n == 0)
		return;
	stats_sort(s, (size_t)n);
	st->mean = stats_mean(s, (size_t)n);
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	st->geomean = stats_geomean(s, (size_t)n);
	if (n > 1) {
		double ss = 0;

		for (int i = 0; i < n; i++)
			ss += (s[i] - st->mean) * (s[i] - st->mean);
		st->std_dev = sqrt(ss / (n - 1));
	}
	st->p25 = report_py_percentile(s, n, 25);
	st->p75 = report_py_percentile(s, n, 75);
	st->p90 = report_py_percentile(s, n, 90);
}

double rate(int count, int total)
{
	return total > 0 ? (double)count / total : 0.0;
}


void grouping_build(struct grouping *gr, const struct report_row *rows,
		    int n)
{
	group_init(&gr->all, NULL, n);
	gr->fam = xcalloc((size_t)n + 1, sizeof(*gr->fam));
	gr->nfam = 0;
	for (int i = 0; i < n; i++) {
		char *fam = task_family(rows[i].task_id);
		int k;

		for (k = 0; k < gr->nfam; k++)
			if (strcmp(gr->fam[k].name, fam) == 0)
				break;
		if (k == gr->nfam)
			group_init(&gr->fam[gr->nfam++], fam, n);
		group_add(&gr->fam[k], &rows[i]);
		group_add(&gr->all, &rows[i]);
		free(fam);
	}
}


const char *row_variant(const struct report_row *row)
{
	return row->variant && *row->variant ? row->variant : NULL;
}

void variants_build(struct variants *vs, const struct report_row *rows,
		    int n)
{
	vs->var = xcalloc((size_t)n + 1, sizeof(*vs->var));
	vs->nvar = 0;
	for (int i = 0; i < n; i++) {
		const char *v = row_variant(&rows[i]);
		int k;

		if (!v)
			continue;
		for (k = 0; k < vs->nvar; k++)
			if (strcmp(vs->var[k].name, v) == 0)
				break;
		if (k == vs->nvar)
			group_init(&vs->var[vs->nvar++], v, n);
		group_add(&vs->var[k], &rows[i]);
	}
}

void variants_release(struct variants *vs)
{
	for (int k = 0; k < vs->nvar; k++)
		group_release(&vs->var[k]);
	free(vs->var);
}

void grouping_release(struct grouping *gr)
{
	group_release(&gr->all);
	for (int k = 0; k < gr->nfam; k++)
		group_release(&gr->fam[k]);
	free(gr->fam);
}

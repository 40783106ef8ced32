/*
 * report.c - a run's reports: summary.csv, summary.json and report.txt
 * (see arena/report.h; docs/results.md documents every column and field),
 * and the writing of the four files, report.html (report_html.c) among
 * them; the row facts and group statistics they share are report_rows.c.
 *
 * All three are pure functions of the rows: rewriting them is always safe
 * and gives the same bytes for the same results.  The rules, shared by the
 * three and taken from AgentKernelArena (aka.md §4.1) where it has one:
 *   - rates (compiled, correct, speedup > 1) are over all rows, pending
 *     ones included, so a run cannot look better by leaving tasks out;
 *   - speedup statistics are over the rows that are correct (as the score
 *     counts correctness: result_correct) and timed (speedup > 0);
 *   - percentiles follow Python's statistics.quantiles(n=100) (its
 *     default "exclusive" method), the standard deviation is the sample
 *     one, as AgentKernelArena computes them;
 *   - a task's family is the first component of its id ("c2c/saxpy" ->
 *     "c2c"), AgentKernelArena's "Task Type".
 * JSON numbers are never NaN or infinite (null instead).  Text meant for a
 * terminal has control characters replaced: error messages quote agent
 * code, which must not be able to drive the reader's terminal.
 */
#include "report_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/report_html.h"
#include "arena/stats.h"
#include "report_ab.h"

/* ---- CSV --------------------------------------------------------------- */

/* RFC 4180: a field with a comma, a quote, a line break or edge spaces is
 * quoted, its quotes doubled. */
static void csv_field(struct strbuf *sb, const char *s)
{
	if (!s)
		s = "";
	if (!s[strcspn(s, ",\"\r\n")] && s[0] != ' ' &&
	    (!*s || s[strlen(s) - 1] != ' ')) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(sb, '"');
		strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '"');
}

static void csv_num(struct strbuf *sb, double v, bool present)
{
	if (present && isfinite(v))
		strbuf_addf(sb, "%.4f", v);
}

static const char *tf(bool b)
{
	return b ? "true" : "false";
}

char *report_csv(const struct report_row *rows, int n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "Task Name,Task Type,Score,Speedup,"
			   "Optimization_summary,Status,Compiled,Correct,"
			   "Speedup CI Low,Speedup CI High,Reward,Pairs,"
			   "Held-out Correct,Agent Status,Attempt,Variant,"
			   "Versus Baseline,Turns,Input Tokens,"
			   "Cached Input Tokens,Output Tokens,Cost USD,"
			   "Agent Seconds,Eval Seconds\n");
	for (int i = 0; i < n; i++) {
		const struct report_row *row = &rows[i];
		const struct task_result *r = row->result;
		char *fam = task_family(row->task_id);
		bool ci = r && row_has_ci(r);

		csv_field(&sb, row->task_id);
		strbuf_addch(&sb, ',');
		csv_field(&sb, fam);
		strbuf_addch(&sb, ',');
		csv_num(&sb, r ? r->score : 0, r != NULL);
		strbuf_addch(&sb, ',');
		csv_num(&sb, r ? r->speedup_ratio : 0, r != NULL);
		strbuf_addch(&sb, ',');
		csv_field(&sb, r ? r->optimization_summary : NULL);
		strbuf_addch(&sb, ',');
		csv_field(&sb, row_status(row));
		strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, r ? tf(row_compiled(row)) : "");
		strbuf_addch(&sb, ',');
		strbuf_addstr(&sb, r ? tf(row_correct(row)) : "");
		strbuf_addch(&sb, ',');
		csv_num(&sb, ci ? r->speedup_ci_lo : 0, ci);
		strbuf_addch(&sb, ',');
		csv_num(&sb, ci ? r->speedup_ci_hi : 0, ci);
		strbuf_addch(&sb, ',');
		csv_num(&sb, r ? r->reward : 0, r != NULL);
		strbuf_addch(&sb, ',');
		if (r)
			strbuf_addf(&sb, "%d", r->pairs);
		strbuf_addch(&sb, ',');
		if (r && r->held_out_evaluated)
			strbuf_addstr(&sb, tf(r->held_out_correct));
		strbuf_addch(&sb, ',');
		csv_field(&sb, r ? r->agent_status : NULL);
		strbuf_addch(&sb, ',');
		strbuf_addf(&sb, "%d,", row->attempt);
		csv_field(&sb, row_variant(row));
		strbuf_addch(&sb, ',');
		csv_field(&sb, versus_name(row_versus(row)));
		if (r)
			strbuf_addf(&sb,
				    ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",",
				    r->agent_turns, r->agent_input_tokens,
				    r->agent_cached_tokens,
				    r->agent_output_tokens);
		else
			strbuf_addstr(&sb, ",,,,,");
		csv_num(&sb, r ? r->agent_cost_usd : 0,
			r && r->agent_cost_known);
		strbuf_addch(&sb, ',');
		csv_num(&sb, r ? r->agent_duration_s : 0, r != NULL);
		strbuf_addch(&sb, ',');
		csv_num(&sb, r ? r->eval_seconds : 0, r != NULL);
		strbuf_addch(&sb, '\n');
		free(fam);
	}
	return strbuf_detach(&sb);
}

/* ---- JSON -------------------------------------------------------------- */

static cJSON *jnum(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static void jadd(cJSON *o, const char *key, cJSON *item)
{
	if (!item)
		abort();	/* allocation failure: xmalloc's policy */
	cJSON_AddItemToObject(o, key, item);
}

/* Strings from results may hold anything; JSON wants UTF-8. */
static cJSON *jstr(const char *s)
{
	char *clean;
	cJSON *j;

	if (!s)
		return cJSON_CreateNull();
	clean = result_utf8_sanitize(s);
	j = cJSON_CreateString(clean);
	free(clean);
	return j;
}

cJSON *report_costs_json(const struct report_costs *c)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		abort();
	jadd(o, "attempts", cJSON_CreateNumber(c->attempts));
	jadd(o, "turns", cJSON_CreateNumber((double)c->turns));
	jadd(o, "input_tokens", cJSON_CreateNumber((double)c->input_tokens));
	jadd(o, "cached_input_tokens",
	     cJSON_CreateNumber((double)c->cached_tokens));
	jadd(o, "output_tokens", cJSON_CreateNumber((double)c->output_tokens));
	jadd(o, "cost_usd",
	     c->cost_known ? jnum(c->cost_usd) : cJSON_CreateNull());
	jadd(o, "cost_known_attempts", cJSON_CreateNumber(c->cost_known));
	jadd(o, "agent_seconds", jnum(c->agent_s));
	jadd(o, "eval_seconds", jnum(c->eval_s));
	return o;
}

static cJSON *group_json(struct group *g, bool with_count)
{
	cJSON *o = cJSON_CreateObject();
	struct speedup_stats st;
	int T = g->total;

	if (!o)
		abort();
	group_speedup_stats(g, &st);
	/* AgentKernelArena's keys first (task_types carry "count"). */
	if (with_count)
		jadd(o, "count", cJSON_CreateNumber(T));
	jadd(o, "total_tasks", cJSON_CreateNumber(T));
	jadd(o, "total_score", jnum(g->total_score));
	jadd(o, "average_score", jnum(T ? g->total_score / T : 0.0));
	jadd(o, "compilation_pass_count", cJSON_CreateNumber(g->compiled));
	jadd(o, "compilation_pass_rate", jnum(rate(g->compiled, T)));
	jadd(o, "correctness_pass_count", cJSON_CreateNumber(g->correct));
	jadd(o, "correctness_pass_rate", jnum(rate(g->correct, T)));
	jadd(o, "speedup_gt_1_count", cJSON_CreateNumber(g->gt1));
	jadd(o, "speedup_gt_1_rate", jnum(rate(g->gt1, T)));
	jadd(o, "average_speedup", jnum(st.mean));
	jadd(o, "median_speedup", jnum(st.median));
	jadd(o, "std_dev_speedup", jnum(st.std_dev));
	jadd(o, "p25_speedup", jnum(st.p25));
	jadd(o, "p75_speedup", jnum(st.p75));
	jadd(o, "p90_speedup", jnum(st.p90));
	jadd(o, "valid_speedup_count", cJSON_CreateNumber(g->nspeedups));
	jadd(o, "candidate_rejected_count", cJSON_CreateNumber(g->rejected));
	/* arena's. */
	jadd(o, "evaluated_tasks", cJSON_CreateNumber(g->evaluated));
	jadd(o, "pending_tasks", cJSON_CreateNumber(g->pending));
	jadd(o, "significant_speedup_count",
	     cJSON_CreateNumber(g->significant));
	jadd(o, "significant_speedup_rate", jnum(rate(g->significant, T)));
	jadd(o, "slower_beyond_noise_count", cJSON_CreateNumber(g->slower));
	jadd(o, "within_noise_count", cJSON_CreateNumber(g->within));
	jadd(o, "geomean_speedup", jnum(st.geomean));
	jadd(o, "average_reward",
	     jnum(g->reward_n ? g->reward_sum / g->reward_n : NAN));
	jadd(o, "held_out_evaluated_count",
	     cJSON_CreateNumber(g->ho_evaluated));
	jadd(o, "held_out_correct_count", cJSON_CreateNumber(g->ho_correct));
	jadd(o, "held_out_correct_given_visible_rate",
	     jnum(g->ho_visible_correct
			  ? (double)g->ho_visible_and_held_correct /
				    g->ho_visible_correct
			  : NAN));
	jadd(o, "held_out_speedup_retention",
	     jnum(g->nretention ? stats_geomean(g->retention,
						(size_t)g->nretention)
				: NAN));
	jadd(o, "costs", report_costs_json(&g->costs));
	cJSON *vd = cJSON_CreateObject();
	if (!vd)
		abort();
	for (int s = RS_OK; s >= RS_NOT_EVALUATED; s--)
		jadd(vd, result_status_name((enum result_status)s),
		     cJSON_CreateNumber(g->verdicts[s]));
	jadd(vd, result_status_name(RS_INFRA_ERROR),
	     cJSON_CreateNumber(g->verdicts[RS_INFRA_ERROR]));
	jadd(vd, "pending", cJSON_CreateNumber(g->pending));
	jadd(o, "verdicts", vd);
	return o;
}

/* The visible cases of a result (held-out ones stay out of the reports:
 * their ids and sizes are what an agent must not learn). */
static cJSON *cases_json(const struct task_result *r)
{
	cJSON *arr = cJSON_CreateArray();

	if (!arr)
		abort();
	for (int i = 0; i < r->ncases; i++) {
		const struct case_result *c = &r->cases[i];
		cJSON *o;

		if (c->held_out)
			continue;
		o = cJSON_CreateObject();
		if (!o)
			abort();
		jadd(o, "id", jstr(c->id));
		jadd(o, "correct", cJSON_CreateBool(c->correct));
		jadd(o, "timed", cJSON_CreateBool(c->timed));
		jadd(o, "speedup",
		     c->timed ? jnum(c->speedup) : cJSON_CreateNull());
		if (c->timed && c->ci_lo > 0 && c->ci_hi >= c->ci_lo &&
		    isfinite(c->ci_hi)) {
			cJSON *ci = cJSON_CreateArray();
			if (!ci)
				abort();
			cJSON_AddItemToArray(ci, jnum(c->ci_lo));
			cJSON_AddItemToArray(ci, jnum(c->ci_hi));
			jadd(o, "speedup_ci", ci);
		} else {
			jadd(o, "speedup_ci", cJSON_CreateNull());
		}
		jadd(o, "base_ms",
		     c->timed ? jnum(c->base_ms) : cJSON_CreateNull());
		jadd(o, "cand_ms",
		     c->timed ? jnum(c->cand_ms) : cJSON_CreateNull());
		jadd(o, "pairs", cJSON_CreateNumber(c->pairs));
		jadd(o, "blocks", cJSON_CreateNumber(c->blocks));
		jadd(o, "correctness_only",
		     cJSON_CreateBool(c->correctness_only));
		jadd(o, "timing_note", jstr(c->timing_note));
		jadd(o, "error", jstr(c->error));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *task_json(const struct report_row *row)
{
	const struct task_result *r = row->result;
	cJSON *o = cJSON_CreateObject(), *ci;
	char *fam = task_family(row->task_id), *reason = row_reason(row);

	if (!o)
		abort();
	jadd(o, "task", jstr(row->task_id));
	jadd(o, "task_type", jstr(fam));
	jadd(o, "attempt", cJSON_CreateNumber(row->attempt));
	jadd(o, "variant", jstr(row_variant(row)));
	jadd(o, "status", jstr(row_status(row)));
	if (!r) {
		jadd(o, "compiled", cJSON_CreateNull());
		jadd(o, "correct", cJSON_CreateNull());
		jadd(o, "score", cJSON_CreateNull());
		jadd(o, "speedup", cJSON_CreateNull());
		jadd(o, "speedup_ci", cJSON_CreateNull());
		jadd(o, "reward", cJSON_CreateNull());
		jadd(o, "pairs", cJSON_CreateNull());
		jadd(o, "held_out_correct", cJSON_CreateNull());
		jadd(o, "agent_status", cJSON_CreateNull());
		jadd(o, "reason", cJSON_CreateNull());
		jadd(o, "versus_baseline", cJSON_CreateNull());
		jadd(o, "noise_floor", cJSON_CreateNull());
		jadd(o, "costs", cJSON_CreateNull());
		jadd(o, "cases", cJSON_CreateArray());
	} else {
		jadd(o, "compiled", cJSON_CreateBool(row_compiled(row)));
		jadd(o, "correct", cJSON_CreateBool(row_correct(row)));
		jadd(o, "score", jnum(r->score));
		jadd(o, "speedup", jnum(r->speedup_ratio));
		if (row_has_ci(r)) {
			ci = cJSON_CreateArray();
			if (!ci)
				abort();
			cJSON_AddItemToArray(ci, jnum(r->speedup_ci_lo));
			cJSON_AddItemToArray(ci, jnum(r->speedup_ci_hi));
			jadd(o, "speedup_ci", ci);
		} else {
			jadd(o, "speedup_ci", cJSON_CreateNull());
		}
		jadd(o, "reward", jnum(r->reward));
		jadd(o, "pairs", cJSON_CreateNumber(r->pairs));
		jadd(o, "held_out_correct",
		     r->held_out_evaluated ? cJSON_CreateBool(r->held_out_correct)
					   : cJSON_CreateNull());
		jadd(o, "agent_status", jstr(r->agent_status));
		jadd(o, "reason", jstr(reason));
		jadd(o, "versus_baseline", jstr(versus_name(row_versus(row))));
		jadd(o, "noise_floor", jnum(r->noise_floor));
		struct report_costs c = { 0 };
		report_costs_add(&c, r);
		cJSON *co = report_costs_json(&c);
		cJSON_DeleteItemFromObjectCaseSensitive(co, "attempts");
		cJSON_DeleteItemFromObjectCaseSensitive(co,
							"cost_known_attempts");
		jadd(o, "costs", co);
		jadd(o, "cases", cases_json(r));
		/* Visible cases checked but not timed; held-out ones only
		 * counted. */
		cJSON *only = cJSON_CreateArray();
		int held = 0;
		if (!only)
			abort();
		for (int i = 0; i < r->ncases; i++)
			if (r->cases[i].correctness_only) {
				if (r->cases[i].held_out)
					held++;
				else
					cJSON_AddItemToArray(
						only, jstr(r->cases[i].id));
			}
		jadd(o, "correctness_only_cases", only);
		jadd(o, "held_out_correctness_only", cJSON_CreateNumber(held));
	}
	free(fam);
	free(reason);
	return o;
}

char *report_json(const struct report_meta *m, const struct report_row *rows,
		  int n)
{
	struct grouping gr;
	cJSON *root = cJSON_CreateObject(), *types, *tasks;
	char *out;

	if (!root)
		abort();
	grouping_build(&gr, rows, n);
	/* AgentKernelArena's task_type_breakdown.json keys first. */
	jadd(root, "run_timestamp", jstr(m ? m->created_at : NULL));
	jadd(root, "agent", jstr(m ? m->agent : NULL));
	jadd(root, "target_gpu", jstr(m ? m->device : NULL));
	jadd(root, "overall", group_json(&gr.all, false));
	types = cJSON_CreateObject();
	if (!types)
		abort();
	for (int k = 0; k < gr.nfam; k++)
		jadd(types, gr.fam[k].name, group_json(&gr.fam[k], true));
	jadd(root, "task_types", types);
	/* arena's. */
	struct variants vs;
	variants_build(&vs, rows, n);
	if (vs.nvar > 0) {
		cJSON *vo = cJSON_CreateObject();
		if (!vo)
			abort();
		for (int k = 0; k < vs.nvar; k++)
			jadd(vo, vs.var[k].name, group_json(&vs.var[k], true));
		jadd(root, "variants", vo);
	}
	variants_release(&vs);
	/* Each configuration against the first (docs/results.md, "A/B
	 * comparison"). */
	struct report_ab ab;
	report_ab_build(&ab, rows, n, m ? m->run_id : NULL);
	if (ab.ncmp > 0) {
		cJSON *arr = cJSON_CreateArray();
		if (!arr)
			abort();
		for (int k = 0; k < ab.ncmp; k++)
			cJSON_AddItemToArray(arr, ab_result_json(&ab.cmp[k],
								 ab.task_ids));
		jadd(root, "ab", arr);
	}
	report_ab_release(&ab);
	jadd(root, "run_id", jstr(m ? m->run_id : NULL));
	jadd(root, "device", jstr(m ? m->device : NULL));
	jadd(root, "created_at", jstr(m ? m->created_at : NULL));
	jadd(root, "status", jstr(m ? m->status : NULL));
	tasks = cJSON_CreateArray();
	if (!tasks)
		abort();
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(tasks, task_json(&rows[i]));
	jadd(root, "tasks", tasks);
	out = cJSON_Print(root);
	cJSON_Delete(root);
	grouping_release(&gr);
	if (!out)
		abort();
	return out;
}

/* ---- text -------------------------------------------------------------- */

/* Appends s with control characters (and invalid UTF-8) made harmless. */
static void text_add(struct strbuf *sb, const char *s)
{
	char *clean = result_utf8_sanitize(s ? s : "-");

	for (const char *p = clean; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '\t')
			strbuf_addch(sb, ' ');
		else if (c < 0x20 || c == 0x7f)
			strbuf_addch(sb, '?');
		else
			strbuf_addch(sb, *p);
	}
	free(clean);
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "Ran on:  cuda:0 ..., cuda:1 ..." when the results name more than one
 * device (a run with one worker per GPU: `arena run --gpus`). */
static void text_devices_used(struct strbuf *sb, const struct report_row *rows,
			      int n)
{
	const char **d = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*d));
	int k = 0, distinct = 0;

	for (int i = 0; i < n; i++)
		if (rows[i].result && rows[i].result->device &&
		    rows[i].result->device[0])
			d[k++] = rows[i].result->device;
	qsort(d, (size_t)k, sizeof(*d), cmp_cstr);
	for (int i = 0; i < k; i++)
		distinct += i == 0 || strcmp(d[i], d[i - 1]) != 0;
	if (distinct > 1) {
		strbuf_addstr(sb, "\nRan on:  ");
		for (int i = 0, first = 1; i < k; i++) {
			if (i > 0 && strcmp(d[i], d[i - 1]) == 0)
				continue;
			if (!first)
				strbuf_addstr(sb, ", ");
			text_add(sb, d[i]);
			first = 0;
		}
	}
	free(d);
}

/* A warning when some evaluation ran without the evaluator's confinement
 * (namespaces refused on this machine, or ARENA_SANDBOX=off): its result
 * says `sandboxed: false`, and a reader of the report should not have to
 * open every task_result.yaml to learn it.  Evaluations that did not get
 * as far as the candidate (infra errors, nothing run) do not count. */
static void text_unconfined(struct strbuf *sb, const struct report_row *rows,
			    int n)
{
	int evaluated = 0, unconfined = 0;

	for (int i = 0; i < n; i++) {
		const struct task_result *r = rows[i].result;
		if (!r || !r->evaluated_at || !*r->evaluated_at ||
		    r->status == RS_NOT_EVALUATED ||
		    r->status == RS_INFRA_ERROR)
			continue;
		evaluated++;
		unconfined += !r->sandboxed;
	}
	if (unconfined == 0)
		return;
	strbuf_addf(sb,
		    "\nWARNING: %d of %d evaluations ran unconfined "
		    "(sandboxed: false): their candidates' compilers and "
		    "runners could read files outside their sources, such as "
		    "held-out cases and references (docs/evaluator.md, known "
		    "limits; ARENA_SANDBOX=on refuses to evaluate instead).",
		    unconfined, evaluated);
}

static void text_label(struct strbuf *sb, const struct report_row *row,
		       bool show_attempt)
{
	text_add(sb, row->task_id);
	if (row_variant(row)) {
		strbuf_addch(sb, '@');
		text_add(sb, row_variant(row));
	}
	if (show_attempt)
		strbuf_addf(sb, "#%d", row->attempt);
}

static void text_count(struct strbuf *sb, const char *what, int k, int total)
{
	strbuf_addf(sb, "  %-22s %d/%d (%.1f%%)\n", what, k, total,
		    100.0 * rate(k, total));
}

/* "1h02m03s", "4m05s", "12.3s". */
static void text_duration(struct strbuf *sb, double s)
{
	long t = (long)(s + 0.5);

	if (s < 60)
		strbuf_addf(sb, "%.1fs", s);
	else if (t < 3600)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60,
			    t % 60);
}

/* One line of what the agents spent, then the costs' known share. */
static void text_costs(struct strbuf *sb, const char *label,
		       const struct report_costs *c)
{
	if (!c->attempts)
		return;
	strbuf_addf(sb,
		    "  %-22s %" PRId64 " turns, %" PRId64 " input tokens "
		    "(%" PRId64 " cached), %" PRId64 " output tokens, ",
		    label, c->turns, c->input_tokens, c->cached_tokens,
		    c->output_tokens);
	if (c->cost_known == c->attempts)
		strbuf_addf(sb, "$%.4f", c->cost_usd);
	else if (c->cost_known)
		strbuf_addf(sb, "$%.4f (known for %d of %d attempts)",
			    c->cost_usd, c->cost_known, c->attempts);
	else
		strbuf_addstr(sb, "cost not reported");
	strbuf_addstr(sb, ", agent time ");
	text_duration(sb, c->agent_s);
	strbuf_addstr(sb, ", evaluation time ");
	text_duration(sb, c->eval_s);
	strbuf_addch(sb, '\n');
}

static void text_group(struct strbuf *sb, struct group *g)
{
	struct speedup_stats st;

	group_speedup_stats(g, &st);
	strbuf_addf(sb, "  %-22s %d (%d evaluated, %d pending)\n", "Tasks:",
		    g->total, g->evaluated, g->pending);
	strbuf_addf(sb, "  %-22s %.4f\n", "Total score:", g->total_score);
	strbuf_addf(sb, "  %-22s %.4f\n", "Average score:",
		    g->total ? g->total_score / g->total : 0.0);
	text_count(sb, "Compiled:", g->compiled, g->total);
	text_count(sb, "Correct:", g->correct, g->total);
	/* Against the baseline, beyond the measured noise (a point speedup
	 * above 1 is half the time noise: summary.json keeps AKA's
	 * speedup_gt_1 for the tools that read it). */
	text_count(sb, "Faster beyond noise:", g->significant, g->total);
	text_count(sb, "Slower beyond noise:", g->slower, g->total);
	text_count(sb, "Within noise:", g->within, g->total);
	if (g->rejected)
		strbuf_addf(sb, "  %-22s %d\n", "Rejected:", g->rejected);
	if (g->nspeedups) {
		strbuf_addf(sb, "  %-22s %.4fx over %d correct, timed tasks\n",
			    "Geomean speedup:", st.geomean, g->nspeedups);
		strbuf_addf(sb, "  %-22s mean %.4fx  median %.4fx  "
			    "std %.4f\n", "Speedup:", st.mean, st.median,
			    st.std_dev);
		strbuf_addf(sb, "  %-22s p25 %.4fx  p75 %.4fx  p90 %.4fx\n",
			    "", st.p25, st.p75, st.p90);
	} else {
		strbuf_addf(sb, "  %-22s none (no correct, timed task)\n",
			    "Speedup:");
	}
	if (g->reward_n)
		strbuf_addf(sb, "  %-22s %.4f\n", "Average reward:",
			    g->reward_sum / g->reward_n);
	if (g->ho_evaluated)
		strbuf_addf(sb, "  %-22s %d/%d correct on held-out cases\n",
			    "Held-out:", g->ho_correct, g->ho_evaluated);
	text_costs(sb, "Agent costs:", &g->costs);
}

/* Rows with speedups, for the best/worst lists. */
struct ranked {
	double speedup;
	int row;
};

/* Best first; ties keep row order, so the report is deterministic. */
static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->speedup != y->speedup)
		return (x->speedup < y->speedup) - (x->speedup > y->speedup);
	return (x->row > y->row) - (x->row < y->row);
}

int report_correctness_only(const struct task_result *r, struct strbuf *ids,
			    int *held)
{
	int n = 0;

	*held = 0;
	for (int i = 0; r && i < r->ncases; i++) {
		const struct case_result *c = &r->cases[i];
		if (!c->correctness_only)
			continue;
		if (c->held_out) {
			(*held)++;
			continue;
		}
		if (ids) {
			if (n)
				strbuf_addstr(ids, ", ");
			strbuf_addstr(ids, c->id);
		}
		n++;
	}
	return n;
}

static void text_task_line(struct strbuf *sb, const struct report_row *row,
			   bool show_attempt)
{
	const struct task_result *r = row->result;
	char *reason;

	if (!r) {
		strbuf_addstr(sb, "PENDING ");
		text_label(sb, row, show_attempt);
		strbuf_addch(sb, '\n');
		return;
	}
	strbuf_addstr(sb, r->status == RS_SKIPPED ? "SKIPPED "
			  : row_correct(row)	  ? "PASS "
			  : row_compiled(row)	  ? "PARTIAL "
						  : "FAIL ");
	text_label(sb, row, show_attempt);
	strbuf_addf(sb, " score %.4f speedup %.4f",
		    isfinite(r->score) ? r->score : 0.0,
		    isfinite(r->speedup_ratio) ? r->speedup_ratio : 0.0);
	if (row_has_ci(r))
		strbuf_addf(sb, " [%.4f, %.4f]", r->speedup_ci_lo,
			    r->speedup_ci_hi);
	switch (row_versus(row)) {
	case VS_FASTER:
		strbuf_addstr(sb, " faster beyond noise");
		break;
	case VS_SLOWER:
		strbuf_addstr(sb, " slower beyond noise");
		break;
	case VS_SAME:
		strbuf_addstr(sb, " within noise");
		break;
	default:
		break;
	}
	if (r->held_out_evaluated)
		strbuf_addstr(sb, r->held_out_correct ? " held-out ok"
						      : " held-out FAIL");
	/* What the agent spent, when it says anything. */
	if (r->agent_turns > 0 || r->agent_input_tokens > 0 ||
	    (r->agent_cost_known && r->agent_cost_usd > 0)) {
		strbuf_addf(sb,
			    " | agent %d turns, %" PRId64 "+%" PRId64 " tokens",
			    r->agent_turns, r->agent_input_tokens,
			    r->agent_output_tokens);
		if (r->agent_cost_known)
			strbuf_addf(sb, ", $%.4f", r->agent_cost_usd);
		strbuf_addstr(sb, ", ");
		text_duration(sb, r->agent_duration_s);
	}
	strbuf_addch(sb, '\n');
	reason = row_reason(row);
	if (reason) {
		strbuf_addf(sb, "    %s: ", result_status_name(r->status));
		text_add(sb, reason);
		strbuf_addch(sb, '\n');
	}
	free(reason);
	struct strbuf ids = STRBUF_INIT;
	int held, vis = report_correctness_only(r, &ids, &held);
	if (vis || held) {
		strbuf_addstr(sb, "    correctness only (checked, not timed, "
				  "not in the speedup): ");
		if (vis)
			text_add(sb, ids.buf);
		if (held)
			strbuf_addf(sb, "%s%d held-out case%s", vis ? "; " : "",
				    held, held == 1 ? "" : "s");
		strbuf_addch(sb, '\n');
	}
	strbuf_release(&ids);
}

/* One line of a breakdown (by family or by agent configuration). */
static void text_group_line(struct strbuf *sb, struct group *g,
			    const char *noun)
{
	struct speedup_stats st;

	group_speedup_stats(g, &st);
	strbuf_addstr(sb, "  ");
	text_add(sb, g->name);
	strbuf_addf(sb,
		    ": %d %s, compiled %d, correct %d, faster beyond "
		    "noise %d, slower %d, avg score %.4f",
		    g->total, noun, g->compiled, g->correct, g->significant,
		    g->slower, g->total ? g->total_score / g->total : 0.0);
	if (g->nspeedups)
		strbuf_addf(sb, ", geomean %.4fx", st.geomean);
	strbuf_addch(sb, '\n');
}

char *report_text(const struct report_meta *m, const struct report_row *rows,
		  int n)
{
	struct strbuf sb = STRBUF_INIT;
	struct grouping gr;
	bool show_attempt = false;
	struct ranked *rk;
	int k = 0;

	grouping_build(&gr, rows, n);
	for (int i = 0; i < n; i++)
		show_attempt |= rows[i].attempt != 1;

	strbuf_addstr(&sb, "arena run report\n================\n");
	strbuf_addstr(&sb, "Run:     ");
	text_add(&sb, m ? m->run_id : NULL);
	strbuf_addstr(&sb, "\nAgent:   ");
	text_add(&sb, m ? m->agent : NULL);
	strbuf_addstr(&sb, "\nDevice:  ");
	text_add(&sb, m ? m->device : NULL);
	text_devices_used(&sb, rows, n);
	strbuf_addstr(&sb, "\nCreated: ");
	text_add(&sb, m ? m->created_at : NULL);
	strbuf_addstr(&sb, "\nStatus:  ");
	text_add(&sb, m ? m->status : NULL);
	text_unconfined(&sb, rows, n);
	strbuf_addstr(&sb, "\n\nOVERALL STATISTICS\n");
	text_group(&sb, &gr.all);

	if (gr.nfam > 0) {
		strbuf_addstr(&sb, "\nBY TASK TYPE\n");
		for (int f = 0; f < gr.nfam; f++) {
			text_group_line(&sb, &gr.fam[f], "tasks");
		}
	}

	struct variants vs;
	variants_build(&vs, rows, n);
	if (vs.nvar > 0) {
		strbuf_addstr(&sb, "\nBY AGENT CONFIGURATION\n");
		for (int v = 0; v < vs.nvar; v++) {
			text_group_line(&sb, &vs.var[v], "attempts");
		}
		strbuf_addstr(&sb, "\nCOSTS BY AGENT CONFIGURATION\n");
		for (int v = 0; v < vs.nvar; v++) {
			struct strbuf name = STRBUF_INIT;

			text_add(&name, vs.var[v].name);
			strbuf_addch(&name, ':');
			text_costs(&sb, strbuf_str(&name), &vs.var[v].costs);
			strbuf_release(&name);
		}
	}
	variants_release(&vs);

	struct report_ab ab;
	report_ab_build(&ab, rows, n, m ? m->run_id : NULL);
	for (int c = 0; c < ab.ncmp; c++) {
		struct strbuf blk = STRBUF_INIT;

		strbuf_addstr(&sb, c ? "\n" : "\nA/B COMPARISON (each agent "
			      "configuration against the first)\n");
		ab_result_text(&blk, &ab.cmp[c], ab.task_ids, true);
		/* Line by line through text_add, like every other text that
		 * holds names from a config or a task tree. */
		char *copy = xstrdup(strbuf_str(&blk)), *line = copy, *nl;
		for (; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				nl = line + strlen(line) - 1;
			else
				*nl = '\0';
			text_add(&sb, line);
			strbuf_addch(&sb, '\n');
		}
		free(copy);
		strbuf_release(&blk);
	}
	report_ab_release(&ab);

	rk = xcalloc((size_t)n + 1, sizeof(*rk));
	for (int i = 0; i < n; i++)
		if (row_has_speedup(&rows[i])) {
			rk[k].speedup = rows[i].result->speedup_ratio;
			rk[k++].row = i;
		}
	if (k > 0) {
		int shown = k < 3 ? k : 3;

		qsort(rk, (size_t)k, sizeof(*rk), cmp_ranked);
		strbuf_addstr(&sb, "\nBEST SPEEDUPS\n");
		for (int i = 0; i < shown; i++) {
			strbuf_addstr(&sb, "  ");
			text_label(&sb, &rows[rk[i].row], show_attempt);
			strbuf_addf(&sb, " %.4fx\n", rk[i].speedup);
		}
		/* The worst ones not already listed as best. */
		if (k > shown)
			strbuf_addstr(&sb, "WORST SPEEDUPS\n");
		for (int i = k - 1; i >= shown && i >= k - 3; i--) {
			strbuf_addstr(&sb, "  ");
			text_label(&sb, &rows[rk[i].row], show_attempt);
			strbuf_addf(&sb, " %.4fx\n", rk[i].speedup);
		}
	}
	free(rk);

	strbuf_addstr(&sb, "\nTASKS\n");
	if (n == 0)
		strbuf_addstr(&sb, "  (none)\n");
	for (int i = 0; i < n; i++)
		text_task_line(&sb, &rows[i], show_attempt);
	grouping_release(&gr);
	return strbuf_detach(&sb);
}

/* ---- files ------------------------------------------------------------- */

int report_write_all(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err)
{
	static const char *const names[] = { "summary.csv", "summary.json",
					     "report.txt", "report.html" };
	char *texts[4];
	int rc = 0;

	texts[0] = report_csv(rows, n);
	texts[1] = report_json(m, rows, n);
	texts[2] = report_text(m, rows, n);
	texts[3] = report_html(m, rows, n);
	/* Each file is replaced atomically; a reader sees an old or a new
	 * report, never a torn one.  (The three are not one transaction:
	 * they are pure functions of the results, so a crash between them
	 * is repaired by the next rewrite.) */
	for (int i = 0; i < 4 && rc == 0; i++) {
		char *path = path_join(dir, names[i]);

		rc = file_write_atomic_str(path, texts[i], err);
		free(path);
	}
	for (int i = 0; i < 4; i++)
		free(texts[i]);
	/* AgentKernelArena's dashboard files, in reports/ (report_aka.c). */
	if (rc == 0)
		rc = report_write_aka(dir, m, rows, n, err);
	return rc;
}

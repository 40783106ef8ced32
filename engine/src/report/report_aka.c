/*
 * report_aka.c - the three files AgentKernelArena's dashboard reads, in
 * <run>/reports/, beside arena's own reports, and in AKA's run directory
 * when the run has one (workspace_directory_prefix: run_places.c;
 * docs/aka.md):
 *
 *   overall_summary.csv      Task Name, Task Type, Score, Speedup,
 *                            Optimization_summary (scores and speedups
 *                            with 4 decimals)
 *   task_type_breakdown.json run_timestamp, agent, target_gpu (the
 *                            config's target_gpu_model, else the
 *                            device), overall, task_types: AKA's keys,
 *                            rates in percent
 *   overall_report.txt       AKA's layout; one line per task that the
 *                            dashboard's pattern reads:
 *                            "PASS     <task> Score:  220.0  Speedup: 1.00x"
 *
 * Written AKA's way from arena's results: a task's status is PASS when it
 * is correct, PARTIAL when it compiled, FAIL otherwise; speedup statistics
 * are over correct tasks with a speedup above 0 (arithmetic mean, median,
 * sample standard deviation, Python's exclusive percentiles); rates over
 * every task.  Task names are AKA's (an AKA root's prefix dropped, so an
 * arena run of AKA's tasks lines up with AKA's own runs), the type is the
 * name's first component.  Tasks that were skipped (they cannot run on
 * this machine) are left out, as AKA leaves out the tasks it filters by
 * platform; a later attempt of a task is named task#2, task#3.  A
 * task's error line is withheld when it concerns a held-out case, as in
 * the agent-readable view of a result (result_view.h): AKA's run
 * directory may lie where agents read.
 */
#include "report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/result_view.h"
#include "arena/stats.h"

struct aka_row {
	char *name, *type;
	bool compiled, correct;
	double score, speedup;
	const char *summary;
	char *error;
};

struct aka_group {
	const char *type; /* NULL: overall */
	int count, compiled, correct, gt1;
	double total_score;
	double *sp;
	int nsp;
};

static double fin(double v)
{
	return isfinite(v) ? v : 0.0;
}

static void group_add(struct aka_group *g, const struct aka_row *r)
{
	g->count++;
	g->total_score += r->score;
	g->compiled += r->compiled;
	g->correct += r->correct;
	if (r->compiled && r->correct) {
		g->gt1 += r->speedup > 1.0;
		if (r->speedup > 0)
			g->sp[g->nsp++] = r->speedup;
	}
}

struct aka_stats {
	double avg, median, sd, p25, p75, p90;
};

static void group_stats(struct aka_group *g, struct aka_stats *st)
{
	int n = g->nsp;
	double *s = g->sp;

	memset(st, 0, sizeof(*st));
	if (n == 0)
		return;
	stats_sort(s, (size_t)n);
	for (int i = 0; i < n; i++)
		st->avg += s[i];
	st->avg /= n;
	st->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
	if (n > 1) {
		double ss = 0;
		for (int i = 0; i < n; i++)
			ss += (s[i] - st->avg) * (s[i] - st->avg);
		st->sd = sqrt(ss / (n - 1));
	}
	st->p25 = report_py_percentile(s, n, 25);
	st->p75 = report_py_percentile(s, n, 75);
	st->p90 = report_py_percentile(s, n, 90);
}

static double pct(int k, int n)
{
	return n > 0 ? (double)k / n * 100.0 : 0.0;
}

static cJSON *group_json(struct aka_group *g)
{
	struct aka_stats st;
	cJSON *o = cJSON_CreateObject();

	group_stats(g, &st);
	if (g->type)
		cJSON_AddNumberToObject(o, "count", g->count);
	else
		cJSON_AddNumberToObject(o, "total_tasks", g->count);
	cJSON_AddNumberToObject(o, "total_score", g->total_score);
	cJSON_AddNumberToObject(o, "average_score",
				g->count ? g->total_score / g->count : 0.0);
	cJSON_AddNumberToObject(o, "compilation_pass_count", g->compiled);
	cJSON_AddNumberToObject(o, "compilation_pass_rate",
				pct(g->compiled, g->count));
	cJSON_AddNumberToObject(o, "correctness_pass_count", g->correct);
	cJSON_AddNumberToObject(o, "correctness_pass_rate",
				pct(g->correct, g->count));
	cJSON_AddNumberToObject(o, "speedup_gt_1_count", g->gt1);
	cJSON_AddNumberToObject(o, "speedup_gt_1_rate", pct(g->gt1, g->count));
	cJSON_AddNumberToObject(o, "average_speedup", st.avg);
	cJSON_AddNumberToObject(o, "median_speedup", st.median);
	cJSON_AddNumberToObject(o, "std_dev_speedup", st.sd);
	cJSON_AddNumberToObject(o, "p25_speedup", st.p25);
	cJSON_AddNumberToObject(o, "p75_speedup", st.p75);
	cJSON_AddNumberToObject(o, "p90_speedup", st.p90);
	cJSON_AddNumberToObject(o, "valid_speedup_count", g->nsp);
	return o;
}

static void csv_field(struct strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
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

/* One line of text, control characters shown as '?'. */
static char *one_line(const char *s, size_t max)
{
	size_t n = strcspn(s, "\n");
	char *o = xstrndup(s, n > max ? max : n);

	for (char *c = o; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return o;
}

static void text_group(struct strbuf *sb, struct aka_group *g, bool overall)
{
	struct aka_stats st;

	group_stats(g, &st);
	if (overall) {
		strbuf_addf(sb,
			    "OVERALL STATISTICS:\n"
			    "  Total Tasks:           %d\n"
			    "  Total Score:           %.2f\n"
			    "  Average Score:         %.2f\n"
			    "Compilation:\n"
			    "  Pass Count:            %d/%d\n"
			    "  Pass Rate:             %.1f%%\n"
			    "Correctness:\n"
			    "  Pass Count:            %d/%d\n"
			    "  Pass Rate:             %.1f%%\n"
			    "Performance:\n"
			    "  Speedup > 1.0 Count:   %d/%d\n"
			    "  Speedup > 1.0 Rate:    %.1f%%\n"
			    "  Average Speedup:       %.2fx\n"
			    "  Median Speedup:        %.2fx\n"
			    "  Std Dev Speedup:       %.2fx\n"
			    "  P25/P75/P90 Speedup:   %.2fx / %.2fx / %.2fx\n"
			    "  Valid Speedup Count:   %d\n",
			    g->count, g->total_score,
			    g->count ? g->total_score / g->count : 0.0,
			    g->compiled, g->count, pct(g->compiled, g->count),
			    g->correct, g->count, pct(g->correct, g->count),
			    g->gt1, g->count, pct(g->gt1, g->count), st.avg,
			    st.median, st.sd, st.p25, st.p75, st.p90, g->nsp);
		return;
	}
	strbuf_addf(sb,
		    "  %s (%d tasks):\n"
		    "    Average Speedup:     %.2fx\n"
		    "    Median Speedup:      %.2fx\n"
		    "    Std Dev Speedup:     %.2fx\n"
		    "    P25/P75/P90 Speedup: %.2fx / %.2fx / %.2fx\n"
		    "    Compilation Pass:     %d/%d\n"
		    "    Compilation Pass Rate: %.1f%%\n"
		    "    Correctness Pass:     %d/%d\n"
		    "    Correctness Pass Rate: %.1f%%\n"
		    "    Speedup > 1.0:        %d/%d (%.1f%%)\n"
		    "    Average Score:        %.2f\n\n",
		    g->type, g->count, st.avg, st.median, st.sd, st.p25, st.p75,
		    st.p90, g->compiled, g->count, pct(g->compiled, g->count),
		    g->correct, g->count, pct(g->correct, g->count), g->gt1,
		    g->count, pct(g->gt1, g->count),
		    g->count ? g->total_score / g->count : 0.0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp((*(const struct aka_group *const *)a)->type,
		      (*(const struct aka_group *const *)b)->type);
}

int report_write_aka(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err)
{
	struct aka_row *ar = xcalloc((size_t)n + 1, sizeof(*ar));
	struct aka_group all = { 0 },
			 *types = xcalloc((size_t)n + 1, sizeof(*types));
	struct aka_group **sorted = xcalloc((size_t)n + 1, sizeof(*sorted));
	struct strbuf csv = STRBUF_INIT, txt = STRBUF_INIT;
	int na = 0, nt = 0, rc;
	const char *stamp = m->run_id && !strncmp(m->run_id, "run_", 4)
				    ? m->run_id + 4
			    : m->run_id ? m->run_id
					: "unknown";
	const char *agent = m->agent ? m->agent : "unknown";
	const char *gpu = m->target_gpu ? m->target_gpu
			  : m->device	? m->device
					: "unknown";

	for (int i = 0; i < n; i++) {
		const struct task_result *r = rows[i].result;
		if (r && r->status == RS_SKIPPED)
			continue;
		struct aka_row *a = &ar[na++];
		const char *local = task_local_id(rows[i].task_id);
		a->name = rows[i].attempt > 1
				  ? xasprintf("%s#%d", local, rows[i].attempt)
				  : xstrdup(local);
		a->type = task_family_of(rows[i].task_id);
		if (r) {
			a->compiled = result_compiled(r);
			a->correct = result_correct(r);
			a->score = fin(r->score);
			a->speedup = fin(r->speedup_ratio);
			a->summary = r->optimization_summary;
			const char *why =
				r->status == RS_OK ? NULL
				: r->correctness_error_message
					? r->correctness_error_message
					: r->compilation_error_message;
			/* The run directory's copy may lie where
			 * agents can read (run_places.c). */
			if (why && result_message_concerns_held_out(r, why))
				why = RESULT_WITHHELD;
			if (why)
				a->error = one_line(why, 300);
		} else {
			a->error = xstrdup("not evaluated yet");
		}
	}
	all.sp = xcalloc((size_t)na + 1, sizeof(double));
	for (int i = 0; i < na; i++) {
		struct aka_group *g = NULL;
		for (int k = 0; k < nt && !g; k++)
			if (!strcmp(types[k].type, ar[i].type))
				g = &types[k];
		if (!g) {
			g = &types[nt++];
			g->type = ar[i].type;
			g->sp = xcalloc((size_t)na + 1, sizeof(double));
		}
		group_add(g, &ar[i]);
		group_add(&all, &ar[i]);
	}
	for (int k = 0; k < nt; k++)
		sorted[k] = &types[k];
	qsort(sorted, (size_t)nt, sizeof(*sorted), cmp_str);

	/* overall_summary.csv */
	strbuf_addstr(
		&csv,
		"Task Name,Task Type,Score,Speedup,Optimization_summary\r\n");
	for (int i = 0; i < na; i++) {
		csv_field(&csv, ar[i].name);
		strbuf_addch(&csv, ',');
		csv_field(&csv, ar[i].type);
		strbuf_addf(&csv, ",%.4f,%.4f,", ar[i].score, ar[i].speedup);
		csv_field(&csv, ar[i].summary ? ar[i].summary : "");
		strbuf_addstr(&csv, "\r\n");
	}

	/* task_type_breakdown.json */
	cJSON *root = cJSON_CreateObject(), *tt = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "run_timestamp", stamp);
	cJSON_AddStringToObject(root, "agent", agent);
	cJSON_AddStringToObject(root, "target_gpu", gpu);
	cJSON_AddItemToObject(root, "overall", group_json(&all));
	for (int k = 0; k < nt; k++)
		cJSON_AddItemToObject(tt, sorted[k]->type,
				      group_json(sorted[k]));
	cJSON_AddItemToObject(root, "task_types", tt);
	char *json = cJSON_Print(root);
	cJSON_Delete(root);

	/* overall_report.txt */
	static const char rule[] =
		"===================================="
		"============================================";
	strbuf_addf(&txt,
		    "%s\nAgentKernelArena Task Results Report\n%s\n"
		    "Run: %s\nAgent: %s\nTarget GPU: %s\n%s\n",
		    rule, rule, stamp, agent, gpu, rule);
	text_group(&txt, &all, true);
	if (nt) {
		strbuf_addstr(&txt, "\nTASK TYPE BREAKDOWN:\n\n");
		for (int k = 0; k < nt; k++)
			text_group(&txt, sorted[k], false);
	}
	struct aka_stats st;
	group_stats(&all, &st);
	strbuf_addf(&txt,
		    "TOTAL PERFORMANCE SUMMARY:\n"
		    "  Overall Average Speedup:  %.2fx\n"
		    "  Tasks with Speedup > 1.0: %d/%d (%.1f%%)\n",
		    st.avg, all.gt1, all.count, pct(all.gt1, all.count));
	int best = -1, worst = -1;
	for (int i = 0; i < na; i++) {
		if (!(ar[i].compiled && ar[i].correct && ar[i].speedup > 0))
			continue;
		if (best < 0 || ar[i].speedup > ar[best].speedup)
			best = i;
		if (worst < 0 || ar[i].speedup < ar[worst].speedup)
			worst = i;
	}
	if (best >= 0)
		strbuf_addf(&txt,
			    "  Best Speedup:            %.2fx (task: %s)\n"
			    "  Worst Speedup:           %.2fx (task: %s)\n",
			    ar[best].speedup, ar[best].name, ar[worst].speedup,
			    ar[worst].name);
	strbuf_addstr(&txt,
		      "\nTASK DETAILS:\n------------------------------"
		      "--------------------------------------------------\n");
	for (int i = 0; i < na; i++) {
		const char *st_s = ar[i].correct    ? "PASS"
				   : ar[i].compiled ? "PARTIAL"
						    : "FAIL";
		strbuf_addf(&txt, "%-8s %-40s Score: %6.1f  Speedup: %.2fx\n",
			    st_s, ar[i].name, ar[i].score, ar[i].speedup);
		if (ar[i].error)
			strbuf_addf(&txt, "         Error: %s\n", ar[i].error);
	}
	strbuf_addf(&txt, "%s\n", rule);

	const char *names[] = { "overall_summary.csv",
				"task_type_breakdown.json",
				"overall_report.txt" };
	const char *texts[] = { strbuf_str(&csv), json ? json : "{}",
				strbuf_str(&txt) };
	const char *dirs[] = { dir, m->aka_run_dir };
	rc = 0;
	for (int d = 0; d < 2 && rc == 0 && dirs[d]; d++) {
		char *rdir = path_join(dirs[d], "reports");
		rc = mkdir_p(rdir, err);
		for (int i = 0; i < 3 && rc == 0; i++) {
			char *p = path_join(rdir, names[i]);
			rc = file_write_atomic_str(p, texts[i], err);
			free(p);
		}
		free(rdir);
	}
	free(json);
	strbuf_release(&csv);
	strbuf_release(&txt);
	for (int i = 0; i < na; i++) {
		free(ar[i].name);
		free(ar[i].type);
		free(ar[i].error);
	}
	for (int k = 0; k < nt; k++)
		free(types[k].sp);
	free(all.sp);
	free(ar);
	free(types);
	free(sorted);
	return rc;
}

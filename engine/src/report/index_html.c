/*
 * index_html.c - the page across a store's runs (`arena report --index`,
 * report_index_html in arena/report_html.h): one row per run with what
 * its summary.json says overall - status, configurations, pass rate,
 * speedups beyond noise, geometric-mean speedup, score, cost - a link to
 * its report.html, and the runs' geomean speedups side by side on a log
 * axis.  Each row carries data-run, and its numbers are tagged with
 * pointers into that run's summary.json (html.h).  The statistics are
 * report_rows.c's: the page computes nothing of its own.
 */
#include "arena/report_html.h"
#include "html.h"
#include "report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_row(struct strbuf *sb, const struct report_index_run *ru,
		    double *geomean)
{
	const struct report_meta *m = ru->meta;
	struct grouping gr;
	struct variants vs;
	struct speedup_stats st;
	struct group *g;

	grouping_build(&gr, ru->rows, ru->n);
	variants_build(&vs, ru->rows, ru->n);
	g = &gr.all;
	group_speedup_stats(g, &st);
	*geomean = g->nspeedups ? st.geomean : NAN;
	strbuf_addstr(sb, "<tr data-run=\"");
	html_escape(sb, m->run_id);
	strbuf_addstr(sb, "\"><td><a href=\"runs/");
	html_escape(sb, m->run_id);
	strbuf_addstr(sb, "/report.html\">");
	html_escape(sb, m->run_id);
	strbuf_addstr(sb, "</a></td><td>");
	html_escape(sb, m->created_at ? m->created_at : "");
	strbuf_addstr(sb, "</td><td>");
	html_escape(sb, m->status ? m->status : "");
	strbuf_addstr(sb, "</td><td>");
	html_escape(sb, m->agent ? m->agent : "");
	for (int k = 0; k < vs.nvar; k++) {
		strbuf_addstr(sb, k ? ", " : " <small class=\"muted\">(");
		html_escape(sb, vs.var[k].name);
		if (k == vs.nvar - 1)
			strbuf_addstr(sb, ")</small>");
	}
	strbuf_addstr(sb, "</td><td>");
	html_escape(sb, m->device ? m->device : "");
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_int(sb, "/overall/total_tasks", g->total);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_int(sb, "/overall/pending_tasks", g->pending);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_pct(sb, "/overall/correctness_pass_rate",
		 rate(g->correct, g->total));
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_int(sb, "/overall/significant_speedup_count", g->significant);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_int(sb, "/overall/slower_beyond_noise_count", g->slower);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, "/overall/geomean_speedup", *geomean, 4, "&#215;");
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, "/overall/average_score",
		   g->total ? g->total_score / g->total : 0.0, 2, NULL);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_usd(sb, "/overall/costs/cost_usd",
		 g->costs.cost_known ? g->costs.cost_usd : NAN);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, "/overall/costs/agent_seconds", g->costs.agent_s, 1,
		   " s");
	strbuf_addstr(sb, "</td></tr>\n");
	variants_release(&vs);
	grouping_release(&gr);
}

char *report_index_html(const struct report_index_run *runs, int n)
{
	struct strbuf sb = STRBUF_INIT;
	struct forest_row *fr = xcalloc((size_t)n + 1, sizeof(*fr));

	html_page_open(&sb, "arena runs");
	strbuf_addf(&sb,
		    "<h1>arena runs</h1>\n<p class=\"meta\">%d run(s) in "
		    "this store, newest first.  A run's name opens its "
		    "report.html; `arena compare A B --html FILE` draws two "
		    "of them side by side.</p>\n",
		    n);
	strbuf_addstr(&sb,
		      "<table>\n<tr><th>run</th><th>created</th><th>"
		      "status</th><th>agent (configurations)</th><th>device"
		      "</th><th class=\"num\">attempts</th><th class=\"num\">"
		      "pending</th><th class=\"num\">correct</th><th class="
		      "\"num\">faster beyond noise</th><th class=\"num\">"
		      "slower beyond noise</th><th class=\"num\">geomean "
		      "speedup</th><th class=\"num\">average score</th><th "
		      "class=\"num\">agent cost</th><th class=\"num\">agent "
		      "time</th></tr>\n");
	for (int i = 0; i < n; i++) {
		double gm;

		run_row(&sb, &runs[i], &gm);
		fr[i].label = runs[i].meta->run_id;
		fr[i].has_point = gm > 0 && isfinite(gm);
		fr[i].v = gm;
		fr[i].cls = "same"; /* a point, not a test */
		fr[i].note = "no correct, timed attempt";
	}
	strbuf_addstr(&sb,
		      "</table>\n<h2>Geometric-mean speedup per run</h2>"
		      "\n<p class=\"muted\">Over each run's correct, timed "
		      "attempts (no interval: a run's tasks differ; `arena "
		      "compare` gives one for two runs).</p>\n");
	forest_chart(&sb, "geometric-mean speedup per run", fr, n,
		     "geomean speedup over the baseline", NAN, NAN, NAN);
	html_page_close(&sb);
	free(fr);
	return strbuf_detach(&sb);
}

/*
 * report_html.c - report.html (arena/report_html.h).
 *
 * The page is built in one pass into a strbuf: a <style> block, a header
 * with the run's identity, a summary line, an SVG chart and a table.  The
 * chart draws one horizontal bar per attempt on a linear axis from 0 to a
 * little past the largest interval end, a vertical rule at 1.0 (the
 * baseline), and the 95% interval as a whisker.  Bars are green when the
 * whole interval is above 1, red when it is below, grey otherwise.
 * Attempts that are not correct and timed (result_timed) get a label
 * instead of a bar.
 *
 * Invariant: every byte that did not come from this file passes through
 * html_escape(), so agent-written text (optimization summaries, error
 * messages) cannot inject markup.
 */
#include "arena/report_html.h"
#include "report_ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHART_WIDTH 760
#define CHART_LABEL 230
#define CHART_ROW 22
#define CHART_AXIS_MAX_CAP 64.0

void html_escape(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default: strbuf_addch(sb, *s);
		}
	}
}

/* Has a bar in the chart and counts in the geometric mean: correct and
 * timed (report.c's speedup statistics count the same rows). */
static bool row_timed(const struct report_row *r)
{
	return r->result && result_timed(r->result);
}

static double ci_or(double v, double fallback)
{
	return v > 0 && isfinite(v) ? v : fallback;
}

static void add_style(struct strbuf *sb)
{
	strbuf_addstr(sb,
		"<style>\n"
		"body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
		"h1{font-size:1.4em}table{border-collapse:collapse;"
		"font-size:.9em}\n"
		"th,td{border:1px solid #ccc;padding:3px 7px;text-align:left}\n"
		"th{background:#f3f3f3}td.num{text-align:right;"
		"font-variant-numeric:tabular-nums}\n"
		".ok{color:#17692d}.bad{color:#a4161a}.muted{color:#777}\n"
		"svg text{font-size:12px;font-family:system-ui,sans-serif}\n"
		"</style>\n");
}

static void add_header(struct strbuf *sb, const struct report_meta *m)
{
	strbuf_addstr(sb, "<h1>arena run ");
	html_escape(sb, m->run_id);
	strbuf_addstr(sb, "</h1>\n<p>agent <b>");
	html_escape(sb, m->agent ? m->agent : "?");
	strbuf_addstr(sb, "</b> &middot; device <b>");
	html_escape(sb, m->device ? m->device : "?");
	strbuf_addstr(sb, "</b> &middot; created ");
	html_escape(sb, m->created_at ? m->created_at : "?");
	strbuf_addstr(sb, " &middot; status <b>");
	html_escape(sb, m->status ? m->status : "?");
	strbuf_addstr(sb, "</b></p>\n");
}

static void add_summary(struct strbuf *sb, const struct report_row *rows,
			int n)
{
	int evaluated = 0, compiled = 0, correct = 0, timed = 0;
	double log_sum = 0, score_sum = 0;

	for (int i = 0; i < n; i++) {
		const struct task_result *r = rows[i].result;
		if (!r)
			continue;
		evaluated++;
		compiled += result_compiled(r);
		correct += result_correct(r);
		score_sum += r->score;
		if (row_timed(&rows[i])) {
			timed++;
			log_sum += log(r->speedup_ratio);
		}
	}
	strbuf_addf(sb, "<p>%d attempt(s), %d evaluated: %d compiled, %d "
		    "correct", n, evaluated, compiled, correct);
	if (timed)
		strbuf_addf(sb, "; geometric-mean speedup over %s attempts "
			    "<b>%.3f</b>", timed == correct ? "correct"
							    : "correct, timed",
			    exp(log_sum / timed));
	if (evaluated)
		strbuf_addf(sb, "; mean score %.2f", score_sum / evaluated);
	strbuf_addstr(sb, ".</p>\n");
}

static double axis_max(const struct report_row *rows, int n)
{
	double mx = 1.25;

	for (int i = 0; i < n; i++) {
		if (!row_timed(&rows[i]))
			continue;
		const struct task_result *r = rows[i].result;
		double hi = ci_or(r->speedup_ci_hi, r->speedup_ratio);
		if (hi > mx)
			mx = hi;
		if (r->speedup_ratio > mx)
			mx = r->speedup_ratio;
	}
	mx *= 1.1;
	return mx > CHART_AXIS_MAX_CAP ? CHART_AXIS_MAX_CAP : mx;
}

static double x_of(double v, double mx)
{
	double plot = CHART_WIDTH - CHART_LABEL - 20;

	if (v > mx)
		v = mx;
	if (v < 0)
		v = 0;
	return CHART_LABEL + plot * v / mx;
}

static void add_row_label(struct strbuf *sb, const struct report_row *r,
			  int y)
{
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">",
		    CHART_LABEL - 6, y + 15);
	html_escape(sb, r->task_id);
	if (r->variant && *r->variant) {
		strbuf_addstr(sb, " [");
		html_escape(sb, r->variant);
		strbuf_addch(sb, ']');
	}
	if (r->attempt > 1)
		strbuf_addf(sb, " #%d", r->attempt);
	strbuf_addstr(sb, "</text>\n");
}

static void add_bar(struct strbuf *sb, const struct report_row *row, int y,
		    double mx)
{
	const struct task_result *r = row->result;

	if (!row_timed(row)) {
		strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"%s\">",
			    CHART_LABEL + 4, y + 15, r ? "bad" : "muted");
		html_escape(sb, r ? result_status_name(r->status)
				  : "not evaluated yet");
		strbuf_addstr(sb, "</text>\n");
		return;
	}
	double s = r->speedup_ratio;
	double lo = ci_or(r->speedup_ci_lo, s), hi = ci_or(r->speedup_ci_hi, s);
	const char *fill = lo > 1 ? "#2e8b57" : hi < 1 ? "#c0392b" : "#999";
	double x0 = x_of(0, mx), x1 = x_of(s, mx);
	strbuf_addf(sb, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
		    " fill=\"%s\"><title>", x0, y + 4, x1 - x0, CHART_ROW - 8,
		    fill);
	html_escape(sb, row->task_id);
	strbuf_addf(sb, ": %.3f [%.3f, %.3f]</title></rect>\n", s, lo, hi);
	double wl = x_of(lo, mx), wh = x_of(hi, mx), ym = y + CHART_ROW / 2.0;
	strbuf_addf(sb, "<path d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1f"
		    "V%.1f\" stroke=\"#222\" fill=\"none\"/>\n", wl, ym, wh,
		    wl, ym - 5, ym + 5, wh, ym - 5, ym + 5);
	strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\">%.3f</text>\n", wh + 4,
		    y + 15, s);
}

static void add_chart(struct strbuf *sb, const struct report_row *rows, int n)
{
	double mx = axis_max(rows, n);
	int height = CHART_ROW * n + 30;

	strbuf_addstr(sb, "<h2>Speedup over the baseline (95% interval)</h2>\n");
	strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\""
		    " height=\"%d\" role=\"img\" aria-label=\"per-task "
		    "speedups\">\n", CHART_WIDTH, height);
	for (int i = 0; i < n; i++) {
		add_row_label(sb, &rows[i], i * CHART_ROW);
		add_bar(sb, &rows[i], i * CHART_ROW, mx);
	}
	double one = x_of(1.0, mx);
	int axis_y = CHART_ROW * n + 4;
	strbuf_addf(sb, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" "
		    "stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n", one, one,
		    axis_y);
	strbuf_addf(sb, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
		    "stroke=\"#333\"/>\n", CHART_LABEL, axis_y,
		    CHART_WIDTH - 20, axis_y);
	for (int k = 0; k <= 4; k++) {
		double v = mx * k / 4;
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\""
			    ">%.2f</text>\n", x_of(v, mx), axis_y + 16, v);
	}
	strbuf_addstr(sb, "</svg>\n");
}

static void add_cell(struct strbuf *sb, const char *cls, const char *text)
{
	strbuf_addstr(sb, "<td");
	if (cls)
		strbuf_addf(sb, " class=\"%s\"", cls);
	strbuf_addch(sb, '>');
	html_escape(sb, text);
	strbuf_addstr(sb, "</td>");
}

static void add_num(struct strbuf *sb, int decimals, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	add_cell(sb, "num", buf);
}

static void add_table_row(struct strbuf *sb, const struct report_row *row,
			  bool variants)
{
	const struct task_result *r = row->result;
	char ci[96];

	strbuf_addstr(sb, "<tr>");
	add_cell(sb, NULL, row->task_id);
	if (variants)
		add_cell(sb, NULL, row->variant ? row->variant : "");
	add_num(sb, 0, row->attempt);
	if (!r) {
		strbuf_addstr(sb, "<td colspan=\"9\" class=\"muted\">not "
			      "evaluated yet</td></tr>\n");
		return;
	}
	add_cell(sb, result_correct(r) ? "ok" : "bad",
		 result_status_name(r->status));
	add_cell(sb, NULL, result_compiled(r) ? "yes" : "no");
	add_cell(sb, NULL, result_correct(r) ? "yes" : "no");
	add_num(sb, 3, r->speedup_ratio);
	snprintf(ci, sizeof(ci), "[%.3f, %.3f]", r->speedup_ci_lo,
		 r->speedup_ci_hi);
	add_cell(sb, "num", ci);
	add_num(sb, 2, r->score);
	add_num(sb, 3, r->reward);
	add_cell(sb, NULL, r->agent_status ? r->agent_status : "-");
	const char *why = r->compilation_error_message
		? r->compilation_error_message
		: r->correctness_error_message ? r->correctness_error_message
		: r->optimization_summary ? r->optimization_summary : "";
	add_cell(sb, "muted", why);
	strbuf_addstr(sb, "</tr>\n");
}

static void add_table(struct strbuf *sb, const struct report_row *rows, int n)
{
	bool variants = false;

	for (int i = 0; i < n; i++)
		variants = variants || (rows[i].variant && *rows[i].variant);
	strbuf_addstr(sb, "<h2>Tasks</h2>\n<table>\n<tr><th>task</th>");
	if (variants)
		strbuf_addstr(sb, "<th>agent configuration</th>");
	strbuf_addstr(sb, "<th>attempt</th><th>status</th><th>compiled</th>"
		      "<th>correct</th><th>speedup</th><th>95% interval</th>"
		      "<th>score</th><th>reward</th><th>agent</th>"
		      "<th>notes</th></tr>\n");
	for (int i = 0; i < n; i++)
		add_table_row(sb, &rows[i], variants);
	strbuf_addstr(sb, "</table>\n");
}

/* A run with several agent configurations: each against the first, as
 * headline sentences (summary.json's "ab" holds the numbers to chart). */
static void add_ab(struct strbuf *sb, const struct report_meta *m,
		   const struct report_row *rows, int n)
{
	struct report_ab ab;

	report_ab_build(&ab, rows, n, m->run_id);
	if (ab.ncmp > 0)
		strbuf_addstr(sb, "<h2>A/B comparison</h2>\n");
	for (int k = 0; k < ab.ncmp; k++) {
		strbuf_addstr(sb, "<p class=\"ab\"><b>");
		html_escape(sb, ab.cmp[k].headline);
		strbuf_addstr(sb, "</b><br>");
		html_escape(sb, ab.cmp[k].pass_line);
		strbuf_addf(sb, "<br>Per-task verdicts at a %.0f%% false "
			    "discovery rate: %d win(s), %d tie(s), %d "
			    "loss(es), %d untested.</p>\n", 100 * ab.cmp[k].fdr,
			    ab.cmp[k].wins, ab.cmp[k].ties, ab.cmp[k].losses,
			    ab.cmp[k].untested);
	}
	report_ab_release(&ab);
}

char *report_html(const struct report_meta *m, const struct report_row *rows,
		  int n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		      "<meta charset=\"utf-8\">\n<title>arena ");
	html_escape(&sb, m->run_id);
	strbuf_addstr(&sb, "</title>\n");
	add_style(&sb);
	strbuf_addstr(&sb, "</head>\n<body>\n");
	add_header(&sb, m);
	add_summary(&sb, rows, n);
	add_ab(&sb, m, rows, n);
	add_chart(&sb, rows, n);
	add_table(&sb, rows, n);
	strbuf_addstr(&sb, "<p class=\"muted\">Speedup = baseline time / "
		      "candidate time (median of paired ratios per case, "
		      "geometric mean over cases). Score: 0 if it does not "
		      "compile, 20 if wrong, 120 + 100 &times; speedup if "
		      "correct.</p>\n</body>\n</html>\n");
	return strbuf_detach(&sb);
}

/*
 * ab_html.c - an A/B comparison (arena/abtest.h) drawn for a page: the
 * headline, the four effects with their intervals, the per-task verdicts
 * and the per-task speedup ratios B/A on a log axis.  Shared by a run's
 * report.html (each configuration against the first) and `arena compare
 * --html`.  Nothing is computed here: every number is the ab_result's,
 * and each is tagged with its place in the JSON that holds the same
 * result (ab_result_json under `ptr`).
 */
#include "html.h"
#include "report_ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cell_open(struct strbuf *sb, bool num)
{
	strbuf_addstr(sb, num ? "<td class=\"num\">" : "<td>");
}

/* The JSON pointer ptr + "/effects/<metric>/<key>" (caller frees). */
static char *eff_ptr(const char *ptr, enum ab_metric m, const char *key)
{
	struct strbuf p = STRBUF_INIT;

	strbuf_addstr(&p, ptr);
	jptr_add(&p, "effects");
	jptr_add(&p, ab_metric_name(m));
	jptr_add(&p, key);
	return strbuf_detach(&p);
}

static void effect_row(struct strbuf *sb, const struct ab_effect *e,
		       enum ab_metric m, const char *ptr)
{
	static const char *const names[] = { "geomean speedup B/A", "pass rate",
					     "score", "reward" };
	char *p_a, *p_b, *p_e, *p_lo, *p_hi, *p_p, *p_pb, *p_mde, *p_n;
	bool lg = m == AB_SPEEDUP;

	p_a = eff_ptr(ptr, m, lg ? "geomean_a" : "a");
	p_b = eff_ptr(ptr, m, lg ? "geomean_b" : "b");
	p_e = eff_ptr(ptr, m, lg ? "ratio" : "effect");
	p_lo = eff_ptr(ptr, m, lg ? "ratio_lo" : "lo");
	p_hi = eff_ptr(ptr, m, lg ? "ratio_hi" : "hi");
	p_p = eff_ptr(ptr, m, "p_value");
	p_pb = eff_ptr(ptr, m, "prob_b_better");
	p_mde = eff_ptr(ptr, m, lg ? "mde_ratio" : "mde");
	p_n = eff_ptr(ptr, m, "tasks");
	strbuf_addf(sb, "<tr><td>%s</td>", names[m]);
	if (!e->defined) {
		strbuf_addstr(sb, "<td colspan=\"7\" class=\"muted\">too few "
				  "tasks with a verdict under both (");
		html_int(sb, p_n, e->ntasks);
		strbuf_addstr(sb, ")</td></tr>\n");
		goto out;
	}
	cell_open(sb, true);
	if (lg) {
		html_fixed(sb, p_a, exp(e->mean_a), 4, "&#215;");
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		html_fixed(sb, p_b, exp(e->mean_b), 4, "&#215;");
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		strbuf_addstr(sb, "<b>");
		html_fixed(sb, p_e, exp(e->point), 4, "&#215;");
		strbuf_addstr(sb, "</b></td>");
		cell_open(sb, true);
		strbuf_addch(sb, '[');
		html_fixed(sb, p_lo, exp(e->lo), 4, NULL);
		strbuf_addstr(sb, ", ");
		html_fixed(sb, p_hi, exp(e->hi), 4, NULL);
		strbuf_addstr(sb, "]</td>");
	} else if (m == AB_PASS) {
		html_pct(sb, p_a, e->mean_a);
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		html_pct(sb, p_b, e->mean_b);
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		strbuf_addstr(sb, "<b>");
		html_pct(sb, p_e, e->point);
		strbuf_addstr(sb, "</b></td>");
		cell_open(sb, true);
		strbuf_addch(sb, '[');
		html_pct(sb, p_lo, e->lo);
		strbuf_addstr(sb, ", ");
		html_pct(sb, p_hi, e->hi);
		strbuf_addstr(sb, "]</td>");
	} else {
		int d = m == AB_REWARD ? 4 : 2;

		html_fixed(sb, p_a, e->mean_a, d, NULL);
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		html_fixed(sb, p_b, e->mean_b, d, NULL);
		strbuf_addstr(sb, "</td>");
		cell_open(sb, true);
		strbuf_addstr(sb, "<b>");
		html_fixed(sb, p_e, e->point, d, NULL);
		strbuf_addstr(sb, "</b></td>");
		cell_open(sb, true);
		strbuf_addch(sb, '[');
		html_fixed(sb, p_lo, e->lo, d, NULL);
		strbuf_addstr(sb, ", ");
		html_fixed(sb, p_hi, e->hi, d, NULL);
		strbuf_addstr(sb, "]</td>");
	}
	cell_open(sb, true);
	html_fixed(sb, p_p, e->p_value, 4, NULL);
	strbuf_addstr(sb, "</td>");
	cell_open(sb, true);
	html_fixed(sb, p_pb, e->prob_b_better, 3, NULL);
	strbuf_addstr(sb, "</td>");
	cell_open(sb, true);
	if (lg)
		html_fixed(sb, p_mde, exp(e->mde), 4, "&#215;");
	else if (m == AB_PASS)
		html_pct(sb, p_mde, e->mde);
	else
		html_fixed(sb, p_mde, e->mde, m == AB_REWARD ? 4 : 2, NULL);
	strbuf_addstr(sb, "</td>");
	cell_open(sb, true);
	html_int(sb, p_n, e->ntasks);
	strbuf_addstr(sb, "</td></tr>\n");
out:
	free(p_a);
	free(p_b);
	free(p_e);
	free(p_lo);
	free(p_hi);
	free(p_p);
	free(p_pb);
	free(p_mde);
	free(p_n);
}

static const char *verdict_cls(enum ab_verdict v)
{
	switch (v) {
	case AB_WIN:
		return "faster";
	case AB_LOSS:
		return "slower";
	case AB_TIE:
		return "same";
	default:
		return "none";
	}
}

void ab_html(struct strbuf *sb, const struct ab_result *r,
	     const char *const *task_ids, const char *ptr)
{
	struct strbuf p = STRBUF_INIT;
	const struct ab_effect *sp = &r->eff[AB_SPEEDUP];

	strbuf_addstr(sb, "<p class=\"headline\">");
	html_escape(sb, r->headline ? r->headline : "");
	strbuf_addstr(sb, "<br>");
	html_escape(sb, r->pass_line ? r->pass_line : "");
	strbuf_addstr(sb, "</p>\n<p>A = <b>");
	html_escape(sb, r->label_a ? r->label_a : "A");
	strbuf_addstr(sb, "</b>, B = <b>");
	html_escape(sb, r->label_b ? r->label_b : "B");
	strbuf_addf(sb,
		    "</b>.  Effects of B against A over the tasks with a "
		    "verdict under both, with %.0f%% intervals (cluster "
		    "bootstrap over tasks), two-sided p-values, the share of "
		    "bootstrap replicates favouring B and the smallest effect "
		    "detectable with %.0f%% power (docs/statistics.md).</p>\n",
		    100 * (1 - r->alpha), 100 * r->power);
	strbuf_addstr(sb,
		      "<table>\n<tr><th>metric</th><th class=\"num\">A"
		      "</th><th class=\"num\">B</th><th class=\"num\">effect"
		      "</th><th class=\"num\">95% interval</th><th "
		      "class=\"num\">p</th><th class=\"num\">P(B&gt;A)</th>"
		      "<th class=\"num\">detectable</th><th class=\"num\">"
		      "tasks</th></tr>\n");
	for (int m = 0; m < AB_NMETRICS; m++)
		effect_row(sb, &r->eff[m], (enum ab_metric)m, ptr);
	strbuf_addstr(sb, "</table>\n");

	static const char *const vk[] = { "wins", "ties", "losses",
					  "untested" };
	const int vn[] = { r->wins, r->ties, r->losses, r->untested };
	strbuf_addf(sb,
		    "<p>Per-task verdicts at a %.0f%% false discovery "
		    "rate: ",
		    100 * r->fdr);
	for (int k = 0; k < 4; k++) {
		strbuf_reset(&p);
		strbuf_addstr(&p, ptr);
		jptr_add(&p, "verdicts");
		jptr_add(&p, vk[k]);
		strbuf_addstr(sb, k ? ", " : "");
		html_int(sb, strbuf_str(&p), vn[k]);
		strbuf_addf(sb, " %s",
			    k == 0   ? "win(s)"
			    : k == 1 ? "tie(s)"
			    : k == 2 ? "loss(es)"
				     : "untested");
	}
	strbuf_addstr(sb, ".</p>\n");

	/* Per-task ratios B/A, in the JSON's order (common tasks only). */
	struct forest_row *rows = xcalloc((size_t)r->ntasks + 1, sizeof(*rows));
	char **ptrs = xcalloc((size_t)r->ntasks + 1, sizeof(*ptrs));
	int n = 0;
	for (int t = 0; t < r->ntasks; t++) {
		const struct ab_task *tk = &r->tasks[t];
		struct forest_row *fr;

		if (!tk->common)
			continue;
		fr = &rows[n];
		fr->label = task_ids ? task_ids[t] : "";
		fr->has_point = isfinite(tk->log_ratio);
		fr->v = exp(tk->log_ratio);
		fr->band = tk->noise_floor;
		fr->cls = verdict_cls(tk->verdict);
		fr->note = tk->ta == 0 && tk->tb == 0
				   ? "no correct, timed attempt on either side"
			   : tk->ta == 0 ? "no correct, timed attempt under A"
					 : "no correct, timed attempt under B";
		strbuf_reset(&p);
		strbuf_addstr(&p, ptr);
		jptr_add(&p, "tasks");
		jptr_addf(&p, "%d", n);
		jptr_add(&p, "ratio");
		ptrs[n] = xstrdup(strbuf_str(&p));
		fr->ptr = fr->has_point ? ptrs[n] : NULL;
		n++;
	}
	strbuf_addstr(sb,
		      "<h3>Speedup of B over A per task</h3>\n<p class="
		      "\"muted\">Each point is a task's geometric-mean "
		      "speedup under B divided by that under A (green: a win, "
		      "red: a loss at the false discovery rate, grey: a tie "
		      "or untested).  The blue band is the geomean effect over "
		      "tasks with its 95% interval; the grey band around 1 the "
		      "task's noise floor.</p>\n");
	forest_chart(sb, "per-task speedup ratio of B over A", rows, n,
		     "speedup of B over A", sp->defined ? exp(sp->point) : NAN,
		     sp->defined ? exp(sp->lo) : NAN,
		     sp->defined ? exp(sp->hi) : NAN);
	for (int i = 0; i < n; i++)
		free(ptrs[i]);
	free(ptrs);
	free(rows);
	strbuf_release(&p);
}

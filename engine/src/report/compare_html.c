/*
 * compare_html.c - `arena compare A B --html FILE`: the comparison of two
 * runs or configurations as one self-contained page (compare_report_html
 * in arena/compare.h).
 *
 * The same numbers as `arena compare --json`, drawn: whether the sides
 * are comparable, the tally of per-task verdicts, the A/B effects with
 * their intervals and the per-task ratios B/A on a log axis (ab_html.c),
 * what each side spent, and the per-task table of paired results.  Every
 * number is tagged with its JSON pointer into compare_report_json's
 * output (html.h); nothing is computed here.
 */
#include "arena/compare.h"
#include "html.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void side_name(struct strbuf *sb, const char *run, const char *var)
{
	html_escape(sb, run);
	if (var) {
		strbuf_addch(sb, ':');
		html_escape(sb, var);
	}
}

static void card(struct strbuf *sb, const char *ptr, int v, const char *what)
{
	strbuf_addstr(sb, "<div class=\"card\"><span class=\"v\">");
	html_int(sb, ptr, v);
	strbuf_addstr(sb, "</span><span class=\"k\">");
	strbuf_addstr(sb, what);
	strbuf_addstr(sb, "</span></div>\n");
}

static void costs_row(struct strbuf *sb, const char *label,
		      const struct report_costs *c, const char *base)
{
	static const char *const keys[] = { "attempts", "turns", "input_tokens",
					    "cached_input_tokens",
					    "output_tokens" };
	const int64_t v[] = { c->attempts, c->turns, c->input_tokens,
			      c->cached_tokens, c->output_tokens };
	struct strbuf p = STRBUF_INIT;

	strbuf_addstr(sb, "<tr><td>");
	strbuf_addstr(sb, label);
	strbuf_addstr(sb, "</td>");
	for (int k = 0; k < 5; k++) {
		strbuf_reset(&p);
		strbuf_addstr(&p, base);
		jptr_add(&p, keys[k]);
		strbuf_addstr(sb, "<td class=\"num\">");
		html_int(sb, strbuf_str(&p), v[k]);
		strbuf_addstr(sb, "</td>");
	}
	strbuf_reset(&p);
	strbuf_addstr(&p, base);
	jptr_add(&p, "cost_usd");
	strbuf_addstr(sb, "<td class=\"num\">");
	html_usd(sb, strbuf_str(&p), c->cost_known ? c->cost_usd : NAN);
	if (c->cost_known && c->cost_known < c->attempts)
		strbuf_addf(sb, " <small>(%d of %d)</small>", c->cost_known,
			    c->attempts);
	strbuf_addstr(sb, "</td>");
	strbuf_reset(&p);
	strbuf_addstr(&p, base);
	jptr_add(&p, "agent_seconds");
	strbuf_addstr(sb, "<td class=\"num\">");
	html_fixed(sb, strbuf_str(&p), c->agent_s, 1, " s");
	strbuf_addstr(sb, "</td></tr>\n");
	strbuf_release(&p);
}

static void side_cells(struct strbuf *sb, const struct compare_side *sd, int i,
		       const char *which)
{
	char *ps = xasprintf("/tasks/%d/%s/score", i, which);
	char *pv = xasprintf("/tasks/%d/%s/speedup", i, which);
	char *pc = xasprintf("/tasks/%d/%s/costs/cost_usd", i, which);

	strbuf_addstr(sb, "<td class=\"num\">");
	if (sd->evaluated)
		strbuf_addf(sb, "%d/%d", sd->ncorrect, sd->evaluated);
	else
		strbuf_addstr(sb, sd->present ? "&ndash;" : "absent");
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (sd->evaluated)
		html_fixed(sb, ps, sd->score, 2, NULL);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (sd->speedup > 0) {
		html_fixed(sb, pv, sd->speedup, 4, "&#215;");
		strbuf_addf(sb, " <small class=\"muted\">[%.3f, %.3f]</small>",
			    sd->ci_lo, sd->ci_hi);
	} else if (sd->evaluated) {
		strbuf_addstr(sb, "<span class=\"muted\">");
		html_escape(sb, sd->status ? sd->status : "wrong");
		strbuf_addstr(sb, "</span>");
	}
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (sd->evaluated)
		html_usd(sb, pc,
			 sd->costs.cost_known ? sd->costs.cost_usd : NAN);
	strbuf_addstr(sb, "</td>");
	free(ps);
	free(pv);
	free(pc);
}

static const char *verdict_cls(enum compare_verdict v)
{
	switch (v) {
	case CMP_WIN:
		return "faster";
	case CMP_LOSS:
		return "slower";
	default:
		return "muted";
	}
}

char *compare_report_html(const struct compare_report *r)
{
	struct strbuf sb = STRBUF_INIT, title = STRBUF_INIT;
	const char **ids = xcalloc((size_t)r->ntasks + 1, sizeof(*ids));

	for (int i = 0; i < r->ntasks; i++)
		ids[i] = r->tasks[i].task_id;
	strbuf_addf(&title, "arena compare %s%s%s vs %s%s%s", r->run_a,
		    r->variant_a ? ":" : "", r->variant_a ? r->variant_a : "",
		    r->run_b, r->variant_b ? ":" : "",
		    r->variant_b ? r->variant_b : "");
	html_page_open(&sb, strbuf_str(&title));
	strbuf_addstr(&sb, "<h1>arena compare</h1>\n<p class=\"meta\">A = <b>");
	side_name(&sb, r->run_a, r->variant_a);
	strbuf_addstr(&sb, "</b> (device ");
	html_escape(&sb, r->device_a ? r->device_a : "?");
	strbuf_addstr(&sb, ") &middot; B = <b>");
	side_name(&sb, r->run_b, r->variant_b);
	strbuf_addstr(&sb, "</b> (device ");
	html_escape(&sb, r->device_b ? r->device_b : "?");
	strbuf_addstr(&sb, ")</p>\n");
	if (r->comparable) {
		strbuf_addstr(&sb, "<p>Comparable: same tasks, device and "
				   "evaluator version.</p>\n");
	} else {
		strbuf_addstr(&sb, "<p class=\"slower\"><b>Not comparable:"
				   "</b></p>\n<ul>\n");
		for (size_t i = 0; i < r->reasons.n; i++) {
			strbuf_addstr(&sb, "<li>");
			html_escape(&sb, r->reasons.v[i]);
			strbuf_addstr(&sb, "</li>\n");
		}
		strbuf_addstr(&sb, "</ul>\n");
	}
	strbuf_addstr(&sb, "<div class=\"cards\">\n");
	card(&sb, "/tasks_common", r->ncommon, "tasks in common");
	card(&sb, "/wins", r->wins, "wins of B");
	card(&sb, "/ties", r->ties, "ties");
	card(&sb, "/losses", r->losses, "losses of B");
	card(&sb, "/untested", r->untested, "untested");
	card(&sb, "/pending", r->pending, "pending");
	strbuf_addstr(&sb, "<div class=\"card\"><span class=\"v\">");
	html_fixed(&sb, "/mean_score_a", r->mean_score_a, 2, NULL);
	strbuf_addstr(&sb, " &rarr; ");
	html_fixed(&sb, "/mean_score_b", r->mean_score_b, 2, NULL);
	strbuf_addstr(&sb, "</span><span class=\"k\">mean score A &rarr; B"
			   "</span></div>\n</div>\n");

	strbuf_addstr(&sb, "<h2>Is B better than A?</h2>\n");
	ab_html(&sb, &r->ab, ids, "/ab");

	strbuf_addstr(&sb,
		      "<h2>What each side spent</h2>\n<table>\n<tr><th>"
		      "</th><th class=\"num\">attempts</th><th class=\"num\">"
		      "turns</th><th class=\"num\">input tokens</th><th "
		      "class=\"num\">cached input</th><th class=\"num\">output "
		      "tokens</th><th class=\"num\">cost</th><th class="
		      "\"num\">agent time</th></tr>\n");
	costs_row(&sb, "A", &r->costs_a, "/costs/a");
	costs_row(&sb, "B", &r->costs_b, "/costs/b");
	strbuf_addstr(&sb, "</table>\n");
	{
		struct hbar b[2] = {
			{ "A",
			  r->costs_a.cost_known ? r->costs_a.cost_usd : NAN },
			{ "B",
			  r->costs_b.cost_known ? r->costs_b.cost_usd : NAN },
		};
		hbar_chart(&sb, "cost of each side", b, 2, "$", 4);
		b[0].v = r->costs_a.agent_s;
		b[1].v = r->costs_b.agent_s;
		hbar_chart(&sb, "agent time of each side", b, 2, " s", 1);
	}

	strbuf_addstr(&sb,
		      "<h2>Per task</h2>\n<table>\n<tr><th>task</th>"
		      "<th class=\"num\">pass A</th><th class=\"num\">score A"
		      "</th><th class=\"num\">speedup A</th><th class=\"num\">"
		      "cost A</th><th class=\"num\">pass B</th><th class="
		      "\"num\">score B</th><th class=\"num\">speedup B</th>"
		      "<th class=\"num\">cost B</th><th class=\"num\">B/A</th>"
		      "<th class=\"num\">q</th><th>verdict</th></tr>\n");
	for (int i = 0; i < r->ntasks; i++) {
		const struct compare_task *t = &r->tasks[i];
		char *pr = xasprintf("/tasks/%d/ratio", i);
		char *pq = xasprintf("/tasks/%d/q", i);

		strbuf_addstr(&sb, "<tr><td>");
		html_escape(&sb, t->task_id);
		strbuf_addstr(&sb, "</td>");
		side_cells(&sb, &t->a, i, "a");
		side_cells(&sb, &t->b, i, "b");
		strbuf_addstr(&sb, "<td class=\"num\">");
		if (t->ratio > 0)
			html_fixed(&sb, pr, t->ratio, 4, "&#215;");
		strbuf_addstr(&sb, "</td><td class=\"num\">");
		if (isfinite(t->q))
			html_fixed(&sb, pq, t->q, 4, NULL);
		strbuf_addf(&sb, "</td><td class=\"%s\">%s</td></tr>\n",
			    verdict_cls(t->verdict),
			    compare_verdict_name(t->verdict));
		free(pr);
		free(pq);
	}
	strbuf_addstr(&sb, "</table>\n");
	strbuf_addf(&sb,
		    "<footer>A win or loss is a discovery at a %.0f%% "
		    "false discovery rate across the compared tasks "
		    "(Benjamini&ndash;Hochberg q &le; %.2f); "
		    "docs/statistics.md explains every number.  The same "
		    "numbers: <code>arena compare --json</code>.</footer>\n",
		    100 * r->ab.fdr, r->ab.fdr);
	html_page_close(&sb);
	free(ids);
	strbuf_release(&title);
	return strbuf_detach(&sb);
}

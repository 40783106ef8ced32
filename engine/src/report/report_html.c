/*
 * report_html.c - report.html, a run's page (arena/report_html.h).
 *
 * What a researcher reads first, top to bottom: the run's identity; the
 * headline numbers (correct, faster and slower beyond the noise, geomean
 * speedup, score, cost); the comparison of its agent configurations, when
 * it has several; the verdict mix; every attempt's speedup with its 95%
 * interval on a log axis over its noise band; what the agents spent; every
 * attempt in a table, each with its per-case detail.
 *
 * Nothing is computed here that summary.json does not hold: the group
 * statistics are report_rows.c's (the same struct group summary.json and
 * report.txt print), the A/B comparisons report_ab.c's, and every number
 * shown is tagged with its JSON pointer into summary.json (html.h).  Like
 * the other reports it is a pure function of the rows.
 */
#include "arena/report_html.h"
#include "html.h"
#include "report_ab.h"
#include "report_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pointer "/<a>/<b>..." into summary.json; jp_* build one in place. */
struct jp {
	struct strbuf sb;
};

static const char *jp(struct jp *p, const char *base, const char *key)
{
	strbuf_reset(&p->sb);
	strbuf_addstr(&p->sb, base);
	if (key)
		jptr_add(&p->sb, key);
	return strbuf_str(&p->sb);
}

/* ---- header and headline ---------------------------------------------- */

static void add_header(struct strbuf *sb, const struct report_meta *m,
		       const struct variants *vs)
{
	strbuf_addstr(sb, "<h1>arena run ");
	html_escape(sb, m->run_id ? m->run_id : "?");
	strbuf_addstr(sb, "</h1>\n<p class=\"meta\">agent <b>");
	html_escape(sb, m->agent ? m->agent : "?");
	strbuf_addstr(sb, "</b> &middot; device <b>");
	html_escape(sb, m->device ? m->device : "?");
	strbuf_addstr(sb, "</b> &middot; created ");
	html_escape(sb, m->created_at ? m->created_at : "?");
	strbuf_addstr(sb, " &middot; status <b>");
	html_escape(sb, m->status ? m->status : "?");
	strbuf_addstr(sb, "</b>");
	if (vs->nvar > 0) {
		strbuf_addstr(sb, " &middot; agent configurations ");
		for (int k = 0; k < vs->nvar; k++) {
			strbuf_addstr(sb, k ? ", <b>" : "<b>");
			html_escape(sb, vs->var[k].name);
			strbuf_addstr(sb, "</b>");
		}
	}
	strbuf_addstr(sb, "</p>\n");
}

static void card_open(struct strbuf *sb)
{
	strbuf_addstr(sb, "<div class=\"card\"><span class=\"v\">");
}

static void card_close(struct strbuf *sb, const char *what)
{
	strbuf_addstr(sb, "</span><span class=\"k\">");
	strbuf_addstr(sb, what); /* this file's text */
	strbuf_addstr(sb, "</span></div>\n");
}

/* The headline cards of a group (the run, or one configuration); base is
 * its pointer in summary.json ("/overall", "/variants/<name>"). */
static void add_cards(struct strbuf *sb, struct group *g, const char *base)
{
	struct speedup_stats st;
	struct jp p = { STRBUF_INIT };

	group_speedup_stats(g, &st);
	strbuf_addstr(sb, "<div class=\"cards\">\n");
	card_open(sb);
	html_int(sb, jp(&p, base, "total_tasks"), g->total);
	card_close(sb, "attempts");
	card_open(sb);
	html_int(sb, jp(&p, base, "correctness_pass_count"), g->correct);
	strbuf_addstr(sb, " <small>(");
	html_pct(sb, jp(&p, base, "correctness_pass_rate"),
		 rate(g->correct, g->total));
	strbuf_addstr(sb, ")</small>");
	card_close(sb, "correct");
	card_open(sb);
	html_int(sb, jp(&p, base, "significant_speedup_count"), g->significant);
	card_close(sb, "faster beyond noise");
	card_open(sb);
	html_int(sb, jp(&p, base, "slower_beyond_noise_count"), g->slower);
	card_close(sb, "slower beyond noise");
	card_open(sb);
	html_int(sb, jp(&p, base, "within_noise_count"), g->within);
	card_close(sb, "within noise");
	card_open(sb);
	html_fixed(sb, jp(&p, base, "geomean_speedup"),
		   g->nspeedups ? st.geomean : NAN, 4, "&#215;");
	card_close(sb, "geomean speedup (correct, timed)");
	card_open(sb);
	html_fixed(sb, jp(&p, base, "average_score"),
		   g->total ? g->total_score / g->total : 0.0, 2, NULL);
	card_close(sb, "average score");
	card_open(sb);
	html_fixed(sb, jp(&p, base, "average_reward"),
		   g->reward_n ? g->reward_sum / g->reward_n : NAN, 4, NULL);
	card_close(sb, "average reward");
	card_open(sb);
	{
		struct strbuf cp = STRBUF_INIT;

		strbuf_addstr(&cp, base);
		jptr_add(&cp, "costs");
		jptr_add(&cp, "cost_usd");
		html_usd(sb, strbuf_str(&cp),
			 g->costs.cost_known ? g->costs.cost_usd : NAN);
		strbuf_release(&cp);
	}
	card_close(sb, g->costs.cost_known < g->costs.attempts
			       ? "agent cost (not all reported)"
			       : "agent cost");
	card_open(sb);
	html_duration(sb, g->costs.agent_s);
	card_close(sb, "agent time");
	strbuf_addstr(sb, "</div>\n");
	strbuf_release(&p.sb);
}

/* ---- verdict mix -------------------------------------------------------- */

static void add_mix(struct strbuf *sb, struct group *g, const char *base,
		    const char *title)
{
	struct segment seg[RS_INFRA_ERROR + 2];
	char *ptrs[RS_INFRA_ERROR + 2];
	static const enum result_status order[] = {
		RS_OK,	    RS_INCORRECT, RS_COMPILE_ERROR, RS_RUNTIME_ERROR,
		RS_TIMEOUT, RS_REJECTED,  RS_INFRA_ERROR,   RS_NOT_EVALUATED,
	};
	int n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const char *name = result_status_name(order[i]);
		struct strbuf p = STRBUF_INIT;

		strbuf_addstr(&p, base);
		jptr_add(&p, "verdicts");
		jptr_add(&p, name);
		ptrs[n] = strbuf_detach(&p);
		seg[n] = (struct segment){ name, g->verdicts[order[i]],
					   html_status_color(name), ptrs[n] };
		n++;
	}
	{
		struct strbuf p = STRBUF_INIT;

		strbuf_addstr(&p, base);
		jptr_add(&p, "verdicts");
		jptr_add(&p, "pending");
		ptrs[n] = strbuf_detach(&p);
		seg[n] = (struct segment){ "pending", g->pending,
					   html_status_color("pending"),
					   ptrs[n] };
		n++;
	}
	strbuf_addstr(sb, "<h3>");
	html_escape(sb, title);
	strbuf_addstr(sb, "</h3>\n");
	stacked_bar(sb, "verdict mix", seg, n);
	for (int i = 0; i < n; i++)
		free(ptrs[i]);
}

/* ---- the speedup chart -------------------------------------------------- */

static const char *versus_cls(enum versus v)
{
	switch (v) {
	case VS_FASTER:
		return "faster";
	case VS_SLOWER:
		return "slower";
	case VS_SAME:
		return "same";
	default:
		return "none";
	}
}

static void add_speedups(struct strbuf *sb, const struct report_row *rows,
			 int n, struct group *all)
{
	struct forest_row *fr = xcalloc((size_t)n + 1, sizeof(*fr));
	char **ptrs = xcalloc((size_t)n + 1, sizeof(*ptrs));
	char **notes = xcalloc((size_t)n + 1, sizeof(*notes));
	struct speedup_stats st;
	bool attempts = false;

	group_speedup_stats(all, &st);
	for (int i = 0; i < n; i++)
		attempts |= rows[i].attempt != 1;
	for (int i = 0; i < n; i++) {
		const struct task_result *r = rows[i].result;

		fr[i].label = rows[i].task_id;
		fr[i].sublabel = row_variant(&rows[i]);
		fr[i].attempt = attempts ? rows[i].attempt : 0;
		fr[i].has_point = row_has_speedup(&rows[i]);
		if (!r) {
			fr[i].note = "pending";
			continue;
		}
		fr[i].band = r->noise_floor;
		if (!fr[i].has_point) {
			int held;
			notes[i] =
				!row_correct(&rows[i])
					? xstrdup(result_status_name(r->status))
				: report_correctness_only(r, NULL, &held) > 0
					? xstrdup("correct, correctness only (below "
						  "the timing floor)")
					: xstrdup("correct, not timed");
			fr[i].note = notes[i];
			continue;
		}
		fr[i].v = r->speedup_ratio;
		if (row_has_ci(r)) {
			fr[i].lo = r->speedup_ci_lo;
			fr[i].hi = r->speedup_ci_hi;
		}
		fr[i].cls = versus_cls(row_versus(&rows[i]));
		ptrs[i] = xasprintf("/tasks/%d/speedup", i);
		fr[i].ptr = ptrs[i];
	}
	strbuf_addstr(sb,
		      "<h2>Speedup over the baseline</h2>\n<p class="
		      "\"muted\">Each attempt's speedup (baseline time / "
		      "candidate time; geometric mean over its cases) with "
		      "its 95% interval.  Green: faster beyond the noise (the "
		      "whole interval above 1 + the noise floor), red: slower "
		      "beyond it, grey: within the noise.  The grey band "
		      "around 1&#215; is each attempt's noise floor (the A/A "
		      "spread a win must clear); the dashed blue line the "
		      "geometric mean over correct, timed attempts.</p>\n");
	forest_chart(sb, "per-attempt speedups with 95% intervals", fr, n,
		     "speedup over the baseline",
		     all->nspeedups ? st.geomean : NAN, NAN, NAN);
	for (int i = 0; i < n; i++) {
		free(ptrs[i]);
		free(notes[i]);
	}
	free(ptrs);
	free(notes);
	free(fr);
}

/* ---- costs -------------------------------------------------------------- */

static void cost_cells(struct strbuf *sb, const struct report_costs *c,
		       const char *base)
{
	struct strbuf p = STRBUF_INIT;
	static const char *const keys[] = { "turns", "input_tokens",
					    "cached_input_tokens",
					    "output_tokens" };
	const int64_t vals[] = { c->turns, c->input_tokens, c->cached_tokens,
				 c->output_tokens };

	strbuf_addstr(&p, base);
	jptr_add(&p, "attempts");
	strbuf_addstr(sb, "<td class=\"num\">");
	html_int(sb, strbuf_str(&p), c->attempts);
	strbuf_addstr(sb, "</td>");
	for (int k = 0; k < 4; k++) {
		strbuf_reset(&p);
		strbuf_addstr(&p, base);
		jptr_add(&p, keys[k]);
		strbuf_addstr(sb, "<td class=\"num\">");
		html_int(sb, strbuf_str(&p), vals[k]);
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
	strbuf_addstr(sb, "</td>");
	strbuf_reset(&p);
	strbuf_addstr(&p, base);
	jptr_add(&p, "eval_seconds");
	strbuf_addstr(sb, "<td class=\"num\">");
	html_fixed(sb, strbuf_str(&p), c->eval_s, 1, " s");
	strbuf_addstr(sb, "</td>");
	strbuf_release(&p);
}

static const char *const COST_HEAD =
	"<th class=\"num\">turns</th><th class=\"num\">input tokens</th>"
	"<th class=\"num\">cached input</th><th class=\"num\">output tokens"
	"</th><th class=\"num\">cost</th><th class=\"num\">agent time</th>"
	"<th class=\"num\">evaluation time</th>";

/* Per configuration (and the run): what was spent and what it bought. */
static void add_costs(struct strbuf *sb, struct group *all,
		      const struct variants *vs)
{
	struct speedup_stats st;
	struct strbuf p = STRBUF_INIT;

	strbuf_addstr(sb,
		      "<h2>What the agents spent</h2>\n<p class=\"muted\">"
		      "Turns, tokens and cost as the agent CLIs report them "
		      "(a cost is shown only where the CLI reported one or "
		      "prices were configured); agent time is wall time of "
		      "the agent, evaluation time that of the final "
		      "evaluations.</p>\n<table>\n<tr><th></th><th class="
		      "\"num\">attempts</th>");
	strbuf_addstr(sb, COST_HEAD);
	strbuf_addstr(sb, "<th class=\"num\">correct</th><th class=\"num\">"
			  "geomean speedup</th></tr>\n");
	for (int k = 0; k < vs->nvar; k++) {
		struct group *g = &vs->var[k];

		group_speedup_stats(g, &st);
		strbuf_reset(&p);
		jptr_add(&p, "variants");
		jptr_add(&p, g->name);
		jptr_add(&p, "costs");
		strbuf_addstr(sb, "<tr><td>");
		html_escape(sb, g->name);
		strbuf_addstr(sb, "</td>");
		cost_cells(sb, &g->costs, strbuf_str(&p));
		strbuf_reset(&p);
		jptr_add(&p, "variants");
		jptr_add(&p, g->name);
		jptr_add(&p, "correctness_pass_count");
		strbuf_addstr(sb, "<td class=\"num\">");
		html_int(sb, strbuf_str(&p), g->correct);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		strbuf_reset(&p);
		jptr_add(&p, "variants");
		jptr_add(&p, g->name);
		jptr_add(&p, "geomean_speedup");
		html_fixed(sb, strbuf_str(&p), g->nspeedups ? st.geomean : NAN,
			   4, "&#215;");
		strbuf_addstr(sb, "</td></tr>\n");
	}
	group_speedup_stats(all, &st);
	strbuf_addstr(sb, "<tr><td><b>run</b></td>");
	cost_cells(sb, &all->costs, "/overall/costs");
	strbuf_addstr(sb, "<td class=\"num\">");
	html_int(sb, "/overall/correctness_pass_count", all->correct);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, "/overall/geomean_speedup",
		   all->nspeedups ? st.geomean : NAN, 4, "&#215;");
	strbuf_addstr(sb, "</td></tr>\n</table>\n");
	if (vs->nvar > 1) {
		struct hbar *b = xcalloc((size_t)vs->nvar, sizeof(*b));

		for (int k = 0; k < vs->nvar; k++)
			b[k] = (struct hbar){ vs->var[k].name,
					      vs->var[k].costs.cost_known
						      ? vs->var[k].costs.cost_usd
						      : NAN };
		strbuf_addstr(sb, "<h3>Cost by agent configuration</h3>\n");
		hbar_chart(sb, "cost by agent configuration", b, vs->nvar, "$",
			   4);
		for (int k = 0; k < vs->nvar; k++)
			b[k].v = vs->var[k].costs.agent_s;
		strbuf_addstr(sb, "<h3>Agent time by agent configuration</h3>"
				  "\n");
		hbar_chart(sb, "agent time by agent configuration", b, vs->nvar,
			   " s", 1);
		free(b);
	}
	strbuf_release(&p);
}

/* ---- the attempts table and per-case detail ----------------------------- */

static void add_case_detail(struct strbuf *sb, const struct task_result *r,
			    int row)
{
	struct forest_row *fr = xcalloc((size_t)r->ncases + 1, sizeof(*fr));
	char **ptrs = xcalloc((size_t)r->ncases + 1, sizeof(*ptrs));
	int n = 0;

	strbuf_addstr(sb,
		      "<table>\n<tr><th>case</th><th>correct</th><th "
		      "class=\"num\">speedup</th><th class=\"num\">95% "
		      "interval</th><th class=\"num\">baseline ms</th><th "
		      "class=\"num\">candidate ms</th><th class=\"num\">pairs"
		      "</th><th class=\"num\">blocks</th><th>error or timing "
		      "note</th></tr>\n");
	for (int i = 0; i < r->ncases; i++) {
		const struct case_result *c = &r->cases[i];
		char *pre;

		if (c->held_out)
			continue; /* never shown (report.c says why) */
		pre = xasprintf("/tasks/%d/cases/%d", row, n);
		strbuf_addstr(sb, "<tr><td>");
		html_escape(sb, c->id);
		strbuf_addf(sb, "</td><td>%s</td><td class=\"num\">",
			    c->correct ? "yes" : "no");
		char *ps = xasprintf("%s/speedup", pre);
		char *pb = xasprintf("%s/base_ms", pre);
		char *pc = xasprintf("%s/cand_ms", pre);
		char *pp = xasprintf("%s/pairs", pre);
		char *pk = xasprintf("%s/blocks", pre);
		html_fixed(sb, c->timed ? ps : NULL,
			   c->timed ? c->speedup : NAN, 4, "&#215;");
		strbuf_addstr(sb, "</td><td class=\"num\">");
		if (c->timed && c->ci_lo > 0 && c->ci_hi >= c->ci_lo)
			strbuf_addf(sb, "[%.4f, %.4f]", c->ci_lo, c->ci_hi);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		html_fixed(sb, c->timed ? pb : NULL,
			   c->timed ? c->base_ms : NAN, 4, NULL);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		html_fixed(sb, c->timed ? pc : NULL,
			   c->timed ? c->cand_ms : NAN, 4, NULL);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		html_int(sb, pp, c->pairs);
		strbuf_addstr(sb, "</td><td class=\"num\">");
		html_int(sb, pk, c->blocks);
		strbuf_addstr(sb, "</td><td class=\"note\">");
		/* Why it is not correct, else why it was not timed (a
		 * correctness-only case: its baseline call is below the
		 * timing floor). */
		if (c->error)
			html_escape(sb, c->error);
		else if (c->timing_note)
			html_escape(sb, c->timing_note);
		else if (c->correctness_only)
			strbuf_addstr(sb, "correctness only: below the timing "
					  "floor");
		strbuf_addstr(sb, "</td></tr>\n");
		fr[n].label = c->id;
		fr[n].has_point = c->timed && c->speedup > 0;
		fr[n].v = c->speedup;
		fr[n].lo = c->ci_lo;
		fr[n].hi = c->ci_hi;
		fr[n].band = r->noise_floor;
		fr[n].cls = "same";
		if (fr[n].has_point && c->ci_lo > 1 + r->noise_floor)
			fr[n].cls = "faster";
		else if (fr[n].has_point && c->ci_hi > 0 &&
			 c->ci_hi < 1 - r->noise_floor)
			fr[n].cls = "slower";
		fr[n].note = !c->correct	   ? "not correct"
			     : c->correctness_only ? "correctness only"
						   : "not timed";
		ptrs[n] = ps;
		fr[n].ptr = fr[n].has_point ? ps : NULL;
		free(pb);
		free(pc);
		free(pp);
		free(pk);
		free(pre);
		n++;
	}
	strbuf_addstr(sb, "</table>\n");
	if (n > 0)
		forest_chart(sb, "per-case speedups", fr, n,
			     "speedup of the "
			     "case",
			     NAN, NAN, NAN);
	for (int i = 0; i < n; i++)
		free(ptrs[i]);
	free(ptrs);
	free(fr);
}

static void add_attempt_row(struct strbuf *sb, const struct report_row *row,
			    int i, bool variants)
{
	const struct task_result *r = row->result;
	int cols = variants ? 15 : 14;
	char *pre = xasprintf("/tasks/%d", i), *why;
	struct jp p = { STRBUF_INIT };

	strbuf_addstr(sb, "<tr><td>");
	html_escape(sb, row->task_id);
	strbuf_addstr(sb, "</td>");
	if (variants) {
		strbuf_addstr(sb, "<td>");
		html_escape(sb, row_variant(row) ? row_variant(row) : "");
		strbuf_addstr(sb, "</td>");
	}
	strbuf_addf(sb, "<td class=\"num\">%d</td>", row->attempt);
	if (!r) {
		strbuf_addf(sb,
			    "<td colspan=\"%d\" class=\"muted\">pending"
			    "</td></tr>\n",
			    cols - (variants ? 3 : 2));
		free(pre);
		strbuf_release(&p.sb);
		return;
	}
	strbuf_addf(sb, "<td style=\"color:%s\">",
		    html_status_color(result_status_name(r->status)));
	html_escape(sb, result_status_name(r->status));
	strbuf_addf(sb, "</td><td>%s</td><td>%s</td><td class=\"num\">",
		    row_compiled(row) ? "yes" : "no",
		    row_correct(row) ? "yes" : "no");
	html_fixed(sb, jp(&p, pre, "speedup"), r->speedup_ratio, 4, "&#215;");
	strbuf_addstr(sb, "</td><td class=\"num\">");
	if (row_has_ci(r))
		strbuf_addf(sb, "[%.4f, %.4f]", r->speedup_ci_lo,
			    r->speedup_ci_hi);
	enum versus vs = row_versus(row);
	strbuf_addf(sb, "</td><td class=\"%s\">%s</td><td class=\"num\">",
		    versus_cls(vs),
		    vs == VS_FASTER   ? "faster"
		    : vs == VS_SLOWER ? "slower"
		    : vs == VS_SAME   ? "within noise"
				      : "");
	html_fixed(sb, jp(&p, pre, "score"), r->score, 2, NULL);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, jp(&p, pre, "reward"), r->reward, 4, NULL);
	strbuf_addstr(sb, "</td>");
	/* What the agent spent: turns, tokens in (cached) / out, cost,
	 * time. */
	char *cb = xasprintf("%s/costs", pre);
	strbuf_addstr(sb, "<td class=\"num\">");
	html_int(sb, jp(&p, cb, "turns"), r->agent_turns);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_int(sb, jp(&p, cb, "input_tokens"), r->agent_input_tokens);
	strbuf_addstr(sb, " <small class=\"muted\">(");
	html_int(sb, jp(&p, cb, "cached_input_tokens"), r->agent_cached_tokens);
	strbuf_addstr(sb, ")</small> / ");
	html_int(sb, jp(&p, cb, "output_tokens"), r->agent_output_tokens);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_usd(sb, jp(&p, cb, "cost_usd"),
		 r->agent_cost_known ? r->agent_cost_usd : NAN);
	strbuf_addstr(sb, "</td><td class=\"num\">");
	html_fixed(sb, jp(&p, cb, "agent_seconds"), r->agent_duration_s, 1,
		   " s");
	strbuf_addstr(sb, "</td></tr>\n");
	free(cb);
	/* Why it did not pass (and how the agent ended, when not
	 * completed) and its cases, folded under the row. */
	strbuf_addf(sb, "<tr><td colspan=\"%d\" class=\"wrap\">", cols);
	if (r->agent_status && strcmp(r->agent_status, "completed")) {
		strbuf_addstr(sb, "agent ");
		html_escape(sb, r->agent_status);
		if (r->agent_error) {
			char *clean = result_utf8_sanitize(r->agent_error);

			strbuf_addstr(sb, ": ");
			html_escape(sb, clean);
			free(clean);
		}
		strbuf_addstr(sb, "<br>");
	}
	why = row_reason(row);
	if (why) {
		char *clean = result_utf8_sanitize(why);

		strbuf_addf(sb, "<span style=\"color:%s\">",
			    html_status_color(result_status_name(r->status)));
		html_escape(sb, clean);
		strbuf_addstr(sb, "</span>");
		free(clean);
	}
	free(why);
	struct strbuf ids = STRBUF_INIT;
	int held, vis = report_correctness_only(r, &ids, &held);
	if (vis || held) {
		strbuf_addstr(sb, "<div class=\"muted\">correctness only "
				  "(checked, not timed, not in the speedup): ");
		if (vis)
			html_escape(sb, strbuf_str(&ids));
		if (held)
			strbuf_addf(sb, "%s%d held-out case%s", vis ? "; " : "",
				    held, held == 1 ? "" : "s");
		strbuf_addstr(sb, "</div>");
	}
	strbuf_release(&ids);
	strbuf_addstr(sb, "<details><summary>cases of ");
	html_escape(sb, row->task_id);
	strbuf_addf(sb, " #%d</summary>\n", row->attempt);
	add_case_detail(sb, r, i);
	strbuf_addstr(sb, "</details></td></tr>\n");
	free(pre);
	strbuf_release(&p.sb);
}

static void add_attempts(struct strbuf *sb, const struct report_row *rows,
			 int n, bool variants)
{
	strbuf_addstr(sb,
		      "<h2>Every attempt</h2>\n<p class=\"muted\">Open "
		      "a row's cases for the per-case speedups, times and "
		      "errors (visible cases only); under a row that did not "
		      "pass, why.</p>\n<table class=\"attempts\">\n<tr><th>"
		      "task</th>");
	if (variants)
		strbuf_addstr(sb, "<th>configuration</th>");
	strbuf_addstr(sb,
		      "<th class=\"num\">attempt</th><th>status</th><th>"
		      "compiled</th><th>correct</th><th class=\"num\">speedup"
		      "</th><th class=\"num\">95% interval</th><th>vs "
		      "baseline</th><th class=\"num\">score</th><th class="
		      "\"num\">reward</th><th class=\"num\">"
		      "turns</th><th class=\"num\">tokens in (cached) / out"
		      "</th><th class=\"num\">cost</th><th class=\"num\">"
		      "agent time</th></tr>\n");
	for (int i = 0; i < n; i++)
		add_attempt_row(sb, &rows[i], i, variants);
	strbuf_addstr(sb, "</table>\n");
}

/* ---- the A/B section ---------------------------------------------------- */

static void add_ab(struct strbuf *sb, const struct report_meta *m,
		   const struct report_row *rows, int n)
{
	struct report_ab ab;

	report_ab_build(&ab, rows, n, m->run_id);
	if (ab.ncmp > 0)
		strbuf_addstr(sb, "<h2>A/B comparison of the agent "
				  "configurations</h2>\n");
	for (int k = 0; k < ab.ncmp; k++) {
		char *ptr = xasprintf("/ab/%d", k);

		if (ab.ncmp > 1) {
			strbuf_addstr(sb, "<h3>");
			html_escape(sb, ab.cmp[k].label_b);
			strbuf_addstr(sb, " against ");
			html_escape(sb, ab.cmp[k].label_a);
			strbuf_addstr(sb, "</h3>\n");
		}
		ab_html(sb, &ab.cmp[k], ab.task_ids, ptr);
		free(ptr);
	}
	report_ab_release(&ab);
}

char *report_html(const struct report_meta *m, const struct report_row *rows,
		  int n)
{
	struct strbuf sb = STRBUF_INIT, title = STRBUF_INIT;
	struct grouping gr;
	struct variants vs;

	grouping_build(&gr, rows, n);
	variants_build(&vs, rows, n);
	strbuf_addf(&title, "arena %s", m->run_id ? m->run_id : "run");
	html_page_open(&sb, strbuf_str(&title));
	add_header(&sb, m, &vs);
	add_cards(&sb, &gr.all, "/overall");
	if (gr.all.pending)
		strbuf_addf(&sb,
			    "<p class=\"muted\">%d attempt(s) pending: "
			    "rates count them as not passed.</p>\n",
			    gr.all.pending);
	add_ab(&sb, m, rows, n);
	strbuf_addstr(&sb, "<h2>Verdicts</h2>\n");
	add_mix(&sb, &gr.all, "/overall", "all attempts");
	for (int k = 0; k < vs.nvar; k++) {
		struct strbuf p = STRBUF_INIT;

		jptr_add(&p, "variants");
		jptr_add(&p, vs.var[k].name);
		add_mix(&sb, &vs.var[k], strbuf_str(&p), vs.var[k].name);
		strbuf_release(&p);
	}
	add_speedups(&sb, rows, n, &gr.all);
	add_costs(&sb, &gr.all, &vs);
	add_attempts(&sb, rows, n, vs.nvar > 0);
	strbuf_addstr(&sb,
		      "<footer>Speedup = baseline time / candidate time: "
		      "per case the geometric mean over blocks (fresh runner "
		      "processes) of the median paired ratio, the geometric "
		      "mean over cases; intervals are 95% t-intervals over the "
		      "blocks widened to contain the hierarchical bootstrap "
		      "(docs/statistics.md).  Cases below the timing floor are "
		      "checked for correctness only, not timed.  Score: 0 if "
		      "it does not compile, "
		      "20 if wrong, 120 + 100 &#215; speedup if correct; "
		      "reward in [&minus;1, 1] (docs/results.md).  The same "
		      "numbers are in summary.json beside this page.</footer>"
		      "\n");
	html_page_close(&sb);
	variants_release(&vs);
	grouping_release(&gr);
	strbuf_release(&title);
	return strbuf_detach(&sb);
}

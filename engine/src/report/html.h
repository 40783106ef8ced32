/*
 * html.h - what the report room's pages share (report_html.c for a run,
 * compare_html.c for two sides, index_html.c across a store): the page
 * frame, escaping, numbers tagged with where they come from, and charts
 * drawn as inline SVG.
 *
 * The pages are self-contained and static: one file, CSS inline, no
 * script, and a Content-Security-Policy that lets the browser fetch
 * nothing, so a page opened from a mount or a mail attachment cannot call
 * out and cannot be made to.
 *
 * Every number a page shows that a JSON report also holds is wrapped as
 * <span data-k="POINTER">text</span>, POINTER being an RFC 6901 JSON
 * pointer into that report (summary.json, `arena compare --json`):
 * tests/e2e/report_html.sh reads the numbers back from the DOM a real
 * browser built and checks each against the JSON.
 *
 * Invariant: every byte that does not come from these files passes
 * through html_escape(), so text written by agents (messages, summaries)
 * or by whoever named a task or a configuration cannot become markup.
 */
#ifndef ARENA_REPORT_HTML_INTERNAL_H
#define ARENA_REPORT_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "arena/report_html.h"

/* <!DOCTYPE ...><head> with the title (escaped), the CSP and the style
 * sheet, then <body>; html_page_close ends it. */
void html_page_open(struct strbuf *sb, const char *title);
void html_page_close(struct strbuf *sb);

/* A JSON pointer: p (a strbuf, "" to start) gets "/" and the token with
 * '~' and '/' escaped (RFC 6901). */
void jptr_add(struct strbuf *p, const char *token);
void jptr_addf(struct strbuf *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Tagged numbers (ptr NULL: untagged).  A value that is not finite is
 * shown as "–" (the JSON holds null).  The text a reader sees:
 *   html_int    1234
 *   html_fixed  1.2346 with `decimals` digits, then unit ("x", " s", "")
 *   html_pct    66.7% (rate is a fraction)
 *   html_usd    $0.4100 */
void html_int(struct strbuf *sb, const char *ptr, int64_t v);
void html_fixed(struct strbuf *sb, const char *ptr, double v, int decimals,
		const char *unit);
void html_pct(struct strbuf *sb, const char *ptr, double rate);
void html_usd(struct strbuf *sb, const char *ptr, double v);
/* "1h02m03s", "4m05s", "12.3s" (untagged: the JSON holds seconds). */
void html_duration(struct strbuf *sb, double seconds);

/* A speedup ratio as an axis label: "0.5×", "1×", "1.25×", "16×". */
void html_ratio_label(struct strbuf *sb, double v);

/* ---- charts ------------------------------------------------------------ */

/* One row of a forest plot: a point with its interval on a log axis,
 * over the row's noise band [1 - band, 1 + band]. */
struct forest_row {
	const char *label;    /* task id and the like (escaped) */
	const char *sublabel; /* a configuration, or NULL (escaped) */
	int attempt;	      /* shown as "#k" when > 0 */
	bool has_point;
	double v, lo, hi; /* lo, hi <= 0: no interval */
	double band;	  /* relative noise floor, 0: none */
	const char *cls;  /* "faster", "slower", "same" or "none" */
	const char *note; /* shown instead of a point (escaped) */
	const char *ptr;  /* data-k of v, or NULL */
};

/* The chart: one row each, a shared log axis spanning every point and
 * interval and 1.0 (clamped to [1/64, 64]; what lies beyond is drawn as
 * an arrow at the edge), the line at 1.0 labelled, the noise bands
 * shaded.  overall (with its interval, NAN for none) is drawn as a
 * vertical band across the rows: a geometric mean. */
void forest_chart(struct strbuf *sb, const char *aria,
		  const struct forest_row *rows, int n, const char *what,
		  double overall, double overall_lo, double overall_hi);

/* A stacked horizontal bar of counts with a legend. */
struct segment {
	const char *name; /* escaped */
	int n;
	const char *color; /* a CSS colour from this room */
	const char *ptr;   /* data-k of n, or NULL */
};
void stacked_bar(struct strbuf *sb, const char *aria, const struct segment *s,
		 int nseg);

/* Horizontal bars of non-negative values, one per label. */
struct hbar {
	const char *label; /* escaped */
	double v;	   /* NAN: not known (no bar) */
};
void hbar_chart(struct strbuf *sb, const char *aria, const struct hbar *b,
		int n, const char *unit, int decimals);

/* An A/B comparison (ab_html.c): headline, effects, verdicts and the
 * per-task ratios B/A; numbers tagged under ptr, the pointer of the
 * comparison's ab_result_json in the page's JSON.  task_ids[i] names the
 * result's task i. */
struct ab_result;
void ab_html(struct strbuf *sb, const struct ab_result *r,
	     const char *const *task_ids, const char *ptr);

/* The colour of a result status in the verdict mix. */
const char *html_status_color(const char *status);

#endif /* ARENA_REPORT_HTML_INTERNAL_H */

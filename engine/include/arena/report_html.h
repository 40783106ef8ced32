/*
 * report_html.h - the HTML pages: report.html (one per run, written into
 * the run directory with the other reports and served by the mount), the
 * page of `arena compare --html` and the store's index (`arena report
 * --index`).  Each is self-contained (inline CSS and SVG, no script, a
 * Content-Security-Policy that fetches nothing) and a pure function of
 * its inputs; every number it shows is tagged with its JSON pointer into
 * the JSON report that holds the same value (summary.json, `arena compare
 * --json`), so a test can read the page back against it.
 */
#ifndef ARENA_REPORT_HTML_H
#define ARENA_REPORT_HTML_H

#include "arena/report.h"
#include "arena/util.h"

/* The page (caller frees).  Every string that comes from a task, a result
 * or an agent is HTML-escaped. */
char *report_html(const struct report_meta *m, const struct report_row *rows,
		  int n);

/* One run of a store, for the index page. */
struct report_index_run {
	const struct report_meta *meta;
	const struct report_row *rows;
	int n;
};

/* The page across a store's runs, newest first as given: per run its
 * status, configurations, pass rates, speedups beyond noise, geomean,
 * costs, and a link to runs/<id>/report.html (relative to the store).
 * Numbers are tagged with pointers into that run's summary.json
 * (data-run names the run).  Caller frees. */
char *report_index_html(const struct report_index_run *runs, int n);

/* Appends s to sb with &, <, >, " and ' escaped. */
void html_escape(struct strbuf *sb, const char *s);

#endif /* ARENA_REPORT_HTML_H */

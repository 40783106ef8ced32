/*
 * report_html.h - report.html: one self-contained page per run (no
 * external scripts, styles or fonts) with the run's summary, an inline SVG
 * chart of per-task speedups with their confidence intervals, and the
 * per-task table.  Like the other reports it is a pure function of the
 * run's results.
 */
#ifndef ARENA_REPORT_HTML_H
#define ARENA_REPORT_HTML_H

#include "arena/report.h"
#include "arena/util.h"

/* The page (caller frees).  Every string that comes from a task, a result
 * or an agent is HTML-escaped. */
char *report_html(const struct report_meta *m, const struct report_row *rows,
		  int n);

/* Appends s to sb with &, <, >, " and ' escaped. */
void html_escape(struct strbuf *sb, const char *s);

#endif /* ARENA_REPORT_HTML_H */

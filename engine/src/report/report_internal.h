/*
 * report_internal.h - what the report room's files share (private to
 * engine/src/report).
 */
#ifndef ARENA_REPORT_INTERNAL_H
#define ARENA_REPORT_INTERNAL_H

#include "arena/report.h"
#include "arena/task.h"

/* Python's statistics.quantiles(data, n=100)[i - 1] (method "exclusive")
 * for sorted data of n >= 1 values: the i-th percentile, as
 * AgentKernelArena computes its P25/P75/P90. */
double report_py_percentile(const double *s, int n, int i);

/* AgentKernelArena's dashboard files (report_aka.c) in dir/reports. */
int report_write_aka(const char *dir, const struct report_meta *m,
		     const struct report_row *rows, int n, struct errbuf *err);

#endif /* ARENA_REPORT_INTERNAL_H */

/*
 * expr.h - integer expressions over task parameters.
 *
 * Shapes, cost formulas and init bounds in a task are written as small
 * expressions: integer literals, parameter names, + - * / % and
 * parentheses, with the usual precedence ("2*m*n*k", "(n+255)/256").
 * Evaluation is in int64 and fails on overflow, division by zero or an
 * unknown name; expressions longer than EXPR_MAX_LEN or nested deeper than
 * EXPR_MAX_DEPTH are refused (they come from files a user wrote).
 */
#ifndef ARENA_EXPR_H
#define ARENA_EXPR_H

#include <stdint.h>
#include "arena/util.h"

#define EXPR_MAX_LEN 256
#define EXPR_MAX_DEPTH 32

/* Parameter bindings: names[i] = values[i]. Borrowed. */
struct expr_env {
	const char *const *names;
	const int64_t *values;
	int n;
};

/* Evaluates text under env.  On error returns -EINVAL and a message such as
 * "unknown name 'k' in '2*m*k'". */
int expr_eval(const char *text, const struct expr_env *env, int64_t *out,
	      struct errbuf *err);

/* Checks text parses and names only identifiers in names[0..n); used when
 * validating a task before any case is known. */
int expr_check(const char *text, const char *const *names, int n,
	       struct errbuf *err);

#endif /* ARENA_EXPR_H */

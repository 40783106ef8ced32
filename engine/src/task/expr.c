/*
 * expr.c - integer expressions over task parameters (see arena/expr.h).
 *
 * A recursive-descent parser that evaluates while it parses; there is no
 * syntax tree to allocate or free.  The grammar, lowest precedence first:
 *
 *     expr    := term   (('+' | '-') term)*
 *     term    := unary  (('*' | '/' | '%') unary)*
 *     unary   := ('+' | '-') unary | primary
 *     primary := INTEGER | NAME | '(' expr ')'
 *
 * NAME is [A-Za-z_][A-Za-z0-9_]*, INTEGER is decimal digits; spaces and
 * tabs may separate tokens.  Arithmetic is int64 with C semantics
 * (division truncates toward zero) and every operation is checked with
 * __builtin_*_overflow, so no input can reach undefined behaviour.
 *
 * The same parser serves expr_check(): in that mode names are resolved
 * against a plain list and no arithmetic is done (parameter values are not
 * known yet, so "n/(n-1)" must not be rejected for dividing by zero).
 *
 * Hostile input is bounded before any work: the text is at most
 * EXPR_MAX_LEN bytes and recursion (parentheses and unary signs) is capped
 * at EXPR_MAX_DEPTH, so the C stack stays small.
 */
#include "arena/expr.h"

#include <errno.h>
#include <string.h>

struct expr_parser {
	const char *text;	/* the whole expression, for messages */
	const char *p;		/* next unread character */
	bool eval;		/* false: check names and syntax only */
	const char *const *names;
	const int64_t *values;	/* only when eval */
	int nnames;
	int depth;
	struct errbuf *err;
};

static int expr_parse_sum(struct expr_parser *ps, int64_t *out);

static bool expr_is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool expr_is_name_char(char c)
{
	return expr_is_name_start(c) || (c >= '0' && c <= '9');
}

static void expr_skip_space(struct expr_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static int expr_fail(struct expr_parser *ps, const char *what)
{
	return errf(ps->err, "%s in '%s'", what, ps->text);
}

/* Describes the character at the cursor for a syntax error. */
static int expr_fail_unexpected(struct expr_parser *ps, const char *expected)
{
	char c = *ps->p;
	long pos = (long)(ps->p - ps->text) + 1;

	if (c == '\0')
		return errf(ps->err, "expression ends where %s was expected "
			    "in '%s'", expected, ps->text);
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		return errf(ps->err, "unexpected byte 0x%02x at position %ld "
			    "(expected %s) in '%s'", (unsigned char)c, pos,
			    expected, ps->text);
	return errf(ps->err, "unexpected '%c' at position %ld (expected %s) "
		    "in '%s'", c, pos, expected, ps->text);
}

static int expr_enter(struct expr_parser *ps)
{
	if (++ps->depth > EXPR_MAX_DEPTH)
		return errf(ps->err, "expression nested deeper than %d levels "
			    "in '%s'", EXPR_MAX_DEPTH, ps->text);
	return 0;
}

static int expr_parse_number(struct expr_parser *ps, int64_t *out)
{
	int64_t v = 0;

	while (*ps->p >= '0' && *ps->p <= '9') {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *ps->p - '0', &v))
			return expr_fail(ps, "integer literal too large for "
					 "64 bits");
		ps->p++;
	}
	if (expr_is_name_start(*ps->p))
		return expr_fail_unexpected(ps, "an operator");
	*out = v;
	return 0;
}

static int expr_parse_name(struct expr_parser *ps, int64_t *out)
{
	const char *start = ps->p;
	size_t len;

	while (expr_is_name_char(*ps->p))
		ps->p++;
	len = (size_t)(ps->p - start);
	for (int i = 0; i < ps->nnames; i++) {
		const char *name = ps->names[i];
		if (name && strlen(name) == len && !memcmp(name, start, len)) {
			*out = ps->eval ? ps->values[i] : 0;
			return 0;
		}
	}
	return errf(ps->err, "unknown name '%.*s' in '%s'", (int)len, start,
		    ps->text);
}

static int expr_parse_primary(struct expr_parser *ps, int64_t *out)
{
	int rc;

	expr_skip_space(ps);
	if (*ps->p >= '0' && *ps->p <= '9')
		return expr_parse_number(ps, out);
	if (expr_is_name_start(*ps->p))
		return expr_parse_name(ps, out);
	if (*ps->p != '(')
		return expr_fail_unexpected(ps, "a number, a name or '('");
	ps->p++;
	if ((rc = expr_enter(ps)) != 0)
		return rc;
	if ((rc = expr_parse_sum(ps, out)) != 0)
		return rc;
	ps->depth--;
	expr_skip_space(ps);
	if (*ps->p != ')')
		return expr_fail_unexpected(ps, "')'");
	ps->p++;
	return 0;
}

static int expr_parse_unary(struct expr_parser *ps, int64_t *out)
{
	int rc;

	expr_skip_space(ps);
	if (*ps->p != '-' && *ps->p != '+')
		return expr_parse_primary(ps, out);

	char sign = *ps->p++;
	int64_t v = 0;

	if ((rc = expr_enter(ps)) != 0)
		return rc;
	if ((rc = expr_parse_unary(ps, &v)) != 0)
		return rc;
	ps->depth--;
	if (sign == '-' && ps->eval && __builtin_sub_overflow(0, v, &v))
		return expr_fail(ps, "overflow");
	*out = v;
	return 0;
}

/* Applies one binary operator with overflow and division checks. */
static int expr_apply(struct expr_parser *ps, char op, int64_t a, int64_t b,
		      int64_t *out)
{
	bool overflow = false;

	if (!ps->eval) {
		*out = 0;
		return 0;
	}
	switch (op) {
	case '+':
		overflow = __builtin_add_overflow(a, b, out);
		break;
	case '-':
		overflow = __builtin_sub_overflow(a, b, out);
		break;
	case '*':
		overflow = __builtin_mul_overflow(a, b, out);
		break;
	default:	/* '/' and '%' */
		if (b == 0)
			return expr_fail(ps, "division by zero");
		if (a == INT64_MIN && b == -1)
			return expr_fail(ps, "overflow");
		*out = op == '/' ? a / b : a % b;
		break;
	}
	return overflow ? expr_fail(ps, "overflow") : 0;
}

static int expr_parse_product(struct expr_parser *ps, int64_t *out)
{
	int64_t acc = 0, rhs = 0;
	int rc;

	if ((rc = expr_parse_unary(ps, &acc)) != 0)
		return rc;
	for (;;) {
		expr_skip_space(ps);
		char op = *ps->p;
		if (op != '*' && op != '/' && op != '%')
			break;
		ps->p++;
		if ((rc = expr_parse_unary(ps, &rhs)) != 0 ||
		    (rc = expr_apply(ps, op, acc, rhs, &acc)) != 0)
			return rc;
	}
	*out = acc;
	return 0;
}

static int expr_parse_sum(struct expr_parser *ps, int64_t *out)
{
	int64_t acc = 0, rhs = 0;
	int rc;

	if ((rc = expr_parse_product(ps, &acc)) != 0)
		return rc;
	for (;;) {
		expr_skip_space(ps);
		char op = *ps->p;
		if (op != '+' && op != '-')
			break;
		ps->p++;
		if ((rc = expr_parse_product(ps, &rhs)) != 0 ||
		    (rc = expr_apply(ps, op, acc, rhs, &acc)) != 0)
			return rc;
	}
	*out = acc;
	return 0;
}

/* Parses the whole text: length cap, one expression, nothing after it. */
static int expr_run(struct expr_parser *ps, int64_t *out)
{
	int rc;

	if (!ps->text)
		return errf(ps->err, "missing expression");
	if (strnlen(ps->text, EXPR_MAX_LEN + 1) > EXPR_MAX_LEN)
		return errf(ps->err, "expression '%.40s...' is longer than %d "
			    "characters", ps->text, EXPR_MAX_LEN);
	ps->p = ps->text;
	expr_skip_space(ps);
	if (*ps->p == '\0')
		return errf(ps->err, "empty expression");
	if ((rc = expr_parse_sum(ps, out)) != 0)
		return rc;
	expr_skip_space(ps);
	if (*ps->p != '\0')
		return expr_fail_unexpected(ps, "an operator");
	return 0;
}

int expr_eval(const char *text, const struct expr_env *env, int64_t *out,
	      struct errbuf *err)
{
	struct expr_parser ps = {
		.text = text,
		.eval = true,
		.names = env ? env->names : NULL,
		.values = env ? env->values : NULL,
		.nnames = env ? env->n : 0,
		.err = err,
	};
	int64_t v = 0;
	int rc = expr_run(&ps, &v);

	if (rc == 0)
		*out = v;
	return rc;
}

int expr_check(const char *text, const char *const *names, int n,
	       struct errbuf *err)
{
	struct expr_parser ps = {
		.text = text,
		.eval = false,
		.names = names,
		.nnames = names ? n : 0,
		.err = err,
	};
	int64_t ignored = 0;

	return expr_run(&ps, &ignored);
}

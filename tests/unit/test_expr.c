/*
 * test_expr.c - integer expressions over task parameters (arena/expr.h):
 * precedence, C division semantics, every rejection (overflow, division by
 * zero, unknown names, syntax, caps) and the check-only mode.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "arena/expr.h"

static const char *const names[] = { "m", "n", "k" };
static const int64_t values[] = { 3, 5, 7 };
static const struct expr_env env = { names, values, 3 };

static int64_t eval_ok(const char *text)
{
	struct errbuf err;
	int64_t v = -12345;

	errbuf_init(&err);
	int rc = expr_eval(text, &env, &v, &err);
	if (rc)
		fail_msg("'%s' failed: %s", text, errbuf_str(&err));
	return v;
}

/* Evaluates text, expects failure and returns the message. */
static const char *eval_err(const char *text, struct errbuf *err)
{
	int64_t v = 99;

	errbuf_init(err);
	assert_int_equal(expr_eval(text, &env, &v, err), -EINVAL);
	assert_int_equal(v, 99);	/* output untouched on failure */
	assert_true(err->set);
	return errbuf_str(err);
}

static void test_literal_evaluates_to_itself(void **state)
{
	assert_int_equal(eval_ok("4096"), 4096);
	assert_int_equal(eval_ok("0"), 0);
}

static void test_multiplication_binds_tighter_than_addition(void **state)
{
	assert_int_equal(eval_ok("1+2*3"), 7);
	assert_int_equal(eval_ok("2*3+1"), 7);
	assert_int_equal(eval_ok("10-2-3"), 5);	/* left associative */
}

static void test_parentheses_override_precedence(void **state)
{
	assert_int_equal(eval_ok("(1+2)*3"), 9);
	assert_int_equal(eval_ok("(n+255)/256"), 1);
}

static void test_division_and_modulo_truncate_toward_zero(void **state)
{
	assert_int_equal(eval_ok("7/2"), 3);
	assert_int_equal(eval_ok("-7/2"), -3);
	assert_int_equal(eval_ok("-7%2"), -1);
	assert_int_equal(eval_ok("k%m"), 1);
}

static void test_unary_signs_apply(void **state)
{
	assert_int_equal(eval_ok("-n"), -5);
	assert_int_equal(eval_ok("--n"), 5);
	assert_int_equal(eval_ok("+n"), 5);
	assert_int_equal(eval_ok("m*-2"), -6);
}

static void test_names_take_their_values_from_env(void **state)
{
	assert_int_equal(eval_ok("2*m*n*k"), 210);
}

static void test_spaces_and_tabs_between_tokens_are_ignored(void **state)
{
	assert_int_equal(eval_ok("  2 *\tm + ( n - 1 ) "), 10);
}

static void test_int64_extremes_evaluate_exactly(void **state)
{
	assert_true(eval_ok("9223372036854775807") == INT64_MAX);
	assert_true(eval_ok("-9223372036854775807-1") == INT64_MIN);
}

static void test_unknown_name_is_rejected_naming_it(void **state)
{
	struct errbuf err;

	assert_string_equal(eval_err("2*m*q", &err),
			    "unknown name 'q' in '2*m*q'");
}

static void test_names_are_matched_whole(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("nn", &err), "unknown name 'nn'"));
	assert_non_null(strstr(eval_err("m_", &err), "unknown name 'm_'"));
}

static void test_division_by_zero_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("n/(m-3)", &err), "division by zero"));
	assert_non_null(strstr(eval_err("n%0", &err), "division by zero"));
}

static void test_multiplication_overflow_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("4294967296*4294967296", &err),
			       "overflow"));
}

static void test_addition_and_subtraction_overflow_are_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("9223372036854775807+1", &err),
			       "overflow"));
	assert_non_null(strstr(eval_err("-9223372036854775807-2", &err),
			       "overflow"));
}

static void test_int64_min_divided_by_minus_one_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("(-9223372036854775807-1)/-1", &err),
			       "overflow"));
	assert_non_null(strstr(eval_err("(-9223372036854775807-1)%-1", &err),
			       "overflow"));
}

static void test_negating_int64_min_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("-(-9223372036854775807-1)", &err),
			       "overflow"));
}

static void test_literal_beyond_int64_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("9223372036854775808", &err),
			       "too large"));
}

static void test_empty_and_blank_expressions_are_rejected(void **state)
{
	struct errbuf err;

	assert_string_equal(eval_err("", &err), "empty expression");
	assert_string_equal(eval_err("   ", &err), "empty expression");
}

static void test_null_text_is_rejected(void **state)
{
	struct errbuf err;
	int64_t v;

	errbuf_init(&err);
	assert_int_equal(expr_eval(NULL, &env, &v, &err), -EINVAL);
	assert_int_equal(expr_check(NULL, names, 3, &err), -EINVAL);
}

static void test_trailing_garbage_is_rejected_with_position(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("n m", &err), "position 3"));
	assert_non_null(strstr(eval_err("4n", &err), "unexpected 'n'"));
	assert_non_null(strstr(eval_err("n#", &err), "unexpected '#'"));
}

static void test_unbalanced_parentheses_are_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("(n+1", &err), "')'"));
	assert_non_null(strstr(eval_err("n+1)", &err), "unexpected ')'"));
	assert_non_null(strstr(eval_err("()", &err), "unexpected ')'"));
}

static void test_missing_operand_is_rejected(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("n*", &err), "expression ends"));
	assert_non_null(strstr(eval_err("*n", &err), "unexpected '*'"));
}

static void test_control_bytes_are_reported_in_hex(void **state)
{
	struct errbuf err;

	assert_non_null(strstr(eval_err("n\x01", &err), "0x01"));
}

static void test_expression_longer_than_cap_is_rejected(void **state)
{
	char text[EXPR_MAX_LEN + 2];
	struct errbuf err;

	memset(text, '1', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	assert_non_null(strstr(eval_err(text, &err), "longer than 256"));
}

static void test_expression_at_length_cap_is_accepted(void **state)
{
	char text[EXPR_MAX_LEN + 1];

	memset(text, ' ', EXPR_MAX_LEN);
	text[EXPR_MAX_LEN] = '\0';
	text[EXPR_MAX_LEN - 1] = '7';
	assert_int_equal(eval_ok(text), 7);
}

static void test_nesting_deeper_than_cap_is_rejected(void **state)
{
	char text[2 * EXPR_MAX_DEPTH + 8];
	struct errbuf err;
	int depth = EXPR_MAX_DEPTH + 1, i;

	for (i = 0; i < depth; i++)
		text[i] = '(';
	text[i++] = '1';
	for (int j = 0; j < depth; j++)
		text[i++] = ')';
	text[i] = '\0';
	assert_non_null(strstr(eval_err(text, &err), "nested deeper"));
}

static void test_nesting_at_cap_is_accepted(void **state)
{
	char text[2 * EXPR_MAX_DEPTH + 8];
	int i;

	for (i = 0; i < EXPR_MAX_DEPTH; i++)
		text[i] = '(';
	text[i++] = '1';
	for (int j = 0; j < EXPR_MAX_DEPTH; j++)
		text[i++] = ')';
	text[i] = '\0';
	assert_int_equal(eval_ok(text), 1);
}

static void test_long_unary_chains_count_toward_depth(void **state)
{
	char text[EXPR_MAX_DEPTH + 8];
	struct errbuf err;

	memset(text, '-', EXPR_MAX_DEPTH + 1);
	memcpy(text + EXPR_MAX_DEPTH + 1, "1", 2);
	assert_non_null(strstr(eval_err(text, &err), "nested deeper"));
}

static void test_eval_without_env_accepts_only_literals(void **state)
{
	struct errbuf err;
	int64_t v = 0;

	errbuf_init(&err);
	assert_int_equal(expr_eval("6*7", NULL, &v, &err), 0);
	assert_int_equal(v, 42);
	assert_int_equal(expr_eval("n", NULL, &v, &err), -EINVAL);
}

static void test_check_accepts_known_names_without_values(void **state)
{
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(expr_check("2*m*n*k + (k%m)", names, 3, &err), 0);
}

static void test_check_does_not_evaluate_division(void **state)
{
	struct errbuf err;

	errbuf_init(&err);
	/* Zero only for some parameter values: not an error before a case. */
	assert_int_equal(expr_check("n/(n-5)", names, 3, &err), 0);
}

static void test_check_rejects_unknown_names_and_bad_syntax(void **state)
{
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(expr_check("m*q", names, 3, &err), -EINVAL);
	assert_string_equal(errbuf_str(&err), "unknown name 'q' in 'm*q'");
	assert_int_equal(expr_check("m**n", names, 3, &err), -EINVAL);
	assert_int_equal(expr_check("m", names, 0, &err), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literal_evaluates_to_itself),
		cmocka_unit_test(test_multiplication_binds_tighter_than_addition),
		cmocka_unit_test(test_parentheses_override_precedence),
		cmocka_unit_test(test_division_and_modulo_truncate_toward_zero),
		cmocka_unit_test(test_unary_signs_apply),
		cmocka_unit_test(test_names_take_their_values_from_env),
		cmocka_unit_test(test_spaces_and_tabs_between_tokens_are_ignored),
		cmocka_unit_test(test_int64_extremes_evaluate_exactly),
		cmocka_unit_test(test_unknown_name_is_rejected_naming_it),
		cmocka_unit_test(test_names_are_matched_whole),
		cmocka_unit_test(test_division_by_zero_is_rejected),
		cmocka_unit_test(test_multiplication_overflow_is_rejected),
		cmocka_unit_test(test_addition_and_subtraction_overflow_are_rejected),
		cmocka_unit_test(test_int64_min_divided_by_minus_one_is_rejected),
		cmocka_unit_test(test_negating_int64_min_is_rejected),
		cmocka_unit_test(test_literal_beyond_int64_is_rejected),
		cmocka_unit_test(test_empty_and_blank_expressions_are_rejected),
		cmocka_unit_test(test_null_text_is_rejected),
		cmocka_unit_test(test_trailing_garbage_is_rejected_with_position),
		cmocka_unit_test(test_unbalanced_parentheses_are_rejected),
		cmocka_unit_test(test_missing_operand_is_rejected),
		cmocka_unit_test(test_control_bytes_are_reported_in_hex),
		cmocka_unit_test(test_expression_longer_than_cap_is_rejected),
		cmocka_unit_test(test_expression_at_length_cap_is_accepted),
		cmocka_unit_test(test_nesting_deeper_than_cap_is_rejected),
		cmocka_unit_test(test_nesting_at_cap_is_accepted),
		cmocka_unit_test(test_long_unary_chains_count_toward_depth),
		cmocka_unit_test(test_eval_without_env_accepts_only_literals),
		cmocka_unit_test(test_check_accepts_known_names_without_values),
		cmocka_unit_test(test_check_does_not_evaluate_division),
		cmocka_unit_test(test_check_rejects_unknown_names_and_bad_syntax),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

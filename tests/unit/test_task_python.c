/*
 * test_task_python.c - what the arena/1 schema adds for Python-language
 * tasks (docs/tasks.md, docs/python.md): the python and triton languages,
 * the entry a module exposes, Python references and their entry,
 * per-dtype tolerances, forbid_library_calls and allowed_calls, and the
 * rules on module file names.  Parsing only (task_parse without a
 * directory): what the evaluator does with them is test_python_eval.c's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/task.h"
#include "arena/util.h"

static const char *const py_cfg =
	"schema: arena/1\n"
	"description: RMSNorm in Triton.\n"
	"language: triton\n"
	"editable: [kernel.py]\n"
	"reference: {file: reference.py, language: python}\n"
	"signature:\n"
	"  params: [rows, cols]\n"
	"  args:\n"
	"    - {name: x, dtype: bf16, shape: [rows, cols], io: in}\n"
	"    - {name: w, dtype: f32, shape: [cols], io: in}\n"
	"    - {name: y, dtype: bf16, shape: [rows, cols], io: out}\n"
	"    - {name: s, dtype: f32, shape: [rows], io: out}\n"
	"cases:\n"
	"  - {id: small, rows: 64, cols: 128}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5, bf16: {atol: 1e-2, rtol: 2e-2}}\n"
	"tunables: {BLOCK: [128, 256]}\n";

static char *with(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	if (!at)
		fail_msg("fixture does not contain '%s'", from);
	return xasprintf("%.*s%s%s", (int)(at - text), text, to,
			 at + strlen(from));
}

static int parse(const char *cfg, struct task **t, struct errbuf *err)
{
	errbuf_init(err);
	return task_parse("triton2triton/rmsnorm", NULL, cfg, strlen(cfg), NULL,
			  0, t, err);
}

static struct task *parse_variant(const char *from, const char *to)
{
	char *cfg = with(py_cfg, from, to);
	struct errbuf err;
	struct task *t = NULL;

	if (parse(cfg, &t, &err))
		fail_msg("parse failed: %s", errbuf_str(&err));
	free(cfg);
	return t;
}

static void expect_err(const char *from, const char *to, const char *needle)
{
	char *cfg = with(py_cfg, from, to);
	struct errbuf err;
	struct task *t = NULL;

	assert_int_not_equal(parse(cfg, &t, &err), 0);
	assert_null(t);
	if (!strstr(errbuf_str(&err), needle))
		fail_msg("error '%s' lacks '%s'", errbuf_str(&err), needle);
	free(cfg);
}

static void test_triton_task_with_python_reference_parses(void **s)
{
	struct task *t = parse_variant("", "");

	(void)s;
	assert_int_equal(t->language, LANG_TRITON);
	assert_true(language_is_python(t->language));
	assert_int_equal(t->reference_language, LANG_PYTHON);
	assert_string_equal(t->entry, "launch");
	assert_string_equal(t->reference_entry, "launch");
	assert_false(t->forbid_library_calls);
	task_free(t);
}

static void test_python_language_parses_with_the_launch_entry(void **s)
{
	struct task *t = parse_variant("language: triton", "language: python");

	(void)s;
	assert_int_equal(t->language, LANG_PYTHON);
	assert_string_equal(t->entry, "launch");
	task_free(t);
}

static void test_a_dtype_tolerance_applies_to_its_outputs_only(void **s)
{
	struct task *t = parse_variant("", "");
	double atol, rtol;

	(void)s;
	assert_int_equal(t->args[2].dtype, ARENA_BF16);
	task_tolerance(t, &t->args[2], &atol, &rtol);
	assert_true(atol == 1e-2 && rtol == 2e-2);
	task_tolerance(t, &t->args[3], &atol, &rtol);
	assert_true(atol == 1e-5 && rtol == 1e-5);
	task_free(t);
}

static void test_an_unknown_tolerance_key_names_the_dtypes(void **s)
{
	(void)s;
	expect_err("bf16: {atol", "bfloat: {atol",
		   "unknown key 'bfloat'; give "
		   "atol, rtol, or a dtype (f32, f64, f16, bf16");
	expect_err("bf16: {atol: 1e-2, rtol: 2e-2}", "bf16: {}",
		   "tolerance.bf16 is empty");
	expect_err("bf16: {atol: 1e-2, rtol: 2e-2}",
		   "bf16: {atol: 1e-2, "
		   "btol: 1}",
		   "btol");
}

static void
test_a_compiled_reference_of_a_python_task_gets_arena_launch(void **s)
{
	struct task *t = parse_variant("{file: reference.py, language: python}",
				       "{file: reference.c, language: c}");

	(void)s;
	assert_int_equal(t->reference_language, LANG_C);
	assert_string_equal(t->reference_entry, "arena_launch");
	task_free(t);
}

static void test_a_python_reference_of_a_cuda_task_gets_launch(void **s)
{
	char *cfg = with(py_cfg, "language: triton", "language: cuda");
	char *cfg2 =
		with(cfg, "editable: [kernel.py]", "editable: [kernel.cu]");
	struct errbuf err;
	struct task *t = NULL;

	(void)s;
	if (parse(cfg2, &t, &err))
		fail_msg("parse failed: %s", errbuf_str(&err));
	assert_string_equal(t->entry, "arena_launch");
	assert_string_equal(t->reference_entry, "launch");
	task_free(t);
	free(cfg);
	free(cfg2);
}

static void test_reference_entry_can_be_named(void **s)
{
	struct task *t = parse_variant("{file: reference.py, language: python}",
				       "{file: reference.py, language: python, "
				       "entry: ref}");

	(void)s;
	assert_string_equal(t->reference_entry, "ref");
	task_free(t);
}

static void test_a_triton_reference_is_refused(void **s)
{
	(void)s;
	expect_err("language: python}", "language: triton}",
		   "a reference is trusted code and runs as plain PyTorch");
}

static void test_python_editable_files_must_be_modules(void **s)
{
	(void)s;
	expect_err("editable: [kernel.py]", "editable: [kernel.c]",
		   "must be a Python module named <name>.py");
	expect_err("editable: [kernel.py]", "editable: [my-kernel.py]",
		   "module name 'my-kernel' must be a Python identifier");
	expect_err("editable: [kernel.py]", "editable: [torch.py]",
		   "would shadow the module 'torch'");
}

static void test_forbid_library_calls_with_allowed_calls_parses(void **s)
{
	struct task *t = parse_variant("tunables:",
				       "forbid_library_calls: "
				       "true\nallowed_calls: [torch.matmul, "
				       "Tensor.sum]\ntunables:");

	(void)s;
	assert_true(t->forbid_library_calls);
	assert_int_equal(t->allowed_calls.n, 2);
	assert_string_equal(t->allowed_calls.v[1], "Tensor.sum");
	task_free(t);
}

static void test_allowed_calls_without_the_rule_are_refused(void **s)
{
	(void)s;
	expect_err("tunables:", "allowed_calls: [torch.matmul]\ntunables:",
		   "allowed_calls without forbid_library_calls: true");
	expect_err("tunables:",
		   "forbid_library_calls: true\nallowed_calls: "
		   "[torch..matmul]\ntunables:",
		   "must be a dotted name");
	expect_err("tunables:", "forbid_library_calls: maybe\ntunables:",
		   "forbid_library_calls must be true or false");
}

static void test_forbid_library_calls_on_a_c_task_is_refused(void **s)
{
	char *cfg = with(py_cfg, "language: triton", "language: cuda");
	char *cfg2 =
		with(cfg, "editable: [kernel.py]", "editable: [kernel.cu]");
	char *cfg3 = with(cfg2, "tunables:",
			  "forbid_library_calls: true\n"
			  "tunables:");
	struct errbuf err;
	struct task *t = NULL;

	(void)s;
	assert_int_not_equal(parse(cfg3, &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "applies to python and "
						 "triton tasks only"));
	free(cfg);
	free(cfg2);
	free(cfg3);
}

static void test_task_md_describes_the_python_contract(void **s)
{
	struct task *t = parse_variant("tunables:",
				       "forbid_library_calls: "
				       "true\nallowed_calls: [torch.matmul]\n"
				       "tunables:");
	char *md = task_doc_render(t);

	(void)s;
	assert_non_null(strstr(md, "must define `launch(args, params)`"));
	assert_non_null(strstr(md, "No library kernels"));
	assert_non_null(strstr(md, "`torch.matmul`"));
	assert_non_null(strstr(md, "Outputs of dtype bf16 are held to"));
	assert_non_null(strstr(md, "Module-level constants"));
	assert_null(strstr(md, "#ifndef"));
	free(md);
	task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_triton_task_with_python_reference_parses),
		cmocka_unit_test(
			test_python_language_parses_with_the_launch_entry),
		cmocka_unit_test(
			test_a_dtype_tolerance_applies_to_its_outputs_only),
		cmocka_unit_test(
			test_an_unknown_tolerance_key_names_the_dtypes),
		cmocka_unit_test(
			test_a_compiled_reference_of_a_python_task_gets_arena_launch),
		cmocka_unit_test(
			test_a_python_reference_of_a_cuda_task_gets_launch),
		cmocka_unit_test(test_reference_entry_can_be_named),
		cmocka_unit_test(test_a_triton_reference_is_refused),
		cmocka_unit_test(test_python_editable_files_must_be_modules),
		cmocka_unit_test(
			test_forbid_library_calls_with_allowed_calls_parses),
		cmocka_unit_test(
			test_allowed_calls_without_the_rule_are_refused),
		cmocka_unit_test(
			test_forbid_library_calls_on_a_c_task_is_refused),
		cmocka_unit_test(test_task_md_describes_the_python_contract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_task.c - the arena/1 task parser (arena/task.h): every validation
 * rule of docs/tasks.md, the messages it gives, shape and cost evaluation,
 * task_load on real directories (built under a mkdtemp root, never the
 * repository's tasks/ except the one skipped-if-absent test at the end),
 * the selector walk and the default tasks root.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "arena/task.h"

/* A valid task; tests derive broken variants by replacing one piece. */
static const char base_cfg[] =
	"schema: arena/1\n"
	"description: Matrix multiply.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [m, n, k]\n"
	"  args:\n"
	"    - {name: a, dtype: f32, shape: [m, k], io: in}\n"
	"    - {name: b, dtype: f32, shape: [k, n], io: in, "
	"init: {dist: uniform, low: -2, high: 2}}\n"
	"    - {name: c, dtype: f32, shape: [m, n], io: out}\n"
	"cases:\n"
	"  - {id: small, m: 64, n: 64, k: 64}\n"
	"  - {id: large, m: 1024, n: 512, k: 256}\n"
	"tolerance: {atol: 1e-4, rtol: 1e-3}\n"
	"cost: {bytes: \"4*(m*k+k*n+m*n)\", flops: \"2*m*n*k\"}\n"
	"tunables: {BLOCK: [32, 64], VARIANT: [tiled, naive]}\n";

static char *fixture_root;	/* mkdtemp directory of this run */

/* ---- helpers ----------------------------------------------------------- */

/* text with the first occurrence of from replaced by to (caller frees). */
static char *with(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);

	if (!at)
		fail_msg("fixture does not contain '%s'", from);
	return xasprintf("%.*s%s%s", (int)(at - text), text, to,
			 at + strlen(from));
}

static int parse(const char *cfg, const char *held, struct task **t,
		 struct errbuf *err)
{
	errbuf_init(err);
	return task_parse("c2c/gemm", NULL, cfg, strlen(cfg), held,
			  held ? strlen(held) : 0, t, err);
}

static struct task *parse_ok(const char *cfg, const char *held)
{
	struct errbuf err;
	struct task *t = NULL;

	if (parse(cfg, held, &t, &err))
		fail_msg("parse failed: %s", errbuf_str(&err));
	assert_non_null(t);
	return t;
}

/* Parses base_cfg with from -> to and expects an error containing each
 * of the needles (NULL-terminated). */
static void expect_variant_err(const char *from, const char *to, ...)
{
	char *cfg = with(base_cfg, from, to);
	struct errbuf err;
	struct task *t = (struct task *)1;
	const char *needle;
	va_list ap;

	assert_int_not_equal(parse(cfg, NULL, &t, &err), 0);
	assert_null(t);
	va_start(ap, to);
	while ((needle = va_arg(ap, const char *)) != NULL)
		if (!strstr(errbuf_str(&err), needle))
			fail_msg("error '%s' lacks '%s'", errbuf_str(&err),
				 needle);
	va_end(ap);
	free(cfg);
}

static void expect_cfg_err(const char *cfg, const char *held,
			   const char *needle)
{
	struct errbuf err;
	struct task *t = NULL;

	assert_int_not_equal(parse(cfg, held, &t, &err), 0);
	assert_null(t);
	if (!strstr(errbuf_str(&err), needle))
		fail_msg("error '%s' lacks '%s'", errbuf_str(&err), needle);
}

static void write_file(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel);
	char *parent = xstrdup(path);
	struct errbuf err;

	*strrchr(parent, '/') = '\0';
	errbuf_init(&err);
	assert_int_equal(mkdir_p(parent, &err), 0);
	assert_int_equal(file_write_atomic_str(path, text, &err), 0);
	free(parent);
	free(path);
}

/* A task directory <fixture_root>/<root>/<id> with config and sources. */
static char *make_task(const char *root, const char *id, const char *cfg)
{
	char *tasks = path_join(fixture_root, root);
	char *dir = path_join(tasks, id);

	write_file(dir, "config.yaml", cfg);
	write_file(dir, "kernel.c", "/* baseline */\n");
	write_file(dir, "reference.c", "/* reference */\n");
	free(dir);
	return tasks;
}

static int load(const char *root, const char *id, struct task **t,
		struct errbuf *err)
{
	errbuf_init(err);
	return task_load(root, id, t, err);
}

static int group_setup(void **state)
{
	char tmpl[] = "/tmp/arena-test-task-XXXXXX";

	if (!mkdtemp(tmpl))
		return -1;
	fixture_root = xstrdup(tmpl);
	return 0;
}

static int group_teardown(void **state)
{
	rm_rf(fixture_root);
	free(fixture_root);
	return 0;
}


/* ---- baseline.files ----------------------------------------------------- */

static void test_unimplemented_task_needs_a_baseline(void **state)
{
	expect_variant_err("editable: [kernel.c]\n",
			   "initial_state: unimplemented\neditable: [kernel.c]\n",
			   "unimplemented task needs 'baseline: {files:", NULL);
}

static void test_baseline_files_map_onto_editable(void **state)
{
	char *cfg = with(base_cfg, "reference: {file: reference.c}\n",
			 "reference: {file: reference.c}\n"
			 "baseline: {files: [baseline.c]}\n");
	char *cfg2 = with(cfg, "editable: [kernel.c]\n",
			  "initial_state: unimplemented\neditable: [kernel.c]\n");
	struct task *t = parse_ok(cfg2, NULL);

	assert_int_equal(t->baseline_files.n, 1);
	assert_string_equal(t->baseline_files.v[0], "baseline.c");
	assert_int_equal(t->initial_state, TASK_UNIMPLEMENTED);
	task_free(t);
	free(cfg2);
	free(cfg);
}

static void test_baseline_files_count_must_match_editable(void **state)
{
	expect_variant_err("reference: {file: reference.c}\n",
			   "reference: {file: reference.c}\n"
			   "baseline: {files: [a.c, b.c]}\n",
			   "baseline.files lists 2 file(s) but editable lists 1",
			   NULL);
}

static void test_baseline_file_cannot_be_editable(void **state)
{
	expect_variant_err("reference: {file: reference.c}\n",
			   "reference: {file: reference.c}\n"
			   "baseline: {files: [kernel.c]}\n",
			   "is editable", NULL);
}

static void test_missing_baseline_file_is_reported_on_load(void **state)
{
	char *cfg = with(base_cfg, "reference: {file: reference.c}\n",
			 "reference: {file: reference.c}\n"
			 "baseline: {files: [nothere.c]}\n");
	char *root = make_task("bl", "x/missing_baseline", cfg);
	struct task *t = NULL;
	struct errbuf err;

	assert_int_not_equal(load(root, "x/missing_baseline", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "baseline.files[0] 'nothere.c' "
			       "does not exist"));
	free(root);
	free(cfg);
}

/* ---- a valid task ------------------------------------------------------- */

static void test_valid_task_parses_every_field(void **state)
{
	struct task *t = parse_ok(base_cfg, NULL);

	assert_string_equal(t->id, "c2c/gemm");
	assert_string_equal(t->family, "c2c");
	assert_string_equal(t->name, "gemm");
	assert_null(t->dir);
	assert_string_equal(t->description, "Matrix multiply.");
	assert_int_equal(t->language, LANG_C);
	assert_int_equal(t->editable.n, 1);
	assert_string_equal(t->editable.v[0], "kernel.c");
	assert_string_equal(t->reference_file, "reference.c");
	assert_int_equal(t->nparams, 3);
	assert_string_equal(t->params[2], "k");
	assert_int_equal(t->nargs, 3);
	assert_int_equal(t->args[1].dtype, ARENA_F32);
	assert_int_equal(t->args[1].rank, 2);
	assert_string_equal(t->args[1].shape[0], "k");
	assert_int_equal(t->args[1].init.dist, INIT_UNIFORM);
	assert_true(t->args[1].init.a == -2 && t->args[1].init.b == 2);
	assert_int_equal(t->args[2].io, IO_OUT);
	assert_int_equal(t->ncases, 2);
	assert_int_equal(t->nvisible, 2);
	assert_string_equal(t->cases[1].id, "large");
	assert_int_equal(t->cases[1].params[0], 1024);
	assert_int_equal(t->cases[1].params[2], 256);
	assert_false(t->cases[1].held_out);
	assert_true(t->atol == 1e-4 && t->rtol == 1e-3);
	assert_string_equal(t->cost_flops, "2*m*n*k");
	assert_int_equal(t->ntunables, 2);
	assert_string_equal(t->tunables[1].name, "VARIANT");
	assert_string_equal(t->tunables[1].values[0], "tiled");
	assert_int_equal(strlen(t->config_sha256), 64);
	task_free(t);
}

static void test_defaults_fill_entry_state_and_float_init(void **state)
{
	struct task *t = parse_ok(base_cfg, NULL);

	assert_string_equal(t->entry, "arena_launch");
	assert_int_equal(t->initial_state, TASK_IMPLEMENTED);
	assert_int_equal(t->reference_language, LANG_C);
	assert_null(t->readme);
	assert_int_equal(t->compile_flags.n, 0);
	assert_int_equal(t->args[0].init.dist, INIT_NORMAL);
	assert_true(t->args[0].init.a == 0 && t->args[0].init.b == 1);
	task_free(t);
}

static void test_optional_keys_are_parsed(void **state)
{
	char *cfg = xasprintf("%sentry: my_gemm\ninitial_state: unimplemented\n"
			      "compile_flags: [-O3, -ffast-math]\n"
			      "readme: NOTES.md\nheld_out: hidden.yaml\n"
			      "baseline: {files: [base/kernel.c]}\n",
			      base_cfg);
	char *cfg2 = with(cfg, "{file: reference.c}",
			  "{file: ref/reference.hip, language: hip}");
	struct task *t = parse_ok(cfg2, NULL);

	assert_string_equal(t->entry, "my_gemm");
	assert_int_equal(t->initial_state, TASK_UNIMPLEMENTED);
	assert_int_equal(t->compile_flags.n, 2);
	assert_string_equal(t->compile_flags.v[1], "-ffast-math");
	assert_string_equal(t->readme, "NOTES.md");
	assert_string_equal(t->reference_file, "ref/reference.hip");
	assert_int_equal(t->reference_language, LANG_HIP);
	task_free(t);
	free(cfg);
	free(cfg2);
}

static void test_integer_input_defaults_to_randint_0_to_100(void **state)
{
	char *cfg = with(base_cfg, "{name: a, dtype: f32,",
			 "{name: a, dtype: i32,");
	struct task *t = parse_ok(cfg, NULL);

	assert_int_equal(t->args[0].init.dist, INIT_RANDINT);
	assert_string_equal(t->args[0].init.lo_expr, "0");
	assert_string_equal(t->args[0].init.hi_expr, "100");
	task_free(t);
	free(cfg);
}

static void test_init_forms_scalar_and_map_are_accepted(void **state)
{
	char *c1 = with(base_cfg, "shape: [m, k], io: in}",
			"shape: [m, k], io: inout, init: ones}");
	char *c2 = with(c1, "init: {dist: uniform, low: -2, high: 2}",
			"init: {dist: normal, mean: 1.5, std: 0.25}");
	struct task *t = parse_ok(c2, NULL);

	assert_int_equal(t->args[0].io, IO_INOUT);
	assert_int_equal(t->args[0].init.dist, INIT_ONES);
	assert_int_equal(t->args[1].init.dist, INIT_NORMAL);
	assert_true(t->args[1].init.a == 1.5 && t->args[1].init.b == 0.25);
	task_free(t);
	free(c1);
	free(c2);
}

static void test_randint_bounds_are_expressions_over_params(void **state)
{
	char *cfg = with(base_cfg, "{name: a, dtype: f32, shape: [m, k], io: in}",
			 "{name: a, dtype: i32, shape: [m, k], io: in, init: "
			 "{dist: randint, low: 0, high: \"k-1\"}}");
	struct task *t = parse_ok(cfg, NULL);

	assert_string_equal(t->args[0].init.hi_expr, "k-1");
	task_free(t);
	free(cfg);
}

static void test_scalar_argument_has_rank_zero_and_one_element(void **state)
{
	char *cfg = with(base_cfg, "shape: [m, k], io: in}",
			 "shape: [], io: in}");
	struct task *t = parse_ok(cfg, NULL);
	struct errbuf err;
	int64_t numel = 0;

	errbuf_init(&err);
	assert_int_equal(t->args[0].rank, 0);
	assert_int_equal(task_arg_numel(t, 0, &t->cases[0], &numel, &err), 0);
	assert_int_equal(numel, 1);
	task_free(t);
	free(cfg);
}

static void test_integer_outputs_need_no_tolerance(void **state)
{
	char *c1 = with(base_cfg, "{name: c, dtype: f32,",
			"{name: c, dtype: i64,");
	char *c2 = with(c1, "tolerance: {atol: 1e-4, rtol: 1e-3}\n", "");
	struct task *t = parse_ok(c2, NULL);

	assert_true(t->atol == 0 && t->rtol == 0);
	task_free(t);
	free(c1);
	free(c2);
}

static void test_tolerance_key_left_out_defaults_to_zero(void **state)
{
	char *cfg = with(base_cfg, "{atol: 1e-4, rtol: 1e-3}", "{rtol: 0.5}");
	struct task *t = parse_ok(cfg, NULL);

	assert_true(t->atol == 0 && t->rtol == 0.5);
	task_free(t);
	free(cfg);
}

static void test_an_outputs_own_tolerance_replaces_the_tasks_for_it(void **s)
{
	char *c1 = with(base_cfg,
			"{name: c, dtype: f32, shape: [m, n], io: out}",
			"{name: c, dtype: f32, shape: [m, n], io: out, "
			"tolerance: {rtol: 2e-6}}\n"
			"    - {name: d, dtype: f32, shape: [m], io: out}");
	struct task *t = parse_ok(c1, NULL);
	double atol, rtol;

	(void)s;
	task_tolerance(t, &t->args[2], &atol, &rtol);
	assert_true(atol == 0 && rtol == 2e-6);
	/* The output without one keeps the task's. */
	task_tolerance(t, &t->args[3], &atol, &rtol);
	assert_true(atol == 1e-4 && rtol == 1e-3);
	/* TASK.md tells the agent. */
	char *md = task_doc_render(t);
	assert_non_null(strstr(md, "Output `c` is held to `0 + 2e-06 * "
				   "|reference|` instead"));
	assert_null(strstr(md, "Output `d` is held"));
	free(md);
	task_free(t);
	free(c1);
}

/* With every floating-point output held to its own tolerance, TASK.md
 * states no task-level one (it would read "0 + 0"). */
static void test_task_doc_names_no_task_tolerance_when_none_applies(void **s)
{
	char *c1 = with(base_cfg,
			"{name: c, dtype: f32, shape: [m, n], io: out}",
			"{name: c, dtype: f32, shape: [m, n], io: out, "
			"tolerance: {rtol: 2e-6}}");
	char *c2 = with(c1, "tolerance: {atol: 1e-4, rtol: 1e-3}\n", "");
	struct task *t = parse_ok(c2, NULL);
	char *md = task_doc_render(t);

	(void)s;
	assert_non_null(strstr(md, "satisfy its tolerance below"));
	assert_null(strstr(md, "<= 0 + 0 *"));
	assert_non_null(strstr(md, "Output `c` is held to"));
	free(md);
	task_free(t);
	free(c1);
	free(c2);
}

static void test_an_outputs_tolerance_beats_its_dtypes(void **s)
{
	char *c1 = with(base_cfg,
			"{name: c, dtype: f32, shape: [m, n], io: out}",
			"{name: c, dtype: bf16, shape: [m, n], io: out, "
			"tolerance: {atol: 0, rtol: 4e-3}}\n"
			"    - {name: d, dtype: bf16, shape: [m], io: out}");
	char *c2 =
		with(c1, "tolerance: {atol: 1e-4, rtol: 1e-3}",
		     "tolerance: {atol: 1e-4, rtol: 1e-3, bf16: {rtol: 1e-2}}");
	struct task *t = parse_ok(c2, NULL);
	double atol, rtol;

	(void)s;
	task_tolerance(t, &t->args[2], &atol, &rtol);
	assert_true(atol == 0 && rtol == 4e-3);
	task_tolerance(t, &t->args[3], &atol, &rtol);
	assert_true(atol == 0 && rtol == 1e-2);
	task_free(t);
	free(c1);
	free(c2);
}

static void test_outputs_with_their_own_tolerance_need_no_tasks(void **s)
{
	char *c1 = with(base_cfg, "shape: [m, n], io: out}",
			"shape: [m, n], io: out, tolerance: {atol: 1e-6}}");
	char *c2 = with(c1, "tolerance: {atol: 1e-4, rtol: 1e-3}\n", "");
	struct task *t = parse_ok(c2, NULL);
	double atol, rtol;

	(void)s;
	task_tolerance(t, &t->args[2], &atol, &rtol);
	assert_true(atol == 1e-6 && rtol == 0);
	task_free(t);
	free(c1);
	free(c2);
}

/* ---- rejections: structure and keys ------------------------------------ */

/* ---- reference.split ---------------------------------------------------- */

static void test_reference_split_names_the_param_and_the_cut_arguments(
	void **state)
{
	char *cfg = with(base_cfg, "reference: {file: reference.c}",
			 "reference: {file: reference.c, split: m}");
	struct task *t = parse_ok(cfg, NULL);

	assert_true(t->reference_split);
	assert_int_equal(t->reference_split_param, 0);
	/* a [m, k] and c [m, n] are cut; b [k, n] is passed whole. */
	assert_int_equal(t->reference_split_args, 0x5);
	task_free(t);
	free(cfg);
}

static void test_reference_split_must_be_a_param(void **state)
{
	expect_variant_err("reference: {file: reference.c}",
			   "reference: {file: reference.c, split: rows}",
			   "reference.split 'rows' is not one of "
			   "signature.params", NULL);
}

static void test_reference_split_only_as_a_whole_first_dimension(void **s)
{
	expect_variant_err("reference: {file: reference.c}",
			   "reference: {file: reference.c, split: k}",
			   "reference.split 'k': argument 'a' uses it in "
			   "dimension 2", "remove split", NULL);
}

static void test_reference_split_needs_every_output_cut(void **state)
{
	char *cfg = with(base_cfg, "reference: {file: reference.c}",
			 "reference: {file: reference.c, split: m}");
	char *cfg2 = with(cfg, "shape: [m, n], io: out", "shape: [n], io: out");

	expect_cfg_err(cfg2, NULL,
		       "output 'c' does not have it as its first dimension");
	free(cfg2);
	free(cfg);
}

static void test_reference_split_refuses_values_drawn_up_to_it(void **s)
{
	char *cfg = with(base_cfg, "reference: {file: reference.c}",
			 "reference: {file: reference.c, split: m}");
	char *cfg2 = with(cfg, "{name: a, dtype: f32, shape: [m, k], io: in}",
			  "{name: a, dtype: i32, shape: [m, k], io: in, "
			  "init: {dist: randint, low: 0, high: m - 1}}");

	expect_cfg_err(cfg2, NULL,
		       "argument 'a' draws its values with a bound that uses "
		       "it ('m - 1')");
	free(cfg2);
	free(cfg);
}

static void test_reference_split_applies_to_a_c_reference_only(void **s)
{
	expect_variant_err("reference: {file: reference.c}",
			   "reference: {file: reference.py, language: python, "
			   "split: m}",
			   "reference.split applies to a C reference", NULL);
}

static void test_missing_schema_is_rejected(void **state)
{
	expect_variant_err("schema: arena/1\n", "",
			   "missing required key 'schema'", NULL);
}

static void test_other_schema_is_rejected(void **state)
{
	expect_variant_err("arena/1", "arena/2",
			   "schema must be 'arena/1', not 'arena/2'", NULL);
}

/* A config with schema_version is AgentKernelArena's (docs/aka.md), read
 * strictly by AKA's schema 2: arena's own keys are unknown there. */
static void test_aka_schema_version_task_is_named_as_such(void **state)
{
	expect_variant_err("schema: arena/1", "schema_version: 2",
			   "unknown top-level key 'language'; allowed keys are "
			   "schema_version, description, instructions",
			   NULL);
}

static void test_unknown_top_level_key_is_rejected_listing_allowed(void **s)
{
	expect_variant_err("language: c\n", "language: c\ncolour: red\n",
			   "c2c/gemm/config.yaml:4: unknown top-level key "
			   "'colour'; allowed keys are schema, description",
			   NULL);
}

static void test_unknown_key_in_arg_is_rejected_naming_the_arg(void **state)
{
	expect_variant_err("{name: c, dtype: f32,",
			   "{name: c, stride: 2, dtype: f32,",
			   "signature.args[2]: unknown key 'stride'", NULL);
}

static void test_config_that_is_not_a_map_is_rejected(void **state)
{
	expect_cfg_err("- a\n- b\n", NULL, "must be a map of keys, not a list");
}

static void test_empty_config_is_rejected(void **state)
{
	expect_cfg_err("", NULL, "must be a map of keys, not empty");
	expect_cfg_err("# only a comment\n", NULL, "not empty");
}

static void test_yaml_syntax_error_names_file_and_line(void **state)
{
	expect_variant_err("cases:\n", "cases: [\n",
			   "c2c/gemm/config.yaml:", "YAML syntax error", NULL);
}

static void test_duplicate_yaml_keys_are_rejected_with_both_lines(void **s)
{
	expect_variant_err("language: c\n", "language: c\nlanguage: hip\n",
			   "config.yaml:4: duplicate key 'language' (first "
			   "given on line 3)", NULL);
}

static void test_yaml_anchors_and_aliases_are_rejected(void **state)
{
	expect_variant_err("description: Matrix multiply.",
			   "description: &d Matrix multiply.",
			   "anchors (&d) are not supported", NULL);
	expect_cfg_err("a: *x\n", NULL, "aliases (*x) are not supported");
}

static void test_yaml_tags_are_rejected(void **state)
{
	expect_variant_err("language: c", "language: !!str c",
			   "tags (tag:yaml.org,2002:str) are not supported",
			   NULL);
}

static void test_yaml_nested_too_deep_is_rejected(void **state)
{
	char deep[128];

	memset(deep, '[', 40);
	deep[40] = '\0';
	char *cfg = xasprintf("schema: %s\n", deep);
	expect_cfg_err(cfg, NULL, "nested deeper than 32 levels");
	free(cfg);
}

static void test_second_yaml_document_is_rejected(void **state)
{
	char *cfg = xasprintf("%s---\nschema: arena/1\n", base_cfg);

	expect_cfg_err(cfg, NULL, "more than one YAML document");
	free(cfg);
}

static void test_description_must_be_text(void **state)
{
	expect_variant_err("description: Matrix multiply.", "description: []",
			   "description must be a non-empty string, not a "
			   "list", NULL);
}

static void test_unknown_language_is_rejected_listing_languages(void **s)
{
	expect_variant_err("language: c", "language: fortran",
			   "language must be one of c, hip, cuda, python, "
			   "triton, not 'fortran'",
			   NULL);
}

static void test_bad_initial_state_is_rejected(void **state)
{
	expect_variant_err("language: c\n", "language: c\ninitial_state: "
			   "done\n", "initial_state must be implemented or "
			   "unimplemented", NULL);
}

static void test_entry_must_be_a_c_identifier(void **state)
{
	expect_variant_err("language: c\n", "language: c\nentry: 9lives\n",
			   "entry must be an identifier (the symbol", NULL);
}

/* ---- rejections: files and paths --------------------------------------- */

static void test_editable_as_a_string_is_rejected_with_list_hint(void **s)
{
	expect_variant_err("editable: [kernel.c]", "editable: kernel.c",
			   "editable must be a list, not a string; write "
			   "editable: [kernel.c]", NULL);
}

static void test_unsafe_editable_paths_are_rejected(void **state)
{
	expect_variant_err("[kernel.c]", "[../kernel.c]",
			   "editable[0] '../kernel.c' must be a relative path "
			   "inside the task directory", NULL);
	expect_variant_err("[kernel.c]", "[/etc/passwd]",
			   "editable[0] '/etc/passwd'", NULL);
	expect_variant_err("[kernel.c]", "[a/./b.c]", "editable[0]", NULL);
}

static void test_editable_listed_twice_is_rejected(void **state)
{
	expect_variant_err("[kernel.c]", "[kernel.c, kernel.c]",
			   "editable[1]: 'kernel.c' is listed twice", NULL);
}

static void test_config_yaml_cannot_be_editable(void **state)
{
	expect_variant_err("[kernel.c]", "[kernel.c, held_out.yaml]",
			   "part of the task definition", NULL);
}

static void test_empty_editable_list_is_rejected(void **state)
{
	expect_variant_err("[kernel.c]", "[]",
			   "editable has 0 entries; give 1 to 32", NULL);
}

static void test_reference_that_is_editable_is_rejected(void **state)
{
	expect_variant_err("{file: reference.c}", "{file: kernel.c}",
			   "reference.file 'kernel.c' is also editable", NULL);
}

static void test_reference_without_file_is_rejected(void **state)
{
	expect_variant_err("{file: reference.c}", "{language: c}",
			   "reference: missing required key 'file'", NULL);
}

static void test_unsafe_reference_path_is_rejected(void **state)
{
	expect_variant_err("{file: reference.c}", "{file: ../../x.c}",
			   "reference.file '../../x.c' must be a relative path",
			   NULL);
}

static void test_compile_flag_must_be_an_option_and_not_output(void **s)
{
	expect_variant_err("language: c\n", "language: c\ncompile_flags: "
			   "[O2]\n", "compile_flags[0] must be a compiler "
			   "option", NULL);
	expect_variant_err("language: c\n", "language: c\ncompile_flags: "
			   "[-o, x]\n", "compile_flags[0]", NULL);
}

static void test_unsafe_held_out_path_is_rejected(void **state)
{
	expect_variant_err("language: c\n", "language: c\nheld_out: "
			   "/tmp/h.yaml\n", "held_out '/tmp/h.yaml' must be a "
			   "relative path", NULL);
}

/* ---- rejections: signature ---------------------------------------------- */

static void test_bad_dtype_is_rejected_listing_dtypes(void **state)
{
	expect_variant_err("{name: c, dtype: f32,", "{name: c, dtype: float,",
			   "signature.args[2] ('c').dtype must be one of f32, "
			   "f64, f16, bf16, i32, i64, u8, u32, i8, not 'float'",
			   NULL);
}

static void test_bad_io_is_rejected(void **state)
{
	expect_variant_err("shape: [m, n], io: out}", "shape: [m, n], io: "
			   "output}", "signature.args[2] ('c').io must be in, "
			   "out or inout, not 'output'", NULL);
}

static void test_missing_io_is_rejected(void **state)
{
	expect_variant_err("shape: [m, n], io: out}", "shape: [m, n]}",
			   "missing required key 'io'", NULL);
}

static void test_unknown_init_distribution_is_rejected(void **state)
{
	expect_variant_err("{dist: uniform, low: -2, high: 2}", "poisson",
			   "signature.args[1] ('b').init must be normal, "
			   "uniform, randint or ones, not 'poisson'", NULL);
}

static void test_init_key_not_of_its_distribution_is_rejected(void **s)
{
	expect_variant_err("{dist: uniform, low: -2, high: 2}",
			   "{dist: uniform, mean: 0}",
			   "signature.args[1] ('b').init: unknown key 'mean'",
			   NULL);
}

static void test_uniform_with_low_not_below_high_is_rejected(void **state)
{
	expect_variant_err("low: -2, high: 2", "low: 2, high: 2",
			   "low must be less than high", NULL);
}

static void test_normal_with_nonpositive_std_is_rejected(void **state)
{
	expect_variant_err("{dist: uniform, low: -2, high: 2}",
			   "{dist: normal, std: 0}", "std must be greater than "
			   "0", NULL);
}

static void test_init_on_an_output_is_rejected(void **state)
{
	expect_variant_err("shape: [m, n], io: out}", "shape: [m, n], io: out, "
			   "init: normal}", "init applies to inputs only", NULL);
}

static void test_normal_init_on_integer_dtype_is_rejected(void **state)
{
	expect_variant_err("{name: a, dtype: f32, shape: [m, k], io: in}",
			   "{name: a, dtype: u8, shape: [m, k], io: in, init: "
			   "normal}", "normal needs a floating-point dtype",
			   NULL);
}

static void test_shape_naming_unknown_param_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [k, q]",
			   "signature.args[1] ('b').shape[1]: unknown name 'q' "
			   "in 'q'", "signature.params (m, n, k)", NULL);
}

static void test_shape_with_bad_syntax_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [k, \"n+\"]",
			   "signature.args[1] ('b').shape[1]", NULL);
}

static void test_shape_with_too_many_dimensions_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [1, 1, 1, 1, 1, 1, 1, 1, "
			   "1]", "shape has 9 entries; give 0 to 8", NULL);
}

static void test_shape_entry_that_is_a_list_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [k, [n]]",
			   "shape[1] must be an integer or an expression", NULL);
}

static void test_argument_without_name_or_dtype_is_rejected(void **state)
{
	expect_variant_err("{name: c, dtype: f32,", "{dtype: f32,",
			   "signature.args[2]: missing required key 'name'",
			   NULL);
	expect_variant_err("{name: c, dtype: f32,", "{name: c,",
			   "signature.args[2] ('c'): missing required key "
			   "'dtype'", NULL);
}

static void test_duplicate_argument_names_are_rejected(void **state)
{
	expect_variant_err("{name: c, dtype", "{name: a, dtype",
			   "signature.args[2]: name 'a' is already used by "
			   "signature.args[0]", NULL);
}

static void test_duplicate_params_are_rejected(void **state)
{
	expect_variant_err("params: [m, n, k]", "params: [m, n, m]",
			   "signature.params: 'm' is listed twice", NULL);
}

static void test_param_that_is_not_an_identifier_is_rejected(void **s)
{
	expect_variant_err("params: [m, n, k]", "params: [m, n, 2k]",
			   "signature.params[2] must be an identifier", NULL);
}

static void test_more_than_max_args_is_rejected(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < TASK_MAX_ARGS + 1; i++)
		strbuf_addf(&sb, "    - {name: x%d, dtype: f32, shape: [n], "
			    "io: in}\n", i);
	char *cfg = with(base_cfg, "    - {name: c, dtype: f32, shape: [m, n], "
			 "io: out}\n", sb.buf);
	expect_cfg_err(cfg, NULL, "signature.args has 19 entries; give 1 to 16");
	free(cfg);
	strbuf_release(&sb);
}

static void test_more_than_max_params_is_rejected(void **state)
{
	expect_variant_err("params: [m, n, k]", "params: [m, n, k, a, b, c, "
			   "d, e, f, g, h, i, j, l, o, p, q]",
			   "signature.params has 17 entries; give 0 to 16",
			   NULL);
}

/* ---- rejections: cases -------------------------------------------------- */

static void test_case_missing_param_is_rejected_with_field_name(void **s)
{
	expect_variant_err("{id: large, m: 1024, n: 512, k: 256}",
			   "{id: large, m: 1024, n: 512}",
			   "c2c/gemm/config.yaml:14: cases[1] ('large'): "
			   "missing parameter 'k'; every case must give each "
			   "of signature.params (m, n, k)", NULL);
}

static void test_case_with_extra_key_is_rejected(void **state)
{
	expect_variant_err("{id: small, m: 64,", "{id: small, z: 1, m: 64,",
			   "cases[0] ('small'): unknown key 'z'; a case holds "
			   "its id and the signature.params (m, n, k)", NULL);
}

static void test_case_param_must_be_a_plain_integer(void **state)
{
	expect_variant_err("m: 1024,", "m: \"1024\",",
			   "cases[1] ('large').m must be an integer, not a "
			   "string", NULL);
	expect_variant_err("m: 1024,", "m: 10.5,", "cases[1] ('large').m must "
			   "be an integer, not a number", NULL);
}

static void test_case_without_id_is_rejected(void **state)
{
	expect_variant_err("{id: small, m: 64,", "{m: 64,",
			   "cases[0]: missing required key 'id'", NULL);
}

static void test_case_id_with_bad_characters_is_rejected(void **state)
{
	expect_variant_err("{id: small,", "{id: \"sm all\",",
			   "cases[0].id must be a name of 1 to 64 characters "
			   "from [A-Za-z0-9_.-]", NULL);
}

static void test_duplicate_case_ids_are_rejected(void **state)
{
	expect_variant_err("{id: large,", "{id: small,",
			   "cases[1] ('small'): id 'small' is already used",
			   NULL);
}

static void test_missing_cases_are_rejected(void **state)
{
	char *c1 = with(base_cfg, "  - {id: small, m: 64, n: 64, k: 64}\n", "");
	char *c2 = with(c1, "  - {id: large, m: 1024, n: 512, k: 256}\n", "");

	expect_cfg_err(c2, NULL, "cases must be a list, not empty");
	free(c1);
	free(c2);
}

static void test_more_than_max_cases_is_rejected(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "cases:\n");
	for (int i = 0; i < TASK_MAX_CASES + 1; i++)
		strbuf_addf(&sb, "  - {id: c%d, m: 1, n: 1, k: 1}\n", i);
	char *c1 = with(base_cfg, "cases:\n", sb.buf);
	expect_cfg_err(c1, NULL, "a task holds at most 64 cases in total");
	free(c1);
	strbuf_release(&sb);
}

static void test_nonpositive_shape_for_a_case_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [\"k-64\", n]",
			   "config.yaml:13: cases[0] ('small'): argument 'b' "
			   "shape[0] 'k-64' is 0; every dimension must be at "
			   "least 1", NULL);
}

static void test_shape_overflow_for_a_case_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]",
			   "shape: [\"k*k*k*k*k*k*k*k\", n]",
			   "cases[1] ('large'): argument 'b' shape[0]: "
			   "overflow", NULL);
}

static void test_element_count_overflow_for_a_case_is_rejected(void **s)
{
	expect_variant_err("shape: [k, n]",
			   "shape: [\"k*k*k*k*k\", \"n*n*n*n\"]",
			   "cases[1] ('large'): argument 'b' has more elements "
			   "than fit in 64 bits", NULL);
}

static void test_division_by_zero_for_a_case_is_rejected(void **state)
{
	expect_variant_err("shape: [k, n]", "shape: [\"k/(n-64)\", n]",
			   "cases[0] ('small'): argument 'b' shape[0]: "
			   "division by zero", NULL);
}

static void test_randint_bound_outside_dtype_is_rejected(void **state)
{
	expect_variant_err("{name: a, dtype: f32, shape: [m, k], io: in}",
			   "{name: a, dtype: u8, shape: [m, k], io: in, init: "
			   "{dist: randint, low: 0, high: \"k\"}}",
			   "cases[1] ('large'): argument 'a' init: randint "
			   "range [0, 256] does not fit dtype u8", NULL);
}

static void test_randint_low_above_high_is_rejected(void **state)
{
	expect_variant_err("{name: a, dtype: f32, shape: [m, k], io: in}",
			   "{name: a, dtype: i32, shape: [m, k], io: in, init: "
			   "{dist: randint, low: 10, high: \"k-60\"}}",
			   "cases[0] ('small'): argument 'a' init: randint low "
			   "10 is greater than high 4", NULL);
}

static void test_randint_bound_naming_unknown_param_is_rejected(void **s)
{
	expect_variant_err("{name: a, dtype: f32, shape: [m, k], io: in}",
			   "{name: a, dtype: i32, shape: [m, k], io: in, init: "
			   "{dist: randint, high: bins}}",
			   "init.high: unknown name 'bins'", NULL);
}

static void test_negative_cost_for_a_case_is_rejected(void **state)
{
	expect_variant_err("flops: \"2*m*n*k\"", "flops: \"64-m\"",
			   "cases[1] ('large'): cost.flops '64-m' is -960", NULL);
}

static void test_cost_naming_unknown_param_is_rejected(void **state)
{
	expect_variant_err("flops: \"2*m*n*k\"", "flops: \"2*x\"",
			   "cost.flops: unknown name 'x'", NULL);
}

/* ---- rejections: tolerance and tunables -------------------------------- */

static void test_missing_tolerance_with_float_output_is_rejected(void **s)
{
	expect_variant_err("tolerance: {atol: 1e-4, rtol: 1e-3}\n", "",
			   "missing required key 'tolerance'; an output is "
			   "floating point", NULL);
}

static void test_negative_tolerance_is_rejected(void **state)
{
	expect_variant_err("atol: 1e-4", "atol: -1",
			   "tolerance.atol must be a finite number >= 0", NULL);
}

static void test_tolerance_that_is_not_a_number_is_rejected(void **state)
{
	expect_variant_err(
		"atol: 1e-4", "atol: tight",
		"tolerance.atol must be a finite number >= 0 such as 1e-5, "
		"not a string 'tight'",
		NULL);
	expect_variant_err("atol: 1e-4", "atol: .inf", "tolerance.atol", NULL);
}

static void test_empty_tolerance_is_rejected(void **state)
{
	expect_variant_err("{atol: 1e-4, rtol: 1e-3}", "{}",
			   "tolerance is empty", NULL);
}

static void test_an_outputs_tolerance_is_checked_and_named(void **s)
{
	(void)s;
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: {rtol: -1e-3}}",
			   "config.yaml",
			   "signature.args[2] ('c').tolerance.rtol "
			   "must be a finite number >= 0",
			   NULL);
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: {rtol: 1e999}}",
			   "signature.args[2] ('c').tolerance.rtol must be a "
			   "finite number",
			   NULL);
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: {rtol: .nan}}",
			   "signature.args[2] ('c').tolerance.rtol", NULL);
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: {}}",
			   "signature.args[2] ('c').tolerance is empty", NULL);
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: {rtl: 1e-3}}",
			   "signature.args[2] ('c').tolerance", "'rtl'", NULL);
	expect_variant_err("shape: [m, n], io: out}",
			   "shape: [m, n], io: out, tolerance: 1e-3}",
			   "signature.args[2] ('c').tolerance", NULL);
}

static void test_a_tolerance_on_an_input_or_integer_is_rejected(void **s)
{
	(void)s;
	expect_variant_err("shape: [m, k], io: in}",
			   "shape: [m, k], io: in, tolerance: {rtol: 1e-3}}",
			   "signature.args[0] ('a').tolerance: a tolerance "
			   "applies to outputs only",
			   NULL);
	expect_variant_err(
		"{name: c, dtype: f32, shape: [m, n], io: out}",
		"{name: c, dtype: i32, shape: [m, n], io: out, "
		"tolerance: {atol: 1}}",
		"signature.args[2] ('c').tolerance: i32 outputs must "
		"match exactly",
		NULL);
}

static void test_bad_tunable_name_is_rejected(void **state)
{
	expect_variant_err("BLOCK:", "block:", "tunables: 'block' must be a "
			   "macro name", NULL);
}

static void test_tunable_with_no_values_is_rejected(void **state)
{
	expect_variant_err("BLOCK: [32, 64]", "BLOCK: []",
			   "tunables.BLOCK has 0 entries; give 1 to 16", NULL);
}

static void test_tunable_value_that_is_not_a_token_is_rejected(void **s)
{
	expect_variant_err("BLOCK: [32, 64]", "BLOCK: [32, \"6 4\"]",
			   "tunables.BLOCK[1] must be an integer or an "
			   "identifier", NULL);
}

static void test_too_many_tunables_are_rejected(void **state)
{
	expect_variant_err("{BLOCK: [32, 64],", "{A: [1], B: [1], C: [1], "
			   "D: [1], E: [1], F: [1], G: [1], BLOCK: [32, 64],",
			   "tunables has 9 knobs; at most 8", NULL);
}

/* ---- held-out cases ----------------------------------------------------- */

static void test_held_out_cases_follow_visible_and_are_marked(void **state)
{
	struct task *t = parse_ok(base_cfg, "cases:\n  - {id: odd, m: 3, n: 5, "
				  "k: 7}\n");

	assert_int_equal(t->ncases, 3);
	assert_int_equal(t->nvisible, 2);
	assert_string_equal(t->cases[2].id, "odd");
	assert_true(t->cases[2].held_out);
	assert_int_equal(t->cases[2].params[2], 7);
	task_free(t);
}

static void test_held_out_id_equal_to_visible_is_rejected(void **state)
{
	expect_cfg_err(base_cfg, "cases: [{id: small, m: 1, n: 1, k: 1}]",
		       "c2c/gemm/held_out.yaml:1: cases[0] ('small'): id "
		       "'small' is already used by another visible case");
}

static void test_held_out_with_other_keys_is_rejected(void **state)
{
	expect_cfg_err(base_cfg, "cases: [{id: odd, m: 1, n: 1, k: 1}]\n"
		       "notes: x\n", "held_out.yaml:2: unknown top-level key "
		       "'notes'; allowed keys are cases");
}

static void test_held_out_case_with_bad_shape_names_held_out_file(void **s)
{
	char *cfg = with(base_cfg, "shape: [k, n]", "shape: [\"k-3\", n]");

	expect_cfg_err(cfg, "cases:\n  - {id: tiny, m: 1, n: 1, k: 3}\n",
		       "c2c/gemm/held_out.yaml:2: cases[0] ('tiny'): argument "
		       "'b' shape[0] 'k-3' is 0");
	free(cfg);
}

static void test_empty_held_out_file_is_rejected(void **state)
{
	expect_cfg_err(base_cfg, "", "held_out.yaml: the file is empty");
}

static void test_visible_and_held_out_together_are_capped(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "cases:\n");
	for (int i = 0; i < TASK_MAX_CASES - 1; i++)
		strbuf_addf(&sb, "  - {id: h%d, m: 1, n: 1, k: 1}\n", i);
	expect_cfg_err(base_cfg, sb.buf, "at most 64 cases in total");
	strbuf_release(&sb);
}

static void test_config_sha256_covers_config_then_held_out(void **state)
{
	const char *held = "cases: [{id: odd, m: 3, n: 5, k: 7}]\n";
	struct task *t = parse_ok(base_cfg, held);
	struct sha256 s;
	unsigned char d[32];
	char hex[65];

	sha256_init(&s);
	sha256_update(&s, base_cfg, strlen(base_cfg));
	sha256_update(&s, held, strlen(held));
	sha256_final(&s, d);
	sha256_to_hex(d, hex);
	assert_string_equal(t->config_sha256, hex);
	task_free(t);
}

/* ---- evaluation --------------------------------------------------------- */

static void test_arg_shape_and_numel_follow_the_case(void **state)
{
	struct task *t = parse_ok(base_cfg, NULL);
	const struct task_case *c = task_find_case(t, "large");
	int64_t shape[ARENA_MAX_RANK], numel;
	struct errbuf err;

	errbuf_init(&err);
	assert_non_null(c);
	assert_int_equal(task_arg_shape(t, 1, c, shape, &err), 0);
	assert_int_equal(shape[0], 256);
	assert_int_equal(shape[1], 512);
	assert_int_equal(task_arg_numel(t, 2, c, &numel, &err), 0);
	assert_int_equal(numel, 1024 * 512);
	assert_int_equal(task_arg_numel(t, 3, c, &numel, &err), -EINVAL);
	task_free(t);
}

static void test_case_cost_evaluates_formulas(void **state)
{
	struct task *t = parse_ok(base_cfg, NULL);
	int64_t bytes, flops;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(task_case_cost(t, &t->cases[0], &bytes, &flops, &err),
			 0);
	assert_int_equal(bytes, 4 * 3 * 64 * 64);
	assert_int_equal(flops, 2 * 64 * 64 * 64);
	task_free(t);
}

static void test_case_cost_is_zero_without_formulas(void **state)
{
	char *cfg = with(base_cfg, "cost: {bytes: \"4*(m*k+k*n+m*n)\", flops: "
			 "\"2*m*n*k\"}\n", "");
	struct task *t = parse_ok(cfg, NULL);
	int64_t bytes = 1, flops = 1;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(task_case_cost(t, &t->cases[0], &bytes, &flops, &err),
			 0);
	assert_true(bytes == 0 && flops == 0);
	task_free(t);
	free(cfg);
}

static void test_timing_floor_defaults_to_the_evaluators(void **state)
{
	struct task *t = parse_ok(base_cfg, NULL);

	(void)state;
	assert_true(t->timing_floor_us < 0);
	assert_null(t->timing_floor_reason);
	task_free(t);
}

static void test_timing_floor_with_a_reason_is_parsed(void **state)
{
	char *cfg = xasprintf("%stiming_floor_us: 5\ntiming_floor_reason: "
			      "launch-bound by design\n", base_cfg);
	struct task *t = parse_ok(cfg, NULL);

	(void)state;
	assert_true(t->timing_floor_us == 5);
	assert_string_equal(t->timing_floor_reason, "launch-bound by design");
	task_free(t);
	free(cfg);
}

static void test_timing_floor_without_a_reason_is_rejected(void **state)
{
	char *cfg = xasprintf("%stiming_floor_us: 5\n", base_cfg);

	(void)state;
	expect_cfg_err(cfg, NULL, "timing_floor_us needs a timing_floor_reason");
	free(cfg);
}

static void test_timing_floor_must_be_a_sane_number(void **state)
{
	char *neg = xasprintf("%stiming_floor_us: -1\ntiming_floor_reason: "
			      "x\n", base_cfg);
	char *text = xasprintf("%stiming_floor_us: fast\ntiming_floor_reason: "
			       "x\n", base_cfg);
	char *why = xasprintf("%stiming_floor_reason: x\n", base_cfg);

	(void)state;
	expect_cfg_err(neg, NULL, "timing_floor_us must be a number");
	expect_cfg_err(text, NULL, "timing_floor_us must be a number");
	expect_cfg_err(why, NULL, "timing_floor_reason is given without");
	free(neg);
	free(text);
	free(why);
}

static void test_find_case_finds_visible_and_held_out_ids(void **state)
{
	struct task *t = parse_ok(base_cfg, "cases: [{id: odd, m: 3, n: 5, "
				  "k: 7}]");

	assert_ptr_equal(task_find_case(t, "small"), &t->cases[0]);
	assert_ptr_equal(task_find_case(t, "odd"), &t->cases[2]);
	assert_null(task_find_case(t, "missing"));
	task_free(t);
}

static void test_dtype_names_sizes_and_kinds_round_trip(void **state)
{
	static const char *const names[] = { "f32", "f64", "f16", "bf16", "i32",
					     "i64", "u8", "u32", "i8" };
	static const size_t sizes[] = { 4, 8, 2, 2, 4, 8, 1, 4, 1 };
	arena_dtype d;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(dtype_parse(names[i], &d), 0);
		assert_string_equal(dtype_name(d), names[i]);
		assert_int_equal(dtype_size(d), sizes[i]);
		assert_int_equal(dtype_is_float(d), i < 4);
	}
	assert_int_equal(dtype_parse("F32", &d), -EINVAL);
	assert_int_equal(dtype_size((arena_dtype)99), 0);
	assert_string_equal(dtype_name((arena_dtype)99), "unknown");
}

static void test_language_names(void **state)
{
	assert_string_equal(language_name(LANG_C), "c");
	assert_string_equal(language_name(LANG_HIP), "hip");
	assert_string_equal(language_name(LANG_CUDA), "cuda");
}

static void test_task_id_must_be_family_slash_name(void **state)
{
	struct errbuf err;
	struct task *t;
	static const char *const bad[] = { "gemm", "../c2c/gemm", "/c2c/gemm",
					   "c2c//gemm", "c2c/ge mm" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errbuf_init(&err);
		assert_int_equal(task_parse(bad[i], NULL, base_cfg,
					    strlen(base_cfg), NULL, 0, &t,
					    &err), -EINVAL);
		assert_non_null(strstr(errbuf_str(&err), "task id"));
	}
}

static void test_deeper_ids_take_first_and_last_components(void **state)
{
	struct errbuf err;
	struct task *t;

	errbuf_init(&err);
	assert_int_equal(task_parse("triton2triton/vllm/rms_norm", NULL,
				    base_cfg, strlen(base_cfg), NULL, 0, &t,
				    &err), 0);
	assert_string_equal(t->family, "triton2triton");
	assert_string_equal(t->name, "rms_norm");
	task_free(t);
}

/* ---- task_load ---------------------------------------------------------- */

static void test_load_sets_absolute_dir_and_reads_held_out(void **state)
{
	char *root = make_task("load1", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	char *real = path_real(dir);
	struct errbuf err;
	struct task *t;

	write_file(dir, "held_out.yaml", "cases: [{id: odd, m: 3, n: 5, k: 7}]\n");
	assert_int_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_string_equal(t->dir, real);
	assert_true(t->dir[0] == '/');
	assert_int_equal(t->ncases, 3);
	assert_true(t->cases[2].held_out);
	assert_null(t->readme);
	task_free(t);
	free(real);
	free(dir);
	free(root);
}

static void test_load_reads_the_file_named_by_held_out(void **state)
{
	char *cfg = xasprintf("%sheld_out: private/cases.yaml\n", base_cfg);
	char *root = make_task("load2", "c2c/gemm", cfg);
	char *dir = path_join(root, "c2c/gemm");
	struct errbuf err;
	struct task *t;

	write_file(dir, "held_out.yaml", "cases: [{id: ignored, m: 1, n: 1, "
		   "k: 1}]\n");
	write_file(dir, "private/cases.yaml", "cases: [{id: named, m: 1, n: 1, "
		   "k: 1}]\n");
	assert_int_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_int_equal(t->ncases, 3);
	assert_string_equal(t->cases[2].id, "named");
	task_free(t);
	free(dir);
	free(root);
	free(cfg);
}

static void test_load_rejects_missing_named_held_out_file(void **state)
{
	char *cfg = xasprintf("%sheld_out: hidden.yaml\n", base_cfg);
	char *root = make_task("load3", "c2c/gemm", cfg);
	struct errbuf err;
	struct task *t;

	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "held_out 'hidden.yaml' does "
			       "not exist"));
	free(root);
	free(cfg);
}

static void test_load_reports_held_out_errors_in_that_file(void **state)
{
	char *root = make_task("load4", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	char *expect = xasprintf("%s/held_out.yaml:1: cases[0] ('x'): "
				 "missing parameter 'm'", dir);
	struct errbuf err;
	struct task *t;

	write_file(dir, "held_out.yaml", "cases: [{id: x, n: 1, k: 1}]\n");
	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), expect));
	free(expect);
	free(dir);
	free(root);
}

static void test_load_reports_missing_editable_file(void **state)
{
	char *cfg = with(base_cfg, "[kernel.c]", "[kernel.c, util.h]");
	char *root = make_task("load5", "c2c/gemm", cfg);
	struct errbuf err;
	struct task *t;

	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "config.yaml:4: editable[1] "
			       "'util.h' does not exist in"));
	free(root);
	free(cfg);
}

static void test_load_reports_missing_reference_file(void **state)
{
	char *cfg = with(base_cfg, "{file: reference.c}", "{file: ref.c}");
	char *root = make_task("load6", "c2c/gemm", cfg);
	struct errbuf err;
	struct task *t;

	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "reference.file 'ref.c' does "
			       "not exist"));
	free(root);
	free(cfg);
}

static void test_load_reports_missing_named_readme(void **state)
{
	char *cfg = xasprintf("%sreadme: NOTES.md\n", base_cfg);
	char *root = make_task("load7", "c2c/gemm", cfg);
	struct errbuf err;
	struct task *t;

	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "readme 'NOTES.md' does not "
			       "exist"));
	free(root);
	free(cfg);
}

static void test_load_defaults_readme_when_present(void **state)
{
	char *root = make_task("load8", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	struct errbuf err;
	struct task *t;

	write_file(dir, "README.md", "# gemm\n");
	assert_int_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_string_equal(t->readme, "README.md");
	task_free(t);
	free(dir);
	free(root);
}

static void test_load_rejects_symlink_leaving_task_dir(void **state)
{
	char *root = make_task("load9", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	char *kernel = path_join(dir, "kernel.c");
	char *outside = path_join(root, "outside.c");
	struct errbuf err;
	struct task *t;

	write_file(root, "outside.c", "int x;\n");
	assert_int_equal(unlink(kernel), 0);
	assert_int_equal(symlink(outside, kernel), 0);
	assert_int_not_equal(load(root, "c2c/gemm", &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "resolves outside the task "
			       "directory"));
	free(outside);
	free(kernel);
	free(dir);
	free(root);
}

static void test_load_of_unknown_task_names_it(void **state)
{
	char *root = make_task("load10", "c2c/gemm", base_cfg);
	struct errbuf err;
	struct task *t;

	assert_int_equal(load(root, "c2c/nope", &t, &err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "no task 'c2c/nope' under"));
	assert_non_null(strstr(errbuf_str(&err), "arena tasks"));
	assert_int_equal(load(root, "../c2c/gemm", &t, &err), -EINVAL);
	free(root);
}

static void test_load_refuses_config_over_size_cap(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *root;
	struct errbuf err;
	struct task *t;

	strbuf_addstr(&sb, base_cfg);
	while (sb.len <= TASK_CONFIG_MAX_BYTES)
		strbuf_addstr(&sb, "# padding padding padding padding\n");
	root = make_task("load11", "c2c/gemm", sb.buf);
	assert_int_equal(load(root, "c2c/gemm", &t, &err), -EFBIG);
	assert_non_null(strstr(errbuf_str(&err), "limit"));
	strbuf_release(&sb);
	free(root);
}

static void test_load_hash_is_config_bytes_then_held_out_bytes(void **state)
{
	const char *held = "cases: [{id: odd, m: 3, n: 5, k: 7}]\n";
	char *root = make_task("load12", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	struct task *loaded, *parsed;
	struct errbuf err;

	write_file(dir, "held_out.yaml", held);
	assert_int_equal(load(root, "c2c/gemm", &loaded, &err), 0);
	parsed = parse_ok(base_cfg, held);
	assert_string_equal(loaded->config_sha256, parsed->config_sha256);
	task_free(loaded);
	task_free(parsed);
	free(dir);
	free(root);
}

static void test_parse_with_dir_checks_files(void **state)
{
	char *root = make_task("load13", "c2c/gemm", base_cfg);
	char *dir = path_join(root, "c2c/gemm");
	char *cfg = with(base_cfg, "{file: reference.c}", "{file: gone.c}");
	struct errbuf err;
	struct task *t;

	errbuf_init(&err);
	assert_int_equal(task_parse("c2c/gemm", dir, base_cfg, strlen(base_cfg),
				    NULL, 0, &t, &err), 0);
	assert_non_null(t->dir);
	task_free(t);
	assert_int_not_equal(task_parse("c2c/gemm", dir, cfg, strlen(cfg), NULL,
					0, &t, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "'gone.c' does not exist"));
	free(cfg);
	free(dir);
	free(root);
}

/* ---- task_select and the default root ----------------------------------- */

static char *select_tree(void)
{
	char *root = path_join(fixture_root, "select");
	static const char *const dirs[] = {
		"c2c/b", "c2c/a", "hip2hip/gpumode/gelu", "c2c/a/inner",
		".hidden/x",
	};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *dir = path_join(root, dirs[i]);
		write_file(dir, "config.yaml", "schema: arena/1\n");
		free(dir);
	}
	write_file(root, "empty/notes.txt", "no tasks here\n");
	return root;
}

static void assert_selects(const char *root, const char *sel,
			   const char *const *want, size_t n)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;

	errbuf_init(&err);
	if (task_select(root, sel, &ids, &err))
		fail_msg("select '%s': %s", sel, errbuf_str(&err));
	assert_int_equal(ids.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(ids.v[i], want[i]);
	strvec_release(&ids);
}

static void test_select_all_lists_every_task_sorted(void **state)
{
	static const char *const want[] = { "c2c/a", "c2c/b",
					    "hip2hip/gpumode/gelu" };
	char *root = select_tree();

	assert_selects(root, "all", want, 3);
	free(root);
}

static void test_select_family_lists_its_tasks_only(void **state)
{
	static const char *const want[] = { "c2c/a", "c2c/b" };
	char *root = select_tree();

	assert_selects(root, "c2c", want, 2);
	assert_selects(root, "c2c/", want, 2);
	free(root);
}

static void test_select_task_id_gives_that_task(void **state)
{
	static const char *const want[] = { "hip2hip/gpumode/gelu" };
	char *root = select_tree();

	assert_selects(root, "hip2hip/gpumode/gelu", want, 1);
	assert_selects(root, "hip2hip/gpumode", want, 1);
	free(root);
}

static void test_select_does_not_descend_into_a_task(void **state)
{
	static const char *const want[] = { "c2c/a" };
	char *root = select_tree();

	assert_selects(root, "c2c/a", want, 1);
	free(root);
}

static void test_select_appends_to_the_callers_list(void **state)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	char *root = select_tree();

	errbuf_init(&err);
	strvec_push(&ids, "zzz/first");
	assert_int_equal(task_select(root, "c2c", &ids, &err), 0);
	assert_int_equal(ids.n, 3);
	assert_string_equal(ids.v[0], "zzz/first");
	strvec_release(&ids);
	free(root);
}

static void test_select_matching_nothing_names_selector_and_fix(void **s)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	char *root = select_tree();
	char *want = xasprintf("no task matches selector 'empty' under %s; run "
			       "'arena tasks' to list them", root);

	errbuf_init(&err);
	assert_int_equal(task_select(root, "empty", &ids, &err), -ENOENT);
	assert_string_equal(errbuf_str(&err), want);
	assert_int_equal(task_select(root, "cuda2cuda", &ids, &err), -ENOENT);
	assert_int_equal(ids.n, 0);
	free(want);
	free(root);
}

static void test_select_refuses_unsafe_selectors(void **state)
{
	static const char *const bad[] = { "../select", "/etc", "c2c/../c2c",
					   "", "./c2c" };
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	char *root = select_tree();

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errbuf_init(&err);
		assert_int_equal(task_select(root, bad[i], &ids, &err),
				 -EINVAL);
		assert_non_null(strstr(errbuf_str(&err), "is not a path under"));
	}
	assert_int_equal(ids.n, 0);
	free(root);
}

static void test_select_under_missing_root_is_rejected(void **state)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(task_select("/nonexistent/arena-tasks", "all", &ids,
				     &err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "ARENA_TASKS_DIR"));
}

static void test_default_root_honours_environment(void **state)
{
	setenv("ARENA_TASKS_DIR", "/some/where/tasks", 1);
	assert_string_equal(task_default_root(), "/some/where/tasks");
	unsetenv("ARENA_TASKS_DIR");
	const char *root = task_default_root();
	assert_true(root[0] == '/');
	assert_true(str_ends_with(root, "tasks"));
}

/* Loads every task of the repository (when run from its root). */
static void test_every_repository_task_loads(void **state)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;

	errbuf_init(&err);
	if (!dir_exists("tasks") || task_select("tasks", "all", &ids, &err)) {
		strvec_release(&ids);
		skip();
	}
	for (size_t i = 0; i < ids.n; i++) {
		struct task *t;
		errbuf_init(&err);
		if (task_load("tasks", ids.v[i], &t, &err))
			fail_msg("%s", errbuf_str(&err));
		task_free(t);
	}
	strvec_release(&ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_task_parses_every_field),
		cmocka_unit_test(test_defaults_fill_entry_state_and_float_init),
		cmocka_unit_test(test_optional_keys_are_parsed),
		cmocka_unit_test(
			test_integer_input_defaults_to_randint_0_to_100),
		cmocka_unit_test(test_init_forms_scalar_and_map_are_accepted),
		cmocka_unit_test(
			test_randint_bounds_are_expressions_over_params),
		cmocka_unit_test(
			test_scalar_argument_has_rank_zero_and_one_element),
		cmocka_unit_test(test_integer_outputs_need_no_tolerance),
		cmocka_unit_test(test_tolerance_key_left_out_defaults_to_zero),
		cmocka_unit_test(
			test_an_outputs_own_tolerance_replaces_the_tasks_for_it),
		cmocka_unit_test(test_an_outputs_tolerance_beats_its_dtypes),
		cmocka_unit_test(
			test_task_doc_names_no_task_tolerance_when_none_applies),
		cmocka_unit_test(
			test_outputs_with_their_own_tolerance_need_no_tasks),
		cmocka_unit_test(
			test_reference_split_names_the_param_and_the_cut_arguments),
		cmocka_unit_test(test_reference_split_must_be_a_param),
		cmocka_unit_test(
			test_reference_split_only_as_a_whole_first_dimension),
		cmocka_unit_test(test_reference_split_needs_every_output_cut),
		cmocka_unit_test(
			test_reference_split_refuses_values_drawn_up_to_it),
		cmocka_unit_test(
			test_reference_split_applies_to_a_c_reference_only),
		cmocka_unit_test(test_missing_schema_is_rejected),
		cmocka_unit_test(test_other_schema_is_rejected),
		cmocka_unit_test(test_aka_schema_version_task_is_named_as_such),
		cmocka_unit_test(
			test_unknown_top_level_key_is_rejected_listing_allowed),
		cmocka_unit_test(
			test_unknown_key_in_arg_is_rejected_naming_the_arg),
		cmocka_unit_test(test_config_that_is_not_a_map_is_rejected),
		cmocka_unit_test(test_empty_config_is_rejected),
		cmocka_unit_test(test_yaml_syntax_error_names_file_and_line),
		cmocka_unit_test(
			test_duplicate_yaml_keys_are_rejected_with_both_lines),
		cmocka_unit_test(test_yaml_anchors_and_aliases_are_rejected),
		cmocka_unit_test(test_yaml_tags_are_rejected),
		cmocka_unit_test(test_yaml_nested_too_deep_is_rejected),
		cmocka_unit_test(test_second_yaml_document_is_rejected),
		cmocka_unit_test(test_description_must_be_text),
		cmocka_unit_test(
			test_unknown_language_is_rejected_listing_languages),
		cmocka_unit_test(test_bad_initial_state_is_rejected),
		cmocka_unit_test(test_entry_must_be_a_c_identifier),
		cmocka_unit_test(
			test_editable_as_a_string_is_rejected_with_list_hint),
		cmocka_unit_test(test_unsafe_editable_paths_are_rejected),
		cmocka_unit_test(test_editable_listed_twice_is_rejected),
		cmocka_unit_test(test_config_yaml_cannot_be_editable),
		cmocka_unit_test(test_empty_editable_list_is_rejected),
		cmocka_unit_test(test_reference_that_is_editable_is_rejected),
		cmocka_unit_test(test_reference_without_file_is_rejected),
		cmocka_unit_test(test_unsafe_reference_path_is_rejected),
		cmocka_unit_test(
			test_compile_flag_must_be_an_option_and_not_output),
		cmocka_unit_test(test_unsafe_held_out_path_is_rejected),
		cmocka_unit_test(test_bad_dtype_is_rejected_listing_dtypes),
		cmocka_unit_test(test_bad_io_is_rejected),
		cmocka_unit_test(test_missing_io_is_rejected),
		cmocka_unit_test(test_unknown_init_distribution_is_rejected),
		cmocka_unit_test(
			test_init_key_not_of_its_distribution_is_rejected),
		cmocka_unit_test(
			test_uniform_with_low_not_below_high_is_rejected),
		cmocka_unit_test(test_normal_with_nonpositive_std_is_rejected),
		cmocka_unit_test(test_init_on_an_output_is_rejected),
		cmocka_unit_test(test_normal_init_on_integer_dtype_is_rejected),
		cmocka_unit_test(test_shape_naming_unknown_param_is_rejected),
		cmocka_unit_test(test_shape_with_bad_syntax_is_rejected),
		cmocka_unit_test(
			test_shape_with_too_many_dimensions_is_rejected),
		cmocka_unit_test(test_shape_entry_that_is_a_list_is_rejected),
		cmocka_unit_test(
			test_argument_without_name_or_dtype_is_rejected),
		cmocka_unit_test(test_duplicate_argument_names_are_rejected),
		cmocka_unit_test(test_duplicate_params_are_rejected),
		cmocka_unit_test(
			test_param_that_is_not_an_identifier_is_rejected),
		cmocka_unit_test(test_more_than_max_args_is_rejected),
		cmocka_unit_test(test_more_than_max_params_is_rejected),
		cmocka_unit_test(
			test_case_missing_param_is_rejected_with_field_name),
		cmocka_unit_test(test_case_with_extra_key_is_rejected),
		cmocka_unit_test(test_case_param_must_be_a_plain_integer),
		cmocka_unit_test(test_case_without_id_is_rejected),
		cmocka_unit_test(test_case_id_with_bad_characters_is_rejected),
		cmocka_unit_test(test_duplicate_case_ids_are_rejected),
		cmocka_unit_test(test_missing_cases_are_rejected),
		cmocka_unit_test(test_more_than_max_cases_is_rejected),
		cmocka_unit_test(test_nonpositive_shape_for_a_case_is_rejected),
		cmocka_unit_test(test_shape_overflow_for_a_case_is_rejected),
		cmocka_unit_test(
			test_element_count_overflow_for_a_case_is_rejected),
		cmocka_unit_test(test_division_by_zero_for_a_case_is_rejected),
		cmocka_unit_test(test_randint_bound_outside_dtype_is_rejected),
		cmocka_unit_test(test_randint_low_above_high_is_rejected),
		cmocka_unit_test(
			test_randint_bound_naming_unknown_param_is_rejected),
		cmocka_unit_test(test_negative_cost_for_a_case_is_rejected),
		cmocka_unit_test(test_cost_naming_unknown_param_is_rejected),
		cmocka_unit_test(
			test_missing_tolerance_with_float_output_is_rejected),
		cmocka_unit_test(test_negative_tolerance_is_rejected),
		cmocka_unit_test(
			test_tolerance_that_is_not_a_number_is_rejected),
		cmocka_unit_test(test_empty_tolerance_is_rejected),
		cmocka_unit_test(
			test_an_outputs_tolerance_is_checked_and_named),
		cmocka_unit_test(
			test_a_tolerance_on_an_input_or_integer_is_rejected),
		cmocka_unit_test(test_bad_tunable_name_is_rejected),
		cmocka_unit_test(test_tunable_with_no_values_is_rejected),
		cmocka_unit_test(
			test_tunable_value_that_is_not_a_token_is_rejected),
		cmocka_unit_test(test_too_many_tunables_are_rejected),
		cmocka_unit_test(
			test_held_out_cases_follow_visible_and_are_marked),
		cmocka_unit_test(test_held_out_id_equal_to_visible_is_rejected),
		cmocka_unit_test(test_held_out_with_other_keys_is_rejected),
		cmocka_unit_test(
			test_held_out_case_with_bad_shape_names_held_out_file),
		cmocka_unit_test(test_empty_held_out_file_is_rejected),
		cmocka_unit_test(test_visible_and_held_out_together_are_capped),
		cmocka_unit_test(
			test_config_sha256_covers_config_then_held_out),
		cmocka_unit_test(test_arg_shape_and_numel_follow_the_case),
		cmocka_unit_test(test_case_cost_evaluates_formulas),
		cmocka_unit_test(test_case_cost_is_zero_without_formulas),
		cmocka_unit_test(test_timing_floor_defaults_to_the_evaluators),
		cmocka_unit_test(test_timing_floor_with_a_reason_is_parsed),
		cmocka_unit_test(
			test_timing_floor_without_a_reason_is_rejected),
		cmocka_unit_test(test_timing_floor_must_be_a_sane_number),
		cmocka_unit_test(test_find_case_finds_visible_and_held_out_ids),
		cmocka_unit_test(test_dtype_names_sizes_and_kinds_round_trip),
		cmocka_unit_test(test_language_names),
		cmocka_unit_test(test_task_id_must_be_family_slash_name),
		cmocka_unit_test(
			test_deeper_ids_take_first_and_last_components),
		cmocka_unit_test(
			test_load_sets_absolute_dir_and_reads_held_out),
		cmocka_unit_test(test_load_reads_the_file_named_by_held_out),
		cmocka_unit_test(test_load_rejects_missing_named_held_out_file),
		cmocka_unit_test(
			test_load_reports_held_out_errors_in_that_file),
		cmocka_unit_test(test_load_reports_missing_editable_file),
		cmocka_unit_test(test_load_reports_missing_reference_file),
		cmocka_unit_test(test_load_reports_missing_named_readme),
		cmocka_unit_test(test_load_defaults_readme_when_present),
		cmocka_unit_test(test_load_rejects_symlink_leaving_task_dir),
		cmocka_unit_test(test_load_of_unknown_task_names_it),
		cmocka_unit_test(test_load_refuses_config_over_size_cap),
		cmocka_unit_test(
			test_load_hash_is_config_bytes_then_held_out_bytes),
		cmocka_unit_test(test_parse_with_dir_checks_files),
		cmocka_unit_test(test_select_all_lists_every_task_sorted),
		cmocka_unit_test(test_select_family_lists_its_tasks_only),
		cmocka_unit_test(test_select_task_id_gives_that_task),
		cmocka_unit_test(test_select_does_not_descend_into_a_task),
		cmocka_unit_test(test_select_appends_to_the_callers_list),
		cmocka_unit_test(
			test_select_matching_nothing_names_selector_and_fix),
		cmocka_unit_test(test_select_refuses_unsafe_selectors),
		cmocka_unit_test(test_select_under_missing_root_is_rejected),
		cmocka_unit_test(test_default_root_honours_environment),
		cmocka_unit_test(test_every_repository_task_loads),
		cmocka_unit_test(test_unimplemented_task_needs_a_baseline),
		cmocka_unit_test(test_baseline_files_map_onto_editable),
		cmocka_unit_test(test_baseline_files_count_must_match_editable),
		cmocka_unit_test(test_baseline_file_cannot_be_editable),
		cmocka_unit_test(
			test_missing_baseline_file_is_reported_on_load),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/*
 * test_config.c - run configs (arena/config.h): defaults, every key of
 * docs/config.md, AgentKernelArena compatibility, the rejections and their
 * messages, and selector expansion against a tasks tree built under a
 * mkdtemp root (c2c/a, c2c/b, hip2hip/gpumode/gelu valid; broken/bad not).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arena/config.h"

static const char task_cfg[] =
	"schema: arena/1\n"
	"description: Scale a vector.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"cases:\n"
	"  - {id: small, n: 16}\n"
	"tolerance: {atol: 1e-6, rtol: 1e-6}\n";

static char *fixture_root;
static char *tasks_root;

/* ---- fixture ----------------------------------------------------------- */

static void write_file(const char *dir, const char *rel, const char *text)
{
	char *path = path_join(dir, rel);
	char *parent = xstrdup(path);
	struct errbuf err;

	*strrchr(parent, '/') = '\0';
	errbuf_init(&err);
	if (mkdir_p(parent, &err) || file_write_atomic_str(path, text, &err))
		fail_msg("%s", errbuf_str(&err));
	free(parent);
	free(path);
}

static void make_task(const char *id, const char *cfg)
{
	char *dir = path_join(tasks_root, id);

	write_file(dir, "config.yaml", cfg);
	write_file(dir, "kernel.c", "/* baseline */\n");
	write_file(dir, "reference.c", "/* reference */\n");
	free(dir);
}

static int group_setup(void **state)
{
	char tmpl[] = "/tmp/arena-test-config-XXXXXX";

	if (!mkdtemp(tmpl))
		return -1;
	fixture_root = xstrdup(tmpl);
	tasks_root = path_join(fixture_root, "tasks");
	make_task("c2c/b", task_cfg);
	make_task("c2c/a", task_cfg);
	make_task("hip2hip/gpumode/gelu", task_cfg);
	make_task("broken/bad", "schema: arena/1\ndescription: x\n");
	return 0;
}

static int group_teardown(void **state)
{
	rm_rf(fixture_root);
	free(fixture_root);
	free(tasks_root);
	return 0;
}

static int parse(const char *text, struct runconfig **c, struct errbuf *err)
{
	errbuf_init(err);
	return runconfig_parse("exp.yaml", text, strlen(text), tasks_root, c,
			       err);
}

static struct runconfig *parse_ok(const char *text)
{
	struct runconfig *c = NULL;
	struct errbuf err;

	if (parse(text, &c, &err))
		fail_msg("parse failed: %s", errbuf_str(&err));
	assert_non_null(c);
	return c;
}

static void expect_err(const char *text, const char *needle)
{
	struct runconfig *c = (struct runconfig *)1;
	struct errbuf err;

	assert_int_not_equal(parse(text, &c, &err), 0);
	assert_null(c);
	if (!strstr(errbuf_str(&err), needle))
		fail_msg("error '%s' lacks '%s'", errbuf_str(&err), needle);
}

#define MINIMAL "agent: {template: noop}\ntasks: [c2c]\n"

/* ---- accepted configs --------------------------------------------------- */

static void test_minimal_config_gets_documented_defaults(void **state)
{
	struct runconfig *c = parse_ok(MINIMAL);

	assert_string_equal(c->path, "exp.yaml");
	assert_string_equal(c->agent.template_name, "noop");
	assert_null(c->agent.model);
	assert_null(c->agent.effort);
	assert_int_equal(c->agent.timeout_seconds, 0);
	assert_int_equal(c->agent.max_iterations, 0);
	assert_true(c->agent.max_budget_usd == 0);
	assert_int_equal(c->agent.command.n, 0);
	assert_int_equal(c->agent.options.n, 0);
	assert_string_equal(c->device, "auto");
	assert_false(c->has_seed);
	assert_int_equal(c->repeats, 1);
	assert_null(c->target_gpu_model);
	assert_true(c->timing.case_budget_s == 2.0);
	assert_int_equal(c->timing.correctness_trials, 3);
	runconfig_free(c);
}

static void test_timing_defaults_match_the_documentation(void **state)
{
	struct timing_budget t;

	timing_budget_defaults(&t);
	assert_true(t.case_budget_s == 2.0);
	assert_true(t.target_ci == 0.01);
	assert_int_equal(t.min_pairs, 10);
	assert_int_equal(t.max_pairs, 400);
	assert_int_equal(t.blocks, 6);
	assert_int_equal(t.correctness_trials, 3);
	assert_true(t.runner_timeout_s == 60);
	assert_true(t.compile_timeout_s == 120);
}

static void test_every_key_is_parsed(void **state)
{
	struct runconfig *c = parse_ok(
		"agent:\n"
		"  template: command\n"
		"  model: gpt-5.5\n"
		"  effort: xhigh\n"
		"  timeout_seconds: 3600\n"
		"  max_iterations: 3\n"
		"  max_budget_usd: 12.5\n"
		"  command: [./my_agent, --fast, \"\"]\n"
		"  replay_dir: runs/old\n"
		"  options: {temperature: 0.2, verbose: true, empty: }\n"
		"tasks: [c2c/a, hip2hip]\n"
		"target_gpu_model: MI300X\n"
		"log_directory: logs\n"
		"workspace_directory_prefix: workspace\n"
		"device: cuda:1\n"
		"seed: 42\n"
		"repeats: 5\n"
		"timing:\n"
		"  case_budget_s: 1.5\n"
		"  target_ci: 0.02\n"
		"  min_pairs: 5\n"
		"  max_pairs: 100\n"
		"  blocks: 4\n"
		"  correctness_trials: 7\n"
		"  runner_timeout_s: 30\n"
		"  compile_timeout_s: 90\n");

	assert_string_equal(c->agent.template_name, "command");
	assert_string_equal(c->agent.model, "gpt-5.5");
	assert_string_equal(c->agent.effort, "xhigh");
	assert_int_equal(c->agent.timeout_seconds, 3600);
	assert_int_equal(c->agent.max_iterations, 3);
	assert_true(c->agent.max_budget_usd == 12.5);
	assert_int_equal(c->agent.command.n, 3);
	assert_string_equal(c->agent.command.v[1], "--fast");
	assert_string_equal(c->agent.command.v[2], "");
	assert_string_equal(c->agent.replay_dir, "runs/old");
	assert_int_equal(c->agent.options.n, 3);
	assert_string_equal(c->agent.options.v[0], "temperature=0.2");
	assert_string_equal(c->agent.options.v[1], "verbose=true");
	assert_string_equal(c->agent.options.v[2], "empty=");
	assert_int_equal(c->selectors.n, 2);
	assert_string_equal(c->selectors.v[1], "hip2hip");
	assert_string_equal(c->target_gpu_model, "MI300X");
	assert_string_equal(c->log_directory, "logs");
	assert_string_equal(c->workspace_directory_prefix, "workspace");
	assert_string_equal(c->device, "cuda:1");
	assert_true(c->has_seed);
	assert_true(c->seed == 42);
	assert_int_equal(c->repeats, 5);
	assert_true(c->timing.case_budget_s == 1.5);
	assert_true(c->timing.target_ci == 0.02);
	assert_int_equal(c->timing.min_pairs, 5);
	assert_int_equal(c->timing.max_pairs, 100);
	assert_int_equal(c->timing.blocks, 4);
	assert_int_equal(c->timing.correctness_trials, 7);
	assert_true(c->timing.runner_timeout_s == 30);
	assert_true(c->timing.compile_timeout_s == 90);
	runconfig_free(c);
}

static void test_agentkernelarena_quickstart_is_accepted(void **state)
{
	struct runconfig *c = parse_ok(
		"agent:\n"
		"  template: claude_code\n"
		"tasks:\n"
		"  - hip2hip/gpumode/gelu\n"
		"target_gpu_model: MI300\n"
		"log_directory: logs\n"
		"workspace_directory_prefix: workspace\n");

	assert_string_equal(c->agent.template_name, "claude_code");
	assert_int_equal(c->task_ids.n, 1);
	assert_string_equal(c->task_ids.v[0], "hip2hip/gpumode/gelu");
	runconfig_free(c);
}

static void test_template_is_normalised_like_agentkernelarena(void **s)
{
	struct runconfig *c = parse_ok("agent: {template: Claude-Code}\n"
				       "tasks: [c2c]\n");

	assert_string_equal(c->agent.template_name, "claude_code");
	runconfig_free(c);
}

static void test_unknown_template_is_left_to_the_engine(void **state)
{
	struct runconfig *c = parse_ok("agent: {template: not_built_in}\n"
				       "tasks: [c2c]\n");

	assert_string_equal(c->agent.template_name, "not_built_in");
	runconfig_free(c);
}

static void test_tasks_are_expanded_unique_and_sorted(void **state)
{
	struct runconfig *c = parse_ok("agent: {template: noop}\n"
				       "tasks: [hip2hip, c2c/b, c2c]\n");

	assert_int_equal(c->selectors.n, 3);
	assert_int_equal(c->task_ids.n, 3);
	assert_string_equal(c->task_ids.v[0], "c2c/a");
	assert_string_equal(c->task_ids.v[1], "c2c/b");
	assert_string_equal(c->task_ids.v[2], "hip2hip/gpumode/gelu");
	runconfig_free(c);
}

static void test_tasks_may_be_one_string(void **state)
{
	struct runconfig *c = parse_ok("agent: {template: noop}\n"
				       "tasks: c2c/a\n");

	assert_int_equal(c->selectors.n, 1);
	assert_int_equal(c->task_ids.n, 1);
	assert_string_equal(c->task_ids.v[0], "c2c/a");
	runconfig_free(c);
}

static void test_device_forms_are_accepted(void **state)
{
	static const char *const ok[] = { "auto", "host", "cuda:0", "hip:12" };

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		char *text = xasprintf(MINIMAL "device: \"%s\"\n", ok[i]);
		struct runconfig *c = parse_ok(text);
		assert_string_equal(c->device, ok[i]);
		runconfig_free(c);
		free(text);
	}
}

static void test_gpus_list_is_parsed(void **state)
{
	struct runconfig *c = parse_ok(MINIMAL "device: cuda:0\ngpus: [2, 0, 5]\n");

	assert_int_equal(c->ngpus, 3);
	assert_int_equal(c->gpus[0], 2);
	assert_int_equal(c->gpus[2], 5);
	runconfig_free(c);
	c = parse_ok(MINIMAL);
	assert_int_equal(c->ngpus, 0);
	runconfig_free(c);
}

static void test_bad_gpus_are_rejected_with_the_fix(void **state)
{
	expect_err(MINIMAL "gpus: 0\n", "gpus must be a list of device "
		   "indices, as in gpus: [0, 1]");
	expect_err(MINIMAL "gpus: []\n", "gpus must be a list");
	expect_err(MINIMAL "gpus: [0, x]\n", "gpus[1] must be an integer "
		   "from 0 to 1023");
	expect_err(MINIMAL "gpus: [1, 1]\n", "gpus lists device 1 twice");
	expect_err(MINIMAL "device: host\ngpus: [0]\n", "gpus names GPU "
		   "devices but device is host; remove gpus or set device: "
		   "cuda:0");
}

static void test_text_is_kept_verbatim(void **state)
{
	const char *text = MINIMAL "# a comment the store keeps\n";
	struct runconfig *c = parse_ok(text);

	assert_string_equal(c->text, text);
	runconfig_free(c);
}

static void test_source_defaults_to_runs_new(void **state)
{
	struct runconfig *c;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(runconfig_parse(NULL, MINIMAL, strlen(MINIMAL),
					 tasks_root, &c, &err), 0);
	assert_string_equal(c->path, "<runs/new>");
	runconfig_free(c);
	assert_int_not_equal(runconfig_parse(NULL, "tasks: [c2c]\n", 13,
					     tasks_root, &c, &err), 0);
	assert_true(str_starts_with(errbuf_str(&err), "<runs/new>:1: "));
}

/* ---- rejections --------------------------------------------------------- */

static void test_unknown_top_level_key_is_rejected_listing_allowed(void **s)
{
	expect_err(MINIMAL "gpu: [0, 1]\n", "exp.yaml:3: unknown top-level "
		   "key 'gpu'; allowed keys are agent, agents, tasks, "
		   "target_gpu_model, log_directory, "
		   "workspace_directory_prefix, device, gpus, seed, repeats, "
		   "timing");
}

static void test_unknown_agent_key_is_rejected_listing_allowed(void **s)
{
	expect_err("agent: {template: noop, python_path: /usr/bin/python}\n"
		   "tasks: [c2c]\n", "exp.yaml:1: agent: unknown key "
		   "'python_path'; allowed keys are template, model, effort");
}

static void test_empty_config_is_rejected(void **state)
{
	expect_err("", "exp.yaml: the run config is empty; it needs at least "
		   "agent and tasks");
}

static void test_config_that_is_not_a_map_is_rejected(void **state)
{
	expect_err("[agent, tasks]\n", "must be a map of keys, not a list");
}

static void test_yaml_errors_name_the_file_and_line(void **state)
{
	expect_err("agent: {template: noop\ntasks: [c2c]\n", "exp.yaml:");
	expect_err(MINIMAL "tasks: [c2c]\n", "exp.yaml:3: duplicate key "
		   "'tasks' (first given on line 2)");
}

static void test_missing_agent_is_rejected(void **state)
{
	expect_err("tasks: [c2c]\n", "missing required key 'agent'");
}

static void test_agent_that_is_not_a_map_is_rejected(void **state)
{
	expect_err("agent: noop\ntasks: [c2c]\n", "agent must be a map, not a "
		   "string");
}

static void test_missing_template_is_rejected(void **state)
{
	expect_err("agent: {model: x}\ntasks: [c2c]\n", "agent: missing "
		   "required key 'template'");
}

static void test_template_with_bad_characters_is_rejected(void **state)
{
	expect_err("agent: {template: \"my agent\"}\ntasks: [c2c]\n",
		   "agent.template 'my agent' must use only letters, digits");
	expect_err("agent: {template: \"\"}\ntasks: [c2c]\n",
		   "agent.template must be an agent name");
	expect_err("agent: {template: [a]}\ntasks: [c2c]\n",
		   "agent.template must be an agent name");
}

static void test_bad_effort_is_rejected_listing_levels(void **state)
{
	expect_err("agent: {template: codex, effort: ultra}\ntasks: [c2c]\n",
		   "agent.effort must be one of low, medium, high, xhigh, max, "
		   "not 'ultra'");
}

static void test_nonpositive_agent_limits_are_rejected(void **state)
{
	expect_err("agent: {template: noop, timeout_seconds: 0}\n"
		   "tasks: [c2c]\n", "agent.timeout_seconds must be an integer "
		   "from 1 to");
	expect_err("agent: {template: noop, max_iterations: -1}\n"
		   "tasks: [c2c]\n", "agent.max_iterations must be an integer");
	expect_err("agent: {template: noop, max_budget_usd: 0}\n"
		   "tasks: [c2c]\n", "agent.max_budget_usd must be a number "
		   "greater than 0");
	expect_err("agent: {template: noop, timeout_seconds: \"60\"}\n"
		   "tasks: [c2c]\n", "not a string '60'");
}

static void test_command_as_one_string_is_rejected_with_list_hint(void **s)
{
	expect_err("agent: {template: command, command: \"./run.sh --x\"}\n"
		   "tasks: [c2c]\n", "agent.command must be a list of "
		   "arguments, not one string; write command: "
		   "[\"./run.sh --x\"]");
}

static void test_command_with_non_string_entry_is_rejected(void **state)
{
	expect_err("agent: {template: command, command: [a, [b]]}\n"
		   "tasks: [c2c]\n", "agent.command[1] must be a string, not "
		   "a list");
	expect_err("agent: {template: command, command: []}\n"
		   "tasks: [c2c]\n", "agent.command must be a list of 1 to");
}

static void test_options_with_nested_value_are_rejected(void **state)
{
	expect_err("agent: {template: noop, options: {a: [1, 2]}}\n"
		   "tasks: [c2c]\n", "agent.options.a must be a single value, "
		   "not a list");
	expect_err("agent: {template: noop, options: [a]}\n"
		   "tasks: [c2c]\n", "agent.options must be a map");
}

static void test_missing_tasks_are_rejected(void **state)
{
	expect_err("agent: {template: noop}\n", "missing required key "
		   "'tasks'; list task selectors");
	expect_err("agent: {template: noop}\ntasks: []\n", "tasks must be a "
		   "list of 1 to 1024 selectors (all, a family such as c2c, or "
		   "a task id such as c2c/saxpy), not an empty list");
}

/* Too many selectors are not "an empty list": the message says how many
 * and what to write instead. */
static void test_too_many_selectors_are_counted(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "agent: {template: noop}\ntasks:\n");
	for (int i = 0; i < 1025; i++)
		strbuf_addstr(&sb, "  - c2c/saxpy\n");
	expect_err(sb.buf, "tasks lists 1025 selectors; at most 1024: select "
			   "whole families");
	strbuf_release(&sb);
}

static void test_selector_that_is_not_a_string_is_rejected(void **state)
{
	expect_err("agent: {template: noop}\ntasks: [c2c, {a: b}]\n",
		   "tasks[1] must be a selector string, not a map");
}

static void test_selector_matching_nothing_is_rejected_naming_it(void **s)
{
	char *want = xasprintf("exp.yaml:2: tasks[1]: no task matches selector "
			       "'cuda2cuda' under %s; run 'arena tasks' to list "
			       "them", tasks_root);

	expect_err("agent: {template: noop}\ntasks: [c2c, cuda2cuda]\n", want);
	free(want);
}

static void test_unsafe_selector_is_rejected(void **state)
{
	expect_err("agent: {template: noop}\ntasks: [../tasks]\n",
		   "tasks[0]: task selector '../tasks' is not a path under the "
		   "tasks directory");
}

static void test_invalid_selected_task_is_reported_with_its_index(void **s)
{
	expect_err("agent: {template: noop}\ntasks: [c2c, all]\n",
		   "exp.yaml:2: tasks[1] ('all'): task 'broken/bad' is "
		   "invalid: ");
	expect_err("agent: {template: noop}\ntasks: [broken]\n",
		   "broken/bad/config.yaml:1: missing required key 'language'");
}

static void test_bad_device_is_rejected_listing_forms(void **state)
{
	static const char *const bad[] = { "gpu", "cuda", "cuda:", "cuda:x",
					   "hip:-1", "cuda:12345", "HOST" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf(MINIMAL "device: \"%s\"\n", bad[i]);
		expect_err(text, "device must be auto, host, cuda:N or hip:N");
		free(text);
	}
}

static void test_seed_must_be_a_nonnegative_integer(void **state)
{
	expect_err(MINIMAL "seed: -1\n", "seed must be an integer >= 0, not a "
		   "number '-1'");
	expect_err(MINIMAL "seed: abc\n", "seed must be an integer >= 0");
	expect_err(MINIMAL "seed: 1.5\n", "seed must be an integer >= 0");
}

static void test_repeats_must_be_within_1_to_100(void **state)
{
	expect_err(MINIMAL "repeats: 0\n", "repeats must be an integer from 1 "
		   "to 100, not a number '0'");
	expect_err(MINIMAL "repeats: 101\n", "repeats must be an integer from "
		   "1 to 100");
}

static void test_correctness_trials_below_three_are_rejected(void **state)
{
	expect_err(MINIMAL "timing: {correctness_trials: 2}\n",
		   "timing.correctness_trials must be an integer from 3 to");
}

static void test_unknown_timing_key_is_rejected_listing_allowed(void **s)
{
	expect_err(MINIMAL "timing: {warmup: 3}\n", "exp.yaml:3: timing: "
		   "unknown key 'warmup'; allowed keys are case_budget_s, "
		   "target_ci");
}

static void test_nonpositive_timing_numbers_are_rejected(void **state)
{
	expect_err(MINIMAL "timing: {case_budget_s: 0}\n",
		   "timing.case_budget_s must be a number greater than 0");
	expect_err(MINIMAL "timing: {target_ci: -0.1}\n",
		   "timing.target_ci must be a number greater than 0 and at "
		   "most 0.5");
	expect_err(MINIMAL "timing: {runner_timeout_s: .nan}\n",
		   "timing.runner_timeout_s must be a number");
}

static void test_max_pairs_below_min_pairs_times_blocks_is_rejected(void **s)
{
	expect_err(MINIMAL "timing: {min_pairs: 50, blocks: 10}\n",
		   "timing: max_pairs (400) must be at least min_pairs x "
		   "blocks (50 x 10)");
}

static void test_empty_string_values_are_rejected(void **state)
{
	expect_err(MINIMAL "target_gpu_model: \"\"\n", "target_gpu_model must "
		   "be a non-empty string, not a string");
	expect_err(MINIMAL "log_directory:\n", "log_directory must be a "
		   "non-empty string, not empty");
}

static void test_oversized_text_is_rejected(void **state)
{
	size_t len = RUNCONFIG_MAX_BYTES + 1;
	char *text = xmalloc(len + 1);
	struct runconfig *c;
	struct errbuf err;

	memset(text, '#', len);
	text[len] = '\0';
	errbuf_init(&err);
	assert_int_equal(runconfig_parse("big.yaml", text, len, tasks_root, &c,
					 &err), -EFBIG);
	assert_non_null(strstr(errbuf_str(&err), "at most 262144 bytes"));
	free(text);
}

/* ---- runconfig_load ------------------------------------------------------ */

static void test_load_reads_a_file_and_names_it_in_errors(void **state)
{
	char *path = path_join(fixture_root, "run.yaml");
	char *bad = path_join(fixture_root, "bad.yaml");
	struct runconfig *c;
	struct errbuf err;

	write_file(fixture_root, "run.yaml", MINIMAL);
	write_file(fixture_root, "bad.yaml", MINIMAL "repeats: 0\n");
	errbuf_init(&err);
	assert_int_equal(runconfig_load(path, tasks_root, &c, &err), 0);
	assert_string_equal(c->path, path);
	assert_string_equal(c->text, MINIMAL);
	runconfig_free(c);
	assert_int_not_equal(runconfig_load(bad, tasks_root, &c, &err), 0);
	assert_true(str_starts_with(errbuf_str(&err), bad));
	assert_null(c);
	free(path);
	free(bad);
}

static void test_load_refuses_files_over_the_cap(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(fixture_root, "huge.yaml");
	struct runconfig *c;
	struct errbuf err;

	strbuf_addstr(&sb, MINIMAL);
	while (sb.len <= RUNCONFIG_MAX_BYTES)
		strbuf_addstr(&sb, "# padding padding padding padding padding\n");
	write_file(fixture_root, "huge.yaml", sb.buf);
	errbuf_init(&err);
	assert_int_equal(runconfig_load(path, tasks_root, &c, &err), -EFBIG);
	strbuf_release(&sb);
	free(path);
}

static void test_load_of_missing_file_is_rejected(void **state)
{
	struct runconfig *c;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(runconfig_load("/nonexistent/exp.yaml", tasks_root, &c,
					&err), -ENOENT);
	assert_non_null(strstr(errbuf_str(&err), "/nonexistent/exp.yaml"));
}


/* ---- several agent configurations ---------------------------------------- */

static void test_single_agent_is_one_unnamed_variant(void **s)
{
	struct runconfig *c = parse_ok(MINIMAL);

	assert_int_equal(c->nvariants, 1);
	assert_string_equal(c->variants[0].name, "");
	assert_string_equal(c->variants[0].agent.template_name, "noop");
	runconfig_free(c);
}

static void test_agents_list_gives_named_variants(void **s)
{
	struct runconfig *c = parse_ok(
		"agents:\n"
		"  - {name: base, template: noop}\n"
		"  - {name: tuned, template: autotune, options: {mcp: true}}\n"
		"tasks: [c2c]\n");

	assert_int_equal(c->nvariants, 2);
	assert_string_equal(c->variants[0].name, "base");
	assert_string_equal(c->variants[1].name, "tuned");
	assert_string_equal(c->variants[1].agent.template_name, "autotune");
	assert_string_equal(c->variants[1].agent.options.v[0], "mcp=true");
	/* agent mirrors the first variant for single-agent readers. */
	assert_string_equal(c->agent.template_name, "noop");
	runconfig_free(c);
}

static void test_agent_and_agents_together_are_rejected(void **s)
{
	expect_err("agent: {template: noop}\n"
		   "agents: [{name: a, template: noop}, {name: b, template: "
		   "noop}]\ntasks: [c2c]\n", "not both");
}

static void test_agents_need_unique_names(void **s)
{
	expect_err("agents: [{name: a, template: noop}, {name: a, template: "
		   "autotune}]\ntasks: [c2c]\n", "agents[1].name 'a' is used "
		   "twice");
	expect_err("agents: [{template: noop}, {name: b, template: noop}]\n"
		   "tasks: [c2c]\n", "agents[0].name must be");
}

static void test_agents_list_needs_two_to_eight(void **s)
{
	expect_err("agents: [{name: a, template: noop}]\ntasks: [c2c]\n",
		   "agents must be a list of 2 to 8");
}

static void test_agent_errors_name_the_variant(void **s)
{
	expect_err("agents: [{name: a, template: noop}, {name: b, template: "
		   "noop, effort: huge}]\ntasks: [c2c]\n",
		   "agents[1].effort must be one of");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_config_gets_documented_defaults),
		cmocka_unit_test(test_timing_defaults_match_the_documentation),
		cmocka_unit_test(test_every_key_is_parsed),
		cmocka_unit_test(test_agentkernelarena_quickstart_is_accepted),
		cmocka_unit_test(
			test_template_is_normalised_like_agentkernelarena),
		cmocka_unit_test(test_unknown_template_is_left_to_the_engine),
		cmocka_unit_test(test_tasks_are_expanded_unique_and_sorted),
		cmocka_unit_test(test_tasks_may_be_one_string),
		cmocka_unit_test(test_device_forms_are_accepted),
		cmocka_unit_test(test_gpus_list_is_parsed),
		cmocka_unit_test(test_bad_gpus_are_rejected_with_the_fix),
		cmocka_unit_test(test_text_is_kept_verbatim),
		cmocka_unit_test(test_source_defaults_to_runs_new),
		cmocka_unit_test(
			test_unknown_top_level_key_is_rejected_listing_allowed),
		cmocka_unit_test(test_single_agent_is_one_unnamed_variant),
		cmocka_unit_test(test_agents_list_gives_named_variants),
		cmocka_unit_test(test_agent_and_agents_together_are_rejected),
		cmocka_unit_test(test_agents_need_unique_names),
		cmocka_unit_test(test_agents_list_needs_two_to_eight),
		cmocka_unit_test(test_agent_errors_name_the_variant),
		cmocka_unit_test(
			test_unknown_agent_key_is_rejected_listing_allowed),
		cmocka_unit_test(test_empty_config_is_rejected),
		cmocka_unit_test(test_config_that_is_not_a_map_is_rejected),
		cmocka_unit_test(test_yaml_errors_name_the_file_and_line),
		cmocka_unit_test(test_missing_agent_is_rejected),
		cmocka_unit_test(test_agent_that_is_not_a_map_is_rejected),
		cmocka_unit_test(test_missing_template_is_rejected),
		cmocka_unit_test(test_template_with_bad_characters_is_rejected),
		cmocka_unit_test(test_bad_effort_is_rejected_listing_levels),
		cmocka_unit_test(test_nonpositive_agent_limits_are_rejected),
		cmocka_unit_test(
			test_command_as_one_string_is_rejected_with_list_hint),
		cmocka_unit_test(
			test_command_with_non_string_entry_is_rejected),
		cmocka_unit_test(test_options_with_nested_value_are_rejected),
		cmocka_unit_test(test_missing_tasks_are_rejected),
		cmocka_unit_test(test_too_many_selectors_are_counted),
		cmocka_unit_test(
			test_selector_that_is_not_a_string_is_rejected),
		cmocka_unit_test(
			test_selector_matching_nothing_is_rejected_naming_it),
		cmocka_unit_test(test_unsafe_selector_is_rejected),
		cmocka_unit_test(
			test_invalid_selected_task_is_reported_with_its_index),
		cmocka_unit_test(test_bad_device_is_rejected_listing_forms),
		cmocka_unit_test(test_seed_must_be_a_nonnegative_integer),
		cmocka_unit_test(test_repeats_must_be_within_1_to_100),
		cmocka_unit_test(
			test_correctness_trials_below_three_are_rejected),
		cmocka_unit_test(
			test_unknown_timing_key_is_rejected_listing_allowed),
		cmocka_unit_test(test_nonpositive_timing_numbers_are_rejected),
		cmocka_unit_test(
			test_max_pairs_below_min_pairs_times_blocks_is_rejected),
		cmocka_unit_test(test_empty_string_values_are_rejected),
		cmocka_unit_test(test_oversized_text_is_rejected),
		cmocka_unit_test(test_load_reads_a_file_and_names_it_in_errors),
		cmocka_unit_test(test_load_refuses_files_over_the_cap),
		cmocka_unit_test(test_load_of_missing_file_is_rejected),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

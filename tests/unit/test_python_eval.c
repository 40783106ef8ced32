/*
 * test_python_eval.c - Python-language kernels through the evaluator, end
 * to end, on the CPU: each test evaluates one candidate of
 * tests/python/candidates against tests/python/task/pypoly (PyTorch on the
 * host) with the real Python runner (build/arena-python: python3, torch,
 * the runner library, the zygote) and asserts the verdict and a phrase of
 * its stated reason.  The static check's rule on library calls is held
 * against tests/python/task/pypoly_strict.  The GPU flavour of the runner
 * is tested the same way on the GPU runner's host emulation (as
 * test_gpu_eval.c tests the C GPU runner): tests/python/task/pyfakeheavy,
 * a triton task whose "device" tensors are CPU tensors (milliseconds of
 * work on few inputs, like fakeheavy: the emulation's input draws cost the
 * CPU, and their noise must not drown a candidate's claims), with the
 * candidates of tests/python/fake_candidates.
 *
 * Skipped (77 from cmocka's point of view: every test skips) where
 * /usr/bin/python3 (or $ARENA_PYTHON) cannot import torch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/paths.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_check.h"

static struct task *task, *strict, *fake;
static bool have_fake;
static char *py_root; /* tests/python */
static char cache_dir[] = "/tmp/arena-test-python-eval-XXXXXX";
static bool have_torch;

static int group_setup(void **state)
{
	struct errbuf err;
	const char *src = getenv("ARENA_SOURCE_DIR");

	(void)state;
	errbuf_init(&err);
	py_root = src ? path_join(src, "tests/python")
		      : xstrdup("tests/python");
	if (task_load(py_root, "task/pypoly", &task, &err) != 0 ||
	    task_load(py_root, "task/pypoly_strict", &strict, &err) != 0 ||
	    task_load(py_root, "task/pyfakeheavy", &fake, &err) != 0) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	char *cmd = xasprintf("%s -c 'import torch' >/dev/null 2>&1",
			      paths_python());
	int st = system(cmd);
	free(cmd);
	have_torch = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!have_torch)
		fprintf(stderr,
			"%s cannot import torch: the Python tests skip "
			"(apt-get install python3-torch)\n",
			paths_python());
	if (!mkdtemp(cache_dir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(task);
	task_free(strict);
	task_free(fake);
	free(py_root);
	rm_rf(cache_dir);
	return 0;
}

struct opts {
	bool held_out;
	bool skip_timing;
	double budget;
	int blocks;
	const struct task *task;
	const char *device;
	const char *log_dir;
};

static void evaluate(const char *cand, const struct opts *o,
		     struct task_result *res)
{
	struct eval_request req;
	char *dir = strncmp(cand, "task/", 5) == 0 ||
				    strncmp(cand, "fake_candidates/", 16) == 0
			    ? xasprintf("%s/%s", py_root, cand)
			    : xasprintf("%s/candidates/%s", py_root, cand);

	if (!have_torch || (o->device && !have_fake))
		skip();
	eval_request_init(&req);
	req.device = o->device;
	req.task = o->task ? o->task : task;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = 20261202;
	req.include_held_out = o->held_out;
	req.skip_timing = o->skip_timing;
	req.timing.case_budget_s = o->budget > 0 ? o->budget : 0.4;
	req.timing.blocks = o->blocks > 0 ? o->blocks : 2;
	req.timing.min_pairs = 5;
	req.timing.max_pairs = 100;
	req.timing.runner_timeout_s = 60;
	req.log_dir = o->log_dir;
	eval_checked(&req, cand, res);
	free(dir);
}

/* ---- honest ---------------------------------------------------------- */

/* Same code in two processes on a loaded 2-core machine: near 1, or at
 * least an interval that holds 1. */
static bool aa_plausible(const struct task_result *r)
{
	return (r->speedup_ratio > 0.8 && r->speedup_ratio < 1.25) ||
	       (r->speedup_ci_lo <= 1.0 && r->speedup_ci_hi >= 1.0);
}

static void test_baseline_copy_is_accepted_near_one(void **s)
{
	struct opts o = { .blocks = 2 };
	struct task_result r;

	(void)s;
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, NULL);
	assert_true(r.candidate_accepted);
	assert_true(aa_plausible(&r));
	assert_true(r.sandboxed);
	assert_string_equal(r.benchmark_method, "host_cpu_time_flushed");
	result_release(&r);
}

static void test_optimized_is_accepted_and_faster_with_held_out(void **s)
{
	struct opts o = { .held_out = true, .blocks = 2 };
	struct task_result r;

	(void)s;
	evaluate("optimized", &o, &r);
	expect(&r, RS_OK, NULL);
	assert_true(r.held_out_evaluated && r.held_out_correct);
	assert_true(r.speedup_ratio > 1.5);
	assert_int_equal(r.nsources, 1);
	assert_string_equal(r.sources[0].path, "kernel.py");
	result_release(&r);
}

/* ---- loading ---------------------------------------------------------- */

static void test_a_syntax_error_is_a_compile_error_naming_the_line(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("syntax_error", &o, &r);
	expect(&r, RS_COMPILE_ERROR, "kernel.py:5:");
	assert_false(r.pass_compilation);
	result_release(&r);
}

static void test_a_module_that_raises_at_import_is_a_compile_error(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("import_raises", &o, &r);
	expect(&r, RS_COMPILE_ERROR,
	       "RuntimeError: this module refuses to load");
	result_release(&r);
}

static void test_a_module_without_launch_is_a_compile_error(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("no_entry", &o, &r);
	expect(&r, RS_COMPILE_ERROR, "defines no function 'launch'");
	result_release(&r);
}

static void test_importing_the_reference_fails_it_is_not_loaded(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("ref_import", &o, &r);
	expect(&r, RS_COMPILE_ERROR, "No module named 'reference'");
	result_release(&r);
}

/* ---- calls ------------------------------------------------------------ */

static void
test_an_exception_in_launch_is_a_runtime_error_saying_where(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("raises", &o, &r);
	expect(&r, RS_RUNTIME_ERROR,
	       "ValueError: no polynomial today "
	       "(kernel.py, line 7)");
	result_release(&r);
}

static void test_exiting_from_launch_is_a_runtime_error(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("exit_call", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "exit");
	result_release(&r);
}

static void test_no_write_is_incorrect_never_written(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("no_write", &o, &r);
	expect(&r, RS_INCORRECT, "never written");
	result_release(&r);
}

static void test_modifying_an_input_is_rejected(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("modify_input", &o, &r);
	expect(&r, RS_REJECTED, "input 'x' was modified");
	result_release(&r);
}

static void test_outputs_cached_across_calls_are_incorrect(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("cache_outputs", &o, &r);
	expect(&r, RS_INCORRECT, "trial 2");
	result_release(&r);
}

/* ---- threads, processes, the channel, the file system ------------------ */

static void test_a_thread_doing_the_work_is_rejected(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("thread_worker", &o, &r);
	expect(&r, RS_REJECTED, "forbidden system call");
	result_release(&r);
}

static void test_a_forked_child_doing_the_work_is_rejected(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("fork_child", &o, &r);
	expect(&r, RS_REJECTED, "forbidden system call");
	result_release(&r);
}

static void test_a_forged_reply_on_the_channel_is_rejected(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("forge_reply", &o, &r);
	expect(&r, RS_REJECTED, "runner protocol violated");
	result_release(&r);
}

static void test_reading_held_out_data_is_denied(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("read_held_out", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "PermissionError");
	result_release(&r);
}

/* ---- the clock -------------------------------------------------------- */

static void test_a_patched_runner_clock_is_rejected(void **s)
{
	struct opts o = { .blocks = 2 };
	struct task_result r;

	(void)s;
	evaluate("clock_hook", &o, &r);
	expect(&r, RS_REJECTED,
	       "inconsistent with the controller's accounting");
	result_release(&r);
}

static void test_work_done_when_resumed_before_the_request_is_rejected(void **s)
{
	struct opts o = { .blocks = 2 };
	struct task_result r;

	(void)s;
	evaluate("sigcont_work", &o, &r);
	expect(&r, RS_REJECTED,
	       "inconsistent with the controller's accounting");
	result_release(&r);
}

/* ---- the rule on library calls ---------------------------------------- */

static void test_forbidden_library_calls_are_refused_before_running(void **s)
{
	struct opts o = { .skip_timing = true, .task = NULL };
	struct task_result r;

	(void)s;
	o.task = strict;
	/* pypoly's own baseline: temporaries from operators on tensors. */
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_COMPILE_ERROR,
	       "computes with a tensor outside a Triton "
	       "kernel");
	assert_non_null(strstr(r.compilation_error_message,
			       "this task forbids library calls"));
	result_release(&r);
}

/* A library kernel reached without a call the rule names: builtins and
 * math functions that compute with the tensors handed to them, a lambda's
 * operators, kernels named as values and called out of sight, an index
 * made of a tensor, and names bound by :=, += and match. Each candidate
 * writes its output through the one allowed call, so only the static
 * check stands between it and an ok. */
static void test_library_kernels_out_of_sight_are_refused(void **s)
{
	static const struct {
		const char *cand, *why;
	} cases[] = {
		{ "strict_builtins", "hands a tensor to pow()" },
		{ "strict_lambda", "computes with a tensor outside" },
		{ "strict_values", "names the builtin pow as a value" },
		{ "strict_gather", "indexes with a tensor outside" },
		{ "strict_walrus", "computes with a tensor outside" },
		{ "strict_augassign", "computes with a tensor outside" },
		{ "strict_match", "computes with a tensor outside" },
		{ "strict_helper", "computes with a tensor outside" },
	};
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	o.task = strict;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		evaluate(cases[i].cand, &o, &r);
		expect(&r, RS_COMPILE_ERROR, cases[i].why);
		result_release(&r);
	}
	evaluate("strict_gather", &o, &r);
	assert_non_null(strstr(r.compilation_error_message,
			       "indexes a tensor with a list"));
	result_release(&r);
	/* The values of strict_values, one by one. */
	evaluate("strict_values", &o, &r);
	assert_non_null(strstr(r.compilation_error_message,
			       "names torch.square as a value"));
	assert_non_null(strstr(r.compilation_error_message,
			       "names math.prod as a value"));
	assert_non_null(strstr(r.compilation_error_message,
			       "calls what an index of a container"));
	result_release(&r);
}

/* What host code does with sizes (builtins and math on numbers, helpers
 * handed sizes, comprehensions over the arguments' sizes) is not a
 * library kernel and passes. */
static void test_builtins_on_sizes_pass_the_static_check(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	o.task = strict;
	evaluate("strict_sizes", &o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
}

static void test_allowed_calls_pass_the_static_check(void **s)
{
	struct opts o = { .skip_timing = true };
	struct task_result r;

	(void)s;
	o.task = strict;
	evaluate("optimized", &o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
}

/* ---- the GPU flavour, on the emulation ---------------------------------- */

static void test_gpu_flavour_baseline_copy_is_accepted(void **s)
{
	struct opts o = { .task = fake, .device = "cuda:0", .held_out = true };
	struct task_result r;

	(void)s;
	evaluate("task/pyfakeheavy", &o, &r);
	expect(&r, RS_OK, NULL);
	assert_true(r.held_out_correct);
	assert_true(aa_plausible(&r));
	assert_non_null(strstr(r.benchmark_method, "device_events_l2_flush"));
	assert_true(r.sandboxed);
	result_release(&r);
}

/* ARENA_PY_LAUNCH_PROFILE=1 (tests/gpu/py_repeat.sh): a GPU runner logs
 * where its launches' host time goes, one line per process as its count
 * of launches doubles, for comparing a pair of processes part by part;
 * without it, no such line.  The line shows that every argument list the
 * runner made was made of views of the arguments' allocations (ArgViews,
 * arena_runner_py.py), though the runner places the arguments anew for
 * every sample; that the evaluation is ok shows the views are the right
 * memory. */
static void test_gpu_flavour_profiles_its_launches_when_asked(void **s)
{
	struct task_result r;

	(void)s;
	for (int on = 1; on >= 0; on--) {
		char dir[] = "/tmp/arena-test-pyprofile-XXXXXX";
		struct opts o = { .task = fake,
				  .device = "cuda:0",
				  .log_dir = dir };
		struct errbuf e;
		char *text = NULL;
		size_t len = 0;

		assert_non_null(mkdtemp(dir));
		if (on)
			setenv("ARENA_PY_LAUNCH_PROFILE", "1", 1);
		evaluate("task/pyfakeheavy", &o, &r);
		unsetenv("ARENA_PY_LAUNCH_PROFILE");
		expect(&r, RS_OK, NULL);
		result_release(&r);
		char *log = path_join(dir, "runner-candidate.log");
		errbuf_init(&e);
		assert_int_equal(file_read_all(log, 1 << 22, &text, &len, &e),
				 0);
		const char *line = strstr(text, "launch profile: pid ");
		if (on) {
			int pid, n, built, viewed;
			assert_non_null(line);
			assert_int_equal(sscanf(line,
						"launch profile: pid %d: %d "
						"launches, %d argument lists "
						"built (%d as views)",
						&pid, &n, &built, &viewed),
					 4);
			assert_true(built > 1);
			assert_int_equal(viewed, built);
			assert_non_null(strstr(line, "; mean us: tensors "));
			assert_non_null(strstr(line, ", call "));
		} else {
			assert_null(line);
		}
		free(text);
		free(log);
		rm_rf(dir);
	}
}

/* Captures (docs/gpu.md section 6, "A batch captured before its inputs
 * exist"; the default on an NVIDIA device, set here whatever the
 * default): a Python GPU runner's batches are captured before
 * their inputs exist and launched at once; every timed pair of the trace
 * says so (timing.tsv's graph column, the one before the last), and the
 * verdict is the honest one. */
static void test_gpu_flavour_times_its_batches_from_captures(void **s)
{
	char dir[] = "/tmp/arena-test-pycapture-XXXXXX";
	struct opts o = { .task = fake, .device = "cuda:0", .log_dir = dir };
	struct task_result r;
	int captured, live;

	(void)s;
	assert_non_null(mkdtemp(dir));
	setenv("ARENA_GPU_CAPTURE", "1", 1);
	evaluate("task/pyfakeheavy", &o, &r);
	unsetenv("ARENA_GPU_CAPTURE");
	expect(&r, RS_OK, NULL);
	result_release(&r);
	eval_check_graph_pairs(dir, &captured, &live);
	rm_rf(dir);
	assert_true(captured > 0);
	assert_int_equal(live, 0);
}

static void test_gpu_flavour_optimized_is_faster(void **s)
{
	struct opts o = { .task = fake, .device = "cuda:0" };
	struct task_result r;

	(void)s;
	evaluate("fake_candidates/optimized", &o, &r);
	expect(&r, RS_OK, NULL);
	assert_true(r.speedup_ratio > 1.2);
	result_release(&r);
}

static void test_gpu_flavour_a_thread_left_running_is_rejected(void **s)
{
	struct opts o = { .task = fake,
			  .device = "cuda:0",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("fake_candidates/thread_late", &o, &r);
	expect(&r, RS_REJECTED, "work left running");
	result_release(&r);
}

static void test_gpu_flavour_a_child_process_left_running_is_rejected(void **s)
{
	struct opts o = { .task = fake,
			  .device = "cuda:0",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("fake_candidates/fork_late", &o, &r);
	expect(&r, RS_REJECTED, "1 child processes");
	result_release(&r);
}

static void test_gpu_flavour_reading_held_out_data_is_denied(void **s)
{
	struct opts o = { .task = fake,
			  .device = "cuda:0",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("fake_candidates/read_held_out", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "PermissionError");
	result_release(&r);
}

int main(void)
{
	/* The GPU path on the emulation: its runner (device facts, the
	 * keeper) and the Python runner's library over it.  Set before
	 * anything looks a runner up (once per process). */
	char *exe = path_real("/proc/self/exe");
	char *slash = exe ? strrchr(exe, '/') : NULL;
	if (slash) {
		*slash = '\0';
		char *runner = path_join(exe, "arena-runner-fakegpu");
		char *lib = path_join(exe, "libarena-pyrunner-fakegpu.so");
		have_fake = access(runner, X_OK) == 0 && access(lib, R_OK) == 0;
		setenv("ARENA_RUNNER_CUDA", runner, 1);
		setenv("ARENA_PYRUNNER_CUDA_LIB", lib, 1);
		free(runner);
		free(lib);
	}
	free(exe);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_copy_is_accepted_near_one),
		cmocka_unit_test(
			test_optimized_is_accepted_and_faster_with_held_out),
		cmocka_unit_test(
			test_a_syntax_error_is_a_compile_error_naming_the_line),
		cmocka_unit_test(
			test_a_module_that_raises_at_import_is_a_compile_error),
		cmocka_unit_test(
			test_a_module_without_launch_is_a_compile_error),
		cmocka_unit_test(
			test_importing_the_reference_fails_it_is_not_loaded),
		cmocka_unit_test(
			test_an_exception_in_launch_is_a_runtime_error_saying_where),
		cmocka_unit_test(test_exiting_from_launch_is_a_runtime_error),
		cmocka_unit_test(test_no_write_is_incorrect_never_written),
		cmocka_unit_test(test_modifying_an_input_is_rejected),
		cmocka_unit_test(
			test_outputs_cached_across_calls_are_incorrect),
		cmocka_unit_test(test_a_thread_doing_the_work_is_rejected),
		cmocka_unit_test(
			test_a_forked_child_doing_the_work_is_rejected),
		cmocka_unit_test(
			test_a_forged_reply_on_the_channel_is_rejected),
		cmocka_unit_test(test_reading_held_out_data_is_denied),
		cmocka_unit_test(test_a_patched_runner_clock_is_rejected),
		cmocka_unit_test(
			test_work_done_when_resumed_before_the_request_is_rejected),
		cmocka_unit_test(
			test_forbidden_library_calls_are_refused_before_running),
		cmocka_unit_test(test_allowed_calls_pass_the_static_check),
		cmocka_unit_test(test_library_kernels_out_of_sight_are_refused),
		cmocka_unit_test(test_builtins_on_sizes_pass_the_static_check),
		cmocka_unit_test(test_gpu_flavour_baseline_copy_is_accepted),
		cmocka_unit_test(
			test_gpu_flavour_profiles_its_launches_when_asked),
		cmocka_unit_test(
			test_gpu_flavour_times_its_batches_from_captures),
		cmocka_unit_test(test_gpu_flavour_optimized_is_faster),
		cmocka_unit_test(
			test_gpu_flavour_a_thread_left_running_is_rejected),
		cmocka_unit_test(
			test_gpu_flavour_a_child_process_left_running_is_rejected),
		cmocka_unit_test(
			test_gpu_flavour_reading_held_out_data_is_denied),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

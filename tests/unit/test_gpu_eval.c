/*
 * test_gpu_eval.c - the GPU evaluation path, end to end, without a GPU.
 *
 * build/tests/arena-runner-fakegpu is the GPU runner's own source compiled
 * against a host emulation of the runtime (engine/runner/gpu/gpu_rt_fake.h)
 * and tests/gpu/fake/nvcc builds "CUDA" kernels that are plain C++.  With
 * them eval_run() goes through everything a real GPU evaluation does -
 * device facts from `--query`, an nvcc build, GPU runners kept across
 * cases and started in parallel, `sets`/`flush`/`time n`/`fetch`, batches
 * for short calls, the drain, thread and roofline checks, device errors -
 * and each test asserts the verdict and a phrase of its reason for one
 * candidate of tests/gpu/fake/candidates against tests/gpu/fake/task.
 * What only a real device can show (timing fidelity, the L2 flush, the
 * driver under the sandbox) is tests/gpu/run.sh's job on the H200.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_check.h"

static struct task *task, *task_unimpl;
static char *fake_root;		/* tests/gpu/fake */
static char cache_dir[] = "/tmp/arena-test-gpu-eval-XXXXXX";
static bool have_runner;

static int group_setup(void **state)
{
	struct errbuf err;
	const char *src = getenv("ARENA_SOURCE_DIR");
	char *exe = path_real("/proc/self/exe"), *slash, *runner, *nvcc, *base;

	(void)state;
	errbuf_init(&err);
	base = src ? xstrdup(src) : path_real(".");
	fake_root = path_join(base, "tests/gpu/fake");
	slash = exe ? strrchr(exe, '/') : NULL;
	if (slash)
		*slash = '\0';
	runner = path_join(exe ? exe : ".", "arena-runner-fakegpu");
	have_runner = access(runner, X_OK) == 0;
	nvcc = path_join(fake_root, "nvcc");
	/* Before anything looks the runner or the compiler up (once per
	 * process). */
	setenv("ARENA_RUNNER_CUDA", runner, 1);
	setenv("NVCC", nvcc, 1);
	free(runner);
	free(nvcc);
	free(exe);
	free(base);
	if (task_load(fake_root, "task/fakepoly", &task, &err) != 0) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	if (task_load(fake_root, "task/fakepoly_unimpl", &task_unimpl, &err)) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	if (!mkdtemp(cache_dir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(task);
	task_free(task_unimpl);
	free(fake_root);
	rm_rf(cache_dir);
	return 0;
}

struct opts {
	bool held_out;
	bool skip_timing;
	bool quick;
	int blocks;
	const char *cache;	/* another cache dir (device file) */
	const struct task *task;	/* another task than fakepoly */
};

static void evaluate(const char *cand, const struct opts *o,
		     struct task_result *res)
{
	struct eval_request req;

	if (!have_runner)
		skip();
	char *dir = xasprintf("%s/candidates/%s", fake_root, cand);
	eval_request_init(&req);
	req.task = o->task ? o->task : task;
	req.candidate_dir = dir;
	req.cache_dir = o->cache ? o->cache : cache_dir;
	req.device = "cuda:0";
	req.seed = 20261129;
	req.include_held_out = o->held_out;
	req.skip_timing = o->skip_timing;
	req.quick = o->quick;
	req.timing.case_budget_s = 0.3;
	req.timing.blocks = o->blocks > 0 ? o->blocks : 2;
	req.timing.min_pairs = 5;
	req.timing.max_pairs = 100;
	req.timing.runner_timeout_s = 20;
	eval_checked(&req, cand, res);
	free(dir);
}

static void test_baseline_copy_is_accepted_through_the_gpu_path(void **s)
{
	struct opts o = { .held_out = true };
	struct task_result r;

	(void)s;
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_true(r.candidate_accepted);
	assert_true(r.held_out_correct);
	assert_non_null(strstr(r.device, "cuda:0 Arena Fake GPU (sm_00)"));
	assert_non_null(strstr(r.benchmark_method, "device_events_l2_flush"));
	/* The 1024-element case runs in microseconds: batched. */
	assert_non_null(strstr(r.benchmark_method, "'tiny_batched' x"));
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	assert_true(r.sandboxed);
	result_release(&r);
}

static void test_quick_evaluation_reuses_the_correctness_runners(void **s)
{
	struct opts o = { .quick = true };
	struct task_result r;

	(void)s;
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_int_equal(r.cases[0].blocks, 1);
	result_release(&r);
}

static void test_unwritten_gpu_output_is_incorrect(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("no_write", &o, &r);
	expect(&r, RS_INCORRECT, "never written");
	result_release(&r);
}

static void test_unwritten_timed_output_is_caught_by_device_poison(void **s)
{
	struct opts o = { .blocks = 1 };
	struct task_result r;

	(void)s;
	evaluate("stale_in_timing", &o, &r);
	expect(&r, RS_INCORRECT, "differs from baseline");
	expect(&r, RS_INCORRECT, "never written");
	result_release(&r);
}

static void test_sticky_device_fault_is_runtime_error_and_retires(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("device_fault", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "an illegal memory access");
	expect(&r, RS_RUNTIME_ERROR, "cudaErrorIllegalAddress");
	expect(&r, RS_RUNTIME_ERROR, "runner retired");
	result_release(&r);
}

static void test_device_allocation_failure_is_runtime_error(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("out_of_memory", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "running out of device memory");
	result_release(&r);
}

static void test_work_left_on_another_stream_is_rejected(void **s)
{
	struct opts o = { .blocks = 1 };
	struct task_result r;

	(void)s;
	evaluate("leave_work", &o, &r);
	expect(&r, RS_REJECTED, "work left running on the device");
	result_release(&r);
}

static void test_work_not_ordered_on_the_stream_is_rejected(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("unordered_write", &o, &r);
	expect(&r, RS_REJECTED, "work not ordered on the stream");
	expect(&r, RS_REJECTED, "argument 'y' changed while the runner held");
	/* A runner's first call is never checked (its kernel may load). */
	expect(&r, RS_REJECTED, "correctness trial 2");
	result_release(&r);
}

static void test_work_never_joined_to_the_stream_is_rejected(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("late_write", &o, &r);
	expect(&r, RS_REJECTED, "work still running after the stream");
	expect(&r, RS_REJECTED, "argument 'y' changed after");
	result_release(&r);
}

static void test_host_thread_left_running_is_rejected(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("thread_worker", &o, &r);
	/* The thread census sees the thread unless it has already ended
	 * (a race); then its work still shows on the controller's clock,
	 * as it did once in CI.  Either way the candidate is rejected. */
	const char *census = "work left running after arena_launch";
	bool by_census = (r.correctness_error_message &&
			  strstr(r.correctness_error_message, census)) ||
			 (r.speedup_calculation_error_message &&
			  strstr(r.speedup_calculation_error_message, census));
	expect(&r, RS_REJECTED, by_census
				? census
				: "inconsistent with the controller's clock");
	result_release(&r);
}

static void test_forking_from_a_gpu_runner_is_rejected(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("fork_child", &o, &r);
	expect(&r, RS_REJECTED, "forbidden system call");
	result_release(&r);
}

static void test_shape_specialization_fails_held_out_on_gpu(void **s)
{
	struct opts o = { .held_out = true, .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate("shape_specialized", &o, &r);
	expect(&r, RS_INCORRECT, "held-out case");
	result_release(&r);
}

static void test_unimplemented_task_times_against_its_baseline_file(void **s)
{
	struct opts o = { .blocks = 1, .task = NULL };
	struct task_result r;

	(void)s;
	o.task = task_unimpl;
	/* An implementation equal to baseline.cu: an A/A against it. */
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	/* This task keeps the default timing floor: its 1024-element case
	 * (a few microseconds on the fake GPU) is checked, not timed. */
	assert_string_equal(r.cases[0].id, "tiny_batched");
	assert_true(r.cases[0].correct);
	assert_false(r.cases[0].timed);
	assert_true(r.cases[0].correctness_only);
	assert_true(r.cases[1].timed);
	result_release(&r);
}

static void test_time_below_the_roofline_floor_is_rejected(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-roofline-XXXXXX";
	struct opts o = { .blocks = 1, .cache = dir };
	struct task_result r;

	(void)s;
	assert_non_null(mkdtemp(dir));
	/* A device that moves 1 KB/s: every honest time is "impossible". */
	setenv("ARENA_FAKE_GPU_BW", "1000", 1);
	evaluate("baseline_copy", &o, &r);
	unsetenv("ARENA_FAKE_GPU_BW");
	expect(&r, RS_REJECTED, "below the roofline floor");
	result_release(&r);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baseline_copy_is_accepted_through_the_gpu_path),
		cmocka_unit_test(test_quick_evaluation_reuses_the_correctness_runners),
		cmocka_unit_test(test_unwritten_gpu_output_is_incorrect),
		cmocka_unit_test(test_unwritten_timed_output_is_caught_by_device_poison),
		cmocka_unit_test(test_sticky_device_fault_is_runtime_error_and_retires),
		cmocka_unit_test(test_device_allocation_failure_is_runtime_error),
		cmocka_unit_test(test_work_left_on_another_stream_is_rejected),
		cmocka_unit_test(test_work_not_ordered_on_the_stream_is_rejected),
		cmocka_unit_test(test_work_never_joined_to_the_stream_is_rejected),
		cmocka_unit_test(test_host_thread_left_running_is_rejected),
		cmocka_unit_test(test_forking_from_a_gpu_runner_is_rejected),
		cmocka_unit_test(test_shape_specialization_fails_held_out_on_gpu),
		cmocka_unit_test(test_unimplemented_task_times_against_its_baseline_file),
		cmocka_unit_test(test_time_below_the_roofline_floor_is_rejected),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

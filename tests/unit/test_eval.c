/*
 * test_eval.c - the evaluator against honest and adversarial candidates.
 *
 * Every test evaluates one directory of tests/adversarial/candidates/
 * against the private task tests/adversarial/task/vecpoly through
 * eval_run(), exactly as `arena eval` would, and asserts the verdict and a
 * phrase of its stated reason.  The cheats each model a known attack on
 * kernel benchmarks (shared/reference/eval_anchors.md §4); the honest
 * controls must pass, or the suite would prove nothing.
 *
 * Paths: run from the repository root (tests/run.sh does), or set
 * ARENA_SOURCE_DIR to it.  The runner and kernel.h are found next to the
 * test binary (build/tests/../arena-runner, ../../engine/include).
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

static struct task *task;
static char *adv_root;		/* tests/adversarial */
static char cache_dir[] = "/tmp/arena-test-eval-XXXXXX";

static int group_setup(void **state)
{
	struct errbuf err;
	const char *src = getenv("ARENA_SOURCE_DIR");

	(void)state;
	errbuf_init(&err);
	adv_root = src ? path_join(src, "tests/adversarial")
		       : xstrdup("tests/adversarial");
	if (task_load(adv_root, "task/vecpoly", &task, &err) != 0) {
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
	free(adv_root);
	rm_rf(cache_dir);
	return 0;
}

struct opts {
	bool held_out;
	bool skip_timing;
	double budget;
	int blocks;
	double runner_timeout;
	const char *lock_dir; /* NULL: the machine's (or $ARENA_LOCK_DIR) */
};

static void evaluate_dir(const char *dir, const struct opts *o,
			 struct task_result *res)
{
	struct eval_request req;

	eval_request_init(&req);
	req.task = task;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.lock_dir = o->lock_dir;
	req.seed = 20261129;
	req.include_held_out = o->held_out;
	req.skip_timing = o->skip_timing;
	req.timing.case_budget_s = o->budget > 0 ? o->budget : 0.4;
	req.timing.blocks = o->blocks > 0 ? o->blocks : 2;
	req.timing.min_pairs = 5;
	req.timing.max_pairs = 200;
	req.timing.runner_timeout_s =
		o->runner_timeout > 0 ? o->runner_timeout : 10;
	eval_checked(&req, dir, res);
}

static void evaluate(const char *cand, const struct opts *o,
		     struct task_result *res)
{
	char *dir = xasprintf("%s/candidates/%s", adv_root, cand);

	evaluate_dir(dir, o, res);
	free(dir);
}

/* ---- honest controls ---------------------------------------------------- */

static void test_baseline_copy_is_accepted_at_speedup_one(void **state)
{
	struct opts o = { .budget = 1.0, .blocks = 3 };
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", &o, &res);
	expect(&res, RS_OK, NULL);
	assert_true(res.candidate_accepted);
	assert_true(res.pass_compilation && res.pass_correctness);
	assert_int_equal(res.valid_optimized_cases, 3);
	/* Same code in two processes: within a few percent of 1. */
	assert_true(res.speedup_ratio > 0.9 && res.speedup_ratio < 1.1);
	assert_true(res.score > 200 && res.score < 235);
	result_release(&res);
}

static void test_optimized_is_accepted_and_faster(void **state)
{
	struct opts o = { .budget = 1.0, .blocks = 3, .held_out = true };
	struct task_result res;

	(void)state;
	evaluate("optimized", &o, &res);
	expect(&res, RS_OK, NULL);
	assert_true(res.held_out_evaluated && res.held_out_correct);
	assert_true(res.speedup_ratio > 1.5);
	assert_true(res.speedup_ci_lo > 1.3);
	assert_true(res.held_out_speedup > 1.2);
	assert_int_equal(res.ncases, 5);
	for (int i = 0; i < res.ncases; i++) {
		assert_true(res.cases[i].correct);
		/* The 7-element held-out case takes nanoseconds: below the
		 * timing floor, checked but not timed. */
		if (!strcmp(res.cases[i].id, "tiny")) {
			assert_false(res.cases[i].timed);
			assert_true(res.cases[i].correctness_only);
			assert_non_null(strstr(res.cases[i].timing_note,
					       "below the timing floor"));
			continue;
		}
		assert_true(res.cases[i].timed);
		assert_true(res.cases[i].cand_ms < res.cases[i].base_ms);
	}
	assert_string_equal(res.benchmark_method, "host_cpu_time_flushed");
	assert_int_equal(res.nsources, 1);
	assert_string_equal(res.sources[0].path, "kernel.c");
	result_release(&res);
}

static void test_probing_the_controller_through_proc_finds_nothing(
	void **state)
{
	struct opts o = { .skip_timing = true };
	struct task_result res;

	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	/* ASan builds leave the controller dumpable (LeakSanitizer must
	 * ptrace it), which is exactly what this probe would find. */
	skip();
#endif
	evaluate("peek_controller", &o, &res);
	/* 99/98 would mean it opened the controller's or a runner's memory,
	 * environment or descriptors. */
	expect(&res, RS_OK, NULL);
	result_release(&res);
}

/* ---- outputs ------------------------------------------------------------- */

static void test_no_write_is_incorrect_never_written(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("no_write", &o, &res);
	expect(&res, RS_INCORRECT, "never written");
	assert_false(res.pass_correctness);
	assert_true(res.pass_compilation);
	result_release(&res);
}

static void test_partial_write_is_incorrect_never_written(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("partial_write", &o, &res);
	expect(&res, RS_INCORRECT, "output 'y'[131072]: never written");
	result_release(&res);
}

/* A 1-byte output can hold the poison byte as a legitimate value (here
 * 255 - x takes all 256 values), so it must not make the reference look
 * as if it had not written its output. */
static void test_byte_outputs_equal_to_the_poison_count_as_written(
	void **state)
{
	struct task *bytes;
	struct errbuf err;
	struct eval_request req;
	struct task_result res;
	char *dir = xasprintf("%s/task/bytemap", adv_root);

	(void)state;
	errbuf_init(&err);
	assert_int_equal(task_load(adv_root, "task/bytemap", &bytes, &err), 0);
	eval_request_init(&req);
	req.task = bytes;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = 20261129;
	req.skip_timing = true;
	req.timing.runner_timeout_s = 10;
	eval_checked(&req, dir, &res);
	expect(&res, RS_OK, NULL);
	assert_true(res.pass_correctness);
	result_release(&res);
	task_free(bytes);
	free(dir);
}

/* A 4-byte integer output holds a poison word by chance now and then
 * (32 M random u32 keys: about once in 130 calls): an isolated one is a
 * result, but a reference that leaves its last element unwritten is still
 * refused (task/wordmap: both poison words written on purpose; its
 * held-out case leaves the last element out). */
static void
test_word_outputs_may_equal_the_poison_but_a_hole_is_refused(void **state)
{
	struct task *words;
	struct errbuf err;
	struct eval_request req;
	struct task_result res;
	char *dir = xasprintf("%s/task/wordmap", adv_root);

	(void)state;
	errbuf_init(&err);
	assert_int_equal(task_load(adv_root, "task/wordmap", &words, &err), 0);
	for (int held_out = 0; held_out < 2; held_out++) {
		eval_request_init(&req);
		req.task = words;
		req.candidate_dir = dir;
		req.cache_dir = cache_dir;
		req.seed = 20261202;
		req.skip_timing = true;
		req.include_held_out = held_out;
		req.timing.runner_timeout_s = 10;
		eval_checked(&req, dir, &res);
		if (held_out)
			expect(&res, RS_INFRA_ERROR,
			       "the reference did not "
			       "write output 'y' element 65535 in held-out "
			       "case 'hole'");
		else
			expect(&res, RS_OK, NULL);
		result_release(&res);
	}
	task_free(words);
	free(dir);
}

static void test_modifying_an_input_is_rejected(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("modify_input", &o, &res);
	expect(&res, RS_REJECTED, "input 'x' was modified by the kernel");
	assert_true(res.integrity.n >= 1);
	result_release(&res);
}

static void test_cache_keyed_by_pointer_is_incorrect(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("cache_pointer", &o, &res);
	expect(&res, RS_INCORRECT, "correctness trial 2");
	result_release(&res);
}

static void test_cache_keyed_by_sampled_values_never_hits(void **state)
{
	struct opts o = { .budget = 0.6 };
	struct task_result res;

	(void)state;
	evaluate("cache_sample", &o, &res);
	/* Fresh values for every call: no hit, hence no gain over the
	 * baseline's code it runs on a miss (and a hit on other data would
	 * be a wrong answer). */
	expect(&res, RS_OK, NULL);
	assert_true(res.speedup_ratio < 1.15);
	result_release(&res);
}

static void test_replaying_outputs_in_timed_calls_is_incorrect(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("stale_in_timing", &o, &res);
	expect(&res, RS_INCORRECT, "differs from baseline");
	assert_non_null(strstr(res.correctness_error_message, "timed call"));
	assert_false(res.pass_correctness);
	result_release(&res);
}

static void test_shape_specialization_fails_held_out(void **state)
{
	struct opts o = { .held_out = true, .skip_timing = true };
	struct task_result res;

	(void)state;
	evaluate("shape_specialized", &o, &res);
	expect(&res, RS_INCORRECT, "held-out case 'odd_prime'");
	assert_true(res.held_out_evaluated);
	assert_false(res.held_out_correct);
	/* Every visible case passed: it generalises badly, not at all. */
	for (int i = 0; i < res.ncases; i++)
		if (!res.cases[i].held_out)
			assert_true(res.cases[i].correct);
	result_release(&res);
}

static void test_shape_specialization_passes_visible_only(void **state)
{
	struct opts o = { .skip_timing = true };
	struct task_result res;

	(void)state;
	evaluate("shape_specialized", &o, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
}

/* ---- process-level failures ---------------------------------------------- */

static void test_segfault_is_runtime_error_with_signal(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("segfault", &o, &res);
	expect(&res, RS_RUNTIME_ERROR,
	       "was killed by signal 11 (Segmentation fault) in correctness "
	       "trial 1, case 'small'");
	result_release(&res);
}

static void test_hang_is_timeout(void **state)
{
	struct opts o = { .runner_timeout = 1 };
	struct task_result res;

	(void)state;
	uint64_t t0 = now_ns();
	evaluate("hang", &o, &res);
	expect(&res, RS_TIMEOUT, "did not return within 1 s");
	assert_true(now_ns() - t0 < 10ull * 1000000000ull);
	result_release(&res);
}

static void test_exit_is_runtime_error(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("exit_call", &o, &res);
	expect(&res, RS_RUNTIME_ERROR, "called exit(3)");
	result_release(&res);
}

static void test_nonzero_return_is_runtime_error(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("nonzero_rc", &o, &res);
	expect(&res, RS_RUNTIME_ERROR, "returned 7");
	result_release(&res);
}

static void test_missing_entry_is_compile_error(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("no_entry", &o, &res);
	expect(&res, RS_COMPILE_ERROR, "does not export 'arena_launch'");
	assert_false(res.pass_compilation);
	result_release(&res);
}

static void test_compile_error_keeps_compiler_output(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("compile_error", &o, &res);
	expect(&res, RS_COMPILE_ERROR, "kernel.c:7");
	assert_non_null(strstr(res.compilation_error_message,
			       "undeclared_variable"));
	/* The scratch directory's path is not part of the message. */
	assert_null(strstr(res.compilation_error_message, cache_dir));
	assert_true(res.score == 0);
	result_release(&res);
}

static void test_symlinked_source_is_refused(void **state)
{
	struct opts o = { 0 };
	struct task_result res;
	char *dir = path_join(cache_dir, "symlink-ws");
	char *link = path_join(dir, "kernel.c");
	char *target = xasprintf("%s/task/vecpoly/reference.c", adv_root);
	char *abs = path_real(target);
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(mkdir_p(dir, &err), 0);
	assert_int_equal(symlink(abs, link), 0);
	evaluate_dir(dir, &o, &res);
	expect(&res, RS_COMPILE_ERROR, "symbolic link");
	result_release(&res);
	free(dir);
	free(link);
	free(target);
	free(abs);
}

/* ---- the protocol and the clock ------------------------------------------ */

static void test_fake_protocol_lines_are_rejected(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("fake_lines", &o, &res);
	expect(&res, RS_REJECTED, "runner protocol violated");
	result_release(&res);
}

static void test_forged_reply_with_the_right_sequence_is_rejected(
	void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("forge_reply", &o, &res);
	expect(&res, RS_REJECTED, "runner protocol violated");
	result_release(&res);
}

static void test_hooked_clock_is_caught_by_the_controllers_clock(
	void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("clock_hook", &o, &res);
	expect(&res, RS_REJECTED,
	       "reported times inconsistent with the controller's accounting");
	/* Not on one timing alone: the case was timed again and the
	 * forgery showed again. */
	assert_non_null(strstr(res.speedup_calculation_error_message,
			       "found again when the case was timed a second "
			       "time with fresh runners"));
	result_release(&res);
}

/* ---- threads, children, the baseline ------------------------------------- */

static void test_thread_left_running_is_rejected(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("thread_worker", &o, &res);
	expect(&res, RS_REJECTED, "forbidden system call");
	result_release(&res);
}

static void test_forking_a_noise_process_is_rejected_at_load(void **state)
{
	struct opts o = { 0 };
	struct task_result res;

	(void)state;
	evaluate("fork_busy_ctor", &o, &res);
	expect(&res, RS_REJECTED, "forbidden system call");
	assert_non_null(strstr(res.correctness_error_message,
			       "while starting"));
	result_release(&res);
}

/* ---- caching ------------------------------------------------------------- */

/* A device lock file whose ticket counter arena did not write (3 bytes
 * of something else): the evaluation ends as an infrastructure error that
 * names the file and says how to mend it, and nothing is timed. */
static void test_a_foreign_lock_file_names_itself_and_the_fix(void **state)
{
	char locks[] = "/tmp/arena-test-eval-locks-XXXXXX";
	struct opts o = { .budget = 0.2, .lock_dir = locks };
	struct task_result res;

	(void)state;
	assert_non_null(mkdtemp(locks));
	char *lock = path_join(locks, "host.lock");
	FILE *f = fopen(lock, "w");
	assert_non_null(f);
	fputs("abc", f);
	fclose(f);
	evaluate("baseline_copy", &o, &res);
	expect(&res, RS_INFRA_ERROR, "host.lock");
	expect(&res, RS_INFRA_ERROR, "remove the file while no evaluation");
	assert_false(res.candidate_accepted);
	result_release(&res);
	free(lock);
	rm_rf(locks);
}

static void test_evaluation_key_depends_on_every_field(void **state)
{
	char a[65], b[65];
	struct strvec d = STRVEC_INIT;

	(void)state;
	eval_cache_key(task, "abc", NULL, "host", false, a);
	eval_cache_key(task, "abc", NULL, "host", false, b);
	assert_string_equal(a, b);
	eval_cache_key(task, "abd", NULL, "host", false, b);
	assert_string_not_equal(a, b);
	eval_cache_key(task, "abc", NULL, "host", true, b);
	assert_string_not_equal(a, b);
	eval_cache_key(task, "abc", NULL, "cuda:0", false, b);
	assert_string_not_equal(a, b);
	strvec_push(&d, "UNROLL=4");
	eval_cache_key(task, "abc", &d, "host", false, b);
	assert_string_not_equal(a, b);
	strvec_release(&d);
}

static void test_hash_sources_marks_missing_files(void **state)
{
	struct task_result r;
	struct errbuf err;
	char *empty = path_join(cache_dir, "empty-ws");
	char *full = xasprintf("%s/candidates/optimized", adv_root);
	char h1[65];

	(void)state;
	errbuf_init(&err);
	assert_int_equal(mkdir_p(empty, &err), 0);
	result_init(&r);
	assert_int_equal(eval_hash_sources(task, empty, &r, &err), 0);
	assert_int_equal(r.nsources, 1);
	assert_string_equal(r.sources[0].sha256, "-");
	memcpy(h1, r.sources_hash, 65);
	result_release(&r);
	result_init(&r);
	assert_int_equal(eval_hash_sources(task, full, &r, &err), 0);
	assert_int_equal(strlen(r.sources[0].sha256), 64);
	assert_string_not_equal(h1, r.sources_hash);
	result_release(&r);
	free(empty);
	free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_evaluation_key_depends_on_every_field),
		cmocka_unit_test(test_hash_sources_marks_missing_files),
		cmocka_unit_test(test_baseline_copy_is_accepted_at_speedup_one),
		cmocka_unit_test(
			test_a_foreign_lock_file_names_itself_and_the_fix),
		cmocka_unit_test(test_optimized_is_accepted_and_faster),
		cmocka_unit_test(
			test_probing_the_controller_through_proc_finds_nothing),
		cmocka_unit_test(test_no_write_is_incorrect_never_written),
		cmocka_unit_test(test_partial_write_is_incorrect_never_written),
		cmocka_unit_test(
			test_byte_outputs_equal_to_the_poison_count_as_written),
		cmocka_unit_test(
			test_word_outputs_may_equal_the_poison_but_a_hole_is_refused),
		cmocka_unit_test(test_modifying_an_input_is_rejected),
		cmocka_unit_test(test_cache_keyed_by_pointer_is_incorrect),
		cmocka_unit_test(test_cache_keyed_by_sampled_values_never_hits),
		cmocka_unit_test(
			test_replaying_outputs_in_timed_calls_is_incorrect),
		cmocka_unit_test(test_shape_specialization_fails_held_out),
		cmocka_unit_test(test_shape_specialization_passes_visible_only),
		cmocka_unit_test(test_segfault_is_runtime_error_with_signal),
		cmocka_unit_test(test_hang_is_timeout),
		cmocka_unit_test(test_exit_is_runtime_error),
		cmocka_unit_test(test_nonzero_return_is_runtime_error),
		cmocka_unit_test(test_missing_entry_is_compile_error),
		cmocka_unit_test(test_compile_error_keeps_compiler_output),
		cmocka_unit_test(test_symlinked_source_is_refused),
		cmocka_unit_test(test_fake_protocol_lines_are_rejected),
		cmocka_unit_test(
			test_forged_reply_with_the_right_sequence_is_rejected),
		cmocka_unit_test(
			test_hooked_clock_is_caught_by_the_controllers_clock),
		cmocka_unit_test(test_thread_left_running_is_rejected),
		cmocka_unit_test(
			test_forking_a_noise_process_is_rejected_at_load),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

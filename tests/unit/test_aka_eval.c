/*
 * test_aka_eval.c - AgentKernelArena task folders through the evaluator,
 * on the CPU (docs/aka.md): the fixtures of tests/aka/tasks (one per
 * harness style, written for arena, PyTorch "kernels") are prepared from
 * their own harnesses and each candidate of tests/aka/candidates gets
 * arena's verdict - the A/A and an optimized kernel accepted; a compile
 * error, a crash, a wrong result, a result of the wrong shape, a modified
 * input, cached outputs, and candidates that lie to an in-process harness
 * (a patched torch.allclose, printed PASS lines and latencies) each with
 * its stated reason; a harness that exits 0 after printing FAIL refused
 * (skipped) as the task's fault; one arena cannot record is infra_error,
 * not skipped; one that checks nothing still yields arena's verdict;
 * harness styles arena once missed (rocmbench tests taking pytest
 * fixtures, kernels launched from tests with their grids, a vllm harness
 * timing its kernel itself, a geak harness loading its kernel under
 * aliases) are recorded; a gpumode folder (a module, its functional twin
 * and a host C++ extension in hip/) builds its kernel as an extension and
 * judges candidates; a skipped folder never runs the candidate; a prepared entry
 * changed in the cache is recorded again, not trusted.  The triton fixture
 * runs on the GPU runner's host emulation (as test_python_eval.c).
 *
 * Skipped (77) where /usr/bin/python3 (or $ARENA_PYTHON) cannot import
 * torch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/fairlock.h"
#include "arena/paths.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"

static char *aka_root; /* tests/aka */
static char cache_dir[] = "/tmp/arena-test-aka-eval-XXXXXX";
static bool have_torch, have_fake;

static bool imports_torch(const char *python)
{
	char *cmd = xasprintf("%s -c 'import torch' >/dev/null 2>&1", python);
	int st = system(cmd);

	free(cmd);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int group_setup(void **state)
{
	const char *src = getenv("ARENA_SOURCE_DIR");
	const char *env = getenv("ARENA_PYTHON");

	(void)state;
	aka_root = src ? path_join(src, "tests/aka") : xstrdup("tests/aka");
	/* arena's interpreter is $ARENA_PYTHON, else PATH's python3: where
	 * that one has no torch and /usr/bin/python3 does, the tests use
	 * that one (paths_python reads the variable on first use). */
	if (!(env && *env) && !imports_torch("python3") &&
	    imports_torch("/usr/bin/python3")) {
		setenv("ARENA_PYTHON", "/usr/bin/python3", 1);
		have_torch = true; /* just seen: no second import */
	} else {
		have_torch = imports_torch(paths_python());
	}
	if (!mkdtemp(cache_dir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(aka_root);
	rm_rf(cache_dir);
	return 0;
}

struct opts {
	const char *task;  /* under tests/aka/tasks (or tasks) */
	const char *tasks; /* NULL: tests/aka/tasks */
	const char *cand;  /* under tests/aka/candidates, NULL: the task */
	const char *device;
	bool skip_timing;
	const char *cache;   /* NULL: the group's */
	const char *log_dir; /* NULL: none */
};

static void evaluate(const struct opts *o, struct task_result *r)
{
	char *tasks = o->tasks ? xstrdup(o->tasks)
			       : path_join(aka_root, "tasks");
	char *cand = o->cand ? xasprintf("%s/candidates/%s", aka_root, o->cand)
			     : xasprintf("%s/%s", tasks, o->task);
	struct eval_request req;
	struct task *t;
	struct errbuf err;

	if (!have_torch)
		skip();
	errbuf_init(&err);
	if (task_load(tasks, o->task, &t, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	eval_request_init(&req);
	req.task = t;
	req.candidate_dir = cand;
	req.cache_dir = o->cache ? o->cache : cache_dir;
	req.lock_dir = cache_dir;
	req.log_dir = o->log_dir;
	req.device = o->device ? o->device : "host";
	req.seed = 1234;
	req.quick = true;
	req.skip_timing = o->skip_timing;
	req.candidate_is_baseline = !o->cand;
	result_init(r);
	if (eval_run(&req, r, &err) != 0)
		fail_msg("eval_run: %s", errbuf_str(&err));
	task_free(t);
	free(tasks);
	free(cand);
}

static void expect(const struct task_result *r, enum result_status st,
		   const char *phrase)
{
	const char *msg =
		r->correctness_error_message   ? r->correctness_error_message
		: r->compilation_error_message ? r->compilation_error_message
					       : "";
	if (r->status != st)
		fail_msg("status %s, expected %s: %s",
			 result_status_name(r->status), result_status_name(st),
			 msg);
	if (phrase && !strstr(msg, phrase))
		fail_msg("message lacks '%s': %s", phrase, msg);
}

/* A candidate's expected verdict: its status and a phrase of its message
 * (NULL: any). */
struct judged {
	const char *cand;
	enum result_status st;
	const char *phrase;
};

/* Each candidate (under tests/aka/candidates/dir) evaluated for task,
 * correctness only: its stated verdict, never accepted, scored as wrong
 * at best. */
static void judge_candidates(const char *task, const char *dir,
			     const struct judged *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char cand[96];
		struct opts o = { .task = task,
				  .cand = cand,
				  .skip_timing = true };
		struct task_result r;
		const char *msg;
		snprintf(cand, sizeof(cand), "%s/%s", dir, cases[i].cand);
		evaluate(&o, &r);
		msg = r.correctness_error_message ? r.correctness_error_message
		      : r.compilation_error_message
			      ? r.compilation_error_message
			      : "";
		if (r.status != cases[i].st ||
		    (cases[i].phrase && !strstr(msg, cases[i].phrase)))
			fail_msg("%s: %s: %s", cand,
				 result_status_name(r.status), msg);
		assert_false(r.candidate_accepted);
		assert_true(r.score <= 20.0);
		result_release(&r);
	}
}

/* ---- the three styles: the task's own kernel against itself ------------- */

static void test_a_vllm_folder_is_prepared_and_its_own_kernel_accepted(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_rmsnorm" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_int_equal(r.ncases, 3);
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	assert_true(r.candidate_accepted);
	result_release(&r);
}

static void
test_a_rocmbench_folder_times_its_benchmarks_and_checks_its_test_shapes(void **s)
{
	struct opts o = { .task = "triton2triton/rocmbench_softmax" };
	struct task_result r;
	int checked_only = 0;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	for (int i = 0; i < r.ncases; i++)
		checked_only += r.cases[i].correctness_only;
	/* Two benchmark cases (one shares its shape with a test), three
	 * shapes only its tests use. */
	assert_int_equal(r.ncases, 5);
	assert_int_equal(checked_only, 3);
	result_release(&r);
}

static void
test_a_geak_eval_folder_is_prepared_from_its_harness_configs(void **s)
{
	struct opts o = { .task = "triton2triton/geak_scale" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_int_equal(r.ncases, 3);
	result_release(&r);
}

/* ---- candidates --------------------------------------------------------------- */

static void test_an_optimized_kernel_is_accepted_and_faster(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_rmsnorm",
			  .cand = "vllm_rmsnorm/optimized" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	/* A row loop against one vectorised expression: several times. */
	assert_true(r.speedup_ratio > 1.5);
	result_release(&r);
}

/* A prepared task's inputs are a pool of recorded sets.  A candidate that
 * recognises a set it has seen (a fingerprint of a few elements) and
 * returns what it computed then must gain nothing. */
static void test_outputs_remembered_by_their_inputs_gain_nothing(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_rmsnorm",
			  .cand = "vllm_rmsnorm/memo_outputs" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	fprintf(stderr, "  memo_outputs: %s, speedup %.3f [%.3f, %.3f]: %s\n",
		result_status_name(r.status), r.speedup_ratio, r.speedup_ci_lo,
		r.speedup_ci_hi,
		r.correctness_error_message ? r.correctness_error_message : "");
	if (r.status == RS_OK)
		assert_true(r.speedup_ratio < 1.1);
	else
		assert_false(r.candidate_accepted);
	result_release(&r);
}

static void test_candidates_are_judged_with_their_stated_reasons(void **s)
{
	static const struct judged cases[] = {
		{ "wrong", RS_INCORRECT, "elements are wrong" },
		{ "allclose_patch", RS_INCORRECT, "elements are wrong" },
		{ "fake_latency", RS_INCORRECT, "elements are wrong" },
		{ "syntax_error", RS_COMPILE_ERROR, "source/rms_norm.py:1" },
		{ "raises", RS_RUNTIME_ERROR, "ValueError: not today" },
		{ "wrong_shape", RS_RUNTIME_ERROR, "of shape [3]" },
		{ "modify_input", RS_REJECTED, "modified" },
		{ "cache_outputs", RS_INCORRECT, NULL },
	};

	(void)s;
	judge_candidates("triton2triton/vllm_rmsnorm", "vllm_rmsnorm", cases,
			 ARRAY_SIZE(cases));
}

/* ---- gpumode: the kernel is a PyTorch extension built from a .hip file ----- */

static void
test_a_gpumode_folder_builds_its_extension_and_accepts_its_own_kernel(void **s)
{
	struct opts o = { .task = "hip2hip/gpumode_leaky" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	/* One case per input of get_inputs(). */
	assert_int_equal(r.ncases, 3);
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	result_release(&r);
}

/* The twin's PyTorch function goes by another name than module_fn in
 * some of AKA's folders (KDLoss: kd_loss_fn): the reference is what the
 * class's forward defaults `fn` to.  A twin with neither cannot be
 * recorded, and says what it lacks. */
static void test_a_gpumode_reference_is_found_by_the_fn_default(void **s)
{
	char *dir = path_join(cache_dir, "renamed");
	char *func = xasprintf("%s/hip2hip/gpumode_leaky/pytorch_code_functional",
			       dir);
	char *cmd = xasprintf(
		"mkdir -p %s/hip2hip && cp -r %s/tasks/hip2hip/gpumode_leaky "
		"%s/hip2hip/ && sed -i 's/module_fn/leaky_scale_fn/g' %s/*.py",
		dir, aka_root, dir, func);
	struct opts o = { .task = "hip2hip/gpumode_leaky",
			  .tasks = dir,
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	assert_int_equal(system(cmd), 0);
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_int_equal(r.ncases, 3);
	result_release(&r);
	free(cmd);
	cmd = xasprintf("sed -i 's/fn=leaky_scale_fn/fn=None/' %s/*.py", func);
	assert_int_equal(system(cmd), 0);
	evaluate(&o, &r);
	expect(&r, RS_INFRA_ERROR, "has no fn parameter defaulting to a function");
	result_release(&r);
	free(cmd);
	free(func);
	free(dir);
}

static void test_a_faster_gpumode_extension_is_accepted_and_faster(void **s)
{
	/* One pass into a new tensor against the shipped row-by-row loop
	 * that works in place: AKA checks only what forward returns, so
	 * both are right (the arguments are scratch). */
	struct opts o = { .task = "hip2hip/gpumode_leaky",
			  .cand = "gpumode_leaky/optimized" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_true(r.speedup_ratio > 1.5);
	result_release(&r);
}

static void
test_gpumode_candidates_are_judged_with_their_stated_reasons(void **s)
{
	static const struct judged cases[] = {
		{ "wrong", RS_INCORRECT, "elements are wrong" },
		{ "syntax_error", RS_COMPILE_ERROR, "hip_7_LeakyScale.hip:6" },
		{ "empty", RS_COMPILE_ERROR, "is empty" },
		{ "wrong_shape", RS_RUNTIME_ERROR, "of shape [1, 256]" },
		/* Fresh inputs every call: a result kept from an earlier
		 * call of the same shape is wrong. */
		{ "cache_outputs", RS_INCORRECT, "elements are wrong" },
		/* The extension's code runs under the runner's filter: a
		 * thread is a forbidden system call. */
		{ "thread_worker", RS_REJECTED, "forbidden system call" },
	};

	(void)s;
	judge_candidates("hip2hip/gpumode_leaky", "gpumode_leaky", cases,
			 ARRAY_SIZE(cases));
}

/* ---- harnesses that lie ------------------------------------------------------ */

static void
test_a_harness_that_exits_0_after_printing_fail_is_the_tasks_fault(void **s)
{
	struct opts o = { .task = "triton2triton/geak_lies",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	/* The task's own fault: skipped with its reason, not a verdict and
	 * not arena's failure (check-tasks flags it: aka_run.sh). */
	expect(&r, RS_SKIPPED, "exited 0");
	assert_false(r.candidate_accepted);
	result_release(&r);
}

/* A kernel as shipped that keeps what it derives from an input by the
 * input's address (AKA's geak_eval llama_ff_triton keeps its combined
 * weights so) is right in AKA's harness, whose inputs never change in
 * place, and stale under arena, whose runners write each call's values
 * into the same buffers: the task's fault, found when it is recorded,
 * not an `incorrect` for an unchanged kernel. */
static void test_a_kernel_keeping_state_by_address_is_the_tasks_fault(void **s)
{
	struct opts o = { .task = "triton2triton/geak_stateful",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_SKIPPED, "keeps state between calls");
	assert_false(r.candidate_accepted);
	result_release(&r);
}

static void
test_a_harness_arena_cannot_record_is_infra_error_not_skipped(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_unrecordable",
			  .skip_timing = true };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	/* Its kernel as shipped passes its own check: the failure is
	 * arena's, and is not hidden as a skip. */
	expect(&r, RS_INFRA_ERROR, "an argument of type BanList");
	result_release(&r);
}

/* ---- harness styles the first GPU run showed arena missing ---------------- */

static int correctness_only_cases(const struct task_result *r)
{
	int n = 0;

	for (int i = 0; i < r->ncases; i++)
		n += r->cases[i].correctness_only;
	return n;
}

static void
test_rocmbench_tests_taking_pytest_fixtures_are_run_by_pytest(void **s)
{
	struct opts o = { .task = "instruction2triton/rocmbench_fixtures" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	/* Timed: 2 shapes x 2 dtypes of conftest's parametrized fixture.
	 * Checked only: test_rownorm's 2 generated row counts x 2 dtypes,
	 * and the 2 dictionaries of test_rownorm_dict_shapes; the test
	 * that calls pytest.skip is skipped, not failed. */
	assert_int_equal(r.ncases, 10);
	assert_int_equal(correctness_only_cases(&r), 6);
	result_release(&r);
}

static void
test_kernels_launched_from_tests_are_recorded_with_their_grids(void **s)
{
	struct opts o = { .task = "triton2triton/rocmbench_launch" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	/* 2 sizes x 3 benchmarked launches (add_kernel[grid], scale_kernel
	 * [grid] and the autograd alias axpy); 5 tested shapes. */
	assert_int_equal(r.ncases, 11);
	assert_int_equal(correctness_only_cases(&r), 5);
	result_release(&r);
	/* A smaller autotuned block needs a larger grid: the recorded grid
	 * is an expression of BLOCK, evaluated with the candidate's. */
	o.cand = "rocmbench_launch/other_block";
	o.skip_timing = true;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
	o.cand = "rocmbench_launch/wrong";
	evaluate(&o, &r);
	expect(&r, RS_INCORRECT, "elements are wrong");
	result_release(&r);
}

static void
test_a_vllm_harness_that_times_its_kernel_itself_gives_its_cases(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_inline_timing" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	/* Its third shape fails in its own performance pass (-1 ms). */
	assert_int_equal(r.ncases, 2);
	assert_int_equal(correctness_only_cases(&r), 0);
	result_release(&r);
}

static void
test_a_geak_harness_loading_its_kernel_under_aliases_is_recorded(void **s)
{
	struct opts o = { .task = "triton2triton/geak_alias" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_int_equal(r.ncases, 3);
	result_release(&r);
}

static void
test_a_harness_that_checks_nothing_still_gets_arenas_verdict(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_checks_nothing",
			  .cand = "vllm_rmsnorm/wrong",
			  .skip_timing = true };
	struct task_result r;
	struct aka_judgement j;
	struct task *t;
	struct errbuf err;
	char *tasks = path_join(aka_root, "tasks");

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_INCORRECT, "elements are wrong");
	result_release(&r);
	/* ... and the task checks flag the harness. */
	errbuf_init(&err);
	assert_int_equal(task_load(tasks, "triton2triton/vllm_checks_nothing",
				   &t, &err),
			 0);
	assert_int_equal(eval_aka_judge(t, "host", cache_dir, &j, &err), 0);
	assert_true(j.baseline_passes);
	assert_int_equal(j.catches_wrong, 0);
	aka_judgement_release(&j);
	task_free(t);
	assert_int_equal(
		task_load(tasks, "triton2triton/vllm_rmsnorm", &t, &err), 0);
	assert_int_equal(eval_aka_judge(t, "host", cache_dir, &j, &err), 0);
	assert_int_equal(j.catches_wrong, 1);
	assert_int_equal(j.ncases, 3);
	aka_judgement_release(&j);
	task_free(t);
	free(tasks);
}

/* ---- the prepared entry is trusted like a trusted copy ----------------------- */

/* The one prepared entry under cache/aka: <cache>/aka/<key>/<hash>. */
static char *only_entry(const char *cache)
{
	char *aka = path_join(cache, "aka"), *entry = NULL;
	struct dirent **keys = NULL, **hashes = NULL;
	int nk = scandir(aka, &keys, NULL, alphasort), nh = 0;

	for (int i = 0; i < nk; i++) {
		if (keys[i]->d_name[0] != '.' && !entry) {
			char *kd = path_join(aka, keys[i]->d_name);
			nh = scandir(kd, &hashes, NULL, alphasort);
			for (int j = 0; j < nh; j++) {
				if (hashes[j]->d_name[0] != '.' && !entry)
					entry = path_join(kd,
							  hashes[j]->d_name);
				free(hashes[j]);
			}
			free(hashes);
			free(kd);
		}
		free(keys[i]);
	}
	free(keys);
	free(aka);
	assert_non_null(entry);
	return entry;
}

static void
test_a_changed_prepared_entry_is_recorded_again_not_trusted(void **s)
{
	char cache[] = "/tmp/arena-test-aka-tamper-XXXXXX";
	struct opts o = { .task = "triton2triton/vllm_rmsnorm",
			  .skip_timing = true,
			  .cache = cache };
	struct task_result r;
	struct errbuf err;

	(void)s;
	if (!have_torch)
		skip();
	assert_non_null(mkdtemp(cache));
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
	/* Whoever can write the cache loosens the recorded tolerance so far
	 * that any output passes (a kernel that skips the normalization,
	 * below, would then be accepted). */
	char *entry = only_entry(cache);
	char *man = path_join(entry, "manifest.json"), *text = NULL;
	size_t len = 0;
	errbuf_init(&err);
	assert_int_equal(file_read_all(man, 1 << 20, &text, &len, &err), 0);
	char *tol = strstr(text, "\"tolerance\"");
	assert_non_null(tol);
	char *end = strchr(tol, '}');
	assert_non_null(end);
	char *forged = xasprintf(
		"%.*s\"tolerance\": {\"f32\": [999, 999], \"f64\": [999, 999]%s",
		(int)(tol - text), text, end);
	assert_int_equal(chmod(entry, 0755), 0);
	assert_int_equal(chmod(man, 0644), 0);
	assert_int_equal(file_write_atomic(man, forged, strlen(forged), &err),
			 0);
	/* The next evaluation does not use it: it records the task again,
	 * says so in its log, and the wrong kernel is wrong. */
	char logs[] = "/tmp/arena-test-aka-tamper-log-XXXXXX";
	assert_non_null(mkdtemp(logs));
	o.cand = "vllm_rmsnorm/wrong";
	o.log_dir = logs;
	evaluate(&o, &r);
	expect(&r, RS_INCORRECT, "elements are wrong");
	result_release(&r);
	char *log = path_join(logs, "aka-prepare.log"), *ltext = NULL;
	assert_int_equal(file_read_all(log, 1 << 20, &ltext, &len, &err), 0);
	if (!strstr(ltext,
		    "manifest.json no longer matches its recorded hash") ||
	    !strstr(ltext, "it was recorded again"))
		fail_msg("the log does not say why the entry was recorded "
			 "again: %s",
			 ltext);
	/* The entry now in the cache is a sealed, verified one. */
	char *again = only_entry(cache);
	struct strvec seal = STRVEC_INIT;
	assert_int_equal(task_trust_verify(again, strrchr(again, '/') + 1,
					   &seal, &err),
			 0);
	strvec_release(&seal);
	free(again);
	free(ltext);
	free(log);
	rm_rf(logs);
	free(forged);
	free(text);
	free(man);
	free(entry);
	rm_rf(cache);
}

/* ---- what cannot run here ------------------------------------------------------ */

static void
test_a_folder_marked_for_amd_is_skipped_without_running_anything(void **s)
{
	struct opts o = { .task = "triton2triton/platform_skip",
			  .cand = "vllm_rmsnorm/syntax_error" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	/* Skipped, not a compile error: the candidate was never looked at. */
	expect(&r, RS_SKIPPED, "gfx950 matrix cores");
	assert_true(r.score == 0.0 && r.reward == 0.0);
	result_release(&r);
}

static void
test_a_harness_failing_on_an_amd_only_type_is_skipped_not_failed(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_fnuz" };
	struct task_result r;

	(void)s;
	evaluate(&o, &r);
	expect(&r, RS_SKIPPED, "fnuz");
	result_release(&r);
}

/* ---- the GPU path, on the emulation ------------------------------------------ */

static void
test_gpu_flavour_a_triton_folder_is_accepted_and_a_wrong_kernel_is_not(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_rmsnorm_gpu",
			  .device = "cuda:0" };
	struct task_result r;

	(void)s;
	if (!have_fake)
		skip();
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
	o.cand = "vllm_rmsnorm/wrong";
	o.skip_timing = true;
	evaluate(&o, &r);
	expect(&r, RS_INCORRECT, "elements are wrong");
	result_release(&r);
}

/* Whether cache dir d holds a prepared entry or one being recorded. */
static bool aka_cache_used(const char *d)
{
	char *aka = path_join(d, "aka");
	DIR *dir = opendir(aka);
	struct dirent *e;
	bool used = false;

	while (dir && (e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			used = true;
	if (dir)
		closedir(dir);
	free(aka);
	return used;
}

/* evaluate() on a thread of its own (cmocka's checks belong to the
 * test's thread): the status, or -1 when eval_run failed. */
struct eval_thread {
	struct opts o;
	pthread_t th;
	int status;
};

static void *eval_thread_main(void *arg)
{
	struct eval_thread *et = arg;
	char *tasks = path_join(aka_root, "tasks");
	char *cand = xasprintf("%s/%s", tasks, et->o.task);
	struct eval_request req;
	struct task_result r;
	struct task *t;
	struct errbuf err;

	errbuf_init(&err);
	et->status = -1;
	if (task_load(tasks, et->o.task, &t, &err) == 0) {
		eval_request_init(&req);
		req.task = t;
		req.candidate_dir = cand;
		req.cache_dir = et->o.cache;
		req.lock_dir = cache_dir;
		req.device = et->o.device;
		req.seed = 1234;
		req.quick = true;
		req.skip_timing = true;
		req.candidate_is_baseline = true;
		result_init(&r);
		if (eval_run(&req, &r, &err) == 0)
			et->status = (int)r.status;
		result_release(&r);
		task_free(t);
	}
	free(tasks);
	free(cand);
	return NULL;
}

/* Recording runs the task's module on the device: it waits for the
 * device's lock like an evaluation's measurements (seven recordings at
 * once ran an H100 out of memory; one disturbs another evaluation's
 * timing).  Held by the test, the lock keeps a fresh preparation from
 * starting; given back, the evaluation goes on. */
static void test_gpu_flavour_recording_waits_for_the_device_lock(void **s)
{
	struct opts o = { .task = "triton2triton/vllm_rmsnorm_gpu",
			  .device = "cuda:0",
			  .skip_timing = true };
	struct task_result r;
	char fresh[] = "/tmp/arena-test-aka-lock-XXXXXX";
	int fds[8], nfd = 0;
	int64_t tickets[8];

	(void)s;
	if (!have_fake || !have_torch)
		skip();
	/* An evaluation on the device leaves its lock file(s) in the
	 * lock directory (the group's cache directory). */
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	result_release(&r);
	DIR *dir = opendir(cache_dir);
	struct dirent *e;
	while (dir && (e = readdir(dir)) && nfd < 8) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 5, ".lock"))
			continue;
		char *path = path_join(cache_dir, e->d_name);
		fds[nfd] = open(path, O_RDWR | O_CLOEXEC);
		assert_true(fds[nfd] >= 0);
		assert_int_equal(fairlock_take(fds[nfd], LOCK_EX,
					       &tickets[nfd]), 0);
		nfd++;
		free(path);
	}
	closedir(dir);
	assert_true(nfd > 0);
	assert_non_null(mkdtemp(fresh));
	struct eval_thread et = { .o = o };
	et.o.cache = fresh;
	assert_int_equal(pthread_create(&et.th, NULL, eval_thread_main, &et),
			 0);
	sleep(3);
	bool early = aka_cache_used(fresh);
	for (int i = 0; i < nfd; i++) {
		fairlock_release(fds[i], tickets[i]);
		close(fds[i]);
	}
	pthread_join(et.th, NULL);
	assert_false(early);
	assert_int_equal(et.status, RS_OK);
	assert_true(aka_cache_used(fresh));
	rm_rf(fresh);
}

static void
test_gpu_flavour_a_gpumode_extension_is_loaded_by_the_gpu_runner(void **s)
{
	/* The fixture as a GPU task: its .hip file marked as device code
	 * (the emulation's "device" is the CPU, so its body stays host
	 * C++), recorded and built for the host like the emulation's
	 * tensors (ARENA_AKA_RECORD_DEVICE=cpu). */
	char *dir = path_join(cache_dir, "gputasks");
	char *cmd = xasprintf(
		"mkdir -p %s/hip2hip && cp -r %s/tasks/hip2hip/gpumode_leaky "
		"%s/hip2hip/ && sed -i '1i // (device code: __global__ kernels "
		"would be here)' %s/hip2hip/gpumode_leaky/hip/hip_7_LeakyScale.hip",
		dir, aka_root, dir, dir);
	struct opts o = { .task = "hip2hip/gpumode_leaky",
			  .tasks = dir,
			  .device = "cuda:0" };
	struct task_result r;

	(void)s;
	if (!have_fake)
		skip();
	assert_int_equal(system(cmd), 0);
	evaluate(&o, &r);
	expect(&r, RS_OK, NULL);
	assert_int_equal(r.ncases, 3);
	result_release(&r);
	o.cand = "gpumode_leaky/wrong";
	o.skip_timing = true;
	evaluate(&o, &r);
	expect(&r, RS_INCORRECT, "elements are wrong");
	result_release(&r);
	free(cmd);
	free(dir);
}

int main(void)
{
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
	/* The emulation's "device" tensors are CPU tensors: the task is
	 * recorded on the CPU too. */
	setenv("ARENA_AKA_RECORD_DEVICE", "cpu", 1);

	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_a_vllm_folder_is_prepared_and_its_own_kernel_accepted),
		cmocka_unit_test(
			test_a_rocmbench_folder_times_its_benchmarks_and_checks_its_test_shapes),
		cmocka_unit_test(
			test_a_geak_eval_folder_is_prepared_from_its_harness_configs),
		cmocka_unit_test(
			test_an_optimized_kernel_is_accepted_and_faster),
		cmocka_unit_test(
			test_a_gpumode_folder_builds_its_extension_and_accepts_its_own_kernel),
		cmocka_unit_test(
			test_a_gpumode_reference_is_found_by_the_fn_default),
		cmocka_unit_test(
			test_a_faster_gpumode_extension_is_accepted_and_faster),
		cmocka_unit_test(
			test_gpumode_candidates_are_judged_with_their_stated_reasons),
		cmocka_unit_test(
			test_candidates_are_judged_with_their_stated_reasons),
		cmocka_unit_test(
			test_outputs_remembered_by_their_inputs_gain_nothing),
		cmocka_unit_test(
			test_a_harness_that_exits_0_after_printing_fail_is_the_tasks_fault),
		cmocka_unit_test(
			test_a_harness_that_checks_nothing_still_gets_arenas_verdict),
		cmocka_unit_test(
			test_a_harness_arena_cannot_record_is_infra_error_not_skipped),
		cmocka_unit_test(
			test_a_kernel_keeping_state_by_address_is_the_tasks_fault),
		cmocka_unit_test(
			test_rocmbench_tests_taking_pytest_fixtures_are_run_by_pytest),
		cmocka_unit_test(
			test_kernels_launched_from_tests_are_recorded_with_their_grids),
		cmocka_unit_test(
			test_a_vllm_harness_that_times_its_kernel_itself_gives_its_cases),
		cmocka_unit_test(
			test_a_geak_harness_loading_its_kernel_under_aliases_is_recorded),
		cmocka_unit_test(
			test_a_changed_prepared_entry_is_recorded_again_not_trusted),
		cmocka_unit_test(
			test_a_folder_marked_for_amd_is_skipped_without_running_anything),
		cmocka_unit_test(
			test_a_harness_failing_on_an_amd_only_type_is_skipped_not_failed),
		cmocka_unit_test(
			test_gpu_flavour_a_triton_folder_is_accepted_and_a_wrong_kernel_is_not),
		cmocka_unit_test(
			test_gpu_flavour_recording_waits_for_the_device_lock),
		cmocka_unit_test(
			test_gpu_flavour_a_gpumode_extension_is_loaded_by_the_gpu_runner),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

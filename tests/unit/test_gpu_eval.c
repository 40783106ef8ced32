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
 *
 * test-exclusive: its verdicts rest on the controller's clock over fake
 * "device" work that is host processes; beside test_aka_eval, the other
 * long timing suite, on CI's two cores an honest copy was rejected and a
 * shave went uncharged in one run (2026-12-07), as neither does alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/stats.h"
#include "arena/task.h"
#include "arena/util.h"
#include "candidate_variant.h"
#include "eval_check.h"

static struct task *task, *task_unimpl, *task_heavy, *task_place, *task_wide;
static struct task *task_slowref;
static char *fake_root;		/* tests/gpu/fake */
static char cache_dir[] = "/tmp/arena-test-gpu-eval-XXXXXX";
/* Where an evaluation without a log directory of its test's own keeps its
 * logs, emptied before each (eval_check.h prints the trace of one whose
 * verdict was not the one expected). */
static char logs_dir[] = "/tmp/arena-test-gpu-logs-XXXXXX";
/* The fake device every runner of this process shares (gpu_rt_fake.h),
 * shown to confined runners by the GPU profile. */
static char device_dir[] = "/dev/shm/arena-fake-gpu-XXXXXX";
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
	if (mkdtemp(device_dir))
		setenv("ARENA_FAKE_GPU_DIR", device_dir, 1);
	free(runner);
	free(nvcc);
	free(exe);
	free(base);
	if (task_load(fake_root, "task/fakepoly", &task, &err) != 0) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	if (task_load(fake_root, "task/fakepoly_unimpl", &task_unimpl, &err) ||
	    task_load(fake_root, "task/fakeheavy", &task_heavy, &err) ||
	    task_load(fake_root, "task/fakeplace", &task_place, &err) ||
	    task_load(fake_root, "task/fakewide", &task_wide, &err) ||
	    task_load(fake_root, "task/fakeslowref", &task_slowref, &err)) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	if (!mkdtemp(cache_dir) || !mkdtemp(logs_dir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(task);
	task_free(task_unimpl);
	task_free(task_heavy);
	task_free(task_place);
	task_free(task_wide);
	task_free(task_slowref);
	free(fake_root);
	rm_rf(cache_dir);
	rm_rf(device_dir);
	rm_rf(logs_dir);
	return 0;
}

struct opts {
	bool held_out;
	bool skip_timing;
	bool quick;
	int blocks;
	int min_pairs;		/* per block; 0: 5 */
	const char *cache;	/* another cache dir (device file) */
	const struct task *task;	/* another task than fakepoly */
	const char *device;		/* another device than cuda:0 */
	struct eval_mutants *mutants;	/* req.mutants (check-tasks) */
	const char *log_dir;		/* req.log_dir: runner logs kept */
	uint64_t seed;			/* 0: 20261129 */
	bool aa_timing_only;		/* req.aa_timing_only */
	bool defer_teardown;		/* req.defer_teardown */
};

static void evaluate(const char *cand, const struct opts *o,
		     struct task_result *res)
{
	struct eval_request req;

	if (!have_runner)
		skip();
	/* A candidate of tests/gpu/fake/candidates, "task/<name>" for a
	 * task's own baseline (an A/A), or an absolute directory. */
	char *dir = cand[0] == '/' ? xstrdup(cand)
		    : strncmp(cand, "task/", 5) == 0
			    ? xasprintf("%s/%s", fake_root, cand)
			    : xasprintf("%s/candidates/%s", fake_root, cand);
	eval_request_init(&req);
	req.task = o->task ? o->task : task;
	req.candidate_dir = dir;
	req.cache_dir = o->cache ? o->cache : cache_dir;
	req.device = o->device ? o->device : "cuda:0";
	req.seed = o->seed ? o->seed : 20261129;
	req.aa_timing_only = o->aa_timing_only;
	req.defer_teardown = o->defer_teardown;
	req.include_held_out = o->held_out;
	req.skip_timing = o->skip_timing;
	req.quick = o->quick;
	req.mutants = o->mutants;
	req.log_dir = o->log_dir;
	if (!req.log_dir) {
		rm_rf(logs_dir);
		req.log_dir = mkdir(logs_dir, 0700) == 0 ? logs_dir : NULL;
	}
	snprintf(eval_check_logs, sizeof(eval_check_logs), "%s",
		 req.log_dir ? req.log_dir : "");
	req.timing.case_budget_s = 0.3;
	req.timing.blocks = o->blocks > 0 ? o->blocks : 2;
	req.timing.min_pairs = o->min_pairs > 0 ? o->min_pairs : 5;
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

/* Runners that poll for their requests and a controller that polls for
 * the replies (ARENA_RUNNER_SPIN=1; by default, with four CPUs or more,
 * only the runners poll) serve the same protocol: the same verdicts, on
 * two CPUs too. */
static void test_polling_runners_and_controller_keep_the_verdicts(void **s)
{
	struct opts o = { .held_out = true };
	struct task_result r;

	(void)s;
	char *was = getenv("ARENA_RUNNER_SPIN");
	was = was ? xstrdup(was) : NULL;
	setenv("ARENA_RUNNER_SPIN", "1", 1);
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_true(r.candidate_accepted);
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	result_release(&r);
	struct opts h = { .task = task_heavy };
	evaluate("forged_claim", &h, &r);
	if (r.status == RS_OK)
		assert_true(r.speedup_ratio < 2.0);
	else
		expect(&r, RS_REJECTED,
		       "inconsistent with the controller's clock");
	result_release(&r);
	if (was)
		setenv("ARENA_RUNNER_SPIN", was, 1);
	else
		unsetenv("ARENA_RUNNER_SPIN");
	free(was);
}

/* arena check-tasks on a GPU task: the output mutants go through the
 * GPU path's own comparison (correctness_gpu.c, set k of each trial's
 * samples against the reference), every one of them on fakepoly's
 * float32 output, each caught with where and why. */
static void test_output_mutants_are_probed_on_the_gpu_path(void **s)
{
	struct eval_mutants m = { 0 };
	struct opts o = { .held_out = true,
			  .skip_timing = true,
			  .mutants = &m };
	struct task_result r;

	(void)s;
	evaluate("task/fakepoly", &o, &r);
	expect(&r, RS_OK, "");
	assert_int_equal(m.n, EVAL_MUT_COUNT);
	for (int i = 0; i < m.n; i++) {
		assert_true(m.v[i].changed > 0);
		assert_true(m.v[i].caught);
		assert_non_null(strstr(m.v[i].where, "correctness trial"));
		assert_non_null(m.v[i].detail);
	}
	eval_mutants_release(&m);
	result_release(&r);
}

/* check-tasks on a GPU task checks its reference.split on the GPU path
 * too (gpu_sample.c, the first trial of each case): fakepoly's holds
 * (above: its reference runs cut in every fake-GPU test); a copy of
 * fakepoly whose reference also reads the call's first row, right for a
 * whole call and wrong for every row range but the first, does not. */
static void test_a_split_that_does_not_hold_fails_on_the_gpu_path(void **s)
{
	static const char *const files[] = { "config.yaml", "held_out.yaml",
					     "kernel.cu", "reference.c" };
	static const char *const last = "v / 24.0))));";
	char root[] = "/tmp/arena-test-gpu-split-XXXXXX";
	struct eval_mutants m = { 0 };
	struct opts o = { .skip_timing = true, .mutants = &m };
	struct task *bad = NULL;
	struct task_result r;
	struct errbuf err;
	char *ref, *at, *with;
	size_t len;

	(void)s;
	if (!have_runner)
		skip();
	errbuf_init(&err);
	assert_non_null(mkdtemp(root));
	char *dir = path_join(root, "task/fakesplitbad");
	assert_int_equal(mkdir_p(dir, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/task/fakepoly/%s", fake_root,
				       files[i]);
		char *to = path_join(dir, files[i]);
		assert_int_equal(file_copy(from, to, &err), 0);
		free(from);
		free(to);
	}
	char *ref_path = path_join(dir, "reference.c");
	assert_int_equal(file_read_all(ref_path, 1 << 20, &ref, &len, &err), 0);
	assert_non_null(at = strstr(ref, last));
	*at = '\0';
	with = xasprintf("%sv / 24.0))) + 1e-3 * (double)x[0]);%s", ref,
			 at + strlen(last));
	assert_int_equal(file_write_atomic_str(ref_path, with, &err), 0);
	assert_int_equal(task_load(root, "task/fakesplitbad", &bad, &err), 0);
	o.task = bad;
	evaluate(dir, &o, &r);
	expect(&r, RS_INFRA_ERROR, "reference.split 'n' does not hold");
	eval_mutants_release(&m);
	result_release(&r);
	task_free(bad);
	free(with);
	free(ref);
	free(ref_path);
	free(dir);
	rm_rf(root);
}

/* Writes text to dir/name. */
static void write_in(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(file_write_atomic_str(p, text, &err), 0);
	free(p);
}

/* Two inputs with the same init are drawn independently on the device: a
 * task whose output is x - w (fakepair, written here), both x and w
 * normal, and a candidate that writes zeros, right only if the two were
 * the same, is incorrect; the baseline is accepted.  (Until 2026-12-03
 * every input of a sample was drawn from one seed, so equal inits gave
 * equal values: torch2hip/jsd_loss's student and teacher were one tensor,
 * its loss and gradient zero everywhere, and check-tasks found its
 * mutants too weak.) */
static void test_inputs_with_the_same_init_are_drawn_apart(void **s)
{
	static const char cfg[] =
		"schema: arena/1\n"
		"description: y = x - w, a private task of test_gpu_eval.\n"
		"language: cuda\n"
		"editable: [kernel.cu]\n"
		"reference: {file: reference.c, language: c}\n"
		"signature:\n"
		"  params: [n]\n"
		"  args:\n"
		"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
		"    - {name: w, dtype: f32, shape: [n], io: in, init: normal}\n"
		"    - {name: y, dtype: f32, shape: [n], io: out}\n"
		"cases:\n"
		"  - {id: medium, n: 262144}\n"
		"tolerance: {atol: 1e-5, rtol: 1e-5}\n"
		"cost: {bytes: \"12*n\", flops: \"n\"}\n";
	static const char body[] =
		"#include \"arena/kernel.h\"\n"
		"%sARENA_EXPORT int arena_launch(const arena_arg *a,"
		" int na, const int64_t *p, int np, void *s)\n"
		"{\n"
		"\t(void)na; (void)np; (void)s;\n"
		"\tconst float *x = (const float *)a[0].data;\n"
		"\tconst float *w = (const float *)a[1].data;\n"
		"\tfloat *y = (float *)a[2].data;\n"
		"\tfor (int64_t i = 0; i < p[0]; i++)\n"
		"\t\ty[i] = %s;\n"
		"\treturn 0;\n"
		"}\n";
	char root[] = "/tmp/arena-test-gpu-pair-XXXXXX";
	struct opts o = { .skip_timing = true };
	struct task *pair = NULL;
	struct task_result r;
	struct errbuf err;

	(void)s;
	if (!have_runner)
		skip();
	errbuf_init(&err);
	assert_non_null(mkdtemp(root));
	char *dir = path_join(root, "task/fakepair");
	char *zeros = path_join(root, "zeros");
	assert_int_equal(mkdir_p(dir, &err), 0);
	assert_int_equal(mkdir_p(zeros, &err), 0);
	/* The kernels are C++ (extern "C"), the reference C. */
	char *base = xasprintf(body, "extern \"C\" ", "x[i] - w[i]");
	char *ref = xasprintf(body, "", "x[i] - w[i]");
	char *zero = xasprintf(body, "extern \"C\" ", "0.0f");
	write_in(dir, "config.yaml", cfg);
	write_in(dir, "kernel.cu", base);
	write_in(dir, "reference.c", ref);
	write_in(zeros, "kernel.cu", zero);
	free(base);
	free(ref);
	free(zero);
	assert_int_equal(task_load(root, "task/fakepair", &pair, &err), 0);
	o.task = pair;
	evaluate(dir, &o, &r);
	expect(&r, RS_OK, "");
	result_release(&r);
	evaluate(zeros, &o, &r);
	expect(&r, RS_INCORRECT, "differs from baseline");
	result_release(&r);
	task_free(pair);
	free(zeros);
	free(dir);
	rm_rf(root);
}

/* req->defer_teardown: eval_run returns with the verdict and a thread of
 * its own reaps the killed runners; only then does it write the trace's
 * last mark and let the device lock go.  After eval_teardown_wait()
 * every runner is reaped and the trace says so, in that order. */
static void test_a_deferred_teardown_reaps_every_runner_after_the_verdict(
	void **s)
{
	char dir[] = "/tmp/arena-test-gpu-teardown-XXXXXX";
	struct opts o = { .defer_teardown = true };
	struct task_result r;
	char line[4096], last[4096] = "";
	bool done_mark = false;
	int st;

	(void)s;
	if (!have_runner)
		skip();
	assert_non_null(mkdtemp(dir));
	o.log_dir = dir;
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	eval_teardown_wait();
	errno = 0;
	assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	char *path = path_join(dir, "timing.tsv");
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		/* Timed exclusively; torn down shared. */
		if (strstr(line, "evaluation done;") &&
		    strstr(line, "runners reaped after it (the device lock "
				 "kept shared meanwhile)"))
			done_mark = true;
		snprintf(last, sizeof(last), "%s", line);
	}
	fclose(f);
	assert_true(done_mark);
	assert_non_null(strstr(last, "device lock released (runners reaped "
				     "after the verdict)"));
	eval_teardown_wait(); /* nothing pending: returns at once */
	result_release(&r);
	free(path);
	rm_rf(dir);
}

/* By default every timed call is enqueued behind the gate's held stream
 * (`time <n> hold`), and ARENA_GPU_HOLD_LAUNCH=0 turns that off.  The
 * fake runtime runs a launch at once, so this holds the protocol, not the
 * timing: an honest candidate is accepted and the method says how it was
 * timed, and a runner that forges its claims is still named by the
 * controller's clock (docs/gpu.md, "Launches behind a held stream"). */
static void test_held_launches_keep_the_verdicts(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	setenv("ARENA_GPU_HOLD_LAUNCH", "0", 1);
	evaluate("baseline_copy", &o, &r);
	unsetenv("ARENA_GPU_HOLD_LAUNCH");
	expect(&r, RS_OK, "");
	assert_null(strstr(r.benchmark_method, "held stream"));
	result_release(&r);
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_non_null(strstr(r.benchmark_method, "held stream"));
	result_release(&r);
	o.task = task_heavy;
	evaluate("forged_claim", &o, &r);
	/* Rejected by name, or (a clock too noisy to call it gross) charged
	 * back to no gain: its claims alone say 4x. */
	if (r.status == RS_OK) {
		assert_true(r.speedup_ratio < 2.0);
	} else {
		expect(&r, RS_REJECTED,
		       "inconsistent with the controller's clock");
	}
	result_release(&r);
}

/* The precision mutant of fakepoly's y, under a task tolerance of rtol
 * 1e-2 (which lets bf16 rounding through) with y's own tolerance own_rtol
 * (0: none): whether the GPU path's comparison caught it. */
static bool gpu_precision_mutant_caught(double own_rtol)
{
	struct eval_mutants m = { 0 };
	struct opts o = { .skip_timing = true, .mutants = &m };
	struct task_result r;
	double atol = task->atol, rtol = task->rtol;
	bool caught = false;

	task->rtol = 1e-2;
	task->args[1].tol_set = own_rtol > 0;
	task->args[1].atol = 1e-5;
	task->args[1].rtol = own_rtol;
	evaluate("task/fakepoly", &o, &r);
	task->atol = atol;
	task->rtol = rtol;
	task->args[1].tol_set = false;
	expect(&r, RS_OK, "");
	for (int i = 0; i < m.n; i++)
		if (m.v[i].kind == EVAL_MUT_PRECISION) {
			assert_true(m.v[i].changed > 0);
			caught = m.v[i].caught;
		}
	eval_mutants_release(&m);
	result_release(&r);
	return caught;
}

static void test_an_outputs_own_tolerance_holds_on_the_gpu_path(void **s)
{
	(void)s;
	assert_false(gpu_precision_mutant_caught(0));
	assert_true(gpu_precision_mutant_caught(1e-5));
}

static bool trace_has(const char *dir, const char *text);

/* The blocks of each timed case of a quick evaluation whose trace is in
 * dir: one, the correctness pair's, or two fresh pairs' where the case
 * was timed again (0eaf977). */
static void expect_quick_blocks(const char *dir, const struct task_result *r)
{
	for (int i = 0; i < r->ncases; i++) {
		if (!r->cases[i].timed)
			continue;
		char *mark = xasprintf("case %s: clock check failed once",
				       r->cases[i].id);
		assert_int_equal(r->cases[i].blocks,
				 trace_has(dir, mark) ? 2 : 1);
		free(mark);
	}
}

/* A quick evaluation times on the correctness pair alone: one block.
 * What that pair would charge is never combined with another pair's
 * (test_a_quick_charge_is_timed_again_on_a_fresh_pair); a case timed
 * again (the trace says so) was timed on two fresh pairs, two blocks
 * (0eaf977). */
static void test_quick_evaluation_reuses_the_correctness_runners(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-quick-XXXXXX";
	struct opts o = { .quick = true, .log_dir = dir };
	struct task_result r;

	(void)s;
	assert_non_null(mkdtemp(dir));
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	assert_true(r.ncases > 0 && r.cases[0].timed);
	expect_quick_blocks(dir, &r);
	result_release(&r);
	rm_rf(dir);
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

/* The trace's word on how many sets of tiny_batched's batch are
 * compared, or -1. */
static int compared_sets(const char *dir, int *calls)
{
	char *path = path_join(dir, "timing.tsv"), line[1024];
	FILE *f = fopen(path, "r");
	int got = -1;

	free(path);
	while (f && fgets(line, sizeof(line), f)) {
		const char *m = strstr(line, "case tiny_batched: ");
		const char *p = strstr(line, "per call), ");
		if (m && p && sscanf(m, "case tiny_batched: %d", calls) == 1)
			got = atoi(p + strlen("per call), "));
	}
	if (f)
		fclose(f);
	return got;
}

/* Of a batch too large to compare whole, a few sets are compared
 * (ev_gpu_compare_pick; here the bound is shrunk so that tiny_batched's
 * batch is one): an honest candidate still passes, and one that skips a
 * call in four is found in the sets drawn. */
static void test_a_batch_compared_in_part_still_finds_a_skipped_call(void **s)
{
	struct opts o = { 0 };
	struct task_result r;
	char dir[] = "/tmp/arena-test-gpu-fetch-XXXXXX";
	int calls = 0;

	(void)s;
	assert_non_null(mkdtemp(dir));
	o.log_dir = dir;
	setenv("ARENA_GPU_COMPARE_MAX_KIB", "16", 1);
	evaluate("baseline_copy", &o, &r);
	expect(&r, RS_OK, "");
	result_release(&r);
	int got = compared_sets(dir, &calls);
	fprintf(stderr, "  tiny_batched: %d of %d sets compared\n", got, calls);
	assert_true(got >= 2 && got < calls);
	evaluate("skip_set", &o, &r);
	unsetenv("ARENA_GPU_COMPARE_MAX_KIB");
	rm_rf(dir);
	expect(&r, RS_INCORRECT, "");
	result_release(&r);
}

/* A kernel that skips every other call of the medium case's batches and
 * makes one up only when its runner is asked to fetch that set, inside
 * the `fetch` request: every set is fetched, so it does all of that work
 * there in every sample, which the clock names (were only the compared
 * sets fetched, it would work in the samples whose draw held a skipped
 * set, and no more: so patched, ok at 1.257 and 1.265 in two of three
 * runs here, the third named).  4 ms batches (7-12 calls of medium), 2
 * sets compared. */
static void test_a_skipped_call_made_up_in_the_fetch_is_charged(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	setenv("ARENA_GPU_BATCH_TARGET_US", "4000", 1);
	setenv("ARENA_GPU_COMPARE_MAX_KIB", "16", 1);
	evaluate("lazy_fetch", &o, &r);
	unsetenv("ARENA_GPU_COMPARE_MAX_KIB");
	unsetenv("ARENA_GPU_BATCH_TARGET_US");
	/* The fetch's own excess names it; when the load of the moment
	 * makes the sample's clock check (inputs drawn to outputs computed,
	 * the fetch included) trip first, that check does (CI of afffd38):
	 * either is the made-up call found outside the claims.  A load that
	 * keeps the distribution-free bound from naming it leaves the
	 * charge: passed when it leaves no gain.  Under heavy load this
	 * still fails now and then (ok at 1.329 in CI of 2f790ef, 1.473
	 * beside three busy loops here): the fake GPU's claims are the
	 * host's clock, and a preempted window inflates them (docs/gpu.md,
	 * "A clock too noisy"). */
	if (r.status == RS_OK)
		assert_true(r.speedup_ratio < 1.0);
	else
		expect_either(&r, RS_REJECTED,
			      "work done after the timed calls",
			      "inconsistent with the controller's clock");
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
	/* After the correctness samples, one call under the check. */
	expect(&r, RS_REJECTED, "the ordering check");
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
	 * as it did once in CI: rejected when gross, else charged back to
	 * no gain (seen once here on a loaded machine: ok at 0.39). */
	const char *census = "work left running after arena_launch";
	bool by_census = (r.correctness_error_message &&
			  strstr(r.correctness_error_message, census)) ||
			 (r.speedup_calculation_error_message &&
			  strstr(r.speedup_calculation_error_message, census));
	if (!by_census && r.status == RS_OK)
		assert_true(r.speedup_ratio < 1.0);
	else
		expect(&r, RS_REJECTED,
		       by_census ? census
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
	/* The systematic floor (GPU_SYSTEMATIC_REL): no GPU interval is
	 * narrower than +-0.2% around its point, the case's nor the task's. */
	assert_true(r.cases[1].ci_hi >= r.cases[1].speedup * 1.002 * (1 - 1e-12));
	assert_true(r.cases[1].ci_lo <= r.cases[1].speedup / 1.002 * (1 + 1e-12));
	assert_true(r.speedup_ci_hi >= r.speedup_ratio * 1.002 * (1 - 1e-12));
	assert_true(r.speedup_ci_lo <= r.speedup_ratio / 1.002 * (1 + 1e-12));
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

/* ---- issue 10: what the controller's clock, the keeper and the
 * reference catch (docs/gpu.md section 6; task/fakeheavy's calls take
 * milliseconds, so that moved work stands out from a loaded machine's
 * noise) ---- */

static void test_heavy_baseline_against_itself_is_accepted(void **s)
{
	/* fakeheavy's calls are milliseconds of CPU work on the emulated
	 * device, so on a loaded machine every call can lose a time slice:
	 * under three busy loops on two cores its per-pair ratios spread
	 * from 0.13 to 2.97 (median 1.005 over 60 pairs), and the median of
	 * 6 pairs a block left this A/A at 0.81 and 0.83 in two runs.  16
	 * pairs a block keep the estimate near 1 on such a machine (the
	 * point of the test: no gain for the same code) at about 0.5 s more
	 * on an idle one. */
	struct opts o = { .task = NULL, .min_pairs = 16 };
	struct task_result r;

	(void)s;
	o.task = task_heavy;
	evaluate("task/fakeheavy", &o, &r);
	expect(&r, RS_OK, "");
	assert_true(r.speedup_ratio > 0.5 && r.speedup_ratio < 2.0);
	result_release(&r);
}

static void test_honest_closed_form_is_accepted_with_its_speedup(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;

	(void)s;
	o.task = task_heavy;
	evaluate("closed_form", &o, &r);
	expect(&r, RS_OK, "");
	/* One pow per call instead of 8 million steps. */
	assert_true(r.speedup_ratio > 10.0);
	result_release(&r);
}

/* ---- placement: both roles alike ---- */

struct place_line {
	unsigned bits;
	unsigned long x, y;
};

/* The "place" lines task/fakeplace's kernel wrote to a runner log. */
static int read_places(const char *dir, const char *name,
		       struct place_line **out)
{
	char *path = path_join(dir, name), line[256];
	FILE *f = fopen(path, "r");
	int n = 0, cap = 0;
	struct place_line *v = NULL, p;

	free(path);
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "place %x %lu %lu", &p.bits, &p.x, &p.y) ==
		    3) {
			if (n == cap) {
				cap = cap ? 2 * cap : 1024;
				v = xrealloc(v, (size_t)cap * sizeof(*v));
			}
			v[n++] = p;
		}
	fclose(f);
	*out = v;
	return n;
}

/* Where a buffer lies can change a kernel's speed (an atomics-bound dot
 * on the H200: 487 or 515 us by runner process), so the two runners of a
 * pair must place every argument alike, and the placement must change
 * from sample to sample rather than stay one per process
 * (arena_runner_gpu.cpp, "Placement").  Each candidate call is matched to
 * the baseline's calls on the same inputs (x[0] names a sample's set);
 * the one call per case under the ordering check, which puts a trial's
 * set into set 0, is the only one allowed to differ. */
static void test_both_runners_of_a_pair_place_buffers_alike(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;
	char dir[] = "/tmp/arena-test-gpu-place-XXXXXX";
	struct place_line *b = NULL, *c = NULL;
	unsigned long seen[64];
	int nseen = 0, matched = 0, unmatched = 0;

	(void)s;
	assert_non_null(mkdtemp(dir));
	o.task = task_place;
	o.log_dir = dir;
	evaluate("task/fakeplace", &o, &r);
	expect(&r, RS_OK, "");
	int nb = read_places(dir, "runner-baseline.log", &b);
	int nc = read_places(dir, "runner-candidate.log", &c);
	for (int i = 0; i < nc; i++) {
		bool same = false, found = false;
		for (int j = 0; j < nb && !same; j++)
			if (b[j].bits == c[i].bits) {
				found = true;
				same = b[j].x == c[i].x && b[j].y == c[i].y;
			}
		if (found && same)
			matched++;
		else
			unmatched++;
		bool known = false;
		for (int k = 0; k < nseen; k++)
			known |= seen[k] == c[i].y;
		if (!known && nseen < 64)
			seen[nseen++] = c[i].y;
	}
	fprintf(stderr,
		"  placement: %d candidate calls, %d matched, %d not, "
		"%d distinct offsets of y\n",
		nc, matched, unmatched, nseen);
	assert_true(matched >= 20);
	assert_true(unmatched <= 1);
	assert_true(nseen >= 4);
	free(b);
	free(c);
	result_release(&r);
	rm_rf(dir);
}

/* ---- blocks.tsv: what tells a charged bias from a runner's ---- */

/* The median of base/cand claims of case's timed pairs in block b, from
 * timing.tsv's pair lines: of the case's last timing (a case whose clock
 * check failed once is timed again with fresh runners, and the second
 * timing decides; under load, an A/A's first timing can fail it). */
static double traced_block_median(const char *dir, const char *cs, int b)
{
	char *path = path_join(dir, "timing.tsv"), line[4096];
	char *again = xasprintf("case %s: clock check failed once", cs);
	FILE *f = fopen(path, "r");
	double v[4096];
	size_t n = 0;

	free(path);
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < 4096) {
		char c[64], kind[16];
		int blk, num, batch, first;
		long long bc, cc;
		if (line[0] == '#' && strstr(line, again))
			n = 0;
		if (sscanf(line,
			   "%63[^\t]\t%d\t%15[^\t]\t%d\t%d\t%d\t%lld\t%lld", c,
			   &blk, kind, &num, &batch, &first, &bc, &cc) == 8 &&
		    !strcmp(c, cs) && blk == b && !strcmp(kind, "timed") &&
		    cc > 0)
			v[n++] = (double)bc / (double)cc;
	}
	fclose(f);
	free(again);
	assert_true(n > 0);
	stats_sort(v, n);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A shared offset in an A/A is either the charged excess (the claims'
 * medians near 1, the charged ones not) or the runners': blocks.tsv has
 * one line per block of every timed case with both runners' processes,
 * where they said their buffers lie, the block's median ratio of the
 * claims (as timing.tsv's pairs give it) and as charged (never above
 * it: the charge only adds to the candidate). */
static void test_blocks_log_names_each_blocks_runners_and_ratios(void **s)
{
	struct opts o = { .blocks = 3, .aa_timing_only = true };
	struct task_result r;
	char dir[] = "/tmp/arena-test-gpu-blocks-XXXXXX", line[16][1024];
	int n = 0, blocks = 0;

	(void)s;
	assert_non_null(mkdtemp(dir));
	o.log_dir = dir;
	evaluate("task/fakepoly", &o, &r);
	expect(&r, RS_OK, "");
	char *path = path_join(dir, "blocks.tsv");
	FILE *f = fopen(path, "r");
	free(path);
	assert_non_null(f);
	assert_non_null(fgets(line[0], sizeof(line[0]), f));
	assert_non_null(strstr(line[0], "claims_ratio\tcharged_ratio"));
	while (n < 16 && fgets(line[n], sizeof(line[0]), f))
		n++;
	fclose(f);
	char c[16][64];
	int b[16];
	for (int i = 0; i < n; i++) {
		int pairs;
		long bp, cp;
		unsigned long long blo, bhi, clo, chi;
		double claims, charged, ex, fex;
		assert_int_equal(sscanf(line[i],
					"%63[^\t]\t%d\t%ld\t%ld\t%llx\t%llx\t"
					"%llx\t%llx\t%d\t%lf\t%lf\t%lf\t%lf",
					c[i], &b[i], &bp, &cp, &blo, &bhi, &clo,
					&chi, &pairs, &claims, &charged, &ex, &fex),
				 13);
		assert_true(b[i] >= 0 && b[i] < 3);
		assert_true(bp > 0 && cp > 0 && bp != cp);
		assert_true(blo > 0 && blo < bhi && clo > 0 && clo < chi);
		assert_true(pairs >= 5);
		assert_true(charged <= claims * (1 + 1e-9));
		assert_true(ex >= 0 && fex >= 0);
	}
	/* A case timed again (its clock check failed once, as an A/A's can
	 * under load) has a line per block of each timing: the last one
	 * stands, and holds the median of that timing's traced pairs. */
	for (int i = 0; i < n; i++) {
		bool later = false;
		for (int k = i + 1; k < n; k++)
			later |= !strcmp(c[k], c[i]) && b[k] == b[i];
		if (later)
			continue;
		double claims = 0;
		assert_int_equal(sscanf(line[i],
					"%*[^\t]\t%*d\t%*d\t%*d\t%*x\t%*x\t"
					"%*x\t%*x\t%*d\t%lf",
					&claims),
				 1);
		assert_true(fabs(claims - traced_block_median(dir, c[i], b[i])) <
			    1e-5 * claims);
		blocks++;
	}
	/* Both cases are timed (the task's floor is 0), three blocks each. */
	assert_int_equal(blocks, 6);
	result_release(&r);
	rm_rf(dir);
}

static void test_work_done_while_the_runner_draws_inputs_is_rejected(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;

	(void)s;
	o.task = task_heavy;
	evaluate("gen_window", &o, &r);
	expect(&r, RS_REJECTED, "inconsistent with the controller's clock");
	expect(&r, RS_REJECTED, "timed a second time");
	result_release(&r);
}

/* tests/gpu/fake/candidates/<name> with `#define <macro> <value>`, in a
 * new directory under cache_dir; the caller frees the path. */
static char *fake_variant(const char *name, const char *macro, int value)
{
	char *src = xasprintf("%s/candidates/%s", fake_root, name);
	char *dir = candidate_variant(src, "kernel.cu", cache_dir, macro,
				      value);

	free(src);
	return dir;
}

/* The same work done while the runner serves `fetch`, after the timed
 * calls and before their outputs are copied back, is in the clock too:
 * every set of a batch is fetched (only the comparison is drawn from
 * them), so a kernel cannot learn which sets will be looked at and
 * compute only those there. */
static void test_work_done_while_the_runner_fetches_is_rejected(void **s)
{
	struct opts o = { .task = task_heavy };
	struct task_result r;
	char *dir = fake_variant("gen_window", "GEN_WINDOW_AT_FETCH", 1);

	(void)s;
	evaluate(dir, &o, &r);
	free(dir);
	expect(&r, RS_REJECTED, "inconsistent with the controller's clock");
	result_release(&r);
}

/* Whether a line of <dir>/<name> holds text. */
static bool log_has(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name), line[4096];
	FILE *f = fopen(path, "r");
	bool found = false;

	free(path);
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	fclose(f);
	return found;
}

/* Whether <dir>/timing.tsv has a line containing text. */
static bool trace_has(const char *dir, const char *text)
{
	return log_has(dir, "timing.tsv", text);
}

/* A quick evaluation of cand on task/fakeheavy, its trace kept in dir
 * (a mkdtemp template). */
static void evaluate_quick_traced(const char *cand, char *dir,
				  struct task_result *r)
{
	struct opts o = { .task = task_heavy, .quick = true, .log_dir = dir };

	assert_non_null(mkdtemp(dir));
	evaluate(cand, &o, r);
}

/* A quick evaluation times one pair of runner processes, whose own offset
 * in the overheads would be charged as the candidate's: a charge from
 * that pair is timed again on a fresh pair, which decides alone
 * (timing_gpu.c, gpu_claims_ok).  A candidate that works outside its
 * claims in every process is found again and rejected. */
static void test_a_quick_charge_is_timed_again_on_a_fresh_pair(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-confirm-XXXXXX";
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_quick_traced("gen_window", dir, &r);
	expect(&r, RS_REJECTED, "inconsistent with the controller's clock");
	expect(&r, RS_REJECTED, "timed a second time with fresh runners");
	assert_true(trace_has(dir, "timing it again"));
	result_release(&r);
	rm_rf(dir);
}

/* Evaluates candidate with ARENA_GPU_CAPTURE=capture (NULL: as it is)
 * and its logs in dir, a mkdtemp template made here and left for the
 * caller's trace checks: *r, and its timed pairs run from captures and
 * live. */
static void evaluate_logged(const char *candidate, const char *capture,
			    char *dir, struct task_result *r, int *captured,
			    int *live)
{
	struct opts o = { .log_dir = dir };

	assert_non_null(mkdtemp(dir));
	if (capture)
		setenv("ARENA_GPU_CAPTURE", capture, 1);
	evaluate(candidate, &o, r);
	if (capture)
		unsetenv("ARENA_GPU_CAPTURE");
	eval_check_graph_pairs(dir, captured, live);
}

/* Batches captured before their inputs exist (the default on an NVIDIA
 * device, set here whatever the default): an honest copy of the baseline is ok with
 * every timed pair launched from its captures; a kernel whose calls
 * cannot be captured turns captures off for both runners (a pair timed
 * one way against the other would charge the live one), the trace says
 * whose, and its honest verdict stands. */
static void test_batches_run_from_captures_or_live_in_both(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-capture-XXXXXX";
	char dir2[] = "/tmp/arena-test-gpu-capture-XXXXXX";
	struct task_result r;
	int captured, live;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_logged("baseline_copy", "1", dir, &r, &captured, &live);
	expect(&r, RS_OK, "");
	result_release(&r);
	fprintf(stderr, "  baseline_copy: %d pairs captured, %d live\n",
		captured, live);
	assert_true(captured > 0);
	assert_int_equal(live, 0);
	rm_rf(dir);

	evaluate_logged("no_capture", "1", dir2, &r, &captured, &live);
	expect(&r, RS_OK, "");
	result_release(&r);
	assert_int_equal(captured, 0);
	assert_true(live > 0);
	assert_true(trace_has(dir2, "the candidate's timed calls could not be "
				    "captured (a call returned 7)"));
	rm_rf(dir2);
}

/* Work left running on the device from a capture (a kernel that would
 * wait there for the coming inputs) is the capturing runner's: the
 * keeper probes the device right after each capture.  On a device of
 * its own, since the fake device stays busy a while after. */
static void test_work_left_running_from_a_capture_is_rejected(void **s)
{
	char dev[] = "/dev/shm/arena-fake-gpu-capture-XXXXXX";
	const char *shared = getenv("ARENA_FAKE_GPU_DIR");
	char *keep = shared ? xstrdup(shared) : NULL;
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	assert_non_null(mkdtemp(dev));
	setenv("ARENA_FAKE_GPU_DIR", dev, 1);
	setenv("ARENA_GPU_CAPTURE", "1", 1);
	evaluate("capture_leftover", &o, &r);
	unsetenv("ARENA_GPU_CAPTURE");
	if (keep)
		setenv("ARENA_FAKE_GPU_DIR", keep, 1);
	free(keep);
	/* Named as the candidate's, whether the keeper found the device
	 * still busy or could not probe it at all (the fake's leftover
	 * outlasts the keeper's wait for an answer). */
	expect(&r, RS_REJECTED, "work left running on the device");
	expect(&r, RS_REJECTED, "capture");
	result_release(&r);
	rm_rf(dev);
}

/* Captures are the default on an NVIDIA device (the fake's kind), and
 * ARENA_GPU_CAPTURE=0 turns them off, as they are on an AMD device: the
 * method says which, and each way keeps the verdicts (an honest copy
 * accepted, a forger named by the controller's clock or charged back). */
static void test_captured_and_live_batches_keep_the_verdicts(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-live-XXXXXX";
	char dir2[] = "/tmp/arena-test-gpu-live-XXXXXX";
	struct opts o = { .task = task_heavy };
	struct task_result r;
	int captured, live;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_logged("baseline_copy", NULL, dir, &r, &captured, &live);
	expect(&r, RS_OK, "");
	assert_non_null(strstr(r.benchmark_method,
			       "captured before their inputs existed"));
	result_release(&r);
	assert_true(captured > 0);
	assert_int_equal(live, 0);
	rm_rf(dir);

	evaluate_logged("baseline_copy", "0", dir2, &r, &captured, &live);
	expect(&r, RS_OK, "");
	assert_null(strstr(r.benchmark_method, "captured"));
	result_release(&r);
	assert_int_equal(captured, 0);
	assert_true(live > 0);
	rm_rf(dir2);
	setenv("ARENA_GPU_CAPTURE", "0", 1);
	evaluate("forged_claim", &o, &r);
	unsetenv("ARENA_GPU_CAPTURE");
	if (r.status == RS_OK)
		assert_true(r.speedup_ratio < 2.0);
	else
		expect(&r, RS_REJECTED,
		       "inconsistent with the controller's clock");
	result_release(&r);
}

/* A kernel whose graph replays a decision taken on the stale data of
 * its capture (one that reads its input on the host) is wrong only when
 * replayed: the pair runs again live, every later batch too, and its
 * honest verdict stands. */
static void test_a_kernel_wrong_only_when_replayed_is_timed_live(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-stale-XXXXXX";
	struct task_result r;
	int captured, live;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_logged("capture_stale", "1", dir, &r, &captured, &live);
	expect(&r, RS_OK, "");
	assert_non_null(strstr(r.benchmark_method, "then live"));
	result_release(&r);
	assert_true(trace_has(dir, "replayed from captures, were wrong"));
	assert_int_equal(captured, 0);
	assert_true(live > 0);
	rm_rf(dir);
}

/* With ARENA_GPU_PAIR_CPU=1 (opt-in) each pair's two runners are held
 * to one CPU, not the controller's, for the pair (host_pin.c,
 * gpu_pair_cpu): the trace says which, and the verdict is the honest
 * one.  A machine of one CPU has none to spare. */
static void test_a_pairs_runners_can_be_held_to_one_cpu(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-paircpu-XXXXXX";
	struct task_result r;
	int captured, live;

	(void)s;
	if (!have_runner || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		skip();
	setenv("ARENA_GPU_PAIR_CPU", "1", 1);
	evaluate_logged("baseline_copy", NULL, dir, &r, &captured, &live);
	unsetenv("ARENA_GPU_PAIR_CPU");
	expect(&r, RS_OK, "");
	result_release(&r);
	assert_true(trace_has(dir, "each pair's runners held to CPU"));
	assert_true(captured + live > 0);
	rm_rf(dir);
}

/* A host thread started while capturing, which waits for the coming
 * inputs, writes the outputs ahead of the timed replay and is gone before
 * the sample ends: the candidate runner's threads are counted right after
 * its capture, as after every call. */
static void test_a_thread_started_while_capturing_is_rejected(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	setenv("ARENA_GPU_CAPTURE", "1", 1);
	evaluate("capture_thread", &o, &r);
	unsetenv("ARENA_GPU_CAPTURE");
	expect(&r, RS_REJECTED, "work left running after");
	expect(&r, RS_REJECTED, "while capturing its timed calls");
	result_release(&r);
}

/* The same cheat only in a runner that served the correctness phase's
 * `call` - the pair a quick evaluation times first - and honest in fresh
 * ones: the first timing's charge sends the case to a fresh pair, which
 * decides alone, so the cheat gains nothing and costs the honest result
 * nothing either. */
static void test_a_cheat_only_in_the_first_pair_of_processes_gains_nothing(
	void **s)
{
	char dir[] = "/tmp/arena-test-gpu-first-XXXXXX";
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	char *cand = fake_variant("gen_window", "GEN_WINDOW_FIRST_PROCESS_ONLY",
				  1);
	evaluate_quick_traced(cand, dir, &r);
	expect(&r, RS_OK, "");
	assert_true(trace_has(dir, "timing it again"));
	/* Timed again on two fresh pairs of processes. */
	expect_quick_blocks(dir, &r);
	/* What an honest copy of the baseline would get, within the noise of
	 * one quick pair (0.87-1.36 on a loaded 2-core machine); had the
	 * first pair counted, its claims would be next to nothing (its
	 * outputs done before the timed calls), far above 2. */
	assert_true(r.speedup_ratio < 2.0);
	result_release(&r);
	free(cand);
	rm_rf(dir);
}

static void test_forged_claims_are_rejected_by_the_controllers_clock(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;

	(void)s;
	o.task = task_heavy;
	evaluate("forged_claim", &o, &r);
	/* Named by the clock; on a machine so loaded that the sign test
	 * cannot confirm a gross excess, charged back to no gain (its claims
	 * alone say 4x).  There is no clock-alone fallback any more. */
	if (r.status == RS_OK) {
		assert_true(r.speedup_ratio < 2.0);
	} else {
		expect(&r, RS_REJECTED,
		       "inconsistent with the controller's clock");
	}
	result_release(&r);
}

/* What the last "charged excess" mark of a timing.tsv says, in us: the
 * charge, the `time` request's own strict bound, its floor's strict bound
 * (-1 where the mark has none) and the candidate's median claim; found
 * false without a mark or a file. */
struct traced_charge {
	bool found;
	double charged, alone, floor, gate, claim;
	int gated; /* pairs whose gates the controller opened */
};

static void read_traced_charge(const char *dir, struct traced_charge *t)
{
	char *path = path_join(dir, "timing.tsv"), line[4096];
	FILE *f = fopen(path, "r");

	free(path);
	memset(t, 0, sizeof(*t));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		const char *m = strstr(line, ": charged excess ");
		const char *a = strstr(line, "the time request alone ");
		const char *l = strstr(line, "; its floor ");
		const char *c = strstr(line, "candidate's median claim ");
		const char *g = strstr(line, "the controller's gate to the "
					     "reply ");
		if (!m || !a || !c)
			continue;
		t->gate = g ? atof(g + strlen("the controller's gate to the "
					      "reply "))
			    : -1;
		const char *gp = g ? strstr(g, " us over ") : NULL;
		t->gated = gp ? atoi(gp + strlen(" us over ")) : -1;
		t->charged = atof(m + strlen(": charged excess "));
		t->alone = atof(a + strlen("the time request alone "));
		t->floor = l ? atof(l + strlen("; its floor ")) : -1;
		t->claim = atof(c + strlen("candidate's median claim "));
		t->found = true;
	}
	fclose(f);
}

/* cand evaluated on the heavy task (6 blocks of 10 pairs) with the fake
 * GPU's noise knob set to `us` microseconds (gpu_rt_fake.h), and what its
 * timing.tsv says it was charged (t->found false when no case was
 * timed). */
static void evaluate_noisy_with(const char *cand, struct opts *o,
				const char *knob, const char *us,
				struct task_result *r, struct traced_charge *t)
{
	char dir[] = "/tmp/arena-test-gpu-noisy-XXXXXX";

	assert_non_null(mkdtemp(dir));
	o->log_dir = dir;
	setenv(knob, us, 1);
	evaluate(cand, o, r);
	unsetenv(knob);
	read_traced_charge(dir, t);
	rm_rf(dir);
}

static void evaluate_noisy(const char *cand, const char *knob, const char *us,
			   struct task_result *r, struct traced_charge *t)
{
	struct opts o = { .task = task_heavy, .blocks = 6, .min_pairs = 10 };

	evaluate_noisy_with(cand, &o, knob, us, r, t);
}

/* A shaving candidate's verdict: named by the clock (no gain either), or
 * accepted with at least 1/part of its shave charged back.  It reports
 * 93% of the time it took, so 7/93 of its median claim (a shaved one) is
 * the shave; the charge is the largest of its columns, never below the
 * `time` request's own bound or its floor's. */
static void expect_shave_charged(const char *name, struct task_result *r,
				 const struct traced_charge *t, int part)
{
	if (r->status != RS_OK) {
		expect(r, RS_REJECTED,
		       "inconsistent with the controller's clock");
		return;
	}
	assert_true(t->found);
	double shaved = t->claim * 7 / 93;
	fprintf(stderr,
		"  %s: shaved %.1f us a sample; time request alone %.1f us, its "
		"floor %.1f us, the controller's gate %.1f us, charged %.1f "
		"us; speedup %.4f\n",
		name, shaved, t->alone, t->floor, t->gate, t->charged,
		r->speedup_ratio);
	assert_true(t->charged >= t->alone);
	assert_true(t->floor >= 0 && t->charged >= t->floor);
	assert_true(t->charged >= shaved / part);
}

/* A runner that claims a little less than its batch took, below the
 * gross line, is not named but charged: its `time` request's wall beyond
 * the claim, against the baseline's, is a confirmed excess with far less
 * noise than the whole sample's (timing_gpu.c, gpu_ratios).  With every
 * gen up to 20 ms longer at random, the whole sample's excess alone left
 * the 1.3 ms shaved from each ~18 ms sample uncharged (1.035-1.084 in six
 * runs here).  The charge is what is held, not the speedup: under the
 * load of a full `make test` the claims alone moved the speedup by 4%
 * (1.043 [0.830, 1.312], 2026-12-05).  Charged, of the shave: 92-98%
 * quiet; under two CPU hogs on 2 cores 19-98% in 18 runs (the strict
 * bound of a request whose wake-ups wait for a CPU; the whole sample's
 * bound caught one of them), so the test holds a tenth. */
static void test_shaved_claims_are_charged_back(void **s)
{
	struct task_result r;
	struct traced_charge t;

	(void)s;
	setenv("ARENA_GPU_CTL_GATE", "1", 1);
	evaluate_noisy("shave_claim", "ARENA_FAKE_GPU_GEN_JITTER_US", "20000",
		       &r, &t);
	setenv("ARENA_GPU_CTL_GATE", "0", 1);
	expect_shave_charged("shave_claim", &r, &t, 10);
	assert_true(t.gated > 0);
	result_release(&r);
}

/* The same runner where most event waits wake up late (exponential, mean
 * 3 ms, on 60% of them: the H200's law, 2026-12-06, scaled to this
 * task's 13 ms batch): the median of the `time` request's overhead is
 * swamped, its floor is not, and the floor's strict bound charges the
 * shave (gpu_floor_excess_ns). */
static void test_a_shave_under_late_wakeups_is_charged_by_the_floor(void **s)
{
	struct task_result r;
	struct traced_charge t;

	(void)s;
	/* First the task's own baseline under the same law: its claims are
	 * not moved by late wake-ups and the floor does not charge it for
	 * them.  What the test holds is the floor's column: the whole
	 * sample's excess, charged at its 5% bound, charges an A/A now and
	 * then by design (tests/bench/excess_null.sh: 1.5-7.5% of cases),
	 * and did here once in CI (421.8 us of a 20.8 ms claim, 0.966 with
	 * the floor at 0, 2026-12-06). */
	evaluate_noisy("task/fakeheavy", "ARENA_FAKE_GPU_WAKE_JITTER_US",
		       "3000", &r, &t);
	expect(&r, RS_OK, "");
	assert_true(t.found);
	fprintf(stderr,
		"  the baseline against itself: floor %.1f us, charged %.1f us of "
		"a %.1f us claim; speedup %.4f\n",
		t.floor, t.charged, t.claim, r.speedup_ratio);
	assert_true(t.floor < t.claim * 0.0075);
	result_release(&r);
	evaluate_noisy("shave_claim", "ARENA_FAKE_GPU_WAKE_JITTER_US", "3000",
		       &r, &t);
	expect_shave_charged("shave_claim", &r, &t, 4);
	result_release(&r);
}

/* shave_claim shaving three timed replies in four (SHAVE_CLAIM_MOST)
 * under late wake-ups (mean 1 ms on 60% of waits, a 13 ms batch): the
 * median claim is a shaved one, but a quarter of the requests keep an
 * honest overhead.  Four pairs a block, so that a claim still disputed
 * when the share ends has time to run on (gpu_claim_disputed).  Charged
 * here, of the shave: 35-87% in eleven runs (2026-12-07). */
static void test_most_claims_shaved_are_charged_back(void **s)
{
	struct task_result r;
	struct traced_charge t;
	struct opts o = { .task = task_heavy, .blocks = 6, .min_pairs = 4 };
	char *cand = fake_variant("shave_claim", "SHAVE_CLAIM_MOST", 1);

	(void)s;
	setenv("ARENA_GPU_CTL_GATE", "1", 1);
	evaluate_noisy_with(cand, &o, "ARENA_FAKE_GPU_WAKE_JITTER_US", "1000",
			    &r, &t);
	setenv("ARENA_GPU_CTL_GATE", "0", 1);
	free(cand);
	expect_shave_charged("shave_most", &r, &t, 4);
	result_release(&r);
}

static void test_device_work_its_runner_does_not_wait_for_is_charged(void **s)
{
	struct opts o = { .task = NULL };
	struct task_result r;

	(void)s;
	o.task = task_heavy;
	/* Its own drain never sees the work; the keeper's probe does. */
	evaluate("leave_work_hidden", &o, &r);
	expect(&r, RS_REJECTED, "inconsistent with the controller's clock");
	result_release(&r);
}

static void test_forged_device_error_is_the_candidates_runtime_error(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("forged_ecc", &o, &r);
	expect(&r, RS_RUNTIME_ERROR, "cudaErrorECCUncorrectable");
	expect(&r, RS_RUNTIME_ERROR, "found it working");
	result_release(&r);
}

static void test_device_failing_a_trusted_probe_too_is_infra_error(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("broken_device", &o, &r);
	/* The emulated fault broke the whole device, whose state the runners
	 * of this process share in one page (gpu_rt_fake.h): a fresh page
	 * for the tests that follow. */
	char *page = xasprintf("%s/0", device_dir);
	unlink(page);
	free(page);
	expect(&r, RS_INFRA_ERROR, "the device failed");
	expect(&r, RS_INFRA_ERROR,
	       "a trusted probe of the device right "
	       "after failed too");
	result_release(&r);
}

static void test_approximate_only_in_timed_samples_is_incorrect(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("approx_late", &o, &r);
	expect(&r, RS_INCORRECT, "differs from the reference");
	expect(&r, RS_INCORRECT, "timed call");
	result_release(&r);
}

static void test_approximate_only_in_batches_is_incorrect(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	evaluate("approx_batched", &o, &r);
	expect(&r, RS_INCORRECT, "correctness trial");
	result_release(&r);
}

/* A candidate right in correctness and wrong only in timed calls - in
 * every element, in a contiguous 1% of them, in every 997th, or in a
 * random 10% of its calls - is incorrect whatever the evaluation's seed
 * (its windows), though timed samples of task/fakewide's 2 MiB output
 * are compared on windows (docs/gpu.md section 6).  With no reference
 * checks (an A/A run's timing, the candidate in the baseline's place)
 * the sampled comparison with the baseline's outputs alone catches it. */
static void test_wrong_only_in_timed_calls_is_caught_by_sampling(void **s)
{
	static const uint64_t seeds[] = { 1, 77, 20261202 };

	(void)s;
	if (!have_runner)
		skip();
	for (int mode = 0; mode < 4; mode++) {
		char *dir = fake_variant("timed_wrong", "TIMED_WRONG_MODE",
					 mode);
		for (size_t i = 0; i < ARRAY_SIZE(seeds); i++) {
			struct opts o = { .task = task_wide,
					  .min_pairs = 40,
					  .seed = seeds[i] };
			struct task_result r;
			fprintf(stderr, "timed_wrong mode %d seed %llu\n", mode,
				(unsigned long long)seeds[i]);
			evaluate(dir, &o, &r);
			expect(&r, RS_INCORRECT, "differs from");
			assert_null(strstr(r.correctness_error_message,
					   "correctness trial"));
			result_release(&r);
			o.aa_timing_only = true;
			evaluate(dir, &o, &r);
			expect(&r, RS_INCORRECT, "differs from baseline");
			result_release(&r);
		}
		free(dir);
	}
}

/* Timing runners' sets are lent by the keeper, which compares them where
 * they lie (docs/gpu.md section 6, "the keeper's compare"), and
 * ARENA_GPU_LEND=0 keeps the host fetch, as does a keeper that cannot
 * export memory (HIP today; "x": the fake's ARENA_FAKE_GPU_NO_VMM) and a
 * baseline runner that cannot map it ("y": ARENA_FAKE_GPU_NO_IMPORT):
 * each gives an honest candidate its verdict and catches one wrong in
 * every 997th element of its timed calls. */
static void test_lent_and_fetched_sets_give_the_same_verdicts(void **s)
{
	static const char *const modes[] = { "1", "0", "x", "y" };
	char *wrong = fake_variant("timed_wrong", "TIMED_WRONG_MODE", 2);

	(void)s;
	if (!have_runner)
		skip();
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		char dir[] = "/tmp/arena-test-gpu-lend-XXXXXX";
		struct opts o = { .task = task_wide, .min_pairs = 40 };
		struct task_result r;
		bool lent = strcmp(modes[m], "1") == 0;
		bool unsupported = strcmp(modes[m], "x") == 0;
		bool unmappable = strcmp(modes[m], "y") == 0;

		setenv("ARENA_GPU_LEND", strcmp(modes[m], "0") ? "1" : "0", 1);
		if (unsupported)
			setenv("ARENA_FAKE_GPU_NO_VMM", "1", 1);
		if (unmappable)
			setenv("ARENA_FAKE_GPU_NO_IMPORT", "1", 1);
		assert_non_null(mkdtemp(dir));
		o.log_dir = dir;
		evaluate("task/fakewide", &o, &r);
		expect(&r, RS_OK, "");
		result_release(&r);
		assert_true(trace_has(dir, lent ? "batch buffers lent by the "
						  "keeper"
						: "batch buffers allocated"));
		assert_false(trace_has(dir, lent ? "batch buffers allocated"
						 : "lent by the keeper"));
		assert_true(trace_has(dir, "the keeper lends no sets") ==
			    unsupported);
		assert_true(trace_has(dir, "runners' sets lent in") == lent);
		/* Lent, a reference check's set goes from the device
		 * straight into the check's memory. */
		assert_true(trace_has(dir, "inputs taken by the keeper") ==
			    lent);
		assert_true(trace_has(dir, "a baseline runner cannot map") ==
			    unmappable);
		rm_rf(dir);
		o.log_dir = NULL;
		evaluate(wrong, &o, &r);
		expect(&r, RS_INCORRECT, "differs from");
		result_release(&r);
		unsetenv("ARENA_FAKE_GPU_NO_VMM");
		unsetenv("ARENA_FAKE_GPU_NO_IMPORT");
	}
	unsetenv("ARENA_GPU_LEND");
	free(wrong);
}

/* A candidate whose runner refuses the sets the keeper lends fails: only
 * a baseline's refusal turns lending off, so that no candidate can push
 * its evaluation back to the sampled comparison. */
static void test_a_candidate_refusing_lent_sets_fails(void **s)
{
	struct opts o = { 0 };
	struct task_result r;

	(void)s;
	setenv("ARENA_GPU_LEND", "1", 1);
	evaluate("refuse_lent", &o, &r);
	unsetenv("ARENA_GPU_LEND");
	expect(&r, RS_RUNTIME_ERROR, "lent sets refused");
	result_release(&r);
}

/* The controller opens timed batches' gates (gpu_sample.c, gate_offered)
 * unless a trusted runner cannot map its page: then the runners open
 * their own and the verdict stands.  A gate that expires before the
 * runner has enqueued its calls (a GPU's slow first launch: every
 * evaluation of the H100's first run of this, 2026-12-07, ended in
 * infra_error when "armed" and the reply came in one read) leaves the
 * verdict standing too, and so does a controller that polls for the
 * gated replies (ARENA_GPU_GATE_SPIN=1).  A candidate that refuses the
 * page fails: it cannot choose the weaker check. */
static void test_the_controllers_gate_is_refused_only_by_a_baseline(void **s)
{
	static const char *const modes[] = { "mapped", "refused", "off",
					     "expired", "spinning" };
	struct task_result r;

	(void)s;
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		char dir[] = "/tmp/arena-test-gpu-gate-XXXXXX";
		struct opts o = { 0 };
		bool refused = m == 1, off = m == 2, expired = m == 3;
		bool spinning = m == 4;

		if (refused)
			setenv("ARENA_FAKE_GPU_NO_HOST_MAP", "1", 1);
		setenv("ARENA_GPU_CTL_GATE", off ? "0" : "1", 1);
		if (expired)
			setenv("ARENA_FAKE_GPU_GATE_EXPIRES", "1", 1);
		setenv("ARENA_GPU_GATE_SPIN", spinning ? "1" : "0", 1);
		assert_non_null(mkdtemp(dir));
		o.log_dir = dir;
		evaluate("baseline_copy", &o, &r);
		unsetenv("ARENA_FAKE_GPU_NO_HOST_MAP");
		setenv("ARENA_GPU_CTL_GATE", "0", 1);
		unsetenv("ARENA_FAKE_GPU_GATE_EXPIRES");
		unsetenv("ARENA_GPU_GATE_SPIN");
		expect(&r, RS_OK, "");
		result_release(&r);
		assert_true(trace_has(dir, "cannot map the controller's gate "
					   "page") == refused);
		struct traced_charge t;
		read_traced_charge(dir, &t);
		assert_true(t.found);
		fprintf(stderr,
			"  %s: the controller's gate %.1f us over %d pairs\n",
			modes[m], t.gate, t.gated);
		assert_true(refused || off ? t.gated == 0 : t.gated > 0);
		rm_rf(dir);
	}
	char *refuse = fake_variant("refuse_lent", "REFUSE_GATE_PAGE", 1);
	setenv("ARENA_GPU_CTL_GATE", "1", 1);
	evaluate(refuse, &(struct opts){ 0 }, &r);
	setenv("ARENA_GPU_CTL_GATE", "0", 1);
	free(refuse);
	expect(&r, RS_RUNTIME_ERROR, "gate page refused");
	result_release(&r);
}

/* A candidate that opens the controller's gate itself, before the
 * controller does, and so runs most of each timed batch before the
 * controller's clock starts (gate_opener: it writes the token into the
 * page it finds mapped and holds its runner's "armed" back until the
 * middle of the last call, or with GATE_OPENER_WITH_REPLY until its
 * reply, both in one read as after an honest gate's deadline) is
 * rejected by name; with the gate off it is an honest kernel, accepted
 * (what rejects it is the gate's check). */
static void test_a_batch_run_before_the_gate_opens_is_rejected(void **s)
{
	char *with_reply =
		fake_variant("gate_opener", "GATE_OPENER_WITH_REPLY", 1);
	const char *const cands[] = { "gate_opener", with_reply };
	struct task_result r;

	(void)s;
	for (size_t c = 0; c < ARRAY_SIZE(cands); c++)
		for (int gate = 1; gate >= 0; gate--) {
			setenv("ARENA_GPU_CTL_GATE", gate ? "1" : "0", 1);
			evaluate(cands[c], &(struct opts){ 0 }, &r);
			if (gate)
				expect(&r, RS_REJECTED,
				       "it ran before the gate opened");
			else
				expect(&r, RS_OK, "");
			result_release(&r);
		}
	setenv("ARENA_GPU_CTL_GATE", "0", 1);
	free(with_reply);
}

/* A candidate off by 1.5 times the tolerance in its timed calls only
 * passes the comparison with the baseline (twice the tolerance) and is
 * found by the reference checks of timed samples: with lent sets, whose
 * checked set the keeper takes straight into the check's memory, as with
 * fetched ones, and with lent sets checked on the evaluation's thread (a
 * GPU reference's way; here ARENA_ASYNC_REFCHECK=0), where the baseline's
 * inputs are fetched from the sets the keeper lent it into its shared
 * memory, which must be page-locked whole or not at all (CUDA's rule,
 * which the fake enforces: on an H100, 2026-12-07, a baseline left with
 * an earlier layout's lock failed every such check of its largest case;
 * this task's sets are too small to be locked). */
static void
test_timed_calls_beyond_the_tolerance_fail_the_reference_check(void **s)
{
	static const struct {
		const char *lend, *async;
	} modes[] = { { "1", NULL }, { "0", NULL }, { "1", "0" } };
	char *wrong = fake_variant("timed_wrong", "TIMED_WRONG_MODE", 4);

	(void)s;
	if (!have_runner)
		skip();
	for (size_t m = 0; m < ARRAY_SIZE(modes); m++) {
		char dir[] = "/tmp/arena-test-gpu-refcheck-XXXXXX";
		struct opts o = { .task = task_wide,
				  .min_pairs = 40,
				  .log_dir = dir };
		struct task_result r;

		setenv("ARENA_GPU_LEND", modes[m].lend, 1);
		if (modes[m].async)
			setenv("ARENA_ASYNC_REFCHECK", modes[m].async, 1);
		assert_non_null(mkdtemp(dir));
		evaluate(wrong, &o, &r);
		unsetenv("ARENA_ASYNC_REFCHECK");
		expect(&r, RS_INCORRECT,
		       "differs from the reference (a random check of a "
		       "timed sample)");
		result_release(&r);
		assert_true(trace_has(dir, "inputs taken by the keeper") ==
			    (m == 0));
		rm_rf(dir);
	}
	unsetenv("ARENA_GPU_LEND");
	free(wrong);
}

/* No runner can reach another runner's lent sets or shared memory, nor
 * a reference check's memory: the candidate memory_thief searches its
 * descriptors and mappings on every call and fails the call when it
 * finds more than its own (a baseline's sets would let a cheat write its
 * own outputs there, past the keeper's comparison; a reference check's
 * copy, past the reference); its log says the search found its own. */
static void test_no_runner_reaches_another_runners_memory(void **s)
{
	char dir[] = "/tmp/arena-test-gpu-thief-XXXXXX";
	struct opts o = { .log_dir = dir };
	struct task_result r;

	(void)s;
	if (!have_runner)
		skip();
	assert_non_null(mkdtemp(dir));
	evaluate("memory_thief", &o, &r);
	expect(&r, RS_OK, "");
	result_release(&r);
	assert_true(trace_has(dir, "batch buffers lent by the keeper"));
	assert_true(trace_has(dir, "inputs taken by the keeper"));
	assert_true(log_has(dir, "runner-candidate.log",
			    "its own lent sets and shared memory found"));
	rm_rf(dir);
}

/* An input written in timed calls, one element of half a million, is
 * found on the first timed pair: the keeper compares every input of
 * every set, whole, on every pair. */
static void test_one_input_element_written_in_timed_calls_is_rejected(void **s)
{
	struct opts o = { .task = task_wide, .min_pairs = 40 };
	struct task_result r;

	(void)s;
	setenv("ARENA_GPU_LEND", "1", 1);
	evaluate("input_scribble", &o, &r);
	unsetenv("ARENA_GPU_LEND");
	expect(&r, RS_REJECTED, "input 'x' was modified by the kernel");
	result_release(&r);
}

/* ---- reference checks of timed samples in the background ---- */

/* What timing.tsv says of the reference checks of timed samples: the
 * pairs the draw asked to check (pair lines whose last column, checked,
 * is 2), the checks made (a "reference check in timed call N" line
 * each), how many of those ran in the background and how many failed.
 * Pairs are named timing:case:N (timing: how many cases were timed a
 * second time before).  Every check made is one the draw asked for, made
 * once (asserted here). */
struct refchecks {
	int asked, made, background, failed;
	/* Over the checks in the background: the reference's calls, the
	 * evaluation's thread's waits for them, and checks it waited for
	 * less than half their call. */
	double call_ms, waited_ms;
	int overlapped;
};

static void read_refchecks(const char *dir, struct refchecks *rc)
{
	char *path = path_join(dir, "timing.tsv"), line[4096];
	FILE *f = fopen(path, "r");
	static char asked[512][80], made[512][80];
	int timing = 0; /* a case timed again starts its pairs from 1 */

	free(path);
	memset(rc, 0, sizeof(*rc));
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char c[64], kind[16];
		int blk, num;
		double ms;
		const char *tab = strrchr(line, '\t');
		if (line[0] != '#' &&
		    sscanf(line, "%63[^\t]\t%d\t%15[^\t]\t%d", c, &blk, kind,
			   &num) == 4 &&
		    !strcmp(kind, "timed") && tab && atoi(tab + 1) == 2) {
			assert_true(rc->asked < 512);
			snprintf(asked[rc->asked++], sizeof(asked[0]),
				 "%d:%s:%d", timing, c, num);
		}
		/* The clock check's second timing of a case (every check of
		 * the first is in before the case's claims are checked). */
		if (line[0] == '#' && strstr(line, "timing it again"))
			timing++;
		/* A check in the foreground is traced before its pair's
		 * line, one in the background when it is collected. */
		if (sscanf(line,
			   "# %lf ms: case %63[^:]: reference check in timed "
			   "call %d:",
			   &ms, c, &num) == 3) {
			assert_true(rc->made < 512);
			snprintf(made[rc->made++], sizeof(made[0]), "%d:%s:%d",
				 timing, c, num);
			const char *call = strstr(line, "reference call ");
			const char *w = strstr(line, "thread waited ");
			if (strstr(line, "in the background") && call && w) {
				double cm = atof(call + 15), wm = atof(w + 14);
				rc->background++;
				rc->call_ms += cm;
				rc->waited_ms += wm;
				rc->overlapped += wm < cm / 2;
			}
			if (strstr(line, "; it failed"))
				rc->failed++;
		}
	}
	fclose(f);
	for (int i = 0; i < rc->made; i++) {
		bool found = false;
		for (int j = 0; j < rc->asked && !found; j++)
			found = !strcmp(asked[j], made[i]);
		for (int j = 0; j < i && found; j++)
			found = strcmp(made[j], made[i]) != 0;
		if (!found)
			fprintf(stderr, "check of %s not asked for, or twice\n",
				made[i]);
		assert_true(found);
	}
	fprintf(stderr,
		"  reference checks of timed samples: %d asked, %d made, %d "
		"in the background, %d failed; their reference calls %.1f "
		"ms, waited for %.1f ms, %d for less than half their call\n",
		rc->asked, rc->made, rc->background, rc->failed, rc->call_ms,
		rc->waited_ms, rc->overlapped);
}

/* One evaluation of cand with ARENA_ASYNC_REFCHECK=workers ("0": the
 * checks on the evaluation's thread), its timing.tsv read into *rc. */
static void evaluate_refchecks(const char *cand, const char *workers,
			       struct opts *o, struct task_result *r,
			       struct refchecks *rc)
{
	char dir[] = "/tmp/arena-test-gpu-refpool-XXXXXX";

	assert_non_null(mkdtemp(dir));
	o->log_dir = dir;
	setenv("ARENA_ASYNC_REFCHECK", workers, 1);
	evaluate(cand, o, r);
	unsetenv("ARENA_ASYNC_REFCHECK");
	read_refchecks(dir, rc);
	o->log_dir = NULL;
	rm_rf(dir);
}

/* A host reference (fakepoly's reference.c) checks timed samples in the
 * background, on two workers here: an honest candidate is accepted, and
 * every check the draw asked for was made there. */
static void test_honest_candidate_passes_with_background_checks(void **s)
{
	struct opts o = { .min_pairs = 16 };
	struct task_result r;
	struct refchecks rc;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_refchecks("baseline_copy", "2", &o, &r, &rc);
	expect(&r, RS_OK, "");
	assert_true(r.candidate_accepted);
	assert_true(rc.asked >= 4); /* two cases, two blocks: one each */
	assert_int_equal(rc.made, rc.asked);
	assert_int_equal(rc.background, rc.made);
	assert_int_equal(rc.failed, 0);
	result_release(&r);
}

/* Each check the draw asks for is made once, with the switch on or off:
 * the background changes where a check runs, not which. */
static void test_background_checks_are_the_checks_asked_for(void **s)
{
	static const char *const modes[] = { "0", "1", "3" };
	struct opts o = { .min_pairs = 16 };

	(void)s;
	if (!have_runner)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
		struct task_result r;
		struct refchecks rc;
		evaluate_refchecks("baseline_copy", modes[i], &o, &r, &rc);
		expect(&r, RS_OK, "");
		assert_true(rc.asked >= 4);
		assert_int_equal(rc.made, rc.asked);
		assert_int_equal(rc.background,
				 strcmp(modes[i], "0") ? rc.made : 0);
		result_release(&r);
	}
}

/* task/fakeslowref's reference takes 0.3 s a call: timing goes on while
 * it computes, so the evaluation's thread waits for less than the
 * reference calls took - for some checks not at all (those done before
 * the next check or the case's end) - and still every check the draw
 * asked for is made. */
static void test_a_slow_host_reference_overlaps_timing(void **s)
{
	struct opts o = { .task = NULL, .min_pairs = 24 };
	struct task_result r;
	struct refchecks rc;

	(void)s;
	if (!have_runner)
		skip();
	o.task = task_slowref;
	evaluate_refchecks("task/fakeslowref", "3", &o, &r, &rc);
	expect(&r, RS_OK, "");
	assert_true(rc.asked >= 2); /* one block of two: one each */
	assert_int_equal(rc.made, rc.asked);
	assert_int_equal(rc.background, rc.made);
	assert_true(rc.call_ms >= 290.0 * rc.made);
	assert_true(rc.waited_ms < rc.call_ms);
	assert_true(rc.overlapped >= 1);
	result_release(&r);
}

/* s with every run of digits (and a number's sign, point and exponent)
 * as '#': what two evaluations' messages share when each drew its own
 * timed inputs and checked pairs (from its own secret). */
static char *digits_masked(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = s; *p;) {
		if ((*p >= '0' && *p <= '9') ||
		    ((*p == '-' || *p == '.') && p[1] >= '0' && p[1] <= '9')) {
			while ((*p >= '0' && *p <= '9') || *p == '.' ||
			       *p == '-' || *p == '+' || *p == 'e')
				p++;
			strbuf_addch(&sb, '#');
			continue;
		}
		strbuf_addch(&sb, *p++);
	}
	return strbuf_detach(&sb);
}

/* candidates/approx_late is off by 1.5x the tolerance only in timed
 * samples: within twice the tolerance of the baseline's outputs, so only
 * a reference check catches it.  In the background it is incorrect with
 * the synchronous check's words (up to the numbers: each evaluation
 * draws its own inputs and checked pairs), and the failure is a
 * background check's. */
static void
test_wrong_only_in_timed_samples_is_caught_in_the_background(void **s)
{
	struct opts o = { 0 };
	struct task_result sync, async;
	struct refchecks rs, ra;

	(void)s;
	if (!have_runner)
		skip();
	evaluate_refchecks("approx_late", "0", &o, &sync, &rs);
	evaluate_refchecks("approx_late", "2", &o, &async, &ra);
	expect(&sync, RS_INCORRECT, "differs from the reference");
	expect(&async, RS_INCORRECT, "differs from the reference");
	expect(&async, RS_INCORRECT, "timed call");
	assert_null(async.speedup_calculation_error_message);
	char *ms = digits_masked(sync.correctness_error_message);
	char *ma = digits_masked(async.correctness_error_message);
	fprintf(stderr, "  synchronous: %s\n  background:  %s\n", ms, ma);
	assert_string_equal(ms, ma);
	assert_int_equal(rs.background, 0);
	assert_true(ra.failed >= 1);
	assert_int_equal(ra.background, ra.made);
	free(ms);
	free(ma);
	result_release(&sync);
	result_release(&async);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_baseline_copy_is_accepted_through_the_gpu_path),
		cmocka_unit_test(
			test_polling_runners_and_controller_keep_the_verdicts),
		cmocka_unit_test(
			test_quick_evaluation_reuses_the_correctness_runners),
		cmocka_unit_test(test_unwritten_gpu_output_is_incorrect),
		cmocka_unit_test(
			test_a_batch_compared_in_part_still_finds_a_skipped_call),
		cmocka_unit_test(
			test_a_skipped_call_made_up_in_the_fetch_is_charged),
		cmocka_unit_test(
			test_output_mutants_are_probed_on_the_gpu_path),
		cmocka_unit_test(
			test_a_split_that_does_not_hold_fails_on_the_gpu_path),
		cmocka_unit_test(
			test_inputs_with_the_same_init_are_drawn_apart),
		cmocka_unit_test(
			test_a_deferred_teardown_reaps_every_runner_after_the_verdict),
		cmocka_unit_test(test_held_launches_keep_the_verdicts),
		cmocka_unit_test(
			test_an_outputs_own_tolerance_holds_on_the_gpu_path),
		cmocka_unit_test(
			test_unwritten_timed_output_is_caught_by_device_poison),
		cmocka_unit_test(
			test_sticky_device_fault_is_runtime_error_and_retires),
		cmocka_unit_test(
			test_device_allocation_failure_is_runtime_error),
		cmocka_unit_test(test_work_left_on_another_stream_is_rejected),
		cmocka_unit_test(
			test_work_not_ordered_on_the_stream_is_rejected),
		cmocka_unit_test(
			test_work_never_joined_to_the_stream_is_rejected),
		cmocka_unit_test(test_host_thread_left_running_is_rejected),
		cmocka_unit_test(test_forking_from_a_gpu_runner_is_rejected),
		cmocka_unit_test(
			test_shape_specialization_fails_held_out_on_gpu),
		cmocka_unit_test(
			test_unimplemented_task_times_against_its_baseline_file),
		cmocka_unit_test(
			test_time_below_the_roofline_floor_is_rejected),
		cmocka_unit_test(
			test_heavy_baseline_against_itself_is_accepted),
		cmocka_unit_test(
			test_honest_closed_form_is_accepted_with_its_speedup),
		cmocka_unit_test(
			test_both_runners_of_a_pair_place_buffers_alike),
		cmocka_unit_test(
			test_blocks_log_names_each_blocks_runners_and_ratios),
		cmocka_unit_test(
			test_work_done_while_the_runner_draws_inputs_is_rejected),
		cmocka_unit_test(
			test_work_done_while_the_runner_fetches_is_rejected),
		cmocka_unit_test(
			test_forged_claims_are_rejected_by_the_controllers_clock),
		cmocka_unit_test(test_shaved_claims_are_charged_back),
		cmocka_unit_test(
			test_a_shave_under_late_wakeups_is_charged_by_the_floor),
		cmocka_unit_test(test_most_claims_shaved_are_charged_back),
		cmocka_unit_test(
			test_a_quick_charge_is_timed_again_on_a_fresh_pair),
		cmocka_unit_test(
			test_batches_run_from_captures_or_live_in_both),
		cmocka_unit_test(
			test_work_left_running_from_a_capture_is_rejected),
		cmocka_unit_test(
			test_a_thread_started_while_capturing_is_rejected),
		cmocka_unit_test(
			test_captured_and_live_batches_keep_the_verdicts),
		cmocka_unit_test(
			test_a_kernel_wrong_only_when_replayed_is_timed_live),
		cmocka_unit_test(test_a_pairs_runners_can_be_held_to_one_cpu),
		cmocka_unit_test(
			test_a_cheat_only_in_the_first_pair_of_processes_gains_nothing),
		cmocka_unit_test(
			test_device_work_its_runner_does_not_wait_for_is_charged),
		cmocka_unit_test(
			test_forged_device_error_is_the_candidates_runtime_error),
		cmocka_unit_test(
			test_device_failing_a_trusted_probe_too_is_infra_error),
		cmocka_unit_test(
			test_approximate_only_in_timed_samples_is_incorrect),
		cmocka_unit_test(test_approximate_only_in_batches_is_incorrect),
		cmocka_unit_test(
			test_wrong_only_in_timed_calls_is_caught_by_sampling),
		cmocka_unit_test(
			test_lent_and_fetched_sets_give_the_same_verdicts),
		cmocka_unit_test(
			test_one_input_element_written_in_timed_calls_is_rejected),
		cmocka_unit_test(test_a_candidate_refusing_lent_sets_fails),
		cmocka_unit_test(
			test_the_controllers_gate_is_refused_only_by_a_baseline),
		cmocka_unit_test(
			test_a_batch_run_before_the_gate_opens_is_rejected),
		cmocka_unit_test(test_no_runner_reaches_another_runners_memory),
		cmocka_unit_test(
			test_timed_calls_beyond_the_tolerance_fail_the_reference_check),
		cmocka_unit_test(
			test_honest_candidate_passes_with_background_checks),
		cmocka_unit_test(
			test_background_checks_are_the_checks_asked_for),
		cmocka_unit_test(
			test_wrong_only_in_timed_samples_is_caught_in_the_background),
		cmocka_unit_test(test_a_slow_host_reference_overlaps_timing),
	};
	/* The controller's gate is off for this suite but where a test turns
	 * it on: the fake "device" that waits for a token is a CPU process
	 * scheduled beside the controller, and on two loaded CPUs its wake-ups
	 * added milliseconds of noise to the clock checks that these tests
	 * hold (four of them failed in one CI run of 3df2135: honest copies
	 * rejected or below 0.5).  A GPU's gate kernel has no such noise
	 * (docs/gpu.md); the other fake-GPU suites keep the gate on. */
	setenv("ARENA_GPU_CTL_GATE", "0", 1);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

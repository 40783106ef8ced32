/*
 * test_python_refcache.c - the reference cache (eval_refcache) serves
 * Python tasks as it serves C ones: a later candidate of the same task and
 * seed takes every correctness trial of a PyTorch reference from the
 * cache and starts no reference runner; an edited reference.py is another
 * reference (its bundle is another artifact) and misses; an edited
 * baseline kernel.py is checked against the reference again.  What the
 * cache buys an agent's run (docs/python.md, "Edit -> score").
 *
 * Host evaluations of tests/python/task/pypoly (2 visible cases, 3
 * correctness trials each), correctness only, with the real Python
 * runner; copies of the task under /tmp are edited for the invalidation
 * tests.  Skipped (every test) where python3 cannot import torch.
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

#include "arena/eval.h"
#include "arena/paths.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_check.h"

/* 2 visible cases x 3 trials, and the baseline's agreement per case. */
#define PYPOLY_TRIALS 6
#define PYPOLY_FACTS (PYPOLY_TRIALS + 2)

static char *py_root; /* tests/python */
static char tmp_dir[] = "/tmp/arena-test-pyrefcache-XXXXXX";
static char *cache_dir;
static bool have_torch;

static int group_setup(void **state)
{
	const char *src = getenv("ARENA_SOURCE_DIR");

	(void)state;
	py_root = src ? path_join(src, "tests/python")
		      : xstrdup("tests/python");
	char *cmd = xasprintf("%s -c 'import torch' >/dev/null 2>&1",
			      paths_python());
	int st = system(cmd);
	free(cmd);
	have_torch = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!have_torch)
		fprintf(stderr, "%s cannot import torch: the tests skip\n",
			paths_python());
	if (!mkdtemp(tmp_dir))
		return -1;
	cache_dir = path_join(tmp_dir, "cache");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(py_root);
	free(cache_dir);
	rm_rf(tmp_dir);
	return 0;
}

/* A copy of pypoly under tmp_dir/<name>/task/pypoly with `append` added
 * at the end of its file `file` (none: an identical copy), loaded. */
static struct task *task_copy(const char *name, const char *file,
			      const char *append)
{
	static const char *const files[] = {
		"config.yaml",
		"held_out.yaml",
		"kernel.py",
		"reference.py",
	};
	char *root = path_join(tmp_dir, name);
	char *dir = xasprintf("%s/task/pypoly", root);
	struct task *t = NULL;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(mkdir_p(dir, &err), 0);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/task/pypoly/%s", py_root, files[i]);
		char *to = path_join(dir, files[i]);
		char *text = NULL;
		size_t len = 0;
		assert_int_equal(
			file_read_all(from, 1 << 20, &text, &len, &err), 0);
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, text, len);
		if (!strcmp(files[i], file))
			strbuf_addstr(&sb, append);
		assert_int_equal(file_write_atomic(to, sb.buf, sb.len, &err),
				 0);
		strbuf_release(&sb);
		free(text);
		free(from);
		free(to);
	}
	if (task_load(root, "task/pypoly", &t, &err) != 0)
		fail_msg("cannot load the task copy: %s", errbuf_str(&err));
	free(dir);
	free(root);
	return t;
}

static void evaluate(const struct task *t, const char *cand,
		     struct eval_refcache *rc, struct task_result *res)
{
	char *dir = xasprintf("%s/candidates/%s", py_root, cand);
	struct eval_request req;

	if (!have_torch)
		skip();
	eval_request_init(&req);
	req.task = t;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = 20261202;
	req.refcache = rc;
	req.skip_timing = true;
	req.timing.runner_timeout_s = 60;
	eval_checked(&req, cand, res);
	expect(res, RS_OK, NULL);
	free(dir);
}

static struct eval_refcache_stats stats(struct eval_refcache *rc)
{
	struct eval_refcache_stats st;

	eval_refcache_stats(rc, &st);
	return st;
}

static void test_second_candidate_runs_no_python_reference(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *t = task_copy("same", "", "");
	struct task_result res;

	(void)state;
	evaluate(t, "baseline_copy", rc, &res);
	assert_true(res.phase_s[RPH_REFERENCE] > 0);
	result_release(&res);
	assert_int_equal(stats(rc).hits, 0);
	assert_int_equal(stats(rc).entries, PYPOLY_FACTS);

	evaluate(t, "optimized", rc, &res);
	assert_true(res.pass_correctness);
	/* No reference call at all: every trial came from the cache. */
	assert_true(res.phase_s[RPH_REFERENCE] == 0);
	result_release(&res);
	assert_int_equal(stats(rc).hits, PYPOLY_FACTS);
	assert_int_equal(stats(rc).entries, PYPOLY_FACTS);
	task_free(t);
	eval_refcache_free(rc);
}

static void test_an_edited_reference_py_misses_the_cache(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *same = task_copy("same", "", "");
	struct task *t = task_copy("ref", "reference.py",
				   "# another reference bundle\n");
	struct task_result res;

	(void)state;
	evaluate(same, "baseline_copy", rc, &res);
	result_release(&res);
	evaluate(t, "baseline_copy", rc, &res);
	assert_true(res.phase_s[RPH_REFERENCE] > 0);
	result_release(&res);
	assert_int_equal(stats(rc).hits, 0);
	assert_int_equal(stats(rc).entries, 2 * PYPOLY_FACTS);
	task_free(t);
	task_free(same);
	eval_refcache_free(rc);
}

static void test_an_edited_baseline_py_is_checked_again(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *same = task_copy("same", "", "");
	struct task *t = task_copy("base", "kernel.py",
				   "# another baseline bundle\n");
	struct task_result res;

	(void)state;
	evaluate(same, "baseline_copy", rc, &res);
	result_release(&res);
	evaluate(t, "baseline_copy", rc, &res);
	result_release(&res);
	/* The reference's trials hit; the baseline's agreement with them
	 * was a fact about the other baseline. */
	assert_int_equal(stats(rc).hits, PYPOLY_TRIALS);
	assert_int_equal(stats(rc).entries, PYPOLY_FACTS + 2);
	task_free(t);
	task_free(same);
	eval_refcache_free(rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_second_candidate_runs_no_python_reference),
		cmocka_unit_test(test_an_edited_reference_py_misses_the_cache),
		cmocka_unit_test(test_an_edited_baseline_py_is_checked_again),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

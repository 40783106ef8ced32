/*
 * test_eval_confine.c - the evaluator's confinement against candidates
 * that go for what they must never read or make the machine pay for
 * (issue 10, items 6 and 11; docs/evaluator.md, the threat model).
 *
 * Like test_eval.c, each test evaluates a directory of
 * tests/adversarial/candidates/ against tests/adversarial/task/vecpoly
 * through eval_run().  The store here is a directory with an arena.db in
 * it and the cache below, laid out as a real store, so that the probes
 * have the real targets to look for; the catalogue is named by
 * $ARENA_TASKS_DIR as a controller would have it.  Skipped where the
 * sandbox cannot be built (tests/adversarial/confine.sh shows what the
 * same candidates get without it).
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

#include "arena/confine.h"
#include "arena/eval.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_check.h"

static struct task *task;
static char *adv_root; /* tests/adversarial, absolute */
static char store[] = "/tmp/arena-test-evconf-XXXXXX";
static char *cache_dir; /* <store>/cache */
static char tmp_secret[] = "/tmp/arena-test-evconf-secret-XXXXXX";

static int group_setup(void **state)
{
	struct errbuf err;
	const char *src = getenv("ARENA_SOURCE_DIR");
	char *rel = src ? path_join(src, "tests/adversarial")
			: xstrdup("tests/adversarial");

	(void)state;
	errbuf_init(&err);
	adv_root = path_real(rel);
	free(rel);
	if (!adv_root || task_load(adv_root, "task/vecpoly", &task, &err)) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	/* The catalogue as a controller names it. */
	setenv("ARENA_TASKS_DIR", adv_root, 1);
	if (!mkdtemp(store))
		return -1;
	cache_dir = path_join(store, "cache");
	char *db = path_join(store, "arena.db");
	int fd = mkstemp(tmp_secret);
	if (fd < 0 || mkdir_p(cache_dir, NULL) ||
	    file_write_atomic_str(db, "SQLite format 3\n", NULL))
		return -1;
	close(fd);
	free(db);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(task);
	free(adv_root);
	rm_rf(store);
	unlink(tmp_secret);
	free(cache_dir);
	return 0;
}

static void need_sandbox(void)
{
	const char *why;

	if (!confine_available(&why)) {
		fprintf(stderr, "skip: %s\n", why);
		skip();
	}
}

static void evaluate(const char *cand, const struct strvec *defines, bool quick,
		     int memory_mb, struct task_result *res)
{
	struct eval_request req;
	char *dir = xasprintf("%s/candidates/%s", adv_root, cand);

	eval_request_init(&req);
	req.task = task;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = 20261202;
	req.defines = defines;
	req.quick = quick;
	req.skip_timing = true;
	req.timing.case_budget_s = 0.3;
	req.timing.blocks = 1;
	req.timing.min_pairs = 3;
	req.timing.runner_timeout_s = 20;
	req.timing.compile_memory_mb = memory_mb;
	eval_checked(&req, cand, res);
	free(dir);
}

/* Whether any of the held-out file's words reached a message. */
static void assert_nothing_of_held_out(const struct task_result *r)
{
	static const char *const words[] = { "odd_prime", "1000003", "tiny",
					     "cases:" };
	const char *msgs[] = { r->compilation_error_message,
			       r->correctness_error_message,
			       r->speedup_calculation_error_message };

	for (size_t m = 0; m < ARRAY_SIZE(msgs); m++)
		for (size_t w = 0; msgs[m] && w < ARRAY_SIZE(words); w++)
			if (strstr(msgs[m], words[w])) {
				fprintf(stderr, "leaked '%s' in: %s\n",
					words[w], msgs[m]);
				fail();
			}
}

static void test_peek_secrets_finds_nothing_from_a_confined_runner(void **state)
{
	struct strvec d = STRVEC_INIT;
	struct task_result r;

	(void)state;
	need_sandbox();
	strvec_pushf(&d, "SECRET_TASK=\"%s/task/vecpoly\"", adv_root);
	strvec_pushf(&d, "SECRET_STORE=\"%s\"", store);
	strvec_pushf(&d, "SECRET_TASKS=\"%s\"", adv_root);
	strvec_pushf(&d, "SECRET_TMP=\"%s\"", tmp_secret);
	evaluate("peek_secrets", &d, true, 0, &r);
	/* 91-98 would name the probe that found something. */
	expect(&r, RS_OK, NULL);
	assert_true(r.sandboxed);
	result_release(&r);
	strvec_release(&d);
}

static void test_include_by_absolute_path_carries_nothing_back(void **state)
{
	struct strvec d = STRVEC_INIT;
	struct task_result r;

	(void)state;
	need_sandbox();
	strvec_pushf(&d, "SECRET_FILE=\"%s/task/vecpoly/held_out.yaml\"",
		     adv_root);
	evaluate("include_abs", &d, true, 0, &r);
	expect(&r, RS_COMPILE_ERROR, "No such file or directory");
	assert_nothing_of_held_out(&r);
	assert_true(r.sandboxed);
	result_release(&r);
	strvec_release(&d);
}

static void
test_include_relative_to_arena_headers_carries_nothing_back(void **state)
{
	struct task_result r;

	(void)state;
	need_sandbox();
	evaluate("include_rel", NULL, true, 0, &r);
	expect(&r, RS_COMPILE_ERROR, "No such file or directory");
	assert_nothing_of_held_out(&r);
	result_release(&r);
}

static void
test_compile_bomb_stops_at_the_limit_then_comes_from_the_cache(void **state)
{
	struct task_result r;

	(void)state;
	need_sandbox();
	evaluate("compile_bomb", NULL, true, 384, &r);
	expect(&r, RS_COMPILE_ERROR, "compiler's memory limit (384 MiB");
	assert_null(strstr(r.compilation_error_message, "cache of failed"));
	result_release(&r);
	/* The same sources under the same limits: not compiled again. */
	evaluate("compile_bomb", NULL, true, 384, &r);
	expect(&r, RS_COMPILE_ERROR,
	       "answered from the cache of failed builds");
	assert_non_null(strstr(r.compilation_error_message, "memory limit"));
	result_release(&r);
	/* Other limits are another question: compiled again. */
	evaluate("compile_bomb", NULL, true, 320, &r);
	expect(&r, RS_COMPILE_ERROR, "compiler's memory limit (320 MiB");
	assert_null(strstr(r.compilation_error_message, "cache of failed"));
	result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_peek_secrets_finds_nothing_from_a_confined_runner),
		cmocka_unit_test(
			test_include_by_absolute_path_carries_nothing_back),
		cmocka_unit_test(
			test_include_relative_to_arena_headers_carries_nothing_back),
		cmocka_unit_test(
			test_compile_bomb_stops_at_the_limit_then_comes_from_the_cache),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

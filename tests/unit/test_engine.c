/*
 * test_engine.c - runs end to end through the engine (engine/src/run):
 * a config is checked before anything exists, creation makes every
 * attempt and its workspace, execution records results and a second
 * execution repeats nothing, an edited workspace is stale, and agents see
 * the front end's view of their workspace (the engine knows no mount).
 * Uses the adversarial suite's small task, the host runner and small
 * budgets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents.h"
#include "arena/engine.h"

/* A small task of the adversarial suite: three cases, up to 1 Mi elements. */
#define TASKS "tests/adversarial"

struct fixture {
	char *dir;
	struct engine *e;
};

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));
	char tmpl[] = "/tmp/arena-test-engine-XXXXXX";
	struct errbuf err;

	errbuf_init(&err);
	f->dir = xstrdup(mkdtemp(tmpl));
	if (engine_open(f->dir, TASKS, &f->e, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	engine_close(f->e);
	rm_rf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static struct runconfig *config(struct fixture *f, const char *yaml)
{
	struct runconfig *c = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (engine_config_parse(f->e, "test.yaml", yaml, strlen(yaml), &c,
				&err) != 0)
		fail_msg("%s", errbuf_str(&err));
	return c;
}

static const char small[] =
	"agent: {template: noop}\n"
	"tasks: [task/vecpoly]\n"
	"device: host\n"
	"seed: 7\n"
	"timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 3,"
	" max_pairs: 20, correctness_trials: 3}\n";

static void a_bad_config_creates_nothing(void **state)
{
	struct fixture *f = *state;
	struct runconfig *c = NULL;
	struct errbuf err;
	struct strvec ids = STRVEC_INIT;
	static const char bad[] = "agent: {template: no_such_agent}\n"
				  "tasks: [task/vecpoly]\n";

	errbuf_init(&err);
	assert_int_not_equal(engine_config_parse(f->e, "bad.yaml", bad,
						 strlen(bad), &c, &err), 0);
	assert_null(c);
	assert_non_null(strstr(errbuf_str(&err), "no_such_agent"));
	assert_int_equal(store_run_list(engine_store(f->e), &ids, &err), 0);
	assert_int_equal(ids.n, 0);
	strvec_release(&ids);
}

static void creation_makes_every_attempt_and_its_workspace(void **state)
{
	struct fixture *f = *state;
	struct runconfig *c = config(f, "agent: {template: noop}\n"
				     "tasks: [task/vecpoly]\n"
				     "repeats: 3\ndevice: host\n");
	struct run_progress p;
	struct errbuf err;
	char *id = NULL;

	errbuf_init(&err);
	assert_int_equal(engine_run_create(f->e, c, "t", &id, &err), 0);
	assert_int_equal(engine_run_progress(f->e, id, &p, &err), 0);
	assert_int_equal(p.total, 3);
	assert_int_equal(p.done, 0);
	assert_false(p.executor_alive);
	run_progress_release(&p);
	char *dir = store_task_dir(engine_store(f->e), id, "task/vecpoly", 2);
	char *doc = path_join(dir, "workspace/TASK.md");
	char *kern = path_join(dir, "workspace/kernel.c");
	char *base = path_join(dir, "baseline/kernel.c");
	assert_true(file_exists(doc));
	assert_true(file_exists(kern));
	assert_true(file_exists(base));
	/* Made from the task's trusted copy (read-only, recorded for the
	 * run), yet the agent's to edit. */
	struct stat st;
	assert_int_equal(stat(kern, &st), 0);
	assert_true(st.st_mode & S_IWUSR);
	char *hash = NULL;
	assert_int_equal(store_trusted_get(engine_store(f->e), id,
					   "task/vecpoly", &hash, &err),
			 0);
	char *troot = store_trusted_root(engine_store(f->e));
	char *tref = xasprintf("%s/%s/reference.c", troot, hash);
	assert_int_equal(stat(tref, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	free(tref);
	free(troot);
	free(hash);
	/* TASK.md shows the visible cases, never the held-out ones */
	char *text = NULL;
	assert_int_equal(file_read_all(doc, 1 << 20, &text, NULL, &err), 0);
	assert_null(strstr(text, "odd_prime"));
	free(text);
	free(doc);
	free(kern);
	free(base);
	free(dir);
	free(id);
	runconfig_free(c);
}

static void execution_records_results_and_repeats_nothing(void **state)
{
	struct fixture *f = *state;
	struct runconfig *c = config(f, small);
	struct run_progress p;
	struct task_result r;
	struct errbuf err;
	char *id = NULL;

	errbuf_init(&err);
	assert_int_equal(engine_run_create(f->e, c, NULL, &id, &err), 0);
	if (engine_run_execute(f->e, id, NULL, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	assert_int_equal(engine_run_progress(f->e, id, &p, &err), 0);
	assert_int_equal(p.done, 1);
	assert_string_equal(p.status, "done");
	run_progress_release(&p);
	result_init(&r);
	assert_int_equal(engine_task_result(f->e, id, "task/vecpoly", 1, &r,
					    &err), 0);
	assert_int_equal(r.status, RS_OK);
	double t0 = r.eval_seconds;
	result_release(&r);

	/* A second execution finds everything done: the stored result is
	 * kept as it is (not evaluated again). */
	assert_int_equal(engine_run_execute(f->e, id, NULL, &err), 0);
	result_init(&r);
	assert_int_equal(engine_task_result(f->e, id, "task/vecpoly", 1, &r,
					    &err), 0);
	assert_true(r.eval_seconds == t0);
	result_release(&r);

	/* Editing the workspace makes the attempt stale. */
	char *dir = store_task_dir(engine_store(f->e), id, "task/vecpoly", 1);
	char *kern = path_join(dir, "workspace/kernel.c");
	FILE *fp = fopen(kern, "a");
	assert_non_null(fp);
	fputs("\n/* edited */\n", fp);
	fclose(fp);
	assert_int_equal(engine_run_progress(f->e, id, &p, &err), 0);
	assert_int_equal(p.stale, 1);
	run_progress_release(&p);
	free(kern);
	free(dir);
	free(id);
	runconfig_free(c);
}

/* The front end's view: here a link to the real workspace, as the mount
 * would show it; the agent is given the view's path. */
static char *view_fn(void *ctx, const char *run_id, const char *dirname)
{
	struct fixture *f = ctx;
	char *real = xasprintf("%s/runs/%s/tasks/%s/workspace", f->dir, run_id,
			       dirname);
	char *view = xasprintf("%s/view-%s", f->dir, dirname);

	if (symlink(real, view) != 0 && errno != EEXIST)
		fail_msg("symlink %s: %s", view, strerror(errno));
	free(real);
	return view;
}

static void agents_see_the_front_ends_view_of_their_workspace(void **state)
{
	struct fixture *f = *state;
	struct errbuf err;
	char *id = NULL, *seen = NULL;
	char *out = path_join(f->dir, "seen.txt");
	char *yaml = xasprintf(
		"agent: {template: command, command: [sh, -c,"
		" 'printf %%s \"$ARENA_WORKSPACE\" > %s'],"
		" options: {sandbox: off}}\n"
		"tasks: [task/vecpoly]\ndevice: host\n"
		"timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 3,"
		" max_pairs: 20}\n",
		out);
	struct runconfig *c = config(f, yaml);

	errbuf_init(&err);
	engine_set_workspace_view(f->e, view_fn, f);
	assert_int_equal(engine_run_create(f->e, c, NULL, &id, &err), 0);
	if (engine_run_execute(f->e, id, NULL, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	assert_int_equal(file_read_all(out, 4096, &seen, NULL, &err), 0);
	char *want = xasprintf("%s/view-task_vecpoly", f->dir);
	assert_string_equal(seen, want);
	free(want);
	free(seen);
	free(out);
	free(yaml);
	free(id);
	runconfig_free(c);
}

/* One quick evaluation of the baseline's copy; true when its trace says
 * that a case's reference outputs came from the engine's cache. */
static bool quick_eval_cached(struct fixture *f, bool has_seed)
{
	char *logs = path_join(f->dir, "eval-logs");
	char *tsv = path_join(logs, "timing.tsv");
	struct eval_options opt = {
		.quick = true,
		.has_seed = has_seed,
		.seed = 7,
		.log_dir = logs,
	};
	struct task_result r;
	struct errbuf err;
	char *text = NULL;
	size_t len = 0;

	errbuf_init(&err);
	assert_int_equal(mkdir_p(logs, &err), 0);
	result_init(&r);
	if (engine_eval_dir(f->e, "task/vecpoly",
			    TASKS "/candidates/baseline_copy", &opt, &r,
			    &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	assert_int_equal(r.status, RS_OK);
	/* Where the time went, every phase's share at most the whole. */
	double sum = 0;
	for (int i = 0; i < RESULT_NPHASES; i++)
		sum += r.phase_s[i];
	assert_true(sum > 0 && sum <= r.eval_seconds + 0.01);
	result_release(&r);
	assert_int_equal(file_read_all(tsv, 1 << 24, &text, &len, &err), 0);
	bool cached = strstr(text, "from the shared cache") != NULL;
	free(text);
	free(tsv);
	free(logs);
	return cached;
}

static void c_references_are_not_cached_across_evaluations(void **state)
{
	struct fixture *f = *state;

	/* vecpoly's reference is C: faster to run than to hash, never
	 * cached (test_python_refcache holds the Python references' cache
	 * across a run's evaluations). */
	assert_false(quick_eval_cached(f, true));
	assert_false(quick_eval_cached(f, true));
	/* A fresh seed per evaluation draws other trials: nothing to
	 * share. */
	assert_false(quick_eval_cached(f, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_bad_config_creates_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			creation_makes_every_attempt_and_its_workspace, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			execution_records_results_and_repeats_nothing, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			agents_see_the_front_ends_view_of_their_workspace,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			c_references_are_not_cached_across_evaluations, setup,
			teardown),
	};

	agents_register_builtin();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

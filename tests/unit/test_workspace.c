/*
 * test_workspace.c - an attempt's directories (engine/src/run/workspace.c):
 * what creation puts where, that creating again repairs without touching
 * what the agent wrote, where an unimplemented task's baseline comes
 * from, and what the agent's prompt holds.
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

#include "workspace.h"

static struct task *load(const char *id)
{
	struct task *t = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (task_load("tasks", id, &t, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	return t;
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/arena-test-workspace-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static char *slurp(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel), *text = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (file_read_all(p, 1 << 20, &text, NULL, &err) != 0)
		fail_msg("%s", errbuf_str(&err));
	free(p);
	return text;
}

static void creation_lays_out_workspace_baseline_and_logs(void **state)
{
	struct task *t = load("c2c/saxpy");
	char *dir = tmpdir();
	struct errbuf err;
	(void)state;

	errbuf_init(&err);
	assert_int_equal(workspace_create(t, dir, &err), 0);
	char *ws = slurp(dir, "workspace/kernel.c");
	char *base = slurp(dir, "baseline/kernel.c");
	char *orig = slurp(t->dir, "kernel.c");
	assert_string_equal(ws, orig);
	assert_string_equal(base, orig);
	char *logs = path_join(dir, "logs");
	char *ref = path_join(dir, "workspace/reference.c");
	assert_true(dir_exists(logs));
	assert_false(file_exists(ref));	/* the reference stays hidden */
	char *doc = slurp(dir, "workspace/TASK.md");
	assert_non_null(strstr(doc, "# Task c2c/saxpy"));
	assert_null(strstr(doc, "odd_prime"));	/* held-out cases stay hidden */
	free(doc);
	free(ref);
	free(logs);
	free(ws);
	free(base);
	free(orig);
	rm_rf(dir);
	free(dir);
	task_free(t);
}

/* A creation interrupted half-way is repaired by creating again; what the
 * agent already changed is kept. */
static void creating_again_keeps_the_agents_edits(void **state)
{
	struct task *t = load("c2c/saxpy");
	char *dir = tmpdir();
	struct errbuf err;
	(void)state;

	errbuf_init(&err);
	assert_int_equal(workspace_create(t, dir, &err), 0);
	char *k = path_join(dir, "workspace/kernel.c");
	assert_int_equal(file_write_atomic(k, "/* mine */\n", 11, &err), 0);
	char *doc = path_join(dir, "workspace/TASK.md");
	unlink(doc);
	assert_int_equal(workspace_create(t, dir, &err), 0);
	char *ws = slurp(dir, "workspace/kernel.c");
	assert_string_equal(ws, "/* mine */\n");
	assert_true(file_exists(doc));
	free(ws);
	free(doc);
	free(k);
	rm_rf(dir);
	free(dir);
	task_free(t);
}

/* An unimplemented task is timed against its baseline.files, shown under
 * the editable names; other tasks have no such directory. */
static void unimplemented_tasks_get_their_baseline_files(void **state)
{
	struct task *t = load("instruction2hip/l2norm");
	struct task *c = load("c2c/saxpy");
	char *cache = tmpdir(), *bdir = NULL;
	struct errbuf err;
	(void)state;

	errbuf_init(&err);
	assert_int_equal(workspace_baseline_dir(t, cache, &bdir, &err), 0);
	assert_non_null(bdir);
	char *got = slurp(bdir, "kernel.hip");
	char *want = slurp(t->dir, "baseline.hip");
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(bdir);
	bdir = (char *)"unset";
	assert_int_equal(workspace_baseline_dir(c, cache, &bdir, &err), 0);
	assert_null(bdir);
	rm_rf(cache);
	free(cache);
	task_free(t);
	task_free(c);
}

static void the_prompt_names_the_workspace_and_holds_task_md(void **state)
{
	struct task *t = load("c2c/saxpy");
	char *p = prompt_render(t, "/w/space", 4);
	(void)state;

	assert_non_null(strstr(p, "/w/space"));
	assert_non_null(strstr(p, "# Task c2c/saxpy"));
	assert_non_null(strstr(p, "up to 4 improvement"));
	free(p);
	task_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(creation_lays_out_workspace_baseline_and_logs),
		cmocka_unit_test(creating_again_keeps_the_agents_edits),
		cmocka_unit_test(unimplemented_tasks_get_their_baseline_files),
		cmocka_unit_test(the_prompt_names_the_workspace_and_holds_task_md),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_task_trusted.c - trusted copies of task packages (arena/task.h,
 * DESIGN.md §3.10): a copy is named by what it holds, made once, sealed,
 * and any change to it - a file edited, added or removed - is found and
 * named; a task loaded from it keeps its held-out cases and its hash; a
 * directory sealed in place (task_trust_seal) is verified the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/task.h"
#include "arena/util.h"

static char dir[] = "/tmp/arena-test-trusted-XXXXXX";
static char *pkg, *root;

static void write_file(const char *rel, const char *text)
{
	char *p = path_join(pkg, rel), *parent = xstrdup(p);

	*strrchr(parent, '/') = '\0';
	assert_int_equal(mkdir_p(parent, NULL), 0);
	assert_int_equal(file_write_atomic_str(p, text, NULL), 0);
	free(parent);
	free(p);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	pkg = path_join(dir, "tasks/t/vec");
	root = path_join(dir, "store/trusted");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(pkg);
	free(root);
	return 0;
}

/* A small valid package: config, held-out cases, reference, kernel. */
static void make_package(const char *ref_body)
{
	write_file(
		"config.yaml",
		"schema: arena/1\n"
		"description: y = 2x.\n"
		"language: c\n"
		"editable: [kernel.c]\n"
		"reference: {file: reference.c, language: c}\n"
		"signature:\n"
		"  params: [n]\n"
		"  args:\n"
		"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
		"    - {name: y, dtype: f32, shape: [n], io: out}\n"
		"cases:\n"
		"  - {id: small, n: 1024}\n"
		"tolerance: {atol: 1e-6, rtol: 1e-6}\n");
	write_file("held_out.yaml", "cases:\n  - {id: secret_case, n: 4099}\n");
	write_file("reference.c", ref_body);
	write_file("kernel.c", "/* kernel */\n");
	write_file("include/helper.h", "#define TWO 2\n");
}

static char *copy_path(const char *hash, const char *rel)
{
	char *d = task_trust_dir(root, hash), *p = path_join(d, rel);

	free(d);
	return p;
}

static void test_copy_is_named_by_content_and_made_once(void **state)
{
	char h1[65], h2[65], h3[65];
	struct errbuf err;
	struct stat st;

	(void)state;
	errbuf_init(&err);
	make_package("/* reference v1 */\n");
	assert_int_equal(task_trust_copy(pkg, root, h1, &err), 0);
	assert_int_equal(task_trust_copy(pkg, root, h2, &err), 0);
	assert_string_equal(h1, h2);
	/* Sealed: files 0444, directories 0555. */
	char *ref = copy_path(h1, "reference.c");
	char *inc = copy_path(h1, "include");
	assert_int_equal(stat(ref, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	assert_int_equal(stat(inc, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0555);
	free(ref);
	free(inc);
	/* Another reference is another copy; the first one stays. */
	make_package("/* reference v2 */\n");
	assert_int_equal(task_trust_copy(pkg, root, h3, &err), 0);
	assert_string_not_equal(h1, h3);
	/* The root itself is no copy. */
	assert_int_not_equal(task_trust_verify(root, h1, NULL, &err), 0);
	char *d1 = task_trust_dir(root, h1);
	assert_int_equal(task_trust_verify(d1, h1, NULL, &err), 0);
	free(d1);
}

static void expect_broken(const char *hash, const char *phrase)
{
	struct errbuf err;
	char *d = task_trust_dir(root, hash);

	errbuf_init(&err);
	assert_int_equal(task_trust_verify(d, hash, NULL, &err), -EBADMSG);
	fprintf(stderr, "%s\n", errbuf_str(&err));
	assert_non_null(strstr(errbuf_str(&err), phrase));
	free(d);
}

static void test_edited_file_is_found_and_named(void **state)
{
	char h[65];
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	make_package("/* reference for editing */\n");
	assert_int_equal(task_trust_copy(pkg, root, h, &err), 0);
	char *held = copy_path(h, "held_out.yaml");
	char *d = task_trust_dir(root, h);
	/* Whoever can write the store can unseal it: only the hashes
	 * hold. */
	chmod(d, 0755);
	chmod(held, 0644);
	assert_int_equal(file_write_atomic_str(held, "cases: []\n", NULL), 0);
	expect_broken(h, "held_out.yaml no longer matches its recorded hash");
	free(held);
	free(d);
}

static void test_added_and_removed_files_are_found_and_named(void **state)
{
	char h[65];
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	make_package("/* reference for adding */\n");
	assert_int_equal(task_trust_copy(pkg, root, h, &err), 0);
	char *d = task_trust_dir(root, h);
	char *extra = copy_path(h, "include/zzz.h");
	char *inc = copy_path(h, "include");
	chmod(d, 0755);
	chmod(inc, 0755);
	assert_int_equal(file_write_atomic_str(extra, "#define X 1\n", NULL),
			 0);
	expect_broken(h, "a file it was not made with: include/zzz.h");
	unlink(extra);
	assert_int_equal(task_trust_verify(d, h, NULL, &err), 0);
	char *kernel = copy_path(h, "kernel.c");
	unlink(kernel);
	expect_broken(h, "kernel.c is missing");
	free(kernel);
	free(extra);
	free(inc);
	free(d);
}

static void test_task_loaded_from_a_copy_keeps_held_out_cases(void **state)
{
	char h[65];
	struct errbuf err;
	struct task *t = NULL;

	(void)state;
	errbuf_init(&err);
	make_package("/* reference for loading */\n");
	assert_int_equal(task_trust_copy(pkg, root, h, &err), 0);
	/* The catalogue changes afterwards: the copy does not. */
	write_file("held_out.yaml", "cases:\n  - {id: other_case, n: 5}\n");
	assert_int_equal(task_load_trusted(root, h, "t/vec", &t, &err), 0);
	assert_string_equal(t->trusted_hash, h);
	assert_non_null(task_find_case(t, "secret_case"));
	assert_null(task_find_case(t, "other_case"));
	char *d = task_trust_dir(root, h);
	assert_string_equal(t->dir, d);
	free(d);
	task_free(t);
	/* A copy that was changed does not load. */
	char *ref = copy_path(h, "reference.c");
	d = task_trust_dir(root, h);
	chmod(d, 0755);
	chmod(ref, 0644);
	assert_int_equal(file_write_atomic_str(ref, "/* slower */\n", NULL), 0);
	assert_int_not_equal(task_load_trusted(root, h, "t/vec", &t, &err), 0);
	assert_null(t);
	assert_non_null(strstr(errbuf_str(&err), "reference.c"));
	free(ref);
	free(d);
}

/* A directory trusted code wrote (a prepared AgentKernelArena task) is
 * sealed where it is, once, and verified like a copy. */
static void
test_a_sealed_directory_verifies_and_its_changes_are_named(void **state)
{
	char h[65], h2[65];
	struct errbuf err;
	char *d = path_join(dir, "sealed"), *sets = path_join(d, "sets/c0.bin");
	char *shim = path_join(d, "_arena_aka.py");

	(void)state;
	errbuf_init(&err);
	char *sd = path_join(d, "sets");
	struct stat st;
	assert_int_equal(mkdir_p(sd, NULL), 0);
	assert_int_equal(
		file_write_atomic_str(shim, "def launch(): pass\n", NULL), 0);
	assert_int_equal(file_write_atomic_str(sets, "0123456789", NULL), 0);
	assert_int_equal(task_trust_seal(d, h, &err), 0);
	assert_int_equal(stat(shim, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	struct strvec man = STRVEC_INIT;
	assert_int_equal(task_trust_verify(d, h, &man, &err), 0);
	assert_non_null(task_trust_lookup(&man, "sets/c0.bin"));
	strvec_release(&man);
	/* Sealed once: sealing again is refused, not a new name. */
	assert_int_equal(task_trust_seal(d, h2, &err), -EEXIST);
	/* An input changed in place is named. */
	chmod(d, 0755);
	chmod(sd, 0755);
	chmod(sets, 0644);
	assert_int_equal(file_write_atomic_str(sets, "0123456780", NULL), 0);
	errbuf_init(&err);
	assert_int_equal(task_trust_verify(d, h, NULL, &err), -EBADMSG);
	if (!strstr(errbuf_str(&err),
		    "sets/c0.bin no longer matches its recorded hash"))
		fail_msg("unexpected: %s", errbuf_str(&err));
	free(sd);
	free(shim);
	free(sets);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_is_named_by_content_and_made_once),
		cmocka_unit_test(test_edited_file_is_found_and_named),
		cmocka_unit_test(
			test_added_and_removed_files_are_found_and_named),
		cmocka_unit_test(
			test_task_loaded_from_a_copy_keeps_held_out_cases),
		cmocka_unit_test(
			test_a_sealed_directory_verifies_and_its_changes_are_named),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * test_compile.c - from sources to a cached shared object
 * (engine/src/eval/compile.c): what is read is what is built, symbolic
 * links and oversized files are refused, builds are cached by content,
 * and a source that does not compile is a verdict, not an error.  Needs
 * the system C compiler (as every host evaluation does).
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

#include "eval_internal.h"

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/arena-test-compile-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = path_join(dir, name);
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(file_write_atomic(p, text, strlen(text), &err), 0);
	free(p);
}

static const char kernel[] =
	"#include \"arena/kernel.h\"\n"
	"int arena_launch(const arena_arg *a, int n, const int64_t *p,\n"
	"                 int np, void *s)\n"
	"{ (void)a; (void)n; (void)p; (void)np; (void)s; return SCALE; }\n";

static void snapshot_records_missing_files_and_hashes(void **state)
{
	char *dir = tmpdir();
	struct strvec files = STRVEC_INIT;
	struct source_set s;
	struct errbuf err;
	(void)state;

	put(dir, "a.c", "int x;\n");
	strvec_push(&files, "a.c");
	strvec_push(&files, "gone.c");
	errbuf_init(&err);
	assert_int_equal(sources_read(dir, &files, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_non_null(s.data[0]);
	assert_int_equal(s.len[0], 7);
	assert_int_equal(strlen(s.sha256[0]), 64);
	assert_null(s.data[1]);
	assert_string_equal(s.sha256[1], "-");
	sources_release(&s);
	strvec_release(&files);
	rm_rf(dir);
	free(dir);
}

/* A link in the workspace must not make the controller read a file the
 * agent cannot (the task's reference, say). */
static void symbolic_links_and_huge_files_are_refused(void **state)
{
	char *dir = tmpdir();
	struct strvec files = STRVEC_INIT;
	struct source_set s;
	struct errbuf err;
	(void)state;

	char *link = path_join(dir, "k.c");
	assert_int_equal(symlink("/etc/passwd", link), 0);
	strvec_push(&files, "k.c");
	errbuf_init(&err);
	assert_int_not_equal(sources_read(dir, &files, &s, &err), 0);
	assert_non_null(strstr(errbuf_str(&err), "symbolic link"));

	unlink(link);
	char *big = xmalloc(SOURCES_MAX_BYTES + 2);
	memset(big, ' ', SOURCES_MAX_BYTES + 1);
	big[SOURCES_MAX_BYTES + 1] = '\0';
	put(dir, "k.c", big);
	errbuf_init(&err);
	assert_int_not_equal(sources_read(dir, &files, &s, &err), 0);
	assert_true(err.set);
	free(big);
	free(link);
	strvec_release(&files);
	rm_rf(dir);
	free(dir);
}

struct build {
	char *dir, *cache;
	struct strvec files, compile, flags, defines;
	struct source_set src;
	struct build_spec spec;
};

static void build_init(struct build *b, const char *text)
{
	struct errbuf err;

	memset(b, 0, sizeof(*b));
	b->dir = tmpdir();
	b->cache = path_join(b->dir, "cache");
	put(b->dir, "kernel.c", text);
	strvec_init(&b->files);
	strvec_init(&b->compile);
	strvec_init(&b->flags);
	strvec_init(&b->defines);
	strvec_push(&b->files, "kernel.c");
	strvec_push(&b->compile, "kernel.c");
	strvec_push(&b->defines, "SCALE=3");
	errbuf_init(&err);
	assert_int_equal(sources_read(b->dir, &b->files, &b->src, &err), 0);
	b->spec = (struct build_spec){
		.role = "candidate", .lang = LANG_C, .dev = DEV_HOST,
		.src = &b->src, .compile = &b->compile, .flags = &b->flags,
		.defines = &b->defines, .cache_dir = b->cache,
		.timeout_s = 60,
	};
}

static void build_release(struct build *b)
{
	sources_release(&b->src);
	strvec_release(&b->files);
	strvec_release(&b->compile);
	strvec_release(&b->flags);
	strvec_release(&b->defines);
	rm_rf(b->dir);
	free(b->dir);
	free(b->cache);
}

static void builds_are_cached_by_content(void **state)
{
	struct build b;
	struct build_out o1, o2, o3;
	struct errbuf err;
	(void)state;

	build_init(&b, kernel);
	errbuf_init(&err);
	assert_int_equal(compile_build(&b.spec, &o1, &err), 0);
	assert_null(o1.message);
	assert_non_null(o1.so_path);
	assert_false(o1.cached);
	assert_true(file_exists(o1.so_path));
	assert_int_equal(compile_build(&b.spec, &o2, &err), 0);
	assert_true(o2.cached);
	assert_string_equal(o1.so_path, o2.so_path);
	/* another define is another artifact */
	free(b.defines.v[0]);
	b.defines.v[0] = xstrdup("SCALE=4");
	assert_int_equal(compile_build(&b.spec, &o3, &err), 0);
	assert_false(o3.cached);
	assert_string_not_equal(o1.so_path, o3.so_path);
	build_out_release(&o1);
	build_out_release(&o2);
	build_out_release(&o3);
	build_release(&b);
}

static void a_source_that_does_not_compile_is_a_verdict(void **state)
{
	struct build b;
	struct build_out o;
	struct errbuf err;
	(void)state;

	build_init(&b, "int arena_launch(void) { return undeclared_name; }\n");
	errbuf_init(&err);
	assert_int_equal(compile_build(&b.spec, &o, &err), 0);
	assert_null(o.so_path);
	assert_non_null(o.message);
	assert_non_null(strstr(o.message, "undeclared_name"));
	build_out_release(&o);
	build_release(&b);
}

static void only_sources_of_the_language_are_compiled(void **state)
{
	(void)state;
	assert_true(compile_source_ok(LANG_C, "kernel.c"));
	assert_false(compile_source_ok(LANG_C, "kernel.h"));
	assert_true(compile_source_ok(LANG_CUDA, "kernel.cu"));
	assert_true(compile_source_ok(LANG_HIP, "kernel.hip"));
	assert_false(compile_source_ok(LANG_HIP, "notes.txt"));
}

/* Unconfined, the compiler's temporary files go to the build's own
 * scratch directory, removed with it (confined, /tmp is the sandbox's):
 * hipcc leaves an empty <stem>-XXXXXX directory in $TMPDIR for every
 * compile, and a shared /tmp had collected over a thousand.  A stand-in
 * hipcc records its TMPDIR and leaves such a directory there. */
static void an_unconfined_compilers_temporary_files_go_with_its_build(
	void **state)
{
	char *dir = tmpdir(), *cache = path_join(dir, "cache");
	char *tool = path_join(dir, "hipcc"), *seen = path_join(dir, "tmpdir");
	struct strvec files = STRVEC_INIT, flags = STRVEC_INIT;
	struct source_set src;
	struct build_out o;
	struct errbuf err;
	(void)state;

	char *script = xasprintf(
		"#!/bin/sh\n"
		"if [ \"$1\" = --version ]; then echo 'HIP version: 5.2.0 "
		"(stand-in)'; exit 0; fi\n"
		"echo \"$TMPDIR\" > %s\n"
		"mkdir \"$TMPDIR/kernel-left\" || exit 1\n"
		"for a; do case $a in *.hip) src=$a ;; esac; done\n"
		"exec cc -shared -fPIC -x c -o out.so \"$src\"\n",
		seen);
	put(dir, "hipcc", script);
	free(script);
	assert_int_equal(chmod(tool, 0755), 0);
	setenv("HIPCC", tool, 1);
	put(dir, "kernel.hip",
	    "int arena_launch(const void *a, int n, const long *p, int np,\n"
	    "                 void *s) { return 0; }\n");
	strvec_push(&files, "kernel.hip");
	errbuf_init(&err);
	assert_int_equal(sources_read(dir, &files, &src, &err), 0);
	struct build_spec spec = {
		.role = "candidate", .lang = LANG_HIP, .dev = DEV_HIP,
		.arch = "gfx90a", .src = &src, .compile = &files,
		.flags = &flags, .cache_dir = cache, .timeout_s = 60,
	};
	assert_int_equal(compile_build(&spec, &o, &err), 0);
	assert_null(o.message);
	assert_false(o.confined);

	char *text = NULL;
	assert_int_equal(file_read_all(seen, 4096, &text, NULL, &err), 0);
	text[strcspn(text, "\n")] = '\0';
	/* Under the cache's scratch, and gone with the build. */
	assert_true(strncmp(text, cache, strlen(cache)) == 0);
	char *left = path_join(text, "kernel-left");
	assert_false(file_exists(left));
	assert_false(file_exists(text));
	free(left);
	free(text);
	unsetenv("HIPCC");
	build_out_release(&o);
	sources_release(&src);
	strvec_release(&files);
	strvec_release(&flags);
	rm_rf(dir);
	free(dir);
	free(cache);
	free(tool);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(snapshot_records_missing_files_and_hashes),
		cmocka_unit_test(symbolic_links_and_huge_files_are_refused),
		cmocka_unit_test(builds_are_cached_by_content),
		cmocka_unit_test(a_source_that_does_not_compile_is_a_verdict),
		cmocka_unit_test(only_sources_of_the_language_are_compiled),
		cmocka_unit_test(
			an_unconfined_compilers_temporary_files_go_with_its_build),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_store_stmt.c - the store's statement helper (store_stmt.c): a
 * spec that does not fit its statement is refused with a sentence, each
 * letter binds its type (a NULL string binds NULL), a query without a row
 * is -ENOENT, and store_fence keeps every other handle from writing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

static struct store *open_tmp(char **dir)
{
	char tmpl[] = "/tmp/arena-test-stmt-XXXXXX";
	struct store *s;
	struct errbuf err;

	assert_non_null(mkdtemp(tmpl));
	*dir = xstrdup(tmpl);
	errbuf_init(&err);
	assert_int_equal(store_open(*dir, &s, &err), 0);
	return s;
}

static void close_tmp(struct store *s, char *dir)
{
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_a_spec_that_does_not_fit_is_refused(void **state)
{
	char *dir;
	struct store *s = open_tmp(&dir);
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(st_exec(s, &err, "put a pair",
				 "INSERT INTO meta(key, value) VALUES(?,?)",
				 "s", "k"),
			 -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "put a pair: the statement "
						 "takes 2 parameters but "
						 "spec 's' binds 1"));
	errbuf_init(&err);
	assert_int_equal(st_exec(s, &err, "put a pair",
				 "INSERT INTO meta(key, value) VALUES(?,?)",
				 "sx", "k", "v"),
			 -EINVAL);
	assert_non_null(strstr(errbuf_str(&err), "has 'x' at 2"));
	/* Nothing was written by either. */
	char *v = NULL;
	assert_int_equal(store_meta_get(s, "k", &v, &err), -ENOENT);
	close_tmp(s, dir);
}

static void test_each_letter_binds_its_type(void **state)
{
	char *dir;
	struct store *s = open_tmp(&dir);
	struct errbuf err;
	sqlite3_stmt *st;

	errbuf_init(&err);
	assert_int_equal(st_one(s, &st, &err, "types",
				"SELECT typeof(?1), ?2, ?3, ?4, typeof(?5)",
				"siIds", "text", 7, (int64_t)1 << 40, 2.5,
				(const char *)NULL),
			 0);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "text");
	assert_int_equal(sqlite3_column_int(st, 1), 7);
	assert_true(sqlite3_column_int64(st, 2) == (int64_t)1 << 40);
	assert_true(sqlite3_column_double(st, 3) == 2.5);
	assert_string_equal((const char *)sqlite3_column_text(st, 4), "null");
	sqlite3_finalize(st);
	close_tmp(s, dir);
}

static void test_no_row_is_enoent_and_rows_come_in_order(void **state)
{
	char *dir;
	struct store *s = open_tmp(&dir);
	struct strvec keys = STRVEC_INIT;
	struct errbuf err;
	sqlite3_stmt *st;

	errbuf_init(&err);
	assert_int_equal(st_one(s, &st, &err, "none",
				"SELECT value FROM meta WHERE key = ?", "s",
				"absent"),
			 -ENOENT);
	sqlite3_finalize(st);
	assert_int_equal(store_meta_put(s, "b", "2", &err), 0);
	assert_int_equal(store_meta_put(s, "a", "1", &err), 0);
	assert_int_equal(st_strings(s, &keys, &err, "keys",
				    "SELECT key FROM meta WHERE key IN (?, ?)"
				    " ORDER BY key",
				    "ss", "a", "b"),
			 0);
	assert_int_equal((int)keys.n, 2);
	assert_string_equal(keys.v[0], "a");
	assert_string_equal(keys.v[1], "b");
	strvec_release(&keys);
	close_tmp(s, dir);
}

static void test_a_fence_keeps_other_handles_from_writing(void **state)
{
	char *dir;
	struct store *s = open_tmp(&dir), *other;
	struct errbuf err;
	char *v = NULL;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &other, &err), 0);
	assert_int_equal(store_meta_put(other, "before", "1", &err), 0);
	assert_int_equal(store_fence(s, 1000, &err), 0);
	/* Another handle's write waits out the fence; this one's is
	 * shortened so that the test does not wait 30 s. */
	sqlite3_busy_timeout(other->db, 200);
	assert_int_equal(store_meta_put(other, "after", "1", &err), -EBUSY);
	/* Reading goes on. */
	assert_int_equal(store_meta_get(other, "before", &v, &err), 0);
	free(v);
	/* A second fence cannot be taken while the first holds. */
	assert_int_equal(store_fence(other, 200, &err), -EBUSY);
	/* Closing the fenced handle lifts it, and wrote nothing. */
	store_close(s);
	assert_int_equal(store_meta_put(other, "after", "1", &err), 0);
	store_close(other);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_spec_that_does_not_fit_is_refused),
		cmocka_unit_test(test_each_letter_binds_its_type),
		cmocka_unit_test(test_no_row_is_enoent_and_rows_come_in_order),
		cmocka_unit_test(test_a_fence_keeps_other_handles_from_writing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_memledger.c - the device memory ledger (arena/memledger.h): asks
 * are granted while the sum fits the capacity and queued beyond it; they
 * are served first come, first served (a later ask that would fit does
 * not pass a queued one), granted by whoever looks next, the owner or
 * not; one ask larger than the capacity is granted
 * alone; an entry whose owner died, granted or queued, is out of the way;
 * a look reports what is held and queued; a ledger that cannot be made
 * is an error naming its path.
 *
 * Every entry holds a lock of its own open file description, so one
 * process can play several evaluations; death needs a child process.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/memledger.h"
#include "arena/util.h"

static char root[64];
static char dir[96];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/arena-test-memledger-XXXXXX");
	if (!mkdtemp(root))
		return -1;
	/* The ledger makes its own directory. */
	snprintf(dir, sizeof(dir), "%s/gpu-0000_3b_00.mem", root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	return 0;
}

static int ask(uint64_t cap, uint64_t bytes, struct memledger_entry *e,
	       struct memledger_view *v)
{
	struct errbuf err;

	errbuf_init(&err);
	int rc = memledger_ask(dir, cap, bytes, e, v, &err);
	if (rc && rc != -EWOULDBLOCK)
		fail_msg("ask: %s", errbuf_str(&err));
	return rc;
}

static int retry(uint64_t cap, struct memledger_entry *e,
		 struct memledger_view *v)
{
	struct errbuf err;

	errbuf_init(&err);
	int rc = memledger_retry(dir, cap, e, v, &err);
	if (rc && rc != -EWOULDBLOCK)
		fail_msg("retry: %s", errbuf_str(&err));
	return rc;
}

static int entries_on_disk(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "e-", 2);
	closedir(d);
	return n;
}

static void test_grants_within_capacity_and_queues_beyond(void **state)
{
	struct memledger_entry a, b, c;
	struct memledger_view v;

	(void)state;
	assert_int_equal(ask(100, 60, &a, &v), 0);
	assert_true(a.granted);
	assert_int_equal(v.holders, 0);
	/* Made for every user of the device, sticky like /tmp. */
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 01777);
	assert_int_equal(ask(100, 30, &b, &v), 0);
	assert_int_equal(v.held_bytes, 60);
	assert_int_equal(ask(100, 20, &c, &v), -EWOULDBLOCK);
	assert_false(c.granted);
	assert_int_equal(v.held_bytes, 90);
	assert_int_equal(v.holders, 2);
	assert_int_equal(retry(100, &c, &v), -EWOULDBLOCK);
	memledger_release(&a);
	assert_int_equal(retry(100, &c, &v), 0);
	assert_int_equal(v.held_bytes, 30);
	assert_true(c.granted);
	/* Exactly full is within. */
	struct memledger_entry d;
	assert_int_equal(ask(100, 50, &d, &v), 0);
	memledger_release(&b);
	memledger_release(&c);
	memledger_release(&d);
	assert_int_equal(entries_on_disk(), 0);
}

static void test_first_come_first_served(void **state)
{
	struct memledger_entry a, big, small;
	struct memledger_view v;

	(void)state;
	assert_int_equal(ask(100, 60, &a, &v), 0);
	assert_int_equal(ask(100, 50, &big, &v), -EWOULDBLOCK);
	/* 60 + 10 would fit, but the 50 asked first. */
	assert_int_equal(ask(100, 10, &small, &v), -EWOULDBLOCK);
	assert_int_equal(v.waiting_ahead, 1);
	/* Whoever looks next grants the queued asks in order, the 50 of an
	 * owner busy elsewhere first. */
	memledger_release(&a);
	assert_int_equal(retry(100, &small, &v), 0);
	assert_int_equal(v.held_bytes, 50);
	assert_int_equal(v.waiting_ahead, 0);
	assert_false(big.granted);
	assert_int_equal(retry(100, &big, &v), 0);
	assert_true(big.granted);
	assert_int_equal(v.held_bytes, 10);
	memledger_release(&big);
	memledger_release(&small);

	/* The first that does not fit stops those behind it. */
	assert_int_equal(ask(100, 60, &a, &v), 0);
	assert_int_equal(ask(100, 70, &big, &v), -EWOULDBLOCK);
	assert_int_equal(ask(100, 10, &small, &v), -EWOULDBLOCK);
	assert_int_equal(retry(100, &small, &v), -EWOULDBLOCK);
	assert_int_equal(v.waiting_ahead, 1);
	assert_int_equal(v.held_bytes, 60);
	memledger_release(&a);
	assert_int_equal(retry(100, &small, &v), 0);
	assert_int_equal(v.held_bytes, 70);
	memledger_release(&big);
	memledger_release(&small);

	/* A queued ask given up is out of the way of those behind it. */
	assert_int_equal(ask(100, 90, &a, &v), 0);
	assert_int_equal(ask(100, 20, &big, &v), -EWOULDBLOCK);
	assert_int_equal(ask(100, 10, &small, &v), -EWOULDBLOCK);
	memledger_release(&big);
	assert_int_equal(retry(100, &small, &v), 0);
	memledger_release(&a);
	memledger_release(&small);
}

static void test_an_ask_beyond_capacity_is_granted_alone(void **state)
{
	struct memledger_entry huge, other, again;
	struct memledger_view v;

	(void)state;
	assert_int_equal(ask(100, 150, &huge, &v), 0);
	assert_int_equal(ask(100, 10, &other, &v), -EWOULDBLOCK);
	memledger_release(&huge);
	assert_int_equal(retry(100, &other, &v), 0);
	assert_int_equal(ask(100, 150, &again, &v), -EWOULDBLOCK);
	assert_int_equal(v.held_bytes, 10);
	memledger_release(&other);
	assert_int_equal(retry(100, &again, &v), 0);
	memledger_release(&again);
}

/* A child asks for bytes and ends without giving them back. */
static void child_asks_and_dies(uint64_t cap, uint64_t bytes, int want)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct memledger_entry e;
		struct errbuf err;
		errbuf_init(&err);
		int rc = memledger_ask(dir, cap, bytes, &e, NULL, &err);
		_exit(rc == want ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_what_a_dead_process_asked_for_is_out_of_the_way(void **state)
{
	struct memledger_entry a, b;
	struct memledger_view v;

	(void)state;
	/* Granted, then died: its bytes are free again. */
	child_asks_and_dies(100, 80, 0);
	assert_int_equal(entries_on_disk(), 1);
	assert_int_equal(ask(100, 80, &a, &v), 0);
	assert_int_equal(v.holders, 0);
	assert_int_equal(entries_on_disk(), 1);
	/* Queued, then died: nothing waits behind it. */
	child_asks_and_dies(100, 50, -EWOULDBLOCK);
	assert_int_equal(ask(100, 10, &b, &v), 0);
	assert_int_equal(v.waiting_ahead, 0);
	memledger_release(&a);
	memledger_release(&b);
	assert_int_equal(entries_on_disk(), 0);
}

static void test_a_look_reports_what_is_held_and_queued(void **state)
{
	struct memledger_entry a, b;
	struct memledger_view v;
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	/* A ledger never made holds nothing, and a look does not make it. */
	assert_int_equal(memledger_look(dir, 100, &v, &err), 0);
	assert_int_equal(v.holders + v.waiting_ahead, 0);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(ask(100, 60, &a, &v), 0);
	assert_int_equal(ask(100, 50, &b, &v), -EWOULDBLOCK);
	assert_int_equal(memledger_look(dir, 100, &v, &err), 0);
	assert_int_equal(v.held_bytes, 60);
	assert_int_equal(v.holders, 1);
	assert_int_equal(v.waiting_ahead, 1);
	/* A look grants what fits, as every look does. */
	memledger_release(&a);
	assert_int_equal(memledger_look(dir, 100, &v, &err), 0);
	assert_int_equal(v.held_bytes, 50);
	assert_int_equal(v.waiting_ahead, 0);
	assert_int_equal(retry(100, &b, &v), 0);
	memledger_release(&b);
}

static void test_a_ledger_that_cannot_be_made_names_its_path(void **state)
{
	struct memledger_entry e;
	struct errbuf err;
	char file[128], bad[160];

	(void)state;
	snprintf(file, sizeof(file), "%s/a-file", root);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(bad, sizeof(bad), "%s/sub.mem", file);
	errbuf_init(&err);
	assert_true(memledger_ask(bad, 100, 10, &e, NULL, &err) < 0);
	assert_non_null(strstr(errbuf_str(&err), file));
	assert_int_equal(e.fd, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_grants_within_capacity_and_queues_beyond, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_first_come_first_served,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_an_ask_beyond_capacity_is_granted_alone, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_what_a_dead_process_asked_for_is_out_of_the_way,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_a_look_reports_what_is_held_and_queued, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_a_ledger_that_cannot_be_made_names_its_path, setup,
			teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

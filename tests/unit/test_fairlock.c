/*
 * test_fairlock.c - the device lock's queue (arena/fairlock.h): takers are
 * served in the order they drew their tickets, a taker that lets go and
 * asks again queues behind those already waiting (what flock let it
 * skip), shared takers share but never pass a queued exclusive one, an
 * exclusive holder can become a shared one with nobody slipping in, and
 * a taker that dies, holding or waiting, is out of the way.
 *
 * Every descriptor opened separately is a taker of its own, so most of
 * the order is checked in one process with waits that do not block; the
 * blocking waits, and death, with child processes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena/fairlock.h"
#include "arena/util.h"

static char dir[] = "/tmp/arena-test-fairlock-XXXXXX";
static char path[64];

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/dev.lock", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static int taker(void)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);

	assert_true(fd >= 0);
	return fd;
}

/* fd enqueued in mode, its ticket returned. */
static int64_t queued(int fd, int mode)
{
	int64_t t = -1;

	assert_int_equal(fairlock_enqueue(fd, mode, &t), 0);
	return t;
}

static bool granted(int fd, int mode, int64_t t)
{
	int rc = fairlock_wait(fd, mode, t, false);

	assert_true(rc == 0 || rc == -EWOULDBLOCK);
	return rc == 0;
}

/* The holder lets go and asks again at once: the taker already waiting
 * goes first (flock would have let the holder straight back in). */
static void test_a_taker_that_asks_again_queues_behind_the_waiting(void **s)
{
	int a = taker(), b = taker();
	int64_t ta, tb;

	(void)s;
	assert_int_equal(fairlock_take(a, LOCK_EX, &ta), 0);
	tb = queued(b, LOCK_EX);
	assert_false(granted(b, LOCK_EX, tb));
	fairlock_release(a, ta);
	ta = queued(a, LOCK_EX);
	assert_true(ta > tb);
	assert_false(granted(a, LOCK_EX, ta));
	assert_true(granted(b, LOCK_EX, tb));
	assert_false(granted(a, LOCK_EX, ta));
	fairlock_release(b, tb);
	assert_true(granted(a, LOCK_EX, ta));
	fairlock_release(a, ta);
	close(a);
	close(b);
}

/* The end of a queue: b holds it shared, c (exclusive) and d (shared)
 * wait in that order.  b lets go: c comes in, d still waits; c lets go:
 * d comes in.  Closes b, c and d. */
static void b_then_c_then_d(int b, int64_t tb, int c, int64_t tc, int d,
			    int64_t td)
{
	fairlock_release(b, tb);
	assert_true(granted(c, LOCK_EX, tc));
	assert_false(granted(d, LOCK_SH, td));
	fairlock_release(c, tc);
	assert_true(granted(d, LOCK_SH, td));
	fairlock_release(d, td);
	close(b);
	close(c);
	close(d);
}

/* Shared takers share; a queued exclusive one waits for them, and a
 * shared taker that came after it waits for it. */
static void test_shared_takers_never_pass_a_queued_exclusive_one(void **s)
{
	int a = taker(), b = taker(), c = taker(), d = taker();

	(void)s;
	int64_t ta = queued(a, LOCK_SH), tb = queued(b, LOCK_SH);
	assert_true(granted(a, LOCK_SH, ta));
	assert_true(granted(b, LOCK_SH, tb));
	int64_t tc = queued(c, LOCK_EX), td = queued(d, LOCK_SH);
	assert_false(granted(c, LOCK_EX, tc));
	assert_false(granted(d, LOCK_SH, td));
	fairlock_release(a, ta);
	assert_false(granted(c, LOCK_EX, tc));
	b_then_c_then_d(b, tb, c, tc, d, td);
	close(a);
}

/* An exclusive holder that shares (a deferred teardown): the shared
 * taker behind it comes in at once; the exclusive one, and a shared one
 * queued after that, still wait - for the sharer and the shared taker. */
static void test_a_holder_that_shares_lets_only_shared_takers_in(void **s)
{
	int a = taker(), b = taker(), c = taker(), d = taker();
	int64_t ta;

	(void)s;
	assert_int_equal(fairlock_take(a, LOCK_EX, &ta), 0);
	int64_t tb = queued(b, LOCK_SH), tc = queued(c, LOCK_EX),
		td = queued(d, LOCK_SH);
	assert_false(granted(b, LOCK_SH, tb));
	fairlock_share(a, ta);
	assert_true(granted(b, LOCK_SH, tb));
	assert_false(granted(c, LOCK_EX, tc));
	assert_false(granted(d, LOCK_SH, td));
	fairlock_release(a, ta);
	assert_false(granted(c, LOCK_EX, tc));
	b_then_c_then_d(b, tb, c, tc, d, td);
	close(a);
}

/* In a child: dies with the test, and within 30 s whatever happens, so
 * that a failed assertion leaves no child holding a pipe or the lock. */
static void child_bounded(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(30);
}

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Children that queue one after another and then block are served in
 * that order, and the parent, which let go and asked again once the last
 * had queued, comes after all of them. */
static void test_blocked_takers_are_served_in_the_order_they_came(void **s)
{
	enum { N = 4 };
	int order[2], ready[2], a = taker();
	pid_t pid[N];
	int64_t ta;
	char c;

	(void)s;
	assert_int_equal(pipe(order), 0);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(fairlock_take(a, LOCK_EX, &ta), 0);
	for (int i = 0; i < N; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			int fd = taker();
			int64_t t;
			char me = (char)('0' + i);
			child_bounded();
			if (fairlock_enqueue(fd, LOCK_EX, &t) != 0)
				_exit(2);
			(void)!write(ready[1], &me, 1);
			if (fairlock_wait(fd, LOCK_EX, t, true) != 0)
				_exit(3);
			(void)!write(order[1], &me, 1);
			usleep(20000); /* holds it a while */
			fairlock_release(fd, t);
			_exit(0);
		}
		assert_int_equal(read(ready[0], &c, 1), 1);
		assert_int_equal(c, '0' + i);
	}
	/* Queued behind the parent, none is let in before it lets go. */
	struct pollfd pf = { .fd = order[0], .events = POLLIN };
	assert_int_equal(poll(&pf, 1, 100), 0);
	fairlock_release(a, ta);
	assert_int_equal(fairlock_take(a, LOCK_EX, &ta), 0);
	(void)!write(order[1], "P", 1);
	fairlock_release(a, ta);
	char got[N + 2] = { 0 };
	for (int i = 0; i < N + 1; i++)
		assert_int_equal(read(order[0], &got[i], 1), 1);
	assert_string_equal(got, "0123P");
	for (int i = 0; i < N; i++) {
		int st;
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(a);
	close(order[0]);
	close(order[1]);
	close(ready[0]);
	close(ready[1]);
}

/* Under contention - children that take, record and let go as fast as
 * they can, then queue again at once - the lock is granted in ticket
 * order, each holder alone: no taker is overtaken by one that drew
 * after it, however often that one asks. */
static void test_under_contention_tickets_are_served_in_order(void **s)
{
	enum { KIDS = 4, ROUNDS = 60 };
	int rec[2];
	pid_t pid[KIDS];
	char holders[80];

	(void)s;
	snprintf(holders, sizeof(holders), "%s/holders", dir);
	assert_int_equal(pipe(rec), 0);
	for (int i = 0; i < KIDS; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] != 0)
			continue;
		child_bounded();
		int fd = taker();
		for (int r = 0; r < ROUNDS; r++) {
			int64_t t;
			if (fairlock_take(fd, LOCK_EX, &t) != 0)
				_exit(2);
			/* Alone while held: nobody else's mark is there. */
			int h = open(holders, O_CREAT | O_EXCL | O_WRONLY, 0600);
			if (h < 0)
				_exit(4);
			close(h);
			if (write(rec[1], &t, sizeof(t)) != sizeof(t))
				_exit(3);
			unlink(holders);
			fairlock_release(fd, t);
		}
		_exit(0);
	}
	close(rec[1]);
	int64_t last = -1, t;
	int n = 0;
	while (read(rec[0], &t, sizeof(t)) == sizeof(t)) {
		assert_true(t > last);
		last = t;
		n++;
	}
	for (int i = 0; i < KIDS; i++) {
		int st;
		assert_int_equal(waitpid(pid[i], &st, 0), pid[i]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	assert_int_equal(n, KIDS * ROUNDS);
	close(rec[0]);
}

/* A child that queues for the lock exclusively and, with holds, waits
 * until it has it; then says so on ready and stays (holding, or
 * waiting) until it is killed.  Returns once it has said so. */
static pid_t queued_child(int ready[2], bool holds)
{
	pid_t pid = fork();
	char c;

	assert_true(pid >= 0);
	if (pid == 0) {
		child_bounded();
		int fd = taker();
		int64_t t;
		if (fairlock_enqueue(fd, LOCK_EX, &t) != 0 ||
		    (holds && fairlock_wait(fd, LOCK_EX, t, true) != 0))
			_exit(2);
		(void)!write(ready[1], "q", 1);
		if (!holds)
			(void)fairlock_wait(fd, LOCK_EX, t, true);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	return pid;
}

/* A child that holds the lock, and one that waits for it, are killed:
 * the next taker still waits for the holder, then gets the lock. */
static void test_a_dead_taker_is_out_of_the_way(void **s)
{
	int ready[2], a = taker();

	(void)s;
	assert_int_equal(pipe(ready), 0);
	pid_t holder = queued_child(ready, true);
	pid_t waiter = queued_child(ready, false);
	int64_t ta = queued(a, LOCK_EX);
	kill(waiter, SIGKILL);
	waitpid(waiter, NULL, 0);
	/* The waiter's death does not let a through: the holder lives. */
	assert_false(granted(a, LOCK_EX, ta));
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	uint64_t t0 = ms_now();
	assert_int_equal(fairlock_wait(a, LOCK_EX, ta, true), 0);
	assert_true(ms_now() - t0 < 5000);
	fairlock_release(a, ta);
	close(a);
	close(ready[0]);
	close(ready[1]);
}

/* A counter rewritten back to 0 while a taker holds ticket t > 0: a new
 * draw would otherwise get a ticket below t and not wait for it (two
 * timings at once); it fails instead. */
static void test_a_counter_that_went_back_is_refused(void **s)
{
	int a = taker(), b = taker(), c = taker();
	int64_t ta, tb, tc;
	unsigned char zero[8] = { 0 };

	(void)s;
	assert_int_equal(fairlock_take(a, LOCK_EX, &ta), 0);
	fairlock_release(a, ta);
	assert_int_equal(fairlock_take(b, LOCK_EX, &tb), 0);
	assert_true(tb > 0);
	assert_int_equal(pwrite(c, zero, sizeof(zero), 0), (ssize_t)sizeof(zero));
	assert_int_equal(fairlock_enqueue(c, LOCK_EX, &tc), -EBADMSG);
	fairlock_release(b, tb);
	close(a);
	close(b);
	close(c);
}

/* A counter this module did not write is refused, not guessed at. */
static void test_a_foreign_counter_is_refused(void **s)
{
	char other[80];
	int64_t t;

	(void)s;
	snprintf(other, sizeof(other), "%s/foreign.lock", dir);
	int fd = open(other, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	assert_int_equal(fairlock_enqueue(fd, LOCK_EX, &t), -EBADMSG);
	assert_int_equal(fairlock_enqueue(fd, LOCK_UN, &t), -EINVAL);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_a_taker_that_asks_again_queues_behind_the_waiting),
		cmocka_unit_test(
			test_shared_takers_never_pass_a_queued_exclusive_one),
		cmocka_unit_test(
			test_a_holder_that_shares_lets_only_shared_takers_in),
		cmocka_unit_test(
			test_blocked_takers_are_served_in_the_order_they_came),
		cmocka_unit_test(
			test_under_contention_tickets_are_served_in_order),
		cmocka_unit_test(test_a_dead_taker_is_out_of_the_way),
		cmocka_unit_test(test_a_counter_that_went_back_is_refused),
		cmocka_unit_test(test_a_foreign_counter_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

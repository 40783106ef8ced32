/*
 * test_contain.c - proc_spawn's holder (proc_spec.contain,
 * base/contain.h): nothing a program starts outlives it, in a PID
 * namespace and in the subreaper fallback ($ARENA_CONTAIN=subreaper); the
 * program's own status comes back; a tick can stop it; its limits apply.
 *
 * The programs are shell scripts that leave processes behind the way
 * agents do (setsid, double fork, ignoring SIGTERM), each running a
 * command line of its own, so that pgrep can tell whether any survived.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/proc.h"
#include "arena/util.h"

static char dir[] = "/tmp/arena-test-contain-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* A script that leaves three processes running `marker` (a setsid
 * daemon, a double-forked orphan, a child that ignores SIGTERM) and exits
 * 3.  Caller frees. */
static char *leaver(const char *marker)
{
	return xasprintf("setsid sh -c 'exec %s' </dev/null >/dev/null 2>&1 &\n"
			 "(sh -c 'exec %s' &) </dev/null >/dev/null 2>&1\n"
			 "(trap '' TERM HUP; %s) </dev/null >/dev/null 2>&1 &\n"
			 "sleep 0.5\n"
			 "exit 3\n",
			 marker, marker, marker);
}

/* Whether any process still runs the marker command line. */
static int survivors(const char *marker)
{
	char *argv[] = { (char *)"pgrep", (char *)"-f", (char *)marker, NULL };
	struct proc_result r;
	int n = 0;

	if (proc_run_capture(argv, NULL, NULL, 10000, 4096, &r, NULL) != 0)
		return -1;
	for (char *p = r.output; p && *p; p++)
		n += *p == '\n';
	proc_result_release(&r);
	return n;
}

static void run_and_check(const char *mode)
{
	/* A unique command line per test, for pgrep: sleep's second
	 * operand only adds to the time. */
	char *marker = xasprintf("sleep 300 %d",
				 (int)getpid() % 1000 + (mode ? 1000 : 2000));
	char *s2 = leaver(marker);
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", s2, NULL };
	struct proc_spawn_result res;
	struct errbuf err;

	if (mode)
		setenv("ARENA_CONTAIN", mode, 1);
	else
		unsetenv("ARENA_CONTAIN");
	errbuf_init(&err);
	struct proc_spec spec = {
		.argv = argv,
		.timeout_s = 60,
		.contain = true,
	};
	assert_int_equal(proc_spawn(&spec, &res, &err), 0);
	fprintf(stderr, "%s: contained %d, leftovers %d, status %d\n",
		mode ? mode : "default", res.contained, res.leftovers,
		res.status);
	assert_true(WIFEXITED(res.status));
	assert_int_equal(WEXITSTATUS(res.status), 3);
	assert_int_equal(res.contained,
			 mode ? PROC_CONTAINED_SUBREAPER : PROC_CONTAINED_NS);
	assert_true(res.leftovers >= 3);
	/* Gone before proc_spawn returned, not some time later. */
	assert_int_equal(survivors(marker), 0);
	unsetenv("ARENA_CONTAIN");
	free(s2);
	free(marker);
}

static void test_nothing_outlives_the_program_in_a_pid_namespace(void **state)
{
	(void)state;
	run_and_check(NULL);
}

static void test_nothing_outlives_the_program_with_a_subreaper(void **state)
{
	(void)state;
	run_and_check("subreaper");
}

static int ticks;
static const char *stop_on_third(void *ctx)
{
	(void)ctx;
	return ++ticks >= 3 ? "stopped by the test's tick" : NULL;
}

static void test_a_tick_stops_the_program_and_its_processes(void **state)
{
	char *marker = xasprintf("sleep 301 %d", (int)getpid() % 1000);
	char *cmd = xasprintf("setsid %s & exec %s", marker, marker);
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };
	struct proc_spawn_result res;
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	ticks = 0;
	struct proc_spec spec = {
		.argv = argv,
		.timeout_s = 60,
		.contain = true,
		.on_tick = stop_on_third,
	};
	assert_int_equal(proc_spawn(&spec, &res, &err), 0);
	assert_true(res.stopped);
	assert_string_equal(res.stop_reason, "stopped by the test's tick");
	assert_true(WIFSIGNALED(res.status));
	assert_int_equal(WTERMSIG(res.status), SIGKILL);
	assert_true(res.seconds < 30);
	assert_int_equal(survivors(marker), 0);
	free(marker);
	free(cmd);
}

static void test_file_size_limit_applies_to_the_program(void **state)
{
	char *out = path_join(dir, "big");
	char *cmd = xasprintf("head -c 1000000 /dev/zero > %s", out);
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };
	struct proc_limits lim = { .fsize_bytes = 65536 };
	struct proc_spawn_result res;
	struct errbuf err;
	struct stat st;

	(void)state;
	errbuf_init(&err);
	struct proc_spec spec = {
		.argv = argv,
		.timeout_s = 60,
		.contain = true,
		.limits = &lim,
	};
	assert_int_equal(proc_spawn(&spec, &res, &err), 0);
	assert_int_equal(stat(out, &st), 0);
	assert_true(st.st_size <= 65536);
	free(cmd);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_nothing_outlives_the_program_in_a_pid_namespace),
		cmocka_unit_test(
			test_nothing_outlives_the_program_with_a_subreaper),
		cmocka_unit_test(
			test_a_tick_stops_the_program_and_its_processes),
		cmocka_unit_test(test_file_size_limit_applies_to_the_program),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

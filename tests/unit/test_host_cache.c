/*
 * test_host_cache.c - the controller's sweep of twice the last-level
 * cache before every host call (engine/src/eval/host_cache.c): however
 * many threads share it, one sweep writes every cache line of the buffer
 * exactly once and nothing else; a runner forked from the controller
 * does not inherit the buffer; the CPUs said to share a last-level cache
 * include the CPU asked about, read from sysfs by the CPU-list parser that
 * $ARENA_GPU_RUNNER_CPUS shares (device.c); a host pair's hold
 * (host_pin.c) puts the controller's thread and both runners on the one
 * CPU the controller was on, and gives the thread its own affinity back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evaluation.h"

/* Every line's first byte (64-byte lines, or what sysconf says) is
 * sweeps, every other byte 0. */
static void assert_swept(const struct host_sweep *s, int sweeps)
{
	long ls = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (ls < 16 || ls > 4096)
		ls = 64;
	for (size_t i = 0; i < s->bytes; i++) {
		int want = i % (size_t)ls == 0 ? sweeps : 0;
		if (s->buf[i] != want)
			fail_msg("byte %zu of %zu is %d after %d sweeps, "
				 "expected %d",
				 i, s->bytes, s->buf[i], sweeps, want);
	}
}

/* threads: how many share the sweep (the domain's CPUs are the
 * process's own, so that they exist). */
static void sweep_with(size_t bytes, int threads)
{
	struct host_sweep s;

	assert_int_equal(host_sweep_init(&s, bytes), 0);
	assert_true(s.buf != NULL && (uintptr_t)s.buf % (2u << 20) == 0);
	if (threads > 0) {
		assert_int_equal(sched_getaffinity(0, sizeof(s.cpus), &s.cpus),
				 0);
		s.home_cpu = sched_getcpu();
		s.ncpus = threads;
		/* The caller must be in the set, or the domain is read
		 * again from sysfs. */
		CPU_SET(s.home_cpu, &s.cpus);
	}
	host_sweep_run(&s, true);
	assert_swept(&s, 1);
	host_sweep_run(&s, true);
	assert_swept(&s, 2);
	host_sweep_run(&s, false); /* not exclusive: the caller alone */
	assert_swept(&s, 3);
	host_sweep_release(&s);
}

static void test_one_sweep_writes_every_line_once(void **state)
{
	(void)state;
	/* The machine's own domain; then 1, 3 and 8 threads over sizes
	 * that do not divide evenly (a part of a line at the end). */
	sweep_with((size_t)3 << 20, 0);
	sweep_with((size_t)1 << 20, 1);
	sweep_with(((size_t)1 << 20) + 64 * 7 + 5, 3);
	sweep_with(((size_t)2 << 20) + 64 * 13, 8);
	sweep_with(64 * 5, 8); /* fewer lines than threads */
}

static void test_a_forked_child_does_not_inherit_the_buffer(void **state)
{
	struct host_sweep s;
	unsigned char vec;

	(void)state;
	assert_int_equal(host_sweep_init(&s, (size_t)4 << 20), 0);
	host_sweep_run(&s, true);
	assert_int_equal(mincore(s.buf, 4096, &vec), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Unmapped here: mincore says ENOMEM. */
		int rc = mincore(s.buf, 4096, &vec);
		_exit(rc == -1 && errno == ENOMEM ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* Still the parent's. */
	host_sweep_run(&s, true);
	assert_swept(&s, 2);
	host_sweep_release(&s);
}

static void test_a_cpu_shares_its_last_level_cache_with_itself(void **state)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	(void)state;
	if (access("/sys/devices/system/cpu/cpu0/cache/index0/level", R_OK)) {
		assert_int_equal(ev_llc_cpus(cpu, &set), 0);
		skip();
	}
	int n = ev_llc_cpus(cpu, &set);
	assert_true(n >= 1);
	assert_int_equal(n, CPU_COUNT(&set));
	assert_true(CPU_ISSET(cpu, &set));
	assert_int_equal(ev_llc_cpus(-1, &set), 0);
}

/* The CPU lists of sysfs and of $ARENA_GPU_RUNNER_CPUS, one parser. */
static void test_cpu_lists_parse_as_sysfs_writes_them(void **state)
{
	cpu_set_t set;

	(void)state;
	assert_int_equal(ev_cpu_list_parse("0-3,8,10-11\n", &set), 7);
	assert_true(CPU_ISSET(2, &set) && CPU_ISSET(8, &set) &&
		    CPU_ISSET(11, &set) && !CPU_ISSET(9, &set));
	assert_int_equal(ev_cpu_list_parse("14,15", &set), 2);
	assert_int_equal(ev_cpu_list_parse("", &set), 0);
	/* Not a list: -1, what preceded the fault kept. */
	assert_int_equal(ev_cpu_list_parse("3,x", &set), -1);
	assert_true(CPU_ISSET(3, &set));
	assert_int_equal(ev_cpu_list_parse("2-", &set), -1);
	assert_int_equal(ev_cpu_list_parse("1;2", &set), -1);
}

/* A child that waits to be killed (and dies with the test if an
 * assertion ends it first). */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	return pid;
}

static void assert_only_cpu(pid_t pid, int cpu)
{
	cpu_set_t set;

	assert_int_equal(sched_getaffinity(pid, sizeof(set), &set), 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(cpu, &set));
}

static void test_a_pair_is_held_to_the_controllers_cpu(void **state)
{
	cpu_set_t before, after;
	struct host_pin h;
	pid_t a = idle_child(), b = idle_child();

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(before), &before), 0);
	host_pin_hold(&h, a, b);
	if (!h.held) {
		kill(a, SIGKILL);
		kill(b, SIGKILL);
		waitpid(a, NULL, 0);
		waitpid(b, NULL, 0);
		skip(); /* a cpuset that forbids it: the pair runs unheld */
	}
	assert_int_equal(sched_getcpu(), h.cpu);
	assert_only_cpu(0, h.cpu);
	assert_only_cpu(a, h.cpu);
	assert_only_cpu(b, h.cpu);
	host_pin_release(&h);
	assert_false(h.held);
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	/* The runners stay until the next pair holds them elsewhere. */
	assert_only_cpu(a, h.cpu);
	/* A runner already gone holds nothing up. */
	kill(b, SIGKILL);
	waitpid(b, NULL, 0);
	host_pin_hold(&h, a, b);
	assert_true(h.held);
	assert_only_cpu(a, h.cpu);
	host_pin_release(&h);
	kill(a, SIGKILL);
	waitpid(a, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_sweep_writes_every_line_once),
		cmocka_unit_test(
			test_a_forked_child_does_not_inherit_the_buffer),
		cmocka_unit_test(
			test_a_cpu_shares_its_last_level_cache_with_itself),
		cmocka_unit_test(test_cpu_lists_parse_as_sysfs_writes_them),
		cmocka_unit_test(test_a_pair_is_held_to_the_controllers_cpu),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

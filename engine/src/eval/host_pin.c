/*
 * host_pin.c - one CPU for a host pair's requests (docs/evaluator.md §6,
 * "Are the runner's times real?"), and, opt-in, for a GPU pair's two
 * runners (gpu_pair_cpu below).
 *
 * The controller's thread, which flushes before each call, and both
 * runners of a block are held to the CPU the controller is on when the
 * pair begins, until the pair's calls are done.  Left to the scheduler,
 * one runner of a block may keep waking on the core where the controller
 * has just run and the other on another core, and what a request costs
 * around its call (the CPU time the claims check reads) then differs
 * between the two runners, call after call: by 40-100 us under load on
 * the 2-vCPU VM (2026-12-06), enough to read an honest candidate as a
 * forger.  Held to one CPU, the two sides of a pair stayed within a few
 * microseconds of each other, loaded or not.  The two calls of a pair
 * also run on the same core, whatever cores the machine mixes.
 *
 * Where a CPU cannot be held (a cpuset that forbids it, a runner that is
 * gone), the pair runs where the scheduler puts it: nothing else depends
 * on the hold.
 */
#include "eval_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

void host_pin_hold(struct host_pin *h, pid_t a, pid_t b)
{
	int cpu = sched_getcpu();
	cpu_set_t one;

	h->held = false;
	if (cpu < 0 || cpu >= CPU_SETSIZE ||
	    sched_getaffinity(0, sizeof(h->before), &h->before) != 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return;
	h->held = true;
	h->cpu = cpu;
	if (a > 0)
		(void)sched_setaffinity(a, sizeof(one), &one);
	if (b > 0)
		(void)sched_setaffinity(b, sizeof(one), &one);
}

void host_pin_release(struct host_pin *h)
{
	if (h->held)
		(void)sched_setaffinity(0, sizeof(h->before), &h->before);
	h->held = false;
}

/*
 * A GPU pair's runners on one CPU ($ARENA_GPU_PAIR_CPU=1, opt-in; not
 * run on a GPU yet).  In quick evaluations on an H100 an unchanged Triton
 * kernel was read 3-9% slower now and then (2026-12-07); in one, the
 * excess was 10-13 us in every case of the evaluation: an offset of that
 * pair of processes around the `time` request.  Where two processes wake on
 * different CPUs (a halted virtual CPU wakes slower than a busy one),
 * such an offset is theirs for as long as they stay there; held to one
 * CPU, a pair's two runners wake alike.  The controller is left where it
 * is: a runner waits for its device on its CPU while the controller opens
 * the gate from its own.
 */
int gpu_pair_cpu(void)
{
	const char *on = getenv("ARENA_GPU_PAIR_CPU");
	cpu_set_t set;
	int here = sched_getcpu();

	if (!on || strcmp(on, "1") != 0)
		return -1;
	if (ev_gpu_runner_cpus(&set)) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				return c;
		return -1;
	}
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -1;
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &set) && c != here)
			return c;
	return -1;
}

bool pin_pair_to(int cpu, pid_t a, pid_t b)
{
	cpu_set_t one, mine;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return false;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(a, sizeof(one), &one) != 0)
		return false;
	if (sched_setaffinity(b, sizeof(one), &one) == 0)
		return true;
	/* Never one of the two alone. */
	int e = errno;
	if (sched_getaffinity(0, sizeof(mine), &mine) == 0)
		(void)sched_setaffinity(a, sizeof(mine), &mine);
	errno = e;
	return false;
}

/*
 * host_pin.c - one CPU for a host pair's requests (docs/evaluator.md §6,
 * "Are the runner's times real?").
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

#include <sched.h>

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

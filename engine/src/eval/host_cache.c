/*
 * host_cache.c - the controller's own cache flush before every host call
 * (DESIGN.md §3 item 9: trusted work is done by trusted code).
 *
 * Before each `time` request to a baseline or candidate host runner, while
 * every runner is stopped, the controller
 *   1. sweeps a buffer of twice the last-level cache with read-modify-write
 *      stores (ordinary stores that allocate in the cache; memset may use
 *      non-temporal ones), which evicts what the previous runner left in
 *      the shared cache - dirty lines included, so a kernel cannot leave
 *      write-backs behind for the next process to pay for; in the timing
 *      phase the threads of the CPUs sharing that cache split the buffer
 *      between them (below: one core's bandwidth bounds a sweep);
 *   2. evicts every cache line of the runner's argument memory (inputs it
 *      just wrote, poisoned outputs) with clflushopt where the CPU has it,
 *      else clflush (x86-64), or dc civac (AArch64): by physical line,
 *      from every core's caches, whatever a replacement policy would have
 *      kept.  clflushopt evicts exactly as clflush does, but the flushes
 *      of different lines overlap instead of queueing behind each other:
 *      on this project's development VM 128 MiB take 7 ms instead of
 *      400 ms (tests/bench/host_overhead.sh, docs/benchmarks.md), and
 *      clflush had become most of a host evaluation's time.  The fence
 *      after the loop orders both.
 * A runner therefore starts each call with its arguments in memory only,
 * and it never holds a flush buffer of its own - the flush is neither
 * skippable by the candidate nor a sign of which phase it is in.
 *
 * What stays warm, for baseline and candidate alike: the runner's own
 * code and stack in the private caches of the core it runs on.
 */
#include "evaluation.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

static size_t line_size(void)
{
	long n = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	return n >= 16 && n <= 4096 ? (size_t)n : 64;
}

bool host_cache_can_evict(void)
{
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
/* CPUID leaf 7 itself: __builtin_cpu_supports (host_peaks.c) knows
 * "clflushopt" in gcc but not in clang 14, which builds `make fuzz`. */
static bool has_clflushopt;
static pthread_once_t clflushopt_once = PTHREAD_ONCE_INIT;

static void detect_clflushopt(void)
{
	unsigned a, b, c, d;

	has_clflushopt = __get_cpuid_count(7, 0, &a, &b, &c, &d) &&
			 (b & bit_CLFLUSHOPT);
}

__attribute__((target("clflushopt"))) static void
flush_lines_opt(const char *c, const char *end, size_t ls)
{
	for (; c < end; c += ls)
		_mm_clflushopt((void *)c);
}

static void flush_lines(const char *c, const char *end, size_t ls)
{
	for (; c < end; c += ls)
		_mm_clflush(c);
}
#endif

void host_cache_evict(const void *p, size_t n)
{
	if (!p || !n)
		return;
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
	size_t ls = line_size();
	const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)(ls - 1));
	const char *end = (const char *)p + n;
#if defined(__aarch64__)
	for (; c < end; c += ls)
		__asm__ volatile("dc civac, %0" : : "r"(c) : "memory");
	__asm__ volatile("dsb ish" : : : "memory");
#else
	pthread_once(&clflushopt_once, detect_clflushopt);
	if (has_clflushopt)
		flush_lines_opt(c, end, ls);
	else
		flush_lines(c, end, ls);
	_mm_mfence();
#endif
#endif
}

/*
 * The sweep buffer is private to the controller, and two hints keep it
 * from costing more than its own sweep (tests/bench/host_overhead.sh,
 * docs/benchmarks.md):
 *   MADV_DONTFORK  every runner is forked from the controller; a child
 *                  that inherited the buffer would have its page tables
 *                  copied at the fork and leave every page copy-on-write,
 *                  so the next sweep took a write fault per 4 KiB page
 *                  (210 MiB here: 77 ms instead of 23);
 *   MADV_HUGEPAGE  transparent huge pages where the kernel has them: the
 *                  first sweep faults in 2 MiB at a time (67 ms instead
 *                  of 217 for the first call of every evaluation).
 * Both are hints: a kernel that refuses one sweeps the same lines.  The
 * eviction is the same either way: the sweep writes every line of twice
 * the last-level cache.
 */
#define SWEEP_HUGE ((size_t)2 << 20)

int host_sweep_init(struct host_sweep *s, size_t bytes)
{
	memset(s, 0, sizeof(*s));
	if (!bytes)
		return 0;
	/* Mapped 2 MiB larger, so that the buffer can start at a 2 MiB
	 * boundary: a huge page covers only an aligned 2 MiB. */
	size_t map_bytes = bytes + SWEEP_HUGE;
	void *p = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	unsigned char *buf = (unsigned char *)(((uintptr_t)p + SWEEP_HUGE - 1) &
					       ~(uintptr_t)(SWEEP_HUGE - 1));
	(void)madvise(p, map_bytes, MADV_DONTFORK);
#ifdef MADV_HUGEPAGE
	(void)madvise(buf, bytes, MADV_HUGEPAGE);
#endif
	s->map = p;
	s->map_bytes = map_bytes;
	s->buf = buf;
	s->bytes = bytes;
	s->home_cpu = -1;
	return 0;
}

/*
 * The sweep is bound by one core's memory bandwidth, not the machine's:
 * 210 MiB take 23 ms from one core of this project's development VM and
 * 17 from two (tests/bench/host_overhead.sh).  So it is shared by up to
 * SWEEP_THREADS threads, each writing its own contiguous part, on the
 * CPUs that share the last-level cache of the CPU the controller runs
 * on (the cache being swept; a thread on another socket would fill
 * another cache) and that the controller may use - in the timing phase,
 * while the evaluation holds the host exclusively.  Outside it (the
 * correctness calls) another evaluation may be timing a call, and a
 * helper thread would take that runner's CPU: the controller sweeps
 * alone there, as before.  Every line of the
 * buffer is still written before host_sweep_run returns, so what the
 * sweep evicts does not change; the helpers' own private caches are
 * swept with it.  Where the domain is one CPU, or sysfs does not say,
 * the controller sweeps alone.
 */
#define SWEEP_THREADS 8

struct sweep_part {
	volatile unsigned char *p;
	size_t bytes, ls;
};

static void *sweep_part_run(void *arg)
{
	struct sweep_part *w = arg;

	for (size_t i = 0; i < w->bytes; i += w->ls)
		w->p[i] = (unsigned char)(w->p[i] + 1);
	return NULL;
}

/* The CPUs of cpu's cache domain this process may run on: s->cpus. */
static void sweep_domain(struct host_sweep *s, int cpu)
{
	cpu_set_t mine;

	s->home_cpu = cpu;
	s->ncpus = 0;
	if (cpu < 0 || ev_llc_cpus(cpu, &s->cpus) <= 0 ||
	    sched_getaffinity(0, sizeof(mine), &mine) != 0)
		return;
	CPU_AND(&s->cpus, &s->cpus, &mine);
	s->ncpus = CPU_COUNT(&s->cpus);
}

void host_sweep_run(struct host_sweep *s, bool exclusive)
{
	size_t ls = line_size();
	int cpu = sched_getcpu();

	if (!s->bytes)
		return;
	if (cpu != s->home_cpu &&
	    (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &s->cpus) ||
	     s->ncpus == 0))
		sweep_domain(s, cpu);
	int n = s->ncpus < SWEEP_THREADS ? s->ncpus : SWEEP_THREADS;
	if (n < 1 || !exclusive)
		n = 1;
	struct sweep_part parts[SWEEP_THREADS];
	pthread_t th[SWEEP_THREADS];
	bool started[SWEEP_THREADS] = { false };
	pthread_attr_t attr;
	bool pinned = n > 1 && pthread_attr_init(&attr) == 0;
	if (pinned)
		(void)pthread_attr_setaffinity_np(&attr, sizeof(s->cpus),
						  &s->cpus);
	/* Parts of whole lines; the last takes the remainder. */
	size_t lines = s->bytes / ls, off = 0;
	for (int i = 0; i < n; i++) {
		size_t nl = lines / (size_t)n + ((size_t)i < lines % (size_t)n);
		parts[i] = (struct sweep_part){ s->buf + off,
						i == n - 1 ? s->bytes - off
							   : nl * ls,
						ls };
		off += nl * ls;
	}
	for (int i = 1; i < n; i++)
		started[i] = pthread_create(&th[i], pinned ? &attr : NULL,
					    sweep_part_run, &parts[i]) == 0;
	sweep_part_run(&parts[0]);
	for (int i = 1; i < n; i++) {
		if (started[i])
			pthread_join(th[i], NULL);
		else
			sweep_part_run(&parts[i]);
	}
	if (pinned)
		pthread_attr_destroy(&attr);
}

void host_sweep_release(struct host_sweep *s)
{
	if (s->map)
		munmap(s->map, s->map_bytes);
	memset(s, 0, sizeof(*s));
}

/*
 * host_overhead.c - three of the controller's per-call costs on the host,
 * each against the code it replaced:
 *   flush  the eviction of a runner's argument memory (host_cache_evict,
 *          engine/src/eval/host_cache.c) against a clflush loop, with
 *          proof that it evicts: a read of the buffer right after it must
 *          be as slow as after clflush, not as fast as a warm one;
 *   draw   a timed pair's fresh f32 inputs (pool_draw, inputs.c) against
 *          the scalar loop it replaced, on a 4,000,000-element normal
 *          array: c2c/saxpy's medium-to-large size, and below the size
 *          from which pool_draw uses several threads (so both use one);
 *   sweep  the sweep of twice the last-level cache before every call
 *          (host_sweep_init/run) against the code it replaced: one
 *          thread over a plain private mapping (no MADV_DONTFORK, no
 *          MADV_HUGEPAGE): its first sweep, a later one, and the first
 *          one after a runner was forked (fork + exec of /bin/true),
 *          with proof that it still evicts: a warm 8 MiB read right
 *          after it must be as slow as after clflush.
 * A measurement, not a test (tests/bench/host_overhead.sh runs it;
 * docs/benchmarks.md has the table).  x86-64 only.
 */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena/task.h"
#include "evaluation.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void clflush_loop(const void *p, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		_mm_clflush((const char *)p + i);
	_mm_mfence();
}

static long read_lines(const volatile char *p, size_t n)
{
	long s = 0;

	for (size_t i = 0; i < n; i += 64)
		s += p[i];
	return s;
}

/* ms of a read of p right after flush(p), the buffer first made warm. */
static double read_after(char *p, size_t n,
			 void (*flush)(const void *, size_t), long *sink)
{
	*sink += read_lines(p, n);
	if (flush)
		flush(p, n);
	double t0 = now_ms();
	*sink += read_lines(p, n);
	return now_ms() - t0;
}

/* The scalar draw pool_draw used before its SSE2 loop: one window of
 * the pool at off, reflected around the centre where the word's bit is
 * set (hi is infinite for a normal). */
static void scalar_draw(float *f, const double *src, int64_t n, double c2,
			struct rng *r)
{
	for (int64_t i = 0; i < n; i += 64) {
		uint64_t bits = rng_next(r);
		int64_t m = n - i < 64 ? n - i : 64;
		for (int64_t k = 0; k < m; k++) {
			double v = src[i + k];
			double w = c2 - v;
			int flip = (int)((bits >> k) & 1) && w < INFINITY;
			f[i + k] = (float)(flip ? w : v);
		}
	}
}

static const char *const draw_config =
	"schema: arena/1\n"
	"description: a bench.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
	"cases:\n"
	"  - {id: big, n: 4000000}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5}\n";

static int bench_draw(void)
{
	struct task *t = NULL;
	struct case_layout l;
	struct input_pool p;
	struct errbuf err;
	struct rng r;

	errbuf_init(&err);
	if (task_parse("bench/draw", NULL, draw_config, strlen(draw_config),
		       NULL, 0, &t, &err) != 0 ||
	    layout_build(t, &t->cases[0], &l, &err) != 0) {
		fprintf(stderr, "host_overhead: %s\n", errbuf_str(&err));
		return 1;
	}
	int64_t n = l.numel[0];
	float *f = malloc((size_t)n * sizeof(float));
	if (!f)
		return 1;
	rng_seed(&r, 1);
	pool_build(t, &l, &r, &p);
	printf("\nelements\tscalar_draw_ms\tpool_draw_ms\n");
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now_ms();
		scalar_draw(f, p.fv[0] + rep, n, 2 * p.centre[0], &r);
		double t1 = now_ms();
		pool_draw(t, &l, &p, 0, &r, f);
		double t2 = now_ms();
		printf("%lld\t%.1f\t%.1f\n", (long long)n, t1 - t0,
		       t2 - t1);
	}
	free(f);
	pool_release(&p);
	layout_release(&l);
	task_free(t);
	return 0;
}

/* A child forked and exec'd as a runner is (the controller's
 * address space copied, then replaced). */
static void fork_exec_true(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* The sweep before: one thread, a plain private mapping. */
static void sweep_plain_run(struct host_sweep *s)
{
	volatile unsigned char *p = s->buf;

	for (size_t i = 0; i < s->bytes; i += 64)
		p[i] = (unsigned char)(p[i] + 1);
}

static void sweep_plain_init(struct host_sweep *s, size_t bytes)
{
	memset(s, 0, sizeof(*s));
	s->map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return;
	}
	s->map_bytes = s->bytes = bytes;
	s->buf = s->map;
}

/* The last sweep's ms; after it, the ms of a read of a warm 8 MiB. */
static double sweep_ms(struct host_sweep *s, bool plain, char *warm,
		       double *read_ms, long *sink)
{
	*sink += read_lines(warm, (size_t)8 << 20);
	double t0 = now_ms();
	if (plain)
		sweep_plain_run(s);
	else
		host_sweep_run(s, true);
	double t1 = now_ms();
	*sink += read_lines(warm, (size_t)8 << 20);
	*read_ms = now_ms() - t1;
	return t1 - t0;
}

static int bench_sweep(long *sink)
{
	size_t bytes = 2 * ev_llc_bytes();
	char *warm = malloc((size_t)8 << 20);
	double rd;

	if (!warm)
		return 1;
	memset(warm, 1, (size_t)8 << 20);
	cpu_set_t dom;
	printf("\nsweep of %zu MiB (2 x LLC); CPUs sharing cpu0's LLC: %d\n",
	       bytes >> 20, ev_llc_cpus(0, &dom));
	printf("mapping\tfirst_ms\tlater_ms\tafter_fork_ms\t"
	       "read_warm_ms\tread_after_clflush_ms\tread_after_sweep_ms\n");
	for (int rep = 0; rep < 3; rep++)
		for (int k = 0; k < 2; k++) {
			struct host_sweep s;
			if (k == 0)
				sweep_plain_init(&s, bytes);
			else if (host_sweep_init(&s, bytes) != 0)
				s.map = NULL;
			if (!s.map)
				return 1;
			double first = sweep_ms(&s, k == 0, warm, &rd, sink);
			double later = sweep_ms(&s, k == 0, warm, &rd, sink);
			fork_exec_true();
			double forked = sweep_ms(&s, k == 0, warm, &rd, sink);
			double w = read_after(warm, (size_t)8 << 20, NULL, sink);
			double c = read_after(warm, (size_t)8 << 20,
					      clflush_loop, sink);
			printf("%s\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\n",
			       k == 0 ? "before" : "host_sweep", first,
			       later, forked, w, c, rd);
			if (k == 0)
				munmap(s.map, s.map_bytes);
			else
				host_sweep_release(&s);
		}
	free(warm);
	return 0;
}

int main(int argc, char **argv)
{
	long sink = 0;

	printf("MiB\tclflush_ms\thost_cache_evict_ms\tread_warm_ms\t"
	       "read_after_clflush_ms\tread_after_evict_ms\n");
	for (int i = 1; i < argc; i++) {
		size_t n = (size_t)atol(argv[i]) << 20;
		char *p = malloc(n);
		if (!p)
			return 1;
		memset(p, 1, n);
		for (int rep = 0; rep < 3; rep++) {
			memset(p, rep, n);
			double t0 = now_ms();
			clflush_loop(p, n);
			double t1 = now_ms();
			memset(p, rep, n);
			double t2 = now_ms();
			host_cache_evict(p, n);
			double t3 = now_ms();
			/* The reads only say something below the LLC's size. */
			double warm = read_after(p, n, NULL, &sink);
			double rc = read_after(p, n, clflush_loop, &sink);
			double re = read_after(p, n, host_cache_evict, &sink);
			printf("%zu\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\n", n >> 20,
			       t1 - t0, t3 - t2, warm, rc, re);
		}
		free(p);
	}
	return bench_draw() || bench_sweep(&sink) || sink == 42;
}

/*
 * host_flush.c - what the controller's per-call eviction of a runner's
 * argument memory (host_cache_evict, engine/src/eval/host_cache.c) costs,
 * against the clflush loop it replaced, and proof that it evicts: a read
 * of the buffer right after it must be as slow as after clflush, not as
 * fast as a warm one.  A measurement, not a test (tests/bench/host_flush.sh
 * runs it; docs/benchmarks.md has the table).  x86-64 only.
 */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval_internal.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void clflush_loop(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		_mm_clflush(p + i);
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
static double read_after(char *p, size_t n, void (*flush)(const char *, size_t),
			 long *sink)
{
	*sink += read_lines(p, n);
	if (flush)
		flush(p, n);
	double t0 = now_ms();
	*sink += read_lines(p, n);
	return now_ms() - t0;
}

static void evict(const char *p, size_t n)
{
	host_cache_evict(p, n);
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
			double re = read_after(p, n, evict, &sink);
			printf("%zu\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\n", n >> 20,
			       t1 - t0, t3 - t2, warm, rc, re);
		}
		free(p);
	}
	return sink == 42;
}

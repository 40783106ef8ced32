/*
 * host_overhead.c - two of the controller's per-call costs on the host,
 * each against the code it replaced:
 *   flush  the eviction of a runner's argument memory (host_cache_evict,
 *          engine/src/eval/host_cache.c) against a clflush loop, with
 *          proof that it evicts: a read of the buffer right after it must
 *          be as slow as after clflush, not as fast as a warm one;
 *   draw   a timed pair's fresh f32 inputs (pool_draw, inputs.c) against
 *          the scalar loop it replaced, on a 4,000,000-element normal
 *          array: c2c/saxpy's medium-to-large size, and below the size
 *          from which pool_draw uses several threads (so both use one).
 * A measurement, not a test (tests/bench/host_overhead.sh runs it;
 * docs/benchmarks.md has the table).  x86-64 only.
 */
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena/task.h"
#include "eval_internal.h"

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
	return bench_draw() || sink == 42;
}

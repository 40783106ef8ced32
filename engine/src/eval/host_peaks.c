/*
 * host_peaks.c - what one core of this host can do at most: its memory
 * bandwidth and its FP32 FMA rate, measured by trusted code (the
 * controller itself, one thread) and cached, for the host's roofline
 * floor (docs/evaluator.md §6).
 *
 * A host kernel runs on one core (its runner is single-threaded by rule)
 * with its arguments evicted from every cache before each call (the
 * controller's flush), so a call cannot move the case's bytes faster than
 * one core's memory bandwidth, nor do its floating-point work faster than
 * one core's FMA rate.  Both are measured in CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so preemption on a loaded machine does not
 * lower them; the best of several passes is kept; the floor applies a
 * margin on top (HOST_ROOFLINE_*_MARGIN), because a floor an honest
 * kernel can beat is a bug.
 *
 *   bandwidth: max(read, copy) over a buffer of 4 x the last-level cache
 *              (at least 256 MiB): read sums 64-bit words, copy is memcpy
 *              (whose non-temporal stores count read and written bytes);
 *   FMA:       independent chains of FP32 fused multiply-adds in the
 *              widest vectors the CPU has (AVX-512, AVX2+FMA on x86-64;
 *              scalar elsewhere, which only lowers the floor), 2 flops
 *              per lane per FMA.
 *
 * Cached in <cache_dir>/device-host.json under a key of the boot id, the
 * CPU's model name and this evaluator's version: a reboot or a new CPU
 * measures again.
 */
#include "evaluation.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "arena/eval.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- bandwidth --------------------------------------------------------- */

static uint64_t read_all(const uint64_t *p, size_t n)
{
	uint64_t s[8] = { 0 };

	for (size_t i = 0; i + 8 <= n; i += 8)
		for (int k = 0; k < 8; k++)
			s[k] += p[i + k];
	return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

static void measure_bandwidth(struct host_peaks *hp, size_t llc)
{
	size_t bytes = 4 * llc < ((size_t)256 << 20) ? (size_t)256 << 20
						     : 4 * llc;
	unsigned char *a = mmap(NULL, 2 * bytes, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile uint64_t sink = 0;

	if (a == MAP_FAILED)
		return;
	memset(a, 1, 2 * bytes);
	for (int pass = 0; pass < 5; pass++) {
		double t0 = cpu_s();
		sink += read_all((const uint64_t *)a, bytes / 8);
		double t1 = cpu_s();
		memcpy(a + bytes, a, bytes);
		double t2 = cpu_s();
		if (t1 > t0 && bytes / (t1 - t0) > hp->read_bps)
			hp->read_bps = bytes / (t1 - t0);
		if (t2 > t1 && 2.0 * bytes / (t2 - t1) > hp->copy_bps)
			hp->copy_bps = 2.0 * bytes / (t2 - t1);
	}
	(void)sink;
	munmap(a, 2 * bytes);
	hp->bandwidth_bps = fmax(hp->read_bps, hp->copy_bps);
}

/* ---- FMA rate ---------------------------------------------------------- */

/* Twelve independent chains of fused multiply-adds, in registers, hide
 * the FMA latency on every core arena is likely to meet (latency 4-5
 * cycles, 2 ports).  Explicit intrinsics: ISO C mode (-std=c11) does not
 * contract a * b + c into an FMA. */
#define CHAINS 12
#define FMA_BODY(T, FMA, SET1, ADD, lanes)                             \
	T m = SET1(0.999999f), c = SET1(1e-7f);                        \
	T a0 = SET1(1), a1 = SET1(2), a2 = SET1(3), a3 = SET1(4);      \
	T a4 = SET1(5), a5 = SET1(6), a6 = SET1(7), a7 = SET1(8);      \
	T a8 = SET1(9), a9 = SET1(10), a10 = SET1(11), a11 = SET1(12); \
	for (long i = 0; i < iters; i++) {                             \
		a0 = FMA(a0, m, c);                                    \
		a1 = FMA(a1, m, c);                                    \
		a2 = FMA(a2, m, c);                                    \
		a3 = FMA(a3, m, c);                                    \
		a4 = FMA(a4, m, c);                                    \
		a5 = FMA(a5, m, c);                                    \
		a6 = FMA(a6, m, c);                                    \
		a7 = FMA(a7, m, c);                                    \
		a8 = FMA(a8, m, c);                                    \
		a9 = FMA(a9, m, c);                                    \
		a10 = FMA(a10, m, c);                                  \
		a11 = FMA(a11, m, c);                                  \
	}                                                              \
	T t = ADD(ADD(ADD(a0, a1), ADD(a2, a3)),                       \
		  ADD(ADD(a4, a5), ADD(a6, a7)));                      \
	t = ADD(t, ADD(ADD(a8, a9), ADD(a10, a11)));                   \
	float out[lanes];                                              \
	memcpy(out, &t, sizeof(out));                                  \
	return (double)out[0];

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static double fma_512(long iters)
{
	FMA_BODY(__m512, _mm512_fmadd_ps, _mm512_set1_ps, _mm512_add_ps, 16)
}

__attribute__((target("avx2,fma"))) static double fma_256(long iters)
{
	FMA_BODY(__m256, _mm256_fmadd_ps, _mm256_set1_ps, _mm256_add_ps, 8)
}
#endif

/* Elsewhere, and on x86-64 without AVX2: scalar fused multiply-adds
 * (one lane: a floor from it is lower, never higher, than the truth). */
static float fmaf_(float a, float b, float c)
{
	return __builtin_fmaf(a, b, c);
}
static float set1_(float v)
{
	return v;
}
static float add_(float a, float b)
{
	return a + b;
}
static double fma_1(long iters)
{
	FMA_BODY(float, fmaf_, set1_, add_, 1)
}

static void measure_fma(struct host_peaks *hp)
{
	double (*fn)(long) = fma_1;
	int lanes = 1;
	volatile double sink = 0;

	snprintf(hp->simd, sizeof(hp->simd), "scalar");
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f")) {
		fn = fma_512;
		lanes = 16;
		snprintf(hp->simd, sizeof(hp->simd), "AVX-512");
	} else if (__builtin_cpu_supports("avx2") &&
		   __builtin_cpu_supports("fma")) {
		fn = fma_256;
		lanes = 8;
		snprintf(hp->simd, sizeof(hp->simd), "AVX2+FMA");
	}
#endif
	long iters = 1 << 16;
	/* Grow the run to about 20 ms of CPU time, then keep the best of
	 * five. */
	for (;;) {
		double t0 = cpu_s();
		sink += fn(iters);
		if (cpu_s() - t0 > 0.02 || iters > (1L << 34))
			break;
		iters *= 2;
	}
	for (int pass = 0; pass < 5; pass++) {
		double t0 = cpu_s();
		sink += fn(iters);
		double t = cpu_s() - t0;
		double r = (double)iters * CHAINS * lanes * 2 / t;
		if (t > 0 && r > hp->fma_flops)
			hp->fma_flops = r;
	}
	(void)sink;
}

/* ---- the cache --------------------------------------------------------- */

void host_cpu_model(char *out, size_t n)
{
	char *text = NULL;
	size_t len;
	struct errbuf e;

	snprintf(out, n, "unknown CPU");
	errbuf_init(&e);
	if (file_read_all("/proc/cpuinfo", 1 << 20, &text, &len, &e) != 0)
		return;
	const char *m = strstr(text, "model name");
	if (m && (m = strchr(m, ':'))) {
		m++;
		while (*m == ' ' || *m == '\t')
			m++;
		size_t k = strcspn(m, "\n");
		snprintf(out, n, "%.*s", (int)k, m);
	}
	free(text);
}

static char *cache_key(const char *cpu)
{
	char *boot = NULL, hex[65];
	size_t len;
	struct errbuf e;

	errbuf_init(&e);
	if (file_read_all("/proc/sys/kernel/random/boot_id", 128, &boot, &len,
			  &e) != 0)
		boot = xstrdup("no boot id");
	char *k = xasprintf("host-peaks/2|%s|%s|%s", boot, cpu,
			    ARENA_EVALUATOR_VERSION);
	sha256_hex(k, strlen(k), hex);
	free(k);
	free(boot);
	return xstrdup(hex);
}

static double jnum(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

static bool cache_read(const char *path, const char *key, struct host_peaks *hp)
{
	char *text = NULL;
	size_t len;
	struct errbuf e;
	bool ok = false;

	errbuf_init(&e);
	if (file_read_all(path, 64 * 1024, &text, &len, &e) != 0)
		return false;
	cJSON *j = cJSON_Parse(text);
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(j, "key");
	const cJSON *simd = cJSON_GetObjectItemCaseSensitive(j, "simd");
	if (cJSON_IsString(k) && strcmp(k->valuestring, key) == 0) {
		hp->read_bps = jnum(j, "read_bytes_per_s");
		hp->copy_bps = jnum(j, "copy_bytes_per_s");
		hp->bandwidth_bps = jnum(j, "bandwidth_bytes_per_s");
		hp->fma_flops = jnum(j, "fp32_fma_flops");
		if (cJSON_IsString(simd))
			snprintf(hp->simd, sizeof(hp->simd), "%s",
				 simd->valuestring);
		ok = hp->bandwidth_bps > 0 && hp->fma_flops > 0;
	}
	cJSON_Delete(j);
	free(text);
	return ok;
}

static void cache_write(const char *cache_dir, const char *path,
			const char *key, const struct host_peaks *hp)
{
	cJSON *j = cJSON_CreateObject();
	struct errbuf e;
	char when[32];

	errbuf_init(&e);
	time_stamp_iso(when, now_wall());
	cJSON_AddStringToObject(j, "key", key);
	cJSON_AddStringToObject(j, "measured_at", when);
	cJSON_AddStringToObject(j, "cpu", hp->cpu);
	cJSON_AddStringToObject(j, "simd", hp->simd);
	cJSON_AddNumberToObject(j, "read_bytes_per_s", hp->read_bps);
	cJSON_AddNumberToObject(j, "copy_bytes_per_s", hp->copy_bps);
	cJSON_AddNumberToObject(j, "bandwidth_bytes_per_s", hp->bandwidth_bps);
	cJSON_AddNumberToObject(j, "fp32_fma_flops", hp->fma_flops);
	char *text = cJSON_Print(j);
	if (mkdir_p(cache_dir, &e) == 0)
		file_write_atomic_str(path, text,
				      &e); /* a cache: best effort */
	free(text);
	cJSON_Delete(j);
}

int host_peaks_get(const char *cache_dir, bool remeasure, struct host_peaks *hp,
		   bool *measured, struct errbuf *err)
{
	char *path = NULL, *key;

	memset(hp, 0, sizeof(*hp));
	*measured = false;
	host_cpu_model(hp->cpu, sizeof(hp->cpu));
	key = cache_key(hp->cpu);
	if (cache_dir) {
		path = xasprintf("%s/device-host.json", cache_dir);
		if (!remeasure && cache_read(path, key, hp)) {
			free(path);
			free(key);
			return 0;
		}
	}
	measure_bandwidth(hp, ev_llc_bytes());
	measure_fma(hp);
	*measured = true;
	if (!(hp->bandwidth_bps > 0) || !(hp->fma_flops > 0)) {
		free(path);
		free(key);
		return errf(err, "the host's peaks could not be measured (no "
				 "memory for the bandwidth buffer?)");
	}
	if (path)
		cache_write(cache_dir, path, key, hp);
	free(path);
	free(key);
	return 0;
}

double host_roofline_floor_ns(int64_t bytes, int64_t flops, bool flops_apply,
			      const struct host_peaks *hp)
{
	double t = 0;

	if (hp->bandwidth_bps > 0 && bytes > 0)
		t = bytes / (hp->bandwidth_bps * HOST_ROOFLINE_BW_MARGIN) * 1e9;
	if (flops_apply && hp->fma_flops > 0 && flops > 0)
		t = fmax(t,
			 flops / (hp->fma_flops * HOST_ROOFLINE_FLOPS_MARGIN) *
				 1e9);
	return t;
}

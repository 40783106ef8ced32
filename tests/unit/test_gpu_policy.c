/*
 * test_gpu_policy.c - the GPU path's decisions that need no GPU (pure
 * functions of engine/src/eval/gpu_policy.c, gpu_info.c, runner_client.c and eval.c):
 * device names, the runner's JSON, model matching, flush sizes, batch
 * sizes, the roofline floor, the clock and drain bounds, what device
 * errors mean, device resolution and the source files each compiler
 * takes.  docs/gpu.md states each rule these tests hold the code to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/task.h"
#include "eval_internal.h"
#include "evaluation.h"

static void test_device_names_parse_with_and_without_index(void **s)
{
	struct dev_id d;
	struct errbuf e;

	(void)s;
	errbuf_init(&e);
	assert_int_equal(dev_parse("host", &d, &e), 0);
	assert_int_equal(d.kind, DEV_HOST);
	assert_int_equal(dev_parse("cuda:3", &d, &e), 0);
	assert_int_equal(d.kind, DEV_CUDA);
	assert_int_equal(d.index, 3);
	assert_int_equal(dev_parse("hip", &d, &e), 0);
	assert_int_equal(d.kind, DEV_HIP);
	assert_int_equal(d.index, 0);
	assert_true(dev_parse("cuda:x", &d, &e) < 0);
	assert_true(dev_parse("cuda:-1", &d, &e) < 0);
	assert_true(dev_parse("tpu:0", &d, &e) < 0);
	assert_non_null(strstr(errbuf_str(&e), "host, cuda:N or hip:N"));
	assert_true(dev_parse("host:0", &d, &e) < 0);
}

static const char query_h200[] =
	"{\"backend\": \"cuda\", \"runtime_version\": 13000, "
	"\"driver_version\": 13000, \"devices\": [{\"index\": 0, \"name\": "
	"\"NVIDIA H200\", \"arch\": \"sm_90\", \"cc\": \"9.0\", "
	"\"multiprocessors\": 132, \"l2_bytes\": 62914560, \"memory_bytes\": "
	"150109880320, \"pci\": \"0000:00:06\", \"persisting_l2_max_bytes\": "
	"39321600}]}";

static void test_query_output_parses_into_device_facts(void **s)
{
	struct gpu_info g[4];
	char why[128];
	int n = -1;

	(void)s;
	assert_int_equal(gpu_parse_query(query_h200, DEV_CUDA, g, 4, &n, why,
					 sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].name, "NVIDIA H200");
	assert_string_equal(g[0].arch, "sm_90");
	assert_string_equal(g[0].pci, "0000:00:06");
	assert_int_equal(g[0].multiprocessors, 132);
	assert_true(g[0].l2_bytes == 62914560);
	assert_int_equal(g[0].runtime_version, 13000);
}

static void test_query_without_device_gives_the_runtimes_reason(void **s)
{
	struct gpu_info g[4];
	char why[200];
	int n = -1;

	(void)s;
	assert_int_equal(gpu_parse_query(
				 "{\"backend\": \"cuda\", \"runtime_version\": "
				 "13000, \"driver_version\": 0, \"error\": "
				 "\"cudaErrorInsufficientDriver: no driver\", "
				 "\"devices\": []}",
				 DEV_CUDA, g, 4, &n, why, sizeof(why)),
			 0);
	assert_int_equal(n, 0);
	assert_non_null(strstr(why, "cudaErrorInsufficientDriver"));
	assert_true(gpu_parse_query("not json", DEV_CUDA, g, 4, &n, why,
				    sizeof(why)) < 0);
	assert_true(gpu_parse_query("{\"devices\": 3}", DEV_CUDA, g, 4, &n,
				    why, sizeof(why)) < 0);
}

static void test_peaks_output_parses_and_errors_are_reported(void **s)
{
	struct gpu_info g;
	char why[200];

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_int_equal(gpu_parse_peaks(
				 "{\"bandwidth_bytes_per_s\": 4.35e12, "
				 "\"copy_bytes_per_s\": 4.25e12, "
				 "\"read_bytes_per_s\": 4.35e12, "
				 "\"fp32_fma_flops\": 5.53e13}",
				 &g, why, sizeof(why)),
			 0);
	assert_true(g.bandwidth_bps == 4.35e12);
	assert_true(g.fma_flops == 5.53e13);
	assert_true(gpu_parse_peaks("{\"error\": \"cudaErrorNoDevice: x\"}", &g,
				    why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "cudaErrorNoDevice"));
	assert_true(gpu_parse_peaks("{\"bandwidth_bytes_per_s\": 0}", &g, why,
				    sizeof(why)) < 0);
}

static void test_model_matching_is_by_words_of_name_or_arch(void **s)
{
	(void)s;
	assert_true(gpu_model_matches("H200", "NVIDIA H200", "sm_90"));
	assert_true(gpu_model_matches("nvidia h200", "NVIDIA H200", "sm_90"));
	assert_true(gpu_model_matches("H200", "NVIDIA H200 NVL", "sm_90"));
	assert_false(gpu_model_matches("H100", "NVIDIA H200", "sm_90"));
	assert_false(gpu_model_matches("H20", "NVIDIA H200", "sm_90"));
	assert_true(gpu_model_matches("MI300X", "AMD Instinct MI300X",
				      "gfx942"));
	assert_true(gpu_model_matches("gfx942", "AMD Instinct MI300X",
				      "gfx942"));
	assert_true(gpu_model_matches("sm_90", "NVIDIA H200", "sm_90"));
	assert_true(gpu_model_matches("", "NVIDIA H200", "sm_90"));
	assert_true(gpu_model_matches("any", "whatever", "x"));
	assert_true(gpu_model_matches(NULL, "NVIDIA H200", "sm_90"));
}

static void test_flush_covers_twice_l2_and_amd_infinity_cache(void **s)
{
	struct gpu_info g;

	(void)s;
	memset(&g, 0, sizeof(g));
	g.l2_bytes = 60 << 20;
	snprintf(g.arch, sizeof(g.arch), "sm_90");
	assert_true(gpu_flush_bytes(&g) == (size_t)120 << 20);
	g.l2_bytes = 4 << 20;
	assert_true(gpu_flush_bytes(&g) == (size_t)64 << 20);
	snprintf(g.arch, sizeof(g.arch), "gfx942");
	assert_true(gpu_flush_bytes(&g) == (size_t)512 << 20);
	g.l2_bytes = (int64_t)1 << 40;
	assert_true(gpu_flush_bytes(&g) == (size_t)RP_MAX_FLUSH_BYTES);
}

static void test_calls_under_a_millisecond_are_batched(void **s)
{
	(void)s;
	assert_int_equal(gpu_batch_size(1e6, 1 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 1);
	assert_int_equal(gpu_batch_size(5e6, 1 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 1);
	/* At least two calls, else enough for 1 ms. */
	assert_int_equal(gpu_batch_size(900000, 1 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 2);
	assert_int_equal(
		gpu_batch_size(200000, 1 << 20, 256, GPU_BATCH_MAX_BYTES), 5);
	assert_int_equal(
		gpu_batch_size(60000, 1 << 20, 256, GPU_BATCH_MAX_BYTES), 17);
	assert_int_equal(
		gpu_batch_size(5000, 1 << 20, 256, GPU_BATCH_MAX_BYTES), 200);
	/* Bounded by the sets that fit and by the memory they take. */
	assert_int_equal(gpu_batch_size(1000, 1 << 20, 8,
					 GPU_BATCH_MAX_BYTES), 8);
	assert_int_equal(gpu_batch_size(1000, (size_t)512 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 4);
	assert_int_equal(gpu_batch_size(100000, (size_t)768 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 2);
	assert_int_equal(gpu_batch_size(100000, (size_t)1536 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 1);
	assert_int_equal(gpu_batch_size(1000, 1 << 20, 1,
					 GPU_BATCH_MAX_BYTES), 1);
	assert_int_equal(gpu_batch_size(0, 1 << 20, 256,
					 GPU_BATCH_MAX_BYTES), 1);
	/* A quick evaluation's smaller bound: 48 MiB of 32 MiB sets, 12 of
	 * 4 MiB. */
	assert_int_equal(gpu_batch_size(18000, (size_t)32 << 20, 256,
					 GPU_QUICK_BATCH_BYTES), 1);
	assert_int_equal(gpu_batch_size(7000, (size_t)4 << 20, 256,
					 GPU_QUICK_BATCH_BYTES), 12);
}

/* Every set of a batch comes back; they are compared whole while they
 * fit the comparison's bound, else as many as fit and at least two,
 * drawn after the fetch, every set alike, so that a kernel that skips
 * any set of its batch is found with the same chance. */
static void test_compare_picks_sets_evenly(void **s)
{
	struct case_layout l;
	struct gpu_sets f;
	struct rng r;
	int hits[8] = { 0 };

	(void)s;
	assert_int_equal(gpu_compare_sets(8, (size_t)256 << 20), 2);
	assert_int_equal(gpu_compare_sets(8, (size_t)16 << 20), 8);
	assert_int_equal(gpu_compare_sets(256, (size_t)4 << 20), 128);
	assert_int_equal(gpu_compare_sets(3, (size_t)1 << 30), 2);
	assert_int_equal(gpu_compare_sets(1, (size_t)1 << 30), 1);
	memset(&l, 0, sizeof(l));
	l.shm_size = (size_t)256 << 20;
	rng_seed(&r, 20261206);
	for (int i = 0; i < 8000; i++) {
		ev_gpu_compare_pick(&f, &l, 8, &r);
		assert_int_equal(f.n, 2);
		assert_true(0 <= f.set[0] && f.set[0] < f.set[1] &&
			    f.set[1] < 8);
		hits[f.set[0]]++;
		hits[f.set[1]]++;
	}
	/* 2,000 expected of each, sd 39. */
	for (int k = 0; k < 8; k++)
		assert_true(hits[k] > 1800 && hits[k] < 2200);
	/* Small sets: every one. */
	l.shm_size = (size_t)1 << 20;
	ev_gpu_compare_pick(&f, &l, 8, &r);
	assert_int_equal(f.n, 8);
	for (int k = 0; k < 8; k++)
		assert_int_equal(f.set[k], k);
}

static void test_roofline_floor_from_measured_peaks(void **s)
{
	struct gpu_info g;

	(void)s;
	memset(&g, 0, sizeof(g));
	assert_true(gpu_roofline_floor_ns(1 << 30, 1 << 30, GPU_CC_BF16, &g) ==
		    0);
	g.bandwidth_bps = 4e12;
	g.fma_flops = 5e13;
	/* 5 GB at 1.25 x 4 TB/s: 1 ms. */
	double t = gpu_roofline_floor_ns(5000000000LL, 0, GPU_CC_TF32, &g);
	assert_true(t > 999999 && t < 1000001);
	/* No tensor-core measurement: 1.6e15 flops at 32 x 50 TFLOP/s: 1 s,
	 * above the bytes' floor. */
	t = gpu_roofline_floor_ns(5000000000LL, 1600000000000000LL, GPU_CC_BF16,
				  &g);
	assert_true(t > 0.999e9 && t < 1.001e9);
	assert_true(gpu_roofline_floor_ns(0, 0, GPU_CC_BF16, &g) == 0);
}

static void test_flop_floor_uses_the_tensor_core_rate_of_the_class(void **s)
{
	struct gpu_info g;

	(void)s;
	memset(&g, 0, sizeof(g));
	g.bandwidth_bps = 4e12;
	g.fma_flops = 5e13;
	g.tc_bf16_flops = 5e14;
	/* 2e15 flops of bf16 at 2 x 500 TFLOP/s: 2 s. */
	double t =
		gpu_roofline_floor_ns(0, 2000000000000000LL, GPU_CC_BF16, &g);
	assert_true(t > 1.999e9 && t < 2.001e9);
	/* fp8/int8 twice as fast, TF32 half, fp32 the FMA rate. */
	t = gpu_roofline_floor_ns(0, 2000000000000000LL, GPU_CC_FP8, &g);
	assert_true(t > 0.999e9 && t < 1.001e9);
	t = gpu_roofline_floor_ns(0, 2000000000000000LL, GPU_CC_TF32, &g);
	assert_true(t > 3.999e9 && t < 4.001e9);
	t = gpu_roofline_floor_ns(0, 2000000000000000LL, GPU_CC_FP32, &g);
	assert_true(t > 19.99e9 && t < 20.01e9);
	/* Never above what the old FMA x 32 bound allowed for bf16 on an
	 * H200 (989 TFLOP/s dense): a measured 600 TFLOP/s x 2 margin. */
	g.tc_bf16_flops = 6e14;
	assert_true(GPU_ROOFLINE_TC_MARGIN *
			    gpu_class_peak_flops(GPU_CC_BF16, &g) >
		    989e12);
}

static void test_compute_class_from_dtypes_and_config(void **s)
{
	struct task t;

	(void)s;
	memset(&t, 0, sizeof(t));
	t.nargs = 2;
	t.args[0].dtype = ARENA_F32;
	t.args[1].dtype = ARENA_F32;
	assert_int_equal(gpu_compute_class_of(&t), GPU_CC_TF32);
	t.args[0].dtype = ARENA_BF16;
	assert_int_equal(gpu_compute_class_of(&t), GPU_CC_BF16);
	t.args[1].dtype = ARENA_I8;
	assert_int_equal(gpu_compute_class_of(&t), GPU_CC_FP8);
	char fp32[] = "fp32", fp16[] = "fp16";
	t.cost_class = fp32;
	assert_int_equal(gpu_compute_class_of(&t), GPU_CC_FP32);
	t.cost_class = fp16;
	assert_int_equal(gpu_compute_class_of(&t), GPU_CC_BF16);
	assert_string_equal(gpu_compute_class_name(GPU_CC_FP8), "fp8");
}

/* Which side polls inside a span (runner_may_spin, controller_may_spin):
 * $ARENA_RUNNER_SPIN names it for tests and measurements, and unset, only
 * the runners do, and only with four usable CPUs or more (the controller's
 * polling beside theirs widened the GPU samples' spread, docs/gpu.md). */
static void test_which_side_polls_follows_the_switch(void **s)
{
	static const struct {
		const char *v;
		bool runners, controller;
	} want[] = {
		{ "0", false, false },
		{ "1", true, true },
		{ "runners", true, false },
		{ "controller", false, true },
	};
	char *was = getenv("ARENA_RUNNER_SPIN");

	(void)s;
	was = was ? xstrdup(was) : NULL;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		setenv("ARENA_RUNNER_SPIN", want[i].v, 1);
		assert_int_equal(runner_may_spin(), want[i].runners);
		assert_int_equal(controller_may_spin(), want[i].controller);
	}
	unsetenv("ARENA_RUNNER_SPIN");
	assert_int_equal(runner_may_spin(), ev_cpus_usable() >= 4);
	assert_int_equal(ev_cpus_to_spare(), ev_cpus_usable() >= 4);
	assert_false(controller_may_spin());
	if (was)
		setenv("ARENA_RUNNER_SPIN", was, 1);
	free(was);
}

/* Two blocks of excesses e (ns) around mean mu with a small spread. */
static double charged(double mu, double spread, int per_block, double *median)
{
	double b0[64], b1[64];
	const double *e[2] = { b0, b1 };
	int sizes[2] = { per_block, per_block };

	for (int i = 0; i < per_block; i++) {
		b0[i] = mu + spread * ((i % 7) - 3);
		b1[i] = mu + spread * (((i * 3) % 7) - 3);
	}
	double hi, strict;
	double lo = gpu_charged_excess_ns(e, sizes, 2, 500, 42, median, &hi,
					  &strict);
	/* The upper bound is not floored at 0, the charge is; the strict
	 * bound (the interval's upper end) lies between 0 and the charge. */
	assert_true(lo == 0 || hi >= lo);
	assert_true(strict >= 0 && strict <= lo);
	return lo;
}

static void test_excess_within_noise_is_not_charged(void **s)
{
	double med;

	(void)s;
	/* Centred on zero: nothing to charge. */
	assert_true(charged(0, 1000, 40, &med) == 0);
	assert_true(fabs(med) <= 1000);
	/* Negative (the candidate's samples leaner than the baseline's):
	 * never a credit. */
	assert_true(charged(-20000, 1000, 40, &med) == 0);
}

static void test_systematic_excess_is_charged_at_its_lower_bound(void **s)
{
	double med;

	(void)s;
	/* 30 us more per sample, every sample: charged, at most the median,
	 * at least the median less the spread. */
	double e = charged(30000, 1000, 40, &med);
	assert_true(med > 29000 && med < 31000);
	assert_true(e > 27000 && e <= med);
	/* Deterministic in its seed. */
	double e2 = charged(30000, 1000, 40, &med);
	assert_true(e == e2);
}

static void test_strict_bound_charges_a_real_excess_not_noise(void **s)
{
	double v[40], med, hi, strict;
	const double *e[1] = { v };
	int sizes[1] = { 40 };

	(void)s;
	/* A steady 30 us: the strict bound charges it too. */
	for (int i = 0; i < 40; i++)
		v[i] = 30000 + 1000 * ((i % 7) - 3);
	double lo =
		gpu_charged_excess_ns(e, sizes, 1, 1000, 5, &med, &hi, &strict);
	assert_true(strict > 25000 && strict <= lo);
	/* Spread +-2 us around 0.8 us: the lower 95% bound of the median
	 * clears 0 (a charge noise can explain), the strict one does not. */
	for (int i = 0; i < 40; i++)
		v[i] = 800 + 100 * (((i * 17) % 41) - 20);
	lo = gpu_charged_excess_ns(e, sizes, 1, 1000, 5, &med, &hi, &strict);
	assert_true(lo > 0);
	assert_true(strict == 0);
}

static void test_excess_of_one_block_resamples_pairs(void **s)
{
	double v[20], med;
	const double *e[1] = { v };
	int sizes[1] = { 20 };

	(void)s;
	for (int i = 0; i < 20; i++)
		v[i] = 5000 + (i % 2 ? 100 : -100);
	double hi;
	double x = gpu_charged_excess_ns(e, sizes, 1, 500, 7, &med, &hi, NULL);
	assert_true(x > 4800 && x <= 5100);
	assert_true(hi >= 5000 && hi < 5200);
	/* No pairs, no charge. */
	sizes[0] = 0;
	assert_true(gpu_charged_excess_ns(e, sizes, 1, 500, 7, &med, &hi,
					  NULL) == 0);
}

/* One case of 6 blocks of 10 timed pairs drawn from the law of the `time`
 * request on the H200 (2026-12-06, vecpoly_hip's n32m): each request's
 * wall beyond its claim is 205 us plus a few us on 40% of requests and
 * plus a late wake-up (exponential, mean 120 us) on the rest; claims
 * within 1 us of 327 us, or spread uniformly over the given width.  The
 * candidate claims `shave` ns less than it took on a share of its
 * samples.  Returns the floor's charge; *median the strict bound of the
 * median of differences (e_t's charge) on the same pairs. */
struct floor_law {
	double shave, share, cand_spread, base_spread;
};

static double floor_draw_overhead(struct rng *r)
{
	if (rng_uniform(r) < 0.4)
		return 205000 + 4000 * fabs(rng_normal(r));
	return 205000 - 120000 * log(1 - rng_uniform(r));
}

static double floor_case(const struct floor_law *law, uint64_t seed,
			 double *median)
{
	struct gpu_timed_pair pairs[6][10];
	const struct gpu_timed_pair *pb[6];
	double d[6][5];
	const double *db[6];
	int sizes[6], dsizes[6];
	struct rng r;

	rng_seed(&r, seed);
	for (int b = 0; b < 6; b++) {
		for (int i = 0; i < 10; i++) {
			struct gpu_timed_pair *p = &pairs[b][i];
			double bt = 327000 +
				    law->base_spread * (rng_uniform(&r) - 0.5);
			double ct = 327000 +
				    law->cand_spread * (rng_uniform(&r) - 0.5);
			p->base_claim = bt + 1000 * (rng_uniform(&r) - 0.5);
			p->base_wall = bt + floor_draw_overhead(&r);
			p->cand_claim = ct + 1000 * (rng_uniform(&r) - 0.5);
			p->cand_wall = ct + floor_draw_overhead(&r);
			if (rng_uniform(&r) < law->share)
				p->cand_claim -= law->shave;
		}
		/* e_t as timing_gpu.c forms it: pairs of pairs. */
		for (int i = 0; i < 5; i++) {
			const struct gpu_timed_pair *x = &pairs[b][2 * i],
						    *y = &pairs[b][2 * i + 1];
			d[b][i] = ((x->cand_wall - x->cand_claim) -
				   (x->base_wall - x->base_claim) +
				   (y->cand_wall - y->cand_claim) -
				   (y->base_wall - y->base_claim)) /
				  2;
		}
		pb[b] = pairs[b];
		db[b] = d[b];
		sizes[b] = 10;
		dsizes[b] = 5;
	}
	double point, med, hi;
	gpu_charged_excess_ns(db, dsizes, 6, 1000, seed, &med, &hi, median);
	return gpu_floor_excess_ns(pb, sizes, 6, 1000, seed, &point);
}

/* Over `cases` seeds: how many charged above `above` ns, and the mean
 * charge (the floor's, and the median's in *median_mean). */
static int floor_cases(const struct floor_law *law, int cases, double above,
		       double *mean, double *median_mean, int *median_above)
{
	int n = 0;

	*mean = *median_mean = 0;
	*median_above = 0;
	for (int i = 0; i < cases; i++) {
		double med;
		double c = floor_case(law, 1000 + (uint64_t)i, &med);
		n += c > above;
		*median_above += med > above;
		*mean += c / cases;
		*median_mean += med / cases;
	}
	return n;
}

static void test_floor_charges_a_shave_that_late_wakeups_hide(void **s)
{
	struct floor_law law = { .shave = 20000, .share = 1 };
	double mean, mmean;
	int mabove;

	(void)s;
	/* Every claim 20 us short (6% of the batch, shave_claim's dose):
	 * the floor charges at least half of it nearly every time, where
	 * the median of differences, under late wake-ups of 120 us, rarely
	 * confirms as much. */
	int n = floor_cases(&law, 40, 10000, &mean, &mmean, &mabove);
	fprintf(stderr,
		"  all shaved: floor above 10 us in %d of 40 "
		"(mean %.1f us), median in %d (mean %.1f us)\n",
		n, mean / 1e3, mabove, mmean / 1e3);
	assert_true(n >= 36);
	assert_true(mabove < n);
	/* A quarter of the claims left honest, so that the lower decile
	 * of the overhead barely moves: the median claim does, against the
	 * wall's lower twentieth, and most of the shave is charged on
	 * average.  (With 60% shaved it is not: 1.3 us of 20 on average,
	 * since a resample's median claim is an honest one often enough
	 * that the strict bound cannot confirm it; docs/gpu.md.) */
	law.share = 0.75;
	n = floor_cases(&law, 40, 5000, &mean, &mmean, &mabove);
	fprintf(stderr,
		"  75%% shaved: floor above 5 us in %d of 40 "
		"(mean %.1f us), median in %d (mean %.1f us)\n",
		n, mean / 1e3, mabove, mmean / 1e3);
	assert_true(mean >= 10000);
}

static void test_floor_rarely_charges_an_honest_candidate(void **s)
{
	struct floor_law law = { 0 };
	double mean, mmean;
	int mabove;

	(void)s;
	/* The null, then claims spread over 100 us (a kernel whose time
	 * follows its inputs) on either side: the candidate's wall at its
	 * lower twentieth is never pushed above its median claim plus the
	 * floor by its own spread. */
	for (int k = 0; k < 3; k++) {
		law.cand_spread = k == 1 ? 100000 : 0;
		law.base_spread = k == 2 ? 100000 : 0;
		int n = floor_cases(&law, 400, 0, &mean, &mmean, &mabove);
		fprintf(stderr,
			"  null %d: floor charged %d of 400 (mean "
			"%.2f us), median %d\n",
			k, n, mean / 1e3, mabove);
		assert_true(n <= 8);
		assert_true(mean < 500);
	}
	/* Too few pairs: nothing. */
	struct gpu_timed_pair p[40];
	for (int i = 0; i < 40; i++)
		p[i] = (struct gpu_timed_pair){ 1000, 2000, 1000, 100000 };
	const struct gpu_timed_pair *pb[2] = { p, p + 20 };
	int sizes[2] = { 4, 0 };
	double point = -1;
	assert_true(gpu_floor_excess_ns(pb, sizes, 2, 100, 1, &point) == 0);
	assert_true(point == 0);
	/* One block, however clear its shift: one pair of processes, whose
	 * own offset it could be.  Two blocks showing it: charged. */
	sizes[0] = 20;
	assert_true(gpu_floor_excess_ns(pb, sizes, 2, 100, 1, &point) == 0);
	assert_true(point > 90000);
	sizes[1] = 20;
	assert_true(gpu_floor_excess_ns(pb, sizes, 2, 100, 1, &point) > 90000);
	assert_true(point > 90000);
}

static void test_gross_excess_bound(void **s)
{
	(void)s;
	assert_true(gpu_gross_excess_ns(10000) == 50000);
	assert_true(gpu_gross_excess_ns(4e6) == 400000);
	assert_true(gpu_unconfirmed_ns(10000) == 100000);
	assert_true(gpu_unconfirmed_ns(4e6) == 1e6);
}

static void test_a_claim_is_disputed_beyond_its_charge(void **s)
{
	(void)s;
	/* 1 ms claims: 10 us of median reaction beyond the charge, where
	 * the reaction's 5% bound is above 0. */
	assert_false(gpu_claim_disputed(9e3, 1e3, 0, 1e6));
	assert_true(gpu_claim_disputed(11e3, 1e3, 0, 1e6));
	assert_false(gpu_claim_disputed(36.7e3, 31e3, 30e3, 1e6));
	assert_true(gpu_claim_disputed(36.7e3, 20e3, 9.2e3, 1e6));
	/* A median that noise alone explains (its bound at 0) is not. */
	assert_false(gpu_claim_disputed(36.7e3, 0, 0, 1e6));
	/* Short claims: 5 us at least. */
	assert_false(gpu_claim_disputed(4e3, 1e3, 0, 50e3));
	assert_true(gpu_claim_disputed(6e3, 1e3, 0, 50e3));
}

static void test_wide_excess_bounds_are_reported(void **s)
{
	double b0[8] = { 0, 300e3, 5e3, 250e3, -100e3, 200e3, 1e3, 280e3 };
	const double *e[1] = { b0 };
	int sizes[1] = { 8 };
	double med, hi;

	(void)s;
	/* Noise of tens of ms over a few pairs: the lower bound may be 0,
	 * but the upper one says how little the clock confirms. */
	double lo =
		gpu_charged_excess_ns(e, sizes, 1, 1000, 3, &med, &hi, NULL);
	assert_true(hi - lo > gpu_unconfirmed_ns(1000));
}

static void test_drain_bounds(void **s)
{
	(void)s;
	assert_true(drain_allowed_ns(3000, 10000) == 11000);
	assert_true(drain_allowed_ns(-5, 5e6) == 100000);
}

static void test_ordering_check_hold_time(void **s)
{
	(void)s;
	assert_int_equal(gpu_gate_hold_us(0), 2000);
	assert_int_equal(gpu_gate_hold_us(500000), 2000);
	assert_int_equal(gpu_gate_hold_us(5e6), 10000);
	assert_int_equal(gpu_gate_hold_us(1e9), 20000);
}

static void test_device_errors_map_to_verdicts(void **s)
{
	struct gpu_error_meaning m;

	(void)s;
	gpu_error_meaning("cudaErrorIllegalAddress", &m);
	assert_int_equal(m.status, RS_RUNTIME_ERROR);
	assert_non_null(strstr(m.what, "illegal memory access"));
	gpu_error_meaning("hipErrorIllegalAddress", &m);
	assert_non_null(strstr(m.what, "illegal memory access"));
	gpu_error_meaning("cudaErrorLaunchTimeout", &m);
	assert_int_equal(m.status, RS_TIMEOUT);
	gpu_error_meaning("hipErrorOutOfMemory", &m);
	assert_non_null(strstr(m.what, "out of device memory"));
	gpu_error_meaning("cudaErrorECCUncorrectable", &m);
	assert_int_equal(m.status, RS_INFRA_ERROR);
	gpu_error_meaning("cudaErrorSomethingNew", &m);
	assert_int_equal(m.status, RS_RUNTIME_ERROR);
	assert_string_equal(m.what, "a device error");
}

static void test_device_error_replies_parse(void **s)
{
	char name[64], why[256];
	bool sticky = false;

	(void)s;
	assert_true(runner_parse_device_error(
		"device sticky cudaErrorIllegalAddress running the kernel (an "
		"illegal memory access was encountered)",
		&sticky, name, sizeof(name), why, sizeof(why)));
	assert_true(sticky);
	assert_string_equal(name, "cudaErrorIllegalAddress");
	assert_non_null(strstr(why, "running the kernel"));
	assert_true(runner_parse_device_error("device soft hipErrorOutOfMemory x",
					      &sticky, name, sizeof(name), why,
					      sizeof(why)));
	assert_false(sticky);
	assert_false(runner_parse_device_error("no layout yet", &sticky, name,
					       sizeof(name), why, sizeof(why)));
	assert_false(runner_parse_device_error("device hot cudaError x",
					       &sticky, name, sizeof(name), why,
					       sizeof(why)));
	assert_false(runner_parse_device_error("device soft bad;name x",
					       &sticky, name, sizeof(name), why,
					       sizeof(why)));
}

static void test_compilers_take_their_own_sources(void **s)
{
	(void)s;
	assert_true(compile_source_ok(LANG_C, "kernel.c"));
	assert_false(compile_source_ok(LANG_C, "kernel.h"));
	assert_true(compile_source_ok(LANG_CUDA, "kernel.cu"));
	assert_false(compile_source_ok(LANG_CUDA, "kernel.cuh"));
	assert_true(compile_source_ok(LANG_HIP, "kernel.hip"));
	assert_true(compile_source_ok(LANG_HIP, "util.cpp"));
	assert_false(compile_source_ok(LANG_HIP, "kernel.c"));
}

static struct task *parse(const char *lang, const char *ref_lang)
{
	char *cfg = xasprintf(
		"schema: arena/1\n"
		"description: d\n"
		"language: %s\n"
		"editable: [kernel.%s]\n"
		"reference: {file: reference.%s, language: %s}\n"
		"signature:\n"
		"  params: [n]\n"
		"  args:\n"
		"    - {name: x, dtype: f32, shape: [n], io: in}\n"
		"    - {name: y, dtype: f32, shape: [n], io: out}\n"
		"cases:\n"
		"  - {id: a, n: 4}\n"
		"tolerance: {atol: 0, rtol: 0}\n",
		lang, !strcmp(lang, "c") ? "c" : !strcmp(lang, "cuda") ? "cu" : "hip",
		!strcmp(ref_lang, "c") ? "c" : !strcmp(ref_lang, "cuda") ? "cu" : "hip",
		ref_lang);
	struct task *t = NULL;
	struct errbuf e;

	errbuf_init(&e);
	if (task_parse("x/y", NULL, cfg, strlen(cfg), NULL, 0, &t, &e) != 0)
		fprintf(stderr, "%s\n", errbuf_str(&e));
	free(cfg);
	assert_non_null(t);
	return t;
}

static void test_devices_accept_the_languages_they_can_run(void **s)
{
	struct task *c = parse("c", "c"), *hip = parse("hip", "c");
	struct task *cuda = parse("cuda", "c"), *hipcu = parse("hip", "cuda");
	struct errbuf e;
	struct dev_id d;

	(void)s;
	errbuf_init(&e);
	assert_int_equal(eval_check_device(c, "host", &d, &e), 0);
	assert_true(eval_check_device(c, "cuda:0", &d, &e) < 0);
	assert_true(eval_check_device(hip, "host", &d, &e) < 0);
	assert_int_equal(eval_check_device(hip, "cuda:1", &d, &e), 0);
	assert_int_equal(d.index, 1);
	assert_int_equal(eval_check_device(hip, "hip:0", &d, &e), 0);
	assert_int_equal(eval_check_device(cuda, "cuda:0", &d, &e), 0);
	assert_true(eval_check_device(cuda, "hip:0", &d, &e) < 0);
	assert_non_null(strstr(errbuf_str(&e), "NVIDIA GPU"));
	assert_true(eval_check_device(hipcu, "hip:0", &d, &e) < 0);
	task_free(c);
	task_free(hip);
	task_free(cuda);
	task_free(hipcu);
}

static void test_device_resolution_follows_the_config(void **s)
{
	struct task *c = parse("c", "c"), *hip = parse("hip", "c");
	struct errbuf e;
	char *dev = NULL;

	(void)s;
	errbuf_init(&e);
	unsetenv("ARENA_DEVICE");
	assert_int_equal(eval_resolve_device(NULL, c, &dev, &e), 0);
	assert_string_equal(dev, "host");
	free(dev);
	assert_int_equal(eval_resolve_device("auto", c, &dev, &e), 0);
	free(dev);
	assert_true(eval_resolve_device("cuda:0", c, &dev, &e) < 0);
	assert_int_equal(eval_resolve_device("cuda:2", hip, &dev, &e), 0);
	assert_string_equal(dev, "cuda:2");
	free(dev);
	assert_int_equal(eval_resolve_device("hip", hip, &dev, &e), 0);
	assert_string_equal(dev, "hip:0");
	free(dev);
	setenv("ARENA_DEVICE", "cuda:1", 1);
	assert_int_equal(eval_resolve_device(NULL, hip, &dev, &e), 0);
	assert_string_equal(dev, "cuda:1");
	free(dev);
	/* A host task stays on the host whatever ARENA_DEVICE says. */
	assert_int_equal(eval_resolve_device(NULL, c, &dev, &e), 0);
	assert_string_equal(dev, "host");
	free(dev);
	unsetenv("ARENA_DEVICE");
	assert_true(eval_resolve_device("host", hip, &dev, &e) < 0);
	/* target_gpu_model does not concern host tasks. */
	assert_int_equal(eval_check_gpu_model("host", "H200", &e), 0);
	assert_int_equal(eval_check_gpu_model("cuda:0", NULL, &e), 0);
	task_free(c);
	task_free(hip);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_device_names_parse_with_and_without_index),
		cmocka_unit_test(test_query_output_parses_into_device_facts),
		cmocka_unit_test(
			test_query_without_device_gives_the_runtimes_reason),
		cmocka_unit_test(
			test_peaks_output_parses_and_errors_are_reported),
		cmocka_unit_test(
			test_model_matching_is_by_words_of_name_or_arch),
		cmocka_unit_test(
			test_flush_covers_twice_l2_and_amd_infinity_cache),
		cmocka_unit_test(test_calls_under_a_millisecond_are_batched),
		cmocka_unit_test(test_compare_picks_sets_evenly),
		cmocka_unit_test(test_roofline_floor_from_measured_peaks),
		cmocka_unit_test(
			test_flop_floor_uses_the_tensor_core_rate_of_the_class),
		cmocka_unit_test(test_compute_class_from_dtypes_and_config),
		cmocka_unit_test(test_excess_within_noise_is_not_charged),
		cmocka_unit_test(
			test_systematic_excess_is_charged_at_its_lower_bound),
		cmocka_unit_test(
			test_strict_bound_charges_a_real_excess_not_noise),
		cmocka_unit_test(test_excess_of_one_block_resamples_pairs),
		cmocka_unit_test(
			test_floor_charges_a_shave_that_late_wakeups_hide),
		cmocka_unit_test(test_floor_rarely_charges_an_honest_candidate),
		cmocka_unit_test(test_gross_excess_bound),
		cmocka_unit_test(test_a_claim_is_disputed_beyond_its_charge),
		cmocka_unit_test(test_wide_excess_bounds_are_reported),
		cmocka_unit_test(test_drain_bounds),
		cmocka_unit_test(test_ordering_check_hold_time),
		cmocka_unit_test(test_device_errors_map_to_verdicts),
		cmocka_unit_test(test_device_error_replies_parse),
		cmocka_unit_test(test_compilers_take_their_own_sources),
		cmocka_unit_test(
			test_devices_accept_the_languages_they_can_run),
		cmocka_unit_test(test_device_resolution_follows_the_config),
		cmocka_unit_test(test_which_side_polls_follows_the_switch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

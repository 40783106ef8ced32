/*
 * gpu_policy.c - the decisions of GPU timing that need no GPU: how much to
 * flush, when to batch, the roofline floor and the compute class behind
 * it, what the controller's clock charges a candidate beyond its claims
 * (the charged excess) and when that excess is a rejection, how much
 * work may be left on the device, and what a device error means.  Pure
 * functions, so that tests/unit/test_gpu_policy.c can hold them to their
 * word on any machine; timing_gpu.c applies them (docs/gpu.md explains
 * each number).
 */
#include "eval_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena/result.h"

size_t gpu_flush_bytes(const struct gpu_info *g)
{
	uint64_t l2 = g && g->l2_bytes > 0 ? (uint64_t)g->l2_bytes : 0;
	uint64_t b = 2 * l2;

	if (b < (64ull << 20))
		b = 64ull << 20;
	/* MI300-class parts (gfx94x) put a 256 MiB Infinity Cache behind a
	 * small L2; the flush must cover it too. */
	if (g && strncmp(g->arch, "gfx94", 5) == 0 && b < (512ull << 20))
		b = 512ull << 20;
	if (b > (uint64_t)RP_MAX_FLUSH_BYTES)
		b = (uint64_t)RP_MAX_FLUSH_BYTES;
	return (size_t)b;
}

/* A positive number from the environment variable name, else 0. */
static double env_positive(const char *name)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return 0;
	d = strtod(v, &end);
	return *end == '\0' && d > 0 ? d : 0;
}

double gpu_batch_target_ns(void)
{
	double us = env_positive("ARENA_GPU_BATCH_TARGET_US");

	return us > 0 ? us * 1e3 : GPU_BATCH_TARGET_NS;
}

int gpu_warmup_pairs(void)
{
	double n = env_positive("ARENA_GPU_WARMUP_PAIRS");

	if (n >= 1 && n == floor(n) && n <= 100)
		return (int)n;
	return GPU_WARMUP_PAIRS;
}

uint64_t gpu_batch_max_bytes(void)
{
	double mib = env_positive("ARENA_GPU_BATCH_MAX_MIB");

	return mib > 0 ? (uint64_t)mib << 20 : GPU_BATCH_MAX_BYTES;
}

int gpu_batch_size(double call_ns, size_t set_bytes, int max_sets,
		   uint64_t max_bytes)
{
	double target = gpu_batch_target_ns();
	int n;

	if (!(call_ns > 0) || call_ns >= GPU_BATCH_MIN_NS || max_sets <= 1)
		return 1;
	n = (int)ceil(target / call_ns);
	if (n < 2)
		n = 2;
	if (n > max_sets)
		n = max_sets;
	if (set_bytes > 0 && (uint64_t)n * set_bytes > max_bytes)
		n = (int)(max_bytes / set_bytes);
	return n < 1 ? 1 : n;
}

int gpu_compare_sets(int n, size_t set_bytes)
{
	double kib = env_positive("ARENA_GPU_COMPARE_MAX_KIB");
	uint64_t most = kib > 0 ? (uint64_t)kib << 10 : GPU_COMPARE_MAX_BYTES;
	uint64_t fit;

	if (n < 1)
		return 1;
	fit = set_bytes ? most / set_bytes : (uint64_t)n;
	if (fit < 2)
		fit = 2;
	return fit < (uint64_t)n ? (int)fit : n;
}

enum gpu_compute_class gpu_compute_class_of(const struct task *t)
{
	static const struct {
		const char *name;
		enum gpu_compute_class c;
	} named[] = {
		{ "fp32", GPU_CC_FP32 }, { "tf32", GPU_CC_TF32 },
		{ "bf16", GPU_CC_BF16 }, { "fp16", GPU_CC_BF16 },
		{ "fp8", GPU_CC_FP8 },	 { "int8", GPU_CC_FP8 },
	};
	enum gpu_compute_class c = GPU_CC_TF32;

	if (t->cost_class) {
		for (size_t i = 0; i < ARRAY_SIZE(named); i++)
			if (strcmp(t->cost_class, named[i].name) == 0)
				return named[i].c;
	}
	for (int a = 0; a < t->nargs; a++) {
		arena_dtype d = t->args[a].dtype;
		if (dtype_size(d) == 1)
			return GPU_CC_FP8;
		if (d == ARENA_F16 || d == ARENA_BF16)
			c = GPU_CC_BF16;
	}
	return c;
}

const char *gpu_compute_class_name(enum gpu_compute_class c)
{
	static const char *const names[] = { "fp32", "tf32", "bf16", "fp8" };

	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

double gpu_class_peak_flops(enum gpu_compute_class c, const struct gpu_info *g)
{
	double tc = g ? g->tc_bf16_flops : 0;

	if (!g)
		return 0;
	switch (c) {
	case GPU_CC_FP8:
		return tc > 0 ? 2.0 * tc : 0;
	case GPU_CC_BF16:
		return tc > 0 ? tc : 0;
	case GPU_CC_TF32:
		return tc > 0 ? 0.5 * tc : 0;
	default:
		return g->fma_flops > 0 ? g->fma_flops : 0;
	}
}

double gpu_roofline_floor_ns(int64_t bytes, int64_t flops,
			     enum gpu_compute_class c, const struct gpu_info *g)
{
	double t = 0;

	if (!g)
		return 0;
	if (bytes > 0 && g->bandwidth_bps > 0)
		t = fmax(t, (double)bytes /
				    (GPU_ROOFLINE_BW_MARGIN * g->bandwidth_bps));
	if (flops > 0) {
		double peak = gpu_class_peak_flops(c, g);
		if (peak > 0 && (c == GPU_CC_FP32 || g->tc_bf16_flops > 0))
			t = fmax(t, (double)flops /
					    (GPU_ROOFLINE_TC_MARGIN * peak));
		else if (g->fma_flops > 0)
			t = fmax(t, (double)flops / (GPU_ROOFLINE_FLOPS_MARGIN *
						     g->fma_flops));
	}
	return t * 1e9;
}

/* The median of the values one bootstrap resample draws: nblocks blocks
 * with replacement, then as many pairs as each has, with replacement. */
static double resample_median(const double *const *e, const int *sizes,
			      const int *nonempty, int nne, struct rng *r,
			      double *buf)
{
	size_t m = 0;

	for (int i = 0; i < nne; i++) {
		int b = nonempty[rng_range(r, 0, nne - 1)];
		for (int j = 0; j < sizes[b]; j++)
			buf[m++] = e[b][rng_range(r, 0, sizes[b] - 1)];
	}
	return stats_median_inplace(buf, m);
}

/* The blocks of sizes[0..nblocks) that hold values: their indices in a
 * new array (*nonempty, caller frees), their count (the return), the
 * values in all of them (*total) and the largest block's size (*maxsz). */
static int nonempty_blocks(const int *sizes, int nblocks, int **nonempty,
			   size_t *total, int *maxsz)
{
	int nne = 0;

	*nonempty = xcalloc((size_t)(nblocks > 0 ? nblocks : 1), sizeof(int));
	*total = 0;
	*maxsz = 0;
	for (int b = 0; b < nblocks; b++)
		if (sizes[b] > 0) {
			(*nonempty)[nne++] = b;
			*total += (size_t)sizes[b];
			if (sizes[b] > *maxsz)
				*maxsz = sizes[b];
		}
	return nne;
}

double gpu_charged_excess_ns(const double *const *e, const int *sizes,
			     int nblocks, int iters, uint64_t seed,
			     double *median, double *hi, double *strict)
{
	int *nonempty, maxsz;
	size_t total;
	int nne = nonempty_blocks(sizes, nblocks, &nonempty, &total, &maxsz);
	double lo = 0;

	*median = 0;
	*hi = 0;
	if (strict)
		*strict = 0;
	if (nne == 0 || iters < 1) {
		free(nonempty);
		return 0;
	}
	double *all = xmalloc(total * sizeof(double));
	size_t m = 0;
	for (int i = 0; i < nne; i++)
		for (int j = 0; j < sizes[nonempty[i]]; j++)
			all[m++] = e[nonempty[i]][j];
	*median = stats_median_inplace(all, m);
	free(all);

	/* Resamples may draw the largest block every time. */
	double *buf = xmalloc((size_t)nne * (size_t)maxsz * sizeof(double));
	double *meds = xmalloc((size_t)iters * sizeof(double));
	struct rng r;
	rng_seed(&r, seed);
	for (int it = 0; it < iters; it++)
		meds[it] = resample_median(e, sizes, nonempty, nne, &r, buf);
	stats_sort(meds, (size_t)iters);
	lo = stats_quantile_sorted(meds, (size_t)iters, GPU_EXCESS_ALPHA);
	*hi = stats_quantile_sorted(meds, (size_t)iters, 1 - GPU_EXCESS_ALPHA);
	if (strict)
		*strict =
			fmax(0, stats_quantile_sorted(meds, (size_t)iters,
						      GPU_EXCESS_ALPHA_STRICT));
	free(meds);
	free(buf);
	free(nonempty);
	return lo > 0 ? lo : 0;
}

/* The k-th smallest of v[0..m) at quantile q, without interpolation. */
static double kth_at(double *v, size_t m, double q)
{
	return stats_kth_inplace(v, m, (size_t)(q * (double)(m - 1)));
}

/* The floor statistic (eval_internal.h) of the m pairs in p[0..m); buf
 * holds 4 m doubles. */
static double floor_statistic(const struct gpu_timed_pair *const *p, size_t m,
			      double *buf)
{
	double *co = buf, *bo = buf + m, *cw = buf + 2 * m, *cc = buf + 3 * m;

	for (size_t i = 0; i < m; i++) {
		co[i] = p[i]->cand_wall - p[i]->cand_claim;
		bo[i] = p[i]->base_wall - p[i]->base_claim;
		cw[i] = p[i]->cand_wall;
		cc[i] = p[i]->cand_claim;
	}
	double base_floor = kth_at(bo, m, GPU_FLOOR_QUANTILE);
	double shift = kth_at(co, m, GPU_FLOOR_QUANTILE) - base_floor;
	double median = kth_at(cw, m, GPU_FLOOR_QUANTILE / 2) -
			stats_median_inplace(cc, m) - base_floor;
	return fmax(shift, median);
}

double gpu_floor_excess_ns(const struct gpu_timed_pair *const *pairs,
			   const int *sizes, int nblocks, int iters,
			   uint64_t seed, double *point)
{
	int *nonempty, maxsz;
	size_t total;
	int nne = nonempty_blocks(sizes, nblocks, &nonempty, &total, &maxsz);

	*point = 0;
	if (total < GPU_FLOOR_MIN_PAIRS) {
		free(nonempty);
		return 0;
	}
	size_t cap = total > (size_t)nne * (size_t)maxsz
			     ? total
			     : (size_t)nne * (size_t)maxsz;
	const struct gpu_timed_pair **draw = xmalloc(cap * sizeof(*draw));
	double *buf = xmalloc(4 * cap * sizeof(double));
	size_t m = 0;
	for (int i = 0; i < nne; i++)
		for (int j = 0; j < sizes[nonempty[i]]; j++)
			draw[m++] = &pairs[nonempty[i]][j];
	*point = floor_statistic(draw, m, buf);
	if (nne < GPU_FLOOR_MIN_BLOCKS || iters < 1) {
		free(buf);
		free(draw);
		free(nonempty);
		return 0;
	}

	double *stat = xmalloc((size_t)iters * sizeof(double));
	struct rng r;
	rng_seed(&r, seed);
	for (int it = 0; it < iters; it++) {
		m = 0;
		for (int i = 0; i < nne; i++) {
			int b = nonempty[rng_range(&r, 0, nne - 1)];
			for (int j = 0; j < sizes[b]; j++)
				draw[m++] = &pairs[b][rng_range(&r, 0,
								sizes[b] - 1)];
		}
		stat[it] = floor_statistic(draw, m, buf);
	}
	stats_sort(stat, (size_t)iters);
	double lo = stats_quantile_sorted(stat, (size_t)iters,
					  GPU_EXCESS_ALPHA_STRICT);
	free(stat);
	free(buf);
	free(draw);
	free(nonempty);
	return lo > 0 ? lo : 0;
}

double gpu_unconfirmed_ns(double cand_claim_ns)
{
	return fmax(GPU_UNCONFIRMED_ABS_NS,
		    GPU_UNCONFIRMED_REL * cand_claim_ns);
}

bool gpu_claim_disputed(double react_median_ns, double react_lo_ns,
			double charged_ns, double cand_claim_ns)
{
	return react_lo_ns > 0 && react_median_ns - fmax(charged_ns, 0) >
					  fmax(GPU_DISPUTE_ABS_NS,
					       GPU_DISPUTE_REL * cand_claim_ns);
}

double gpu_gross_excess_ns(double cand_claim_ns)
{
	return fmax(GPU_GROSS_EXCESS_ABS_NS,
		    GPU_GROSS_EXCESS_REL * cand_claim_ns);
}

double drain_allowed_ns(double base_drain_ns, double cand_claim_ns)
{
	/* An honest kernel leaves the device idle at its stream's end event,
	 * so its drain is the baseline's (the host's wake-up and sync
	 * latency, compared as lower quartiles).  On the H200 a 30 us kernel
	 * moved to another stream drained 15-25 us more than the baseline,
	 * which a 20 us slack let through; 8 us does not. */
	return fmax(base_drain_ns, 0) + fmax(8000.0, 0.02 * cand_claim_ns);
}

int64_t gpu_gate_hold_us(double prev_call_ns)
{
	double us = fmax(2000.0, 2.0 * prev_call_ns / 1e3);

	return (int64_t)fmin(us, 20000.0);
}

void gpu_error_meaning(const char *name, struct gpu_error_meaning *m)
{
	/* Names without their runtime prefix: the two runtimes share them. */
	static const struct {
		const char *suffix;
		int status;
		const char *what;
	} table[] = {
		{ "IllegalAddress", RS_RUNTIME_ERROR,
		  "an illegal memory access (a kernel read or wrote outside "
		  "its buffers)" },
		{ "MisalignedAddress", RS_RUNTIME_ERROR,
		  "a misaligned memory access" },
		{ "InvalidAddressSpace", RS_RUNTIME_ERROR,
		  "an access to the wrong address space" },
		{ "IllegalInstruction", RS_RUNTIME_ERROR,
		  "an illegal instruction" },
		{ "InvalidPc", RS_RUNTIME_ERROR,
		  "a jump to an invalid program counter" },
		{ "HardwareStackError", RS_RUNTIME_ERROR,
		  "a device stack overflow" },
		{ "Assert", RS_RUNTIME_ERROR, "a failed device-side assert" },
		{ "LaunchFailure", RS_RUNTIME_ERROR,
		  "a kernel launch failure (usually a memory fault)" },
		{ "LaunchTimeout", RS_TIMEOUT,
		  "a kernel that ran past the device's watchdog" },
		{ "LaunchOutOfResources", RS_RUNTIME_ERROR,
		  "a launch that asked for more registers, threads or shared "
		  "memory than the device has" },
		{ "InvalidConfiguration", RS_RUNTIME_ERROR,
		  "a launch with an invalid grid or block shape" },
		{ "MemoryAllocation", RS_RUNTIME_ERROR,
		  "running out of device memory" },
		{ "OutOfMemory", RS_RUNTIME_ERROR,
		  "running out of device memory" },
		{ "NoKernelImageForDevice", RS_RUNTIME_ERROR,
		  "a kernel not compiled for this device's architecture" },
		{ "InvalidDeviceFunction", RS_RUNTIME_ERROR,
		  "a kernel not compiled for this device's architecture" },
		{ "ECCUncorrectable", RS_INFRA_ERROR,
		  "an uncorrectable ECC memory error (a hardware fault)" },
	};
	const char *base = name ? name : "";

	if (strncmp(base, "cudaError", 9) == 0)
		base += 9;
	else if (strncmp(base, "hipError", 8) == 0)
		base += 8;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		if (strcmp(base, table[i].suffix) == 0) {
			m->status = table[i].status;
			m->what = table[i].what;
			return;
		}
	m->status = RS_RUNTIME_ERROR;
	m->what = "a device error";
}

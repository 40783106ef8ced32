/*
 * excess_null.c - how often, and by how much, the GPU charged excess
 * (gpu_policy.c, gpu_charged_excess_ns) charges a candidate that hides
 * nothing: an A/A, where every pair's excess e is noise around 0.  A
 * measurement on the host, not a test; excess_null.sh builds and runs it
 * (docs/gpu.md section 6, "what differs between the two runners").
 *
 * For each shape (blocks, pairs of pairs per block, a per-block offset of
 * the excess, the noise's law) it draws many cases of the null and runs
 * the controller's own function on them, for one column of the excess
 * (timing_gpu.c charges two: the sample's and the fetch's, each floored
 * at 0 on its own) and prints:
 *   charged  the share of cases with a charge above 0 (one column);
 *   either   the share with a charge in either of two independent columns;
 *   mean     the mean charge over the charged cases, in units of one
 *            pair-of-pairs' noise (sigma);
 *   p90      its 90th percentile, same units.
 * A charge is subtracted from nothing and added to every pair of the
 * case's candidate, so each charged case is an offset every block of
 * that evaluation shares.  Its size in the ratio is charge / the
 * candidate's claim: a fetch whose noise is large against the kernel's
 * time (hundreds of MiB back over PCIe for a kernel of a few hundred
 * microseconds) turns a charge of one sigma into percent.
 *
 * A second table does the same for the floor of the `time` request
 * (gpu_floor_excess_ns), whose noise is not a law around 0 but the
 * H200's overhead (measured 2026-12-06: 205 us plus a few us on 40% of
 * requests, plus a late wake-up, exponential of mean 120 us, on the
 * rest), with offsets of that floor between runner processes, claims
 * spread by the inputs, and shaves of 20 us on a share of the claims,
 * drawn or by a rhythm (every fourth request honest):
 *   charged  the share of cases charged above 0;
 *   mean     the mean charge over all cases, us;
 *   p90      the 90th percentile of the charge over all cases, us.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "arena/stats.h"
#include "arena/util.h"
#include "eval_internal.h"

#define CASES 4000
#define ITERS 1000

/* One draw of the noise: normal, or Student-like heavy tails (a normal
 * over the square root of a scaled chi-square of 3 degrees), scaled to
 * unit variance. */
static double noise(struct rng *r, bool heavy)
{
	double z = rng_normal(r);

	if (!heavy)
		return z;
	double c = 0;
	for (int i = 0; i < 3; i++) {
		double g = rng_normal(r);
		c += g * g;
	}
	return z / sqrt(c / 3.0) / sqrt(3.0);
}

static void shape(int nblocks, int per_block, double block_sd, bool heavy,
		  uint64_t seed)
{
	double *e = xmalloc((size_t)nblocks * (size_t)per_block *
			    sizeof(double));
	double *charges = xmalloc(CASES * sizeof(double));
	const double *eb[8];
	int sizes[8];
	int charged = 0, strict_charged = 0;
	struct rng r;

	rng_seed(&r, seed);
	for (int c = 0; c < CASES; c++) {
		for (int b = 0; b < nblocks; b++) {
			double off = block_sd * rng_normal(&r);
			eb[b] = e + (size_t)b * (size_t)per_block;
			sizes[b] = per_block;
			for (int i = 0; i < per_block; i++)
				e[b * per_block + i] = off + noise(&r, heavy);
		}
		double med, hi, strict;
		double lo = gpu_charged_excess_ns(eb, sizes, nblocks, ITERS,
						  rng_next(&r), &med, &hi,
						  &strict);
		if (lo > 0)
			charges[charged++] = lo;
		strict_charged += strict > 0;
	}
	double p = (double)charged / CASES, mean = 0, p90 = 0;
	for (int i = 0; i < charged; i++)
		mean += charges[i] / charged;
	if (charged) {
		stats_sort(charges, (size_t)charged);
		p90 = charges[(size_t)(0.9 * (charged - 1))];
	}
	double ps = (double)strict_charged / CASES;
	printf("%6d %9d %8.2f %6s %8.3f %7.3f %6.2f %6.2f %7.3f %7.3f\n",
	       nblocks, per_block, block_sd, heavy ? "heavy" : "normal", p,
	       1 - (1 - p) * (1 - p), mean, p90, ps, 1 - (1 - ps) * (1 - ps));
	free(e);
	free(charges);
}

/* The floor's law (see the top). */
struct floor_shape {
	const char *name;
	int per_block;
	double offset_sd, cand_spread, base_spread, shave, share;
	/* Not 0: the shave skips every period-th request of a block, from
	 * a phase drawn per block (a rhythm, not a draw), share unused. */
	int period;
};

static double h200_overhead(struct rng *r)
{
	if (rng_uniform(r) < 0.4)
		return 205000 + 4000 * fabs(rng_normal(r));
	return 205000 - 120000 * log(1 - rng_uniform(r));
}

/* One `time` request of a 327 us batch (spread uniformly over `spread`
 * ns) by a process whose floor is `offset` ns off: its claim and wall. */
static void draw_request(struct rng *r, double spread, double offset,
			 double *claim, double *wall)
{
	*claim = 327000 + spread * (rng_uniform(r) - 0.5);
	*wall = *claim + offset + h200_overhead(r);
}

static void floor_shape(const struct floor_shape *f, uint64_t seed)
{
	enum { NB = 6, FLOOR_CASES = 1000 };
	struct gpu_timed_pair *pairs =
		xmalloc((size_t)NB * (size_t)f->per_block * sizeof(*pairs));
	const struct gpu_timed_pair *pb[NB];
	int sizes[NB];
	double *charges = xmalloc(FLOOR_CASES * sizeof(double));
	int charged = 0;
	double mean = 0;
	struct rng r;

	rng_seed(&r, seed);
	for (int c = 0; c < FLOOR_CASES; c++) {
		for (int b = 0; b < NB; b++) {
			double boff = f->offset_sd * rng_normal(&r);
			double coff = f->offset_sd * rng_normal(&r);
			int phase =
				f->period ? (int)rng_range(&r, 0, f->period - 1)
					  : 0;
			pb[b] = pairs + (size_t)b * (size_t)f->per_block;
			sizes[b] = f->per_block;
			for (int i = 0; i < f->per_block; i++) {
				struct gpu_timed_pair *p =
					&pairs[b * f->per_block + i];
				draw_request(&r, f->base_spread, boff,
					     &p->base_claim, &p->base_wall);
				draw_request(&r, f->cand_spread, coff,
					     &p->cand_claim, &p->cand_wall);
				if (f->period ? (i + phase) % f->period !=
							f->period - 1
					      : rng_uniform(&r) < f->share)
					p->cand_claim -= f->shave;
			}
		}
		double point;
		charges[c] = gpu_floor_excess_ns(pb, sizes, NB, ITERS,
						 rng_next(&r), &point);
		charged += charges[c] > 0;
		mean += charges[c] / FLOOR_CASES;
	}
	stats_sort(charges, FLOOR_CASES);
	printf("%-28s %9d %6.1f %8.3f %7.2f %7.2f\n", f->name, f->per_block,
	       f->offset_sd / 1e3, (double)charged / FLOOR_CASES, mean / 1e3,
	       charges[(size_t)(0.9 * (FLOOR_CASES - 1))] / 1e3);
	free(charges);
	free(pairs);
}

static void floor_table(void)
{
	static const struct floor_shape shapes[] = {
		{ "null", 10, 0, 0, 0, 0, 0 },
		{ "null", 20, 0, 0, 0, 0, 0 },
		{ "null, floor offsets", 10, 5000, 0, 0, 0, 0 },
		{ "null, floor offsets", 10, 15000, 0, 0, 0, 0 },
		{ "null, candidate spread", 10, 0, 100000, 0, 0, 0 },
		{ "null, baseline spread", 10, 0, 0, 100000, 0, 0 },
		{ "shave 20 us, all", 10, 0, 0, 0, 20000, 1 },
		{ "shave 20 us, all", 10, 5000, 0, 0, 20000, 1 },
		{ "shave 20 us, all", 20, 0, 0, 0, 20000, 1 },
		{ "shave 20 us, 75%", 10, 0, 0, 0, 20000, 0.75 },
		{ "shave 20 us, 3/4 by rhythm", 10, 0, 0, 0, 20000, 0, 4 },
		{ "shave 20 us, 3/4 by rhythm", 10, 5000, 0, 0, 20000, 0, 4 },
		{ "shave 20 us, 60%", 10, 0, 0, 0, 20000, 0.6 },
		{ "shave 20 us, 60%", 20, 0, 0, 0, 20000, 0.6 },
	};

	printf("\n# the floor of the time request: %d blocks, the H200's "
	       "overhead law, %d resamples, strict alpha %.3f; charges in "
	       "us\n",
	       6, ITERS, GPU_EXCESS_ALPHA_STRICT);
	printf("%-28s %9s %6s %8s %7s %7s\n", "shape", "per_block",
	       "off_us", "charged", "mean", "p90");
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++)
		floor_shape(&shapes[i], 20261206 + i);
}

int main(void)
{
	printf("# %d cases of the null per line, %d bootstrap resamples, "
	       "alpha %.2f (strict: %.3f, what the interval's upper end is "
	       "charged); charge in units of one pair-of-pairs' sigma\n",
	       CASES, ITERS, GPU_EXCESS_ALPHA, GPU_EXCESS_ALPHA_STRICT);
	printf("%6s %9s %8s %6s %8s %7s %6s %6s %7s %7s\n", "blocks",
	       "per_block", "block_sd", "noise", "charged", "either", "mean",
	       "p90", "strict", "s_either");
	/* 6 blocks of 10 timed pairs (5 pairs of pairs) is what a large
	 * case gets at the default min_pairs within a 0.3 s budget. */
	static const int per[] = { 5, 10, 20 };
	static const double bsd[] = { 0, 0.5 };
	uint64_t seed = 20261202;
	for (size_t i = 0; i < ARRAY_SIZE(per); i++)
		for (size_t j = 0; j < ARRAY_SIZE(bsd); j++)
			for (int h = 0; h < 2; h++)
				shape(6, per[i], bsd[j], h, seed++);
	shape(2, 5, 0, false, seed++);
	floor_table();
	return 0;
}

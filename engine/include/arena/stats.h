/*
 * stats.h - deterministic random numbers and the statistics behind every
 * speedup arena reports.
 *
 * Random numbers: xoshiro256** seeded through SplitMix64, so that a seed
 * recorded in a result reproduces the same inputs and the same bootstrap.
 *
 * Speedups: each timing pair gives ratio = baseline_time / candidate_time.
 * Pairs are grouped in blocks (one block = one pair of fresh runner
 * processes).  A case's speedup is the median of its ratios; its confidence
 * interval comes from a hierarchical bootstrap (resample blocks, then pairs
 * inside each chosen block), because two processes running identical code
 * differ systematically (shared/reference/timing-facts.md) and pairs from
 * one process pair are not independent.  A task's speedup is the geometric
 * mean over its cases, with a CI from bootstrapping every case at once.
 */
#ifndef ARENA_STATS_H
#define ARENA_STATS_H

#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1). */
double rng_uniform(struct rng *r);
/* Standard normal (Box-Muller, both values used alternately is not
 * required: each call is independent). */
double rng_normal(struct rng *r);
/* Uniform integer in [lo, hi] inclusive; lo <= hi. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);

/* Median of v[0..n) (n > 0; NaN when n == 0); v is reordered.  The mean of
 * the two middle values for even n.  Linear time (quickselect). */
double stats_median_inplace(double *v, size_t n);
/* The k-th smallest of v[0..n) (k from 0, k < n); v is reordered.
 * Linear time (quickselect). */
double stats_kth_inplace(double *v, size_t n, size_t k);
/* Sorts v[0..n) ascending. */
void stats_sort(double *v, size_t n);
/* Median of v[0..n) without modifying it. */
double stats_median(const double *v, size_t n);
/* Linear-interpolated quantile q in [0,1] of sorted[0..n). */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
double stats_mean(const double *v, size_t n);
/* Computed in log space (no overflow or underflow); NaN when n == 0 or a
 * value is not finite and positive. */
double stats_geomean(const double *v, size_t n);

/* One case's timing: blocks[b][i] is the i-th ratio of block b. */
struct ratio_blocks {
	int nblocks;
	const double *const *blocks;
	const int *sizes;
};

struct interval {
	double point;	/* the statistic on the data itself */
	double lo, hi;	/* percentile bootstrap interval */
};

/* Median ratio with a hierarchical-bootstrap interval at confidence
 * 1 - alpha (alpha = 0.05 for 95%), `iters` resamples, deterministic in
 * seed.  With one block it resamples pairs only.  Returns 0, or -EINVAL
 * when there is no data, a ratio is not finite and positive, iters < 1 or
 * alpha is outside (0, 1).  Blocks of size 0 are ignored.  Allocates only
 * outside its loop: 2000 iterations over 320 pairs take about 7 ms. */
int stats_median_ratio_ci(const struct ratio_blocks *rb, int iters,
			  double alpha, uint64_t seed, struct interval *out);

/* Geometric mean over ncases of each case's median ratio, with an interval
 * from resampling every case (hierarchically) in each bootstrap iteration. */
int stats_geomean_ci(const struct ratio_blocks *cases, int ncases, int iters,
		     double alpha, uint64_t seed, struct interval *out);

/* Between-process intervals (docs/statistics.md §2): block medians vary
 * from one pair of runner processes to the next by more than the pairs
 * inside a block say, so a case's point is the geometric mean of its
 * block medians and its interval a t-interval on their logarithms (df =
 * blocks - 1; stats_t_quantile), widened to contain the hierarchical
 * bootstrap interval of stats_median_ratio_ci.  With one non-empty block:
 * that bootstrap alone.
 * Same return values as stats_median_ratio_ci. */
int stats_block_ratio_ci(const struct ratio_blocks *rb, int iters, double alpha,
			 uint64_t seed, struct interval *out);
/* The geometric mean over cases of those points, with a t-interval on the
 * mean of the cases' log block medians (the variance the sum of each
 * case's, Welch-Satterthwaite degrees of freedom) widened to contain
 * stats_geomean_ci's bootstrap interval; bootstrap alone when a case has
 * fewer than two blocks. */
int stats_geomean_block_ci(const struct ratio_blocks *cases, int ncases,
			   int iters, double alpha, uint64_t seed,
			   struct interval *out);
/* Relative half-width of an interval: (hi - lo) / (2 * point); infinite
 * when the point is not positive or a bound is not finite. */
double interval_rel_halfwidth(const struct interval *iv);
/* Widens iv to contain [point / (1 + rel), point * (1 + rel)]: a floor
 * for what no resampling sees, an offset every block shares
 * (docs/statistics.md section 2, "A floor for systematic offsets"). */
void interval_widen_to(struct interval *iv, double rel);

#endif /* ARENA_STATS_H */

/*
 * stats.c - deterministic random numbers, order statistics and the
 * bootstrap intervals behind every speedup arena reports (see arena/stats.h
 * and docs/statistics.md).
 *
 * Random numbers: xoshiro256** (Blackman & Vigna), its 256-bit state filled
 * by SplitMix64 from one 64-bit seed.  The same seed gives the same stream
 * on every machine, so a seed recorded in a result reproduces both the
 * inputs and the bootstrap.  Bounded integers use Lemire's multiply-shift
 * with rejection, which is exactly unbiased and rarely divides.
 *
 * Medians use quickselect (Wirth's partition, which stays linear on the
 * many ties a resample produces) instead of sorting: the bootstrap takes
 * one median per iteration, and sorting would dominate its cost.
 *
 * Bootstrap invariants:
 *   - all scratch memory is allocated once per call, never in the loop;
 *   - one rng, seeded once per call, drives every draw in a fixed order,
 *     so a (data, iters, alpha, seed) tuple always gives the same interval;
 *   - blocks of size zero are ignored (they carry no pairs); a case with no
 *     pairs at all is an error, not an interval.
 */
#include "arena/stats.h"
#include "arena/stats_dist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena/util.h"

/* ---- random numbers -------------------------------------------------- */

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void rng_seed(struct rng *r, uint64_t seed)
{
	/* SplitMix64: mix64(x) is one SplitMix64 step from state x, so the
	 * four words are the first four outputs of SplitMix64(seed).  Its
	 * mixer is a bijection, so four distinct inputs give four distinct
	 * words: never the all-zero state xoshiro must avoid. */
	for (int i = 0; i < 4; i++)
		r->s[i] = mix64(seed + (uint64_t)i * 0x9e3779b97f4a7c15ull);
}

uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl64(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return result;
}

double rng_uniform(struct rng *r)
{
	/* The top 53 bits: every representable multiple of 2^-53 in [0, 1)
	 * is equally likely. */
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double rng_normal(struct rng *r)
{
	/* Box-Muller, cosine branch only.  u1 is in (0, 1] so log() is
	 * finite. */
	double u1 = 1.0 - rng_uniform(r);
	double u2 = rng_uniform(r);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Uniform integer in [0, n), n > 0: Lemire's nearly divisionless method.
 * The rejection threshold (2^64 mod n) makes it exactly unbiased. */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		uint64_t threshold = (0 - n) % n;

		while (low < threshold) {
			m = (unsigned __int128)rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

int64_t rng_range(struct rng *r, int64_t lo, int64_t hi)
{
	/* The width is computed in unsigned arithmetic so that the full
	 * int64 range does not overflow; width + 1 == 0 means all 2^64
	 * values. */
	uint64_t width = (uint64_t)hi - (uint64_t)lo;

	if (hi <= lo)
		return lo;
	if (width == UINT64_MAX)
		return (int64_t)rng_next(r);
	return (int64_t)((uint64_t)lo + rng_below(r, width + 1));
}

/* ---- order statistics ------------------------------------------------ */

/* Places the k-th smallest element of a[0..n) at a[k], smaller-or-equal
 * ones before it and greater-or-equal ones after it (Wirth's algorithm).
 * Signed indices because the partition walks j one below i. */
static double select_kth(double *a, ptrdiff_t n, ptrdiff_t k)
{
	ptrdiff_t l = 0, m = n - 1;

	while (l < m) {
		double x = a[k];
		ptrdiff_t i = l, j = m;

		do {
			while (a[i] < x)
				i++;
			while (x < a[j])
				j--;
			if (i <= j) {
				double t = a[i];

				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			m = j;
	}
	return a[k];
}

double stats_kth_inplace(double *v, size_t n, size_t k)
{
	return select_kth(v, (ptrdiff_t)n, (ptrdiff_t)k);
}

double stats_median_inplace(double *v, size_t n)
{
	ptrdiff_t k = (ptrdiff_t)(n / 2);
	double hi, lo;

	if (n == 0)
		return NAN;
	hi = select_kth(v, (ptrdiff_t)n, k);
	if (n % 2)
		return hi;
	/* Everything before k is <= v[k]; the lower middle is their max. */
	lo = v[0];
	for (ptrdiff_t i = 1; i < k; i++)
		if (v[i] > lo)
			lo = v[i];
	return lo + (hi - lo) / 2;
}

double stats_median(const double *v, size_t n)
{
	double *copy;
	double m;

	if (n == 0)
		return NAN;
	copy = xmalloc(n * sizeof(*copy));
	memcpy(copy, v, n * sizeof(*copy));
	m = stats_median_inplace(copy, n);
	free(copy);
	return m;
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
	double h, frac;
	size_t i;

	if (n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	/* Hyndman & Fan type 7 (R's default, numpy's "linear"). */
	h = q * (double)(n - 1);
	i = (size_t)h;
	if (i >= n - 1)
		return sorted[n - 1];
	frac = h - (double)i;
	return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

double stats_mean(const double *v, size_t n)
{
	double sum = 0.0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	return sum / (double)n;
}

double stats_geomean(const double *v, size_t n)
{
	double sum = 0.0;

	if (n == 0)
		return NAN;
	/* In log space: a product of many ratios over- or underflows long
	 * before their geometric mean does. */
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0.0) || !isfinite(v[i]))
			return NAN;
		sum += log(v[i]);
	}
	return exp(sum / (double)n);
}

/* ---- bootstrap ------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
}

/* Checks one case: every ratio finite and positive, at least one pair.
 * Returns the number of pairs, the largest block and the number of
 * non-empty blocks, or -EINVAL. */
static int blocks_check(const struct ratio_blocks *rb, size_t *total,
			size_t *max_block, int *nonempty)
{
	*total = 0;
	*max_block = 0;
	*nonempty = 0;
	if (!rb || rb->nblocks <= 0 || !rb->blocks || !rb->sizes)
		return -EINVAL;
	for (int b = 0; b < rb->nblocks; b++) {
		if (rb->sizes[b] < 0)
			return -EINVAL;
		if (rb->sizes[b] == 0)
			continue;
		if (!rb->blocks[b])
			return -EINVAL;
		for (int i = 0; i < rb->sizes[b]; i++) {
			double x = rb->blocks[b][i];

			if (!(x > 0.0) || !isfinite(x))
				return -EINVAL;
		}
		*total += (size_t)rb->sizes[b];
		if ((size_t)rb->sizes[b] > *max_block)
			*max_block = (size_t)rb->sizes[b];
		(*nonempty)++;
	}
	return *total ? 0 : -EINVAL;
}

/* The indices of the non-empty blocks of rb, written to idx. */
static void blocks_nonempty(const struct ratio_blocks *rb, int *idx)
{
	int k = 0;

	for (int b = 0; b < rb->nblocks; b++)
		if (rb->sizes[b] > 0)
			idx[k++] = b;
}

/* Median of all ratios of a case, using scratch (>= total doubles). */
static double blocks_point(const struct ratio_blocks *rb, double *scratch)
{
	size_t n = 0;

	for (int b = 0; b < rb->nblocks; b++) {
		if (rb->sizes[b] <= 0)
			continue;
		memcpy(scratch + n, rb->blocks[b],
		       (size_t)rb->sizes[b] * sizeof(double));
		n += (size_t)rb->sizes[b];
	}
	return stats_median_inplace(scratch, n);
}

/* One hierarchical resample of a case: draw nonempty blocks with
 * replacement, then each drawn block's ratios with replacement, pool them
 * in scratch and return their median.  scratch holds nonempty * max_block
 * doubles, the largest pool possible. */
static double blocks_resample_median(const struct ratio_blocks *rb,
				     const int *idx, int nonempty,
				     double *scratch, struct rng *r)
{
	size_t n = 0;

	for (int k = 0; k < nonempty; k++) {
		int b = idx[rng_below(r, (uint64_t)nonempty)];
		const double *blk = rb->blocks[b];
		uint64_t m = (uint64_t)rb->sizes[b];

		for (uint64_t i = 0; i < m; i++)
			scratch[n++] = blk[rng_below(r, m)];
	}
	return stats_median_inplace(scratch, n);
}

static int ci_args_ok(int iters, double alpha)
{
	return iters >= 1 && alpha > 0.0 && alpha < 1.0;
}

/* Sorts the iteration statistics and reads the percentile interval. */
static void ci_from_samples(double *samples, int iters, double alpha,
			    struct interval *out)
{
	stats_sort(samples, (size_t)iters);
	out->lo = stats_quantile_sorted(samples, (size_t)iters, alpha / 2);
	out->hi = stats_quantile_sorted(samples, (size_t)iters, 1 - alpha / 2);
}

int stats_median_ratio_ci(const struct ratio_blocks *rb, int iters,
			  double alpha, uint64_t seed, struct interval *out)
{
	size_t total, max_block;
	int nonempty, *idx;
	double *scratch, *samples;
	struct rng r;

	if (!out || !ci_args_ok(iters, alpha) ||
	    blocks_check(rb, &total, &max_block, &nonempty) < 0)
		return -EINVAL;

	/* A resample can draw the largest block every time. */
	scratch = xmalloc(max_block * (size_t)nonempty * sizeof(double));
	samples = xmalloc((size_t)iters * sizeof(double));
	idx = xmalloc((size_t)nonempty * sizeof(int));
	blocks_nonempty(rb, idx);

	out->point = blocks_point(rb, scratch);
	rng_seed(&r, seed);
	for (int it = 0; it < iters; it++)
		samples[it] = blocks_resample_median(rb, idx, nonempty,
						     scratch, &r);
	ci_from_samples(samples, iters, alpha, out);

	free(idx);
	free(scratch);
	free(samples);
	return 0;
}

int stats_geomean_ci(const struct ratio_blocks *cases, int ncases, int iters,
		     double alpha, uint64_t seed, struct interval *out)
{
	size_t scratch_n = 0, idx_n = 0;
	int *nonempty, **idx;
	double *scratch, *samples, logsum = 0.0;
	struct rng r;

	if (!out || !cases || ncases <= 0 || !ci_args_ok(iters, alpha))
		return -EINVAL;

	nonempty = xcalloc((size_t)ncases, sizeof(int));
	idx = xcalloc((size_t)ncases, sizeof(int *));
	for (int c = 0; c < ncases; c++) {
		size_t total, max_block;

		if (blocks_check(&cases[c], &total, &max_block,
				 &nonempty[c]) < 0) {
			free(nonempty);
			free(idx);
			return -EINVAL;
		}
		if (max_block * (size_t)nonempty[c] > scratch_n)
			scratch_n = max_block * (size_t)nonempty[c];
		if (total > scratch_n)
			scratch_n = total;
		idx_n += (size_t)nonempty[c];
	}

	scratch = xmalloc(scratch_n * sizeof(double));
	samples = xmalloc((size_t)iters * sizeof(double));
	/* One allocation for every case's block index list. */
	idx[0] = xmalloc(idx_n * sizeof(int));
	for (int c = 0; c < ncases; c++) {
		if (c > 0)
			idx[c] = idx[c - 1] + nonempty[c - 1];
		blocks_nonempty(&cases[c], idx[c]);
	}

	for (int c = 0; c < ncases; c++)
		logsum += log(blocks_point(&cases[c], scratch));
	out->point = exp(logsum / ncases);

	rng_seed(&r, seed);
	for (int it = 0; it < iters; it++) {
		logsum = 0.0;
		for (int c = 0; c < ncases; c++)
			logsum += log(blocks_resample_median(
				&cases[c], idx[c], nonempty[c], scratch, &r));
		samples[it] = exp(logsum / ncases);
	}
	ci_from_samples(samples, iters, alpha, out);

	free(idx[0]);
	free(idx);
	free(nonempty);
	free(scratch);
	free(samples);
	return 0;
}

/* ---- between-process intervals ---------------------------------------- */

/* Log of each non-empty block's median ratio into logm (ratios unchanged,
 * scratch >= the largest block); the number of such blocks. */
static int block_log_medians(const struct ratio_blocks *rb, double *scratch,
			     double *logm)
{
	int k = 0;

	for (int b = 0; b < rb->nblocks; b++) {
		if (rb->sizes[b] <= 0)
			continue;
		memcpy(scratch, rb->blocks[b],
		       (size_t)rb->sizes[b] * sizeof(double));
		logm[k++] = log(
			stats_median_inplace(scratch, (size_t)rb->sizes[b]));
	}
	return k;
}

/* Mean and sample variance of v[0..n). */
static void mean_var(const double *v, int n, double *mean, double *var)
{
	double m = 0.0, ss = 0.0;

	for (int i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (int i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	*mean = m;
	*var = n > 1 ? ss / (n - 1) : 0.0;
}

int stats_block_ratio_ci(const struct ratio_blocks *rb, int iters, double alpha,
			 uint64_t seed, struct interval *out)
{
	size_t total, max_block;
	int nonempty;
	struct interval boot;

	if (!out || !ci_args_ok(iters, alpha) ||
	    blocks_check(rb, &total, &max_block, &nonempty) < 0 ||
	    stats_median_ratio_ci(rb, iters, alpha, seed, &boot) != 0)
		return -EINVAL;
	double *scratch = xmalloc(max_block * sizeof(double));
	double *logm = xmalloc((size_t)nonempty * sizeof(double));
	double mean, var;
	int k = block_log_medians(rb, scratch, logm);

	mean_var(logm, k, &mean, &var);
	out->point = exp(mean);
	out->lo = boot.lo;
	out->hi = boot.hi;
	if (k >= 2) {
		double half = stats_t_quantile(1 - alpha / 2, k - 1) *
			      sqrt(var / k);
		out->lo = fmin(out->lo, exp(mean - half));
		out->hi = fmax(out->hi, exp(mean + half));
	}
	free(scratch);
	free(logm);
	return 0;
}

int stats_geomean_block_ci(const struct ratio_blocks *cases, int ncases,
			   int iters, double alpha, uint64_t seed,
			   struct interval *out)
{
	struct interval boot;
	double logsum = 0.0, v = 0.0, dfden = 0.0;
	bool t_ok = true;

	if (!out || !cases || ncases <= 0 ||
	    stats_geomean_ci(cases, ncases, iters, alpha, seed, &boot) != 0)
		return -EINVAL;
	for (int c = 0; c < ncases; c++) {
		size_t total, max_block;
		int nonempty;
		(void)blocks_check(&cases[c], &total, &max_block, &nonempty);
		double *scratch = xmalloc(max_block * sizeof(double));
		double *logm = xmalloc((size_t)nonempty * sizeof(double));
		double mean, var;
		int k = block_log_medians(&cases[c], scratch, logm);
		mean_var(logm, k, &mean, &var);
		logsum += mean;
		/* Welch-Satterthwaite over the cases' means. */
		double vc = k >= 2 ? var / k / ((double)ncases * ncases) : 0.0;
		if (k < 2)
			t_ok = false;
		else
			dfden += vc * vc / (k - 1);
		v += vc;
		free(scratch);
		free(logm);
	}
	double mean = logsum / ncases;
	out->point = exp(mean);
	out->lo = boot.lo;
	out->hi = boot.hi;
	if (t_ok && v > 0.0 && dfden > 0.0) {
		double df = v * v / dfden;
		double half = stats_t_quantile(1 - alpha / 2, df) * sqrt(v);
		out->lo = fmin(out->lo, exp(mean - half));
		out->hi = fmax(out->hi, exp(mean + half));
	}
	return 0;
}

double interval_rel_halfwidth(const struct interval *iv)
{
	/* Infinite (never "narrow enough") when the point is unusable, so a
	 * sampling loop that waits for a narrow interval keeps sampling
	 * until its budget ends instead of stopping on a NaN comparison. */
	if (!iv || !(iv->point > 0.0) || !isfinite(iv->point) ||
	    !isfinite(iv->lo) || !isfinite(iv->hi))
		return INFINITY;
	return (iv->hi - iv->lo) / (2.0 * iv->point);
}

void interval_widen_to(struct interval *iv, double rel)
{
	if (!iv || !(iv->point > 0.0) || !isfinite(iv->point) || !(rel > 0.0))
		return;
	iv->lo = fmin(iv->lo, iv->point / (1.0 + rel));
	iv->hi = fmax(iv->hi, iv->point * (1.0 + rel));
}

/*
 * stats_dist.h - the distributions and tests behind arena's A/B
 * statistics (arena/abtest.h, arena/plan.h): normal and Student t
 * distribution functions and quantiles, digamma and trigamma (for the
 * moderated variances of docs/statistics.md §8), Fisher's exact test,
 * the Benjamini-Hochberg adjustment and a distribution-free bound of a
 * median (the evaluator's clock findings, timing_gpu.c).
 *
 * Pure functions of their arguments: no state, no allocation except where
 * stated, no errno.  Accuracy: about 1e-10 relative or better in the
 * ranges the statistics use (df >= 1, probabilities in [1e-300, 1]); the
 * unit tests check them against published tables.
 */
#ifndef ARENA_STATS_DIST_H
#define ARENA_STATS_DIST_H

#include <stddef.h>

/* Standard normal distribution function P(Z <= x). */
double stats_norm_cdf(double x);
/* Its inverse: x with P(Z <= x) = p, p in (0, 1); -inf / +inf at 0 / 1,
 * NaN outside [0, 1]. */
double stats_norm_quantile(double p);

/* Student t distribution function with df > 0 degrees of freedom (df =
 * INFINITY, or above 1e8, is the normal).  NaN when df <= 0 or an argument
 * is NaN. */
double stats_t_cdf(double t, double df);
/* Its inverse, p in (0, 1); same conventions as stats_norm_quantile. */
double stats_t_quantile(double p, double df);

/* Regularized incomplete beta function I_x(a, b), a, b > 0, x in [0, 1]. */
double stats_beta_inc(double a, double b, double x);

/* Digamma psi(x) and trigamma psi'(x) for x > 0. */
double stats_digamma(double x);
double stats_trigamma(double x);
/* y > 0 with trigamma(y) = v, v > 0. */
double stats_trigamma_inverse(double v);

/* Two-sided Fisher exact test of the 2x2 table
 *     a  b      (row 1: successes, failures)
 *     c  d      (row 2)
 * p = the sum of the probabilities of the tables with the same margins
 * that are no more likely than the observed one.  1 when a margin is 0. */
double stats_fisher_exact(int a, int b, int c, int d);
/* The smallest p-value Fisher's test can give two rows of n1 and n2
 * trials, whatever the outcomes: the p-value of n1 successes against n2
 * failures.  A test that cannot reach a level is left out of a family
 * (Tarone 1990) instead of diluting it. */
double stats_fisher_min_p(int n1, int n2);

/* A lower (1 - alpha) confidence bound of the median of n independent
 * values from one continuous distribution, whatever its shape: their k-th
 * smallest, for the largest k with P(Binomial(n, 1/2) <= k - 1) <= alpha
 * (the sign test's bound); -INFINITY when even the smallest does not
 * qualify (n < 5 at alpha 0.05).  Reorders v.  Unlike a bootstrap, it does
 * not claim more than few values show: a bootstrap of 3 values puts its
 * lower 5% bound at their smallest, above the median in one case in
 * eight. */
double stats_median_lower_bound(double *v, size_t n, double alpha);

/* Benjamini-Hochberg adjusted p-values ("q-values"): q[i] = min over the
 * p-values ranked at or above p[i] of p * m / rank, capped at 1.  Rejecting
 * every hypothesis with q <= level controls the false discovery rate at
 * level for independent (or positively dependent) tests.  NaN p-values
 * count as 1.  Allocates scratch space for m indices. */
void stats_bh_adjust(const double *p, int m, double *q);

#endif /* ARENA_STATS_DIST_H */

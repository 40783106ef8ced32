/*
 * stats_dist.c - distribution functions and tests (arena/stats_dist.h).
 *
 * Written from the textbook definitions rather than copied from a library
 * (libm has erfc and lgamma, nothing more):
 *   - the normal quantile is Acklam's rational approximation followed by
 *     one Halley step on erfc, which brings it to full double precision;
 *   - the t distribution goes through the regularized incomplete beta
 *     function, I_x(a, b), evaluated by its continued fraction (modified
 *     Lentz), on the side of x where the fraction converges fast;
 *   - the t quantile is a Newton iteration on that distribution function,
 *     kept inside a bracket, so it cannot run away in the tails;
 *   - digamma and trigamma use the recurrence up to x >= 10 and then their
 *     asymptotic (Bernoulli) series, good to about 1e-14 there;
 *   - Fisher's test sums hypergeometric probabilities computed in logs.
 * lgamma_r is used instead of lgamma: lgamma writes the global signgam,
 * and reports may be rendered from several worker threads.
 */
#include "arena/stats_dist.h"

#include <math.h>
#include <stdlib.h>

#include "arena/stats.h"
#include "arena/util.h"

static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double stats_norm_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01,
				    2.209460984245205e+02,
				    -2.759285104469687e+02,
				    1.383577518672690e+02,
				    -3.066479806614716e+01,
				    2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01,
				    1.615858368580409e+02,
				    -1.556989798598866e+02,
				    6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03,
				    -3.223964580411365e-01,
				    -2.400758277161838e+00,
				    -2.549732539343734e+00,
				    4.374664141464968e+00,
				    2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03,
				    3.224671290700398e-01,
				    2.445134137142996e+00,
				    3.754408661907416e+00 };
	const double plow = 0.02425;
	double q, r, x;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p < plow || p > 1 - plow) {
		q = sqrt(-2 * log(p < plow ? p : 1 - p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
			     q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
		if (p > 1 - plow)
			x = -x;
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
			     r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) *
			     r + 1);
	}
	/* One Halley step on the exact distribution function.  In the
	 * upper tail the error is computed on the lower tail of -x, where
	 * erfc keeps its precision. */
	double e, u;
	if (p > 0.5)
		e = -(stats_norm_cdf(-x) - (1 - p));
	else
		e = stats_norm_cdf(x) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

/* The continued fraction of I_x(a, b), modified Lentz. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));

		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_beta_inc(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || isnan(x) || x < 0 || x > 1)
		return NAN;
	if (x == 0 || x == 1)
		return x;
	front = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (df > 1e8)
		return stats_norm_cdf(t);
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(T > |t|) = I_{df/(df+t^2)}(df/2, 1/2) / 2, computed directly so
	 * that small tail probabilities keep their precision. */
	tail = 0.5 * stats_beta_inc(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo, hi, x;

	if (isnan(p) || p < 0 || p > 1 || isnan(df) || !(df > 0))
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (df > 1e8)
		return stats_norm_quantile(p);
	if (p > 0.5)
		return -stats_t_quantile(1 - p, df);
	if (p == 0.5)
		return 0;
	/* p < 0.5: the root is negative.  Bracket it, then Newton steps that
	 * fall outside the bracket are replaced by bisection. */
	hi = 0;
	lo = -1;
	while (stats_t_cdf(lo, df) > p && lo > -1e300)
		lo *= 2;
	x = stats_norm_quantile(p);
	if (!(x > lo && x < hi))
		x = (lo + hi) / 2;
	double lpdf0 = lgam((df + 1) / 2) - lgam(df / 2) - 0.5 * log(df * M_PI);
	for (int it = 0; it < 200; it++) {
		double f = stats_t_cdf(x, df) - p;
		double pdf = exp(lpdf0 - (df + 1) / 2 * log1p(x * x / df));
		double nx;

		if (f > 0)
			hi = x;
		else
			lo = x;
		nx = pdf > 0 ? x - f / pdf : NAN;
		if (!(nx > lo && nx < hi))
			nx = (lo + hi) / 2;
		if (fabs(nx - x) <= 1e-13 * fmax(1, fabs(x)))
			return nx;
		x = nx;
	}
	return x;
}

double stats_digamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	while (x < 10) {
		r -= 1 / x;
		x += 1;
	}
	f = 1 / (x * x);
	return r + log(x) - 0.5 / x +
	       f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 +
	       f * (1.0 / 240 + f * (-1.0 / 132)))));
}

double stats_trigamma(double x)
{
	double r = 0, f;

	if (!(x > 0))
		return NAN;
	while (x < 10) {
		r += 1 / (x * x);
		x += 1;
	}
	f = 1 / (x * x);
	return r + 1 / x + f / 2 +
	       f / x * (1.0 / 6 + f * (-1.0 / 30 + f * (1.0 / 42 +
	       f * (-1.0 / 30 + f * 5.0 / 66))));
}

double stats_trigamma_inverse(double v)
{
	double lo = 1e-8, hi = 1;

	if (!(v > 0) || isinf(v))
		return NAN;
	/* trigamma decreases from +inf (at 0) to 0 (at +inf). */
	while (stats_trigamma(hi) > v && hi < 1e300)
		hi *= 2;
	while (stats_trigamma(lo) < v && lo > 1e-300)
		lo /= 2;
	for (int it = 0; it < 300; it++) {
		double mid = sqrt(lo * hi);

		if (stats_trigamma(mid) > v)
			lo = mid;
		else
			hi = mid;
		if (hi / lo - 1 < 1e-14)
			break;
	}
	return sqrt(lo * hi);
}

static double lchoose(int n, int k)
{
	return lgam(n + 1.0) - lgam(k + 1.0) - lgam(n - k + 1.0);
}

double stats_fisher_exact(int a, int b, int c, int d)
{
	int n1 = a + b, n2 = c + d, k = a + c, n = n1 + n2;
	int xmin, xmax;
	double lp_obs, p = 0, total = 0;

	if (a < 0 || b < 0 || c < 0 || d < 0)
		return NAN;
	if (n1 == 0 || n2 == 0 || k == 0 || k == n)
		return 1;
	xmin = k - n2 > 0 ? k - n2 : 0;
	xmax = k < n1 ? k : n1;
	lp_obs = lchoose(n1, a) + lchoose(n2, k - a) - lchoose(n, k);
	for (int x = xmin; x <= xmax; x++) {
		double lp = lchoose(n1, x) + lchoose(n2, k - x) - lchoose(n, k);
		double px = exp(lp);

		total += px;
		/* Ties within rounding count as "as extreme". */
		if (lp <= lp_obs + 1e-7)
			p += px;
	}
	p /= total;
	return p > 1 ? 1 : p;
}

double stats_fisher_min_p(int n1, int n2)
{
	return stats_fisher_exact(n1, 0, 0, n2);
}

struct ranked_p {
	double p;
	int i;
};

static int cmp_ranked_p(const void *x, const void *y)
{
	const struct ranked_p *a = x, *b = y;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return a->i - b->i;
}

void stats_bh_adjust(const double *p, int m, double *q)
{
	struct ranked_p *r;
	double run = 1;

	if (m <= 0)
		return;
	r = xcalloc((size_t)m, sizeof(*r));
	for (int i = 0; i < m; i++) {
		r[i].p = isnan(p[i]) ? 1 : p[i];
		r[i].i = i;
	}
	qsort(r, (size_t)m, sizeof(*r), cmp_ranked_p);
	for (int k = m - 1; k >= 0; k--) {
		double v = r[k].p * m / (k + 1);

		if (v < run)
			run = v;
		q[r[k].i] = run;
	}
	free(r);
}

double stats_median_lower_bound(double *v, size_t n, double alpha)
{
	double ln_half_n = -(double)n * log(2.0), cdf = 0;
	size_t k = 0;

	/* The k-th smallest lies above the median only when fewer than k
	 * values do not: P(Binomial(n, 1/2) <= k - 1), summed in logs term
	 * by term as k grows. */
	while (k < n) {
		cdf += exp(lgam((double)n + 1) - lgam((double)k + 1) -
			   lgam((double)(n - k) + 1) + ln_half_n);
		if (cdf > alpha)
			break;
		k++;
	}
	if (k == 0)
		return -INFINITY;
	return stats_kth_inplace(v, n, k - 1);
}

/*
 * test_gpu_gen.cpp - the device-side input generator of GPU timing
 * (engine/runner/gpu/gpu_gen.h), run here on the host emulation: the same
 * element function the GPU kernel runs.  C++ without cmocka (the header is
 * C++); exits non-zero on the first failure and says which.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "plain_check.h"
#include "gpu/gpu_gen.h"

static struct gen_spec spec(int dist, double a, double b, long long lo,
			    long long hi, unsigned long long seed)
{
	struct gen_spec g;

	memset(&g, 0, sizeof(g));
	g.dist = dist;
	g.a = a;
	g.b = b;
	g.lo = lo;
	g.hi = hi;
	g.seed = seed;
	return g;
}

/* The extremes of the bits a normal is made from stay finite: a uniform
 * of exactly 0 once made log(0) = -inf, an infinite input, and NaN
 * outputs that an honest kernel could not match. */
static void test_normal_extremes_are_finite(void)
{
	const unsigned long long bits[] = { 0, ~0ull, 1ull << 63,
					    0xffffff0000000000ull,
					    0x000000ffffffffffull };

	for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++) {
		float z = gen_normal(bits[k]);
		CHECK(isfinite(z) && fabsf(z) < 6.0f,
		      "gen_normal(%#llx) = %g", bits[k], (double)z);
	}
}

static void test_normal_moments(void)
{
	const size_t n = (size_t)1 << 22;
	std::vector<float> v(n);
	struct gen_spec g = spec(GEN_NORMAL, 2.0, 3.0, 0, 0, 42);
	double sum = 0, sq = 0;

	gen_fill(v.data(), ARENA_F32, n, &g, 0, NULL);
	for (float x : v) {
		CHECK(isfinite(x), "non-finite normal %g", (double)x);
		if (!isfinite(x))
			return;
		sum += x;
		sq += (double)x * x;
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);
	CHECK(fabs(mean - 2.0) < 0.01, "mean %g, want 2", mean);
	CHECK(fabs(sd - 3.0) < 0.01, "sd %g, want 3", sd);
}

static void test_randint_is_inclusive_and_in_range(void)
{
	const size_t n = 100000;
	std::vector<int32_t> v(n);
	struct gen_spec g = spec(GEN_RANDINT, 0, 0, -3, 4, 7);
	int seen[8] = { 0 };

	gen_fill(v.data(), ARENA_I32, n, &g, 3, NULL);
	for (int32_t x : v) {
		CHECK(x >= -3 && x <= 4, "randint %d outside [-3, 4]", x);
		if (x >= -3 && x <= 4)
			seen[x + 3]++;
	}
	for (int k = 0; k < 8; k++)
		CHECK(seen[k] > n / 8 * 0.9, "value %d drawn %d times", k - 3,
		      seen[k]);
}

static void test_uniform_in_range(void)
{
	const size_t n = 100000;
	std::vector<double> v(n);
	struct gen_spec g = spec(GEN_UNIFORM, -1.0, 0.5, 0, 0, 9);

	gen_fill(v.data(), ARENA_F64, n, &g, 0, NULL);
	for (double x : v)
		CHECK(x >= -1.0 && x < 0.5, "uniform %g outside [-1, 0.5)", x);
}

/* Both runners draw the same values from the same seed; another set or
 * another pair's seed gives other values. */
static void test_same_seed_same_values_other_set_other_values(void)
{
	const size_t n = 4096;
	std::vector<float> a(n), b(n), c(n), d(n);
	struct gen_spec g = spec(GEN_NORMAL, 0, 1, 0, 0, 1234);
	struct gen_spec h = spec(GEN_NORMAL, 0, 1, 0, 0, 1235);

	gen_fill(a.data(), ARENA_F32, n, &g, 0, NULL);
	gen_fill(b.data(), ARENA_F32, n, &g, 0, NULL);
	gen_fill(c.data(), ARENA_F32, n, &g, 1, NULL);
	gen_fill(d.data(), ARENA_F32, n, &h, 0, NULL);
	CHECK(memcmp(a.data(), b.data(), n * sizeof(float)) == 0,
	      "same seed and set gave different values");
	size_t same_c = 0, same_d = 0;
	for (size_t i = 0; i < n; i++) {
		same_c += a[i] == c[i];
		same_d += a[i] == d[i];
	}
	CHECK(same_c < 4 && same_d < 4, "other set or seed repeated %zu/%zu "
	      "values", same_c, same_d);
}

static void test_dtype_conversions(void)
{
	uint16_t h[1], bf[1];
	int8_t i8[1];
	uint8_t u8[1];
	struct gen_spec one = spec(GEN_ONES, 0, 0, 0, 0, 1);
	struct gen_spec big = spec(GEN_RANDINT, 0, 0, 1000, 1000, 1);
	struct gen_spec neg = spec(GEN_RANDINT, 0, 0, -1000, -1000, 1);

	gen_fill(h, ARENA_F16, 1, &one, 0, NULL);
	gen_fill(bf, ARENA_BF16, 1, &one, 0, NULL);
	CHECK(h[0] == 0x3c00, "f16 one is %#x", h[0]);
	CHECK(bf[0] == 0x3f80, "bf16 one is %#x", bf[0]);
	CHECK(arena_float_to_half(65520.0f) == 0x7c00, "f16 overflow is %#x",
	      arena_float_to_half(65520.0f));
	gen_fill(i8, ARENA_I8, 1, &big, 0, NULL);
	gen_fill(u8, ARENA_U8, 1, &neg, 0, NULL);
	CHECK(i8[0] == 127 && u8[0] == 0, "clamped to %d and %d", i8[0], u8[0]);
}

int main(void)
{
	test_normal_extremes_are_finite();
	test_normal_moments();
	test_randint_is_inclusive_and_in_range();
	test_uniform_in_range();
	test_same_seed_same_values_other_set_other_values();
	test_dtype_conversions();
	return plain_check_exit("test_gpu_gen");
}

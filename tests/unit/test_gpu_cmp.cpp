/*
 * test_gpu_cmp.cpp - the keeper's comparison of lent sets
 * (engine/runner/gpu/gpu_cmp.h), run here on the host emulation: the same
 * element rule the GPU kernel runs, held to array_compare.c's (NaN only
 * for NaN, the same infinity, finite within atol + rtol |want|, integers
 * and inputs bit for bit), and the count and first failing (set, index)
 * over several sets.  C++ without cmocka (the header is C++); exits
 * non-zero on the first failure and says which.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "plain_check.h"
#include "gpu/gpu_cmp.h"

/* Whether got fails against want as f32 at atol = rtol = 1e-3. */
static bool f32_bad(float got, float want, int kind = CMP_TOL)
{
	return cmp_element_bad(kind, ARENA_F32, 4, (const unsigned char *)&got,
			       (const unsigned char *)&want, 0, 1e-3, 1e-3);
}

static bool f16_bad(uint16_t got, uint16_t want, double atol)
{
	return cmp_element_bad(CMP_TOL, ARENA_F16, 2,
			       (const unsigned char *)&got,
			       (const unsigned char *)&want, 0, atol, 0);
}

static void test_float_rule(void)
{
	float inf = INFINITY, nan = NAN;

	CHECK(!f32_bad(1.0f, 1.0f), "equal values pass");
	CHECK(!f32_bad(1.0019f, 1.0f), "within atol + rtol |want| passes");
	CHECK(f32_bad(1.0021f, 1.0f), "beyond atol + rtol |want| fails");
	CHECK(!f32_bad(nan, nan), "NaN where NaN is wanted passes");
	CHECK(f32_bad(1.0f, nan), "a number where NaN is wanted fails");
	CHECK(f32_bad(nan, 1.0f), "NaN where a number is wanted fails");
	CHECK(!f32_bad(inf, inf), "the same infinity passes");
	CHECK(f32_bad(-inf, inf), "the other infinity fails");
	CHECK(f32_bad(3e38f, inf), "a finite value where inf is wanted fails");
	CHECK(f32_bad(inf, 1.0f), "inf where a number is wanted fails");
	CHECK(!f32_bad(-0.0f, 0.0f), "-0 against 0 passes within tolerance");
	CHECK(f32_bad(-0.0f, 0.0f, CMP_BITS), "-0 against 0 fails bit for bit");
	float q1 = nan, q2;
	uint32_t bits;
	memcpy(&bits, &q1, 4);
	bits ^= 1;
	memcpy(&q2, &bits, 4);
	CHECK(f32_bad(q1, q2, CMP_BITS), "NaN payloads differ bit for bit");
	CHECK(!f32_bad(q1, q1, CMP_BITS), "the same bits pass");
}

static void test_narrow_types(void)
{
	CHECK(arena_half_to_float(0x3c00) == 1.0f, "f16 1.0");
	CHECK(arena_half_to_float(0xc000) == -2.0f, "f16 -2.0");
	CHECK(arena_half_to_float(0x0001) == 5.9604644775390625e-8f,
	      "f16 subnormal");
	CHECK(arena_half_to_float(0x7c00) == INFINITY, "f16 inf");
	CHECK(isnan(arena_half_to_float(0x7e00)), "f16 NaN");
	CHECK(arena_half_to_float(0x3555) > 0.333f &&
		      arena_half_to_float(0x3555) < 0.3334f,
	      "f16 1/3");
	CHECK(!f16_bad(0x3c01, 0x3c00, 1e-3), "f16 one ulp at 1 within 1e-3");
	CHECK(f16_bad(0x3c02, 0x3c00, 1e-3), "f16 two ulps at 1 beyond 1e-3");
	uint16_t one = 0x3f80, two = 0x4000;
	CHECK(cmp_value(ARENA_BF16, (const unsigned char *)&one, 0) == 1.0,
	      "bf16 1.0");
	CHECK(cmp_value(ARENA_BF16, (const unsigned char *)&two, 0) == 2.0,
	      "bf16 2.0");
	int32_t a = 5, b = 6;
	CHECK(!cmp_element_bad(CMP_TOL, ARENA_I32, 4, (const unsigned char *)&a,
			       (const unsigned char *)&a, 0, 10, 10),
	      "equal integers pass");
	CHECK(cmp_element_bad(CMP_TOL, ARENA_I32, 4, (const unsigned char *)&a,
			      (const unsigned char *)&b, 0, 10, 10),
	      "integers differing by less than atol still fail");
	double d1 = 1.0, d2 = 1.0 + 1e-12;
	CHECK(!cmp_element_bad(CMP_TOL, ARENA_F64, 8,
			       (const unsigned char *)&d2,
			       (const unsigned char *)&d1, 0, 1e-9, 0),
	      "f64 within tolerance");
}

/* Three sets of 16 floats: set 1 wrong at 7 and 9, set 2 at 0. */
static void test_count_and_first(void)
{
	std::vector<float> got(48, 1.0f), want(48, 1.0f);
	uintptr_t tab[6];
	unsigned long long res[2] = { 0, CMP_NONE };
	struct cmp_job j = { CMP_TOL, ARENA_F32, 4, 16, 1e-5, 1e-5 };

	got[16 + 7] = 2.0f;
	got[16 + 9] = 2.0f;
	got[32 + 0] = 2.0f;
	for (int k = 0; k < 3; k++) {
		tab[2 * k] = (uintptr_t)&got[16 * k];
		tab[2 * k + 1] = (uintptr_t)&want[16 * k];
	}
	CHECK(cmp_enqueue(&j, 3, NULL, tab, res, NULL) == GPU(Success),
	      "enqueued");
	CHECK(res[0] == 3, "3 elements fail, got %llu", res[0]);
	CHECK(res[1] == CMP_KEY(1, 7), "the first is set 1 element 7, got %llx",
	      res[1]);
}

int main(void)
{
	test_float_rule();
	test_narrow_types();
	test_count_and_first();
	return plain_check_exit("test_gpu_cmp");
}

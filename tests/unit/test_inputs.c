/*
 * test_inputs.c - the evaluator's data plumbing: argument layout, input
 * generation (fresh and pooled), output poison, 16-bit float conversions
 * and the element-wise output comparison with its messages.
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

#include "arena/stats.h"
#include "arena/task.h"
#include "eval_internal.h"

#define F32_DRAW_SHA256_X \
	"73de151e3d0fffd018c94e71bb97923330a7b9e4a07141c510e9e5e2b2ead192"
#define F32_DRAW_SHA256_V \
	"c998f49f210428e3fc71ec7620e2df10927809083066039dfb60e499208897e3"

static const char *const config =
	"schema: arena/1\n"
	"description: test task.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n, bins]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
	"    - {name: u, dtype: f64, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: 2, high: 3}}\n"
	"    - {name: k, dtype: i32, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"0\", high: \"bins-1\"}}\n"
	"    - {name: h, dtype: f16, shape: [2, n], io: in}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"    - {name: c, dtype: i64, shape: [bins], io: inout}\n"
	"cases:\n"
	"  - {id: small, n: 1000, bins: 7}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5}\n";

/* The task of config text cfg, named id. */
static struct task *load_config(const char *id, const char *cfg)
{
	struct task *t = NULL;
	struct errbuf err;

	errbuf_init(&err);
	if (task_parse(id, NULL, cfg, strlen(cfg), NULL, 0, &t, &err) != 0)
		fail_msg("task_parse %s: %s", id, errbuf_str(&err));
	return t;
}

static struct task *load(void)
{
	return load_config("test/inputs", config);
}

static void test_layout_places_arguments_aligned_and_disjoint(void **state)
{
	struct task *t = load();
	struct case_layout l;
	struct errbuf err;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	assert_int_equal(l.nargs, 6);
	assert_int_equal(l.numel[3], 2000);
	assert_int_equal(l.bytes[3], 4000);
	for (int a = 0; a < l.nargs; a++) {
		assert_int_equal(l.offset[a] % RP_ALIGN, 0);
		assert_true(l.offset[a] + l.bytes[a] <= l.shm_size);
		if (a > 0)
			assert_true(l.offset[a] >=
				    l.offset[a - 1] + l.bytes[a - 1]);
	}
	assert_int_equal(l.lo[2], 0);
	assert_int_equal(l.hi[2], 6);
	/* "<size> <nargs> <nparams> <params...> then per arg offset dtype
	 * rank dims". */
	char head[64];
	snprintf(head, sizeof(head), "%zu 6 2 1000 7 0 1 1 1000 ", l.shm_size);
	assert_true(strncmp(l.proto, head, strlen(head)) == 0);
	layout_release(&l);
	task_free(t);
}

static void test_inputs_are_deterministic_in_the_seed(void **state)
{
	struct task *t = load();
	struct case_layout l;
	struct errbuf err;
	struct rng r1, r2, r3;
	float a[1000], b[1000], c[1000];

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	rng_seed(&r1, 5);
	rng_seed(&r2, 5);
	rng_seed(&r3, 6);
	inputs_fill(t, &l, 0, &r1, a);
	inputs_fill(t, &l, 0, &r2, b);
	inputs_fill(t, &l, 0, &r3, c);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	layout_release(&l);
	task_free(t);
}

static void test_inputs_respect_their_distributions(void **state)
{
	struct task *t = load();
	struct case_layout l;
	struct errbuf err;
	struct rng r;
	double u[1000];
	int32_t k[1000];
	uint16_t h[2000];
	bool seen_lo = false, seen_hi = false;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	rng_seed(&r, 1);
	inputs_fill(t, &l, 1, &r, u);
	inputs_fill(t, &l, 2, &r, k);
	inputs_fill(t, &l, 3, &r, h);
	for (int i = 0; i < 1000; i++) {
		assert_true(u[i] >= 2 && u[i] < 3);
		assert_true(k[i] >= 0 && k[i] <= 6);
		seen_lo |= k[i] == 0;
		seen_hi |= k[i] == 6;
		assert_true(isfinite(half_to_float(h[i])));
	}
	assert_true(seen_lo && seen_hi);
	layout_release(&l);
	task_free(t);
}

static void test_pool_draws_are_fresh_and_in_range(void **state)
{
	struct task *t = load();
	struct case_layout l;
	struct input_pool p;
	struct errbuf err;
	struct rng r;
	float x1[1000], x2[1000];
	double u[1000];
	int32_t k[1000];
	int same = 0;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	rng_seed(&r, 9);
	pool_build(t, &l, &r, &p);
	pool_draw(t, &l, &p, 0, &r, x1);
	pool_draw(t, &l, &p, 0, &r, x2);
	for (int i = 0; i < 1000; i++)
		same += x1[i] == x2[i];
	/* Each element is new with high probability (window + reflection). */
	assert_true(same < 50);
	for (int rep = 0; rep < 20; rep++) {
		pool_draw(t, &l, &p, 1, &r, u);
		pool_draw(t, &l, &p, 2, &r, k);
		for (int i = 0; i < 1000; i++) {
			assert_true(u[i] >= 2 && u[i] < 3);
			assert_true(k[i] >= 0 && k[i] <= 6);
		}
	}
	pool_release(&p);
	layout_release(&l);
	task_free(t);
}

/* f32 pool draws, bit for bit what the scalar loop drew before the SSE2
 * one (draw_f32_word): SHA-256 of three draws per argument, recorded
 * from the scalar code at commit 5773b85 for this seed.  n = 1000 covers
 * 15 whole rng words and a 40-element tail; x is normal (no high end),
 * v uniform, so its reflections are compared with a finite high end. */
static const char *const f32_config =
	"schema: arena/1\n"
	"description: test task.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
	"    - {name: v, dtype: f32, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: -1, high: 1.5}}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"cases:\n"
	"  - {id: small, n: 1000}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5}\n";

static void test_f32_pool_draws_are_unchanged(void **state)
{
	struct task *t = load_config("test/f32", f32_config);
	struct case_layout l;
	struct input_pool p;
	struct errbuf err;
	struct rng r;
	static float x[2][3][1000];	/* per argument, three draws */
	char hx[65], hv[65];

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	rng_seed(&r, 2026);
	pool_build(t, &l, &r, &p);
	for (int rep = 0; rep < 3; rep++)
		for (int a = 0; a < 2; a++)
			pool_draw(t, &l, &p, a, &r, x[a][rep]);
	sha256_hex(x[0], sizeof(x[0]), hx);
	sha256_hex(x[1], sizeof(x[1]), hv);
	if (strcmp(hx, F32_DRAW_SHA256_X) || strcmp(hv, F32_DRAW_SHA256_V))
		fail_msg("f32 draws changed: x %s, v %s", hx, hv);
	pool_release(&p);
	layout_release(&l);
	task_free(t);
}

/* Every dtype and distribution the task schema offers, fresh (inputs_fill)
 * and pooled (pool_build, then three pool_draw), bit for bit what the
 * generic loops drew before inputs.c got a loop per dtype: SHA-256 per
 * argument of its fresh values and three draws, recorded at commit
 * b04963a for this seed.  n = 1001: an odd count (the last normal of a
 * pair), 15 whole rng words of 64 and a tail.  The integer ranges are
 * their dtypes' whole ranges. */
static const char *const dtypes_config =
	"schema: arena/1\n"
	"description: test task.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: f32n, dtype: f32, shape: [n], io: in,\n"
	"       init: {dist: normal, mean: 1, std: 3}}\n"
	"    - {name: f64n, dtype: f64, shape: [n], io: in, init: normal}\n"
	"    - {name: f16n, dtype: f16, shape: [n], io: in, init: normal}\n"
	"    - {name: bf16n, dtype: bf16, shape: [n], io: in,\n"
	"       init: {dist: normal, mean: 0, std: 300}}\n"
	"    - {name: f32u, dtype: f32, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: -2, high: 0.5}}\n"
	"    - {name: f64u, dtype: f64, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: 2, high: 3}}\n"
	"    - {name: bf16u, dtype: bf16, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: -1, high: 70000}}\n"
	"    - {name: f16u, dtype: f16, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: 0, high: 70000}}\n"
	"    - {name: i32r, dtype: i32, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"-2147483648\", high: \"2147483647\"}}\n"
	"    - {name: u32r, dtype: u32, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"0\", high: \"4294967295\"}}\n"
	"    - {name: u8r, dtype: u8, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"0\", high: \"255\"}}\n"
	"    - {name: i8r, dtype: i8, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"-128\", high: \"127\"}}\n"
	"    - {name: i64r, dtype: i64, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"-9000000000000000000\",\n"
	"              high: \"9000000000000000000\"}}\n"
	"    - {name: f32r, dtype: f32, shape: [n], io: in,\n"
	"       init: {dist: randint, low: \"-100\", high: \"100\"}}\n"
	"    - {name: f32o, dtype: f32, shape: [n], io: in, init: ones}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"cases:\n"
	"  - {id: small, n: 1001}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5}\n";

static const char *const dtypes_sha256[] = {
	"b4ccd99464745c5a25308db7171bd5349aa8a805371713d995b9e15cbc9a0dbb", /* f32n */
	"853550e32518cb877ad0f644262992007547384d9162d999dc6d57a0e2ae51d7", /* f64n */
	"5c8f2985e63be2b5a075af1b08f96dfe999273e0bce207dfc1a3cf7dfad8c27a", /* f16n */
	"b3a8cb1275577949c4ddaacda2856d796e1d046d33b20521c46cc4da181f90eb", /* bf16n */
	"5a3b3029c4a0e6992a8983f7874b5155b17074834ede1486dd6b75ab68828977", /* f32u */
	"56066f7b93e235f11877a8525b03763a4a2c7425698487d5ddf95d7641d42cfa", /* f64u */
	"5a172038f71f73b58ffb4dbd805d25fe816f58ec71ff6953d22b4ddf3b5e6845", /* bf16u */
	"441dffc82ebd095d66bc654386932ff28f3591b4f26c29d8c3eae6f6d342e677", /* f16u */
	"431daf0a560cb760b409115867703a50a79014d34a13246d09c06ed658f22dcc", /* i32r */
	"067660d69447c77f31cc05e22fec6965d4675a34c35f417521aae1e233552423", /* u32r */
	"ceb8c168a21be35c0af3c3c39e67ad3b1bf8701d08d758dcde7c7485e9a42b25", /* u8r */
	"533760d38970d9a716f5aa57b2c1eb45b772fe78425721b3370e910fb7819983", /* i8r */
	"6d8fe9bdff094d32c3707c651cc06a88a4991d9039c5b38e071124c884780a53", /* i64r */
	"3fd16e6889a9ba359d68bacfdb15ada5b226b73f9c242667f0e86205328b1eeb", /* f32r */
	"21b13971aa019e19807de76a53dab2a1015a73bace385d2397764b06f2b33bc7", /* f32o */
};

static void test_inputs_of_every_dtype_are_unchanged(void **state)
{
	struct task *t = load_config("test/dtypes", dtypes_config);
	struct case_layout l;
	struct input_pool p;
	struct errbuf err;
	struct rng r;
	static unsigned char v[4][1001 * 8];	/* fresh, then 3 draws */
	int nargs = (int)ARRAY_SIZE(dtypes_sha256), wrong = 0;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(t->nargs, nargs + 1);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	rng_seed(&r, 20261203);
	for (int a = 0; a < nargs; a++)
		inputs_fill(t, &l, a, &r, v[0]);	/* the stream moves on */
	pool_build(t, &l, &r, &p);
	for (int a = 0; a < nargs; a++) {
		char hex[65];
		memset(v, 0, sizeof(v));
		rng_seed(&r, 20261203 + (uint64_t)a);
		inputs_fill(t, &l, a, &r, v[0]);
		for (int rep = 1; rep < 4; rep++)
			pool_draw(t, &l, &p, a, &r, v[rep]);
		sha256_hex(v, sizeof(v), hex);
		if (strcmp(hex, dtypes_sha256[a])) {
			fprintf(stderr, "\t\"%s\", /* %s */\n", hex,
				t->args[a].name);
			wrong++;
		}
	}
	if (wrong)
		fail_msg("the values of %d arguments changed (their hashes "
			 "above)", wrong);
	pool_release(&p);
	layout_release(&l);
	task_free(t);
}

static void test_poison_patterns_differ_and_are_recognised(void **state)
{
	static const arena_dtype all[] = { ARENA_F32, ARENA_F64, ARENA_F16,
					   ARENA_BF16, ARENA_I32, ARENA_I64,
					   ARENA_U8, ARENA_U32, ARENA_I8 };
	unsigned char a[64], b[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		size_t sz = dtype_size(all[i]);
		poison_fill(all[i], a, 4, 0);
		poison_fill(all[i], b, 4, 1);
		assert_memory_not_equal(a, b, sz);
		assert_true(poison_is(all[i], a + sz, 0));
		assert_false(poison_is(all[i], a + sz, 1));
		assert_true(poison_is(all[i], b, 1));
		if (dtype_is_float(all[i]))
			assert_true(isnan(elem_as_double(all[i], a, 0)));
	}
}

/* poison_find finds what an element-by-element poison_is scan finds, in
 * every dtype and pattern, at block edges and from any start; the other
 * pattern's poison and values one bit away are never taken for it. */
static void test_poison_find_agrees_with_poison_is(void **state)
{
	static const arena_dtype all[] = { ARENA_F32, ARENA_F64, ARENA_F16,
					   ARENA_BF16, ARENA_I32, ARENA_I64,
					   ARENA_U8, ARENA_U32, ARENA_I8 };
	static const int64_t at[] = { 0, 1, 2047, 2048, 2049, 4095, 7000, 9999 };
	const int64_t n = 10000;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		size_t sz = dtype_size(all[i]);
		unsigned char *buf = xmalloc((size_t)n * sz);
		uint64_t bits;
		for (int pattern = 0; pattern < 2; pattern++) {
			int w = poison_bits(all[i], pattern, &bits);
			uint64_t near = bits ^ 1, other;
			(void)poison_bits(all[i], !pattern, &other);
			assert_int_equal(w, (int)sz);
			/* Neighbours and the other pattern everywhere... */
			for (int64_t k = 0; k < n; k++)
				memcpy(buf + k * (int64_t)sz,
				       k % 3 ? (void *)&near : (void *)&other, sz);
			if (sz > 1)
				assert_int_equal(poison_find(all[i], buf, 0, n,
							     pattern),
						 n);
			/* ...and this pattern's poison at the edges. */
			for (size_t j = 0; j < ARRAY_SIZE(at); j++)
				memcpy(buf + at[j] * (int64_t)sz, &bits, sz);
			for (int64_t from = 0; from <= n; from += 97) {
				int64_t want = from;
				while (want < n &&
				       !poison_is(all[i], buf + want * (int64_t)sz,
						  pattern))
					want++;
				assert_int_equal(poison_find(all[i], buf, from,
							     n, pattern),
						 want);
			}
			for (size_t j = 0; j < ARRAY_SIZE(at); j++)
				assert_int_equal(poison_find(all[i], buf, at[j],
							     n, pattern),
						 at[j]);
		}
		free(buf);
	}
	/* Large enough to be shared by threads: hits in two chunks, the
	 * later chunk's found first by nobody. */
	const int64_t big = ((int64_t)5 << 20) + 3;
	uint32_t *f = xcalloc((size_t)big, sizeof(*f));
	uint64_t pb;
	(void)poison_bits(ARENA_F32, 1, &pb);
	assert_int_equal(poison_find(ARENA_F32, f, 0, big, 1), big);
	f[big - 1] = (uint32_t)pb;
	f[3145735] = (uint32_t)pb;
	assert_int_equal(poison_find(ARENA_F32, f, 0, big, 1), 3145735);
	assert_int_equal(poison_find(ARENA_F32, f, 3145736, big, 1), big - 1);
	assert_int_equal(poison_find(ARENA_F32, f, 0, big, 0), big);
	free(f);
}

static void test_half_and_bf16_round_trip(void **state)
{
	/* Exactly representable in binary16: normals, the largest, the
	 * smallest normal and the smallest subnormal. */
	static const float vals[] = { 0.0f, 1.0f, -2.5f, 65504.0f, 0x1p-14f,
				      0x1p-24f, 1025.0f };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++)
		assert_true(half_to_float(float_to_half(vals[i])) == vals[i]);
	assert_true(isinf(half_to_float(float_to_half(1e6f))));
	/* Ties round to even: 1024.5 lies between 1024 and 1025. */
	assert_true(half_to_float(float_to_half(1024.5f)) == 1024.0f);
	assert_true(isnan(half_to_float(float_to_half(NAN))));
	assert_true(bf16_to_float(float_to_bf16(1.0f)) == 1.0f);
	assert_true(bf16_to_float(float_to_bf16(-3.0f)) == -3.0f);
	/* Round to nearest even: 1 + 2^-8 lies halfway, rounds down. */
	assert_true(bf16_to_float(float_to_bf16(1.00390625f)) == 1.0f);
	assert_true(isnan(bf16_to_float(float_to_bf16(NAN))));
}

static void test_compare_accepts_within_tolerance(void **state)
{
	float got[3] = { 1.0f, 2.00001f, -3.0f }, want[3] = { 1.0f, 2.0f, -3.0f };
	struct cmp_result r;

	(void)state;
	compare_arrays(ARENA_F32, got, want, 3, 1e-5, 1e-5, 0, &r);
	assert_true(r.ok);
	assert_true(r.max_abs_err > 0 && r.max_abs_err < 2e-5);
}

static void test_compare_names_the_first_wrong_element(void **state)
{
	float got[4] = { 1, 2.5f, 3, 9 }, want[4] = { 1, 2, 3, 4 };
	struct cmp_result r;

	(void)state;
	compare_arrays(ARENA_F32, got, want, 4, 1e-5, 1e-5, 0, &r);
	assert_false(r.ok);
	assert_int_equal(r.first_bad, 1);
	assert_int_equal(r.nbad, 2);
	assert_non_null(strstr(r.detail, "got 2.5, expected 2"));
	assert_non_null(strstr(r.detail, "2 of 4 elements are wrong"));
}

static void test_compare_reports_unwritten_outputs(void **state)
{
	float got[2], want[2] = { 1, 2 };
	struct cmp_result r;

	(void)state;
	poison_fill(ARENA_F32, got, 2, 1);
	got[0] = 1;
	compare_arrays(ARENA_F32, got, want, 2, 1e-5, 1e-5, 1, &r);
	assert_false(r.ok);
	assert_true(r.unwritten);
	assert_non_null(strstr(r.detail, "never written"));
}

static void test_compare_treats_nan_and_inf_strictly(void **state)
{
	double got[3] = { NAN, 1.0, INFINITY }, want[3] = { 1.0, NAN, INFINITY };
	struct cmp_result r;

	(void)state;
	/* NaN where the reference is finite fails ... */
	compare_arrays(ARENA_F64, got, want, 1, 1, 1, -1, &r);
	assert_false(r.ok);
	/* ... a NaN reference is not a wildcard ... */
	compare_arrays(ARENA_F64, got + 1, want + 1, 1, 1, 1, -1, &r);
	assert_false(r.ok);
	/* ... and equal infinities pass. */
	compare_arrays(ARENA_F64, got + 2, want + 2, 1, 1, 1, -1, &r);
	assert_true(r.ok);
	got[0] = NAN;
	want[0] = NAN;
	compare_arrays(ARENA_F64, got, want, 1, 0, 0, -1, &r);
	assert_true(r.ok);
	/* An infinite reference with rtol > 0 is no wildcard either: the
	 * other infinity and any finite value fail (the tolerance
	 * atol + rtol |want| is infinite there). */
	float fg[2] = { -INFINITY, 3e38f }, fw[2] = { INFINITY, INFINITY };
	compare_arrays(ARENA_F32, fg, fw, 1, 1e-3, 1e-3, -1, &r);
	assert_false(r.ok);
	compare_arrays(ARENA_F32, fg + 1, fw + 1, 1, 1e-3, 1e-3, -1, &r);
	assert_false(r.ok);
	compare_arrays(ARENA_F32, fw, fw, 2, 1e-3, 1e-3, -1, &r);
	assert_true(r.ok);
}

static void test_compare_requires_exact_integers(void **state)
{
	int32_t got[3] = { 1, 2, 3 }, want[3] = { 1, 2, 4 };
	struct cmp_result r;

	(void)state;
	compare_arrays(ARENA_I32, got, want, 3, 100, 100, -1, &r);
	assert_false(r.ok);
	assert_int_equal(r.first_bad, 2);
	assert_non_null(strstr(r.detail, "got 3, expected 4"));
}

static void test_format_index_unravels_row_major(void **state)
{
	int64_t shape[3] = { 2, 3, 4 };
	char buf[64];

	(void)state;
	format_index(shape, 3, 23, buf, sizeof(buf));
	assert_string_equal(buf, "[1, 2, 3]");
	format_index(shape + 2, 1, 3, buf, sizeof(buf));
	assert_string_equal(buf, "[3]");
	format_index(shape, 0, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[]");
}

/* Arrays of 4 Mi elements and more are drawn, staged and compared by
 * several threads (GPU cases): the values must still depend on the seed
 * alone, follow their distribution, and the comparison must find the same
 * first bad element a single thread would. */
static const char *const big_config =
	"schema: arena/1\n"
	"description: big arrays.\n"
	"language: c\n"
	"editable: [kernel.c]\n"
	"reference: {file: reference.c}\n"
	"signature:\n"
	"  params: [n]\n"
	"  args:\n"
	"    - {name: x, dtype: f32, shape: [n], io: in, init: normal}\n"
	"    - {name: h, dtype: f16, shape: [n], io: in,\n"
	"       init: {dist: uniform, low: -1, high: 1}}\n"
	"    - {name: y, dtype: f32, shape: [n], io: out}\n"
	"cases:\n"
	"  - {id: big, n: 5000011}\n"
	"tolerance: {atol: 1e-5, rtol: 1e-5}\n";

static void test_large_arrays_are_drawn_in_parallel_reproducibly(void **state)
{
	struct task *t = load_config("test/big", big_config);
	struct case_layout l;
	struct input_pool pool;
	struct errbuf err;
	struct rng r;

	(void)state;
	errbuf_init(&err);
	assert_int_equal(layout_build(t, &t->cases[0], &l, &err), 0);
	int64_t n = l.numel[0];
	float *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
	uint16_t *h = malloc((size_t)n * 2);
	rng_seed(&r, 42);
	inputs_fill(t, &l, 0, &r, a);
	inputs_fill(t, &l, 1, &r, h);
	uint64_t after = rng_next(&r);
	rng_seed(&r, 42);
	inputs_fill(t, &l, 0, &r, b);
	assert_memory_equal(a, b, (size_t)n * 4);
	inputs_fill(t, &l, 1, &r, b);
	assert_memory_equal(h, b, (size_t)n * 2);
	/* The caller's rng moves on by the same amount either way. */
	assert_true(rng_next(&r) == after);
	double sum = 0, sq = 0;
	for (int64_t i = 0; i < n; i++) {
		sum += a[i];
		sq += (double)a[i] * a[i];
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);
	assert_true(fabs(mean) < 0.01 && fabs(sd - 1) < 0.01);
	for (int64_t i = 0; i < n; i++) {
		float v = half_to_float(h[i]);
		assert_true(v >= -1 && v <= 1);
	}
	/* Pool draws: reproducible, fresh from pair to pair. */
	rng_seed(&r, 7);
	pool_build(t, &l, &r, &pool);
	struct rng r1, r2;
	rng_seed(&r1, 9);
	rng_seed(&r2, 9);
	pool_draw(t, &l, &pool, 0, &r1, a);
	pool_draw(t, &l, &pool, 0, &r2, b);
	assert_memory_equal(a, b, (size_t)n * 4);
	pool_draw(t, &l, &pool, 0, &r1, b);
	int64_t same = 0;
	for (int64_t i = 0; i < n; i++)
		same += a[i] == b[i];
	assert_true(same < n / 100);
	pool_release(&pool);
	free(a);
	free(b);
	free(h);
	layout_release(&l);
	task_free(t);
}

static void test_large_comparisons_find_the_first_bad_element(void **state)
{
	int64_t n = 6000000;
	uint16_t *g = calloc((size_t)n, 2), *w = calloc((size_t)n, 2);
	float *fg = calloc((size_t)n, 4), *fw = calloc((size_t)n, 4);
	struct cmp_result cr;

	(void)state;
	for (int64_t i = 0; i < n; i++) {
		g[i] = w[i] = float_to_half((float)(i % 1000) / 1000.0f);
		fg[i] = fw[i] = (float)i;
	}
	compare_arrays(ARENA_F16, g, w, n, 1e-3, 1e-3, -1, &cr);
	assert_true(cr.ok);
	poison_fill(ARENA_F16, g + 4500001, 3, 0);
	g[5999999] = float_to_half(7.0f);
	compare_arrays(ARENA_F16, g, w, n, 1e-3, 1e-3, 0, &cr);
	assert_false(cr.ok);
	assert_true(cr.first_bad == 4500001);
	assert_true(cr.nbad == 4);
	assert_true(cr.unwritten);
	fg[1048576] = -1;
	fg[3] = NAN;
	compare_arrays(ARENA_F32, fg, fw, n, 1e-5, 1e-5, -1, &cr);
	assert_true(cr.first_bad == 3 && cr.nbad == 2);
	assert_true(cr.max_abs_err == 1048577.0);
	free(g);
	free(w);
	free(fg);
	free(fw);
}

/* A random integer output holds the poison by chance now and then (32 M
 * random u32 keys: about once in 130 calls): a few isolated hits are
 * allowed; floats, 8-byte integers and outputs of a few elements none. */
static void test_integer_outputs_may_hold_the_poison_by_chance(void **state)
{
	(void)state;
	int64_t m32 = 32ll << 20;

	assert_int_equal(poison_chance_allowance(ARENA_F32, m32), 0);
	assert_int_equal(poison_chance_allowance(ARENA_F16, m32), 0);
	assert_int_equal(poison_chance_allowance(ARENA_I64, m32), 0);
	assert_int_equal(poison_chance_allowance(ARENA_U32, 1), 0);
	assert_int_equal(poison_chance_allowance(ARENA_U32, 4), 0);
	/* mean 2.3e-7: one hit is likelier than 1e-9, two are not */
	assert_int_equal(poison_chance_allowance(ARENA_U32, 1000), 1);
	/* mean 32 M / 2^32 = 0.0078: P(X > 3) = 1.6e-10, P(X > 2) = 8e-8 */
	assert_int_equal(poison_chance_allowance(ARENA_U32, m32), 3);
	assert_int_equal(poison_chance_allowance(ARENA_I32, m32), 3);
	/* bytes (mean 131072 hits): well above the mean, far below all */
	int64_t a8 = poison_chance_allowance(ARENA_U8, m32);
	assert_true(a8 > 131072 + 3 * 362 && a8 < 131072 + 12 * 362);
}

/* How many of `trials` sampled comparisons of two 1 Mi-element f32
 * arrays miss a corruption: `width` contiguous elements at a random
 * start (stride 0), or every stride-th element from offset 500 (width
 * ignored).  Positions and windows come from fixed seeds, so the counts
 * are reproducible. */
static int sampled_misses(int trials, int64_t width, int64_t stride)
{
	const int64_t n = (int64_t)1 << 20;
	float *want = malloc((size_t)n * sizeof(float));
	float *got = malloc((size_t)n * sizeof(float));
	struct rng place, windows;
	int misses = 0;

	rng_seed(&place, 11);
	rng_seed(&windows, 12);
	for (int64_t i = 0; i < n; i++)
		want[i] = (float)(i % 100) / 100.0f;
	for (int t = 0; t < trials; t++) {
		memcpy(got, want, (size_t)n * sizeof(float));
		if (stride) {
			for (int64_t i = 500; i < n; i += stride)
				got[i] += 1.0f;
		} else {
			int64_t at = rng_range(&place, 0, n - width);
			for (int64_t i = at; i < at + width; i++)
				got[i] += 1.0f;
		}
		misses += compare_arrays_sampled(ARENA_F32, got, want, n, 1e-5,
						 1e-5, false, &windows);
	}
	free(want);
	free(got);
	return misses;
}

/* docs/gpu.md section 6's detection figures: a corrupted fraction f in
 * one contiguous region escapes 512 windows of 32 with probability
 * about (1 - f)^512 (0.58% at f = 1%), one element escapes with about
 * 1 - 514 * 32 / 2^20 (98.4%), every 997th element almost never. */
static void test_sampled_comparison_detects_as_documented(void **s)
{
	(void)s;
	int region = sampled_misses(1000, ((int64_t)1 << 20) / 100, 0);
	int single = sampled_misses(2000, 1, 0);
	int strided = sampled_misses(200, 0, 997);

	fprintf(stderr,
		"misses: 1%% region %d/1000, one element %d/2000, "
		"every 997th %d/200\n",
		region, single, strided);
	/* Expected 5.8 (a Poisson count above 20: ~1e-6). */
	assert_true(region <= 20);
	/* Expected 1968.6 hits missed, 31.4 found: windows spread over the
	 * whole array, neither clustered (fewer found) nor overlapping. */
	assert_true(single >= 2000 - 60 && single <= 2000 - 12);
	assert_int_equal(strided, 0);
}

/* Arrays no longer than the windows together are compared whole, and
 * inputs (bitwise) bit for bit: -0 is not 0 there. */
static void test_sampled_comparison_of_small_arrays_is_whole(void **s)
{
	enum { N = CMP_SAMPLE_WINDOWS * CMP_SAMPLE_LEN };
	static float got[N], want[N];
	struct rng r;

	(void)s;
	rng_seed(&r, 5);
	for (int at = 0; at < N; at += 997) {
		memset(got, 0, sizeof(got));
		memset(want, 0, sizeof(want));
		got[at] = 1.0f;
		assert_false(compare_arrays_sampled(ARENA_F32, got, want, N,
						    1e-5, 1e-5, false, &r));
		got[at] = -0.0f;
		assert_true(compare_arrays_sampled(ARENA_F32, got, want, N,
						   1e-5, 1e-5, false, &r));
		assert_false(compare_arrays_sampled(ARENA_F32, got, want, N, 0,
						    0, true, &r));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_layout_places_arguments_aligned_and_disjoint),
		cmocka_unit_test(test_inputs_are_deterministic_in_the_seed),
		cmocka_unit_test(test_inputs_respect_their_distributions),
		cmocka_unit_test(test_pool_draws_are_fresh_and_in_range),
		cmocka_unit_test(test_f32_pool_draws_are_unchanged),
		cmocka_unit_test(test_inputs_of_every_dtype_are_unchanged),
		cmocka_unit_test(
			test_poison_patterns_differ_and_are_recognised),
		cmocka_unit_test(test_poison_find_agrees_with_poison_is),
		cmocka_unit_test(
			test_integer_outputs_may_hold_the_poison_by_chance),
		cmocka_unit_test(test_half_and_bf16_round_trip),
		cmocka_unit_test(test_compare_accepts_within_tolerance),
		cmocka_unit_test(test_compare_names_the_first_wrong_element),
		cmocka_unit_test(test_compare_reports_unwritten_outputs),
		cmocka_unit_test(test_compare_treats_nan_and_inf_strictly),
		cmocka_unit_test(test_compare_requires_exact_integers),
		cmocka_unit_test(test_format_index_unravels_row_major),
		cmocka_unit_test(
			test_large_arrays_are_drawn_in_parallel_reproducibly),
		cmocka_unit_test(
			test_large_comparisons_find_the_first_bad_element),
		cmocka_unit_test(test_sampled_comparison_detects_as_documented),
		cmocka_unit_test(
			test_sampled_comparison_of_small_arrays_is_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * gpu_gen.h - fresh inputs for GPU timing, drawn on the device.
 *
 * Every timed pair needs fresh inputs (a kernel must not answer from a
 * cache), the same for the baseline's and the candidate's runner.  Drawn
 * on the host they cost more than the timing itself on large cases: tens
 * to hundreds of milliseconds per pair to draw, copy into two runners and
 * send to two devices (docs/gpu.md section 6).  Here the controller sends
 * each runner the distribution and one seed per pair, and the runner
 * draws every element on the device from a counter-based generator:
 * element i of set k is a function of (seed, k, i) only, so both runners
 * hold the same values without the host ever seeing them.  The candidate's
 * outputs are compared with the baseline's, not with a reference, so the
 * host needs no copy either.
 *
 * Values follow the task's init (docs/tasks.md): normal(mean, sd) by
 * Box-Muller, uniform [a, b), randint [lo, hi] inclusive, ones; stored in
 * the argument's dtype with the host's conversions (round to nearest even
 * for f16/bf16, clamped and rounded for integers).  They are not the
 * values the host would draw from the same seed; nothing needs them to be.
 */
#ifndef ARENA_GPU_GEN_H
#define ARENA_GPU_GEN_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gpu_rt.h"
#include "arena/fp16.h"
#include "arena/kernel.h"

#if defined(ARENA_GPU_FAKE)
#define GEN_FN static inline
#else
#define GEN_FN __host__ __device__ static inline
#endif

enum { GEN_NORMAL = 'n', GEN_UNIFORM = 'u', GEN_RANDINT = 'r', GEN_ONES = 'o' };

struct gen_spec {
	int dist;		/* GEN_* */
	double a, b;		/* normal: mean, sd; uniform: [a, b) */
	long long lo, hi;	/* randint, inclusive */
	unsigned long long seed;
};

GEN_FN unsigned long long gen_mix(unsigned long long z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

GEN_FN long long gen_clamp(double v, double lo, double hi)
{
	if (v != v)
		return 0;
	v = v < lo ? lo : v > hi ? hi : v;
	return (long long)llrint(v);
}

/* On a device, the hardware's approximate logarithm and cosine (a few
 * instructions each, errors near 1e-6): the values are random inputs,
 * drawn alike by both runners, not results.  On the host (the fake
 * device, the unit tests) the library's. */
GEN_FN float gen_logf(float x)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
	return __logf(x);
#else
	return logf(x);
#endif
}

GEN_FN float gen_cosf(float x)
{
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
	return __cosf(x);
#else
	return cosf(x);
#endif
}

/* A standard normal from 64 random bits (Box-Muller, one branch): u1
 * from the top 24 bits, in (0, 1] in float's own steps, so never log(0)
 * and at most 5.8 standard deviations out; u2 from the next 24.  One mix
 * per element: `gen` was compute-bound on the device with two (3.0 ms
 * of a 6.6 ms sample on the H200, 2026-12-06); with one and the device's
 * approximations an H100 drew 256 MiB of f32 normals in 0.229 ms
 * against 0.329 ms (tests/gpu/bench/gen_probe.cu, 2026-12-07). */
GEN_FN float gen_normal(unsigned long long h)
{
	float u1 = (float)((h >> 40) + 1) * 0x1p-24f;
	float u2 = (float)((h >> 16) & 0xffffff) * 0x1p-24f;

	return sqrtf(-2.0f * gen_logf(u1)) * gen_cosf(6.2831853f * u2);
}

/* Element i of a set whose seed is `seed`, stored at dst[i]. */
GEN_FN void gen_element(void *dst, int dtype, size_t i, const struct gen_spec *g,
			unsigned long long seed)
{
	unsigned long long h = gen_mix(seed + (unsigned long long)i *
					       0x9e3779b97f4a7c15ull);
	double v;
	long long iv = 0;
	bool exact = false;

	switch (g->dist) {
	case GEN_NORMAL:
		v = g->a + g->b * (double)gen_normal(h);
		break;
	case GEN_UNIFORM:
		v = g->a + (g->b - g->a) * ((double)(h >> 11) * 0x1p-53);
		break;
	case GEN_RANDINT: {
		unsigned long long span = (unsigned long long)(g->hi - g->lo) + 1;
		iv = g->lo + (long long)(span ? h % span : h);
		v = (double)iv;
		exact = true;
		break;
	}
	default:
		v = 1.0;
	}
	switch (dtype) {
	case ARENA_F32:
		((float *)dst)[i] = (float)v;
		break;
	case ARENA_F64:
		((double *)dst)[i] = v;
		break;
	case ARENA_F16:
		((uint16_t *)dst)[i] = arena_float_to_half((float)v);
		break;
	case ARENA_BF16:
		((uint16_t *)dst)[i] = arena_float_to_bf16((float)v);
		break;
	case ARENA_I32:
		((int32_t *)dst)[i] = (int32_t)gen_clamp(v, -2147483648.0, 2147483647.0);
		break;
	case ARENA_I64:
		((int64_t *)dst)[i] = exact ? iv : gen_clamp(v, -9.2e18, 9.2e18);
		break;
	case ARENA_U8:
		((uint8_t *)dst)[i] = (uint8_t)gen_clamp(v, 0, 255);
		break;
	case ARENA_U32:
		((uint32_t *)dst)[i] = (uint32_t)gen_clamp(v, 0, 4294967295.0);
		break;
	case ARENA_I8:
		((int8_t *)dst)[i] = (int8_t)gen_clamp(v, -128, 127);
		break;
	}
}

/* The seed of set k: both runners derive the same from the pair's. */
GEN_FN unsigned long long gen_set_seed(const struct gen_spec *g, int set)
{
	return gen_mix(g->seed ^ gen_mix((unsigned long long)set + 1));
}

#if !defined(ARENA_GPU_FAKE)
__global__ void gen_kernel(void *dst, int dtype, size_t n, struct gen_spec g,
			   unsigned long long seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride)
		gen_element(dst, dtype, i, &g, seed);
}
#endif

/* Draws n elements of dtype into device buffer dst as set `set`. */
static gpu_err gen_fill(void *dst, int dtype, size_t n, const struct gen_spec *g,
			int set, gpu_stream s)
{
	unsigned long long seed = gen_set_seed(g, set);
#if defined(ARENA_GPU_FAKE)
	(void)s;
	for (size_t i = 0; i < n; i++)
		gen_element(dst, dtype, i, g, seed);
	return GPU(Success);
#else
	size_t blocks = (n + 255) / 256;
	gen_kernel<<<(unsigned)(blocks < 4096 ? (blocks ? blocks : 1) : 4096), 256,
		     0, s>>>(dst, dtype, n, *g, seed);
	return GPU(GetLastError)();
#endif
}

#endif /* ARENA_GPU_GEN_H */

/*
 * fp16.h - float to IEEE binary16 and to bfloat16, rounding to nearest
 * even, and back, written once for the places that store or compare
 * 16-bit values: the controller's host draws and comparisons
 * (engine/src/eval/inputs.c, array_compare.c) and the GPU runner's
 * device-side draws and the keeper's comparison for timing
 * (engine/runner/gpu/gpu_gen.h, gpu_cmp.h, compiled by nvcc, hipcc and a
 * host C++ compiler).  Plain C; under a GPU compiler the functions are
 * __host__ __device__.
 */
#ifndef ARENA_FP16_H
#define ARENA_FP16_H

#include <stdint.h>
#include <string.h>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define ARENA_FP16_FN __host__ __device__ static inline
#else
#define ARENA_FP16_FN static inline
#endif

ARENA_FP16_FN uint16_t arena_float_to_half(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
	uint32_t exp = (x >> 23) & 0xff, man = x & 0x7fffff;
	if (exp == 0xff)	/* Inf / NaN (keep NaN quiet) */
		return (uint16_t)(sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0));
	int e = (int)exp - 127 + 15;
	if (e >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (e <= 0) {
		if (e < -10)
			return sign;
		man |= 0x800000;
		int shift = 14 - e;
		uint32_t half = man >> shift;
		uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
		if (rem > mid || (rem == mid && (half & 1)))
			half++;
		return (uint16_t)(sign | half);
	}
	uint32_t h = ((uint32_t)e << 10) | (man >> 13);
	uint32_t rem = man & 0x1fff;
	if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
		h++;	/* may carry into the exponent: still correct */
	return (uint16_t)(sign | h);
}

ARENA_FP16_FN float arena_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
	float f;

	if (exp == 0) {
		/* zero or subnormal: man * 2^-24 */
		f = (float)man * 0x1p-24f;
		return (h & 0x8000) ? -f : f;
	}
	if (exp == 31)
		bits = sign | 0x7f800000u | (man << 13);
	else
		bits = sign | ((exp + 112) << 23) | (man << 13);
	memcpy(&f, &bits, sizeof(f));
	return f;
}

ARENA_FP16_FN float arena_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

ARENA_FP16_FN uint16_t arena_float_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof(x));
	if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffff))
		return (uint16_t)((x >> 16) | 0x40);	/* quiet NaN */
	x += 0x7fff + ((x >> 16) & 1);		/* round to nearest even */
	return (uint16_t)(x >> 16);
}

#endif /* ARENA_FP16_H */

/*
 * flash_attn_fwd_bf16 - trusted reference (GPU): one thread per query row,
 * everything in float64: a first pass over the keys j <= i for the maximum
 * score, a second for the exponentials, their sum and the weighted sum of
 * v rows, then one rounding to bf16.  No online rescaling, no tiling.  A
 * host reference would need minutes (the cases are 34-137 GFLOP), so this
 * one runs on the device, in its own runner.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>
#include "arena/kernel.h"

#define MAX_D 256

__device__ double bf16_to_double(uint16_t b)
{
	return (double)__uint_as_float((uint32_t)b << 16);
}

/* Rounds a double once, to nearest even, to a binary format with mbits
 * significant bits and ebits exponent bits (f16: 11 and 5, bf16: 8 and 8),
 * with gradual underflow and overflow to infinity, and encodes it (the
 * host references' routine, on the device). */
__device__ uint16_t double_to_small(double v, int mbits, int ebits)
{
	uint64_t b = (uint64_t)__double_as_longlong(v);
	uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
	int bias = (1 << (ebits - 1)) - 1, emax = (1 << ebits) - 1;
	uint16_t inf = (uint16_t)(emax << (mbits - 1));
	b &= 0x7fffffffffffffffull;
	if (b > 0x7ff0000000000000ull)
		return (uint16_t)(sign | inf | (1u << (mbits - 2)));	/* NaN */
	int e = (int)(b >> 52) - 1023;
	if (e > bias)
		return sign | inf;
	uint64_t m = (b & 0xfffffffffffffull) | (1ull << 52);
	int sh = 52 - (mbits - 1);			/* keep mbits bits */
	if (e < 1 - bias)				/* subnormal result */
		sh += (1 - bias) - e;
	if (sh > 60)
		return sign;
	uint64_t q = m >> sh, rem = m & ((1ull << sh) - 1), half = 1ull << (sh - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	if (e < 1 - bias)				/* q may reach the smallest normal */
		return (uint16_t)(sign | q);
	int be = e + bias;
	if (q == (2ull << (mbits - 1))) {		/* carried into the next binade */
		q >>= 1;
		be++;
	}
	if (be >= emax)
		return sign | inf;
	return (uint16_t)(sign | (be << (mbits - 1)) | (q - (1ull << (mbits - 1))));
}

__device__ double score(const uint16_t *qr, const uint16_t *kr, int64_t d,
			double scale)
{
	double s = 0.0;
	for (int64_t c = 0; c < d; c++)
		s += bf16_to_double(qr[c]) * bf16_to_double(kr[c]);
	return s * scale;
}

__global__ void attn_ref(const uint16_t *q, const uint16_t *k, const uint16_t *v,
			 uint16_t *o, int64_t batch, int64_t seq, int64_t hq,
			 int64_t hkv, int64_t d)
{
	int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (row >= batch * seq * hq)
		return;
	int64_t h = row % hq, i = (row / hq) % seq, b = row / (hq * seq);
	int64_t g = h / (hq / hkv);
	double scale = 1.0 / sqrt((double)d);
	const uint16_t *qr = q + ((b * seq + i) * hq + h) * d;
	double m = -INFINITY;
	for (int64_t j = 0; j <= i; j++) {
		double s = score(qr, k + ((b * seq + j) * hkv + g) * d, d, scale);
		if (s > m)
			m = s;
	}
	double l = 0.0, acc[MAX_D];
	for (int64_t c = 0; c < d; c++)
		acc[c] = 0.0;
	for (int64_t j = 0; j <= i; j++) {
		double w = exp(score(qr, k + ((b * seq + j) * hkv + g) * d, d,
				     scale) - m);
		const uint16_t *vr = v + ((b * seq + j) * hkv + g) * d;
		l += w;
		for (int64_t c = 0; c < d; c++)
			acc[c] += w * bf16_to_double(vr[c]);
	}
	for (int64_t c = 0; c < d; c++)
		o[row * d + c] = double_to_small(acc[c] / l, 8, 8);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], hq = params[2];
	int64_t hkv = params[3], d = params[4];
	if (batch <= 0 || seq <= 0 || hq <= 0 || hkv <= 0 || hq % hkv ||
	    d <= 0 || d > MAX_D ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != batch * seq * hq * d ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != batch * seq * hkv * d ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != batch * seq * hkv * d ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != batch * seq * hq * d)
		return 2;
	int64_t blocks = (batch * seq * hq + 127) / 128;
	hipLaunchKernelGGL(attn_ref, dim3((unsigned)blocks), dim3(128), 0,
			   (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data,
			   (const uint16_t *)args[2].data, (uint16_t *)args[3].data,
			   batch, seq, hq, hkv, d);
	return hipGetLastError() == hipSuccess ? 0 : 3;
}

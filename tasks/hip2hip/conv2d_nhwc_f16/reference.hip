/*
 * conv2d_nhwc_f16 - trusted reference (GPU): one thread per output element,
 * the bias and all 9c products summed in float64 from the exact float16
 * inputs, taps outside the image skipped, one rounding to float16.  The
 * cases are 15 GFLOP each, minutes on the host, so this runs on the device
 * in its own runner.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

/* float16 bits -> double, exactly (no compiler support for half needed). */
__device__ double f16_to_double(uint16_t hb)
{
	int e = (hb >> 10) & 31, m = hb & 1023;
	double v = e ? ldexp((double)(1024 + m), e - 25) : ldexp((double)m, -24);
	return (hb & 0x8000) ? -v : v;	/* inputs are finite */
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

__global__ void conv_ref(const uint16_t *x, const uint16_t *wt,
			 const uint16_t *bias, uint16_t *y, int64_t n, int64_t h,
			 int64_t w, int64_t c, int64_t k)
{
	int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (e >= n * h * w * k)
		return;
	int64_t o = e % k, j = (e / k) % w, i = (e / (k * w)) % h;
	int64_t b = e / (k * w * h);
	double acc = f16_to_double(bias[o]);
	for (int64_t di = 0; di < 3; di++)
		for (int64_t dj = 0; dj < 3; dj++) {
			int64_t ii = i + di - 1, jj = j + dj - 1;
			if (ii < 0 || ii >= h || jj < 0 || jj >= w)
				continue;
			for (int64_t ci = 0; ci < c; ci++)
				acc += f16_to_double(wt[((o * 3 + di) * 3 + dj) * c + ci]) *
				       f16_to_double(x[((b * h + ii) * w + jj) * c + ci]);
		}
	y[e] = double_to_small(acc, 11, 5);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t n = params[0], h = params[1], w = params[2], c = params[3];
	int64_t k = params[4], total = n * h * w * k;
	if (n <= 0 || h <= 0 || w <= 0 || c <= 0 || k <= 0 ||
	    args[0].dtype != ARENA_F16 || args[0].numel != n * h * w * c ||
	    args[1].dtype != ARENA_F16 || args[1].numel != k * 9 * c ||
	    args[2].dtype != ARENA_F16 || args[2].numel != k ||
	    args[3].dtype != ARENA_F16 || args[3].numel != total)
		return 2;
	hipLaunchKernelGGL(conv_ref, dim3((unsigned)((total + 127) / 128)), dim3(128),
			   0, (hipStream_t)stream, (const uint16_t *)args[0].data,
			   (const uint16_t *)args[1].data,
			   (const uint16_t *)args[2].data, (uint16_t *)args[3].data,
			   n, h, w, c, k);
	return hipGetLastError() == hipSuccess ? 0 : 3;
}

/*
 * paged_kv_gather_fp8 - trusted reference: a table of the 256 e4m3fn
 * values built from the format's definition, the float32 product with the
 * scale (as specified), and a bit-exact round-to-nearest-even to bf16.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "arena/kernel.h"

/* float -> bf16, round to nearest even; NaN stays NaN. */
static uint16_t float_to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40u);
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 5)
		return 1;
	int64_t batch = params[0], seq = params[1], block_size = params[2];
	int64_t num_blocks = params[3], entry = params[4];
	if (batch <= 0 || seq <= 0 || block_size <= 0 || num_blocks <= 0 ||
	    entry <= 0)
		return 2;
	int64_t max_blocks = (seq + block_size - 1) / block_size;
	if (args[0].dtype != ARENA_U8 ||
	    args[0].numel != num_blocks * block_size * entry ||
	    args[1].dtype != ARENA_F32 || args[1].numel != 1 ||
	    args[2].dtype != ARENA_I32 || args[2].numel != batch * max_blocks ||
	    args[3].dtype != ARENA_BF16 || args[3].numel != batch * seq * entry)
		return 2;
	const uint8_t *cache = (const uint8_t *)args[0].data;
	float scale = *(const float *)args[1].data;
	const int32_t *table = (const int32_t *)args[2].data;
	uint16_t *out = (uint16_t *)args[3].data;
	float val[256];
	for (int v = 0; v < 256; v++) {
		int e = (v >> 3) & 15, m = v & 7;
		double f;
		if (e == 15 && m == 7)
			f = NAN;
		else if (e == 0)
			f = ldexp(m, -9);		/* subnormal: m/8 * 2^(1-7) */
		else
			f = ldexp(1.0 + m / 8.0, e - 7);
		val[v] = (float)((v & 0x80) ? -f : f);	/* exact in float */
	}
	for (int64_t b = 0; b < batch; b++)
		for (int64_t t = 0; t < seq; t++) {
			int32_t blk = table[b * max_blocks + t / block_size];
			if (blk < 0 || blk >= num_blocks)
				return 3;
			const uint8_t *src = cache + (blk * block_size + t % block_size) * entry;
			uint16_t *dst = out + (b * seq + t) * entry;
			for (int64_t e = 0; e < entry; e++)
				dst[e] = float_to_bf16(val[src[e]] * scale);
		}
	return 0;
}

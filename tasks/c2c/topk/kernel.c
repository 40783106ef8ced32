/*
 * topk - baseline: the k largest bf16 logits of each row with their
 * indices, descending, lower index first among equal values (the top-k
 * filter of an LLM sampler, as in llama.cpp's sampling or torch.topk on
 * the CPU).
 *
 * One pass per row keeping a sorted list of the best k seen so far: each
 * element is converted to float and, once the list is full, enters only
 * if it beats the current k-th value (an equal value comes later in index
 * order, so it does not); entering shifts it into place.  SCAN = 1 tests
 * every element on its own.  SCAN > 1 first takes the maximum of a block
 * of SCAN elements in fixed-width code that gcc -O2 vectorises and skips
 * the whole block when that maximum cannot enter.  All values give
 * identical results.
 */
#include <string.h>
#include "arena/kernel.h"

#ifndef SCAN
#define SCAN 1
#endif

static inline float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Offers element i with value v to the sorted list (cnt entries, at most
 * k). */
static inline void offer(float *bv, int32_t *bi, int64_t *cnt, int64_t k,
			 float v, int64_t i)
{
	if (*cnt == k && !(v > bv[k - 1]))
		return;
	int64_t j = *cnt < k ? (*cnt)++ : k - 1;
	while (j > 0 && v > bv[j - 1]) {
		bv[j] = bv[j - 1];
		bi[j] = bi[j - 1];
		j--;
	}
	bv[j] = v;
	bi[j] = (int32_t)i;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t rows = params[0], vocab = params[1], k = params[2];
	if (rows <= 0 || vocab <= 0 || vocab > 0x7fffffff || k <= 0 || k > vocab)
		return 2;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != rows * vocab ||
	    args[1].dtype != ARENA_I32 || args[1].numel != rows * k ||
	    args[2].dtype != ARENA_F32 || args[2].numel != rows * k)
		return 3;
	const uint16_t *x = args[0].data;
	for (int64_t r = 0; r < rows; r++) {
		const uint16_t *xr = x + r * vocab;
		float *bv = (float *)args[2].data + r * k;
		int32_t *bi = (int32_t *)args[1].data + r * k;
		int64_t cnt = 0, i = 0;
#if SCAN > 1
		for (; i + SCAN <= vocab; i += SCAN) {
			if (cnt == k) {
				float blk[SCAN], mx;
				for (int l = 0; l < SCAN; l++)
					blk[l] = bf16_to_float(xr[i + l]);
				mx = blk[0];
				for (int l = 1; l < SCAN; l++)
					mx = blk[l] > mx ? blk[l] : mx;
				if (!(mx > bv[k - 1]))
					continue;
			}
			for (int l = 0; l < SCAN; l++)
				offer(bv, bi, &cnt, k, bf16_to_float(xr[i + l]), i + l);
		}
#endif
		for (; i < vocab; i++)
			offer(bv, bi, &cnt, k, bf16_to_float(xr[i]), i);
	}
	return 0;
}

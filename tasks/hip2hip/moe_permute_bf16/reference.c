/*
 * moe_permute_bf16 - trusted reference: a plain stable counting sort of the
 * pairs by expert (count, prefix sum, place in increasing pair order) and
 * row copies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t tokens = params[0], hidden = params[1], experts = params[2];
	int64_t k = params[3], pairs = tokens * k;
	if (tokens <= 0 || hidden <= 0 || experts <= 0 || k <= 0 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_I32 || args[1].numel != pairs ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != pairs * hidden ||
	    args[3].dtype != ARENA_I32 || args[3].numel != pairs ||
	    args[4].dtype != ARENA_I32 || args[4].numel != experts + 1)
		return 2;
	const uint16_t *h = (const uint16_t *)args[0].data;
	const int32_t *ids = (const int32_t *)args[1].data;
	uint16_t *out = (uint16_t *)args[2].data;
	int32_t *src_idx = (int32_t *)args[3].data;
	int32_t *offsets = (int32_t *)args[4].data;
	int64_t *next = (int64_t *)calloc((size_t)experts + 1, sizeof(int64_t));
	if (!next)
		return 3;
	for (int64_t i = 0; i < pairs; i++) {
		if (ids[i] < 0 || ids[i] >= experts) {
			free(next);
			return 4;
		}
		next[ids[i] + 1]++;
	}
	for (int64_t e = 1; e <= experts; e++)
		next[e] += next[e - 1];
	for (int64_t e = 0; e <= experts; e++)
		offsets[e] = (int32_t)next[e];
	for (int64_t i = 0; i < pairs; i++) {
		int64_t p = next[ids[i]]++;
		src_idx[p] = (int32_t)i;
		memcpy(out + p * hidden, h + (i / k) * hidden,
		       (size_t)hidden * sizeof(uint16_t));
	}
	free(next);
	return 0;
}

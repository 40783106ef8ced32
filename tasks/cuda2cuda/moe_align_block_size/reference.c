/*
 * moe_align_block_size - trusted reference: count each expert's entries,
 * lay out the padded runs expert by expert, and append every flat index to
 * its expert's run in increasing order.
 */
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t tokens = params[0], topk = params[1], experts = params[2],
		bs = params[3];
	if (tokens <= 0 || topk <= 0 || experts <= 0 || bs <= 0)
		return 2;
	int64_t numel = tokens * topk;
	int64_t max_pad = numel + experts * (bs - 1);
	int64_t max_blocks = (max_pad + bs - 1) / bs;
	if (args[0].numel != numel || args[1].numel != max_pad ||
	    args[2].numel != max_blocks || args[3].numel != 1)
		return 3;
	const int32_t *ids = args[0].data;
	int32_t *sorted = args[1].data, *eids = args[2].data,
		*total = args[3].data;
	int64_t *count = calloc((size_t)experts, sizeof(int64_t));
	int64_t *next = calloc((size_t)experts, sizeof(int64_t));
	if (!count || !next) {
		free(count);
		free(next);
		return 4;
	}
	int rc = 0;
	for (int64_t i = 0; i < numel; i++) {
		if (ids[i] < 0 || ids[i] >= experts) {
			rc = 5;
			goto out;
		}
		count[ids[i]]++;
	}
	for (int64_t i = 0; i < max_pad; i++)
		sorted[i] = (int32_t)numel;
	for (int64_t b = 0; b < max_blocks; b++)
		eids[b] = -1;
	int64_t start = 0;
	for (int64_t e = 0; e < experts; e++) {
		int64_t padded = (count[e] + bs - 1) / bs * bs;
		next[e] = start;
		for (int64_t b = start / bs; b < (start + padded) / bs; b++)
			eids[b] = (int32_t)e;
		start += padded;
	}
	*total = (int32_t)start;
	for (int64_t i = 0; i < numel; i++)
		sorted[next[ids[i]]++] = (int32_t)i;
out:
	free(count);
	free(next);
	return rc;
}

/*
 * sort_pairs - baseline: stable sort of (uint32 key, int32 value) pairs
 * by key (what std::stable_sort or torch.sort(stable=True) does on the
 * CPU for argsort, MoE token grouping or sampling).
 *
 * Top-down merge sort: the pairs are copied to the outputs, sorted there
 * recursively, with a temporary buffer of n pairs for the merges (the
 * left run wins ties, which keeps the sort stable).  INSERT = 1 recurses
 * down to single elements; INSERT > 1 sorts runs of up to INSERT pairs by
 * insertion first (also stable).  All values give identical results.
 */
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

#ifndef INSERT
#define INSERT 1
#endif

static void insertion(uint32_t *k, int32_t *v, int64_t n)
{
	for (int64_t i = 1; i < n; i++) {
		uint32_t kk = k[i];
		int32_t vv = v[i];
		int64_t j = i;
		while (j > 0 && k[j - 1] > kk) {
			k[j] = k[j - 1];
			v[j] = v[j - 1];
			j--;
		}
		k[j] = kk;
		v[j] = vv;
	}
}

/* Sorts k[0..n), v[0..n) using tk, tv (n entries) as scratch. */
static void merge_sort(uint32_t *k, int32_t *v, uint32_t *tk, int32_t *tv,
		       int64_t n)
{
	if (n <= INSERT) {
		insertion(k, v, n);
		return;
	}
	int64_t h = n / 2;
	merge_sort(k, v, tk, tv, h);
	merge_sort(k + h, v + h, tk, tv, n - h);
	int64_t i = 0, j = h, o = 0;
	while (i < h && j < n) {
		if (k[j] < k[i]) {	/* strict: equal keys take the left run */
			tk[o] = k[j];
			tv[o++] = v[j++];
		} else {
			tk[o] = k[i];
			tv[o++] = v[i++];
		}
	}
	while (i < h) {
		tk[o] = k[i];
		tv[o++] = v[i++];
	}
	while (j < n) {
		tk[o] = k[j];
		tv[o++] = v[j++];
	}
	memcpy(k, tk, sizeof(*k) * (size_t)n);
	memcpy(v, tv, sizeof(*v) * (size_t)n);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0];
	if (n <= 0)
		return 2;
	if (args[0].dtype != ARENA_U32 || args[0].numel != n ||
	    args[1].dtype != ARENA_I32 || args[1].numel != n ||
	    args[2].dtype != ARENA_U32 || args[2].numel != n ||
	    args[3].dtype != ARENA_I32 || args[3].numel != n)
		return 3;
	uint32_t *ko = args[2].data;
	int32_t *vo = args[3].data;
	memcpy(ko, args[0].data, sizeof(uint32_t) * (size_t)n);
	memcpy(vo, args[1].data, sizeof(int32_t) * (size_t)n);
	uint32_t *tk = malloc(sizeof(uint32_t) * (size_t)n);
	int32_t *tv = malloc(sizeof(int32_t) * (size_t)n);
	if (!tk || !tv) {
		free(tk);
		free(tv);
		return 4;
	}
	merge_sort(ko, vo, tk, tv, n);
	free(tk);
	free(tv);
	return 0;
}

/*
 * argsort_rows_bf16 - trusted reference: a textbook stable merge sort
 * (top-down, taking from the left run on equal keys) of each row's column
 * indices by descending value.  Indices start in ascending order, so
 * stability gives the specified tie order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "arena/kernel.h"

static float bf16_to_float(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Sorts idx[lo, hi) by key[idx] descending, stably, using tmp. */
static void merge_sort(int32_t *idx, int32_t *tmp, const float *key, int64_t lo,
		       int64_t hi)
{
	if (hi - lo < 2)
		return;
	int64_t mid = lo + (hi - lo) / 2;
	merge_sort(idx, tmp, key, lo, mid);
	merge_sort(idx, tmp, key, mid, hi);
	int64_t a = lo, b = mid, o = lo;
	while (a < mid && b < hi)
		tmp[o++] = key[idx[a]] >= key[idx[b]] ? idx[a++] : idx[b++];
	while (a < mid)
		tmp[o++] = idx[a++];
	while (b < hi)
		tmp[o++] = idx[b++];
	memcpy(idx + lo, tmp + lo, (size_t)(hi - lo) * sizeof(int32_t));
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || cols > 4096 ||
	    args[0].dtype != ARENA_BF16 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_BF16 || args[1].numel != rows * cols ||
	    args[2].dtype != ARENA_I32 || args[2].numel != rows * cols)
		return 2;
	const uint16_t *x = (const uint16_t *)args[0].data;
	uint16_t *values = (uint16_t *)args[1].data;
	int32_t *indices = (int32_t *)args[2].data;
	float key[4096];
	int32_t tmp[4096];
	for (int64_t r = 0; r < rows; r++) {
		int32_t *idx = indices + r * cols;
		for (int64_t c = 0; c < cols; c++) {
			key[c] = bf16_to_float(x[r * cols + c]);
			idx[c] = (int32_t)c;
		}
		merge_sort(idx, tmp, key, 0, cols);
		for (int64_t c = 0; c < cols; c++)
			values[r * cols + c] = x[r * cols + idx[c]];
	}
	return 0;
}

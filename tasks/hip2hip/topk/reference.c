/*
 * topk - trusted reference: for each row, the k best (value descending,
 * index ascending) found by k rounds of selection over a candidate pool.
 * The pool holds every element that is not below the k-th largest value
 * seen in a first pass (a binary min-heap of size k), so the selection
 * rounds stay cheap; ties at the threshold all enter the pool.
 */
#include <stdlib.h>
#include "arena/kernel.h"

/* Min-heap of k floats. */
static void heap_sift(float *h, int k, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i;
		if (l < k && h[l] < h[s])
			s = l;
		if (r < k && h[r] < h[s])
			s = r;
		if (s == i)
			return;
		float t = h[i];
		h[i] = h[s];
		h[s] = t;
		i = s;
	}
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t rows = params[0], cols = params[1], k = params[2];
	if (rows <= 0 || cols <= 0 || k < 1 || k > cols ||
	    args[0].numel != rows * cols || args[1].numel != rows * k ||
	    args[2].numel != rows * k || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_I32)
		return 2;
	const float *x = args[0].data;
	float *values = args[1].data;
	int32_t *indices = args[2].data;
	float *heap = malloc((size_t)k * sizeof(float));
	int64_t *pool = malloc((size_t)cols * sizeof(int64_t));
	if (!heap || !pool) {
		free(heap);
		free(pool);
		return 3;
	}
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		/* Threshold: the k-th largest value of the row. */
		for (int64_t c = 0; c < k; c++)
			heap[c] = xr[c];
		for (int i = (int)k / 2 - 1; i >= 0; i--)
			heap_sift(heap, (int)k, i);
		for (int64_t c = k; c < cols; c++)
			if (xr[c] > heap[0]) {
				heap[0] = xr[c];
				heap_sift(heap, (int)k, 0);
			}
		float thr = heap[0];
		int64_t np = 0;
		for (int64_t c = 0; c < cols; c++)
			if (xr[c] >= thr)
				pool[np++] = c;
		/* k selection rounds: best = largest value, then lowest index. */
		for (int64_t j = 0; j < k; j++) {
			int64_t best = j;
			for (int64_t q = j + 1; q < np; q++) {
				float a = xr[pool[q]], b = xr[pool[best]];
				if (a > b || (a == b && pool[q] < pool[best]))
					best = q;
			}
			int64_t t = pool[j];
			pool[j] = pool[best];
			pool[best] = t;
			values[r * k + j] = xr[pool[j]];
			indices[r * k + j] = (int32_t)pool[j];
		}
	}
	free(heap);
	free(pool);
	return 0;
}

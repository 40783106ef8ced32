/*
 * transpose - baseline: B = A^T for a row-major float32 matrix
 * A [rows, cols], B [cols, rows].
 *
 * TILE = 1 reads A row by row and writes B column by column: every store
 * lands rows*4 bytes after the previous one, so each cache line of B is
 * fetched, written once and evicted long before its neighbours are written.
 * TILE > 1 copies TILE x TILE blocks so that the lines of both A and B that
 * a block touches stay in L1 while the block is copied.
 */
#include "arena/kernel.h"

#ifndef TILE
#define TILE 1
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	const float *a = args[0].data;
	float *b = args[1].data;
#if TILE > 1
	for (int64_t i0 = 0; i0 < rows; i0 += TILE) {
		int64_t i1 = i0 + TILE < rows ? i0 + TILE : rows;
		for (int64_t j0 = 0; j0 < cols; j0 += TILE) {
			int64_t j1 = j0 + TILE < cols ? j0 + TILE : cols;
			for (int64_t j = j0; j < j1; j++)
				for (int64_t i = i0; i < i1; i++)
					b[j * rows + i] = a[i * cols + j];
		}
	}
#else
	for (int64_t i = 0; i < rows; i++)
		for (int64_t j = 0; j < cols; j++)
			b[j * rows + i] = a[i * cols + j];
#endif
	return 0;
}

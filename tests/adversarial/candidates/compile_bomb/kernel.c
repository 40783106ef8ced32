/* A compile bomb (issue 10, item 11): each macro doubles the one before,
 * so B32 expands to 2^32 tokens and the preprocessor's memory grows until
 * a limit stops it (a machine without one runs out of memory).  It must
 * end as a compile_error naming the limit within seconds, and the same
 * sources must then be answered from the negative cache. */
#include "arena/kernel.h"

#define B0 x
#define B1 B0 B0
#define B2 B1 B1
#define B3 B2 B2
#define B4 B3 B3
#define B5 B4 B4
#define B6 B5 B5
#define B7 B6 B6
#define B8 B7 B7
#define B9 B8 B8
#define B10 B9 B9
#define B11 B10 B10
#define B12 B11 B11
#define B13 B12 B12
#define B14 B13 B13
#define B15 B14 B14
#define B16 B15 B15
#define B17 B16 B16
#define B18 B17 B17
#define B19 B18 B18
#define B20 B19 B19
#define B21 B20 B20
#define B22 B21 B21
#define B23 B22 B22
#define B24 B23 B23
#define B25 B24 B24
#define B26 B25 B25
#define B27 B26 B26
#define B28 B27 B27
#define B29 B28 B28
#define B30 B29 B29
#define B31 B30 B30
#define B32 B31 B31

static int bomb(void)
{
	int x = 0;
	return B32;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	return bomb();
}

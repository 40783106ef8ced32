/* Probe: a kernel that includes a hidden file by its absolute path
 * (issue 10, item 6a): SECRET_FILE, given by the test with -D, is the
 * task's held_out.yaml.  Compiled unconfined, the compiler's errors quote
 * its lines (the held-out cases) back to the agent; confined, the file
 * does not exist for the compiler.  Either way a compile_error; the test
 * checks that the message carries nothing of the file. */
#include "arena/kernel.h"
#include SECRET_FILE

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	return 0;
}

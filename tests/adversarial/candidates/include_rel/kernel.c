/* Probe: a kernel that includes the hidden held-out cases through a path
 * relative to arena's include directory (issue 10, item 6b): in the
 * source tree, engine/include/arena/../../../ is the tree's root.  The
 * compile error must carry nothing of the file. */
#include "arena/kernel.h"
#include "arena/../../../tests/adversarial/task/vecpoly/held_out.yaml"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)args, (void)nargs, (void)params, (void)nparams, (void)stream;
	return 0;
}

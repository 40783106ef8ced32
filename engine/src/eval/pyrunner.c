/*
 * pyrunner.c - the controller's side of the Python runner (docs/python.md):
 * how a runner of a Python role is started.
 *
 * A Python kernel (python, triton, or a Python reference) runs in
 * arena-runner-py: `python3 -B -E arena_runner_py.py <flavour> <lib>
 * <scratch>` followed by the C runner's own arguments, where the library
 * is the C runner itself (runner_embed.h) - the host runner for a host
 * task, the GPU runner for a GPU task - so every request, reply and check
 * is what it is for a compiled kernel.
 *
 * Trusted cache: <cache_dir>/pyrunner-trusted holds what the runner
 * compiles with Triton before its sandbox is on (a warm-up kernel,
 * Triton's driver module); no runner can write it once candidate code
 * runs.
 *
 * Scratch: a GPU runner of a Python role gets a directory of its own role
 * (Triton's cache, temporary files), the only place its sandbox lets it
 * write; runners of one role share it (the JIT of the correctness runner
 * serves the timing blocks), roles never do.  The candidate's is under the
 * evaluation's scratch space and goes with it; the baseline's and the
 * reference's (trusted code) are <cache_dir>/pyrunner/<task>-<role> and
 * last, so that their kernels compile once per task rather than once per
 * evaluation.  A host runner gets none: it writes nothing at all.
 */
#include "evaluation.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/paths.h"

bool ev_role_python(const struct eval_ctx *x, enum role role)
{
	return language_is_python(x->lang[role]);
}

/* The GPU library: $ARENA_PYRUNNER_CUDA_LIB (the tests' emulation), else
 * the one built by nvcc beside the runner. */
static char *gpu_lib(void)
{
	const char *e = getenv("ARENA_PYRUNNER_CUDA_LIB");

	if (e && *e)
		return xstrdup(e);
	return path_join(paths_py_dir(), "libarena-pyrunner-cuda.so");
}

int ev_python_spec(struct eval_ctx *x, enum role role, bool gpu,
		   struct runner_spec *s, struct py_spec *ps)
{
	char *script = path_join(paths_py_dir(), "arena_runner_py.py");
	char *lib =
		gpu ? gpu_lib()
		    : path_join(paths_py_dir(), "libarena-pyrunner-host.so");

	memset(ps, 0, sizeof(*ps));
	if (access(script, R_OK) != 0 || access(lib, R_OK) != 0) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "the Python runner is not built: "
			   "%s or %s is missing (run `make`, or set "
			   "ARENA_PY_DIR)",
			   script, lib);
		free(script);
		free(lib);
		return -1;
	}
	if (gpu && role == ROLE_CAND) {
		ps->scratch =
			xasprintf("%s/py-%s", x->scratch, ev_role_names[role]);
	} else if (gpu) {
		/* Trusted roles keep their JIT across evaluations: the
		 * baseline's Triton kernels compile once per task, not once per
		 * edit of the candidate. */
		char *id = xstrdup(x->t->id);
		for (char *q = id; *q; q++)
			if (*q == '/')
				*q = '_';
		ps->scratch = xasprintf("%s/pyrunner/%s-%s", x->req->cache_dir,
					id, ev_role_names[role]);
		free(id);
	}
	if (ps->scratch) {
		struct errbuf e;
		errbuf_init(&e);
		if (mkdir_p(ps->scratch, &e) != 0) {
			ev_verdict(x, RS_INFRA_ERROR,
				   "cannot create the Python "
				   "runner's scratch directory: %s",
				   errbuf_str(&e));
			free(script);
			free(lib);
			py_spec_release(ps);
			return -1;
		}
	}
	ps->script = script;
	ps->lib = lib;
	if (gpu)
		ps->trusted = path_join(x->req->cache_dir, "pyrunner-trusted");
	ps->args[0] = "-B"; /* no .pyc files: nothing is written */
	ps->args[1] = "-E"; /* no PYTHON* variables */
	ps->args[2] = ps->script;
	ps->args[3] = gpu ? "gpu" : "host";
	ps->args[4] = ps->lib;
	ps->args[5] = ps->scratch ? ps->scratch : "-";
	ps->args[6] = ps->trusted ? ps->trusted : "-";
	ps->args[7] = NULL;
	s->runner_path = paths_python();
	s->pre_args = ps->args;
	s->zygote = pyzygote_enabled();
	s->zygote_skip = 4; /* python -B -E script */
	if (role == ROLE_REF && x->t->reference_entry)
		s->entry = x->t->reference_entry;
	return 0;
}

void py_spec_release(struct py_spec *ps)
{
	free(ps->script);
	free(ps->lib);
	free(ps->scratch);
	free(ps->trusted);
	memset(ps, 0, sizeof(*ps));
}

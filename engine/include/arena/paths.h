/*
 * paths.h - the install layout: where the running arena finds its runners,
 * the headers tasks compile against, the task catalogue and the agents'
 * data, in a build tree and once installed.  One module (base/paths.c)
 * knows the layout; every other part asks it.
 *
 *   build tree (the program in build/):   installed (the program in
 *                                         <prefix>/bin/):
 *     build/arena-runner[-cuda|-hip]        bin/arena-runner[-cuda|-hip]
 *     engine/include/arena/kernel.h         share/arena/include/arena/...
 *     tasks/                                share/arena/tasks/
 *     agents/<name>/agent_config.yaml       share/arena/agents/<name>/...
 *
 * Each path can be overridden by an environment variable (named below),
 * read when it is first asked for.  Results are computed once per process
 * and live as long as it does (never freed).
 */
#ifndef ARENA_PATHS_H
#define ARENA_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The running program's absolute path with links resolved; NULL when
 * /proc/self/exe cannot be read.  Caller frees. */
char *paths_self(void);

/* The directory holding the running program, or NULL when unknown. */
const char *paths_exe_dir(void);

/* Data directory `name` of the layout around a program in exe_dir:
 * exe_dir/../<name> when exe_dir/../<probe> exists (a build tree), else
 * exe_dir/../share/arena/<name> (installed); resolved when it exists.
 * Caller frees. */
char *paths_layout_dir(const char *exe_dir, const char *name,
		       const char *probe);

/* The directory holding arena/kernel.h for task builds:
 * $ARENA_INCLUDE_DIR, else the first of ../engine/include,
 * ../../engine/include, ../share/arena/include next to the program that
 * holds arena/kernel.h, else /usr/local/share/arena/include. */
const char *paths_include_dir(void);

/* The host runner: $ARENA_RUNNER, else arena-runner next to the program
 * or one directory up, else arena-runner from $PATH, else the bare name. */
const char *paths_runner(void);

/* The GPU runner of runtime "cuda" or "hip": $ARENA_RUNNER_CUDA or
 * $ARENA_RUNNER_HIP, else arena-runner-cuda or arena-runner-hip in the
 * host runner's directory; NULL for any other runtime. */
const char *paths_gpu_runner(const char *runtime);

/* The Python interpreter the Python runner runs in (docs/python.md):
 * $ARENA_PYTHON, else /usr/bin/python3 when it exists, else python3 from
 * $PATH. */
const char *paths_python(void);

/* The Python runner's directory (arena_runner_py.py, pycheck.py and the
 * runner libraries): $ARENA_PY_DIR, else arena-python in the host
 * runner's directory, else <prefix>/lib/arena-python. */
const char *paths_py_dir(void);

/* The task catalogue: $ARENA_TASKS_DIR, else <layout>/tasks; "tasks"
 * when the program's location is unknown. */
const char *paths_tasks_root(void);

/* The machine-wide directory of the device locks (one flock file per
 * device, taken by every evaluation that times or checks on it, whatever
 * its store): $ARENA_LOCK_DIR, else /tmp/arena-locks.  Not inside a store:
 * two stores on one machine share its devices. */
const char *paths_lock_dir(void);

#endif /* ARENA_PATHS_H */

/*
 * paths.c - the install layout (arena/paths.h): the one place that knows
 * where a build tree and an installed prefix keep arena's runners,
 * headers, tasks and agent data.
 *
 * Every lookup is done once per process under pthread_once and kept for
 * its life, so concurrent evaluations in several threads share one answer
 * and nothing here is freed.
 */
#include "arena/paths.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/proc.h"
#include "arena/util.h"

char *paths_self(void)
{
	return path_real("/proc/self/exe");
}

static char *exe_dir;
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void exe_init(void)
{
	char *self = paths_self();
	char *slash;

	if (!self)
		return;
	slash = strrchr(self, '/');
	if (slash && slash != self)
		*slash = '\0';
	exe_dir = self;
}

const char *paths_exe_dir(void)
{
	pthread_once(&exe_once, exe_init);
	return exe_dir;
}

char *paths_layout_dir(const char *dir, const char *name, const char *probe)
{
	char *p = xasprintf("%s/../%s", dir, probe);
	char *cand = dir_exists(p) ? xasprintf("%s/../%s", dir, name)
				   : xasprintf("%s/../share/arena/%s", dir,
					       name);
	char *real = path_real(cand);

	free(p);
	if (real) {
		free(cand);
		return real;
	}
	return cand;
}

/* The first of dir/rel[i] that passes ok(), resolved; or NULL. */
static char *first_existing(const char *dir, const char *const *rel,
			    size_t n, bool (*ok)(const char *))
{
	for (size_t i = 0; i < n; i++) {
		char *cand = path_join(dir, rel[i]);
		if (ok(cand)) {
			char *real = path_real(cand);
			if (real) {
				free(cand);
				return real;
			}
			return cand;
		}
		free(cand);
	}
	return NULL;
}

static bool has_kernel_h(const char *dir)
{
	char *p = path_join(dir, "arena/kernel.h");
	bool ok = access(p, R_OK) == 0;

	free(p);
	return ok;
}

static char *include_dir, *runner;
static pthread_once_t tools_once = PTHREAD_ONCE_INIT;

static void tools_init(void)
{
	static const char *const inc_rel[] = { "../engine/include",
					       "../../engine/include",
					       "../share/arena/include" };
	static const char *const run_rel[] = { "arena-runner",
					       "../arena-runner" };
	const char *dir = paths_exe_dir() ? paths_exe_dir() : ".";
	const char *env;

	env = getenv("ARENA_INCLUDE_DIR");
	if (env && *env)
		include_dir = xstrdup(env);
	else
		include_dir = first_existing(dir, inc_rel, ARRAY_SIZE(inc_rel),
					     has_kernel_h);
	if (!include_dir)
		include_dir = xstrdup("/usr/local/share/arena/include");

	env = getenv("ARENA_RUNNER");
	if (env && *env)
		runner = xstrdup(env);
	else
		runner = first_existing(dir, run_rel, ARRAY_SIZE(run_rel),
					path_is_executable);
	if (!runner)	/* last resort: the PATH */
		runner = path_search("arena-runner", NULL);
	if (!runner)
		runner = xstrdup("arena-runner");
}

const char *paths_include_dir(void)
{
	pthread_once(&tools_once, tools_init);
	return include_dir;
}

const char *paths_runner(void)
{
	pthread_once(&tools_once, tools_init);
	return runner;
}

static const char *const gpu_names[2] = { "arena-runner-cuda",
					  "arena-runner-hip" };
static const char *const gpu_envs[2] = { "ARENA_RUNNER_CUDA",
					 "ARENA_RUNNER_HIP" };
static char *gpu_runners[2];
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;

/* Next to the host runner (which may itself come from $ARENA_RUNNER). */
static void gpu_init(void)
{
	char *dir = xstrdup(paths_runner());
	char *slash = strrchr(dir, '/');

	if (slash)
		slash[1] = '\0';
	else
		dir[0] = '\0';
	for (int k = 0; k < 2; k++) {
		const char *e = getenv(gpu_envs[k]);
		gpu_runners[k] = e && *e ? xstrdup(e)
				       : xasprintf("%s%s", dir, gpu_names[k]);
	}
	free(dir);
}

const char *paths_gpu_runner(const char *runtime)
{
	static const char *const runtimes[2] = { "cuda", "hip" };

	for (int k = 0; k < 2; k++)
		if (runtime && !strcmp(runtime, runtimes[k])) {
			pthread_once(&gpu_once, gpu_init);
			return gpu_runners[k];
		}
	return NULL;
}

/* Whether interpreter py finds torch (importlib's find_spec: no import,
 * tens of milliseconds). */
static bool python_has_torch(const char *py)
{
	static char dash_c[] = "-c";
	static char probe[] = "import importlib.util as u, sys; "
			      "sys.exit(u.find_spec('torch') is None)";
	char *argv[] = { (char *)py, dash_c, probe, NULL };
	struct proc_result res = { 0 };
	struct errbuf err;
	bool yes;
	int rc;

	errbuf_init(&err);
	rc = proc_run_capture(argv, NULL, NULL, 10000, 4096, &res, &err);
	yes = rc == 0 && !res.timed_out && WIFEXITED(res.status) &&
	      WEXITSTATUS(res.status) == 0;
	proc_result_release(&res);
	return yes;
}

/* The interpreter when $ARENA_PYTHON is not set: the first of PATH's
 * python3 and /usr/bin/python3 that finds torch, else the first that
 * exists.  Torch lives where it was installed: a virtual environment put
 * on PATH (the H200's /opt/torch/.venv; its system python3 has none), or
 * Debian's python3-torch under /usr/bin/python3 while PATH starts with a
 * pyenv shim that has none (this project's build machines). */
static char *python_choose(void)
{
	char *cand[2] = { path_search_unresolved("python3", NULL), NULL };
	char *pick = NULL;

	if (path_is_executable("/usr/bin/python3"))
		cand[1] = xstrdup("/usr/bin/python3");
	for (int i = 0; i < 2 && !pick; i++)
		if (cand[i] && python_has_torch(cand[i]))
			pick = cand[i];
	for (int i = 0; i < 2 && !pick; i++)
		pick = cand[i];
	pick = xstrdup(pick ? pick : "python3");
	free(cand[0]);
	free(cand[1]);
	return pick;
}

static char *python, *py_dir;
static pthread_once_t py_once = PTHREAD_ONCE_INIT;

static void py_init(void)
{
	const char *env = getenv("ARENA_PYTHON");
	char *dir = xstrdup(paths_runner());
	char *slash = strrchr(dir, '/');

	if (env && *env)
		python = xstrdup(env);
	else
		python = python_choose();
	if (slash)
		slash[1] = '\0';
	else
		dir[0] = '\0';
	env = getenv("ARENA_PY_DIR");
	if (env && *env) {
		py_dir = xstrdup(env);
	} else {
		py_dir = xasprintf("%sarena-python", dir);
		if (!dir_exists(py_dir)) {
			free(py_dir);
			py_dir = xasprintf("%s../lib/arena-python", dir);
		}
		char *real = path_real(py_dir);
		if (real) {
			free(py_dir);
			py_dir = real;
		}
	}
	free(dir);
}

const char *paths_python(void)
{
	pthread_once(&py_once, py_init);
	return python;
}

const char *paths_py_dir(void)
{
	pthread_once(&py_once, py_init);
	return py_dir;
}

static char *tasks_root;
static pthread_once_t tasks_once = PTHREAD_ONCE_INIT;

static void tasks_init(void)
{
	const char *dir = paths_exe_dir();

	tasks_root = dir ? paths_layout_dir(dir, "tasks", "tasks")
			 : xstrdup("tasks");
}

const char *paths_tasks_root(void)
{
	const char *env = getenv("ARENA_TASKS_DIR");

	if (env && *env)
		return env;
	pthread_once(&tasks_once, tasks_init);
	return tasks_root;
}

const char *paths_lock_dir(void)
{
	const char *env = getenv("ARENA_LOCK_DIR");

	return env && *env ? env : "/tmp/arena-locks";
}

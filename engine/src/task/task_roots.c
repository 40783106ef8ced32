/*
 * task_roots.c - task directories other than the tasks root, each under a
 * name that prefixes the ids of its tasks (arena/task.h): an
 * AgentKernelArena checkout registered as `aka` makes its
 * tasks/triton2triton/vllm/triton_rms_norm the task
 * aka/triton2triton/vllm/triton_rms_norm, of family triton2triton.
 *
 * The table is process-wide and only grows (a run config names its roots,
 * the store remembers them for the processes that serve its runs); a
 * mutex guards it because the filesystem daemon loads tasks from several
 * threads.  Paths are stored resolved (realpath), so one directory has one
 * spelling.  A registered root is a catalogue like the tasks root: every
 * confined process (agents, compilers, runners) has it hidden
 * (confine_hide_always), wherever it lies.
 */
#include "task_parse.h"

#include "arena/confine.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TASK_ROOTS_MAX 16
#define TASK_ROOT_NAME_MAX 32

static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;
static int nroots;
static char *root_name[TASK_ROOTS_MAX];
static char *root_path[TASK_ROOTS_MAX];

static bool root_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > TASK_ROOT_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return false;
	return true;
}

/* The directory holding the tasks: path itself, or path/tasks when path
 * is a checkout (it has a tasks/ folder and no config.yaml of its own). */
static char *root_tasks_dir(const char *path)
{
	char *sub = path_join(path, "tasks");
	char *cfg = path_join(path, "config.yaml");
	char *real = NULL;

	if (dir_exists(sub) && !file_exists(cfg))
		real = path_real(sub);
	else
		real = path_real(path);
	free(sub);
	free(cfg);
	return real;
}

/* For a message about a path that was not found: where a relative one
 * was looked for (a config written to the mount's runs/new is read by
 * the daemon, whose directory is /, not the writer's). */
static const char *relative_hint(const char *path, char *buf, size_t n)
{
	char cwd[512];

	if (!path || path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return "";
	snprintf(buf, n,
		 " (a relative path is taken from %s, the directory of the "
		 "process reading the config; write an absolute path)",
		 cwd);
	return buf;
}

int task_root_add(const char *name, const char *path, struct errbuf *err)
{
	char hint[640];
	char *real;
	int rc = 0;

	if (!root_name_ok(name))
		return errf(err,
			    "task root name '%.60s' must be 1 to %d "
			    "characters from [A-Za-z0-9_-]",
			    name ? name : "", TASK_ROOT_NAME_MAX);
	if (!strcmp(name, "all"))
		return errf(err, "task root name 'all' is taken by the "
				 "selector of every task; choose another name");
	if (!path || !dir_exists(path))
		return errf_code(err, ENOENT,
				 "task root '%s': directory %.300s "
				 "does not exist%s",
				 name, path ? path : "(none)",
				 relative_hint(path, hint, sizeof(hint)));
	if (!(real = root_tasks_dir(path)))
		return errf_code(err, ENOENT,
				 "task root '%s': cannot resolve "
				 "%.300s",
				 name, path);
	pthread_mutex_lock(&roots_lock);
	for (int i = 0; i < nroots; i++) {
		if (strcmp(root_name[i], name))
			continue;
		if (strcmp(root_path[i], real))
			rc = errf(err,
				  "task root '%s' is already %s; give this "
				  "one (%s) another name under task_roots:",
				  name, root_path[i], real);
		pthread_mutex_unlock(&roots_lock);
		free(real);
		return rc;
	}
	if (nroots == TASK_ROOTS_MAX) {
		rc = errf(err, "more than %d task roots", TASK_ROOTS_MAX);
		free(real);
	} else {
		root_name[nroots] = xstrdup(name);
		root_path[nroots] = real;
		nroots++;
		confine_hide_always(real);
	}
	pthread_mutex_unlock(&roots_lock);
	return rc;
}

const char *task_root_path(const char *name)
{
	const char *p = NULL;

	pthread_mutex_lock(&roots_lock);
	for (int i = 0; name && i < nroots; i++)
		if (!strcmp(root_name[i], name))
			p = root_path[i];
	pthread_mutex_unlock(&roots_lock);
	/* Entries are never removed or changed: the pointer stays valid. */
	return p;
}

void task_root_list(struct strvec *out)
{
	pthread_mutex_lock(&roots_lock);
	for (int i = 0; i < nroots; i++)
		strvec_pushf(out, "%s\t%s", root_name[i], root_path[i]);
	pthread_mutex_unlock(&roots_lock);
}

/* The registered root an id or selector starts with: its directory, with
 * *rest pointing after "name/" (or at "" for the bare name). */
const char *task_root_of(const char *id, const char **rest)
{
	const char *slash = id ? strchr(id, '/') : NULL;
	size_t n = slash ? (size_t)(slash - id) : (id ? strlen(id) : 0);
	char name[TASK_ROOT_NAME_MAX + 1];

	if (n == 0 || n > TASK_ROOT_NAME_MAX)
		return NULL;
	memcpy(name, id, n);
	name[n] = '\0';
	const char *p = task_root_path(name);
	if (p && rest)
		*rest = slash ? slash + 1 : id + n;
	return p;
}

const char *task_local_id(const char *id)
{
	const char *rest = NULL;

	if (id && task_root_of(id, &rest) && *rest)
		return rest;
	return id;
}

char *task_family_of(const char *id)
{
	const char *l = task_local_id(id), *slash;

	if (!l)
		return xstrdup("");
	slash = strchr(l, '/');
	return slash ? xstrndup(l, (size_t)(slash - l)) : xstrdup(l);
}

int task_aka_selector(const char *selector, char **sel, struct errbuf *err)
{
	const char *path = selector + 4; /* after "aka:" */
	char *real, *tasks = NULL, *sub = NULL;
	int rc;

	*sel = NULL;
	if (strncmp(selector, "aka:", 4) || !*path)
		return errf(err,
			    "'%.200s' is not an aka:PATH selector; write "
			    "aka:/path/to/AgentKernelArena[/tasks/<subdir>]",
			    selector);
	if (!(real = path_real(path)) || !dir_exists(real)) {
		char hint[640];
		free(real);
		return errf_code(err, ENOENT,
				 "aka selector '%.200s': %s is "
				 "not a directory%s",
				 selector, path,
				 relative_hint(path, hint, sizeof(hint)));
	}
	/* The tasks folder is the last path component named "tasks" (an
	 * AKA checkout's tasks/), else real/tasks (the checkout itself). */
	const char *last = NULL;
	for (const char *c = real; (c = strstr(c, "/tasks")) != NULL; c++)
		if (c[6] == '/' || c[6] == '\0')
			last = c;
	if (last) {
		tasks = xstrndup(real, (size_t)(last - real) + 6);
		sub = xstrdup(last[6] == '/' ? last + 7 : "");
	} else {
		tasks = path_join(real, "tasks");
		sub = xstrdup("");
		if (!dir_exists(tasks)) {
			rc = errf_code(err, ENOENT,
				       "aka selector '%.200s': %s "
				       "has no tasks/ folder; name an "
				       "AgentKernelArena checkout or a folder "
				       "below its tasks/",
				       selector, real);
			goto out;
		}
	}
	if ((rc = task_root_add("aka", tasks, err)) != 0)
		goto out;
	*sel = *sub ? path_join("aka", sub) : xstrdup("aka");
out:
	free(real);
	free(tasks);
	free(sub);
	return rc;
}

/*
 * task_catalogue.c - the task catalogue: expanding a selector ("all",
 * "c2c", "c2c/saxpy", any parent directory, "suite:<name>": suites.c,
 * "aka:PATH": an AgentKernelArena checkout registered as task root `aka`)
 * into the sorted task ids under a tasks root or a registered root (ids
 * prefixed with the root's name), and the default root (arena/paths.h
 * knows the layout).
 * The walk is bounded (TASK_SELECT_MAX_DEPTH, TASK_SELECT_MAX_TASKS), so a
 * hostile tree cannot make it run away.
 */
#include "task_parse.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena/paths.h"

#define TASK_SELECT_MAX_DEPTH 16
#define TASK_SELECT_MAX_TASKS 100000

/* ---- catalogue ---------------------------------------------------------- */

static int task_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends the ids of the task directories below root/rel (rel may be NULL
 * for root itself).  A directory holding config.yaml is a task and is not
 * descended; entries starting with '.' are skipped. */
static int task_walk(const char *root, const char *rel, int depth,
		     struct strvec *found, struct errbuf *err)
{
	char *abs = rel ? path_join(root, rel) : xstrdup(root);
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	DIR *d = opendir(abs);
	int rc = 0;

	if (!d) {
		rc = errf_code(err, errno, "cannot list %s: %s", abs,
			       strerror(errno));
		free(abs);
		return rc;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		char *child_rel = rel ? path_join(rel, names.v[i]) :
				  xstrdup(names.v[i]);
		char *child = path_join(root, child_rel);
		char *config = path_join(child, "config.yaml");
		if (!dir_exists(child))
			;
		else if (file_exists(config))
			strvec_push(found, child_rel);
		else if (depth < TASK_SELECT_MAX_DEPTH)
			rc = task_walk(root, child_rel, depth + 1, found, err);
		if (found->n > TASK_SELECT_MAX_TASKS)
			rc = errf(err, "more than %d tasks under %s",
				  TASK_SELECT_MAX_TASKS, root);
		free(child_rel);
		free(child);
		free(config);
	}
	strvec_release(&names);
	free(abs);
	return rc;
}

/* "c2c/" and "c2c" name the same directory. */
static char *task_selector_clean(const char *selector)
{
	size_t n = strlen(selector);

	while (n > 1 && selector[n - 1] == '/')
		n--;
	return xstrndup(selector, n);
}

/* The tasks of one root matching sel ("all" or a relative path), each
 * id prefixed with prefix (a registered root's name) when given. */
static int task_select_in(const char *tasks_root, const char *prefix,
			  const char *sel, const char *selector,
			  struct strvec *ids, struct errbuf *err)
{
	struct strvec found = STRVEC_INIT;
	char *dir = NULL, *config = NULL;
	int rc = 0;

	if (!tasks_root || !dir_exists(tasks_root))
		return errf_code(err, ENOENT,
				 "tasks directory %s does not "
				 "exist; set ARENA_TASKS_DIR to the directory "
				 "that holds the task families",
				 tasks_root ? tasks_root : "(none)");
	if (!strcmp(sel, "all")) {
		rc = task_walk(tasks_root, NULL, 0, &found, err);
	} else {
		dir = path_join(tasks_root, sel);
		config = path_join(dir, "config.yaml");
		if (file_exists(config))
			strvec_push(&found, sel);
		else if (dir_exists(dir))
			rc = task_walk(tasks_root, sel, 0, &found, err);
	}
	if (rc == 0 && found.n == 0)
		rc = errf_code(err, ENOENT, "no task matches selector '%.200s' "
			       "under %s; run 'arena tasks' to list them",
			       selector, tasks_root);
	if (rc == 0) {
		qsort(found.v, found.n, sizeof(*found.v), task_cmp_str);
		for (size_t i = 0; i < found.n; i++) {
			if (prefix)
				strvec_pushf(ids, "%s/%s", prefix, found.v[i]);
			else
				strvec_push(ids, found.v[i]);
		}
	}
	strvec_release(&found);
	free(dir);
	free(config);
	return rc;
}

int task_select(const char *tasks_root, const char *selector,
		struct strvec *ids, struct errbuf *err)
{
	char *sel, *aka = NULL;
	int rc = 0;

	if (!selector)
		return errf(err, "missing task selector");
	/* suite:NAME: a suite of the tasks root (suites.c). */
	if (str_starts_with(selector, "suite:")) {
		struct task_suite s;
		rc = task_suite_load(tasks_root, selector + 6, &s, err);
		for (size_t i = 0; rc == 0 && i < s.ids.n; i++)
			strvec_push(ids, s.ids.v[i]);
		task_suite_release(&s);
		return rc;
	}
	/* aka:PATH registers an AgentKernelArena checkout as root `aka`. */
	if (!strncmp(selector, "aka:", 4)) {
		if ((rc = task_aka_selector(selector, &aka, err)) != 0)
			return rc;
		selector = aka;
	}
	sel = task_selector_clean(selector);
	if (strcmp(sel, "all") != 0 && !path_is_safe_relative(sel)) {
		rc = errf(err,
			  "task selector '%.200s' is not a path under the "
			  "tasks directory; use 'all', a family such as 'c2c' "
			  "or a task id such as 'c2c/saxpy' (or aka:PATH for "
			  "an AgentKernelArena checkout)",
			  selector);
		free(sel);
		free(aka);
		return rc;
	}
	const char *rest = NULL, *other = task_root_of(sel, &rest);
	if (other) {
		char *name =
			xstrndup(sel, (size_t)(rest - sel) - (*rest ? 1 : 0));
		rc = task_select_in(other, name, *rest ? rest : "all", selector,
				    ids, err);
		free(name);
	} else {
		rc = task_select_in(tasks_root, NULL, sel, selector, ids, err);
	}
	free(sel);
	free(aka);
	return rc;
}

const char *task_default_root(void)
{
	return paths_tasks_root();
}

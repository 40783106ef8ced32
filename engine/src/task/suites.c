/*
 * suites.c - named task suites (arena/task.h: task_suite_*): one YAML file
 * per suite, <tasks root>/suites/<name>.yaml, that a run config or any
 * command names as the selector `suite:<name>`.
 *
 *     purpose: >-
 *       What an experimenter measures with this suite, in sentences.
 *     members:
 *       - c2c                  # any task selector: family, directory, id
 *       - hip2hip/gelu
 *
 * A suite is validated whenever it is loaded: only these two keys, a
 * non-empty purpose, 1 to TASK_SUITE_MAX_MEMBERS members, each a selector
 * that matches at least one task (a suite may not name another suite).
 * Its tasks are the union of its members', sorted, each once.
 */
#include "task_parse.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TASK_SUITE_MAX_BYTES (64 * 1024)
#define TASK_SUITE_MAX_MEMBERS 1000
#define TASK_SUITE_MAX 256

void task_suite_release(struct task_suite *s)
{
	free(s->name);
	free(s->purpose);
	free(s->path);
	strvec_release(&s->members);
	strvec_release(&s->ids);
	memset(s, 0, sizeof(*s));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int suite_parse(const char *tasks_root, struct task_suite *s,
		       const struct ynode *root, struct errbuf *err)
{
	static const char *const keys[] = { "purpose", "members" };
	const struct ynode *purpose = ynode_get(root, "purpose");
	const struct ynode *members = ynode_get(root, "members");
	int rc;

	if (!root || root->kind != YNODE_MAP)
		return ynode_errf(err, s->path, root,
				  "a suite must be a map "
				  "with purpose and members");
	if ((rc = ynode_check_keys(root, keys, ARRAY_SIZE(keys), s->path, NULL,
				   err)) != 0)
		return rc;
	if (!ynode_is_text(purpose) || !*purpose->str)
		return ynode_errf(err, s->path, purpose ? purpose : root,
				  "purpose must be a non-empty string: what "
				  "the suite is for");
	if (!members || members->kind != YNODE_SEQ || members->n == 0 ||
	    members->n > TASK_SUITE_MAX_MEMBERS)
		return ynode_errf(err, s->path, members ? members : root,
				  "members must be a list of 1 to %d task "
				  "selectors (e.g. members: [c2c, "
				  "hip2hip/gelu])",
				  TASK_SUITE_MAX_MEMBERS);
	s->purpose = xstrdup(purpose->str);
	for (size_t i = 0; i < members->n; i++) {
		const struct ynode *m = members->items[i];
		struct errbuf e;
		if (!ynode_is_text(m))
			return ynode_errf(err, s->path, m,
					  "members[%zu] must "
					  "be a task selector, not %s",
					  i, ynode_describe(m));
		if (str_starts_with(m->str, "suite:"))
			return ynode_errf(err, s->path, m,
					  "members[%zu] '%s' "
					  "names a suite; list its members "
					  "instead",
					  i, m->str);
		strvec_push(&s->members, m->str);
		errbuf_init(&e);
		if (task_select(tasks_root, m->str, &s->ids, &e) != 0)
			return ynode_errf(err, s->path, m, "members[%zu]: %s",
					  i, errbuf_str(&e));
	}
	/* The union: sorted, each id once. */
	qsort(s->ids.v, s->ids.n, sizeof(*s->ids.v), cmp_str);
	size_t k = 0;
	for (size_t i = 0; i < s->ids.n; i++) {
		if (k && !strcmp(s->ids.v[k - 1], s->ids.v[i])) {
			free(s->ids.v[i]);
			continue;
		}
		s->ids.v[k++] = s->ids.v[i];
	}
	s->ids.n = k;
	return 0;
}

int task_suite_load(const char *tasks_root, const char *name,
		    struct task_suite *out, struct errbuf *err)
{
	char *text = NULL, *file;
	struct ydoc doc;
	size_t len;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!name || !tp_is_name(name, strlen(name)))
		return errf(err,
			    "suite name '%.100s' must be 1 to %d "
			    "characters from [A-Za-z0-9_.-]",
			    name ? name : "", TASK_MAX_NAME_LEN);
	file = xasprintf("suites/%s.yaml", name);
	out->path = path_join(tasks_root, file);
	free(file);
	out->name = xstrdup(name);
	if (!file_exists(out->path)) {
		rc = errf_code(err, ENOENT,
			       "no suite '%s' (%s does not "
			       "exist); run 'arena tasks --suites' to list "
			       "them",
			       name, out->path);
		task_suite_release(out);
		return rc;
	}
	rc = file_read_all(out->path, TASK_SUITE_MAX_BYTES, &text, &len, err);
	if (!rc)
		rc = ydoc_parse(&doc, out->path, text, len, err);
	if (!rc) {
		rc = suite_parse(tasks_root, out, doc.root, err);
		ydoc_release(&doc);
	}
	free(text);
	if (rc)
		task_suite_release(out);
	return rc;
}

int task_suite_list(const char *tasks_root, struct strvec *names,
		    struct errbuf *err)
{
	char *dir = path_join(tasks_root, "suites");
	struct dirent *de;
	DIR *d;

	if (!dir_exists(dir)) {
		free(dir);
		return 0;
	}
	if (!(d = opendir(dir))) {
		int rc = errf_code(err, errno, "cannot list %s: %s", dir,
				   strerror(errno));
		free(dir);
		return rc;
	}
	size_t first = names->n;
	while ((de = readdir(d)) != NULL && names->n - first < TASK_SUITE_MAX) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 5 ||
		    strcmp(de->d_name + n - 5, ".yaml") != 0)
			continue;
		char *name = xstrndup(de->d_name, n - 5);
		strvec_push(names, name);
		free(name);
	}
	closedir(d);
	free(dir);
	qsort(names->v + first, names->n - first, sizeof(*names->v), cmp_str);
	return 0;
}

/*
 * workspace.c - creating an attempt's directories and writing TASK.md
 * (task_doc_render, task/taskdoc.c), and the agent's prompt.
 *
 * Layout of <task_dir>:
 *   workspace/   the editable files (copied from the task) and TASK.md;
 *                the only place an agent writes
 *   baseline/    the baseline's editable files, for people to read; the
 *                evaluator builds the baseline from the task's trusted
 *                copy, never from here
 *   logs/        prompt, agent output, compiler output, runner logs
 */
#include "workspace.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arena/paths.h"

/* Copies the editable files (from_baseline: the task's baseline.files,
 * under the editable names) into dst_dir. */
static int copy_into(const struct task *t, const char *dst_dir,
		     bool keep_existing, bool from_baseline, struct errbuf *err)
{
	for (size_t i = 0; i < t->editable.n; i++) {
		const char *rel = t->editable.v[i];
		const char *src_rel = from_baseline && t->baseline_files.n
					      ? t->baseline_files.v[i] : rel;
		char *src = path_join(t->dir, src_rel);
		char *dst = path_join(dst_dir, rel);
		char *parent = xstrdup(dst);
		int rc = mkdir_p(dirname(parent), err);

		free(parent);
		if (rc == 0 && !(keep_existing && file_exists(dst)) &&
		    file_exists(src)) {
			rc = file_copy(src, dst, err);
			/* The trusted copy is read-only; the agent's copy is
			 * its to edit. */
			if (rc == 0)
				chmod(dst, 0644);
		}
		free(src);
		free(dst);
		if (rc)
			return rc;
	}
	return 0;
}

/* An AgentKernelArena task's workspace holds its whole folder, as AKA's
 * do (the agent may run the task's own commands there for feedback), less
 * build/, caches and hidden entries; bounded, symbolic links skipped.  A
 * rocmbench folder's helper stub (it raises when imported; AKA writes the
 * real helper into each workspace) becomes arena's stand-in. */
#define AKA_WS_MAX_FILES 2000
#define AKA_WS_MAX_BYTES ((size_t)64 << 20)

static int copy_folder(const char *src, const char *dst, int depth, int *files,
		       size_t *bytes, struct errbuf *err)
{
	struct dirent **names = NULL;
	int n = scandir(src, &names, NULL, alphasort), rc = mkdir_p(dst, err);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		char *s = path_join(src, nm), *d = path_join(dst, nm);
		struct stat st;
		if (rc == 0 && nm[0] != '.' && strcmp(nm, "build") &&
		    strcmp(nm, "__pycache__") && lstat(s, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < 6) {
				rc = copy_folder(s, d, depth + 1, files, bytes,
						 err);
			} else if (S_ISREG(st.st_mode) && !file_exists(d) &&
				   *files < AKA_WS_MAX_FILES &&
				   *bytes + (size_t)st.st_size <=
					   AKA_WS_MAX_BYTES) {
				char *from = xstrdup(s), *text = NULL;
				size_t len = 0;
				struct errbuf e;
				errbuf_init(&e);
				if (!strcmp(nm,
					    "performance_utils_pytest.py") &&
				    file_read_all(s, 1 << 20, &text, &len,
						  &e) == 0 &&
				    !strstr(text, "PytestBenchmarker")) {
					free(from);
					from = path_join(paths_py_dir(),
							 "aka_perf_utils.py");
				}
				free(text);
				rc = file_copy(from, d, err);
				/* The trusted copy is read-only; the
				 * workspace is the agent's. */
				if (rc == 0)
					chmod(d, (st.st_mode & 0755) | 0600);
				free(from);
				(*files)++;
				*bytes += (size_t)st.st_size;
			}
		}
		free(s);
		free(d);
		free(names[i]);
	}
	free(names);
	return rc;
}

int workspace_create(const struct task *t, const char *task_dir,
		     struct errbuf *err)
{
	char *ws = path_join(task_dir, "workspace");
	char *base = path_join(task_dir, "baseline");
	char *logs = path_join(task_dir, "logs");
	char *doc_path = path_join(ws, "TASK.md");
	char *doc = NULL;
	int rc;

	rc = mkdir_p(ws, err);
	if (!rc)
		rc = mkdir_p(base, err);
	if (!rc)
		rc = mkdir_p(logs, err);
	/* The baseline is frozen: written once, never overwritten. */
	if (!rc)
		rc = copy_into(t, base, true, true, err);
	if (!rc)
		rc = copy_into(t, ws, true, false, err);
	if (!rc && t->aka) {
		int files = 0;
		size_t bytes = 0;
		rc = copy_folder(t->dir, ws, 0, &files, &bytes, err);
	}
	if (!rc && !file_exists(doc_path)) {
		doc = task_doc_render(t);
		rc = file_write_atomic_str(doc_path, doc, err);
	}
	free(doc);
	free(doc_path);
	free(ws);
	free(base);
	free(logs);
	return rc;
}

int workspace_baseline_dir(const struct task *t, const char *cache_dir,
			   char **out, struct errbuf *err)
{
	struct sha256 s;
	unsigned char d[32];
	char hex[65];
	int rc = 0;

	*out = NULL;
	if (t->baseline_files.n == 0)
		return 0;
	sha256_init(&s);
	for (size_t i = 0; i < t->editable.n; i++) {
		char *src = path_join(t->dir, t->baseline_files.v[i]);
		char fh[65];
		rc = sha256_file_hex(src, fh, err);
		free(src);
		if (rc)
			return rc;
		sha256_update(&s, t->editable.v[i], strlen(t->editable.v[i]) + 1);
		sha256_update(&s, fh, sizeof(fh));
	}
	sha256_final(&s, d);
	sha256_to_hex(d, hex);
	char *dir = xasprintf("%s/baselines/%s", cache_dir, hex);
	rc = mkdir_p(dir, err);
	if (!rc)
		rc = copy_into(t, dir, true, true, err);
	if (rc)
		free(dir);
	else
		*out = dir;
	return rc;
}


char *prompt_render(const struct task *t, const char *workspace,
		    int max_iterations)
{
	struct strbuf sb = STRBUF_INIT;
	char *doc = task_doc_render(t);

	strbuf_addf(&sb, "You are optimizing a kernel. Your working directory "
		    "is %s; TASK.md there describes the task (reproduced "
		    "below).\n\n", workspace);
	strbuf_addstr(&sb, doc);
	strbuf_addf(&sb, "\n## Iterating\n\nWork in up to %d improvement "
		    "iterations: change the kernel, evaluate, keep the best "
		    "correct version in the editable files. Leave the "
		    "workspace holding your best correct version when you "
		    "stop.\n", max_iterations > 0 ? max_iterations : 3);
	free(doc);
	return strbuf_detach(&sb);
}

/*
 * fsv_tree.c - the synthetic namespace of DESIGN.md §7: which names exist
 * under each synthetic directory, their attributes and their listings.
 *
 * Existence is always asked of the engine at lookup time (a run directory
 * exists when the store has the run, a task directory when the run has an
 * attempt with that directory name), so the view can never disagree with
 * the store for longer than an entry timeout.  Nothing here caches.
 *
 * Two names lead out of the synthetic half: /tasks (the task packages,
 * read-only) and runs/<run>/tasks/<dir>/workspace (the attempt's real
 * workspace); both become pass-through nodes (fsv_pass.c).
 */
#include "fsv.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct named_kind {
	const char *name;
	enum fsv_kind kind;
};

static const struct named_kind run_files[] = {
	{ "config.yaml", FSV_RUN_CONFIG }, { "status", FSV_RUN_STATUS },
	{ "summary.csv", FSV_RUN_CSV }, { "summary.json", FSV_RUN_JSON },
	{ "report.txt", FSV_RUN_TXT }, { "report.html", FSV_RUN_HTML },
	{ "control", FSV_RUN_CONTROL }, { "events", FSV_RUN_EVENTS },
	{ "tasks", FSV_RUN_TASKS },
};

static const struct named_kind task_files[] = {
	{ "task_result.yaml", FSV_TASK_RESULT }, { "score", FSV_TASK_SCORE },
};

bool fsv_kind_is_dir(enum fsv_kind k)
{
	switch (k) {
	case FSV_ROOT: case FSV_RUNS: case FSV_RUN: case FSV_RUN_TASKS:
	case FSV_TASK: case FSV_CMP: case FSV_CMP_A: case FSV_CMP_AB:
		return true;
	default:
		return false;
	}
}

bool fsv_kind_writable(enum fsv_kind k)
{
	return k == FSV_RUNS_NEW || k == FSV_RUN_CONTROL;
}

static char *child_path(const struct fsv_node *parent, const char *name)
{
	if (strcmp(parent->path, "/") == 0)
		return xasprintf("/%s", name);
	return xasprintf("%s/%s", parent->path, name);
}

/* 0 when the store has run id, ENOENT when not, EIO when the store
 * cannot say. */
static int run_check(struct engine *e, const char *id)
{
	struct store_run r;
	int rc;

	if (!store_run_id_valid(id))
		return ENOENT;
	rc = store_run_get(engine_store(e), id, &r, NULL);
	if (rc)
		return rc == -ENOENT ? ENOENT : EIO;
	store_run_release(&r);
	return 0;
}

static bool has_latest(struct engine *e)
{
	char *id = NULL;
	bool ok = store_run_latest(engine_store(e), &id, NULL) == 0;

	free(id);
	return ok;
}

/* 0, ENOENT or EIO, like run_check(). */
static int task_check(struct engine *e, const char *run, const char *dir)
{
	char *task_id = NULL;
	int attempt, rc;

	rc = engine_attempt_by_dirname(e, run, dir, &task_id, &attempt, NULL);
	free(task_id);
	return rc == 0 ? 0 : rc == -ENOENT ? ENOENT : EIO;
}

char *fsv_workspace_path(struct fsv *fs, struct engine *e,
			 const struct fsv_node *task)
{
	char *run_dir = store_run_dir(engine_store(e), task->run);
	char *ws = xasprintf("%s/tasks/%s/workspace", run_dir, task->task);

	(void)fs;
	free(run_dir);
	return ws;
}

static enum fsv_kind find_named(const struct named_kind *t, size_t n,
				const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].kind;
	return 0;
}

/* Which child `name` of a synthetic directory is (spec filled), or an
 * errno.  Pass-through children are answered directly into e (*done). */
static int resolve(struct fsv *fs, struct engine *e, struct fsv_node *p,
		   const char *name, struct fsv_spec *spec,
		   struct fuse_entry_param *ep, bool *done)
{
	int rc;

	memset(spec, 0, sizeof(*spec));
	switch (p->kind) {
	case FSV_ROOT:
		if (strcmp(name, "tasks") == 0) {
			*done = true;
			return fsv_pass_entry(fs, fs->tasks_dir, &fs->tasks_root,
					      ep);
		}
		spec->kind = !strcmp(name, "README") ? FSV_README
			   : !strcmp(name, "runs") ? FSV_RUNS
			   : !strcmp(name, "compare") ? FSV_CMP : 0;
		return spec->kind ? 0 : ENOENT;
	case FSV_RUNS:
		if (strcmp(name, "new") == 0)
			spec->kind = FSV_RUNS_NEW;
		else if (strcmp(name, "errors") == 0)
			spec->kind = FSV_RUNS_ERRORS;
		else if (strcmp(name, "latest") == 0)
			spec->kind = has_latest(e) ? FSV_RUNS_LATEST : 0;
		else {
			rc = run_check(e, name);
			if (rc)
				return rc;
			spec->kind = FSV_RUN;
			spec->run = name;
		}
		return spec->kind ? 0 : ENOENT;
	case FSV_RUN:
		spec->kind = find_named(run_files, ARRAY_SIZE(run_files), name);
		spec->run = p->run;
		return spec->kind ? 0 : ENOENT;
	case FSV_RUN_TASKS:
		if ((rc = task_check(e, p->run, name)) != 0)
			return rc;
		spec->kind = FSV_TASK;
		spec->run = p->run;
		spec->task = name;
		return 0;
	case FSV_TASK:
		if (strcmp(name, "workspace") == 0) {
			char *task_id = NULL;
			int attempt;
			*done = true;
			rc = engine_attempt_by_dirname(e, p->run, p->task,
						       &task_id, &attempt, NULL);
			if (rc)
				return rc == -ENOENT ? ENOENT : EIO;
			struct fsv_root *root = fsv_root_workspace(
				fs, p->run, p->task, task_id, attempt);
			free(task_id);
			char *ws = fsv_workspace_path(fs, e, p);
			rc = fsv_pass_entry(fs, ws, root, ep);
			free(ws);
			return rc;
		}
		spec->kind = find_named(task_files, ARRAY_SIZE(task_files),
					name);
		spec->run = p->run;
		spec->task = p->task;
		return spec->kind ? 0 : ENOENT;
	case FSV_CMP:
		if ((rc = run_check(e, name)) != 0)
			return rc;
		spec->kind = FSV_CMP_A;
		spec->run = name;
		return 0;
	case FSV_CMP_A:
		if ((rc = run_check(e, name)) != 0)
			return rc;
		spec->kind = FSV_CMP_AB;
		spec->run = p->run;
		spec->run_b = name;
		return 0;
	case FSV_CMP_AB:
		if (strcmp(name, "report.txt"))
			return ENOENT;
		spec->kind = FSV_CMP_REPORT;
		spec->run = p->run;
		spec->run_b = p->run_b;
		return 0;
	default:
		return ENOTDIR;
	}
}

int fsv_tree_lookup(struct fsv *fs, struct fsv_node *parent, const char *name,
		    struct fuse_entry_param *e)
{
	struct fsv_spec spec;
	struct engine *eng;
	bool done = false;
	int err = 0, rc;

	memset(e, 0, sizeof(*e));
	if (!fsv_kind_is_dir(parent->kind))
		return ENOTDIR;
	if (strlen(name) > NAME_MAX)
		return ENAMETOOLONG;
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return ENOENT;
	eng = fsv_engine(fs, &err);
	if (!eng)
		return err;
	rc = resolve(fs, eng, parent, name, &spec, e, &done);
	if (rc || done)
		return rc;
	char *path = child_path(parent, name);
	struct fsv_node *n = fsv_node_synth(fs, &spec, path);
	free(path);
	e->ino = n->ino;
	rc = fsv_tree_stat(fs, n, &e->attr, &e->attr_timeout);
	if (rc) {
		fsv_node_forget(fs, n->ino, 1);
		memset(e, 0, sizeof(*e));
		return rc;
	}
	e->entry_timeout = FSV_SYNTH_ENTRY_TIMEOUT;
	return 0;
}

int fsv_tree_readlink(struct fsv *fs, struct fsv_node *n, char **target)
{
	struct engine *e;
	int err = 0;

	if (n->kind != FSV_RUNS_LATEST)
		return EINVAL;
	e = fsv_engine(fs, &err);
	if (!e)
		return err;
	if (store_run_latest(engine_store(e), target, NULL) != 0)
		return ENOENT;
	return 0;
}

int fsv_tree_stat(struct fsv *fs, struct fsv_node *n, struct stat *st,
		  double *timeout)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = n->ino;
	st->st_uid = fs->uid;
	st->st_gid = fs->gid;
	st->st_atim = st->st_mtim = st->st_ctim = fs->started;
	st->st_blksize = 4096;
	*timeout = 0;
	if (fsv_kind_is_dir(n->kind)) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		*timeout = FSV_SYNTH_DIR_ATTR_TIMEOUT;
		/* The kernel keeps every listing until it sees the mtime move
		 * (op_opendir): the directories that list runs move it at
		 * every look, so their listings are at most an attribute
		 * timeout old (a run created through runs/new invalidates
		 * runs/ at once: fsv_files.c). */
		if (n->kind == FSV_RUNS || n->kind == FSV_CMP ||
		    n->kind == FSV_CMP_A) {
			clock_gettime(CLOCK_REALTIME, &st->st_mtim);
			st->st_ctim = st->st_mtim;
		}
		return 0;
	}
	st->st_nlink = 1;
	if (n->kind == FSV_RUNS_LATEST) {
		char *target = NULL;
		int rc = fsv_tree_readlink(fs, n, &target);
		if (rc)
			return rc;
		st->st_mode = S_IFLNK | 0777;
		st->st_size = (off_t)strlen(target);
		free(target);
		return 0;
	}
	st->st_mode = S_IFREG | (fsv_kind_writable(n->kind) ? 0644 : 0444);
	int err = 0;
	struct engine *e = fsv_engine(fs, &err);
	if (!e)
		return err;
	st->st_size = fsv_render_size(fs, e, n, NULL);
	st->st_blocks = (st->st_size + 511) / 512;
	clock_gettime(CLOCK_REALTIME, &st->st_mtim);
	st->st_ctim = st->st_mtim;
	return 0;
}

/* ---- listings -------------------------------------------------------- */

static void list_add(struct fsv_listing *l, size_t *cap, const char *name,
		     unsigned char type, fuse_ino_t ino)
{
	if (l->n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		l->v = xrealloc(l->v, *cap * sizeof(*l->v));
	}
	l->v[l->n].name = xstrdup(name);
	l->v[l->n].type = type;
	l->v[l->n].ino = ino;
	l->n++;
}

static void list_child(struct fsv_listing *l, size_t *cap,
		       const struct fsv_node *dir, const char *name,
		       unsigned char type)
{
	char *path = child_path(dir, name);

	list_add(l, cap, name, type, fsv_path_ino(path));
	free(path);
}

static int list_runs(struct engine *e, struct fsv_listing *l, size_t *cap,
		     const struct fsv_node *dir)
{
	struct strvec ids = STRVEC_INIT;
	int rc = store_run_list(engine_store(e), &ids, NULL);

	if (rc)
		return rc < 0 ? -rc : EIO;
	for (size_t i = 0; i < ids.n; i++)
		list_child(l, cap, dir, ids.v[i], DT_DIR);
	strvec_release(&ids);
	return 0;
}

static int list_tasks(struct engine *e, struct fsv_listing *l, size_t *cap,
		      const struct fsv_node *dir)
{
	struct store_attempt *as = NULL;
	int n = 0, rc;

	rc = store_attempt_list(engine_store(e), dir->run, &as, &n, NULL);
	if (rc)
		return rc < 0 ? -rc : EIO;
	for (int i = 0; i < n; i++) {
		char *name = store_task_dirname(as[i].task_id, as[i].attempt);
		list_child(l, cap, dir, name, DT_DIR);
		free(name);
	}
	store_attempts_free(as, n);
	return 0;
}

int fsv_tree_list(struct fsv *fs, struct fsv_node *dir,
		  struct fsv_listing *out)
{
	struct engine *e;
	size_t cap = 0;
	int err = 0, rc = 0;

	memset(out, 0, sizeof(*out));
	if (!fsv_kind_is_dir(dir->kind))
		return ENOTDIR;
	e = fsv_engine(fs, &err);
	if (!e)
		return err;
	list_add(out, &cap, ".", DT_DIR, dir->ino);
	list_add(out, &cap, "..", DT_DIR, FUSE_ROOT_ID);
	switch (dir->kind) {
	case FSV_ROOT:
		list_child(out, &cap, dir, "README", DT_REG);
		list_child(out, &cap, dir, "tasks", DT_DIR);
		list_child(out, &cap, dir, "runs", DT_DIR);
		list_child(out, &cap, dir, "compare", DT_DIR);
		break;
	case FSV_RUNS:
		list_child(out, &cap, dir, "new", DT_REG);
		list_child(out, &cap, dir, "errors", DT_REG);
		if (has_latest(e))
			list_child(out, &cap, dir, "latest", DT_LNK);
		rc = list_runs(e, out, &cap, dir);
		break;
	case FSV_RUN:
		for (size_t i = 0; i < ARRAY_SIZE(run_files); i++)
			list_child(out, &cap, dir, run_files[i].name,
				   run_files[i].kind == FSV_RUN_TASKS ? DT_DIR
								      : DT_REG);
		break;
	case FSV_RUN_TASKS:
		rc = list_tasks(e, out, &cap, dir);
		break;
	case FSV_TASK:
		list_child(out, &cap, dir, "workspace", DT_DIR);
		for (size_t i = 0; i < ARRAY_SIZE(task_files); i++)
			list_child(out, &cap, dir, task_files[i].name, DT_REG);
		break;
	case FSV_CMP:
	case FSV_CMP_A:
		rc = list_runs(e, out, &cap, dir);
		break;
	case FSV_CMP_AB:
		list_child(out, &cap, dir, "report.txt", DT_REG);
		break;
	default:
		break;
	}
	if (rc)
		fsv_listing_release(out);
	return rc;
}

void fsv_listing_release(struct fsv_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * fsv_render.c - the content of every synthetic file.
 *
 * Each renderer is a function of the engine's state at the moment of the
 * call: files are rendered once per open into the handle's snapshot
 * (fsv_files.c), and getattr renders to report a size.  Renderers for
 * run reports reuse what the engine wrote (summary.csv, summary.json,
 * report.txt are the engine's own renderings in the run directory) or
 * call the engine's renderers (report.html, compare).
 *
 * Held-out cases are secret from agents, and agents read this tree: the
 * results (task_result.yaml, score) are shown without them and every
 * event message about one is withheld (result_view.h).  The owner sees
 * everything through the CLI and the store.
 *
 * runs/new outcomes and runs/errors are the only things the daemon writes
 * on its own account; they live in <store>/fs/ so that a remount shows
 * the same thing (the daemon keeps no state of its own in memory).
 * fs->outcome_lock serialises their writers inside one daemon.
 */
#include "fsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/compare.h"
#include "arena/result_view.h"

#define REPORT_FILE_MAX ((size_t)64 << 20)
#define EVENTS_PAGE 1000
#define OUTCOME_MAX ((size_t)64 << 10)

static int errno_of(int rc)
{
	return rc < 0 ? -rc : rc ? rc : 0;
}

/* ---- README ---------------------------------------------------------- */

static void render_readme(struct fsv *fs, struct strbuf *out)
{
	strbuf_addf(out,
		"arena - kernel-optimisation experiments as files\n"
		"\n"
		"store: %s\nmounted at: %s\n"
		"\n"
		"  tasks/<family>/<name>/        task packages (read-only)\n"
		"  runs/new                      write a run config here; "
		"closing it launches the run\n"
		"                                (cp my.yaml runs/new && cat "
		"runs/new  prints the run id)\n"
		"  runs/errors                   why recent configs were "
		"refused\n"
		"  runs/latest -> run_...        the newest run\n"
		"  runs/<run>/status             progress\n"
		"  runs/<run>/summary.csv  summary.json  report.txt  "
		"report.html\n"
		"  runs/<run>/config.yaml        the config the run was "
		"created from\n"
		"  runs/<run>/control            write 'cancel' or 'resume'\n"
		"  runs/<run>/events             what happened so far (tail "
		"-f works)\n"
		"  runs/<run>/tasks/<task>/workspace/        the agent's "
		"files, read-write\n"
		"  runs/<run>/tasks/<task>/task_result.yaml  evaluates if the "
		"workspace changed\n"
		"  runs/<run>/tasks/<task>/score             one number, same "
		"rule\n"
		"  compare/<runA>/<runB>/report.txt           paired "
		"comparison of two runs\n"
		"\n"
		"docs/fs-semantics.md describes every path, its caching and "
		"its errors.\n"
		"Unmount with: fusermount3 -u %s\n",
		fs->store_dir, fs->mountpoint, fs->mountpoint);
}

/* ---- runs ------------------------------------------------------------ */

static int render_config(struct engine *e, const char *run,
			 struct strbuf *out)
{
	struct store_run r;
	int rc = store_run_get(engine_store(e), run, &r, NULL);

	if (rc)
		return errno_of(rc);
	strbuf_addstr(out, r.config_yaml ? r.config_yaml : "");
	store_run_release(&r);
	return 0;
}

static int render_status(struct engine *e, const char *run,
			 struct strbuf *out)
{
	struct run_progress p;
	struct store_attempt *as = NULL;
	int n = 0, rc;

	rc = engine_run_progress(e, run, &p, NULL);
	if (rc)
		return errno_of(rc);
	int pending = p.total - p.done - p.running - p.stale;
	strbuf_addf(out, "run: %s\nstatus: %s\nexecutor: %s\n", run, p.status,
		    p.executor_alive ? "running" : "not running");
	if (p.workers > 0)
		strbuf_addf(out, "workers: %d (processes holding leases: "
			    "arena worker, Slurm jobs)\n", p.workers);
	strbuf_addf(out, "progress: %d/%d done, %d running, %d stale, %d "
		    "pending\n", p.done, p.total, p.running, p.stale,
		    pending < 0 ? 0 : pending);
	if (!p.executor_alive && (p.stale || pending > 0 || p.running) &&
	    strcmp(p.status, "cancelled") != 0)
		strbuf_addstr(out, "hint: nothing is executing this run; "
			      "write 'resume' to its control file\n");
	run_progress_release(&p);
	if (store_attempt_list(engine_store(e), run, &as, &n, NULL) == 0) {
		strbuf_addstr(out, "tasks:\n");
		for (int i = 0; i < n; i++)
			strbuf_addf(out, "  %s #%d %s\n", as[i].task_id,
				    as[i].attempt, as[i].state);
		store_attempts_free(as, n);
	}
	return 0;
}

/* summary.csv, summary.json and report.txt are the engine's renderings in
 * the run directory; a run whose reports were never written gets them
 * written now. */
static int render_report_file(struct engine *e, const char *run,
			      const char *file, struct strbuf *out)
{
	char *dir = store_run_dir(engine_store(e), run);
	char *path = path_join(dir, file), *text = NULL;
	size_t len = 0;
	int rc = file_read_all(path, REPORT_FILE_MAX, &text, &len, NULL);

	if (rc == -ENOENT) {
		rc = engine_run_report(e, run, NULL);
		if (!rc)
			rc = file_read_all(path, REPORT_FILE_MAX, &text, &len,
					   NULL);
	}
	if (!rc)
		strbuf_add(out, text, len);
	free(text);
	free(path);
	free(dir);
	return errno_of(rc);
}

static int render_html(struct engine *e, const char *run, struct strbuf *out)
{
	char *html = NULL;
	int rc = engine_run_html(e, run, &html, NULL);

	if (!rc)
		strbuf_addstr(out, html);
	free(html);
	return errno_of(rc);
}

static int render_control(struct engine *e, const char *run,
			  struct strbuf *out)
{
	struct store_run r;
	int rc = store_run_get(engine_store(e), run, &r, NULL);

	if (rc)
		return errno_of(rc);
	strbuf_addf(out, "status: %s\ncommands: cancel, resume (write one "
		    "per line)\n", r.status);
	store_run_release(&r);
	return 0;
}

static void one_line(struct strbuf *out, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(out, *s == '\n' || *s == '\r' ? ' ' : *s);
}

int fsv_render_events(struct engine *e, const char *run_id, int64_t *last_id,
		      struct strbuf *out)
{
	for (;;) {
		struct store_event *ev = NULL;
		int n = 0;
		int rc = store_event_list(engine_store(e), run_id, *last_id,
					  EVENTS_PAGE, &ev, &n, NULL);
		if (rc)
			return errno_of(rc);
		for (int i = 0; i < n; i++) {
			char ts[32];
			time_stamp_iso(ts, ev[i].ts);
			strbuf_addf(out, "%s %-11s %-24s ", ts, ev[i].kind,
				    ev[i].task_id ? ev[i].task_id : "-");
			one_line(out, result_text_mentions_held_out(
					      ev[i].message)
					      ? RESULT_WITHHELD
					      : ev[i].message);
			strbuf_addch(out, '\n');
			*last_id = ev[i].id;
		}
		store_events_free(ev, n);
		if (n < EVENTS_PAGE)
			return 0;
	}
}

static int render_compare(struct engine *e, const struct fsv_node *n,
			  struct strbuf *out)
{
	struct compare_report r;
	int rc = compare_runs(engine_store(e), n->run, n->run_b, &r, NULL);

	if (!rc) {
		char *text = compare_report_text(&r);
		strbuf_addstr(out, text);
		free(text);
	}
	compare_report_release(&r);
	return errno_of(rc);
}

/* ---- runs/new outcomes and runs/errors --------------------------------- */

static char *fs_file(struct fsv *fs, const char *name)
{
	return xasprintf("%s/fs/%s", fs->store_dir, name);
}

static void errors_append(struct fsv *fs, uid_t uid, pid_t pid,
			  const char *text)
{
	char *path = fs_file(fs, "errors.log"), *old = NULL;
	struct strbuf sb = STRBUF_INIT, entry = STRBUF_INIT;
	char ts[32];
	size_t len = 0;

	time_stamp_iso(ts, now_wall());
	strbuf_addf(&entry, "%s uid=%u pid=%d ", ts, (unsigned)uid, (int)pid);
	one_line(&entry, text);
	strbuf_addch(&entry, '\n');
	if (file_read_all(path, OUTCOME_MAX * 16, &old, &len, NULL) == 0) {
		/* Keep the newest FSV_ERRORS_KEEP - 1 old entries. */
		int lines = 0;
		const char *start = old + len;
		while (start > old) {
			const char *q = start - 1;
			while (q > old && q[-1] != '\n')
				q--;
			if (++lines > FSV_ERRORS_KEEP - 1)
				break;
			start = q;
		}
		strbuf_add(&sb, start, (size_t)(old + len - start));
	}
	strbuf_add(&sb, entry.buf, entry.len);
	file_write_atomic(path, sb.buf, sb.len, NULL);
	strbuf_release(&sb);
	strbuf_release(&entry);
	free(old);
	free(path);
}

void fsv_outcome_record(struct fsv *fs, uid_t uid, pid_t pid, bool ok,
			const char *text)
{
	char name[64];
	char *path;

	snprintf(name, sizeof(name), "last-new.%u", (unsigned)uid);
	path = fs_file(fs, name);
	pthread_mutex_lock(&fs->outcome_lock);
	char *line = xasprintf("%s\n", text);
	file_write_atomic_str(path, line, NULL);
	free(line);
	if (!ok)
		errors_append(fs, uid, pid, text);
	pthread_mutex_unlock(&fs->outcome_lock);
	free(path);
}

static int read_small(const char *path, struct strbuf *out)
{
	char *text = NULL;
	size_t len = 0;
	int rc = file_read_all(path, OUTCOME_MAX * 16, &text, &len, NULL);

	if (rc == -ENOENT)
		return 0;	/* nothing yet: an empty file */
	if (!rc)
		strbuf_add(out, text, len);
	free(text);
	return errno_of(rc);
}

int fsv_outcome_read(struct fsv *fs, uid_t uid, struct strbuf *out)
{
	char name[64];
	char *path;
	int rc;

	snprintf(name, sizeof(name), "last-new.%u", (unsigned)uid);
	path = fs_file(fs, name);
	rc = read_small(path, out);
	free(path);
	return rc;
}

int fsv_errors_read(struct fsv *fs, struct strbuf *out)
{
	char *path = fs_file(fs, "errors.log");
	int rc = read_small(path, out);

	free(path);
	return rc;
}

/* ---- dispatch -------------------------------------------------------- */

int fsv_render(struct fsv *fs, struct engine *e, const struct fsv_node *n,
	       const struct fuse_ctx *ctx, struct strbuf *out)
{
	int64_t last = 0;

	switch (n->kind) {
	case FSV_README:
		render_readme(fs, out);
		return 0;
	case FSV_RUNS_NEW:
		return ctx ? fsv_outcome_read(fs, ctx->uid, out) : 0;
	case FSV_RUNS_ERRORS:
		return fsv_errors_read(fs, out);
	case FSV_RUN_CONFIG:
		return render_config(e, n->run, out);
	case FSV_RUN_STATUS:
		return render_status(e, n->run, out);
	case FSV_RUN_CSV:
		return render_report_file(e, n->run, "summary.csv", out);
	case FSV_RUN_JSON:
		return render_report_file(e, n->run, "summary.json", out);
	case FSV_RUN_TXT:
		return render_report_file(e, n->run, "report.txt", out);
	case FSV_RUN_HTML:
		return render_html(e, n->run, out);
	case FSV_RUN_CONTROL:
		return render_control(e, n->run, out);
	case FSV_RUN_EVENTS:
		return fsv_render_events(e, n->run, &last, out);
	case FSV_CMP_REPORT:
		return render_compare(e, n, out);
	default:
		return EINVAL;
	}
}

char *fsv_render_result(enum fsv_kind kind, const struct task_result *r)
{
	if (kind == FSV_TASK_SCORE) {
		/* The verdict's score: a number about the whole task. */
		char *line = result_score_line(r);
		if (line && (!*line || line[strlen(line) - 1] != '\n')) {
			char *nl = xasprintf("%s\n", line);
			free(line);
			return nl;
		}
		return line;
	}
	struct task_result view;
	result_copy(&view, r);
	result_hide_held_out(&view);
	char *yaml = result_to_yaml(&view);
	result_release(&view);
	return yaml;
}

/* Size of the stored result's rendering: a stale attempt may render
 * differently once evaluated, which direct_io reads tolerate. */
static off_t stored_result_size(struct engine *e, const struct fsv_node *n)
{
	struct task_result r;
	char *task_id = NULL, *text;
	int attempt;
	off_t size = 0;

	if (engine_attempt_by_dirname(e, n->run, n->task, &task_id, &attempt,
				      NULL) != 0)
		return 0;
	result_init(&r);
	if (engine_task_result_stored(e, n->run, task_id, attempt, &r,
				      NULL) == 0) {
		text = fsv_render_result(n->kind, &r);
		size = (off_t)strlen(text);
		free(text);
	}
	result_release(&r);
	free(task_id);
	return size;
}

off_t fsv_render_size(struct fsv *fs, struct engine *e,
		      const struct fsv_node *n, const struct fuse_ctx *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	off_t size = 0;

	switch (n->kind) {
	case FSV_RUNS_NEW:
	case FSV_RUN_CONTROL:
		return 0;	/* write-mostly, like sysfs attributes */
	case FSV_TASK_RESULT:
	case FSV_TASK_SCORE:
		return stored_result_size(e, n);
	default:
		if (fsv_render(fs, e, n, ctx, &sb) == 0)
			size = (off_t)sb.len;
		strbuf_release(&sb);
		return size;
	}
}

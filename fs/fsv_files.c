/*
 * fsv_files.c - open files of the synthetic half: snapshots, runs/new,
 * control and the growing events file.
 *
 * Every synthetic open gets a handle (fi->fh) holding a snapshot rendered
 * at open, served with direct_io so the kernel never caches it and a
 * stale size never truncates a read.  Special handles:
 *
 *   runs/new  a per-open buffer of at most RUNCONFIG_MAX_BYTES.  The
 *             first flush (close) after a write commits it: the config is
 *             validated with engine_config_parse() (the same call as
 *             `arena run`), the run is created with engine_run_create()
 *             and a detached executor is started.  The outcome (run id, or
 *             the engine's message) is recorded for the writer's uid and
 *             is what a later `cat runs/new` shows; refusals are appended
 *             to runs/errors.  A read on the writing descriptor commits
 *             too, and then returns the run id (Plan 9 clone style).
 *             A descriptor opened to write (O_WRONLY or O_TRUNC) that is
 *             closed for the last time with nothing written commits an
 *             empty config, which is refused (EINVAL) like any other bad
 *             one; see empty_final_close() for "last time".
 *   control   each write is one or more newline-separated commands,
 *             checked all before any is executed.
 *   events    reading past the snapshot's end appends the events recorded
 *             since, so the file grows like a log; poll() wakes when
 *             events the handle has not shown exist.
 *
 * Locking: h->lock guards one handle (several threads may serve reads of
 * one descriptor); it is held across the engine calls of a commit, which
 * only that descriptor's users wait for.  Replies are sent after the
 * handle is unlocked, from a private copy of the bytes.
 */
#include "fsv.h"

#include "arena/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#define CONTROL_MAX 4096
/* How long a `resume` waits for the executor it started to take the run. */
#define RESUME_START_WAIT_S 10.0
/* How long a `resume` waits for a run's lock held by no live lease
 * holder to be released (resume_holder_gone). */
#define RESUME_HOLDER_WAIT_S 3.0
/* How often those waits look at the run again. */
#define RESUME_POLL_MS 20
#define POLL_INTERVAL_MS 250
#define POLL_MAX_AGE_S 3600

struct fsv_file {
	pthread_mutex_t lock;
	struct fsv *fs;
	enum fsv_kind kind;
	char *run;
	struct strbuf buf;	/* what reads return */
	int64_t last_id;	/* events: last event in buf */
	size_t read_end;	/* events: end of the furthest read */
	/* runs/new */
	struct strbuf in;
	bool wrote, committed, too_big;
	bool write_intent;	/* opened O_WRONLY or with O_TRUNC */
	int commit_err;
	uid_t uid;
	pid_t pid;
};

struct fsv_poll {
	struct fuse_pollhandle *ph;
	char *run;
	int64_t last_id;
	double since;
	struct fsv_poll *next;
};

static struct fsv_file *handle_new(struct fsv *fs, const struct fsv_node *n,
				   fuse_req_t req)
{
	struct fsv_file *h = xcalloc(1, sizeof(*h));
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	pthread_mutex_init(&h->lock, NULL);
	h->fs = fs;
	h->kind = n->kind;
	h->run = n->run ? xstrdup(n->run) : NULL;
	strbuf_init(&h->buf);
	strbuf_init(&h->in);
	h->uid = ctx->uid;
	h->pid = ctx->pid;
	return h;
}

static void handle_free(struct fsv_file *h)
{
	if (!h)
		return;
	pthread_mutex_destroy(&h->lock);
	strbuf_release(&h->buf);
	strbuf_release(&h->in);
	free(h->run);
	free(h);
}

static struct fsv_file *handle_of(struct fuse_file_info *fi)
{
	return (struct fsv_file *)(uintptr_t)fi->fh;
}

static void reply_open(fuse_req_t req, struct fuse_file_info *fi,
		       struct fsv_file *h)
{
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	/* Only runs/new acts on close. */
	fi->noflush = h->kind != FSV_RUNS_NEW;
	/* fuse_reply_open fails when the opener was interrupted meanwhile;
	 * then no release will come for this handle. */
	if (fuse_reply_open(req, fi) != 0)
		handle_free(h);
}

void fsv_file_reply_snapshot(fuse_req_t req, struct fsv_node *n,
			     struct fuse_file_info *fi, char *text)
{
	struct fsv_file *h = handle_new(fsv_of(req), n, req);

	strbuf_addstr(&h->buf, text);
	free(text);
	reply_open(req, fi, h);
}

void fsv_file_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi)
{
	struct fsv *fs = fsv_of(req);
	int acc = fi->flags & O_ACCMODE, err = 0, rc;
	struct fsv_file *h;
	struct engine *e;

	if (fsv_kind_is_dir(n->kind)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	/* O_TRUNC asks for a change even with O_RDONLY (the kernel checks
	 * it as a write): refused like a write, as in the task packages and
	 * finished workspaces. */
	if ((acc != O_RDONLY || (fi->flags & O_TRUNC)) &&
	    !fsv_kind_writable(n->kind)) {
		fuse_reply_err(req, EROFS);
		return;
	}
	if (n->kind == FSV_TASK_RESULT || n->kind == FSV_TASK_SCORE) {
		fsv_eval_open(req, n, fi);
		return;
	}
	e = fsv_engine(fs, &err);
	if (!e) {
		fuse_reply_err(req, err);
		return;
	}
	h = handle_new(fs, n, req);
	h->write_intent = acc == O_WRONLY || (fi->flags & O_TRUNC);
	rc = 0;
	if (n->kind == FSV_RUN_EVENTS)
		rc = fsv_render_events(e, n->run, &h->last_id, &h->buf);
	else if (acc != O_WRONLY)
		rc = fsv_render(fs, e, n, fuse_req_ctx(req), &h->buf);
	if (rc) {
		handle_free(h);
		fuse_reply_err(req, rc);
		return;
	}
	reply_open(req, fi, h);
}

/* ---- runs/new -------------------------------------------------------- */

/* Validates, creates and launches; called with h->lock held, once. */
static void commit(struct fsv_file *h)
{
	struct fsv *fs = h->fs;
	struct runconfig *cfg = NULL;
	struct errbuf err;
	char *run_id = NULL;
	int e_err = 0, rc;
	struct engine *e = fsv_engine(fs, &e_err);

	h->committed = true;
	strbuf_reset(&h->buf);
	if (!e) {
		h->commit_err = e_err;
		return;
	}
	errbuf_init(&err);
	if (!h->wrote && !h->too_big) {
		errf(&err, "runs/new: the config is empty; write a run config "
		     "(YAML: agent, tasks, device; docs/config.md) and close "
		     "the file to launch a run");
		h->commit_err = EINVAL;
		fsv_outcome_record(fs, h->uid, h->pid, false, errbuf_str(&err));
		return;
	}
	if (h->too_big) {
		errf(&err, "runs/new: a run config is at most %d bytes",
		     RUNCONFIG_MAX_BYTES);
		h->commit_err = EFBIG;
		fsv_outcome_record(fs, h->uid, h->pid, false, errbuf_str(&err));
		return;
	}
	rc = engine_config_parse(e, "runs/new", h->in.buf ? h->in.buf : "",
				 h->in.len, &cfg, &err);
	if (rc) {
		h->commit_err = rc == -EFBIG ? EFBIG : EINVAL;
		fsv_outcome_record(fs, h->uid, h->pid, false, errbuf_str(&err));
		return;
	}
	rc = engine_run_create(e, cfg, NULL, &run_id, &err);
	runconfig_free(cfg);
	if (rc) {
		h->commit_err = rc < 0 && -rc != EINVAL ? -rc : EIO;
		fsv_outcome_record(fs, h->uid, h->pid, false, errbuf_str(&err));
		return;
	}
	errbuf_init(&err);
	if (fsv_spawn_executor(fs, run_id, false, NULL, &err) != 0) {
		/* The run exists; say why nothing executes it and how to
		 * start it. */
		store_event_add(engine_store(e), run_id, NULL, "error",
				errbuf_str(&err), NULL);
		fsv_log("%s: %s", run_id, errbuf_str(&err));
	}
	fsv_outcome_record(fs, h->uid, h->pid, true, run_id);
	/* The kernel keeps listings (op_opendir): show the new run in
	 * runs/ and compare/ at once. */
	fuse_lowlevel_notify_inval_inode(fs->se, fsv_path_ino("/runs"), 0, 0);
	fuse_lowlevel_notify_inval_inode(fs->se, fsv_path_ino("/compare"), 0,
					 0);
	strbuf_addf(&h->buf, "%s\n", run_id);
	h->commit_err = 0;
	free(run_id);
}

static int new_write(struct fsv_file *h, const char *data, size_t size,
		     off_t off)
{
	int rc = 0;

	pthread_mutex_lock(&h->lock);
	if (h->committed) {
		rc = EBUSY;	/* this descriptor already launched a run */
	} else if (off < 0 || (uint64_t)off + size > RUNCONFIG_MAX_BYTES) {
		h->too_big = true;
		rc = EFBIG;
	} else {
		size_t end = (size_t)off + size;
		if (end > h->in.len) {
			strbuf_grow(&h->in, end - h->in.len);
			memset(h->in.buf + h->in.len, 0, end - h->in.len);
			h->in.len = end;
			h->in.buf[end] = '\0';
		}
		memcpy(h->in.buf + off, data, size);
		h->wrote = true;
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

/* Whether a close of runs/new by process pid that comes with nothing
 * written is the last one.  A shell running `cmd > runs/new` opens the
 * file, moves the descriptor to 1 and closes the original before cmd
 * writes anything: that close must not commit an empty config.  The sign
 * is that the closing process still has runs/new open on another
 * descriptor (by the time the kernel sends FLUSH, the closed descriptor
 * is already gone from /proc/PID/fd).  `cp /dev/null runs/new` closes
 * its only descriptor: an empty config, refused. */
static bool empty_final_close(struct fsv *fs, pid_t pid)
{
	char dir[64], link[340], target[4096];
	char *want = xasprintf("%s/runs/new", fs->mountpoint);
	struct dirent *d;
	bool other = false;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	dp = opendir(dir);
	while (dp && !other && (d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, d->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		other = strcmp(target, want) == 0;
	}
	if (dp)
		closedir(dp);
	free(want);
	return !other;
}

/* ---- control --------------------------------------------------------- */

/* The last line of the run's executor log (caller frees), for errors. */
static char *executor_log_tail(struct fsv *fs, const char *run)
{
	char *path = xasprintf("%s/runs/%s/logs/executor.log", fs->store_dir,
			       run);
	char *text = NULL, *line;
	size_t len = 0;

	if (file_read_all(path, (size_t)16 << 20, &text, &len, NULL) != 0) {
		free(path);
		return xstrdup("(no executor log)");
	}
	free(path);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	line = strrchr(text, '\n');
	line = xstrdup(line ? line + 1 : text);
	free(text);
	return line;
}

/* After starting executor pid for run: waits until it holds the run's
 * lock (0), or ends.  An executor that ended without the run being done or
 * cancelled, and without anyone holding the lock now, failed: EIO with its
 * last log line in err. */
static int wait_executor_started(struct fsv *fs, struct engine *e,
				 const char *run, pid_t pid, struct errbuf *err)
{
	double until = now_wall() + RESUME_START_WAIT_S;

	for (;;) {
		struct run_progress p;
		bool ended = pid <= 0 || !proc_alive(pid);
		int rc = engine_run_progress(e, run, &p, err);
		if (rc)
			return rc;
		bool held = p.executor_lock;
		bool finished = !strcmp(p.status, "done") ||
				!strcmp(p.status, "cancelled");
		run_progress_release(&p);
		if (held || (ended && finished))
			return 0;
		if (ended) {
			char *tail = executor_log_tail(fs, run);
			rc = errf_code(err, EIO, "the executor started for run "
				       "%s ended without executing it: %s", run,
				       tail);
			free(tail);
			return rc;
		}
		if (now_wall() > until)
			/* Alive but slow to start (a loaded machine): it
			 * exists, which is all resume promises. */
			return 0;
		sleep_ms(RESUME_POLL_MS);
	}
}

/* Whether the run's lock, held when `resume` looked, is released within
 * RESUME_HOLDER_WAIT_S while no live process holds a lease of the run.
 * A process killed with SIGKILL shows as a zombie before its last thread
 * has exited, and its descriptors, the lock's among them, are closed only
 * then (a thread in an uninterruptible wait, a disk write or a file-system
 * request, holds them a while): such a dying executor must not make a
 * resume succeed and start nothing (issue 11).  A live executor between
 * attempts holds no lease either; it keeps the lock, and the wait ends
 * with the run still its own. */
static bool resume_holder_gone(struct engine *e, const char *run)
{
	double until = now_wall() + RESUME_HOLDER_WAIT_S;

	for (;;) {
		struct run_progress p;
		if (engine_run_progress(e, run, &p, NULL) != 0)
			return false;
		bool held = p.executor_lock, leased = p.workers > 0;
		run_progress_release(&p);
		if (!held)
			return true;
		if (leased || now_wall() > until)
			return false;
		sleep_ms(RESUME_POLL_MS);
	}
}

static int control_resume(struct fsv *fs, struct engine *e, const char *run,
			  struct errbuf *err)
{
	struct run_progress p;
	pid_t pid = 0;
	int rc = engine_run_progress(e, run, &p, err);

	if (rc)
		return rc;
	/* The run's lock is the truth about an executor: a process that
	 * holds it is alive.  Leases of workers are not (a killed, unreaped
	 * executor's lease outlives it); a new executor takes over the
	 * attempts whose lease holder is gone and leaves the others. */
	if (strcmp(p.status, "cancelling") == 0 && p.executor_lock) {
		/* The executor is stopping after its current step; a waiter
		 * resumes the run once it has. */
		rc = fsv_spawn_executor(fs, run, true, NULL, err);
	} else if (!p.executor_lock ||
		   (p.workers == 0 && resume_holder_gone(e, run))) {
		rc = fsv_spawn_executor(fs, run, false, &pid, err);
		if (!rc)
			rc = wait_executor_started(fs, e, run, pid, err);
	}
	run_progress_release(&p);
	return rc;
}

/* Splits data into commands; 0 when every line is a known command. */
static int control_parse(const char *data, size_t size, struct strvec *cmds)
{
	const char *p = data, *end = data + size;

	if (memchr(data, '\0', size))
		return EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *s = p;
		while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t' ||
				 e[-1] == '\r'))
			e--;
		if (e > s) {
			size_t len = (size_t)(e - s);
			if (!(len == 6 && !memcmp(s, "cancel", 6)) &&
			    !(len == 6 && !memcmp(s, "resume", 6)))
				return EINVAL;
			strvec_pushf(cmds, "%.*s", (int)len, s);
		}
		p = nl ? nl + 1 : end;
	}
	return cmds->n ? 0 : EINVAL;
}

static int control_write(struct fsv *fs, const char *run, const char *data,
			 size_t size)
{
	struct strvec cmds = STRVEC_INIT;
	struct errbuf err;
	struct engine *e;
	int rc, e_err = 0;

	if (size > CONTROL_MAX)
		return EINVAL;
	rc = control_parse(data, size, &cmds);
	e = rc ? NULL : fsv_engine(fs, &e_err);
	if (!rc && !e)
		rc = e_err;
	errbuf_init(&err);
	for (size_t i = 0; !rc && i < cmds.n; i++) {
		if (strcmp(cmds.v[i], "cancel") == 0)
			rc = engine_run_cancel(e, run, &err);
		else
			rc = control_resume(fs, e, run, &err);
		if (rc) {
			fsv_log("%s: control '%s': %s", run, cmds.v[i],
				errbuf_str(&err));
			store_event_add(engine_store(e), run, NULL, "error",
					errbuf_str(&err), NULL);
			rc = rc < 0 ? -rc : EIO;
		}
	}
	strvec_release(&cmds);
	return rc;
}

/* ---- read / write / flush / release ---------------------------------- */

/* Appends events recorded since the handle's last one. */
static void events_refresh(struct fsv_file *h)
{
	int err = 0;
	struct engine *e = fsv_engine(h->fs, &err);

	if (e)
		fsv_render_events(e, h->run, &h->last_id, &h->buf);
}

void fsv_file_read(fuse_req_t req, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct fsv_file *h = handle_of(fi);
	char *copy = NULL;
	size_t n = 0;
	int rc = 0;

	pthread_mutex_lock(&h->lock);
	if (h->kind == FSV_RUNS_NEW && h->wrote && !h->committed)
		commit(h);
	if (h->kind == FSV_RUNS_NEW && h->committed && h->commit_err)
		rc = h->commit_err;
	if (!rc && h->kind == FSV_RUN_EVENTS &&
	    (uint64_t)off + size > h->buf.len)
		events_refresh(h);
	if (!rc && off >= 0 && (size_t)off < h->buf.len) {
		n = h->buf.len - (size_t)off;
		if (n > size)
			n = size;
		copy = xmalloc(n + 1);
		memcpy(copy, h->buf.buf + off, n);
	}
	if (!rc && off >= 0 && (size_t)off + n > h->read_end)
		h->read_end = (size_t)off + n;
	pthread_mutex_unlock(&h->lock);
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_buf(req, copy, n);
	free(copy);
}

void fsv_file_write(fuse_req_t req, struct fsv_node *n, const char *buf,
		    size_t size, off_t off, struct fuse_file_info *fi)
{
	struct fsv_file *h = handle_of(fi);
	int rc;

	if (h->kind == FSV_RUNS_NEW)
		rc = new_write(h, buf, size, off);
	else if (h->kind == FSV_RUN_CONTROL)
		rc = control_write(h->fs, n->run, buf, size);
	else
		rc = EBADF;
	if (rc)
		fuse_reply_err(req, rc);
	else
		fuse_reply_write(req, size);
}

void fsv_file_flush(fuse_req_t req, struct fuse_file_info *fi)
{
	struct fsv_file *h = handle_of(fi);
	int rc = 0;

	if (h->kind == FSV_RUNS_NEW) {
		pid_t closer = fuse_req_ctx(req)->pid;
		pthread_mutex_lock(&h->lock);
		if ((h->wrote || h->too_big) && !h->committed)
			commit(h);
		else if (!h->committed && h->write_intent &&
			 empty_final_close(h->fs, closer))
			commit(h);
		if (h->committed)
			rc = h->commit_err;
		pthread_mutex_unlock(&h->lock);
	}
	fuse_reply_err(req, rc);
}

void fsv_file_release(fuse_req_t req, struct fuse_file_info *fi)
{
	handle_free(handle_of(fi));
	fuse_reply_err(req, 0);
}

/* ---- poll ------------------------------------------------------------ */

static bool events_after(struct engine *e, const char *run, int64_t after)
{
	struct store_event *ev = NULL;
	int n = 0;

	if (store_event_list(engine_store(e), run, after, 1, &ev, &n, NULL))
		return false;
	store_events_free(ev, n);
	return n > 0;
}

void fsv_file_poll(fuse_req_t req, struct fuse_file_info *fi,
		   struct fuse_pollhandle *ph)
{
	struct fsv_file *h = handle_of(fi);
	struct fsv *fs = fsv_of(req);
	unsigned ready = POLLIN | POLLRDNORM;
	int err = 0;

	if (h->kind != FSV_RUN_EVENTS) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, ready | POLLOUT | POLLWRNORM);
		return;
	}
	struct engine *e = fsv_engine(fs, &err);
	pthread_mutex_lock(&h->lock);
	bool has = h->read_end < h->buf.len ||
		   (e && events_after(e, h->run, h->last_id));
	int64_t last = h->last_id;
	pthread_mutex_unlock(&h->lock);
	if (has || !ph) {
		if (ph)
			fuse_pollhandle_destroy(ph);
		fuse_reply_poll(req, has ? ready : 0);
		return;
	}
	struct fsv_poll *p = xcalloc(1, sizeof(*p));
	p->ph = ph;
	p->run = xstrdup(h->run);
	p->last_id = last;
	p->since = now_wall();
	pthread_mutex_lock(&fs->poll_lock);
	p->next = fs->polls;
	fs->polls = p;
	pthread_mutex_unlock(&fs->poll_lock);
	fuse_reply_poll(req, 0);
}

static void poll_free(struct fsv_poll *p)
{
	fuse_pollhandle_destroy(p->ph);
	free(p->run);
	free(p);
}

/* Takes the registrations that are due (new events, or too old to keep)
 * off the list; the caller notifies and frees them unlocked. */
static struct fsv_poll *polls_due(struct fsv *fs, struct engine *e)
{
	struct fsv_poll *due = NULL, **pp = &fs->polls;
	double now = now_wall();

	while (*pp) {
		struct fsv_poll *p = *pp;
		bool ready = e && events_after(e, p->run, p->last_id);
		if (ready || now - p->since > POLL_MAX_AGE_S) {
			*pp = p->next;
			p->next = due;
			due = p;
			if (!ready)
				p->last_id = -1;	/* expired */
		} else {
			pp = &p->next;
		}
	}
	return due;
}

static void *poll_main(void *arg)
{
	struct fsv *fs = arg;
	int err = 0;

	pthread_mutex_lock(&fs->poll_lock);
	while (!fs->poll_stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += POLL_INTERVAL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&fs->poll_cond, &fs->poll_lock, &ts);
		if (fs->poll_stopping || !fs->polls)
			continue;
		struct engine *e = fsv_engine(fs, &err);
		struct fsv_poll *due = polls_due(fs, e);
		pthread_mutex_unlock(&fs->poll_lock);
		while (due) {
			struct fsv_poll *next = due->next;
			if (due->last_id >= 0)
				fuse_lowlevel_notify_poll(due->ph);
			poll_free(due);
			due = next;
		}
		pthread_mutex_lock(&fs->poll_lock);
	}
	pthread_mutex_unlock(&fs->poll_lock);
	return NULL;
}

void fsv_polls_start(struct fsv *fs)
{
	pthread_mutex_init(&fs->poll_lock, NULL);
	pthread_cond_init(&fs->poll_cond, NULL);
	fs->poll_started =
		pthread_create(&fs->poll_thread, NULL, poll_main, fs) == 0;
}

void fsv_polls_stop(struct fsv *fs)
{
	pthread_mutex_lock(&fs->poll_lock);
	fs->poll_stopping = true;
	pthread_cond_broadcast(&fs->poll_cond);
	pthread_mutex_unlock(&fs->poll_lock);
	if (fs->poll_started)
		pthread_join(fs->poll_thread, NULL);
	while (fs->polls) {
		struct fsv_poll *next = fs->polls->next;
		poll_free(fs->polls);
		fs->polls = next;
	}
	pthread_mutex_destroy(&fs->poll_lock);
	pthread_cond_destroy(&fs->poll_cond);
}

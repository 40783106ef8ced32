/*
 * fsv_eval.c - opening score and task_result.yaml: answer at once when the
 * stored result is current, otherwise evaluate without holding a thread.
 *
 * Fast path: engine_task_result_peek() says whether engine_task_result()
 * would answer without evaluating (a done attempt's final result, or the
 * evaluation cache holding the workspace as it is); if so the open is
 * answered immediately, in the calling worker thread.
 *
 * Slow path: the OPEN request is parked.  One evaluation job per (run,
 * task directory, sources hash) runs `arena mount --eval-worker RUN DIR`
 * in a child process, which calls engine_task_result() (the same call as
 * the executor and `arena eval`, with the engine's own file locks against
 * other processes) and prints the result as JSON.  A small thread per job
 * waits for the child and then answers every parked request that joined
 * the job, each with a snapshot rendered for its file.  So:
 *   - concurrent readers of one task share one job, hence one evaluation;
 *   - the daemon's worker threads are never blocked by an evaluation, so
 *     every other path stays responsive;
 *   - an interrupted reader (Ctrl-C, kill) is answered EINTR at once via
 *     fuse_req_interrupt_func(); when the last reader of a job is gone the
 *     job's process group is killed, so no evaluation runs for nobody;
 *   - a job that runs past FSV_EVAL_DEADLINE_S is killed (ETIMEDOUT).
 *
 * Who answers a parked request: exactly one of (a) the interrupt callback,
 * (b) the job thread, (c) the opening thread itself when the job finished
 * or the request was interrupted before it was fully registered.  Waiters
 * move through the states below under fs->eval_lock; whoever takes a
 * waiter off its job replies and frees it, except in state REGISTERING,
 * where only the opening thread may reply (it is still inside
 * fuse_req_interrupt_func(), which must not see a freed request).  The
 * interrupt callback receives the daemon context, not the waiter, and
 * looks the request up under the lock: libfuse may call it after a reply,
 * and then it finds nothing.
 */
#include "fsv.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum waiter_state { W_REGISTERING, W_WAITING };

struct waiter {
	fuse_req_t req;
	struct fuse_file_info fi;
	struct fsv_node *node;	/* held by the kernel while OPEN is pending */
	struct fsv_eval_job *job;	/* valid while in job->waiters */
	enum waiter_state state;
	bool interrupted;	/* seen while REGISTERING */
	bool finished;		/* job ended while REGISTERING */
	int rc;			/* ... with this errno */
	char *text;		/* ... or this content */
	struct waiter *next;
};

struct fsv_eval_job {
	struct fsv *fs;
	char *key;
	char *run, *dirname;
	pid_t pid;		/* process group of the worker, 0 if none */
	bool cancelled;
	struct waiter *waiters;
	struct fsv_eval_job *next;
};

/* ---- the job list (fs->eval_lock held) ------------------------------- */

static struct fsv_eval_job *job_find(struct fsv *fs, const char *key)
{
	struct fsv_eval_job *j = fs->jobs;

	while (j && strcmp(j->key, key))
		j = j->next;
	return j;
}

static void job_unlink(struct fsv *fs, struct fsv_eval_job *job)
{
	struct fsv_eval_job **pp = &fs->jobs;

	while (*pp && *pp != job)
		pp = &(*pp)->next;
	if (*pp)
		*pp = job->next;
	job->next = NULL;
}

static void waiter_unlink(struct fsv_eval_job *job, struct waiter *w)
{
	struct waiter **pp = &job->waiters;

	while (*pp && *pp != w)
		pp = &(*pp)->next;
	if (*pp)
		*pp = w->next;
	w->next = NULL;
}

/* Stops a job nobody waits for any more: off the list (a new reader starts
 * afresh) and its process group killed. */
static void job_cancel(struct fsv *fs, struct fsv_eval_job *job)
{
	job->cancelled = true;
	job_unlink(fs, job);
	if (job->pid > 0)
		kill(-job->pid, SIGKILL);
}

static void waiter_free(struct waiter *w)
{
	free(w->text);
	free(w);
}

/* ---- replies --------------------------------------------------------- */

static void reply_waiter(struct waiter *w, int rc, const char *text)
{
	if (rc)
		fuse_reply_err(w->req, rc);
	else
		fsv_file_reply_snapshot(w->req, w->node, &w->fi,
					xstrdup(text));
}

static void on_interrupt(fuse_req_t req, void *data)
{
	struct fsv *fs = data;
	struct waiter *found = NULL;

	pthread_mutex_lock(&fs->eval_lock);
	for (struct fsv_eval_job *j = fs->jobs; j && !found; j = j->next) {
		for (struct waiter *w = j->waiters; w; w = w->next) {
			if (w->req != req)
				continue;
			if (w->state == W_REGISTERING) {
				w->interrupted = true;
			} else {
				waiter_unlink(j, w);
				found = w;
				if (!j->waiters)
					job_cancel(fs, j);
			}
			break;
		}
	}
	pthread_mutex_unlock(&fs->eval_lock);
	if (found) {
		fuse_reply_err(req, EINTR);
		waiter_free(found);
	}
}

/* ---- the worker ------------------------------------------------------ */

/* Reads the worker's output until EOF or the deadline. */
static int read_output(int fd, struct strbuf *out, double deadline)
{
	char buf[65536];

	for (;;) {
		double left = deadline - now_wall();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left <= 0)
			return ETIMEDOUT;
		int r = poll(&p, 1, left > 60 ? 60000 : (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			return EIO;
		if (r <= 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return EIO;
		if (n == 0)
			return 0;
		if (out->len + (size_t)n > FSV_WORKER_OUTPUT_MAX)
			return EFBIG;
		strbuf_add(out, buf, (size_t)n);
	}
}

/* Logs why a worker did not produce a result.  One the mount killed
 * (its last reader gone, or the daemon stopping) printed nothing: say so,
 * rather than an empty "evaluation failed:". */
static void log_failure(struct fsv_eval_job *job, int status, const char *out)
{
	struct fsv *fs = job->fs;

	pthread_mutex_lock(&fs->eval_lock);
	bool cancelled = job->cancelled;
	pthread_mutex_unlock(&fs->eval_lock);
	if (cancelled && WIFSIGNALED(status))
		fsv_log("%s/%s: evaluation stopped: no reader waits for it "
			"any more",
			job->run, job->dirname);
	else if (WIFSIGNALED(status))
		fsv_log("%s/%s: evaluation failed: the worker was killed by "
			"signal %d",
			job->run, job->dirname, WTERMSIG(status));
	else
		fsv_log("%s/%s: evaluation failed: %s", job->run, job->dirname,
			out);
}

/* Runs the worker; on success *res holds the result. */
static int run_worker(struct fsv_eval_job *job, struct task_result *res)
{
	struct fsv *fs = job->fs;
	struct strbuf out = STRBUF_INIT;
	struct errbuf err;
	pid_t pid;
	int fd, rc, status = 0;

	errbuf_init(&err);
	pthread_mutex_lock(&fs->eval_lock);
	rc = job->cancelled || fs->eval_stopping ? EINTR : 0;
	if (!rc) {
		rc = fsv_spawn_worker(fs, job->run, job->dirname, &pid, &fd,
				      &err);
		rc = rc < 0 ? -rc : rc;
		if (!rc)
			job->pid = pid;
	}
	pthread_mutex_unlock(&fs->eval_lock);
	if (rc) {
		fsv_log("%s/%s: %s", job->run, job->dirname, errbuf_str(&err));
		return rc;
	}
	rc = read_output(fd, &out, now_wall() + FSV_EVAL_DEADLINE_S);
	close(fd);
	if (rc)
		kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = result_from_json(strbuf_str(&out), res, &err) ? EIO : 0;
	} else if (!rc) {
		/* The worker printed the engine's message (and recorded it as
		 * an `error` event of the run); a signal means it was
		 * killed. */
		rc = WIFEXITED(status) ? EIO : EINTR;
		log_failure(job, status, strbuf_str(&out));
	}
	strbuf_release(&out);
	return rc;
}

static void *job_main(void *arg)
{
	struct fsv_eval_job *job = arg;
	struct fsv *fs = job->fs;
	struct task_result res;
	char *yaml = NULL, *score = NULL;
	struct waiter *ws, *w, *next;
	int rc;

	result_init(&res);
	rc = run_worker(job, &res);
	if (!rc) {
		yaml = fsv_render_result(FSV_TASK_RESULT, &res);
		score = fsv_render_result(FSV_TASK_SCORE, &res);
	}
	pthread_mutex_lock(&fs->eval_lock);
	job_unlink(fs, job);	/* a no-op when cancelled */
	ws = NULL;
	for (w = job->waiters; w; w = next) {
		next = w->next;
		if (w->state == W_WAITING) {
			w->next = ws;
			ws = w;
		} else {
			/* The opener is still registering: leave the outcome
			 * for it to deliver. */
			w->finished = true;
			w->rc = rc;
			w->text = rc ? NULL : xstrdup(w->node->kind ==
							      FSV_TASK_SCORE
							      ? score : yaml);
		}
	}
	job->waiters = NULL;
	pthread_mutex_unlock(&fs->eval_lock);
	for (w = ws; w; w = next) {
		next = w->next;
		reply_waiter(w, rc, w->node->kind == FSV_TASK_SCORE ? score
								    : yaml);
		waiter_free(w);
	}
	free(yaml);
	free(score);
	result_release(&res);
	free(job->key);
	free(job->run);
	free(job->dirname);
	free(job);
	pthread_mutex_lock(&fs->eval_lock);
	fs->eval_threads--;
	pthread_cond_broadcast(&fs->eval_cond);
	pthread_mutex_unlock(&fs->eval_lock);
	return NULL;
}

/* Adds w to the job for key, starting one if needed (eval_lock held). */
static int join_job(struct fsv *fs, const char *key, const struct fsv_node *n,
		    struct waiter *w)
{
	struct fsv_eval_job *job = job_find(fs, key);

	if (fs->eval_stopping)
		return ESHUTDOWN;
	if (!job) {
		pthread_t t;
		pthread_attr_t attr;
		job = xcalloc(1, sizeof(*job));
		job->fs = fs;
		job->key = xstrdup(key);
		job->run = xstrdup(n->run);
		job->dirname = xstrdup(n->task);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &attr, job_main, job) != 0) {
			pthread_attr_destroy(&attr);
			free(job->key);
			free(job->run);
			free(job->dirname);
			free(job);
			return EAGAIN;
		}
		pthread_attr_destroy(&attr);
		/* One line per evaluation the mount starts: what the tests
		 * count, and what an operator wants to know. */
		fsv_log("%s: evaluation started", key);
		fs->eval_threads++;
		job->next = fs->jobs;
		fs->jobs = job;
	}
	w->job = job;
	w->next = job->waiters;
	job->waiters = w;
	return 0;
}

/* Parks req on the job for key and registers the interrupt callback;
 * replies itself when the job ends or the reader is interrupted before
 * registration is complete. */
static void park(fuse_req_t req, struct fsv_node *n, struct fuse_file_info *fi,
		 const char *key)
{
	struct fsv *fs = fsv_of(req);
	struct waiter *w = xcalloc(1, sizeof(*w));
	int rc;

	w->req = req;
	w->fi = *fi;
	w->node = n;
	w->state = W_REGISTERING;
	pthread_mutex_lock(&fs->eval_lock);
	rc = join_job(fs, key, n, w);
	pthread_mutex_unlock(&fs->eval_lock);
	if (rc) {
		free(w);
		fuse_reply_err(req, rc);
		return;
	}
	fuse_req_interrupt_func(req, on_interrupt, fs);
	pthread_mutex_lock(&fs->eval_lock);
	bool mine = w->finished || w->interrupted;
	if (!mine)
		w->state = W_WAITING;
	else if (!w->finished) {
		/* Interrupted while registering: leave the job (still alive:
		 * w is on its list), and stop it when nobody else waits. */
		waiter_unlink(w->job, w);
		if (!w->job->waiters)
			job_cancel(fs, w->job);
	}
	pthread_mutex_unlock(&fs->eval_lock);
	if (!mine)
		return;
	if (w->finished)
		reply_waiter(w, w->rc, w->text);
	else
		fuse_reply_err(req, EINTR);
	waiter_free(w);
}

void fsv_eval_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi)
{
	struct fsv *fs = fsv_of(req);
	struct task_result res;
	char hash[65] = "", *task_id = NULL;
	int attempt, err = 0, rc;
	struct engine *e = fsv_engine(fs, &err);

	if (!e) {
		fuse_reply_err(req, err);
		return;
	}
	rc = engine_attempt_by_dirname(e, n->run, n->task, &task_id, &attempt,
				       NULL);
	if (rc) {
		fuse_reply_err(req, -rc);
		return;
	}
	result_init(&res);
	rc = engine_task_result_peek(e, n->run, task_id, attempt, &res, hash,
				     NULL);
	free(task_id);
	if (rc == 0) {
		fsv_file_reply_snapshot(req, n, fi,
					fsv_render_result(n->kind, &res));
	} else if (rc != -ESTALE) {
		fuse_reply_err(req, -rc);
	} else if (fi->flags & O_NONBLOCK) {
		fuse_reply_err(req, EAGAIN);
	} else {
		char *key = xasprintf("%s/%s/%s", n->run, n->task, hash);
		park(req, n, fi, key);
		free(key);
	}
	result_release(&res);
}

void fsv_evals_stop(struct fsv *fs)
{
	pthread_mutex_lock(&fs->eval_lock);
	fs->eval_stopping = true;
	for (struct fsv_eval_job *j = fs->jobs; j; j = j->next) {
		j->cancelled = true;
		if (j->pid > 0)
			kill(-j->pid, SIGKILL);
	}
	while (fs->eval_threads > 0)
		pthread_cond_wait(&fs->eval_cond, &fs->eval_lock);
	pthread_mutex_unlock(&fs->eval_lock);
}

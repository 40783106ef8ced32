/*
 * fsv_worker.c - the two hidden modes of `arena mount` that the daemon's
 * children run:
 *
 *   arena --store S --tasks-dir T mount --eval-worker RUN DIR
 *       engine_task_result() for the attempt whose directory is DIR, the
 *       result printed as JSON on stdout (exit 0), or the engine's message
 *       on stdout and the errno as exit status.  The daemon reads it and
 *       renders score or task_result.yaml; killing this process (its whole
 *       process group) is how an abandoned evaluation is stopped.
 *
 *   arena --store S --tasks-dir T mount --resume-waiter RUN
 *       waits while the run's executor is still stopping after a cancel,
 *       then becomes `arena resume RUN` (exec).  It gives up when another
 *       executor takes the run over meanwhile.
 */
#include "fsv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WAITER_POLL_MS 200
#define WAITER_MAX_S (24 * 3600)

static int exit_code(int rc)
{
	int e = rc < 0 ? -rc : rc;

	return e > 0 && e < 126 ? e : EIO;
}

int fsv_eval_worker(const char *store_dir, const char *tasks_dir,
		    const char *run_id, const char *dirname)
{
	struct task_result res;
	struct engine *e;
	struct errbuf err;
	char *task_id = NULL, *json;
	int attempt, rc;

	errbuf_init(&err);
	result_init(&res);
	rc = engine_open(store_dir, tasks_dir, &e, &err);
	if (rc) {
		printf("%s\n", errbuf_str(&err));
		return exit_code(rc);
	}
	rc = engine_attempt_by_dirname(e, run_id, dirname, &task_id, &attempt,
				       &err);
	if (!rc)
		rc = engine_task_result(e, run_id, task_id, attempt, &res,
					&err);
	if (rc) {
		printf("%s\n", errbuf_str(&err));
		store_event_add(engine_store(e), run_id, task_id, "error",
				errbuf_str(&err), NULL);
	} else {
		json = result_to_json(&res);
		fputs(json, stdout);
		free(json);
	}
	result_release(&res);
	free(task_id);
	engine_close(e);
	return rc ? exit_code(rc) : 0;
}

int fsv_resume_waiter(const char *store_dir, const char *tasks_dir,
		      const char *run_id)
{
	struct engine *e;
	struct errbuf err;
	double start = now_wall();
	int rc;

	errbuf_init(&err);
	rc = engine_open(store_dir, tasks_dir, &e, &err);
	if (rc) {
		fprintf(stderr, "arena: %s\n", errbuf_str(&err));
		return 1;
	}
	printf("waiting for the executor of %s to stop before resuming\n",
	       run_id);
	fflush(stdout);
	for (;;) {
		struct run_progress p;
		rc = engine_run_progress(e, run_id, &p, &err);
		if (rc) {
			fprintf(stderr, "arena: %s\n", errbuf_str(&err));
			engine_close(e);
			return 1;
		}
		bool alive = p.executor_alive;
		bool stopping = !strcmp(p.status, "cancelling") ||
				!strcmp(p.status, "cancelled");
		run_progress_release(&p);
		if (!alive)
			break;
		if (!stopping || now_wall() - start > WAITER_MAX_S) {
			printf("%s is being executed again; nothing to do\n",
			       run_id);
			engine_close(e);
			return 0;
		}
		sleep_ms(WAITER_POLL_MS);
	}
	engine_close(e);
	char *argv[] = { (char *)"arena", (char *)"--store", (char *)store_dir,
			 (char *)"--tasks-dir", (char *)tasks_dir,
			 (char *)"resume", (char *)run_id, NULL };
	fflush(stdout);
	execv("/proc/self/exe", argv);
	fprintf(stderr, "arena: cannot exec arena resume: %s\n",
		strerror(errno));
	return 1;
}

/*
 * engine_fs.c - engine queries for the filesystem view (arena/engine_fs.h).
 *
 * engine_task_result_peek() applies the same rule as engine_task_result():
 * a done attempt's final result is final, whatever its workspace holds
 * now.  It only reads, so `cat score` of a done attempt costs one store
 * query and never waits for a lock.
 */
#include "arena/engine_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/eval.h"
#include "arena/report.h"
#include "arena/report_html.h"

int engine_attempt_by_dirname(struct engine *e, const char *run_id,
			      const char *dirname, char **task_id,
			      int *attempt, struct errbuf *err)
{
	struct store_attempt *as = NULL;
	int n = 0, rc, found = -1;

	rc = store_attempt_list(engine_store(e), run_id, &as, &n, err);
	if (rc)
		return rc;
	for (int i = 0; i < n && found < 0; i++) {
		char *name = store_task_dirname(as[i].task_id, as[i].attempt);
		if (strcmp(name, dirname) == 0)
			found = i;
		free(name);
	}
	if (found >= 0) {
		*task_id = xstrdup(as[found].task_id);
		*attempt = as[found].attempt;
	} else {
		rc = errf_code(err, ENOENT, "run %s has no task directory "
			       "'%s'", run_id, dirname);
	}
	store_attempts_free(as, n);
	return rc;
}

int engine_task_result_peek(struct engine *e, const char *run_id,
			    const char *task_id, int attempt,
			    struct task_result *out, char hash[65],
			    struct errbuf *err)
{
	struct store_attempt a;
	int rc;

	rc = store_attempt_get(engine_store(e), run_id, task_id, attempt, &a,
			       err);
	if (rc)
		return rc;
	if (strcmp(a.state, "done") == 0 && a.result_json) {
		rc = result_from_json(a.result_json, out, err);
		if (hash)
			snprintf(hash, 65, "%s", a.sources_hash ? a.sources_hash
								: "");
		goto out;
	}
	/* Not done: engine_task_result() evaluates the files as they are,
	 * unless the evaluation cache already holds them. */
	rc = engine_task_result_cached(e, run_id, task_id, attempt, out, hash,
				       err);
out:
	store_attempt_release(&a);
	return rc;
}

int engine_task_result_stored(struct engine *e, const char *run_id,
			      const char *task_id, int attempt,
			      struct task_result *out, struct errbuf *err)
{
	struct store_attempt a;
	int rc;

	rc = store_attempt_get(engine_store(e), run_id, task_id, attempt, &a,
			       err);
	if (rc)
		return rc;
	if (a.result_json)
		rc = result_from_json(a.result_json, out, err);
	else
		rc = -ENOENT;
	store_attempt_release(&a);
	return rc;
}

int engine_index_html(struct engine *e, char **html, struct errbuf *err)
{
	struct strvec ids = STRVEC_INIT;
	struct run_rows *rr;
	struct report_index_run *runs;
	int rc = store_run_list(engine_store(e), &ids, err), n = 0;

	if (rc)
		return rc;
	rr = xcalloc(ids.n + 1, sizeof(*rr));
	runs = xcalloc(ids.n + 1, sizeof(*runs));
	/* Newest first; a run that cannot be read (removed meanwhile) is
	 * left out rather than failing the page. */
	for (size_t i = ids.n; i-- > 0;) {
		if (engine_run_rows(e, ids.v[i], &rr[n], NULL) != 0)
			continue;
		runs[n].meta = &rr[n].meta;
		runs[n].rows = rr[n].rows;
		runs[n].n = rr[n].n;
		n++;
	}
	*html = report_index_html(runs, n);
	for (int i = 0; i < n; i++)
		run_rows_release(&rr[i]);
	free(rr);
	free(runs);
	strvec_release(&ids);
	return 0;
}

int engine_run_html(struct engine *e, const char *run_id, char **html,
		    struct errbuf *err)
{
	struct run_rows rr;
	int rc = engine_run_rows(e, run_id, &rr, err);

	if (rc)
		return rc;
	*html = report_html(&rr.meta, rr.rows, rr.n);
	run_rows_release(&rr);
	return 0;
}

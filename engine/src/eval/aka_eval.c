/*
 * aka_eval.c - eval_run for an AgentKernelArena task folder (docs/aka.md):
 * prepare it (aka_prepare.c: its harness's calls, inputs and tolerances
 * recorded from the trusted task directory), then evaluate the prepared
 * task with the recorded inputs exactly as any Python-language task is
 * evaluated (ev_run_task).  What cannot be prepared ends here, without
 * touching the candidate: `skipped` when the reason is the task's (it
 * needs an AMD GPU, FlyDSL, ...; or its own harness fails its kernel as
 * shipped here) or `infra_error` when it is arena's (the harness does
 * something arena cannot record, the recorder failed).  `arena
 * check-tasks` flags the task whose kernel as shipped fails its check
 * (eval_aka_judge): that is a fault of the task, to be seen.
 */
#include "evaluation.h"

#include <stdlib.h>
#include <string.h>

/* A result that is no verdict on the candidate. */
static void no_verdict(const struct eval_request *req, struct task_result *res,
		       enum result_status st, const char *why)
{
	char ts[32];

	ev_set_str(&res->task_name, req->task->id);
	res->seed = req->seed;
	ev_set_str(&res->device, req->device ? req->device : "host");
	ev_set_str(&res->evaluator_version, ARENA_EVALUATOR_VERSION);
	time_stamp_iso(ts, now_wall());
	ev_set_str(&res->evaluated_at, ts);
	res->status = st;
	res->pass_compilation = false;
	res->pass_correctness = false;
	res->candidate_accepted = false;
	ev_set_str(&res->correctness_error_message, why);
	ev_set_str(&res->speedup_calculation_error_message,
		   st == RS_SKIPPED ? "skipped: the task cannot run here"
				    : "the task could not be evaluated");
	result_score(res);
}

int ev_aka_run(const struct eval_request *req, struct task_result *res,
	       struct errbuf *err)
{
	const struct task *t = req->task;
	const char *device = req->device ? req->device : "host";
	struct aka_prep p;
	int rc;

	if (!req->candidate_dir || !req->cache_dir)
		return errf(err, "evaluation request without a candidate "
				 "directory or a cache directory");
	(void)eval_hash_sources(t, req->candidate_dir, res, err);
	if (t->aka->skip_reason) {
		no_verdict(req, res, RS_SKIPPED, t->aka->skip_reason);
		return 0;
	}
	if (t->language != LANG_PYTHON && t->language != LANG_TRITON &&
	    t->aka->style != AKA_STYLE_GPUMODE) {
		no_verdict(req, res, RS_SKIPPED,
			   "arena evaluates the Python, Triton and gpumode "
			   "AgentKernelArena tasks");
		return 0;
	}
	if (t->aka->style == AKA_STYLE_GPUMODE && !strncmp(device, "hip", 3)) {
		no_verdict(req, res, RS_SKIPPED,
			   "arena builds a gpumode task's HIP extension for "
			   "NVIDIA GPUs (device cuda:N) through its HIP "
			   "portability layer; its Python runner has no ROCm "
			   "build of PyTorch to load it on an AMD GPU");
		return 0;
	}
	rc = aka_prepare(t, device, req->cache_dir, req->lock_dir,
			 req->log_dir, &p, err);
	if (rc) {
		errbuf_prefix(err, "%s: preparing the AgentKernelArena task",
			      t->id);
		return rc;
	}
	if (p.error) {
		no_verdict(req, res,
			   p.amd_only || p.task_fails ? RS_SKIPPED
						      : RS_INFRA_ERROR,
			   p.error);
		aka_prep_release(&p);
		return 0;
	}
	struct eval_request r2 = *req;
	r2.task = p.t;
	rc = ev_run_task(&r2, &p.in, res, err);
	aka_prep_release(&p);
	return rc;
}

/* ---- task checks ----------------------------------------------------------- */

void aka_judgement_release(struct aka_judgement *j)
{
	free(j->skip_reason);
	free(j->error);
	free(j->check_message);
	free(j->notes);
	memset(j, 0, sizeof(*j));
}

int eval_aka_judge(const struct task *t, const char *device,
		   const char *cache_dir, struct aka_judgement *j,
		   struct errbuf *err)
{
	struct aka_prep p;
	int rc;

	memset(j, 0, sizeof(*j));
	j->catches_wrong = -1;
	if (!t->aka)
		return errf(err, "%s is not an AgentKernelArena task", t->id);
	j->style = aka_style_name(t->aka->style);
	if (t->aka->skip_reason) {
		j->skip_reason = xstrdup(t->aka->skip_reason);
		return 0;
	}
	rc = aka_prepare(t, device ? device : "host", cache_dir, NULL, NULL,
			 &p, err);
	if (rc)
		return rc;
	if (p.error && p.amd_only)
		j->skip_reason = xstrdup(p.error);
	else if (p.error)
		j->error = xstrdup(p.error);
	j->baseline_passes = p.check_passed;
	j->check_message = p.check_message ? xstrdup(p.check_message) : NULL;
	j->catches_wrong = p.catches_wrong;
	j->notes = p.notes ? xstrdup(p.notes) : NULL;
	if (p.t) {
		j->ncases = p.t->ncases;
		for (int i = 0; i < p.t->ncases; i++)
			j->ncheck_only += p.t->cases[i].check_only;
	}
	aka_prep_release(&p);
	return 0;
}

/*
 * pipeline_bench.c - evaluations per hour of a stream of distinct honest
 * candidates, one after another (as `arena eval` runs them today) and
 * pipelined (two evaluations in flight, so that one builds and runs
 * correctness while the other holds the device lock for its timing;
 * correctness trials share one eval_refcache and one seed per task: on
 * the host; a GPU's trials are timing's samples), in
 * alternating rounds of one run.  Run by tests/bench/pipeline_bench.sh;
 * a benchmark, not a test: it prints, it does not judge
 * (docs/benchmarks.md has results).
 *
 * Candidates: each task's own baseline (its editable files) with a
 * distinct comment appended, so that every evaluation compiles a new candidate,
 * and every speedup is an A/A ratio: its interval should contain 1.0 as
 * often in both modes (the pipeline must not cost timing quality).
 *
 * usage: pipeline_bench TASKS_ROOT ROUNDS PER_TASK CASE_BUDGET_S TASK...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/stats.h"
#include "arena/task.h"
#include "arena/util.h"

struct job {
	const struct task *task;
	char *dir; /* the candidate's sources */
	uint64_t seed;
	struct eval_refcache *rc;
	const char *device; /* eval_resolve_device's */
	double budget;
	/* out */
	double seconds;
	struct task_result res;
	int rc_run;
};

static const char *work_dir;

/* A copy of t's editable files under work_dir/cand/tag, the first with
 * a distinct comment (C, CUDA and HIP sources alike). */
static char *candidate(const struct task *t, const char *tag)
{
	char *dir = xasprintf("%s/cand/%s", work_dir, tag);
	struct errbuf err;

	errbuf_init(&err);
	if (mkdir_p(dir, &err)) {
		fprintf(stderr, "%s\n", errbuf_str(&err));
		exit(1);
	}
	for (size_t i = 0; i < t->editable.n; i++) {
		char *from = path_join(t->dir, t->editable.v[i]);
		char *to = path_join(dir, t->editable.v[i]);
		char *text = NULL;
		size_t len = 0;
		struct strbuf sb = STRBUF_INIT;
		if (file_read_all(from, 1 << 22, &text, &len, &err)) {
			fprintf(stderr, "%s\n", errbuf_str(&err));
			exit(1);
		}
		strbuf_add(&sb, text, len);
		if (i == 0)
			strbuf_addf(&sb,
				    "\n/* pipeline_bench candidate %s */\n",
				    tag);
		if (file_write_atomic(to, sb.buf, sb.len, &err)) {
			fprintf(stderr, "%s\n", errbuf_str(&err));
			exit(1);
		}
		strbuf_release(&sb);
		free(text);
		free(from);
		free(to);
	}
	return dir;
}

struct tally {
	int n, ok, covered;
	int failed; /* eval_run could not take place */
	double wall, latency_sum, latency_max;
	double *ratios;
};

static void request_of(const struct job *j, const char *cache,
		       struct eval_request *req)
{
	eval_request_init(req);
	req->task = j->task;
	req->candidate_dir = j->dir;
	req->cache_dir = cache;
	req->seed = j->seed;
	req->refcache = j->rc;
	req->device = j->device;
	if (j->budget > 0)
		req->timing.case_budget_s = j->budget;
}

/* Runs jobs[0..n) through eval_run_many with in_flight at once; adds to
 * tl.  A job's latency is its own eval_run (result eval_seconds), waits
 * for the lock included. */
static void run_stream(struct job *jobs, int n, int in_flight, struct tally *tl)
{
	char *cache = path_join(work_dir, "cache");
	struct eval_request *reqs = xcalloc((size_t)n, sizeof(*reqs));
	struct task_result *res = xcalloc((size_t)n, sizeof(*res));
	int *rcs = xcalloc((size_t)n, sizeof(*rcs));
	struct errbuf *errs = xcalloc((size_t)n, sizeof(*errs));
	uint64_t t0 = now_ns();

	for (int i = 0; i < n; i++)
		request_of(&jobs[i], cache, &reqs[i]);
	for (int i = 0; i < n; i++)
		errbuf_init(&errs[i]);
	eval_run_many(reqs, n, in_flight, res, rcs, errs);
	tl->wall += (double)(now_ns() - t0) / 1e9;
	for (int i = 0; i < n; i++) {
		jobs[i].res = res[i];
		jobs[i].rc_run = rcs[i];
		jobs[i].seconds = res[i].eval_seconds;
		if (rcs[i]) {
			fprintf(stderr, "  %s: %s\n", jobs[i].dir,
				errbuf_str(&errs[i]));
			tl->failed++;
		}
	}
	free(errs);
	free(rcs);
	free(res);
	free(reqs);
	free(cache);
	for (int i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		tl->ratios = xrealloc(tl->ratios,
				      (size_t)(tl->n + 1) * sizeof(double));
		tl->ratios[tl->n] = j->res.speedup_ratio;
		tl->n++;
		tl->latency_sum += j->seconds;
		if (j->seconds > tl->latency_max)
			tl->latency_max = j->seconds;
		if (j->rc_run == 0 && j->res.status == RS_OK) {
			tl->ok++;
			if (j->res.speedup_ci_lo <= 1.0 &&
			    j->res.speedup_ci_hi >= 1.0)
				tl->covered++;
		} else {
			fprintf(stderr, "  %s: %s %s\n", j->dir,
				result_status_name(j->res.status),
				j->res.correctness_error_message
					? j->res.correctness_error_message
					: "");
		}
		result_release(&j->res);
	}
}

static void print_tally(const char *mode, const struct tally *tl)
{
	stats_sort(tl->ratios, (size_t)tl->n);
	printf("%-10s %3d evals %3d ok  %7.1f s  %7.0f evals/h  latency "
	       "mean %5.2f s max %5.2f s  A/A median %.3f  1.0 in CI %d/%d\n",
	       mode, tl->n, tl->ok, tl->wall, 3600.0 * tl->n / tl->wall,
	       tl->latency_sum / tl->n, tl->latency_max,
	       tl->n ? tl->ratios[tl->n / 2] : 0.0, tl->covered, tl->ok);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/arena-pipeline-bench-XXXXXX";
	struct errbuf err;

	if (argc < 6) {
		fprintf(stderr,
			"usage: %s TASKS_ROOT ROUNDS PER_TASK "
			"CASE_BUDGET_S TASK...\n",
			argv[0]);
		return 2;
	}
	const char *root = argv[1];
	int rounds = atoi(argv[2]), per = atoi(argv[3]);
	double budget = atof(argv[4]);
	int ntasks = argc - 5;
	struct task **tasks = xcalloc((size_t)ntasks, sizeof(*tasks));
	char **devices = xcalloc((size_t)ntasks, sizeof(*devices));

	errbuf_init(&err);
	for (int i = 0; i < ntasks; i++)
		if (task_load(root, argv[5 + i], &tasks[i], &err) ||
		    eval_resolve_device(NULL, tasks[i], &devices[i], &err)) {
			fprintf(stderr, "%s\n", errbuf_str(&err));
			return 1;
		}
	if (!(work_dir = mkdtemp(tmpl)))
		return 1;

	/* Warm: reference and baseline artifacts compiled once, as a
	 * long-running service has them. */
	for (int i = 0; i < ntasks; i++) {
		char tag[64];
		snprintf(tag, sizeof(tag), "warm-%d", i);
		struct job j = { .task = tasks[i],
				 .seed = 1,
				 .device = devices[i],
				 .budget = 0.05 };
		j.dir = candidate(tasks[i], tag);
		struct tally warm = { 0 };
		run_stream(&j, 1, 1, &warm);
		free(warm.ratios);
		free(j.dir);
	}

	int n = ntasks * per;
	struct tally serial = { 0 }, piped = { 0 };
	for (int r = 0; r < rounds; r++) {
		struct job *js = xcalloc((size_t)n, sizeof(*js));
		struct job *jp = xcalloc((size_t)n, sizeof(*jp));
		struct eval_refcache *rc = eval_refcache_new((size_t)1 << 30);
		uint64_t task_seed[64];
		for (int i = 0; i < ntasks && i < 64; i++)
			random_bytes(&task_seed[i], sizeof(task_seed[i]));
		/* Tasks interleaved, as a trainer's stream would be. */
		for (int k = 0; k < n; k++) {
			int ti = k % ntasks;
			char tag[64];
			snprintf(tag, sizeof(tag), "r%d-s%d", r, k);
			js[k].task = tasks[ti];
			js[k].device = jp[k].device = devices[ti];
			js[k].dir = candidate(tasks[ti], tag);
			random_bytes(&js[k].seed, sizeof(js[k].seed));
			js[k].budget = budget;
			snprintf(tag, sizeof(tag), "r%d-p%d", r, k);
			jp[k].task = tasks[ti];
			jp[k].dir = candidate(tasks[ti], tag);
			jp[k].seed = task_seed[ti % 64];
			jp[k].rc = rc;
			jp[k].budget = budget;
		}
		/* Alternate which mode goes first. */
		for (int m = 0; m < 2; m++) {
			if ((m == 0) == (r % 2 == 0))
				run_stream(js, n, 1, &serial);
			else
				run_stream(jp, n, 2, &piped);
		}
		struct eval_refcache_stats st;
		eval_refcache_stats(rc, &st);
		fprintf(stderr, "round %d: refcache %llu hits %llu misses\n",
			r + 1, (unsigned long long)st.hits,
			(unsigned long long)st.misses);
		eval_refcache_free(rc);
		for (int k = 0; k < n; k++) {
			free(js[k].dir);
			free(jp[k].dir);
		}
		free(js);
		free(jp);
	}
	print_tally("serial", &serial);
	print_tally("pipelined", &piped);
	if (serial.failed || piped.failed) {
		/* No throughput from evaluations that did not happen. */
		printf("%d evaluations could not run: no ratio\n",
		       serial.failed + piped.failed);
		rm_rf(work_dir);
		return 1;
	}
	printf("throughput ratio pipelined/serial: %.2f\n",
	       (piped.n / piped.wall) / (serial.n / serial.wall));
	for (int i = 0; i < ntasks; i++) {
		task_free(tasks[i]);
		free(devices[i]);
	}
	free(tasks);
	free(devices);
	free(serial.ratios);
	free(piped.ratios);
	rm_rf(work_dir);
	return 0;
}

/*
 * build.c - the build phase of an evaluation: reference (from the task
 * directory), baseline (the task's baseline.files, or its editable files)
 * and candidate (its snapshot only, no -I into its workspace) compiled
 * into cached shared objects (compile.c), and the correctness runners
 * started.  A task loaded from a trusted copy (DESIGN.md §3.10) is
 * verified against its manifest first, and every file read from it
 * again against the manifest; a mismatch is infra_error naming the file.
 *
 * Overlap, where it pays: a GPU evaluation launches its GPU runners (and
 * its keeper, gpu_sample.c) before anything compiles (a context takes as
 * long as nvcc) and loads their kernels once built; the host reference of
 * a GPU task that has no GPU baseline runs its correctness trials ahead
 * while a GPU compiler builds the candidate in a thread of its own.
 */
#include "evaluation.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

/* One role's build, in three steps so that the candidate's compiler can
 * run in a thread of its own while the reference runs ahead
 * (build_all).  The job owns everything the compiler step reads. */
struct build_job {
	struct eval_ctx *x;
	enum role role;
	struct strvec compile;
	char *log;
	struct build_spec bs;
	struct build_out bo;
	struct errbuf err;
	int rc;
};

static void build_prepare(struct eval_ctx *x, enum role role,
			  const struct source_set *src,
			  const struct strvec *files, const char *extra_inc,
			  const struct strvec *defines, struct build_job *j)
{
	enum task_language lang = x->lang[role];

	memset(j, 0, sizeof(*j));
	j->x = x;
	j->role = role;
	strvec_init(&j->compile);
	errbuf_init(&j->err);
	j->log = path_join(x->log_dir, role == ROLE_CAND ? "compile-candidate.log"
				       : role == ROLE_BASE ? "compile-baseline.log"
							   : "compile-reference.log");
	for (size_t i = 0; i < files->n; i++)
		if (compile_source_ok(lang, files->v[i]))
			strvec_push(&j->compile, files->v[i]);
	j->bs = (struct build_spec){
		.role = ev_role_names[role],
		.lang = lang,
		.dev = lang == LANG_C ? DEV_HOST : x->dev.kind,
		.arch = lang == LANG_C ? NULL : x->gi.arch,
		.src = src,
		.compile = &j->compile,
		.extra_include = extra_inc,
		.flags = &x->t->compile_flags,
		.defines = defines,
		.cache_dir = x->req->cache_dir,
		.timeout_s = x->req->timing.compile_timeout_s,
		.log_path = j->log,
		/* A Python candidate is parsed (and held to the task's rule
		 * on library calls) before anything of it runs. */
		.check = role == ROLE_CAND && language_is_python(lang) &&
			 !x->req->candidate_is_baseline,
		.forbid_library_calls = x->t->forbid_library_calls,
		.allowed_calls = &x->t->allowed_calls,
		.entry = x->t->entry,
		.confine = role == ROLE_CAND && x->confine_on,
		.hide = &x->hidden,
		.memory_mb = x->req->timing.compile_memory_mb,
		/* The reference's kernel is the functional module's
		 * PyTorch function: no extension (docs/aka.md). */
		.torch_ext = role == ROLE_REF ? NULL : x->t->torch_ext,
		.ext_required = role == ROLE_CAND &&
				!x->req->candidate_is_baseline,
	};
}

/* The compiler step: touches nothing but the job (a thread may run it). */
static void *build_run(void *arg)
{
	struct build_job *j = arg;

	j->rc = compile_build(&j->bs, &j->bo, &j->err);
	return NULL;
}

static int build_finish(struct build_job *j)
{
	struct eval_ctx *x = j->x;
	enum role role = j->role;
	int rc = j->rc;

	free(j->log);
	strvec_release(&j->compile);
	if (rc) {
		errf_code(x->err, rc, "%s", errbuf_str(&j->err));
		return rc;
	}
	if (role == ROLE_CAND && !j->bo.confined && !j->bo.cached)
		x->all_sandboxed = false;
	if (j->bo.message) {
		if (role == ROLE_CAND) {
			x->res->pass_compilation = false;
			ev_verdict(x, RS_COMPILE_ERROR, "%s", j->bo.message);
		} else {
			ev_verdict(x, RS_INFRA_ERROR, "the task's %s does not "
				   "compile: %s", ev_role_names[role], j->bo.message);
		}
		build_out_release(&j->bo);
		return 0;
	}
	x->so[role] = j->bo.so_path;
	j->bo.so_path = NULL;
	build_out_release(&j->bo);
	ev_trace_mark(x, "%s built", ev_role_names[role]);
	return 0;
}

/* A job whose evaluation was decided while it compiled: its output is
 * dropped, nothing of the evaluation is touched. */
static void build_discard(struct build_job *j)
{
	free(j->log);
	strvec_release(&j->compile);
	build_out_release(&j->bo);
}

static int build_role(struct eval_ctx *x, enum role role,
		      const struct source_set *src, const struct strvec *files,
		      const char *extra_inc, const struct strvec *defines)
{
	struct build_job j;

	build_prepare(x, role, src, files, extra_inc, defines, &j);
	build_run(&j);
	return build_finish(&j);
}

/* For a task loaded from a trusted copy: whether the bytes just read
 * from it are the bytes its manifest recorded (the copy was verified as a
 * whole when the builds began; this closes the window since).  false
 * with an infra_error verdict when not. */
static bool trusted_bytes(struct eval_ctx *x, const struct source_set *src)
{
	if (!x->t->trusted_hash)
		return true;
	for (int i = 0; i < src->n; i++) {
		const char *want =
			task_trust_lookup(&x->manifest, src->path[i]);
		if (src->data[i] && (!want || strcmp(want, src->sha256[i]))) {
			ev_verdict(x, RS_INFRA_ERROR,
				   "the task's trusted copy "
				   "changed during the evaluation: %s is not "
				   "the file it was made with",
				   src->path[i]);
			return false;
		}
	}
	return true;
}

/* The task's baseline.files (docs/tasks.md), read as if they were the
 * editable files they stand for.  0 with *out filled, -1 with a verdict
 * set when they cannot be read. */
static int task_baseline_sources(struct eval_ctx *x, struct source_set *out)
{
	const struct task *t = x->t;
	struct errbuf e;

	errbuf_init(&e);
	if (sources_read(t->dir, &t->baseline_files, out, &e) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "the task's baseline cannot be read: "
			   "%s", errbuf_str(&e));
		return -1;
	}
	if (!trusted_bytes(x, out)) {
		sources_release(out);
		return -1;
	}
	for (int i = 0; i < out->n && (size_t)i < t->editable.n; i++) {
		if (!out->data[i]) {
			ev_verdict(x, RS_INFRA_ERROR, "the task's baseline file %s is "
				   "missing", t->baseline_files.v[i]);
			sources_release(out);
			return -1;
		}
		free(out->path[i]);
		out->path[i] = xstrdup(t->editable.v[i]);
	}
	return 0;
}

static void source_copy_one(struct source_set *out, struct strvec *files,
			    const struct source_set *from, int i)
{
	int k = out->n++;

	out->path[k] = xstrdup(from->path[i]);
	out->len[k] = from->len[i];
	memcpy(out->sha256[k], from->sha256[i], 65);
	if (from->data[i]) {
		out->data[k] = xmalloc(from->len[i] + 1);
		memcpy(out->data[k], from->data[i], from->len[i]);
		out->data[k][from->len[i]] = '\0';
	}
	strvec_push(files, from->path[i]);
}

/* A Python role's sources with the task's bundle files (a prepared AKA
 * task: its call shim and the modules its kernel imports, docs/aka.md),
 * read from the task directory, which is trusted: the first bundle file
 * (the entry module when bundle_entry), then the role's own files, then
 * the other bundle files.  Without bundle files, a copy of own.  0, or -1
 * with a verdict when a bundle file cannot be read. */
static int bundle_sources(struct eval_ctx *x, const struct source_set *own,
			  struct source_set *out, struct strvec *files)
{
	const struct task *t = x->t;
	struct source_set bs;
	struct errbuf e;

	memset(out, 0, sizeof(*out));
	strvec_init(files);
	memset(&bs, 0, sizeof(bs));
	if (t->bundle_files.n) {
		errbuf_init(&e);
		if (sources_read(t->dir, &t->bundle_files, &bs, &e) != 0) {
			ev_verdict(x, RS_INFRA_ERROR,
				   "the prepared task's files "
				   "cannot be read: %s",
				   errbuf_str(&e));
			return -1;
		}
	}
	if (own->n + bs.n > SOURCES_MAX_FILES) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "the prepared task has %d source "
			   "files, more than %d",
			   own->n + bs.n, SOURCES_MAX_FILES);
		sources_release(&bs);
		return -1;
	}
	int first = t->bundle_entry && bs.n ? 1 : 0;
	for (int i = 0; i < first; i++)
		source_copy_one(out, files, &bs, i);
	for (int i = 0; i < own->n; i++)
		source_copy_one(out, files, own, i);
	for (int i = first; i < bs.n; i++)
		source_copy_one(out, files, &bs, i);
	sources_release(&bs);
	return 0;
}

int ev_timing_blocks(const struct eval_ctx *x)
{
	int n = x->req->quick ? 1 : x->req->timing.blocks;

	return n < 1 ? 1 : n > MAX_BLOCKS ? MAX_BLOCKS : n;
}

/* GPU evaluations start every GPU runner they will need before anything
 * is compiled, without its kernel (a context takes 0.2-0.5 s, about as
 * long as nvcc takes): the kernels follow with `load` once built.  Only
 * when the device is not being timed by another evaluation right now;
 * otherwise the runners start after the builds. */
static void prelaunch_gpu(struct eval_ctx *x)
{
	/* Memory first, without waiting (a queued ask keeps its place):
	 * nothing waits for memory while holding the device's lock. */
	if (!x->gpu || !ev_gpu_memory_admit(x, false) ||
	    ev_lock_device(x, LOCK_SH, true) != 0)
		return;
	for (int role = 0; role < NROLES && !x->decided; role++) {
		if (!ev_role_gpu(x, (enum role)role))
			continue;
		if ((x->keep[role] = ev_launch(x, (enum role)role, x->shm_size,
					       NULL)))
			x->keep_pending[role] = true;
	}
	if (!x->decided)
		(void)ev_keeper_launch(x);
	if (x->req->skip_timing)
		return;
	for (int b = 1; b < ev_timing_blocks(x) && !x->decided; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = ev_block_role(b, i);
			x->tblk[b][role == ROLE_CAND] =
				ev_launch(x, role, x->shm_size, NULL);
		}
}

/* Finishes the start of a prelaunched runner: hello, then its kernel.
 * false (verdict set, runner forgotten) on failure. */
static bool finish_start(struct eval_ctx *x, enum role role, struct runner *r)
{
	enum runner_fail f;

	if (!ev_await_ready(x, role, r, NULL))
		return false;
	if (!r->deferred)
		return true;
	enum result_phase was = ev_phase_enter(x, RPH_RUNNER_START);
	f = runner_load(r, x->so[role]);
	ev_phase_enter(x, was);
	if (f != RUNNER_OK) {
		ev_runner_failed(x, role, r, f, "while loading its kernel", NULL);
		ev_ctx_forget(x, r);
		return false;
	}
	return true;
}

/* Every runner of the correctness phase started and ready (and the
 * prelaunched timing runners given their kernels). */
static void start_correctness_runners(struct eval_ctx *x)
{
	if (!x->gpu || x->decided || !ev_gpu_memory_admit(x, true))
		return;
	/* Exclusively: from here on every GPU sample ends with the keeper
	 * probing until the device is idle, and another evaluation's
	 * samples would keep it busy (on the H200, three evaluations at
	 * once left every keeper waiting out its 10 s limit). */
	if (!ev_lock_or_verdict(x, LOCK_EX))
		return;
	/* A baseline that is the host reference does not run on the
	 * device: prelaunched baseline runners have nothing to run. */
	if (x->baseline_is_reference || x->no_gpu_baseline) {
		for (int b = 0; b < MAX_BLOCKS; b++) {
			struct runner **slot = b ? &x->tblk[b][0]
						 : &x->keep[ROLE_BASE];
			if (*slot && (*slot)->gpu && x->lang[ROLE_BASE] == LANG_C) {
				ev_ctx_forget(x, *slot);
				*slot = NULL;
			}
		}
		x->keep_pending[ROLE_BASE] = false;
	}
	for (int role = 0; role < NROLES && !x->decided; role++)
		if (!x->keep[role] &&
		    !(role == ROLE_BASE && x->baseline_is_reference) &&
		    (x->keep[role] = ev_launch(x, (enum role)role, x->shm_size,
					    NULL)))
			x->keep_pending[role] = true;
	/* The keeper (gpu_sample.c) flushes and probes the device for every
	 * sample, correctness included. */
	if (!x->decided && !x->no_gpu_baseline)
		(void)ev_keeper_launch(x);
	for (int role = 0; role < NROLES; role++) {
		struct runner *r = x->keep[role];
		if (!r || !x->keep_pending[role])
			continue;
		x->keep_pending[role] = false;
		x->keep[role] = NULL;
		if (!x->decided && finish_start(x, (enum role)role, r))
			x->keep[role] = r;
	}
	if (!x->decided && x->keeper)
		(void)ev_keeper_ready(x);
	for (int b = 1; b < MAX_BLOCKS; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = ev_block_role(b, i);
			int slot = role == ROLE_CAND;
			struct runner *r = x->tblk[b][slot];
			if (!r || !r->deferred)
				continue;
			x->tblk[b][slot] = NULL;
			if (!x->decided && finish_start(x, role, r))
				x->tblk[b][slot] = r;
		}
}

/* The baseline: the task's baseline.files (under the editable names),
 * else its editable files, from the task's directory (the trusted copy on
 * every engine path, never a run's baseline/).  An unimplemented task
 * without baseline files (the schema requires them; this is for callers
 * of eval_run that bypass it) times against its reference, which for a
 * GPU task with a host reference means no timing.  Returns what
 * build_role does; a verdict is set where it cannot be built. */
static int build_baseline(struct eval_ctx *x)
{
	const struct task *t = x->t;
	struct source_set src;
	struct errbuf e;
	int have = 0, rc = 0;

	if (t->baseline_files.n) {
		if (task_baseline_sources(x, &src) != 0)
			return 0;
		have = 1;
	} else if (t->initial_state != TASK_UNIMPLEMENTED) {
		errbuf_init(&e);
		if (sources_read(t->dir, &t->editable, &src, &e) != 0) {
			ev_verdict(x, RS_INFRA_ERROR, "the baseline sources in %s "
				   "cannot be read: %s", t->dir, errbuf_str(&e));
			return 0;
		}
		if (!trusted_bytes(x, &src)) {
			sources_release(&src);
			return 0;
		}
		have = 1;
	}
	if (have) {
		struct source_set all;
		struct strvec files;
		if (bundle_sources(x, &src, &all, &files) != 0) {
			sources_release(&src);
			return 0;
		}
		sources_release(&src);
		rc = build_role(x, ROLE_BASE, &all, &files, t->dir, NULL);
		sources_release(&all);
		strvec_release(&files);
	} else {
		x->so[ROLE_BASE] = xstrdup(x->so[ROLE_REF]);
		x->baseline_is_reference = true;
		x->lang[ROLE_BASE] = x->lang[ROLE_REF];
		x->no_gpu_baseline = x->gpu && x->lang[ROLE_REF] == LANG_C;
	}
	return rc;
}

int ev_build_all(struct eval_ctx *x, const struct source_set *cand_src)
{
	const struct task *t = x->t;
	struct source_set src;
	struct strvec ref_files = STRVEC_INIT;
	struct errbuf e;
	int rc;

	/* The trusted copy, checked whole before anything of it is used. */
	errbuf_init(&e);
	if (t->trusted_hash &&
	    task_trust_verify(t->dir, t->trusted_hash, &x->manifest, &e) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return 0;
	}

	/* Reference: its file from the task directory (a prepared AKA
	 * task's reference is its kernel as shipped, with the bundle). */
	errbuf_init(&e);
	if (t->reference_is_baseline)
		for (size_t i = 0; i < t->editable.n; i++)
			strvec_push(&ref_files, t->editable.v[i]);
	else
		strvec_push(&ref_files, t->reference_file);
	if (sources_read(t->dir, &ref_files, &src, &e) != 0 || !src.data[0]) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "the task's reference %s cannot be "
			   "read: %s",
			   ref_files.v[0], e.set ? errbuf_str(&e) : "missing");
		if (src.n)
			sources_release(&src);
		strvec_release(&ref_files);
		return 0;
	}
	if (!trusted_bytes(x, &src)) {
		sources_release(&src);
		strvec_release(&ref_files);
		return 0;
	}
	prelaunch_gpu(x);
	if (t->bundle_files.n) {
		struct source_set all;
		strvec_release(&ref_files);
		if (bundle_sources(x, &src, &all, &ref_files) != 0) {
			sources_release(&src);
			return 0;
		}
		sources_release(&src);
		src = all;
	}
	rc = build_role(x, ROLE_REF, &src, &ref_files, t->dir, NULL);
	sources_release(&src);
	strvec_release(&ref_files);
	if (rc || x->decided)
		return rc;

	/* Candidate: its snapshot only, no -I into its workspace.  Where
	 * ev_cpus_to_spare() (four CPUs or more), its compiler runs in a
	 * thread of its own beside the baseline's (on an H100 two PyTorch
	 * extensions of an AKA gpumode task built one after the other in 62
	 * and 56 s, 2026-12-06); on two, a second compiler beside whatever
	 * else runs there was not worth the risk (CI's timing tests failed
	 * twice in the one run that had it).  And where the candidate will be called on
	 * host-drawn inputs (a GPU task with no GPU baseline, never timed),
	 * beside a host reference that runs its trials ahead in this thread;
	 * otherwise the reference gets its inputs from the baseline's samples
	 * (correctness_gpu.c).  The compiler touches only its job. */
	struct build_job job;
	pthread_t th;
	struct source_set cand_all;
	struct strvec cand_files;
	if (bundle_sources(x, cand_src, &cand_all, &cand_files) != 0)
		return 0;
	build_prepare(x, ROLE_CAND, &cand_all, &cand_files, NULL,
		      x->req->defines, &job);
	bool threaded = ev_cpus_to_spare() &&
			pthread_create(&th, NULL, build_run, &job) == 0;
	rc = build_baseline(x);
	bool ahead = rc == 0 && !x->decided && x->gpu && x->no_gpu_baseline &&
		     !ev_role_gpu(x, ROLE_REF);
	if (ahead && !threaded)
		threaded = pthread_create(&th, NULL, build_run, &job) == 0;
	if (ahead && threaded)
		ev_reference_ahead(x);
	if (threaded)
		pthread_join(th, NULL);
	else if (rc == 0 && !x->decided)
		build_run(&job);
	if (rc || x->decided)
		build_discard(&job);
	else
		rc = build_finish(&job);
	sources_release(&cand_all);
	strvec_release(&cand_files);
	if (rc == 0 && !x->decided) {
		start_correctness_runners(x);
		ev_trace_mark(x, "runners ready");
	}
	return rc;
}

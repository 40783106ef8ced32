/*
 * runners.c - the runners one evaluation owns, and the checks on every
 * call it makes to them.
 *
 * Ownership: every runner started is registered in x->live and destroyed
 * on every path (ev_ctx_forget; ctx_release in eval.c ends the rest),
 * so no evaluation leaves a process behind.  GPU evaluations keep their
 * runners across cases (ev_acquire / ev_release); host evaluations start
 * fresh ones for every case.
 *
 * After every call: a runner failure becomes its verdict
 * (ev_runner_failed), a non-zero return is the candidate's fault or the
 * task's, a candidate runner may have left no thread or child behind
 * (host: one thread; GPU: no more than a trusted runner of the same
 * device), a GPU candidate's call is checked for work not ordered on its
 * stream, inputs must be unchanged and outputs are compared
 * (ev_outputs_match).  Also here: the timing trace
 * (<log_dir>/timing.tsv); the device lock is device_lock.c's.
 */
#include "evaluation.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ev_ctx_forget(struct eval_ctx *x, struct runner *r)
{
	/* Its lent slot is free again (the keeper frees the memory when the
	 * slot is lent next, or with the keeper). */
	if (r && r->lend_slot > 0 && r->lend_slot <= RP_LEND_SLOTS &&
	    x->lent_owner[r->lend_slot - 1] == r)
		x->lent_owner[r->lend_slot - 1] = NULL;
	if (r == x->keeper)
		memset(x->lent_owner, 0, sizeof(x->lent_owner));
	for (int i = 0; i < x->nlive; i++)
		if (x->live[i] == r) {
			x->live[i] = x->live[--x->nlive];
			break;
		}
	runner_destroy(r);
}

void ev_where(char *buf, size_t n, const char *during,
	      const struct task_case *c)
{
	if (c)
		snprintf(buf, n, "%s, %s '%s'", during, ev_case_kind(c), c->id);
	else
		snprintf(buf, n, "%s", during);
}

/* The infra_error message of a failed request of role's runner (f), or
 * of its non-zero return (f RUNNER_OK, rc), in words; for the candidate
 * only RUNNER_NODEVICE (ev_runner_failed words the rest).  Reads only its
 * arguments, so any thread may call it (refpool.c's workers). */
void ev_trusted_failure(enum role role, const struct runner *r,
			enum runner_fail f, int rc, const char *during,
			const struct task_case *c, struct strbuf *sb)
{
	char where[256];

	ev_where(where, sizeof(where), during, c);
	if (f == RUNNER_OK)
		strbuf_addf(sb, "the %s returned %d %s", ev_role_names[role],
			    rc, where);
	else if (f == RUNNER_NODEVICE)
		strbuf_addf(sb, "the %s runner %s %s", ev_role_names[role],
			    r->why, where);
	else
		strbuf_addf(sb,
			    "the %s runner %s %s (the task's %s is at fault, "
			    "not the candidate)",
			    ev_role_names[role], r->why, where,
			    ev_role_names[role]);
}

/* Turns a runner failure into the verdict it deserves. */
void ev_runner_failed(struct eval_ctx *x, enum role role,
			  struct runner *r, enum runner_fail f,
			  const char *during, const struct task_case *c)
{
	char where[256];

	if (f == RUNNER_NODEVICE || role != ROLE_CAND) {
		struct strbuf sb = STRBUF_INIT;
		ev_trusted_failure(role, r, f, 0, during, c, &sb);
		ev_verdict(x, RS_INFRA_ERROR, "%s", strbuf_str(&sb));
		strbuf_release(&sb);
		return;
	}
	ev_where(where, sizeof(where), during, c);
	switch (f) {
	case RUNNER_DEVICE: {
		/* A device error is a claim like any other reply: it is the
		 * candidate's unless a trusted probe of the same device right
		 * after fails too (docs/gpu.md section 4). */
		struct gpu_error_meaning m;
		char probe[300];
		gpu_error_meaning(r->dev_error, &m);
		if (!ev_device_works(x, probe, sizeof(probe))) {
			ev_verdict(
				x, RS_INFRA_ERROR,
				"the device failed %s: the "
				"candidate runner %s, and a trusted probe of "
				"the device right after failed too (%s)",
				where, r->why, probe);
			break;
		}
		bool hw = m.status == RS_INFRA_ERROR;
		ev_verdict(
			x, hw ? RS_RUNTIME_ERROR : (enum result_status)m.status,
			"the candidate caused %s on the device %s: the runner "
			"%s%s%s",
			m.what, where, r->why,
			r->dev_sticky
				? "; the device context was lost and the runner retired"
				: "",
			hw ? "; a trusted probe of the device right after "
			     "found it working, so the error is the candidate's"
			   : "");
		break;
	}
	case RUNNER_TIMEOUT:
		ev_verdict(x, RS_TIMEOUT, "the candidate %s %s", r->why, where);
		break;
	case RUNNER_DIED:
		ev_verdict(x, RS_RUNTIME_ERROR, "the candidate runner %s %s",
			r->why, where);
		break;
	case RUNNER_FORBIDDEN:
		ev_verdict(x, RS_REJECTED, "the candidate runner %s %s", r->why,
			where);
		break;
	case RUNNER_PROTOCOL:
		ev_verdict(x, RS_REJECTED, "runner protocol violated: the "
			"candidate runner %s %s", r->why, where);
		break;
	case RUNNER_LOAD:
		x->res->pass_compilation = false;
		ev_verdict(x, RS_COMPILE_ERROR, "the compiled kernel could not be "
			   "loaded: %s", r->why);
		break;
	case RUNNER_REFUSED:
		ev_verdict(x, RS_RUNTIME_ERROR, "the candidate runner %s %s",
			r->why, where);
		break;
	default:
		ev_verdict(x, RS_INFRA_ERROR, "the candidate runner %s %s", r->why,
			where);
	}
}

/* Whether role's artifact runs in a GPU runner (a C reference of a GPU
 * task runs in the host runner). */
bool ev_role_gpu(const struct eval_ctx *x, enum role role)
{
	return x->gpu && x->lang[role] != LANG_C;
}

enum role ev_block_role(int b, int i)
{
	return ((b & 1) ^ (i & 1)) ? ROLE_CAND : ROLE_BASE;
}

static struct runner *launch(struct eval_ctx *x, enum role role, size_t shm,
			     const struct task_case *c);

/* The threads a reference runner may cut its calls into when the task
 * declares reference.split (docs/tasks.md): $ARENA_REF_THREADS (0 or 1:
 * whole calls), else the CPUs this process may run on, at most 16.  The
 * task checks (req->mutants) always cut into at least 3, so that the
 * check of the declaration (ev_reference_split_holds) means something on
 * a machine of 2 CPUs. */
int ev_reference_threads(const struct eval_ctx *x)
{
	const char *e = getenv("ARENA_REF_THREADS");
	long n;

	if (!x->t->reference_split || x->lang[ROLE_REF] != LANG_C)
		return 1;
	if (e && *e) {
		char *end;
		n = strtol(e, &end, 10);
		if (*end || n < 1)
			n = 1;
	} else {
		n = ev_cpus_usable();
	}
	if (x->req->mutants && n < 3)
		n = 3;
	return n < 1 ? 1 : n > 16 ? 16 : (int)n;
}

/* Forks and execs a runner for role with shm bytes of shared memory;
 * NULL (verdict set) on failure.  runner_await() finishes the start. */
struct runner *ev_launch(struct eval_ctx *x, enum role role, size_t shm,
			 const struct task_case *c)
{
	if (ev_role_gpu(x, role) && !ev_gpu_memory_before_launch(x))
		return NULL;
	enum result_phase was = ev_phase_enter(x, RPH_RUNNER_START);
	struct runner *r = launch(x, role, shm, c);

	ev_phase_enter(x, was);
	return r;
}

static struct runner *launch(struct eval_ctx *x, enum role role, size_t shm,
			     const struct task_case *c)
{
	struct runner *r;
	enum runner_fail f;
	char devarg[16];
	bool gpu = ev_role_gpu(x, role);
	struct py_spec ps;
	struct runner_spec s = {
		.runner_path = gpu ? gpu_runner_path(x->dev.kind)
				   : x->runner_path,
		.so_path = x->so[role],
		.entry = role == ROLE_REF && x->t->reference_entry
				 ? x->t->reference_entry
			 : x->t->entry ? x->t->entry
				       : "arena_launch",
		.role = ev_role_names[role],
		.shm_size = shm,
		.log_fd = x->logfd[role],
		.timeout_ms = x->timeout_ms,
		.gpu = gpu,
		.confine = x->confine[gpu],
		.threads = role == ROLE_REF && !gpu ? ev_reference_threads(x)
						    : 0,
	};
	bool py = ev_role_python(x, role);
	if (py && ev_python_spec(x, role, gpu, &s, &ps) != 0)
		return NULL;
	/* The Python runner is an interpreter with a script and libraries
	 * that the runners' namespace profile does not show: it keeps its
	 * own Landlock rules (docs/python.md), not this confinement. */
	if (py)
		s.confine = NULL;
	if (gpu) {
		snprintf(devarg, sizeof(devarg), "%d", x->dev.index);
		s.device_arg = devarg;
		/* A GPU runtime reserves terabytes of address space: no
		 * RLIMIT_AS; device memory is the device's to limit. */
	} else {
#if !defined(__SANITIZE_ADDRESS__)
		/* Room for the data several times over and the libraries
		 * (the flush buffer is the controller's); an ASan runner
		 * reserves terabytes of shadow instead. */
		s.as_limit = (uint64_t)shm * 4 + (1ull << 30);
		/* The interpreter and torch's libraries: about 0.7 GiB of
		 * address space for torch 1.13 on the CPU. */
		if (py)
			s.as_limit += 3ull << 30;
		/* A reference cut into threads: each thread's stack and the
		 * malloc arena glibc reserves for it (64 MiB). */
		if (s.threads > 1)
			s.as_limit += (uint64_t)s.threads * (72ull << 20);
#endif
	}
	if (x->nlive >= MAX_LIVE) {
		ev_verdict(x, RS_INFRA_ERROR, "too many runners at once");
		if (py)
			py_spec_release(&ps);
		return NULL;
	}
	r = runner_new();
	x->live[x->nlive++] = r;
	f = runner_launch(r, &s);
	if (py)
		py_spec_release(&ps);
	if (f != RUNNER_OK) {
		ev_runner_failed(x, role, r, f, "while starting", c);
		ev_ctx_forget(x, r);
		return NULL;
	}
	ev_trace_detail(x, "%s runner %d launched", ev_role_names[role],
			(int)r->pid);
	return r;
}

/* Waits for a launched runner's hello and ready; false (verdict set, the
 * runner forgotten) on failure. */
bool ev_await_ready(struct eval_ctx *x, enum role role, struct runner *r,
			const struct task_case *c)
{
	enum result_phase was = ev_phase_enter(x, RPH_RUNNER_START);
	enum runner_fail f = runner_await(r);
	int children = 0;

	ev_phase_enter(x, was);
	if (f != RUNNER_OK) {
		ev_runner_failed(x, role, r, f, "while starting", c);
		ev_ctx_forget(x, r);
		return false;
	}
	/* Sandboxed: seccomp and Landlock, and the namespace confinement;
	 * a Python runner's Landlock read allow-list stands for the latter
	 * (ev_launch). */
	if (!r->sandboxed || (!r->confined && !ev_role_python(x, role)))
		x->all_sandboxed = false;
	runner_census(r, &r->threads_ready, &children);
	ev_trace_detail(x, "%s runner %d ready", ev_role_names[role],
			(int)r->pid);
	return true;
}

bool ev_set_layout(struct eval_ctx *x, enum role role, struct runner *r,
		   const struct case_layout *l, const struct task_case *c)
{
	return ev_set_layouts(x, &role, &r, 1, l, c);
}

bool ev_set_layouts(struct eval_ctx *x, const enum role *roles,
		    struct runner *const *rs, int n, const struct case_layout *l,
		    const struct task_case *c)
{
	enum runner_fail *fail = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*fail));
	bool ok = true;
	int threads = ev_reference_threads(x);

	runner_layout_all(rs, n, l->proto, fail);
	for (int i = 0; i < n; i++) {
		/* A reference cut into row ranges, for every call of the
		 * case (a layout resets it to whole calls). */
		if (fail[i] == RUNNER_OK && roles[i] == ROLE_REF &&
		    !rs[i]->gpu && threads > 1)
			fail[i] = runner_split(rs[i],
					       x->t->reference_split_param,
					       threads,
					       x->t->reference_split_args);
		if (fail[i] == RUNNER_OK)
			continue;
		if (ok)
			ev_runner_failed(x, roles[i], rs[i], fail[i],
					 "while taking the case's layout", c);
		ev_ctx_forget(x, rs[i]);
		ok = false;
	}
	free(fail);
	return ok;
}

/* Starts a runner for role with layout l; NULL (verdict set) on failure. */
struct runner *ev_spawn(struct eval_ctx *x, enum role role,
			    const struct case_layout *l,
			    const struct task_case *c)
{
	struct runner *r = ev_launch(x, role, x->gpu ? x->shm_size : l->shm_size,
				     c);

	if (!r || !ev_await_ready(x, role, r, c) || !ev_set_layout(x, role, r, l, c))
		return NULL;
	return r;
}

/* GPU evaluations keep their runners across cases (a fresh context costs
 * 0.2-0.5 s): the kept runner for role with layout l, started now when
 * there is none.  Host evaluations start a fresh one for every case. */
struct runner *ev_acquire(struct eval_ctx *x, enum role role,
			      const struct case_layout *l,
			      const struct task_case *c)
{
	struct runner *r;

	return ev_acquire_set(x, &role, 1, l, c, &r) ? r : NULL;
}

bool ev_acquire_set(struct eval_ctx *x, const enum role *roles, int n,
		    const struct case_layout *l, const struct task_case *c,
		    struct runner **out)
{
	bool fresh[1 + 2 * MAX_BLOCKS];
	int i;

	if (n > (int)ARRAY_SIZE(fresh)) {
		ev_verdict(x, RS_INFRA_ERROR, "too many runners at once");
		return false;
	}
	for (i = 0; i < n; i++)
		out[i] = NULL;
	for (i = 0; i < n; i++) {
		struct runner *kept = x->gpu ? x->keep[roles[i]] : NULL;
		fresh[i] = !kept;
		if (kept) {
			x->keep[roles[i]] = NULL;
			out[i] = kept;
		} else if (!(out[i] = ev_launch(
				     x, roles[i],
				     x->gpu ? x->shm_size : l->shm_size, c))) {
			goto fail;
		}
	}
	for (i = 0; i < n; i++)
		if ((fresh[i] && !ev_await_ready(x, roles[i], out[i], c)) ||
		    !ev_set_layout(x, roles[i], out[i], l, c)) {
			out[i] = NULL; /* forgotten by the step that failed */
			goto fail;
		}
	return true;
fail:
	for (i = 0; i < n; i++)
		if (out[i]) {
			ev_ctx_forget(x, out[i]);
			out[i] = NULL;
		}
	return false;
}

/* Gives a runner back after a case: kept for the next case when the case
 * went well on a GPU evaluation, ended otherwise (a runner that failed is
 * never reused: a sticky device error retires it, and the next case gets
 * a fresh one). */
void ev_release(struct eval_ctx *x, struct runner **slot,
		    struct runner *r, bool ok)
{
	if (!r)
		return;
	if (x->gpu && ok && !r->reaped && !*slot)
		*slot = r;
	else
		ev_ctx_forget(x, r);
}

/* Checks that a (stopped) candidate runner has one thread and no child
 * (host), or no more threads than a trusted runner of the same device
 * and runtime has after the same calls (GPU: the driver starts threads of
 * its own, a kernel may not). */
static bool census_ok(struct eval_ctx *x, struct runner *r, const char *when,
		      const struct task_case *c)
{
	int threads = 0, children = 0;

	if (runner_census(r, &threads, &children) != 0) {
		ev_verdict(x, RS_INFRA_ERROR, "cannot inspect the candidate "
			   "runner's threads in /proc");
		return false;
	}
	if (r->gpu) {
		int allowed = x->trusted_threads > 0 ? x->trusted_threads
						     : r->threads_ready;
		if (threads > allowed || children > 0) {
			ev_verdict(x, RS_REJECTED, "work left running after %s "
				   "returned (%d threads, %d child processes; the "
				   "baseline's runner has %d threads) %s, %s '%s'; "
				   "a kernel may not start threads or processes",
				   x->t->entry ? x->t->entry : "arena_launch",
				   threads, children, allowed, when, ev_case_kind(c),
				   c->id);
			return false;
		}
		return true;
	}
	if (threads > 1 || children > 0) {
		ev_verdict(x, RS_REJECTED, "work left running after %s returned "
			   "(%d threads, %d child processes) %s, %s '%s'; host "
			   "kernels must be single-threaded",
			   x->t->entry ? x->t->entry : "arena_launch", threads,
			   children, when, ev_case_kind(c), c->id);
		return false;
	}
	return true;
}

/* A trusted GPU runner's thread count after a call: what the driver
 * legitimately starts. */
void ev_note_trusted(struct eval_ctx *x, struct runner *r)
{
	int threads = 0, children = 0;

	if (r->gpu && runner_census(r, &threads, &children) == 0 &&
	    threads > x->trusted_threads)
		x->trusted_threads = threads;
}

/* Writes the staged inputs into set `off` (a byte offset) of a runner's
 * memory and poisons its outputs. */
void ev_stage_set(const struct task *t, const struct case_layout *l,
		      void *const *stage, struct runner *r, size_t off,
		      int pattern)
{
	for (int a = 0; a < t->nargs; a++) {
		void *dst = r->shm + off + l->offset[a];
		if (t->args[a].io == IO_OUT)
			poison_fill(t->args[a].dtype, dst, l->numel[a], pattern);
		else
			par_memcpy(dst, stage[a], l->bytes[a]);
	}
}

/* Writes the staged inputs into a runner's memory and poisons outputs. */
void ev_stage_into(const struct task *t, const struct case_layout *l,
		       void *const *stage, struct runner *r, int pattern)
{
	ev_stage_set(t, l, stage, r, 0, pattern);
}

/* Inputs (io: in) of set `off` must be bit-identical after a call. */
bool ev_inputs_intact_at(struct eval_ctx *x, const struct case_layout *l,
			     void *const *stage, struct runner *r, size_t off,
			     const char *when, const struct task_case *c)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		if (ta->io != IO_IN)
			continue;
		const unsigned char *got = r->shm + off + l->offset[a];
		if (par_memeq(got, stage[a], l->bytes[a]))
			continue;
		size_t sz = dtype_size(ta->dtype), i = 0;
		const unsigned char *want = stage[a];
		while (i < (size_t)l->numel[a] &&
		       memcmp(got + i * sz, want + i * sz, sz) == 0)
			i++;
		char idx[128];
		format_index(l->shape[a], ta->rank, (int64_t)i, idx,
			     sizeof(idx));
		ev_verdict(x, RS_REJECTED, "input '%s' was modified by the kernel "
			   "%s, %s '%s' (first changed element %s%s); inputs "
			   "must be left unchanged", ta->name, when, ev_case_kind(c),
			   c->id, ta->name, idx);
		return false;
	}
	return true;
}

bool ev_inputs_intact(struct eval_ctx *x, const struct case_layout *l,
		      void *const *stage, struct runner *r,
		      const char *when, const struct task_case *c)
{
	return ev_inputs_intact_at(x, l, stage, r, 0, when, c);
}

/* Compares every output of a set at got with want's (both laid out as
 * l); fills *maxerr; on a mismatch sets the verdict `st` with prefix. */
bool ev_outputs_match_mem(struct eval_ctx *x, const struct case_layout *l,
			  const unsigned char *got, const unsigned char *want,
			  double tol_scale, int pattern, double *maxerr,
			  enum result_status st, const char *prefix)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok = ev_outputs_compare(x->t, l, got, want, tol_scale, pattern,
				     maxerr, prefix, &sb);

	if (!ok)
		ev_verdict(x, st, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return ok;
}

bool ev_outputs_compare(const struct task *t, const struct case_layout *l,
			const unsigned char *got, const unsigned char *want,
			double tol_scale, int pattern, double *maxerr,
			const char *prefix, struct strbuf *why)
{
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		struct cmp_result cr;
		if (!task_arg_compared(ta))
			continue;
		double atol, rtol;
		task_tolerance(t, ta, &atol, &rtol);
		compare_arrays(ta->dtype, got + l->offset[a],
			       want + l->offset[a], l->numel[a],
			       atol * tol_scale, rtol * tol_scale,
			       ta->io == IO_OUT ? pattern : -1, &cr);
		if (maxerr && cr.max_abs_err > *maxerr)
			*maxerr = cr.max_abs_err;
		if (!cr.ok) {
			char idx[128];
			format_index(l->shape[a], ta->rank, cr.first_bad, idx,
				     sizeof(idx));
			strbuf_addf(why, "%s: output '%s'%s: %s", prefix,
				    ta->name, idx, cr.detail);
			return false;
		}
	}
	return true;
}

/* Compares every output of set `off` of `got` with `want`'s. */
bool ev_outputs_match_at(struct eval_ctx *x, const struct case_layout *l,
			 struct runner *got, struct runner *want, size_t off,
			 double tol_scale, int pattern, double *maxerr,
			 enum result_status st, const char *prefix)
{
	return ev_outputs_match_mem(x, l, got->shm + off, want->shm + off,
				    tol_scale, pattern, maxerr, st, prefix);
}

bool ev_outputs_match(struct eval_ctx *x, const struct case_layout *l,
		      struct runner *got, struct runner *want,
		      double tol_scale, int pattern, double *maxerr,
		      enum result_status st, const char *prefix)
{
	return ev_outputs_match_at(x, l, got, want, 0, tol_scale, pattern, maxerr,
				   st, prefix);
}

bool ev_outputs_within(const struct eval_ctx *x, const struct case_layout *l,
		       const struct runner *got, const struct runner *want,
		       double tol_scale, int pattern)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		struct cmp_result cr;
		if (!task_arg_compared(ta))
			continue;
		double atol, rtol;
		task_tolerance(x->t, ta, &atol, &rtol);
		compare_arrays(ta->dtype, got->shm + l->offset[a],
			       want->shm + l->offset[a], l->numel[a],
			       atol * tol_scale, rtol * tol_scale,
			       ta->io == IO_OUT ? pattern : -1, &cr);
		if (!cr.ok)
			return false;
	}
	return true;
}

/* The verdict on one request's outcome: a runner failure, a non-zero
 * return (the candidate's fault, or the task's for a trusted runner), or
 * a candidate runner that left threads or children behind.  A trusted
 * runner's threads after the request raise what a candidate's may
 * have. */
bool ev_call_outcome_ok(struct eval_ctx *x, enum role role,
			    struct runner *r, enum runner_fail f, int rc,
			    const char *what, const struct task_case *c)
{
	if (f != RUNNER_OK) {
		ev_runner_failed(x, role, r, f, what, c);
		return false;
	}
	if (rc != 0) {
		if (role == ROLE_CAND) {
			ev_verdict(x, RS_RUNTIME_ERROR, "%s returned %d (not 0) %s, "
				"%s '%s'", x->t->entry, rc, what, ev_case_kind(c),
				c->id);
		} else {
			struct strbuf sb = STRBUF_INIT;
			ev_trusted_failure(role, r, RUNNER_OK, rc, what, c,
					   &sb);
			ev_verdict(x, RS_INFRA_ERROR, "%s", strbuf_str(&sb));
			strbuf_release(&sb);
		}
		return false;
	}
	if (role == ROLE_CAND)
		return census_ok(x, r, what, c);
	ev_note_trusted(x, r);
	return true;
}

/* A comment line in timing.tsv: how far into the evaluation what
 * happened (where an evaluation's seconds go).  Flushed at once, pair
 * lines before it included, so that the file shows a running
 * evaluation's phase (tests/e2e/device_lock_*.sh watch it). */
static void trace_vmark(struct eval_ctx *x, bool step, const char *fmt,
			va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	bool progress = step && x->req->progress;

	if (!x->trace && !progress)
		return;
	strbuf_vaddf(&sb, fmt, ap);
	if (x->trace) {
		fprintf(x->trace, "# %.1f ms: %s\n",
			(double)(now_ns() - x->t0_ns) / 1e6, strbuf_str(&sb));
		fflush(x->trace);
	}
	if (progress)
		x->req->progress(x->req->progress_ctx, strbuf_str(&sb));
	strbuf_release(&sb);
}

void ev_trace_mark(struct eval_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_vmark(x, true, fmt, ap);
	va_end(ap);
}

/* A mark in timing.tsv only: a detail within a step (a runner ready, a
 * reference check's parts), which a progress display should not show
 * in place of the step. */
void ev_trace_detail(struct eval_ctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	trace_vmark(x, false, fmt, ap);
	va_end(ap);
}

/* One line of <log_dir>/timing.tsv per timed pair (and GPU warm-up
 * pair): what the runners claimed, the controller's clock, the host's own
 * work and (host runners) the CPU time the kernel accounted to each
 * runner over its request and its wait for a CPU meanwhile, so that
 * noise can be traced to its source; then (GPU pairs) each sample's span
 * and its parts, and the pair's excess e (docs/gpu.md section 6).
 * Last (GPU pairs, the pace's accounting): each sample's keeper warm-up
 * before its span and the keeper's stop after it, each sample's time
 * from the controller's gate opening to its reply (react, -1 or 0 where
 * the controller did not open it: gpu_sample.c), the whole pair from its
 * first request to its checks' end (pair_ns), and the controller's own
 * work since the previous pair ended (loop_ns: intervals, the adaptive
 * stop), and how its sets were checked (checked: 0 on windows, 1 whole,
 * 2 whole and against the reference; check_ns is that).
 * docs/evaluator.md; host pairs have no drain, fetch, span, parts or
 * pace columns, GPU pairs no CPU time: 0. */
void ev_trace_pair(struct eval_ctx *x, const struct task_case *c, int block,
		   const char *kind, int num, int n, bool base_first,
		   const struct gpu_sample *bs, const struct gpu_sample *cs,
		   uint64_t stage_ns, uint64_t check_ns, int checked)
{
	uint64_t now = now_ns(), t0 = x->pair_t0_ns;
	long long pair = t0 && now > t0 ? (long long)(now - t0) : 0;
	long long loop = t0 && x->pair_end_ns && t0 > x->pair_end_ns
				 ? (long long)(t0 - x->pair_end_ns)
				 : 0;

	x->pair_t0_ns = 0;
	x->pair_end_ns = now;
	if (!x->trace)
		return;
	fprintf(x->trace,
		"%s\t%d\t%s\t%d\t%d\t%d\t%lld\t%lld\t%lld\t%lld\t"
		"%lld\t%lld\t%lld\t%lld\t%llu\t%llu\t%lld\t%lld\t%lld\t%lld\t"
		"%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t"
		"%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t%lld\t"
		"%lld\t%lld\t%lld\t%lld\t%d\t%d\n",
		c->id, block, kind, num, n, base_first ? 1 : 0,
		(long long)bs->claim, (long long)cs->claim, (long long)bs->wall,
		(long long)cs->wall, (long long)bs->drain, (long long)cs->drain,
		(long long)bs->fetch, (long long)cs->fetch,
		(unsigned long long)stage_ns, (unsigned long long)check_ns,
		(long long)bs->cpu, (long long)cs->cpu, (long long)bs->delay,
		(long long)cs->delay, (long long)bs->span, (long long)cs->span,
		(long long)bs->gen, (long long)cs->gen, (long long)bs->keep,
		(long long)cs->keep, (long long)bs->probe, (long long)cs->probe,
		(long long)(cs->ovh - bs->ovh), (long long)bs->probe_f,
		(long long)cs->probe_f, (long long)bs->gaps,
		(long long)cs->gaps, (long long)(cs->fovh - bs->fovh),
		(long long)bs->warm, (long long)cs->warm, (long long)bs->tail,
		(long long)cs->tail, (long long)bs->react, (long long)cs->react,
		pair, loop, bs->graph && cs->graph ? 1 : 0, checked);
}

/* The verdicts of the ordering check on one candidate call (order and
 * late: see runner_call_gated). */
static bool order_ok(struct eval_ctx *x, int order, int late, int64_t hold_us,
		     const char *what, const struct task_case *c)
{
	const char *entry = x->t->entry ? x->t->entry : "arena_launch";

	if (order == -2 || late == -2) {
		ev_verdict(x, RS_REJECTED, "the candidate runner sent a malformed "
			   "ordering-check reply %s, %s '%s'", what, ev_case_kind(c),
			   c->id);
		return false;
	}
	if (order > 0) {
		ev_verdict(x, RS_REJECTED, "work not ordered on the stream %s was "
			   "given %s, %s '%s': argument '%s' changed while the "
			   "runner held that stream (for %.1f ms after the call "
			   "returned); a kernel must enqueue all its work on the "
			   "stream it is given, or on streams that wait for it",
			   entry, what, ev_case_kind(c), c->id,
			   x->t->args[order - 1].name, (double)hold_us / 1e3);
		return false;
	}
	if (late > 0) {
		ev_verdict(x, RS_REJECTED, "work still running after the stream %s "
			   "was given had finished %s, %s '%s': argument '%s' "
			   "changed after that stream's own work was done; work "
			   "forked onto another stream must be joined back into "
			   "the given stream before %s returns", entry, what,
			   ev_case_kind(c), c->id, x->t->args[late - 1].name, entry);
		return false;
	}
	return true;
}

/* One call of a host runner: the controller's own flush while every
 * runner is stopped (host_cache.c; not for the reference, whose time
 * nobody takes), then `time`, the only request that runs a host kernel,
 * so that correctness, warm-up and timed calls are one request with one
 * set of preconditions. */
static bool host_call(struct eval_ctx *x, enum role role, struct runner *r,
		      const char *what, const struct task_case *c,
		      bool check_claim, struct gpu_sample *o);

bool ev_host_call(struct eval_ctx *x, enum role role, struct runner *r,
		  const char *what, const struct task_case *c, bool check_claim,
		  struct gpu_sample *o)
{
	enum result_phase was = role == ROLE_REF
					? ev_phase_enter(x, RPH_REFERENCE)
					: x->phase_now;
	bool ok = host_call(x, role, r, what, c, check_claim, o);

	ev_phase_enter(x, was);
	return ok;
}

static bool host_call(struct eval_ctx *x, enum role role, struct runner *r,
		      const char *what, const struct task_case *c,
		      bool check_claim, struct gpu_sample *o)
{
	struct gpu_sample tmp;
	int rc = 0;

	if (!o)
		o = &tmp;
	memset(o, 0, sizeof(*o));
	if (role != ROLE_REF) {
		host_sweep_run(&x->sweep, ev_device_exclusive(x));
		host_cache_evict(r->shm, r->shm_size);
	}
	enum runner_fail f = runner_time(r, &rc, &o->claim, &o->wall);
	o->cpu = r->cpu_ns;
	o->delay = r->delay_ns > 0 ? r->delay_ns : 0;
	if (!ev_call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (!check_claim)
		return true;
	if (o->claim <= 0 || o->claim > o->wall + CLAIM_SLACK_NS) {
		if (role == ROLE_CAND)
			ev_verdict(
				x, RS_REJECTED,
				"reported times inconsistent "
				"with the controller's clock: the candidate "
				"runner claimed %.1f us for a call that took at "
				"most %.1f us %s, %s '%s'",
				o->claim / 1e3, o->wall / 1e3, what,
				ev_case_kind(c), c->id);
		else
			ev_verdict(x, RS_INFRA_ERROR,
				   "the %s runner reported "
				   "an impossible time (%.1f us, wall %.1f us)",
				   ev_role_names[role], o->claim / 1e3,
				   o->wall / 1e3);
		return false;
	}
	if (o->cpu < 0) {
		ev_verdict(x, RS_INFRA_ERROR,
			   "the kernel did not report the %s "
			   "runner's CPU time %s, %s '%s'",
			   ev_role_names[role], what, ev_case_kind(c), c->id);
		return false;
	}
	return true;
}

/* One call; a GPU candidate's under the ordering check, except a
 * runner's first (its kernel's module may load then, which waits for the
 * device: the check's held stream would only make it inconclusive).
 * False (verdict set) on any failure. */
static bool call_checked(struct eval_ctx *x, enum role role,
			 struct runner *r, const char *what,
			 const struct task_case *c);

bool ev_call_checked(struct eval_ctx *x, enum role role,
			 struct runner *r, const char *what,
			 const struct task_case *c)
{
	enum result_phase was = role == ROLE_REF
					? ev_phase_enter(x, RPH_REFERENCE)
					: x->phase_now;
	bool ok = call_checked(x, role, r, what, c);

	ev_phase_enter(x, was);
	return ok;
}

static bool call_checked(struct eval_ctx *x, enum role role,
			 struct runner *r, const char *what,
			 const struct task_case *c)
{
	int rc = 0, order = 0, late = 0;
	int64_t wall = 0, hold = 0;
	bool gated = role == ROLE_CAND && ev_role_gpu(x, role) && r->calls > 0;
	enum runner_fail f;

	if (!r->gpu)
		return host_call(x, role, r, what, c, false, NULL);
	if (gated) {
		hold = gpu_gate_hold_us(x->gate_prev_ns);
		f = runner_call_gated(r, hold, &rc, &order, &late, &wall);
		x->gate_prev_ns = fmax(0.0, (double)wall - (double)hold * 1e3);
	} else {
		f = runner_call(r, &rc);
	}
	if (!ev_call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	return !gated || order_ok(x, order, late, hold, what, c);
}

void **ev_stage_alloc(const struct task *t, const struct case_layout *l)
{
	void **stage = xcalloc(TASK_MAX_ARGS, sizeof(void *));

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			stage[a] = xmalloc(l->bytes[a] ? l->bytes[a] : 1);
	return stage;
}

void ev_stage_free(void **stage)
{
	if (!stage)
		return;
	for (int a = 0; a < TASK_MAX_ARGS; a++)
		free(stage[a]);
	free(stage);
}

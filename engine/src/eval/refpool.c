/*
 * refpool.c - reference checks of timed GPU samples in the background,
 * when the reference is host code (docs/evaluator.md, "Reference checks
 * of timed samples"; docs/gpu.md section 6).
 *
 * A timed pair checked against the reference (ev_refcheck_due) needs the
 * device for a few milliseconds - the trusted baseline draws the sample's
 * inputs again - and then the host for as long as the reference takes:
 * 0.6-2 s for a large case of a C reference on the H200, during which the
 * synchronous check (ev_gpu_reference_check) kept the timing loop
 * waiting.  Here the evaluation's thread does the device part as before
 * (ev_gpu_inputs_again), copies set k's inputs into a worker's own
 * reference runner and the candidate's outputs of set k into the
 * worker's buffer, and goes on timing.  Where the keeper lent the sets
 * (ev_refpool_check_lent), it takes both straight from the device into
 * that memory instead: the baseline's inputs, which its compare has just
 * found equal to the candidate's, and the candidate's outputs.  The
 * worker poisons the reference's outputs, calls it, checks that it wrote
 * every output and compares the candidate's saved outputs with its own
 * at the task's tolerance - the same steps, on the same bytes, with the
 * same functions as the synchronous check.  Which pairs are checked, the tolerance and the
 * words of a failure are unchanged.
 *
 * The verdict is the synchronous one: a failed check is turned into the
 * verdict by the evaluation's thread, and the earliest failed check (in
 * the order the checks were handed over) wins even over a verdict the
 * thread reached meanwhile on a later pair (ev_verdict_supersede), since
 * in the foreground the evaluation would have stopped at that check.  A
 * failure is noticed before every timed pair (ev_refpool_poll), when a
 * worker is waited for, and at the latest at the case's end
 * (ev_refpool_join), before its statistics and its verdict are final.
 *
 * Threads and ownership.  The evaluation's thread owns the pool and
 * every runner in it: slot 0's is the case's reference runner (borrowed,
 * the caller releases it), the others are started here as the
 * evaluation starts its reference runner (ev_spawn: the same trusted
 * artifact and confinement, registered in x->live, so they die with the
 * evaluation and with the thread that started them) and ended by
 * ev_refpool_free.  A slot belongs to its worker from the moment it is
 * handed a job (SLOT_JOB) until the worker marks it SLOT_DONE, and to the
 * evaluation's thread otherwise; the mutex hands it over, and with it
 * the memory written before.  A worker touches nothing of the eval_ctx
 * (no verdict, trace, phase or runner bookkeeping): it writes its
 * outcome - ok, or the failure's status and the message the synchronous
 * check would have given - into its slot.  At most max slots exist (one
 * job each, so memory is bounded by max copies of one set's outputs and
 * max reference runners); when all are busy the evaluation's thread
 * waits for one, and that wait is charged to the reference phase.
 */
#include "evaluation.h"

#include <pthread.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Workers at most, whatever ARENA_ASYNC_REFCHECK asks. */
#define REFPOOL_MAX 16
/* Runners a pool leaves to the rest of the evaluation (MAX_LIVE). */
#define REFPOOL_LIVE_SPARE 4

enum slot_state { SLOT_IDLE, SLOT_JOB, SLOT_DONE };

struct refpool;

/* One worker: its thread, its reference runner and its one job. */
struct slot {
	struct refpool *pool;
	int index;
	pthread_t th;
	bool started; /* th runs */
	struct runner *ref;
	/* Set k of the candidate's sample: its outputs, laid out as the
	 * case's layout, in a memfd (cand_fd) the keeper can take into
	 * (-1: plain memory, where none could be made). */
	unsigned char *cand;
	size_t cand_len;
	int cand_fd;
	enum slot_state state;
	/* The job, set by the evaluation's thread. */
	int seq; /* handed over as the seq-th, from 1 */
	int pattern;
	char what[64];
	char prefix[200];
	uint64_t again_ns, copy_ns; /* on the evaluation's thread */
	bool taken;		    /* by the keeper (ev_refpool_check_lent) */
	/* Its outcome, set by the worker. */
	bool ok;
	enum result_status st;
	struct strbuf msg;
	uint64_t poison_ns, call_ns, wrote_ns, cmp_ns;
	/* The evaluation's thread waited this long for it. */
	uint64_t waited_ns;
};

struct refpool {
	struct eval_ctx *x;
	const struct case_layout *l;
	const struct task_case *c;
	int max; /* slots at most */
	int n;	 /* slots with a runner */
	struct slot slot[REFPOOL_MAX];
	pthread_mutex_t mu;
	pthread_cond_t work; /* a slot got a job, or quit */
	pthread_cond_t done; /* a slot is done */
	bool quit;
	int seq;     /* jobs handed over */
	int pending; /* jobs not collected yet */
	/* The earliest failed job (fail_seq 0: none yet), and whether its
	 * verdict was set. */
	int fail_seq;
	enum result_status fail_st;
	char *fail_msg;
	bool reported;
	/* The keeper could not take into a worker's memory: every check
	 * of the case draws its inputs again (ev_refpool_check). */
	bool take_refused;
	/* For the case's line in timing.tsv. */
	int checked;
	uint64_t waited_ns;
};

int ev_refpool_size(void)
{
	const char *e = getenv("ARENA_ASYNC_REFCHECK");
	int cpus;

	if (e && *e) {
		char *end;
		long v = strtol(e, &end, 10);
		if (*end == '\0' && v >= 0)
			return v > REFPOOL_MAX ? REFPOOL_MAX : (int)v;
	}
	/* A quarter of the CPUs this process may run on (the timing loop,
	 * the runners' host threads and other evaluations keep the rest),
	 * at least one, at most four. */
	cpus = ev_cpus_usable() / 4;
	return cpus < 1 ? 1 : cpus > 4 ? 4 : cpus;
}

/* ---- the worker ---------------------------------------------------------- */

/* The job's host part, the synchronous check's steps after the inputs are
 * staged: outputs poisoned, the reference's call, every output written,
 * the candidate's outputs within the task's tolerance of its own. */
static void slot_run(struct slot *s)
{
	struct refpool *p = s->pool;
	const struct task *t = p->x->t;
	const struct case_layout *l = p->l;
	struct runner *ref = s->ref;
	int64_t claim = 0, wall = 0;
	int rc = 0;

	uint64_t t0 = now_ns();
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io == IO_OUT)
			poison_fill(t->args[a].dtype, ref->shm + l->offset[a],
				    l->numel[a], s->pattern);
	uint64_t t1 = now_ns();
	/* ev_host_call's request for the reference (no flush: nobody
	 * takes its time), and ev_call_outcome_ok's verdicts. */
	enum runner_fail f = runner_time(ref, &rc, &claim, &wall);
	uint64_t t2 = now_ns();
	uint64_t t3 = t2;
	s->ok = false;
	s->st = RS_INFRA_ERROR;
	if (f != RUNNER_OK || rc != 0) {
		ev_trusted_failure(ROLE_REF, ref, f, rc, s->what, p->c,
				   &s->msg);
	} else if (ev_reference_wrote_all_mem(t, l, ref->shm, s->pattern, p->c,
					      &s->msg)) {
		t3 = now_ns();
		s->st = RS_INCORRECT;
		s->ok = ev_outputs_compare(t, l, s->cand, ref->shm, 1.0,
					   s->pattern, NULL, s->prefix,
					   &s->msg);
	}
	s->poison_ns = t1 - t0;
	s->call_ns = t2 - t1;
	s->wrote_ns = t3 - t2;
	s->cmp_ns = now_ns() - t3;
}

static void *slot_main(void *arg)
{
	struct slot *s = arg;
	struct refpool *p = s->pool;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (s->state != SLOT_JOB && !p->quit)
			pthread_cond_wait(&p->work, &p->mu);
		if (s->state != SLOT_JOB)
			break;
		pthread_mutex_unlock(&p->mu);
		slot_run(s);
		pthread_mutex_lock(&p->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* ---- the evaluation's thread --------------------------------------------- */

struct refpool *ev_refpool_new(struct eval_ctx *x, const struct case_layout *l,
			       const struct task_case *c, struct runner *ref,
			       int max)
{
	struct refpool *p = xcalloc(1, sizeof(*p));

	p->x = x;
	p->l = l;
	p->c = c;
	p->max = max < 1 ? 1 : max > REFPOOL_MAX ? REFPOOL_MAX : max;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	for (int i = 0; i < REFPOOL_MAX; i++) {
		p->slot[i].pool = p;
		p->slot[i].index = i;
		p->slot[i].cand_fd = -1;
		strbuf_init(&p->slot[i].msg);
	}
	p->slot[0].ref = ref;
	p->n = 1;
	return p;
}

/* A done slot's outcome taken (the earliest failure kept) and traced;
 * the slot is idle again.  Called with the mutex held. */
static void collect(struct refpool *p, struct slot *s)
{
	if (!s->ok && (!p->fail_seq || s->seq < p->fail_seq)) {
		p->fail_seq = s->seq;
		p->fail_st = s->st;
		free(p->fail_msg);
		p->fail_msg = xstrdup(strbuf_str(&s->msg));
	}
	p->checked++;
	p->waited_ns += s->waited_ns;
	char where[128];
	snprintf(where, sizeof(where),
		 "in the background (worker %d), the evaluation's thread "
		 "waited %.1f ms for it%s",
		 s->index, (double)s->waited_ns / 1e6,
		 s->ok ? "" : "; it failed");
	ev_trace_refcheck(p->x, p->c, s->what,
			  &(struct refcheck_times){ s->again_ns,
						    s->copy_ns + s->poison_ns,
						    s->call_ns, s->wrote_ns,
						    s->cmp_ns, s->taken },
			  where);
	strbuf_reset(&s->msg);
	s->waited_ns = 0;
	s->state = SLOT_IDLE;
	p->pending--;
}

/* Every done slot collected, in the order their jobs were handed over.
 * Called with the mutex held. */
static void collect_done(struct refpool *p)
{
	for (;;) {
		struct slot *first = NULL;
		for (int i = 0; i < p->n; i++) {
			struct slot *s = &p->slot[i];
			if (s->state == SLOT_DONE &&
			    (!first || s->seq < first->seq))
				first = s;
		}
		if (!first)
			return;
		collect(p, first);
	}
}

/* Waits until slot s is done (s NULL: any slot), the wait charged to the
 * reference phase and to the slot waited for (the first done, for any),
 * then collects every done slot.  Called with the mutex held. */
static void wait_done(struct refpool *p, struct slot *s)
{
	struct eval_ctx *x = p->x;
	uint64_t t0 = now_ns();
	enum result_phase was = ev_phase_enter(x, RPH_REFERENCE);
	struct slot *got = s;

	for (;;) {
		if (s && s->state == SLOT_DONE)
			break;
		if (!s) {
			for (int i = 0; i < p->n && !got; i++)
				if (p->slot[i].state == SLOT_DONE)
					got = &p->slot[i];
			if (got)
				break;
		}
		pthread_cond_wait(&p->done, &p->mu);
	}
	ev_phase_enter(x, was);
	got->waited_ns += now_ns() - t0;
	collect_done(p);
}

/* The verdict of the earliest failed job, once, in place of any verdict
 * reached since (ev_verdict_supersede).  True when none failed. */
static bool report(struct refpool *p)
{
	if (!p->fail_seq)
		return true;
	if (!p->reported) {
		p->reported = true;
		ev_verdict_supersede(p->x, p->fail_st, p->fail_msg);
	}
	return false;
}

bool ev_refpool_join(struct refpool *p)
{
	if (!p)
		return true;
	pthread_mutex_lock(&p->mu);
	collect_done(p);
	/* In the order the jobs were handed over: a job's wait is its
	 * own. */
	while (p->pending > 0) {
		struct slot *next = NULL;
		for (int i = 0; i < p->n; i++) {
			struct slot *s = &p->slot[i];
			if (s->state == SLOT_JOB &&
			    (!next || s->seq < next->seq))
				next = s;
		}
		wait_done(p, next);
	}
	pthread_mutex_unlock(&p->mu);
	return report(p);
}

bool ev_refpool_poll(struct refpool *p)
{
	bool failed;

	if (!p)
		return true;
	pthread_mutex_lock(&p->mu);
	collect_done(p);
	failed = p->fail_seq != 0;
	pthread_mutex_unlock(&p->mu);
	/* A failure stops the case as the synchronous check would have:
	 * the jobs handed over before it may still fail earlier. */
	return !failed || ev_refpool_join(p);
}

/* Starts slot s's worker thread; false when the system has no thread to
 * give (the slot's jobs then run on the evaluation's thread). */
static bool slot_start(struct slot *s)
{
	if (!s->started)
		s->started = pthread_create(&s->th, NULL, slot_main, s) == 0;
	return s->started;
}

/* Slot s's buffer for the candidate's outputs: a memfd the keeper can
 * be handed (ev_refpool_check_lent), else plain memory. */
static void cand_alloc(struct slot *s, size_t len)
{
	int fd = memfd_create("arena-refcheck", MFD_CLOEXEC);
	void *m = MAP_FAILED;

	if (fd >= 0 && ftruncate(fd, (off_t)len) == 0)
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	s->cand_len = len;
	if (m != MAP_FAILED) {
		s->cand = m;
		s->cand_fd = fd;
		return;
	}
	if (fd >= 0)
		close(fd);
	s->cand = xmalloc(len);
	s->cand_fd = -1;
}

static void cand_free(struct slot *s)
{
	if (s->cand_fd >= 0) {
		munmap(s->cand, s->cand_len);
		close(s->cand_fd);
	} else {
		free(s->cand);
	}
	s->cand = NULL;
	s->cand_fd = -1;
}

/* An idle slot, with a runner: one idle already, else a new slot with a
 * reference runner of its own while there may be more, else the first
 * to finish.  NULL (verdict set) when a runner could not be started, or
 * a job failed. */
static struct slot *slot_get(struct refpool *p)
{
	struct eval_ctx *x = p->x;
	struct slot *s = NULL;

	pthread_mutex_lock(&p->mu);
	collect_done(p);
	for (int i = 0; i < p->n && !s && !p->fail_seq; i++)
		if (p->slot[i].state == SLOT_IDLE)
			s = &p->slot[i];
	bool grow = !s && !p->fail_seq && p->n < p->max &&
		    x->nlive < MAX_LIVE - REFPOOL_LIVE_SPARE;
	if (!s && !grow && !p->fail_seq) {
		wait_done(p, NULL);
		for (int i = 0; i < p->n && !s && !p->fail_seq; i++)
			if (p->slot[i].state == SLOT_IDLE)
				s = &p->slot[i];
	}
	pthread_mutex_unlock(&p->mu);
	if (p->fail_seq) {
		(void)ev_refpool_join(p);
		return NULL;
	}
	if (grow) {
		/* Only this thread adds slots: no worker looks at p->n's
		 * new slot before it has a job. */
		struct runner *r = ev_spawn(x, ROLE_REF, p->l, p->c);
		if (!r)
			return NULL;
		s = &p->slot[p->n];
		s->ref = r;
		pthread_mutex_lock(&p->mu);
		p->n++;
		pthread_mutex_unlock(&p->mu);
		ev_trace_detail(x,
				"case %s: reference runner %d started for "
				"checks in the background (worker %d of at "
				"most %d)",
				p->c->id, (int)r->pid, s->index, p->max);
	}
	if (!s->cand)
		cand_alloc(s, p->l->shm_size ? p->l->shm_size : 1);
	return s;
}

/* Slot s's job handed to its worker (or run here when no thread can be
 * had): the staged set checked against the reference. */
static void hand_over(struct refpool *p, struct slot *s, bool taken,
		      uint64_t again_ns, uint64_t copy_ns, int pattern,
		      const char *what, const char *prefix)
{
	s->taken = taken;
	s->again_ns = again_ns;
	s->copy_ns = copy_ns;
	s->pattern = pattern;
	snprintf(s->what, sizeof(s->what), "%s", what);
	snprintf(s->prefix, sizeof(s->prefix), "%s", prefix);
	pthread_mutex_lock(&p->mu);
	s->seq = ++p->seq;
	s->state = SLOT_JOB;
	p->pending++;
	if (slot_start(s)) {
		pthread_cond_broadcast(&p->work);
	} else {
		/* No thread: the job runs here, as the synchronous check
		 * would, and is collected like any other. */
		pthread_mutex_unlock(&p->mu);
		slot_run(s);
		pthread_mutex_lock(&p->mu);
		s->state = SLOT_DONE;
	}
	pthread_mutex_unlock(&p->mu);
}

bool ev_refpool_check(struct refpool *p, struct runner *base,
		      struct runner *cand, int k, const char *spec, int pattern,
		      const char *what, const char *prefix)
{
	struct eval_ctx *x = p->x;
	const struct task *t = x->t;
	const struct case_layout *l = p->l;
	size_t off = (size_t)k * l->shm_size;
	struct slot *s;

	if (x->decided || !(s = slot_get(p)))
		return false;
	uint64_t t0 = now_ns();
	if (!ev_gpu_inputs_again(x, base, spec, k, what, p->c))
		return false;
	uint64_t t1 = now_ns();
	/* Set k's inputs into the worker's reference runner (stopped, and
	 * the slot this thread's until handed over), the candidate's
	 * outputs of set k into its buffer: the next pair's sample
	 * overwrites both runners' sets. */
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		if (ta->io != IO_OUT)
			par_memcpy(s->ref->shm + l->offset[a],
				   base->shm + off + l->offset[a], l->bytes[a]);
		if (ta->io != IO_IN)
			par_memcpy(s->cand + l->offset[a],
				   cand->shm + off + l->offset[a], l->bytes[a]);
	}
	hand_over(p, s, false, t1 - t0, now_ns() - t1, pattern, what, prefix);
	return true;
}

/* No inout or scratch argument: the values before the call are all in
 * the sets after it. */
static bool lent_fits(const struct task *t)
{
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].scratch || t->args[a].io == IO_INOUT)
			return false;
	return true;
}

int ev_refpool_check_lent(struct refpool *p, struct runner *base,
			  struct runner *cand, int k, const char *place,
			  int pattern, const char *what, const char *prefix)
{
	struct eval_ctx *x = p->x;
	const struct task *t = x->t;
	uint32_t in = 0, out = 0;
	struct slot *s;

	if (p->take_refused || !lent_fits(t))
		return 0;
	if (x->decided || !(s = slot_get(p)))
		return -1;
	if (s->cand_fd < 0 || s->ref->shm_fd < 0)
		return 0;
	for (int a = 0; a < t->nargs; a++)
		*(t->args[a].io == IO_IN ? &in : &out) |= 1u << a;
	/* The baseline's inputs of set k (what the candidate's call had:
	 * the keeper's compare found them equal, bit for bit) into the
	 * worker's reference runner, the candidate's outputs into the
	 * worker's buffer, both straight from the device. */
	uint64_t t0 = now_ns();
	int got = ev_gpu_lent_take_to(x, base, place, in, k, s->ref->shm_fd,
				      p->c);
	uint64_t t1 = now_ns();
	if (got == 1)
		got = ev_gpu_lent_take_to(x, cand, place, out, k, s->cand_fd,
					  p->c);
	if (got == 1)
		hand_over(p, s, true, t1 - t0, now_ns() - t1, pattern, what,
			  prefix);
	p->take_refused = got == 0;
	return got;
}

bool ev_refpool_free(struct refpool *p)
{
	struct eval_ctx *x;
	bool ok;

	if (!p)
		return true;
	x = p->x;
	ok = ev_refpool_join(p);
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->mu);
	for (int i = 0; i < REFPOOL_MAX; i++) {
		struct slot *s = &p->slot[i];
		if (s->started)
			pthread_join(s->th, NULL);
		/* Slot 0's runner is the caller's. */
		if (i > 0 && s->ref)
			ev_ctx_forget(x, s->ref);
		cand_free(s);
		strbuf_release(&s->msg);
	}
	if (p->checked)
		ev_trace_detail(x,
				"case %s: %d reference checks of timed samples "
				"ran in the background on %d worker%s; the "
				"evaluation's thread waited %.1f ms for them "
				"in all",
				p->c->id, p->checked, p->n,
				p->n == 1 ? "" : "s",
				(double)p->waited_ns / 1e6);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done);
	free(p->fail_msg);
	free(p);
	return ok;
}

/*
 * evaluation.h - the state of one evaluation (struct eval_ctx) and the
 * steps that eval_run() (eval.c) takes with it, one file each:
 *
 *   build.c        compiling reference, baseline and candidate; starting
 *                  the correctness runners (GPU runners start early)
 *   runners.c      the runners an evaluation owns: start, reuse, end;
 *                  each call's checks (return code, threads, inputs
 *                  unchanged, outputs compared); the timing trace
 *   device_lock.c  the machine-wide device lock (first come, first
 *                  served: arena/fairlock.h), its marks
 *   correctness.c  correctness trials per case, the reference run ahead
 *   correctness_gpu.c  the same on a GPU, with the samples timing uses
 *   gpu_sample.c   one GPU sample (gen, keeper flush, time, fetch, probe)
 *                  under one clock; the keeper; batch sizing
 *   timing.c       the one sampling loop for every device: blocks of
 *                  paired runners, adaptive stop, claims, the interval
 *   timing_host.c  its pair step on the host (timed by the runner's clock,
 *                  checked against the controller's)
 *   timing_gpu.c   its pair step on a GPU (samples, batches, the charged
 *                  excess, drain and roofline checks)
 *   refpool.c      its reference checks of timed samples in the
 *                  background when the reference is host code
 *   device.c       the device an evaluation runs on: checks, the host's
 *                  last-level cache, a GPU evaluation's shared memory
 *   mutants.c      output mutants put through the task's comparison
 *                  (req->mutants: arena check-tasks)
 *
 * Private to the eval room.  Names shared between these files carry the
 * prefix ev_; the modules they build on (compile, inputs, comparison,
 * runner client, GPU facts) are in eval_internal.h.
 *
 * Verdicts: the first one reached wins (ev_verdict); later checks do not
 * run once one is set.  Every runner started is registered in the context
 * (live[]) and destroyed on every path (ctx_release).
 */
#ifndef ARENA_EVALUATION_H
#define ARENA_EVALUATION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena/eval.h"
#include "arena/memledger.h"
#include "arena/stats.h"
#include "eval_internal.h"

#define MAX_LIVE 64
#define MAX_BLOCKS 32
#define WARMUP_CALLS 2
#define CI_ITERS_STOP 400
#define CI_ITERS_FINAL 2000
/* The least relative half-width of a GPU speedup's interval (case and
 * task): an offset every block of an A/A shares, which no resampling of
 * blocks sees.  On the H200 the same process timed against itself gave
 * ratios within 0.2% (2026-11-29), and the A/A misses of check-tasks on
 * 46 GPU tasks were offsets of 0.02-0.15% (docs/statistics.md §2). */
#define GPU_SYSTEMATIC_REL 0.002
#define GROUP_MEMORY_BUDGET (2ull << 30)
/* Consistency of claimed times (docs/evaluator.md). */
#define CLAIM_SLACK_NS 1000
/* Host: how far the median over pairs of the candidate's (CPU time -
 * claim) less the baseline's may reach: max(20 us, 1% of its claim),
 * plus the noise of that median (timing_host.c).  Honest
 * candidates' excess measured at most 13 us whatever the call's length
 * (43 us to 38 ms, tests/bench/claim_excess.sh, docs/benchmarks.md):
 * what differs between two runners' requests is the protocol's few
 * microseconds around the call, not the call. */
#define HOST_EXCESS_ABS_NS 20000
#define HOST_EXCESS_REL 0.01
/* Host: a share of the pairs whose candidate's (CPU time - claim)
 * exceeds the baseline's by more than the margin above and three
 * spreads, beyond those where the baseline's exceeds the candidate's as
 * much (host_claims_ok): a forger on part of its calls.  At least
 * HOST_FORGED_MIN pairs, so that one or two stray pairs of a short case
 * (4 in a quick one) are never a finding. */
#define HOST_FORGED_SHARE 0.25
#define HOST_FORGED_MIN 3
/* Host: pings per block that measure what a request costs the baseline's
 * runner beyond its call. */
#define HOST_PINGS 4
/* Timed samples also checked against the reference: one in this many,
 * at random, one among each block's first min_pairs and each block's
 * last (ev_refcheck_due). */
#define REFCHECK_EVERY 8
/* A case whose baseline call is shorter than this is checked but not
 * timed (correctness only); a task may set timing_floor_us instead. */
#define TIMING_FLOOR_NS 20000.0
/* benchmark_method of GPU results; batched cases are appended. */
#define GPU_METHOD "device_events_l2_flush"

enum role { ROLE_REF, ROLE_BASE, ROLE_CAND, NROLES };
extern const char *const ev_role_names[NROLES];
enum phase { PH_COMPILE, PH_CORRECTNESS, PH_TIMING };

/* A case's per-pair time ratios (baseline / candidate), per block. */
struct case_timing {
	int nblocks;
	double *ratios[MAX_BLOCKS];
	int sizes[MAX_BLOCKS];
	int caps[MAX_BLOCKS];
	/* GPU: how much higher the ratios would be if only the stricter
	 * bounds of the excess were charged (>= 1; 0 or 1: no change); the
	 * interval's upper end is multiplied by it (gpu_ratios). */
	double hi_factor;
};

/* A correctness trial's reference, run while the candidate compiles
 * (ev_reference_ahead): the trial's inputs and the reference runner's
 * memory after its call. */
struct ref_trial {
	void **in;		/* per argument (io in/inout), or NULL */
	unsigned char *shm;	/* NULL: not run ahead */
};

/* What one runner's timed request said, and the controller's clocks
 * (host samples have no drain and no fetch: 0; cpu and delay: the
 * runner's CPU time over the request and its wait for a CPU meanwhile, as
 * the kernel accounts them, host runners only, delay 0 where the kernel
 * keeps no count).  A GPU sample is several requests (gpu_sample.c): gen,
 * wall (of `time`) and fetch are the controller's clock over each of the
 * runner's requests; keep, probe and probe_f the keeper's own clock over
 * its flush after gen, its probes after `time` and after `fetch`, each
 * from its first launch to the device found idle; gaps how long after
 * the runner's replies to gen and to `time` the keeper launched its
 * flush and its probe (work the runner left on the device meanwhile is
 * seen by no one); span the controller's clock over the whole sample
 * (diagnostics).  What is charged: ovh = gen + (wall - claim) + keep +
 * probe, the sample's time beyond its claim while inputs exist and
 * outputs are not yet taken, and fovh = fetch + probe_f, handing the
 * outputs over (docs/gpu.md section 6).  Host samples: 0. */
struct gpu_sample {
	int64_t claim, wall, drain, fetch, cpu, delay;
	/* The controller's gate opened to the reply (`time <n> gate`), <= 0
	 * when the runner opened its own (and in host samples). */
	int64_t react;
	int64_t span, gen, keep, probe, probe_f, gaps;
	int64_t ovh, fovh;
	/* Outside the span, for the pace's accounting (timing.tsv): the
	 * keeper's warm kernel before it, stopping the keeper after it. */
	int64_t warm, tail;
	/* The batch ran from a capture (ev_gpu_capture_pair). */
	bool graph;
};

/* A prepared AKA task's recorded input sets (aka_prepare.c). */
struct aka_case_sets {
	int nsets;
	size_t set_len;	     /* bytes of one set: every in/inout argument */
	unsigned char *data; /* nsets * set_len */
	size_t arg_pos[TASK_MAX_ARGS]; /* argument a within a set, SIZE_MAX
					 * for outputs */
};

struct aka_inputs {
	int ncases;
	struct aka_case_sets *c;
	/* The sets are staged as recorded, their floating-point inputs not
	 * moved (aka_jitter.c): the kernel as shipped did not tolerate it
	 * (the manifest's "verbatim", the recorder's reason). */
	bool verbatim;
};

/* An AKA task prepared for evaluation: the task arena evaluates (its
 * packed arguments, recorded cases, shim bundle) and its input sets; or
 * why it cannot be (error; amd_only: because of a feature NVIDIA GPUs
 * lack; task_fails: the kernel as shipped fails the task's own check
 * here, the task's reason and not arena's). */
struct aka_prep {
	struct task *t;
	struct aka_inputs in;
	char *dir;
	char *error;
	bool amd_only;
	bool task_fails;
	char *notes;
	/* The harness's own check of the kernel as shipped, and of it
	 * corrupted (catches_wrong: 1 it failed, 0 it still passed, -1 not
	 * run). */
	bool check_passed;
	char *check_message;
	int catches_wrong;
};

/* What the verdict changed in the result (ev_verdict), so that an
 * earlier failure found later can take its place
 * (ev_verdict_supersede). */
struct verdict_undo {
	char **field;	 /* the message field it set, NULL: none */
	char *field_was; /* that field before (owned) */
	enum result_status status;
	bool pass_correctness;
	size_t integrity_n; /* findings before */
};

struct eval_ctx {
	const struct eval_request *req;
	/* The recorded inputs of a prepared AKA task, or NULL: arguments
	 * whose init is INIT_RECORDED take their values from here. */
	const struct aka_inputs *rec;
	const struct task *t;
	struct task_result *res;
	struct errbuf *err;
	enum phase phase;
	bool decided;
	struct verdict_undo undo;
	/* The clock check rejects only what it sees twice: its first failure
	 * in a case is noted here (clock_suspect, with the finding) and the
	 * case is timed again with fresh runners (clock_confirming). */
	bool clock_suspect, clock_confirming;
	char *clock_finding;
	/* The finding is only a charge from a single pair of runner
	 * processes (timing_gpu.c): the fresh pair that times the case
	 * again decides that charge (pair_retiming), and a finding there is
	 * its first, confirmed by a third timing. */
	bool pair_charge_only, pair_retiming;
	/* The confirming timing is the case's third (after a fresh pair's
	 * finding), not its second: for the verdict's words. */
	bool clock_third;

	char *scratch;			/* removed at the end */
	char *log_dir;
	const char *runner_path;
	char *so[NROLES];
	int logfd[NROLES];
	size_t flush_bytes;
	struct host_sweep sweep; /* host: swept before every call */
	/* Never recorded nor sent anywhere: what timing inputs and the
	 * choice of reference-checked samples are drawn from besides the
	 * seed, which results show (a candidate that knew the seed could
	 * otherwise compute its timed inputs ahead). */
	uint64_t secret;
	int timeout_ms;
	bool all_sandboxed;
	bool baseline_is_reference;
	/* The confinement of the candidate's compiler and of every runner
	 * (arena/confine.h): the paths they must not see, and the prepared
	 * plans of the host runner [0] and the GPU runner [1] (NULL when
	 * confinement is off or unavailable here). */
	struct strvec hidden;
	struct confine_prep *confine[2];
	bool confine_on;
	/* A task from a trusted copy: its manifest, verified at the start of
	 * the builds, against which every trusted file read is checked. */
	struct strvec manifest;

	struct runner *live[MAX_LIVE];
	int nlive;

	struct case_timing *timing;	/* per case */

	/* GPU evaluations (docs/gpu.md). */
	struct dev_id dev;
	bool gpu;			/* dev is a GPU */
	bool gpu_hold;			/* timed calls enqueued behind a held
					 * stream (ev_gpu_hold_launch, read
					 * once per evaluation) */
	struct gpu_info gi;		/* what its runner said about it */
	enum task_language lang[NROLES];	/* of each role's artifact */
	size_t shm_size;		/* every GPU-eval runner's shared memory */
	struct runner *keep[NROLES];	/* correctness runners, across cases */
	bool keep_pending[NROLES];	/* launched, not awaited yet */
	struct runner *tblk[MAX_BLOCKS][2];	/* timing blocks 1..: base, cand */
	int lockfd;			/* the device lock, -1 when not held */
	int lockmode;			/* LOCK_SH or LOCK_EX while held */
	int64_t lockticket;		/* its ticket (arena/fairlock.h) */
	struct memledger_entry mem;	/* the device memory asked for
					 * (gpu_memory.c), fd -1 when none */
	uint64_t gpu_sets_bytes;	/* most sets one runner holds */
	uint64_t gpu_batch_bytes;	/* bound on a runner's batch of sets
					 * (ev_gpu_shm_size) */
	int trusted_threads;		/* most threads of a trusted GPU runner */
	struct runner *keeper;		/* the trusted GPU process: L2 flush,
					 * probes (gpu_sample.c) */
	bool keeper_pending;		/* launched, not awaited yet */
	/* The runner each of the keeper's lent-set slots belongs to (NULL:
	 * free; its memory stays with the keeper until lent again), and
	 * whether the keeper lends at all (gpu_sample.c). */
	struct runner *lent_owner[RP_LEND_SLOTS];
	bool lend_off;
	/* Timed batches' gates opened by the controller (gpu_sample.c,
	 * gate_offered), until a trusted runner cannot map its page. */
	bool ctl_gate;
	/* Timed batches captured before their inputs exist
	 * (ev_gpu_capture_wanted), until a runner cannot capture; whether
	 * they were at the start; pairs that ran from captures. */
	bool capture, capture_asked;
	int captured_pairs;
	/* The CPU each pair's runners are held to (gpu_pair_cpu), -1:
	 * none. */
	int pair_cpu;
	bool pair_cpu_said;
	/* Disputed claims run on (ev_gpu_dispute_wanted). */
	bool dispute;
	int64_t probe_min_ns;		/* the fastest keeper probe so far */
	int *gpu_batch;			/* per case: calls per sample, 0 = not
					 * decided yet (gpu_sample.c) */
	double *gpu_call_ns;		/* per case: the baseline's time per
					 * call when the batch was decided */
	bool no_gpu_baseline;		/* nothing on the device to time against */
	struct strbuf method_notes;	/* batches, for benchmark_method */
	double gate_prev_ns;		/* the last gated call, by our clock */
	FILE *trace;			/* <log_dir>/timing.tsv, or NULL */
	FILE *blocks_log;		/* <log_dir>/blocks.tsv (GPU timing,
					 * opened on its first line), or NULL */
	bool blocks_log_tried;		/* its open was tried already */
	/* A GPU pair's start (0: none; set by the pair step) and the end of
	 * the last traced pair: timing.tsv's pair_ns and loop_ns. */
	uint64_t pair_t0_ns, pair_end_ns;
	struct ref_trial *ahead;	/* [case][trial], run ahead, or NULL */
	uint64_t t0_ns;			/* when the evaluation started */
	/* Where the wall time goes (result_phase, eval_phases in the
	 * result): the phase charged now, since when, and what each phase
	 * was charged so far.  Only the evaluation's own thread switches. */
	enum result_phase phase_now;
	uint64_t phase_since_ns;
	uint64_t phase_ns[RESULT_NPHASES];
	char *roofline_note;		/* why no roofline floor applies */
	struct host_peaks hp;		/* host: one core's peaks, or 0s */
	char *host_roof_note; /* host: the floor's terms, or why none */
	struct mutant_state *mut; /* req->mutants' working state */
};

/* ---- eval.c ----------------------------------------------------------- */

/* Charges the time since the last switch to the phase running and makes
 * p the one running; returns the phase it replaced, which the caller
 * passes back when its part ends (phases nest: a runner started during
 * timing is runner_start, then timing again). */
enum result_phase ev_phase_enter(struct eval_ctx *x, enum result_phase p);

void ev_set_str(char **field, const char *v);
/* A seed for one purpose (a, b, c) derived from the request's seed. */
uint64_t ev_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);
/* "case" or "held-out case", for messages. */
const char *ev_case_kind(const struct task_case *c);
/* Records the verdict (the first one wins) and its message in the field
 * that belongs to the current phase. */
void ev_verdict(struct eval_ctx *x, enum result_status st, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));
/* Sets the verdict st with msg in place of the one set since the
 * evaluation's thread handed over work whose failure this is: a check
 * run in the background (refpool.c) that failed before a later step of
 * the thread set its own verdict.  The result is as if that check had
 * been the first failure, as it would have been had it run in the
 * foreground; without a verdict set, ev_verdict. */
void ev_verdict_supersede(struct eval_ctx *x, enum result_status st,
			  const char *msg);
/* Takes back the verdict set last, as if it had not been reached (the
 * result as it was before it); nothing without one. */
void ev_verdict_withdraw(struct eval_ctx *x);

/* ---- runners.c -------------------------------------------------------- */

/* "DURING, case 'ID'" (or DURING alone without a case) into buf: where a
 * failure happened, in a verdict's words. */
void ev_where(char *buf, size_t n, const char *during,
	      const struct task_case *c);
/* Forgets a runner of the context and destroys it. */
void ev_ctx_forget(struct eval_ctx *x, struct runner *r);
/* The message of a trusted runner's failure (any role's RUNNER_NODEVICE,
 * or a reference's or baseline's failed request f, or with f RUNNER_OK
 * its non-zero return rc), in the words of the verdict ev_runner_failed
 * and ev_call_outcome_ok give it (infra_error), into *sb.  Reads only
 * its arguments: any thread may call it (refpool.c's workers). */
void ev_trusted_failure(enum role role, const struct runner *r,
			enum runner_fail f, int rc, const char *during,
			const struct task_case *c, struct strbuf *sb);
/* Turns a runner failure into the verdict it deserves. */
void ev_runner_failed(struct eval_ctx *x, enum role role, struct runner *r,
		      enum runner_fail f, const char *during,
		      const struct task_case *c);
/* Whether role's artifact runs in a GPU runner (a C reference of a GPU
 * task runs in the host runner). */
bool ev_role_gpu(const struct eval_ctx *x, enum role role);
/* The role that block b's pair of runners starts, lays out and
 * allocates first (i = 0) and second (i = 1): the baseline in even
 * blocks, the candidate in odd ones, so that neither role's device
 * memory is always taken while the other's is already held (docs/gpu.md
 * section 6, "what differs between the two runners"). */
enum role ev_block_role(int b, int i);
/* Forks and execs a runner for role with shm bytes of shared memory;
 * NULL (verdict set) on failure.  ev_await_ready() finishes the start. */
struct runner *ev_launch(struct eval_ctx *x, enum role role, size_t shm,
			 const struct task_case *c);
/* Waits for a launched runner's hello and ready; false (verdict set, the
 * runner forgotten) on failure. */
bool ev_await_ready(struct eval_ctx *x, enum role role, struct runner *r,
		    const struct task_case *c);
bool ev_set_layout(struct eval_ctx *x, enum role role, struct runner *r,
		   const struct case_layout *l, const struct task_case *c);
/* ev_set_layout for n runners at once (runner_layout_all): their
 * page-locking overlaps.  False (the first failure's verdict set, every
 * failed runner forgotten) when any failed. */
bool ev_set_layouts(struct eval_ctx *x, const enum role *roles,
		    struct runner *const *rs, int n, const struct case_layout *l,
		    const struct task_case *c);
/* Starts a runner for role with layout l; NULL (verdict set) on failure. */
struct runner *ev_spawn(struct eval_ctx *x, enum role role,
			const struct case_layout *l,
			const struct task_case *c);
/* The kept runner for role (GPU evaluations keep theirs across cases)
 * with layout l, started now when there is none. */
struct runner *ev_acquire(struct eval_ctx *x, enum role role,
			  const struct case_layout *l,
			  const struct task_case *c);
/* ev_acquire for n roles at once: the runners that must be started are
 * all launched before any is waited for, so that their start-ups overlap
 * (a Python runner's takes a second or more), then each is awaited and
 * given layout l in the order of roles; nothing is asked of any of them
 * before all are ready.  out[i] is roles[i]'s runner.  false (verdict
 * set by the first that failed, in that order; every runner of the set
 * forgotten, out[] NULL) on failure. */
bool ev_acquire_set(struct eval_ctx *x, const enum role *roles, int n,
		    const struct case_layout *l, const struct task_case *c,
		    struct runner **out);
/* Gives a runner back after a case: kept in *slot when the case went well
 * on a GPU evaluation, ended otherwise. */
void ev_release(struct eval_ctx *x, struct runner **slot, struct runner *r,
		bool ok);
/* A trusted GPU runner's thread count after a call: what the driver
 * legitimately starts. */
void ev_note_trusted(struct eval_ctx *x, struct runner *r);
/* Writes the staged inputs into set `off` (a byte offset) of a runner's
 * memory and poisons its outputs; ev_stage_into: set 0. */
void ev_stage_set(const struct task *t, const struct case_layout *l,
		  void *const *stage, struct runner *r, size_t off,
		  int pattern);
void ev_stage_into(const struct task *t, const struct case_layout *l,
		   void *const *stage, struct runner *r, int pattern);
/* Inputs (io: in) of set `off` must be bit-identical after a call. */
bool ev_inputs_intact_at(struct eval_ctx *x, const struct case_layout *l,
			 void *const *stage, struct runner *r, size_t off,
			 const char *when, const struct task_case *c);
bool ev_inputs_intact(struct eval_ctx *x, const struct case_layout *l,
		      void *const *stage, struct runner *r, const char *when,
		      const struct task_case *c);
/* Compares every output of set `off` of `got` with `want`'s; fills
 * *maxerr; on a mismatch sets the verdict `st` with prefix. */
bool ev_outputs_match_at(struct eval_ctx *x, const struct case_layout *l,
			 struct runner *got, struct runner *want, size_t off,
			 double tol_scale, int pattern, double *maxerr,
			 enum result_status st, const char *prefix);
bool ev_outputs_match(struct eval_ctx *x, const struct case_layout *l,
		      struct runner *got, struct runner *want,
		      double tol_scale, int pattern, double *maxerr,
		      enum result_status st, const char *prefix);
/* The same on two sets' memory anywhere (got and want point at the start
 * of a set laid out as l). */
bool ev_outputs_match_mem(struct eval_ctx *x, const struct case_layout *l,
			  const unsigned char *got, const unsigned char *want,
			  double tol_scale, int pattern, double *maxerr,
			  enum result_status st, const char *prefix);
/* ev_outputs_match_mem without the verdict: the mismatch's message
 * (prefix first) into *why.  Reads only its arguments, so any thread may
 * call it (refpool.c's workers). */
bool ev_outputs_compare(const struct task *t, const struct case_layout *l,
			const unsigned char *got, const unsigned char *want,
			double tol_scale, int pattern, double *maxerr,
			const char *prefix, struct strbuf *why);
/* Whether every output of set 0 of got is within tol_scale x the task's
 * tolerance of want's; no verdict either way. */
bool ev_outputs_within(const struct eval_ctx *x, const struct case_layout *l,
		       const struct runner *got, const struct runner *want,
		       double tol_scale, int pattern);
/* The verdict on one request's outcome: a runner failure, a non-zero
 * return, or a candidate runner that left threads or children behind.
 * After a trusted runner's request, its thread count (ev_note_trusted). */
bool ev_call_outcome_ok(struct eval_ctx *x, enum role role, struct runner *r,
			enum runner_fail f, int rc, const char *what,
			const struct task_case *c);
/* One call of a host runner: the controller's cache flush (unless role
 * is the reference), then a `time` request; o (or NULL) gets the claim,
 * the wall time and the runner's CPU time.  With check_claim, a claim
 * that is not positive or exceeds the wall time is the candidate's
 * rejection (the baseline's: infra_error).  False (verdict set) on any
 * failure. */
bool ev_host_call(struct eval_ctx *x, enum role role, struct runner *r,
		  const char *what, const struct task_case *c, bool check_claim,
		  struct gpu_sample *o);
/* One call (a GPU candidate's under the ordering check; a host runner's
 * through ev_host_call); false (verdict set) on any failure. */
bool ev_call_checked(struct eval_ctx *x, enum role role, struct runner *r,
		     const char *what, const struct task_case *c);
/* Host buffers for a case's inputs (outputs get none). */
void **ev_stage_alloc(const struct task *t, const struct case_layout *l);
void ev_stage_free(void **stage);
/* A comment line in timing.tsv; one line per timed pair (checked: 0
 * its sets compared on windows, 1 whole, 2 whole and one against the
 * reference). */
void ev_trace_mark(struct eval_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same in timing.tsv only, never shown as the evaluation's step. */
void ev_trace_detail(struct eval_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ev_trace_pair(struct eval_ctx *x, const struct task_case *c, int block,
		   const char *kind, int num, int n, bool base_first,
		   const struct gpu_sample *bs, const struct gpu_sample *cs,
		   uint64_t stage_ns, uint64_t check_ns, int checked);
/* ---- device_lock.c ---------------------------------------------------- */

/* Opens <dir>/<device>.lock (dir NULL: paths_lock_dir(), the
 * machine-wide one every evaluation and `arena doctor` use), made if
 * missing; device "host", "cuda:0" or "gpu-<pci>" ('/', '.', ':' become
 * '_'). */
int ev_device_lock_open(const char *dir, const char *device, int *fd,
			struct errbuf *err);
/* <dir>/<device><suffix>, the device's name made a file name as for
 * its lock (dir NULL: paths_lock_dir()). */
char *ev_device_file(const char *dir, const char *device, const char *suffix);
/* The lock's name for a device: "gpu-<pci>" for a GPU whose PCI address
 * g says (g may be NULL), else the device as given ("host" for NULL). */
void ev_device_lock_name(const struct gpu_info *g, const char *device,
			 char *out, size_t n);
/* ev_device_lock_open, then the lock taken in mode, blocking, first come
 * first served (ev_device_lock_close gives it back). */
int ev_device_lock_take(const char *dir, const char *name, int mode, int *fd,
			int64_t *ticket, struct errbuf *err);
/* Gives a lock file's ticket back when held (mode not 0) and closes it:
 * the end of an evaluation's lock, in ctx_release or after a deferred
 * teardown.  fd < 0: nothing. */
void ev_device_lock_close(int fd, int mode, int64_t ticket);
/* Takes the device's lock in mode (LOCK_SH or LOCK_EX; see
 * device_lock.c). */
int ev_lock_device(struct eval_ctx *x, int mode, bool nonblock);
/* ev_lock_device with its failure turned into a verdict. */
bool ev_lock_or_verdict(struct eval_ctx *x, int mode);
/* Lets the device go while this evaluation does host work only (marked
 * in timing.tsv); ev_lock_or_verdict takes it again. */
void ev_unlock_device(struct eval_ctx *x);
/* Whether x holds its device's lock exclusively (its timing phase; on a
 * GPU, its correctness phase too, except while a trial's host
 * reference computes). */
bool ev_device_exclusive(const struct eval_ctx *x);

/* ---- gpu_memory.c ----------------------------------------------------- */

/* What arena's evaluations on device g may hold together: 90% of its
 * memory, or $ARENA_GPU_MEMORY_MIB; 0 when unknown (no ledger). */
uint64_t ev_gpu_memory_usable(const struct gpu_info *g);
/* The device's memory ledger, <lock_dir>/gpu-<pci>.mem (lock_dir NULL:
 * the machine's). */
char *ev_gpu_memory_ledger_dir(const struct gpu_info *g, const char *device,
			       const char *lock_dir);

/* Room for one runner's sets when every runner x will start holds its
 * own: the memory the ledger may grant, less every runner's context and
 * flush buffer and the keeper's, shared by the runners; 0 when the
 * device's memory is unknown.  A batch is bounded by it too, so that one
 * evaluation alone fits its device (a 24 GB card gets batches of about
 * 1 GiB at six blocks, an 80 GB one the usual 2 GiB). */
uint64_t ev_gpu_sets_room(const struct eval_ctx *x);
/* Bytes of device memory x's runners may hold at most: a context each,
 * the keeper's and the L2 flush buffers, and every runner's largest batch
 * of sets. */
uint64_t ev_gpu_memory_need(const struct eval_ctx *x);
/* Has x's need granted by the device's memory ledger before its first
 * runner starts there.  true: granted (or no ledger applies: a host
 * evaluation, a device whose memory is unknown).  false: not granted -
 * with wait false, still queued (x keeps its place); with wait true,
 * only when the ledger failed (the verdict says why).  A wait lets the
 * device lock go first: an evaluation never waits for memory while
 * holding it. */
bool ev_gpu_memory_admit(struct eval_ctx *x, bool wait);
/* Before a GPU runner starts: x's memory granted, waiting for it when
 * not yet (build.c asks before it takes the device's lock; a launch that
 * comes first waits without the lock and takes it back after).  false:
 * a verdict says why. */
bool ev_gpu_memory_before_launch(struct eval_ctx *x);

/* ---- build.c ---------------------------------------------------------- */

/* Timing blocks of x (block 0 is the correctness pair). */
int ev_timing_blocks(const struct eval_ctx *x);

/* Builds reference, baseline and candidate (the candidate from its
 * snapshot) and starts the correctness runners; a negative errno when
 * the evaluation cannot take place, else 0 (a verdict may be set). */
int ev_build_all(struct eval_ctx *x, const struct source_set *cand_src);

/* ---- correctness.c ---------------------------------------------------- */

int ev_correctness_trials(const struct eval_ctx *x);
/* Runs the reference of correctness trials ahead, while the candidate
 * compiles (build.c). */
void ev_reference_ahead(struct eval_ctx *x);
void ev_ahead_release(struct eval_ctx *x);
/* Whether the reference wrote every output element (the poison of
 * pattern gone); infra_error otherwise. */
/* The threads a reference runner cuts its calls into (1: whole calls;
 * runners.c). */
int ev_reference_threads(const struct eval_ctx *x);
/* A clause for a message that blames the reference's outputs: that they
 * came from calls cut by reference.split, "" when they did not. */
const char *ev_split_note(const struct eval_ctx *x);
/* The task checks only (req->mutants): the reference's outputs of the call
 * just made, cut into row ranges (reference.split), must equal a whole
 * call's on the same inputs (stage[a]: argument a's, as staged) bit for
 * bit; infra_error naming the task's declaration otherwise.  True when
 * there is nothing to check. */
bool ev_reference_split_holds(struct eval_ctx *x, const struct case_layout *l,
			      struct runner *ref, void *const *stage,
			      int pattern, const struct task_case *c);
bool ev_reference_wrote_all(struct eval_ctx *x, const struct case_layout *l,
			    struct runner *ref, int pattern,
			    const struct task_case *c);
/* The same on a set's memory anywhere (shm laid out as l), the failure's
 * message into *why; no verdict, reads only its arguments (any thread
 * may call it: refpool.c's workers). */
bool ev_reference_wrote_all_mem(const struct task *t,
				const struct case_layout *l,
				const unsigned char *shm, int pattern,
				const struct task_case *c, struct strbuf *why);
/* Checks case ci: 0 when the candidate is correct on it, -1 with a
 * verdict otherwise. */
int ev_check_case(struct eval_ctx *x, int ci, struct case_result *cr);

/* ---- refcache.c ------------------------------------------------------- */

/* One trial's entry of the shared reference cache (struct eval_refcache):
 * pinned by get (NULL when absent), released by unpin. */
struct ev_refentry;
const struct ev_refentry *ev_refcache_get(struct eval_refcache *c,
					  const unsigned char key[32]);
void ev_refcache_unpin(struct eval_refcache *c, const struct ev_refentry *en);
/* The entry's inputs per argument (io in/inout; NULL for io out), as a
 * stage (ev_stage_into, ev_inputs_intact), and the reference runner's
 * memory after its call, laid out as the case's layout
 * (ev_outputs_match_mem).  Borrowed: valid while pinned. */
void *const *ev_refentry_inputs(const struct ev_refentry *en);
const unsigned char *ev_refentry_shm(const struct ev_refentry *en);
/* Keeps a trial: its staged inputs and the reference runner's memory
 * after its call (copied). */
void ev_refcache_put(struct eval_refcache *c, const unsigned char key[32],
		     const struct task *t, const struct case_layout *l,
		     void *const *stage, const unsigned char *ref_shm);
/* A fact without bytes (the baseline agreed with a trial). */
void ev_refcache_mark(struct eval_refcache *c, const unsigned char key[32]);
bool ev_refcache_has(struct eval_refcache *c, const unsigned char key[32]);
/* ---- mutants.c -------------------------------------------------------- */

/* With req->mutants: puts every output mutant of the candidate's call
 * (case ci, trial; its outputs already passed) through the task's
 * comparison with the reference's outputs and records the outcome.
 * cand_mem and ref_mem are the call's argument sets as l lays them out
 * (a runner's shm, or set k of a GPU sample's); stage holds the call's
 * inputs (an inout's initial values). */
void ev_mutants_probe(struct eval_ctx *x, int ci, int trial,
		      const struct case_layout *l, void *const *stage,
		      const unsigned char *cand_mem,
		      const unsigned char *ref_mem, int pattern);
void ev_mutants_release(struct eval_ctx *x);

/* ---- timing.c --------------------------------------------------------- */

void ev_timing_release(struct case_timing *ct);
/* ct->hi_factor, or 1 where it says no change. */
double ev_timing_hi_factor(const struct case_timing *ct);
/* Times case ci on the evaluation's device; when only the clock check
 * failed, times it once more with fresh runners, and the second timing
 * decides. */
void ev_time_case_confirmed(struct eval_ctx *x, int ci,
			    struct case_result *cr);
/* The device's measured peaks, for the roofline floor (GPU). */
void ev_gpu_peaks_for_roofline(struct eval_ctx *x);
/* The host's (one core's) measured peaks, for its roofline floor, and
 * the floor of one call of case c in ns (0: none applies). */
void ev_host_peaks_for_roofline(struct eval_ctx *x);
double ev_host_roofline_ns(struct eval_ctx *x, const struct task_case *c);
/* Whether a task's flops are FP32/FP64 work (every floating-point
 * argument f32 or f64), which the measured FMA peak bounds. */
bool ev_flops_are_fp32(const struct task *t);
/* The roofline time of one call of case c on the evaluation's device, in
 * ns, from its measured peaks without the floor's safety margins:
 * max(bytes / bandwidth, flops / FP32 FMA rate), the flops term only for
 * FP32/FP64 work (lower precisions have faster units the peaks do not
 * measure); 0 when the task has no cost or the peaks are unknown.  What
 * a case's roofline_ms reports (timing_host.c). */
double ev_roofline_ideal_ns(const struct eval_ctx *x,
			    const struct task_case *c);

/* ---- gpu_sample.c (GPU evaluations) ----------------------------------- */

/* Launches the keeper (no kernel; prelaunch) and finishes its start;
 * false (verdict set) on failure. */
bool ev_keeper_launch(struct eval_ctx *x);
bool ev_keeper_ready(struct eval_ctx *x);
/* Whether the device still works: a probe by the keeper (started now if
 * there is none) right after a candidate runner's device error.  False
 * with the reason in why when the probe fails too. */
bool ev_device_works(struct eval_ctx *x, char *why, size_t why_len);
/* Whether timed GPU calls are enqueued behind a held stream (`time <n>
 * hold`, runner_proto.h): the default since the H200's A/As
 * (docs/gpu.md, "Launches behind a held stream"); ARENA_GPU_HOLD_LAUNCH=0
 * turns it off.  Every runner of an evaluation alike. */
bool ev_gpu_hold_launch(void);
/* Whether the controller opens held batches' gates (`time <n> gate`,
 * runner_proto.h; docs/gpu.md section 6): the default wherever batches
 * are held; ARENA_GPU_CTL_GATE=0 leaves the runners to open their own. */
bool ev_gpu_ctl_gate_wanted(void);
/* Whether timed batches on a device of kind are captured before their
 * inputs exist and launched at once (`capture`, runner_proto.h;
 * docs/gpu.md section 6, "A batch captured before its inputs exist"):
 * the default on NVIDIA devices, where it ran (H100, 2026-12-07: Triton's
 * per-block excess between processes fell from 194-408 us to 54-68 us);
 * not on AMD's, where it has not run.  ARENA_GPU_CAPTURE=1 or 0 turns it
 * on or off everywhere. */
bool ev_gpu_capture_wanted(enum dev_kind kind);
/* Whether a case whose claims the gate's clock disputes runs on
 * (gpu_claim_disputed): the default; ARENA_GPU_DISPUTE=0 turns it off,
 * so that the two can be measured side by side. */
bool ev_gpu_dispute_wanted(void);
/* Both runners of a pair capture their coming batch of n calls at the
 * placement place (ev_gpu_place), so that their next `time` runs it with
 * one launch: true, each runner's `captured` set.  Where either cannot,
 * neither runs from a capture, and no batch of the evaluation is
 * captured again (x->capture off, the trace says why): true too.  False
 * (verdict set) when a runner failed.  Nothing to do when x->capture is
 * off. */
bool ev_gpu_capture_pair(struct eval_ctx *x, struct runner *base,
			 struct runner *cand, int n, const char *place,
			 const struct task_case *c);
/* The gen spec of a sample: the sets' placement (ev_gpu_place, as
 * "p:<hex>", where an input is drawn), inputs drawn on the device from
 * seed (every set its own, the same in every runner), outputs poisoned
 * with pattern.  Caller frees. */
char *ev_gpu_gen_spec(const struct eval_ctx *x, const struct case_layout *l,
		      int pattern, uint64_t seed);
/* One sample of runner r, every other runner stopped: the keeper's warm
 * kernel, gen (spec), the keeper's flush, time n calls, the keeper's
 * probes, fetch the arguments in mask of every set, the keeper's probes;
 * the clocks of struct gpu_sample.  False (verdict set) on any failure,
 * including a claim the clock contradicts. */
bool ev_gpu_sample(struct eval_ctx *x, enum role role, struct runner *r, int n,
		   const char *spec, uint32_t mask, const char *what,
		   const struct task_case *c, struct gpu_sample *o);
/* The argument mask of a sample's fetch: outputs always, inputs when
 * `inputs`. */
uint32_t ev_gpu_fetch_mask(const struct task *t, bool inputs);
/* The sets of a batch that a pair (or a correctness trial) compares:
 * set[0..n-1], ascending. */
struct gpu_sets {
	int n;
	int set[RP_MAX_SETS];
};
/* gpu_compare_sets() of a batch's n sets of layout l, drawn from r once
 * both samples have fetched every set, so no runner can know them while
 * it could still write. */
void ev_gpu_compare_pick(struct gpu_sets *s, const struct case_layout *l, int n,
			 struct rng *r);
/* Calls per sample of case ci, decided from the baseline runner alone
 * (trusted, a few samples of one call) and kept in x->gpu_batch[ci] (the
 * baseline's time per call in x->gpu_call_ns[ci]);
 * runners base and cand (either may be NULL) get that many sets.  0 with
 * a verdict on failure. */
int ev_gpu_case_batch(struct eval_ctx *x, int ci, struct runner *base,
		      const struct case_layout *l, const struct task_case *c);
/* Gives runner r n sets of layout l (stride l->shm_size); false (verdict
 * set) on failure. */
bool ev_gpu_sets(struct eval_ctx *x, enum role role, struct runner *r, int n,
		 const struct case_layout *l, const struct task_case *c);
/* ev_gpu_sets for nr runners at once (runner_sets_all). */
bool ev_gpu_sets_all(struct eval_ctx *x, const enum role *roles,
		     struct runner *const *rs, int nr, int n,
		     const struct case_layout *l, const struct task_case *c);
/* Whether timing runners get sets the keeper lends (docs/gpu.md section
 * 6, "the keeper's compare"): where the keeper can export memory,
 * unless ARENA_GPU_LEND=0; otherwise every set is a runner's own and
 * every output is fetched to the host. */
bool ev_gpu_lend_wanted(const struct eval_ctx *x);
/* ev_gpu_sets_all with sets the keeper lends where it can (*lent then
 * true; a keeper that cannot export memory turns lending off for the
 * evaluation and the runners get sets of their own). */
bool ev_gpu_sets_lent(struct eval_ctx *x, const enum role *roles,
		      struct runner *const *rs, int nr, int n,
		      const struct case_layout *l, const struct task_case *c,
		      bool *lent);
/* The placement seed of the sample whose seed is seed (one-way from it
 * under the evaluation's secret: gpu_sample.c, place_seed), in hex, or
 * "-" when no input is drawn (recorded inputs: every argument at the
 * start of its window). */
void ev_gpu_place(const struct eval_ctx *x, uint64_t seed, char *buf, size_t n);
/* Every set of cand's lent sets against base's, compared by the keeper
 * where they lie: inputs bit for bit, outputs within twice the
 * tolerance.  A failure is worded from host copies of the first failing
 * set (ev_gpu_sets_match).  False (verdict set) when one differs or the
 * keeper failed. */
bool ev_gpu_lent_match(struct eval_ctx *x, const struct case_layout *l,
		       struct runner *base, struct runner *cand,
		       const char *place, int pattern, const char *what,
		       const char *prefix, const struct task_case *c);
/* ev_gpu_lent_take into the memory to_fd stands for, as set 0 lies
 * there: 1 done, 0 the keeper cannot map that memory (no verdict), -1
 * verdict set. */
int ev_gpu_lent_take_to(struct eval_ctx *x, struct runner *r, const char *place,
			uint32_t mask, int k, int to_fd,
			const struct task_case *c);
/* The outputs of set k of a runner's lent sets, copied by the keeper
 * into the runner's shared memory where its fetch would put them (a
 * reference check's set); false (verdict set) on failure. */
bool ev_gpu_lent_take(struct eval_ctx *x, struct runner *r, const char *place,
		      uint32_t mask, int k, const struct task_case *c);
/* The sets s lists of cand's sample against base's: inputs (when
 * fetched) bit for bit, outputs within twice the tolerance; skip_set
 * (-1: none) is not compared.  With sample (a generator the runners
 * cannot predict, drawn from after the outputs were fetched) sets of
 * more than 256 KiB in all are compared on windows of every array of
 * every set listed (compare_arrays_sampled), else whole.  False (verdict RS_INCORRECT or
 * RS_REJECTED) when one differs; prefix names the sample in the
 * message. */
bool ev_gpu_sets_match(struct eval_ctx *x, const struct case_layout *l,
		       struct runner *base, struct runner *cand,
		       const struct gpu_sets *s, int pattern, bool inputs,
		       int skip_set, struct rng *sample, const char *what,
		       const char *prefix, const struct task_case *c);
/* The trusted baseline draws the inputs of its sample whose gen spec
 * was spec again and hands set k's over into its shared memory (inout
 * arguments were overwritten by its call; recorded inputs are staged
 * again), untimed; false (verdict set) on failure. */
bool ev_gpu_inputs_again(struct eval_ctx *x, struct runner *base,
			 const char *spec, int k, const char *what,
			 const struct task_case *c);
/* Where one reference check of a GPU sample spent its time, in ns:
 * the baseline drawing its inputs again, staging them (and the poison)
 * for the reference, the reference's call, the check that it wrote
 * every output, the comparison. */
struct refcheck_times {
	uint64_t again_ns, staged_ns, call_ns, wrote_ns, compared_ns;
	/* The set was taken by the keeper straight into the check's
	 * memory (again_ns: its inputs, staged_ns: the candidate's
	 * outputs), not drawn again and copied. */
	bool taken;
};
/* The check's line in timing.tsv, the same whether it ran on the
 * evaluation's thread or in the background (refpool.c): where says
 * which. */
void ev_trace_refcheck(struct eval_ctx *x, const struct task_case *c,
		       const char *what, const struct refcheck_times *t,
		       const char *where);
/* The reference on set k of base's sample whose gen spec was spec: the
 * trusted baseline draws that sample's inputs again (inout arguments
 * were overwritten by its call) and hands set k's to the reference,
 * which must write every output; then cand's set k (cand NULL: none)
 * must be within the task's tolerance of it (else RS_INCORRECT with
 * prefix).  base_too: the baseline's own set k must agree as well (else
 * the task is at fault, RS_INFRA_ERROR).  Call it after comparing the
 * other sets with the baseline's: base's inputs and inout arguments are
 * drawn again.  *maxerr (may be NULL) gets the largest difference.
 * yield_device: when the reference runs on the host, the device lock is
 * let go while it computes and compares (correctness trials: every GPU
 * sample stays inside an exclusive hold, and another evaluation may use
 * the device meanwhile); timing never yields. */
bool ev_gpu_reference_check(struct eval_ctx *x, const struct case_layout *l,
			    struct runner *ref, struct runner *base,
			    struct runner *cand, int k, const char *spec,
			    int pattern, bool base_too, bool yield_device,
			    const char *what, const char *prefix,
			    const struct task_case *c, double *maxerr);

/* ---- refpool.c (GPU timing with a host reference) -------------------- */

/* Reference checks of timed samples in the background: a pool of worker
 * threads, each with its own host reference runner, for one case. */
struct refpool;
/* Workers a pool may have: ARENA_ASYNC_REFCHECK when set to a number (0:
 * checks stay on the evaluation's thread; at most 16), else a quarter of
 * the CPUs this process may use, at least 1 and at most 4. */
int ev_refpool_size(void);
/* A pool of at most max workers for case c with layout l (borrowed until
 * ev_refpool_free); ref, the case's reference runner laid out as l, is
 * the first worker's and stays the caller's.  No thread starts before
 * the first check. */
struct refpool *ev_refpool_new(struct eval_ctx *x, const struct case_layout *l,
			       const struct task_case *c, struct runner *ref,
			       int max);
/* ev_gpu_reference_check of set k of cand's sample (no base_too, no
 * maxerr), in the background: base draws the sample's inputs again now,
 * set k's inputs and cand's outputs are copied to a free worker (waited
 * for when every one is busy; another started while there may be more),
 * which does the rest.  False (verdict set) when the device part failed,
 * a worker could not be had, or an earlier check failed. */
bool ev_refpool_check(struct refpool *p, struct runner *base,
		      struct runner *cand, int k, const char *spec, int pattern,
		      const char *what, const char *prefix);
/* ev_refpool_check for lent sets (base and cand at the sample's
 * placement place): the keeper takes the baseline's inputs of set k,
 * which its compare has just found equal to the candidate's, into the
 * worker's reference runner, and the candidate's outputs into the
 * worker's buffer, both straight from the device (no draw again, no
 * copy on this thread).  1 handed over; 0 not so (a task with an inout
 * or scratch argument, whose values before the call the reference needs
 * and the sets no longer hold, or a keeper that cannot take into that
 * memory: the caller checks the old way); -1 verdict set. */
int ev_refpool_check_lent(struct refpool *p, struct runner *base,
			  struct runner *cand, int k, const char *place,
			  int pattern, const char *what, const char *prefix);
/* Takes the outcome of checks that have finished, without waiting; when
 * one failed, waits for the rest and sets the earliest failure's verdict
 * (false).  p NULL: true. */
bool ev_refpool_poll(struct refpool *p);
/* Waits for every check handed over; false with the earliest failure's
 * verdict (in place of any reached since: ev_verdict_supersede) when one
 * failed.  p NULL: true. */
bool ev_refpool_join(struct refpool *p);
/* ev_refpool_join, then the workers' threads and runners ended (the
 * first worker's runner is the caller's) and p freed.  p NULL: true. */
bool ev_refpool_free(struct refpool *p);

/* ---- correctness_gpu.c ------------------------------------------------ */

/* Checks case ci on a GPU with the samples timing uses (docs/gpu.md
 * section 5): 0 when the candidate is correct on it, -1 with a verdict
 * otherwise. */
int ev_gpu_check_case(struct eval_ctx *x, int ci, struct case_result *cr);

/* ---- device.c --------------------------------------------------------- */

/* Bytes of the host's largest last-level cache (what a flush covers). */
size_t ev_llc_bytes(void);
/* The CPUs that share cpu's last-level cache, into *set (sysfs'
 * shared_cpu_list of the cache ev_llc_bytes measures on cpu0, found
 * again on cpu): their count, 0 (set empty) where sysfs does not say. */
int ev_llc_cpus(int cpu, cpu_set_t *set);
/* Shared memory of every runner of a GPU evaluation (x->shm_size). */
int ev_gpu_shm_size(struct eval_ctx *x, struct errbuf *err);

/* ---- pyrunner.c: runners of Python roles ------------------------------ */

/* What a Python runner's spec points into (owned). */
struct py_spec {
	char *script, *lib, *scratch, *trusted;
	const char *args[9];
};

/* Whether role's kernel is a Python module (python, triton, or a Python
 * reference): it runs in arena-runner-py. */
bool ev_role_python(const struct eval_ctx *x, enum role role);
/* Makes s start the Python runner for role (gpu: the GPU flavour); -1
 * with a verdict when the runner is not built.  s points into ps until
 * py_spec_release(ps). */
int ev_python_spec(struct eval_ctx *x, enum role role, bool gpu,
		   struct runner_spec *s, struct py_spec *ps);
void py_spec_release(struct py_spec *ps);

/* ---- aka_prepare.c: AgentKernelArena tasks ----------------------------- */

/* Prepares AKA task t for device (cached under cache_dir/aka): 0 with p
 * filled (p->t the task to evaluate, or p->error why there is none), or
 * a negative errno when preparing could not run.  Recording on a GPU
 * holds its device lock (lock_dir as eval_request.lock_dir). */
int aka_prepare(const struct task *t, const char *device, const char *cache_dir,
		const char *lock_dir, const char *log_dir, struct aka_prep *p,
		struct errbuf *err);
void aka_prep_release(struct aka_prep *p);
void aka_inputs_release(struct aka_inputs *in);
/* The seed that moves the floating-point inputs of the set staged for
 * the controller's draw (aka_jitter.c): never 0, or 0 when the task's
 * sets are staged verbatim. */
uint64_t ev_aka_jitter_seed(const struct eval_ctx *x, int ci, uint64_t draw);
/* Moves the floating-point values of one argument (bytes at data, of
 * dtype dt) by the factors seed draws; nothing when seed is 0 or dt is
 * not a floating-point type. */
void ev_aka_jitter(arena_dtype dt, void *data, size_t bytes, uint64_t seed);
/* A call of case ci staged from its recorded sets: the set the
 * controller's draw picks, its floating-point inputs moved for that draw
 * (ev_aka_jitter_seed), into host buffers (per argument, outputs
 * untouched) or into one set of a runner's shared memory.
 * ev_aka_fill_own stages the harness's own first set as recorded (the
 * first correctness trial). */
void ev_aka_fill(const struct eval_ctx *x, int ci, const struct case_layout *l,
		 uint64_t draw, void **stage);
void ev_aka_fill_own(const struct eval_ctx *x, int ci,
		     const struct case_layout *l, void **stage);
void ev_aka_fill_shm(const struct eval_ctx *x, int ci,
		     const struct case_layout *l, uint64_t draw,
		     unsigned char *shm);
/* eval_run for an AKA task (aka_eval.c). */
int ev_aka_run(const struct eval_request *req, struct task_result *res,
	       struct errbuf *err);
/* eval_run's body, for a task whose recorded inputs are rec (or NULL). */
int ev_run_task(const struct eval_request *req, const struct aka_inputs *rec,
		struct task_result *res, struct errbuf *err);

#endif /* ARENA_EVALUATION_H */

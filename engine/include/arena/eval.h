/*
 * eval.h - the evaluator: from a task and a directory of candidate sources
 * to a verdict, under the trust model of DESIGN.md §3.
 *
 * eval_run() compiles the candidate, the baseline and the reference
 * to shared objects (artifacts cached by content hash), starts a separate
 * runner process (arena-runner) for each, and never loads any of them
 * itself.  Correctness: for every case, `correctness_trials` fresh random
 * input sets derived from the request's seed; outputs poisoned before each
 * call; every element must be written; inputs must be unchanged; the
 * candidate's outputs are compared with the reference runner's under the
 * task's tolerances.  Timing: baseline and candidate runners strictly
 * alternate sample by sample (random order inside a pair), the other runner
 * stopped (SIGSTOP) while one is timed, the controller's own cache flush
 * before every call, fresh inputs for every pair, every timed output
 * checked against the baseline's and some against the reference; blocks
 * of fresh runner processes; on the host a call costs the CPU time the
 * kernel accounts to its runner over the whole request, and the runner's
 * own claims are only checked against it (GPU: docs/gpu.md).  A runner
 * that crashes, hangs, exits or is killed becomes a verdict, never a crash
 * or hang of the caller.  Timing holds the device's lock (one timing phase
 * per device across processes); compilation and correctness do not.
 */
#ifndef ARENA_EVAL_H
#define ARENA_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arena/config.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"

#define ARENA_EVALUATOR_VERSION "arena-eval/2"

/* Reference outputs shared by the evaluations of one process: the inputs
 * of a correctness trial and what the trusted reference computed for
 * them, keyed by the reference artifact's content-addressed name, the
 * task's definition (config and held-out cases), the case's layout, the
 * seed and the trial; and the fact that the task's baseline agreed with
 * them.  A cached trial gives the candidate the same inputs and the same
 * reference bytes as a reference run would: every check of the candidate
 * is made as without the cache (timing's reference checks run the
 * reference as before).  Host evaluations only.  In this process's memory
 * only (never a file: no process that runs candidate code can read or
 * write it); every entry's bytes are verified against the SHA-256 taken
 * when it was put, and a damaged entry is dropped and recomputed; least
 * recently used entries are evicted beyond budget_bytes.  Thread-safe:
 * give the same cache to concurrent eval_run calls through
 * eval_request.refcache.  docs/evaluator.md ("Reuse across evaluations")
 * says why the reuse is safe. */
struct eval_refcache;
struct eval_refcache *eval_refcache_new(size_t budget_bytes);
/* Only once no evaluation uses it. */
void eval_refcache_free(struct eval_refcache *c);
struct eval_refcache_stats {
	uint64_t hits, misses, evictions;
	uint64_t corrupt; /* entries found damaged, dropped */
	uint64_t entries;
	size_t bytes, budget;
};
void eval_refcache_stats(struct eval_refcache *c,
			 struct eval_refcache_stats *out);
/* Fault injection for tests: damages the reference bytes of the nth
 * entry (most recently used first) that holds a trial's.  0, or
 * -ENOENT. */
int eval_refcache_corrupt(struct eval_refcache *c, int nth);
/* Output mutants (`arena check-tasks`, engine/src/eval/mutants.c): after
 * every correctness call of the candidate, copies of its outputs are
 * changed the way a wrong kernel would leave them and put through the
 * task's own comparison with the reference, so that a task whose
 * comparison lets one of them pass can be called too weak.  They work on
 * the bytes the controller compares, whatever language wrote them, and
 * never change the evaluation's verdict. */
enum eval_mutant_kind {
	/* nothing written: the poison (out), the initial values (inout) */
	EVAL_MUT_NO_WRITE,
	EVAL_MUT_ZEROS,	  /* every element 0 */
	EVAL_MUT_PARTIAL, /* the last element left unwritten */
	EVAL_MUT_STALE,	  /* the previous trial's output (other inputs) */
	EVAL_MUT_SHIFT,	  /* off by one: element i holds element i+1 */
	/* rounded to 8 significant bits (bf16's; bf16 outputs: 5) */
	EVAL_MUT_PRECISION,
	/* three elements negated, the largest in magnitude among them
	 * (unsigned: complemented) */
	EVAL_MUT_SIGN,
	EVAL_MUT_COUNT
};

/* "no_write", "zeros", ... and what the mutant does, in words. */
const char *eval_mutant_name(enum eval_mutant_kind k);
const char *eval_mutant_what(enum eval_mutant_kind k);

/* One mutant of one output argument over a whole evaluation. */
struct eval_mutant_outcome {
	enum eval_mutant_kind kind;
	int arg;      /* index into the task's args */
	int changed;  /* calls on which it changed the output */
	bool caught;  /* the comparison failed it on some call */
	char *where;  /* "case 'small', trial 2" (owned) or NULL */
	char *detail; /* the comparison's finding (owned) or NULL */
};

struct eval_mutants {
	int n;			       /* one per (output argument, kind) */
	struct eval_mutant_outcome *v; /* owned */
};

/* Frees what an evaluation put into m and empties it. */
void eval_mutants_release(struct eval_mutants *m);

struct eval_request {
	const struct task *task;
	const char *candidate_dir;	/* holds the editable files */
	const char *cache_dir;		/* artifacts and scratch builds */
	const char *lock_dir; /* device locks; NULL: paths_lock_dir() */
	const char *log_dir;		/* runner logs, compiler output; NULL =
					 * scratch */
	const char *device;		/* "host", "cuda:N" or "hip:N" */
	const struct strvec *defines;	/* extra -DNAME=VALUE for the
					 * candidate, or NULL */
	uint64_t seed;			/* inputs and bootstrap */
	bool include_held_out;		/* final evaluations: true */
	bool skip_timing;		/* correctness only */
	bool quick;			/* search mode: one block, small budget */
	/* A/A and check-tasks' baseline checks: the candidate is the task's
	 * own baseline (trusted code), so
	 * the static check of Python candidates, a rule on agents' code, is
	 * not applied (docs/python.md); it still runs in a candidate runner
	 * like any candidate. */
	bool candidate_is_baseline;
	/* An A/A run for interval coverage (`arena eval --aa --timing-only`,
	 * the candidate being the task's own baseline): no correctness
	 * trials and no reference checks of timed samples, which only cost
	 * time there; timing itself is exactly a real evaluation's.  Never
	 * set for anything but the baseline: nothing would be checked. */
	bool aa_timing_only;
	struct timing_budget timing;
	struct eval_refcache *refcache; /* shared reference outputs, or
					 * NULL: the reference runs */
	/* Hears each step of the evaluation ("building", "case small
	 * checked", "timing", ...) as it is reached, for a status line; may
	 * be NULL.  Called from the evaluating thread. */
	void (*progress)(void *ctx, const char *step);
	void *progress_ctx;
	/* Non-NULL: filled with the outcome of every output mutant of the
	 * candidate's correctness calls (an empty struct eval_mutants the
	 * caller releases with eval_mutants_release). */
	struct eval_mutants *mutants;
	/* Return with the verdict while the runners, already killed, are
	 * still being reaped: a thread of their own reaps them, then
	 * releases the device lock and closes the evaluation's timing.tsv.
	 * A GPU runner's exit waits for the driver to tear its context
	 * down, 1.2-2.7 s for an evaluation's runners on the H200 (docs/
	 * gpu.md, "Teardown"); the device stays locked until every context
	 * is gone.  Callers that set it call eval_teardown_wait() before
	 * they exit. */
	bool defer_teardown;
};

void eval_request_init(struct eval_request *req);

/* Waits until every teardown that eval_run left to a thread of its own
 * (req->defer_teardown) is done: runners reaped, device locks released,
 * logs closed.  Any thread may call it, any number of times. */
void eval_teardown_wait(void);

/* Evaluates; fills res (which the caller initialised with result_init).
 * Returns 0 when a verdict was reached, whatever it is (res->status says
 * which), and a negative errno only when the evaluation itself could not
 * take place (missing runner binary, unwritable cache); err says why. */
int eval_run(const struct eval_request *req, struct task_result *res,
	     struct errbuf *err);

/* Evaluates reqs[0..n) with up to in_flight of them at once, on threads
 * of this process: while one holds the device lock for its timing (the
 * exclusive phase), the others build and run correctness, so that the
 * device is timed back to back.  Timing stays exclusive: eval_run takes
 * the device lock for it whatever calls it.  Requests are started in
 * order.  For each i: res[i] initialised and filled, rcs[i] eval_run's
 * return, errs[i] (when errs is not NULL, initialised by the caller) its
 * message.  in_flight 1 is eval_run one after another. */
void eval_run_many(const struct eval_request *reqs, int n, int in_flight,
		   struct task_result *res, int *rcs, struct errbuf *errs);

/* Hashes the candidate's editable files in dir into res->sources and
 * res->sources_hash.  A missing editable file is hashed as absent
 * ("-"), so deleting a file changes the hash too. */
int eval_hash_sources(const struct task *t, const char *dir,
		      struct task_result *res, struct errbuf *err);

/* The evaluation cache key: sha256 over (task id, task config hash, sources
 * hash, defines, device, evaluator version). */
void eval_cache_key(const struct task *t, const char *sources_hash,
		    const struct strvec *defines, const char *device,
		    bool include_held_out, char out[65]);

/* The device task t runs on when the configuration says `configured`
 * (NULL or "auto": $ARENA_DEVICE when set, else detected): "host" for c
 * tasks; for hip and cuda tasks "cuda:N" or "hip:N" as given, or, for
 * auto, cuda:0 when an NVIDIA driver and arena-runner-cuda are present,
 * else hip:0 when an AMD driver (/dev/kfd) and arena-runner-hip are.
 * Cheap: no GPU runtime is started (eval_run reports a device that does
 * not exist).  *device is allocated; docs/gpu.md has the rules. */
int eval_resolve_device(const char *configured, const struct task *t,
			char **device, struct errbuf *err);

/* Checks a run config's target_gpu_model against the device it resolved
 * to: 0 when it matches (or model is NULL/empty, or device is "host":
 * host tasks use no GPU), else -ENODEV with a sentence naming both.  Starts the
 * GPU runner's --query (once per process).  Matching: every alphanumeric
 * word of model, case-insensitively, is a word of the device's name or
 * architecture ("H200" matches "NVIDIA H200"; "MI300X" matches "AMD
 * Instinct MI300X"; "gfx90a" matches an MI210's architecture). */
int eval_check_gpu_model(const char *device, const char *model,
			 struct errbuf *err);

/* 0 when device exists ("host" always does); else -ENODEV with the
 * runtime's count: "device cuda:5 does not exist: the cuda runtime sees 2
 * devices (0-1)".  Starts the GPU runner's --query (once per process). */
int eval_check_device_exists(const char *device, struct errbuf *err);

/* What arena finds of an AgentKernelArena task folder (docs/aka.md), for
 * task checks: whether it can run here, whether its own harness passes
 * the kernel as shipped, whether it notices a corrupted kernel (a harness
 * that does not checks nothing), and what arena records of it.  The task
 * is prepared for device (cached under cache_dir, as eval_run does). */
struct aka_judgement {
	const char *style;    /* vllm, rocmbench, geak_eval, gpumode, unknown */
	char *skip_reason;    /* it cannot run here (AMD-only, ...), or NULL */
	char *error;	      /* it cannot be prepared, or NULL */
	bool baseline_passes; /* the harness's own check passes the kernel
				 * as shipped (not merely exits 0) */
	char *check_message;  /* what the harness said when it did not */
	int catches_wrong;    /* 1: the harness fails a corrupted kernel;
				 * 0: it still passes it (checks nothing);
				 * -1: not known */
	int ncases;	      /* cases arena records (timed + checked) */
	int ncheck_only;      /* of which checked, not timed */
	char *notes;	      /* what the recording left out, or NULL */
};

/* 0 with j filled (release with aka_judgement_release), or a negative
 * errno when preparing could not run at all. */
int eval_aka_judge(const struct task *t, const char *device,
		   const char *cache_dir, struct aka_judgement *j,
		   struct errbuf *err);
void aka_judgement_release(struct aka_judgement *j);

#endif /* ARENA_EVAL_H */

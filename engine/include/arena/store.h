/*
 * store.h - the experiment store: one directory holding arena.db (sqlite,
 * WAL mode) and runs/ (DESIGN.md §6).
 *
 * The database indexes runs, task attempts (the work queue of a run, with
 * their state), evaluations keyed by content hash (the cache behind `cat
 * score` and `arena eval`) and events.  Files under runs/ are written
 * atomically by their owners; the database is the source of truth for
 * state, the files are renderings users and agents read.
 *
 * Every function opens no transaction longer than one statement group and
 * sets a busy timeout, so several processes (a run executor, the
 * filesystem daemon, `arena status`) can share one store.
 */
#ifndef ARENA_STORE_H
#define ARENA_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/util.h"

struct store;

int store_open(const char *dir, struct store **out, struct errbuf *err);
void store_close(struct store *s);
/* Takes the database's write lock on this handle, waiting at most
 * wait_ms, and keeps it until the handle is closed or the process ends:
 * meanwhile nothing else - another handle, thread or process - writes.
 * For a process about to end abruptly (`arena serve`'s hard stop): what
 * its threads would still record waits behind the lock and ends with it.
 * -EBUSY when the lock was not free in time. */
int store_fence(struct store *s, int wait_ms, struct errbuf *err);
/* Absolute path of the store directory (borrowed). */
const char *store_root(const struct store *s);
/* <root>/runs/<run_id> (caller frees). */
char *store_run_dir(const struct store *s, const char *run_id);
/* <root>/runs/<run_id>/tasks/<task id with '/' as '_'>[__r<attempt>]. */
char *store_task_dir(const struct store *s, const char *run_id,
		     const char *task_id, int attempt);
/* Directory name of a task inside a run (caller frees). */
char *store_task_dirname(const char *task_id, int attempt);

/* ---- runs ------------------------------------------------------------ */

enum { RUN_ID_MAX = 128 };

struct store_run {
	char *id;
	double created_at;
	char *config_path;
	char *config_yaml;
	char *agent;
	char *device;
	char *status;	/* created | running | done | cancelled | failed */
	int ntasks;	/* attempts in the run */
};

void store_run_release(struct store_run *r);
/* Creates a run row with a fresh unique id run_<YYYYmmdd_HHMMSS>[_suffix]
 * (a numeric tail _2, _3, ... is added when taken) and its directory.
 * r->id is ignored and set on success. */
int store_run_create(struct store *s, struct store_run *r, const char *suffix,
		     struct errbuf *err);
int store_run_get(struct store *s, const char *id, struct store_run *out,
		  struct errbuf *err);	/* -ENOENT when absent */
int store_run_set_status(struct store *s, const char *id, const char *status,
			 struct errbuf *err);
/* All run ids, sorted by creation (oldest first). */
int store_run_list(struct store *s, struct strvec *ids, struct errbuf *err);
/* Newest run id (caller frees), -ENOENT when there is none. */
int store_run_latest(struct store *s, char **id, struct errbuf *err);
/* A run id must look like run_YYYYmmdd_HHMMSS[_suffix]. */
bool store_run_id_valid(const char *id);
bool store_run_suffix_valid(const char *suffix);

/* ---- attempts -------------------------------------------------------- */

/* States, in order: pending -> agent_running -> agent_done -> done. */
struct store_attempt {
	char *run_id;
	char *task_id;
	int attempt;
	char *state;
	char *agent_json;	/* agent outcome, or NULL */
	char *result_json;	/* final result, or NULL */
	char *sources_hash;	/* of the evaluated sources, or NULL */
	int agent_starts;
	double updated_at;
	char *variant;		/* agent configuration name ("" if one) */
	int repeat;		/* 1-based repeat number */
};

void store_attempt_release(struct store_attempt *a);
void store_attempts_free(struct store_attempt *a, int n);
/* attempt numbers the slot; variant and repeat say what it holds. */
int store_attempt_insert(struct store *s, const char *run_id,
			 const char *task_id, int attempt, const char *variant,
			 int repeat, struct errbuf *err);
int store_attempt_get(struct store *s, const char *run_id, const char *task_id,
		      int attempt, struct store_attempt *out,
		      struct errbuf *err);
/* Sets state and, where non-NULL, agent_json / result_json / sources_hash;
 * bump_starts adds one to agent_starts. */
int store_attempt_update(struct store *s, const char *run_id,
			 const char *task_id, int attempt, const char *state,
			 const char *agent_json, const char *result_json,
			 const char *sources_hash, bool bump_starts,
			 struct errbuf *err);
/* In task order, then attempt. */
int store_attempt_list(struct store *s, const char *run_id,
		       struct store_attempt **out, int *n, struct errbuf *err);

/* ---- trusted task copies (DESIGN.md §3.10) ---------------------------- */

/* The trusted copies a run evaluates against live in <root>/trusted
 * (task_trust_copy); the store records which copy each task of a run
 * uses.  set keeps the first hash recorded (a later one is ignored, so
 * the copy a run started with stays its copy); get is -ENOENT when none
 * was recorded (runs made before trusted copies). */
int store_trusted_set(struct store *s, const char *run_id, const char *task_id,
		      const char *hash, struct errbuf *err);
int store_trusted_get(struct store *s, const char *run_id, const char *task_id,
		      char **hash, struct errbuf *err);
/* <root>/trusted (caller frees). */
char *store_trusted_root(struct store *s);

/* ---- evaluation cache ------------------------------------------------ */

int store_eval_get(struct store *s, const char *key, char **result_json,
		   struct errbuf *err);	/* -ENOENT when absent */
int store_eval_put(struct store *s, const char *key, const char *task_id,
		   const char *sources_hash, const char *device,
		   const char *result_json, struct errbuf *err);
/* Number of cached evaluations for a task (tests use it to prove that
 * concurrent readers share one evaluation). */
int store_eval_count(struct store *s, const char *task_id, int *n,
		     struct errbuf *err);

/* ---- evaluation requests of `arena serve` ----------------------------- */

/* The queue of `arena serve` (docs/serve.md): requests arrive in batches,
 * wait as `queued`, are claimed by a worker (`running`, under a lease like
 * an attempt's: owner "host:pid:nonce" and an expiry the worker renews)
 * and end `done` with a result or an error, exactly once: the transition
 * to done is made only by the worker that holds the lease, and only from
 * running.  Requests that share an evaluation key are evaluated once: the
 * queue hands out none while another of the same key runs, and a finish
 * answers the queued ones of its key with the same result.
 *
 * Functions marked (tx) run a transaction of several statements: call them
 * on a handle that no other thread uses meanwhile (serve gives each of its
 * threads a connection of its own). */
struct store_serve_req {
	char *id;	/* "r_..." */
	char *batch_id; /* "b_..." */
	int idx;	/* position in its batch */
	char *task_id;
	int priority; /* higher first */
	bool quick;
	char *sources_json; /* {"name": "contents", ...}; NULL once done */
	char *eval_key;	    /* what the evaluation cache knows it by */
	char *state;	    /* queued | running | done */
	char *owner;	    /* while running */
	double created_at, started_at, finished_at;
	char *result_json; /* done: the task_result, or NULL */
	char *error;	   /* done without a verdict: why */
	int answers;	   /* times it was answered: 1 once done */
	int64_t done_seq;  /* order of answers across the store */
	bool cached;	   /* answered from the evaluation cache */
};

void store_serve_req_release(struct store_serve_req *r);
void store_serve_reqs_free(struct store_serve_req *r, int n);

/* (tx) Adds a batch of n requests, each with id, idx, task_id, priority,
 * quick, sources_json and eval_key set; a request whose state is
 * "done" (a cache hit found by the caller) is stored answered, with its
 * result_json.  client_key (or NULL) names the batch for the client: a
 * second batch with the same key is not added, *existing gets the first
 * one's id and -EEXIST is returned.  -EAGAIN (nothing added) when the
 * queue would then hold more than max_pending requests not done. */
int store_serve_batch_add(struct store *s, const char *batch_id,
			  const char *client_key, struct store_serve_req *reqs,
			  int n, int max_pending, char **existing,
			  struct errbuf *err);
/* Claims the queued request of highest priority (oldest first among
 * equals), or a running one whose lease expired, skipping keys another
 * live lease is evaluating: *out filled and 0, or -ENOENT when there is
 * none.  One statement: two workers never claim the same request. */
int store_serve_claim(struct store *s, const char *owner, double ttl_s,
		      struct store_serve_req *out, struct errbuf *err);
/* (tx) Answers a request that owner holds: done, with result_json (or
 * error when no verdict was reached), answers + 1.  Queued requests of
 * the same evaluation key (cacheable results only: result_json set) are
 * answered with the same result, marked cached; *also (or NULL) gets how
 * many.  -ESTALE when owner no longer holds it (its lease expired and
 * another worker took it): nothing changes. */
int store_serve_finish(struct store *s, const char *id, const char *owner,
		       const char *result_json, const char *error,
		       bool cacheable, int *also, struct errbuf *err);
/* Puts a running request of owner back in the queue (a worker that
 * stops before finishing it). */
int store_serve_requeue(struct store *s, const char *id, const char *owner,
			struct errbuf *err);
/* Every request a given owner runs goes back to the queue (the owner is
 * known dead); *n (or NULL) gets how many. */
int store_serve_requeue_owner(struct store *s, const char *owner, int *n,
			      struct errbuf *err);
/* Distinct owners of running requests, appended to owners. */
int store_serve_owners(struct store *s, struct strvec *owners,
		       struct errbuf *err);
/* Extends the leases of every request owner runs. */
int store_serve_renew(struct store *s, const char *owner, double ttl_s,
		      struct errbuf *err);
/* One request by id; -ENOENT when absent. */
int store_serve_get(struct store *s, const char *id,
		    struct store_serve_req *out, struct errbuf *err);
/* The requests of a batch in order (sources_json left out); -ENOENT when
 * the batch does not exist. */
int store_serve_batch(struct store *s, const char *batch_id,
		      struct store_serve_req **out, int *n, struct errbuf *err);
/* The answered requests of a batch whose place in the order of answers
 * is after `after` (done_seq), in that order, results included; *total
 * gets the batch's size.  -ENOENT when the batch does not exist.  A
 * reader that saw answer N has seen every answer numbered N (twins
 * answered together share their number). */
int store_serve_batch_done_since(struct store *s, const char *batch_id,
				 int64_t after, struct store_serve_req **out,
				 int *n, int *total, struct errbuf *err);
/* Requests not done, and of those how many run. */
int store_serve_counts(struct store *s, int *pending, int *running,
		       struct errbuf *err);

/* ---- store-private values --------------------------------------------- */

/* A key-value table for what only the controller may know (a run's secret
 * seed).  get returns -ENOENT when the key is absent; *value is the
 * caller's to free. */
int store_meta_get(struct store *s, const char *key, char **value,
		   struct errbuf *err);
int store_meta_put(struct store *s, const char *key, const char *value,
		   struct errbuf *err);

/* ---- events ---------------------------------------------------------- */

struct store_event {
	int64_t id;
	double ts;
	char *task_id;	/* may be NULL */
	char *kind;
	char *message;
};

int store_event_add(struct store *s, const char *run_id, const char *task_id,
		    const char *kind, const char *message, struct errbuf *err);
/* Events of a run with id > after_id, at most max, oldest first. */
int store_event_list(struct store *s, const char *run_id, int64_t after_id,
		     int max, struct store_event **out, int *n,
		     struct errbuf *err);
void store_events_free(struct store_event *ev, int n);

/* ---- leases ---------------------------------------------------------- */

/* A worker process (`arena worker`, an executor's worker thread, a Slurm
 * array element) owns an attempt while its lease is live; a worker that
 * dies stops renewing, and after ttl_s another may take the attempt over.
 * owner names the process ("host:pid:nonce"). */

/* 0 when the lease is ours (it was free, had expired, or was already
 * ours), valid for ttl_s; -EBUSY when another owner's lease is live. */
int store_lease_take(struct store *s, const char *run_id, const char *task_id,
		     int attempt, const char *owner, double ttl_s,
		     struct errbuf *err);
/* Extends every lease of owner to now + ttl_s (the heartbeat). */
int store_lease_renew_all(struct store *s, const char *owner, double ttl_s,
			  struct errbuf *err);
/* Gives the lease back (no-op when it is not owner's). */
int store_lease_drop(struct store *s, const char *run_id, const char *task_id,
		     int attempt, const char *owner, struct errbuf *err);
/* The owner of an attempt's lease, live or not (caller frees); -ENOENT
 * when there is none. */
int store_lease_owner(struct store *s, const char *run_id, const char *task_id,
		      int attempt, char **owner, struct errbuf *err);
/* Takes the lease over from old_owner (known dead), whatever its expiry;
 * -EBUSY when old_owner no longer holds it. */
int store_lease_take_from(struct store *s, const char *run_id,
			  const char *task_id, int attempt, const char *owner,
			  double ttl_s, const char *old_owner,
			  struct errbuf *err);
/* The owners of a run's live leases, each once, appended to owners. */
int store_lease_owners(struct store *s, const char *run_id,
		       struct strvec *owners, struct errbuf *err);

#endif /* ARENA_STORE_H */

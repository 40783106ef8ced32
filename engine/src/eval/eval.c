/*
 * eval.c - the evaluator (arena/eval.h): compile, check, time, decide.
 *
 * One evaluation, in order:
 *   1. snapshot and hash the candidate's editable files;
 *   2. build reference, baseline and candidate (compile.c; cached);
 *   3. correctness: per case, a fresh reference runner, candidate runner
 *      and (for the first trial) baseline runner; `correctness_trials`
 *      input sets drawn from (seed, case, trial); outputs poisoned before
 *      every call; after every call the candidate must have returned 0,
 *      run no other thread or child, left its inputs bit-identical and
 *      written outputs within tolerance of the reference's;
 *   4. timing (visible cases; held-out ones too on final evaluations),
 *      under the device lock: blocks of fresh baseline + candidate runner
 *      pairs, round robin; per pair fresh inputs, random order, a cache
 *      flush before each timed call, the other runner stopped; every timed
 *      output checked against the baseline's; the runners' claimed times
 *      checked against the controller's clock; stop on CI width, budget or
 *      max_pairs;
 *   5. fill the result and score it.
 *
 * Everything the candidate can touch lives in its runner; this file never
 * loads a kernel.  Every runner started is registered in the context and
 * destroyed on every path (ctx_release), so no evaluation leaves a process
 * behind, and runners die with the controller (PR_SET_PDEATHSIG).
 *
 * Verdicts: the first one reached wins (verdict()); later checks do not
 * run once one is set.  Failures of the reference or the baseline are
 * RS_INFRA_ERROR (the task's fault, not the candidate's).
 *
 * Thread safety: eval_run() may run concurrently in several threads of one
 * process; the only shared state is computed once under pthread_once.
 * Requirement on the caller: SIGCHLD must not be ignored and no other
 * thread may wait for arbitrary children (waitpid(-1)), since runners are
 * reaped by pid.
 */
#include "arena/eval.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arena/stats.h"
#include "eval_internal.h"

#define MAX_LIVE 64
#define MAX_BLOCKS 32
#define WARMUP_CALLS 2
#define CI_ITERS_STOP 400
#define CI_ITERS_FINAL 2000
#define GROUP_MEMORY_BUDGET (2ull << 30)
/* Consistency of claimed times (docs/evaluator.md). */
#define CLAIM_SLACK_NS 1000
#define OVERHEAD_ABS_NS 50000
#define OVERHEAD_REL 0.05
/* benchmark_method of GPU results; batched cases are appended. */
#define GPU_METHOD "device_events_l2_flush"

enum role { ROLE_REF, ROLE_BASE, ROLE_CAND, NROLES };
static const char *const role_names[NROLES] = { "reference", "baseline",
						"candidate" };
enum phase { PH_COMPILE, PH_CORRECTNESS, PH_TIMING };

struct case_timing {
	int nblocks;
	double *ratios[MAX_BLOCKS];
	int sizes[MAX_BLOCKS];
	int caps[MAX_BLOCKS];
};

/* A correctness trial's reference, run while the candidate compiles
 * (reference_ahead): the trial's inputs and the reference runner's memory
 * after its call. */
struct ref_trial {
	void **in;		/* per argument (io in/inout), or NULL */
	unsigned char *shm;	/* NULL: not run ahead */
};

struct eval_ctx {
	const struct eval_request *req;
	const struct task *t;
	struct task_result *res;
	struct errbuf *err;
	enum phase phase;
	bool decided;
	/* The clock check rejects only what it sees twice: its first failure
	 * in a case is noted here (clock_suspect, with the finding) and the
	 * case is timed again with fresh runners (clock_confirming). */
	bool clock_suspect, clock_confirming;
	char *clock_finding;

	char *scratch;			/* removed at the end */
	char *log_dir;
	const char *runner_path;
	char *so[NROLES];
	int logfd[NROLES];
	size_t flush_bytes;
	int timeout_ms;
	bool all_sandboxed;
	bool baseline_is_reference;

	struct runner *live[MAX_LIVE];
	int nlive;

	struct case_timing *timing;	/* per case */

	/* GPU evaluations (docs/gpu.md). */
	struct dev_id dev;
	bool gpu;			/* dev is a GPU */
	struct gpu_info gi;		/* what its runner said about it */
	enum task_language lang[NROLES];	/* of each role's artifact */
	size_t shm_size;		/* every GPU-eval runner's shared memory */
	struct runner *keep[NROLES];	/* correctness runners, across cases */
	bool keep_pending[NROLES];	/* launched, not awaited yet */
	struct runner *tblk[MAX_BLOCKS][2];	/* timing blocks 1..: base, cand */
	int lockfd;			/* the device lock, -1 when not held */
	int lockmode;			/* LOCK_SH or LOCK_EX while held */
	int trusted_threads;		/* most threads of a trusted GPU runner */
	bool no_gpu_baseline;		/* nothing on the device to time against */
	struct strbuf method_notes;	/* batches, for benchmark_method */
	double gate_prev_ns;		/* the last gated call, by our clock */
	FILE *trace;			/* <log_dir>/timing.tsv, or NULL */
	struct ref_trial *ahead;	/* [case][trial], run ahead, or NULL */
	uint64_t t0_ns;			/* when the evaluation started */
	char *roofline_note;		/* why no roofline floor applies */
};

/* ---- small helpers ---------------------------------------------------- */

static void set_str(char **field, const char *v)
{
	free(*field);
	*field = v ? xstrdup(v) : NULL;
}

static uint64_t derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	return mix64(seed ^ mix64(a + 0x1234567ull) ^
		     mix64(b * 0x9e3779b97f4a7c15ull + 17) ^ mix64(c + 99));
}

static const char *case_kind(const struct task_case *c)
{
	return c->held_out ? "held-out case" : "case";
}

/* Records the verdict (the first one wins) and its message in the field
 * that belongs to the current phase. */
static void verdict(struct eval_ctx *x, enum result_status st,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void verdict(struct eval_ctx *x, enum result_status st,
		    const char *fmt, ...)
{
	struct task_result *r = x->res;
	va_list ap;
	char *msg;

	if (x->decided)
		return;
	x->decided = true;
	va_start(ap, fmt);
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	msg = strbuf_detach(&sb);
	r->status = st;
	if (st == RS_COMPILE_ERROR || x->phase == PH_COMPILE)
		set_str(&r->compilation_error_message, msg);
	else if (x->phase == PH_TIMING && st != RS_INCORRECT)
		set_str(&r->speedup_calculation_error_message, msg);
	else
		set_str(&r->correctness_error_message, msg);
	if (st == RS_INCORRECT || st == RS_RUNTIME_ERROR || st == RS_TIMEOUT)
		r->pass_correctness = false;
	if (st == RS_REJECTED) {
		strvec_push(&r->integrity, msg);
		if (x->phase == PH_CORRECTNESS)
			r->pass_correctness = false;
	}
	free(msg);
}

/* ---- paths and machine facts ------------------------------------------ */

/* Computed once per process and never freed. */
static char *include_dir_path;
static char *runner_path_found;
static pthread_once_t paths_once = PTHREAD_ONCE_INIT;

static bool has_kernel_h(const char *dir)
{
	char *p = path_join(dir, "arena/kernel.h");
	bool ok = access(p, R_OK) == 0;

	free(p);
	return ok;
}

/* The first of dir/rel[i] that passes ok(), resolved; or NULL. */
static char *first_existing(const char *dir, const char *const *rel,
			    size_t n, bool (*ok)(const char *))
{
	for (size_t i = 0; i < n; i++) {
		char *cand = path_join(dir, rel[i]);
		if (ok(cand)) {
			char *real = path_real(cand);
			if (real) {
				free(cand);
				return real;
			}
			return cand;
		}
		free(cand);
	}
	return NULL;
}

static void init_paths(void)
{
	static const char *const inc_rel[] = { "../engine/include",
					       "../../engine/include",
					       "../share/arena/include" };
	static const char *const run_rel[] = { "arena-runner",
					       "../arena-runner" };
	char *exe = path_real("/proc/self/exe");
	char *exe_dir = exe ? exe : xstrdup(".");
	char *slash = strrchr(exe_dir, '/');
	const char *env;

	if (slash && slash != exe_dir)
		*slash = '\0';

	env = getenv("ARENA_INCLUDE_DIR");
	if (env && *env)
		include_dir_path = xstrdup(env);
	else
		include_dir_path = first_existing(exe_dir, inc_rel,
						  ARRAY_SIZE(inc_rel),
						  has_kernel_h);
	if (!include_dir_path)
		include_dir_path = xstrdup("/usr/local/share/arena/include");

	env = getenv("ARENA_RUNNER");
	if (env && *env)
		runner_path_found = xstrdup(env);
	else
		runner_path_found = first_existing(exe_dir, run_rel,
						   ARRAY_SIZE(run_rel),
						   path_is_executable);
	if (!runner_path_found)	/* last resort: the PATH */
		runner_path_found = path_search("arena-runner", NULL);
	if (!runner_path_found)
		runner_path_found = xstrdup("arena-runner");
	free(exe_dir);
}

const char *eval_include_dir(void)
{
	pthread_once(&paths_once, init_paths);
	return include_dir_path;
}

const char *eval_runner_path(void)
{
	pthread_once(&paths_once, init_paths);
	return runner_path_found;
}

static size_t llc_bytes_cached;
static pthread_once_t llc_once = PTHREAD_ONCE_INIT;

static size_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	return (size_t)v;
}

/* The largest cache of the highest level cpu0 sees (sysfs describes the
 * cache this machine actually gives us; sysconf's figure can be the whole
 * package's), else sysconf, else 32 MiB; capped at 256 MiB. */
static void init_llc(void)
{
	int best_level = 0;
	size_t best = 0;

	for (int i = 0; i < 16; i++) {
		char p[128], *lv = NULL, *sz = NULL;
		size_t n;
		struct errbuf e;
		errbuf_init(&e);
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
		if (file_read_all(p, 64, &lv, &n, &e) != 0)
			break;
		snprintf(p, sizeof(p),
			 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
		if (file_read_all(p, 64, &sz, &n, &e) == 0) {
			int level = atoi(lv);
			size_t bytes = parse_cache_size(sz);
			if (level > best_level ||
			    (level == best_level && bytes > best)) {
				best_level = level;
				best = bytes;
			}
		}
		free(lv);
		free(sz);
	}
	if (!best) {
		long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
		if (v <= 0)
			v = sysconf(_SC_LEVEL2_CACHE_SIZE);
		best = v > 0 ? (size_t)v : 0;
	}
	if (!best)
		best = 32u << 20;
	if (best > (256u << 20))
		best = 256u << 20;
	if (best < (1u << 20))
		best = 1u << 20;
	llc_bytes_cached = best;
}

static size_t llc_bytes(void)
{
	pthread_once(&llc_once, init_llc);
	return llc_bytes_cached;
}

/* ---- request, hashes, cache key --------------------------------------- */

void eval_request_init(struct eval_request *req)
{
	memset(req, 0, sizeof(*req));
	req->device = "host";
	timing_budget_defaults(&req->timing);
}

static int hash_snapshot(const struct source_set *s, struct task_result *res)
{
	for (int i = 0; i < s->n; i++)
		result_add_source(res, s->path[i], s->sha256[i]);
	result_hash_sources(res);
	return 0;
}

int eval_hash_sources(const struct task *t, const char *dir,
		      struct task_result *res, struct errbuf *err)
{
	struct source_set s;
	int rc = sources_read(dir, &t->editable, &s, err);

	if (rc)
		return rc;
	hash_snapshot(&s, res);
	sources_release(&s);
	return 0;
}

static void key_field(struct sha256 *h, const char *s)
{
	uint64_t n = s ? strlen(s) : UINT64_MAX;
	unsigned char le[8];

	for (int i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	sha256_update(h, le, 8);
	if (s)
		sha256_update(h, s, strlen(s));
}

void eval_cache_key(const struct task *t, const char *sources_hash,
		    const struct strvec *defines, const char *device,
		    bool include_held_out, char out[65])
{
	struct sha256 h;
	unsigned char d[32];
	char nbuf[32];

	sha256_init(&h);
	key_field(&h, "arena-eval-key/1");
	key_field(&h, ARENA_EVALUATOR_VERSION);
	key_field(&h, t->id);
	key_field(&h, t->config_sha256);
	key_field(&h, sources_hash);
	snprintf(nbuf, sizeof(nbuf), "%zu", defines ? defines->n : 0);
	key_field(&h, nbuf);
	for (size_t i = 0; defines && i < defines->n; i++)
		key_field(&h, defines->v[i]);
	key_field(&h, device ? device : "host");
	key_field(&h, include_held_out ? "held-out" : "visible");
	/* The task's own sources (reference, baseline) change the verdict
	 * too, and config_sha256 covers only the YAML. */
	struct strvec files = STRVEC_INIT;
	for (size_t i = 0; i < t->editable.n; i++)
		strvec_push(&files, t->editable.v[i]);
	if (t->reference_file)
		strvec_push(&files, t->reference_file);
	struct source_set s;
	struct errbuf e;
	errbuf_init(&e);
	if (sources_read(t->dir, &files, &s, &e) == 0) {
		for (int i = 0; i < s.n; i++) {
			key_field(&h, s.path[i]);
			key_field(&h, s.sha256[i]);
		}
		sources_release(&s);
	} else {
		key_field(&h, "unreadable task sources");
	}
	strvec_release(&files);
	sha256_final(&h, d);
	sha256_to_hex(d, out);
}

/* ---- runners ---------------------------------------------------------- */

static void ctx_forget(struct eval_ctx *x, struct runner *r)
{
	for (int i = 0; i < x->nlive; i++)
		if (x->live[i] == r) {
			x->live[i] = x->live[--x->nlive];
			break;
		}
	runner_destroy(r);
}

/* Turns a runner failure into the verdict it deserves. */
static void runner_failed(struct eval_ctx *x, enum role role,
			  struct runner *r, enum runner_fail f,
			  const char *during, const struct task_case *c)
{
	char where[256];

	if (c)
		snprintf(where, sizeof(where), "%s, %s '%s'", during,
			 case_kind(c), c->id);
	else
		snprintf(where, sizeof(where), "%s", during);
	if (f == RUNNER_NODEVICE) {
		verdict(x, RS_INFRA_ERROR, "the %s runner %s %s", role_names[role],
			r->why, where);
		return;
	}
	if (role != ROLE_CAND) {
		verdict(x, RS_INFRA_ERROR, "the %s runner %s %s (the task's "
			"%s is at fault, not the candidate)", role_names[role],
			r->why, where, role_names[role]);
		return;
	}
	switch (f) {
	case RUNNER_DEVICE: {
		struct gpu_error_meaning m;
		gpu_error_meaning(r->dev_error, &m);
		verdict(x, (enum result_status)m.status, "the candidate caused "
			"%s on the device %s: the runner %s%s", m.what, where,
			r->why, r->dev_sticky ? "; the device context was lost "
			"and the runner retired" : "");
		break;
	}
	case RUNNER_TIMEOUT:
		verdict(x, RS_TIMEOUT, "the candidate %s %s", r->why, where);
		break;
	case RUNNER_DIED:
		verdict(x, RS_RUNTIME_ERROR, "the candidate runner %s %s",
			r->why, where);
		break;
	case RUNNER_FORBIDDEN:
		verdict(x, RS_REJECTED, "the candidate runner %s %s", r->why,
			where);
		break;
	case RUNNER_PROTOCOL:
		verdict(x, RS_REJECTED, "runner protocol violated: the "
			"candidate runner %s %s", r->why, where);
		break;
	case RUNNER_LOAD:
		x->res->pass_compilation = false;
		verdict(x, RS_COMPILE_ERROR, "the compiled kernel could not be "
			"loaded: %s", r->why);
		break;
	case RUNNER_REFUSED:
		verdict(x, RS_RUNTIME_ERROR, "the candidate runner %s %s",
			r->why, where);
		break;
	default:
		verdict(x, RS_INFRA_ERROR, "the candidate runner %s %s", r->why,
			where);
	}
}

/* Whether role's artifact runs in a GPU runner (a C reference of a GPU
 * task runs in the host runner). */
static bool role_gpu(const struct eval_ctx *x, enum role role)
{
	return x->gpu && x->lang[role] != LANG_C;
}

/* Forks and execs a runner for role with shm bytes of shared memory;
 * NULL (verdict set) on failure.  runner_await() finishes the start. */
static struct runner *launch(struct eval_ctx *x, enum role role, size_t shm,
			     const struct task_case *c)
{
	struct runner *r;
	enum runner_fail f;
	char devarg[16];
	bool gpu = role_gpu(x, role);
	struct runner_spec s = {
		.runner_path = gpu ? gpu_runner_path(x->dev.kind)
				   : x->runner_path,
		.so_path = x->so[role],
		.entry = x->t->entry ? x->t->entry : "arena_launch",
		.role = role_names[role],
		.shm_size = shm,
		.log_fd = x->logfd[role],
		.timeout_ms = x->timeout_ms,
		.gpu = gpu,
	};
	if (gpu) {
		snprintf(devarg, sizeof(devarg), "%d", x->dev.index);
		s.device_arg = devarg;
		/* A GPU runtime reserves terabytes of address space: no
		 * RLIMIT_AS; device memory is the device's to limit. */
	} else {
#if !defined(__SANITIZE_ADDRESS__)
		/* Room for the data several times over, the flush buffer and
		 * the libraries; an ASan runner reserves terabytes of shadow
		 * instead. */
		s.as_limit = (uint64_t)shm * 4 +
			     (x->gpu ? 0 : x->flush_bytes) + (1ull << 30);
#endif
	}
	if (x->nlive >= MAX_LIVE) {
		verdict(x, RS_INFRA_ERROR, "too many runners at once");
		return NULL;
	}
	r = runner_new();
	x->live[x->nlive++] = r;
	f = runner_launch(r, &s);
	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, "while starting", c);
		ctx_forget(x, r);
		return NULL;
	}
	return r;
}

/* Waits for a launched runner's hello and ready; false (verdict set, the
 * runner forgotten) on failure. */
static bool await_ready(struct eval_ctx *x, enum role role, struct runner *r,
			const struct task_case *c)
{
	enum runner_fail f = runner_await(r);
	int children = 0;

	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, "while starting", c);
		ctx_forget(x, r);
		return false;
	}
	if (!r->sandboxed)
		x->all_sandboxed = false;
	runner_census(r, &r->threads_ready, &children);
	return true;
}

static bool set_layout(struct eval_ctx *x, enum role role, struct runner *r,
		       const struct case_layout *l, const struct task_case *c)
{
	enum runner_fail f = runner_layout(r, l->proto);

	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, "while taking the case's layout",
			      c);
		ctx_forget(x, r);
		return false;
	}
	return true;
}

/* Starts a runner for role with layout l; NULL (verdict set) on failure. */
static struct runner *spawn(struct eval_ctx *x, enum role role,
			    const struct case_layout *l,
			    const struct task_case *c)
{
	struct runner *r = launch(x, role, x->gpu ? x->shm_size : l->shm_size,
				  c);

	if (!r || !await_ready(x, role, r, c) || !set_layout(x, role, r, l, c))
		return NULL;
	return r;
}

/* GPU evaluations keep their runners across cases (a fresh context costs
 * 0.2-0.5 s): the kept runner for role with layout l, started now when
 * there is none.  Host evaluations start a fresh one for every case. */
static struct runner *acquire(struct eval_ctx *x, enum role role,
			      const struct case_layout *l,
			      const struct task_case *c)
{
	struct runner *r = x->gpu ? x->keep[role] : NULL;

	if (!r)
		return spawn(x, role, l, c);
	x->keep[role] = NULL;
	return set_layout(x, role, r, l, c) ? r : NULL;
}

/* Gives a runner back after a case: kept for the next case when the case
 * went well on a GPU evaluation, ended otherwise (a runner that failed is
 * never reused: a sticky device error retires it, and the next case gets
 * a fresh one). */
static void release(struct eval_ctx *x, struct runner **slot,
		    struct runner *r, bool ok)
{
	if (!r)
		return;
	if (x->gpu && ok && !r->reaped && !*slot)
		*slot = r;
	else
		ctx_forget(x, r);
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
		verdict(x, RS_INFRA_ERROR, "cannot inspect the candidate "
			"runner's threads in /proc");
		return false;
	}
	if (r->gpu) {
		int allowed = x->trusted_threads > 0 ? x->trusted_threads
						     : r->threads_ready;
		if (threads > allowed || children > 0) {
			verdict(x, RS_REJECTED, "work left running after %s "
				"returned (%d threads, %d child processes; the "
				"baseline's runner has %d threads) %s, %s '%s'; "
				"a kernel may not start threads or processes",
				x->t->entry ? x->t->entry : "arena_launch",
				threads, children, allowed, when, case_kind(c),
				c->id);
			return false;
		}
		return true;
	}
	if (threads > 1 || children > 0) {
		verdict(x, RS_REJECTED, "work left running after %s returned "
			"(%d threads, %d child processes) %s, %s '%s'; host "
			"kernels must be single-threaded",
			x->t->entry ? x->t->entry : "arena_launch", threads,
			children, when, case_kind(c), c->id);
		return false;
	}
	return true;
}

/* A trusted GPU runner's thread count after a call: what the driver
 * legitimately starts. */
static void note_trusted(struct eval_ctx *x, struct runner *r)
{
	int threads = 0, children = 0;

	if (r->gpu && runner_census(r, &threads, &children) == 0 &&
	    threads > x->trusted_threads)
		x->trusted_threads = threads;
}

/* Writes the staged inputs into set `off` (a byte offset) of a runner's
 * memory and poisons its outputs. */
static void stage_set(const struct task *t, const struct case_layout *l,
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
static void stage_into(const struct task *t, const struct case_layout *l,
		       void *const *stage, struct runner *r, int pattern)
{
	stage_set(t, l, stage, r, 0, pattern);
}

/* Inputs (io: in) of set `off` must be bit-identical after a call. */
static bool inputs_intact_at(struct eval_ctx *x, const struct case_layout *l,
			     void *const *stage, struct runner *r, size_t off,
			     const char *when, const struct task_case *c)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		if (ta->io != IO_IN)
			continue;
		const unsigned char *got = r->shm + off + l->offset[a];
		if (memcmp(got, stage[a], l->bytes[a]) == 0)
			continue;
		size_t sz = dtype_size(ta->dtype), i = 0;
		const unsigned char *want = stage[a];
		while (i < (size_t)l->numel[a] &&
		       memcmp(got + i * sz, want + i * sz, sz) == 0)
			i++;
		char idx[128];
		format_index(l->shape[a], ta->rank, (int64_t)i, idx,
			     sizeof(idx));
		verdict(x, RS_REJECTED, "input '%s' was modified by the kernel "
			"%s, %s '%s' (first changed element %s%s); inputs "
			"must be left unchanged", ta->name, when, case_kind(c),
			c->id, ta->name, idx);
		return false;
	}
	return true;
}

static bool inputs_intact(struct eval_ctx *x, const struct case_layout *l,
			  void *const *stage, struct runner *r,
			  const char *when, const struct task_case *c)
{
	return inputs_intact_at(x, l, stage, r, 0, when, c);
}

/* Compares every output of set `off` of `got` with `want`'s; fills
 * *maxerr; on a mismatch sets the verdict `st` with prefix. */
static bool outputs_match_at(struct eval_ctx *x, const struct case_layout *l,
			     struct runner *got, struct runner *want,
			     size_t off, double tol_scale, int pattern,
			     double *maxerr, enum result_status st,
			     const char *prefix)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		struct cmp_result cr;
		if (ta->io == IO_IN)
			continue;
		compare_arrays(ta->dtype, got->shm + off + l->offset[a],
			       want->shm + off + l->offset[a], l->numel[a],
			       x->t->atol * tol_scale, x->t->rtol * tol_scale,
			       ta->io == IO_OUT ? pattern : -1, &cr);
		if (maxerr && cr.max_abs_err > *maxerr)
			*maxerr = cr.max_abs_err;
		if (!cr.ok) {
			char idx[128];
			format_index(l->shape[a], ta->rank, cr.first_bad, idx,
				     sizeof(idx));
			verdict(x, st, "%s: output '%s'%s: %s", prefix,
				ta->name, idx, cr.detail);
			return false;
		}
	}
	return true;
}

static bool outputs_match(struct eval_ctx *x, const struct case_layout *l,
			  struct runner *got, struct runner *want,
			  double tol_scale, int pattern, double *maxerr,
			  enum result_status st, const char *prefix)
{
	return outputs_match_at(x, l, got, want, 0, tol_scale, pattern, maxerr,
				st, prefix);
}

/* Calls one runner once; false (verdict set) on any failure. */
/* The verdict on one request's outcome: a runner failure, a non-zero
 * return (the candidate's fault, or the task's for a trusted runner), or
 * a candidate runner that left threads or children behind. */
static bool call_outcome_ok(struct eval_ctx *x, enum role role,
			    struct runner *r, enum runner_fail f, int rc,
			    const char *what, const struct task_case *c)
{
	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, what, c);
		return false;
	}
	if (rc != 0) {
		if (role == ROLE_CAND)
			verdict(x, RS_RUNTIME_ERROR, "%s returned %d (not 0) %s, "
				"%s '%s'", x->t->entry, rc, what, case_kind(c),
				c->id);
		else
			verdict(x, RS_INFRA_ERROR, "the %s returned %d %s, %s "
				"'%s'", role_names[role], rc, what,
				case_kind(c), c->id);
		return false;
	}
	return role != ROLE_CAND || census_ok(x, r, what, c);
}

/* What one runner's timed request said, and the controller's clock. */
struct gpu_sample {
	int64_t claim, wall, drain, fetch;
};

/* A comment line in timing.tsv: how far into the evaluation what
 * happened (where an evaluation's seconds go). */
static void trace_mark(struct eval_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void trace_mark(struct eval_ctx *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->trace)
		return;
	fprintf(x->trace, "# %.1f ms: ", (double)(now_ns() - x->t0_ns) / 1e6);
	va_start(ap, fmt);
	vfprintf(x->trace, fmt, ap);
	va_end(ap);
	fputc('\n', x->trace);
}

/* One line of <log_dir>/timing.tsv per timed pair (and GPU warm-up
 * pair): what the runners claimed, the controller's clock, and the host's
 * own work, so that noise can be traced to its source (docs/evaluator.md;
 * host pairs have no drain or fetch). */
static void trace_pair(struct eval_ctx *x, const struct task_case *c,
		       int block, const char *kind, int num, int n,
		       bool base_first, const struct gpu_sample *bs,
		       const struct gpu_sample *cs, uint64_t stage_ns,
		       uint64_t check_ns)
{
	if (!x->trace)
		return;
	fprintf(x->trace, "%s\t%d\t%s\t%d\t%d\t%d\t%lld\t%lld\t%lld\t%lld\t"
		"%lld\t%lld\t%lld\t%lld\t%llu\t%llu\n", c->id, block, kind,
		num, n, base_first ? 1 : 0, (long long)bs->claim,
		(long long)cs->claim, (long long)bs->wall, (long long)cs->wall,
		(long long)bs->drain, (long long)cs->drain, (long long)bs->fetch,
		(long long)cs->fetch, (unsigned long long)stage_ns,
		(unsigned long long)check_ns);
}

/* The verdicts of the ordering check on one candidate call (order and
 * late: see runner_call_gated). */
static bool order_ok(struct eval_ctx *x, int order, int late, int64_t hold_us,
		     const char *what, const struct task_case *c)
{
	const char *entry = x->t->entry ? x->t->entry : "arena_launch";

	if (order == -2 || late == -2) {
		verdict(x, RS_REJECTED, "the candidate runner sent a malformed "
			"ordering-check reply %s, %s '%s'", what, case_kind(c),
			c->id);
		return false;
	}
	if (order > 0) {
		verdict(x, RS_REJECTED, "work not ordered on the stream %s was "
			"given %s, %s '%s': argument '%s' changed while the "
			"runner held that stream (for %.1f ms after the call "
			"returned); a kernel must enqueue all its work on the "
			"stream it is given, or on streams that wait for it",
			entry, what, case_kind(c), c->id,
			x->t->args[order - 1].name, (double)hold_us / 1e3);
		return false;
	}
	if (late > 0) {
		verdict(x, RS_REJECTED, "work still running after the stream %s "
			"was given had finished %s, %s '%s': argument '%s' "
			"changed after that stream's own work was done; work "
			"forked onto another stream must be joined back into "
			"the given stream before %s returns", entry, what,
			case_kind(c), c->id, x->t->args[late - 1].name, entry);
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
			 const struct task_case *c)
{
	int rc = 0, order = 0, late = 0;
	int64_t wall = 0, hold = 0;
	bool gated = role == ROLE_CAND && role_gpu(x, role) && r->calls > 0;
	enum runner_fail f;

	if (gated) {
		hold = gpu_gate_hold_us(x->gate_prev_ns);
		f = runner_call_gated(r, hold, &rc, &order, &late, &wall);
		x->gate_prev_ns = fmax(0.0, (double)wall - (double)hold * 1e3);
	} else {
		f = runner_call(r, &rc);
	}
	if (!call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (gated && !order_ok(x, order, late, hold, what, c))
		return false;
	if (role != ROLE_CAND)
		note_trusted(x, r);
	return true;
}

static void **stage_alloc(const struct task *t, const struct case_layout *l)
{
	void **stage = xcalloc(TASK_MAX_ARGS, sizeof(void *));

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			stage[a] = xmalloc(l->bytes[a] ? l->bytes[a] : 1);
	return stage;
}

static void stage_free(void **stage)
{
	if (!stage)
		return;
	for (int a = 0; a < TASK_MAX_ARGS; a++)
		free(stage[a]);
	free(stage);
}

/* ---- correctness ------------------------------------------------------ */

static int correctness_trials(const struct eval_ctx *x)
{
	int trials = x->req->timing.correctness_trials;

	return trials < 3 ? 3 : trials;
}

/* A trial's fresh inputs into stage, the reference's call on them, and
 * its outputs checked for being written.  False (verdict set) when the
 * reference failed. */
static bool reference_trial(struct eval_ctx *x, int ci, int trial,
			    const struct case_layout *l, void **stage,
			    struct runner *ref, const char *what)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	int pattern = trial & 1;
	struct rng r;

	rng_seed(&r, derive(x->req->seed, 1, (uint64_t)ci, (uint64_t)trial));
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			inputs_fill(t, l, a, &r, stage[a]);
	stage_into(t, l, stage, ref, pattern);
	if (!call_checked(x, ROLE_REF, ref, what, c))
		return false;
	/* The reference must write everything itself. */
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		if (ta->io != IO_OUT)
			continue;
		const unsigned char *p = ref->shm + l->offset[a];
		size_t sz = dtype_size(ta->dtype);
		for (int64_t i = 0; i < l->numel[a]; i++)
			if (poison_is(ta->dtype, p + (size_t)i * sz, pattern)) {
				verdict(x, RS_INFRA_ERROR, "the reference did "
					"not write output '%s' element %lld in "
					"%s '%s'", ta->name, (long long)i,
					case_kind(c), c->id);
				return false;
			}
	}
	return true;
}

static struct ref_trial *ahead_trial(struct eval_ctx *x, int ci, int trial)
{
	struct ref_trial *rt;

	if (!x->ahead)
		return NULL;
	rt = &x->ahead[ci * correctness_trials(x) + trial];
	return rt->shm ? rt : NULL;
}

static void ahead_release(struct eval_ctx *x)
{
	int n = x->t->ncases * correctness_trials(x);

	for (int i = 0; x->ahead && i < n; i++) {
		stage_free(x->ahead[i].in);
		free(x->ahead[i].shm);
	}
	free(x->ahead);
	x->ahead = NULL;
}

/* Runs the reference of every correctness trial it can ahead, while the
 * candidate compiles (a GPU compiler takes a second or two; the host
 * reference of a few million elements takes tenths): inputs and outputs
 * kept in memory, up to AHEAD_MAX_BYTES in all.  check_case takes them
 * instead of calling the reference.  A failing reference sets its
 * verdict here. */
#define AHEAD_MAX_BYTES ((size_t)256 << 20)
static void reference_ahead(struct eval_ctx *x)
{
	const struct task *t = x->t;
	int trials = correctness_trials(x);
	size_t used = 0;

	x->ahead = xcalloc((size_t)(t->ncases * trials), sizeof(*x->ahead));
	for (int pass = 0; pass < 2; pass++)
		for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
			const struct task_case *c = &t->cases[ci];
			struct case_layout l;
			struct errbuf e;
			if (c->held_out != (pass == 1) ||
			    (c->held_out && !x->req->include_held_out))
				continue;
			errbuf_init(&e);
			if (layout_build(t, c, &l, &e) != 0)
				return;	/* check_case says so */
			size_t in = 0;
			for (int a = 0; a < t->nargs; a++)
				if (t->args[a].io != IO_OUT)
					in += l.bytes[a];
			if (used + (size_t)trials * (in + l.shm_size) >
			    AHEAD_MAX_BYTES) {
				layout_release(&l);
				return;
			}
			struct runner *ref = acquire(x, ROLE_REF, &l, c);
			bool ok = ref != NULL;
			for (int trial = 0; trial < trials && ok; trial++) {
				struct ref_trial *rt = &x->ahead[ci * trials + trial];
				char what[64];
				snprintf(what, sizeof(what),
					 "in correctness trial %d", trial + 1);
				rt->in = stage_alloc(t, &l);
				ok = reference_trial(x, ci, trial, &l, rt->in,
						     ref, what);
				if (ok) {
					rt->shm = xmalloc(l.shm_size);
					memcpy(rt->shm, ref->shm, l.shm_size);
					used += in + l.shm_size;
				}
			}
			release(x, &x->keep[ROLE_REF], ref, ok);
			layout_release(&l);
			trace_mark(x, "case %s: reference run ahead", c->id);
			if (!ok)
				return;
		}
}

static int check_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	struct case_layout l;
	struct runner *ref = NULL, *cand = NULL, *base = NULL;
	void **stage = NULL;
	struct errbuf e;
	int trials = correctness_trials(x);
	bool ok = false;

	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	stage = stage_alloc(t, &l);
	if (!(ref = acquire(x, ROLE_REF, &l, c)) ||
	    !(cand = acquire(x, ROLE_CAND, &l, c)))
		goto out;
	if (!x->baseline_is_reference && !(base = acquire(x, ROLE_BASE, &l, c)))
		goto out;

	for (int trial = 0; trial < trials; trial++) {
		struct ref_trial *rt = ahead_trial(x, ci, trial);
		char what[64], prefix[160];
		int pattern = trial & 1;

		snprintf(what, sizeof(what), "in correctness trial %d", trial + 1);
		if (rt) {
			for (int a = 0; a < t->nargs; a++)
				if (t->args[a].io != IO_OUT)
					memcpy(stage[a], rt->in[a], l.bytes[a]);
			memcpy(ref->shm, rt->shm, l.shm_size);
		} else if (!reference_trial(x, ci, trial, &l, stage, ref, what)) {
			goto out;
		}
		stage_into(t, &l, stage, cand, pattern);
		/* The baseline before the candidate: a broken task is the
		 * task's fault whatever the candidate does, and on a GPU the
		 * trusted runner's thread count is the candidate's bound. */
		if (trial == 0 && base) {
			stage_into(t, &l, stage, base, pattern);
			if (!call_checked(x, ROLE_BASE, base, what, c))
				goto out;
			snprintf(prefix, sizeof(prefix), "the task's baseline "
				 "disagrees with its reference in %s '%s'",
				 case_kind(c), c->id);
			if (!outputs_match(x, &l, base, ref, 1.0, pattern, NULL,
					   RS_INFRA_ERROR, prefix))
				goto out;
		}
		trace_mark(x, "case %s trial %d: reference done", c->id,
			   trial + 1);
		if (!call_checked(x, ROLE_CAND, cand, what, c) ||
		    !inputs_intact(x, &l, stage, cand, what, c))
			goto out;
		trace_mark(x, "case %s trial %d: candidate done", c->id,
			   trial + 1);
		snprintf(prefix, sizeof(prefix), "%s '%s', correctness trial %d",
			 case_kind(c), c->id, trial + 1);
		if (!outputs_match(x, &l, cand, ref, 1.0, pattern,
				   &cr->max_abs_err, RS_INCORRECT, prefix)) {
			free(cr->error);
			cr->error = xstrdup(x->res->correctness_error_message);
			goto out;
		}
	}
	/* A last exchange: a reply forged during the final call would
	 * otherwise still be waiting, unread, when the runner is killed. */
	enum runner_fail pf = runner_ping(cand);
	if (pf != RUNNER_OK) {
		runner_failed(x, ROLE_CAND, cand, pf, "after its last call", c);
		goto out;
	}
	ok = true;
	cr->correct = true;
out:
	if (!ok && !cr->error && x->decided &&
	    x->res->correctness_error_message)
		cr->error = xstrdup(x->res->correctness_error_message);
	/* A candidate that was merely wrong on a held-out case keeps its
	 * runner (the other held-out cases are still checked); anything
	 * else ends it. */
	bool keep_cand = ok || (x->decided && x->res->status == RS_INCORRECT);
	release(x, &x->keep[ROLE_REF], ref, ok || keep_cand);
	release(x, &x->keep[ROLE_CAND], cand, keep_cand);
	release(x, &x->keep[ROLE_BASE], base, ok || keep_cand);
	stage_free(stage);
	layout_release(&l);
	return ok ? 0 : -1;
}

/* ---- timing ----------------------------------------------------------- */

struct block {
	struct runner *base, *cand;
	int pairs;
	int index;		/* in the case's blocks */
};

struct samples {
	double *base_ns, *cand_ns, *base_ovh, *cand_ovh;
	int n, cap;
};

static void samples_add(struct samples *s, double b, double c, double bo,
			double co)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		s->base_ns = xrealloc(s->base_ns, (size_t)s->cap * sizeof(double));
		s->cand_ns = xrealloc(s->cand_ns, (size_t)s->cap * sizeof(double));
		s->base_ovh = xrealloc(s->base_ovh,
				       (size_t)s->cap * sizeof(double));
		s->cand_ovh = xrealloc(s->cand_ovh,
				       (size_t)s->cap * sizeof(double));
	}
	s->base_ns[s->n] = b;
	s->cand_ns[s->n] = c;
	s->base_ovh[s->n] = bo;
	s->cand_ovh[s->n] = co;
	s->n++;
}

static void samples_release(struct samples *s)
{
	free(s->base_ns);
	free(s->cand_ns);
	free(s->base_ovh);
	free(s->cand_ovh);
	memset(s, 0, sizeof(*s));
}

static void timing_add(struct case_timing *ct, int b, double ratio)
{
	if (ct->sizes[b] == ct->caps[b]) {
		ct->caps[b] = ct->caps[b] ? ct->caps[b] * 2 : 64;
		ct->ratios[b] = xrealloc(ct->ratios[b],
					 (size_t)ct->caps[b] * sizeof(double));
	}
	ct->ratios[b][ct->sizes[b]++] = ratio;
}

static void timing_release(struct case_timing *ct)
{
	for (int b = 0; b < MAX_BLOCKS; b++)
		free(ct->ratios[b]);
	memset(ct, 0, sizeof(*ct));
}

static int timing_ci(const struct case_timing *ct, int iters, uint64_t seed,
		     struct interval *iv)
{
	const double *blocks[MAX_BLOCKS];
	struct ratio_blocks rb = { ct->nblocks, blocks, ct->sizes };

	for (int b = 0; b < ct->nblocks; b++)
		blocks[b] = ct->ratios[b];
	return stats_median_ratio_ci(&rb, iters, 0.05, seed, iv);
}

/* Times one runner once: flush, then a timed call. */
static bool time_one(struct eval_ctx *x, enum role role, struct runner *r,
		     const char *what, const struct task_case *c,
		     int64_t *claim, int64_t *wall)
{
	int rc = 0;
	enum runner_fail f = runner_flush(r, x->flush_bytes);

	if (f == RUNNER_OK)
		f = runner_time(r, &rc, claim, wall);
	if (!call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (*claim <= 0 || *claim > *wall + CLAIM_SLACK_NS) {
		if (role == ROLE_CAND)
			verdict(x, RS_REJECTED, "reported times inconsistent "
				"with the controller's clock: the candidate "
				"runner claimed %.1f us for a call that took at "
				"most %.1f us %s, %s '%s'", *claim / 1e3,
				*wall / 1e3, what, case_kind(c), c->id);
		else
			verdict(x, RS_INFRA_ERROR, "the baseline runner "
				"reported an impossible time (%.1f us, wall "
				"%.1f us)", *claim / 1e3, *wall / 1e3);
		return false;
	}
	return true;
}

struct pair_ctx {
	struct eval_ctx *x;
	const struct task_case *c;
	const struct case_layout *l;
	const struct input_pool *pool;
	void **stage;
	struct rng *r;
	int nwarm;		/* warm-up calls so far (per case) */
	int ntimed;		/* timed pairs so far (per case) */
};

/* Fresh inputs into both runners of a block, outputs poisoned. */
static void pair_stage(struct pair_ctx *p, struct block *bk, int pattern)
{
	const struct task *t = p->x->t;

	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_OUT)
			pool_draw(t, p->l, p->pool, a, p->r, p->stage[a]);
	stage_into(t, p->l, p->stage, bk->base, pattern);
	stage_into(t, p->l, p->stage, bk->cand, pattern);
}

static bool pair_check(struct pair_ctx *p, struct block *bk, int pattern,
		       const char *kind, int n)
{
	char what[96], prefix[200];

	snprintf(what, sizeof(what), "in %s call %d", kind, n);
	if (!inputs_intact(p->x, p->l, p->stage, bk->cand, what, p->c))
		return false;
	/* Candidate vs baseline: each within tolerance of the reference
	 * means within twice the tolerance of each other. */
	snprintf(prefix, sizeof(prefix), "output of %s call %d in %s '%s' "
		 "differs from baseline", kind, n, case_kind(p->c), p->c->id);
	return outputs_match(p->x, p->l, bk->cand, bk->base, 2.0, pattern,
			     NULL, RS_INCORRECT, prefix);
}

static bool warm_up(struct pair_ctx *p, struct block *bk)
{
	for (int i = 0; i < WARMUP_CALLS; i++) {
		int pattern = i & 1;
		char what[64];
		snprintf(what, sizeof(what), "in warm-up call %d", ++p->nwarm);
		pair_stage(p, bk, pattern);
		if (!call_checked(p->x, ROLE_BASE, bk->base, what, p->c) ||
		    !call_checked(p->x, ROLE_CAND, bk->cand, what, p->c) ||
		    !pair_check(p, bk, pattern, "warm-up", p->nwarm))
			return false;
	}
	return true;
}

static bool run_pair(struct pair_ctx *p, struct block *bk, int b,
		     struct case_timing *ct, struct samples *s)
{
	struct eval_ctx *x = p->x;
	int pattern = bk->pairs & 1;
	int64_t bc = 0, bw = 0, cc = 0, cw = 0;
	char what[64];

	uint64_t t0 = now_ns();
	pair_stage(p, bk, pattern);
	uint64_t t1 = now_ns();
	snprintf(what, sizeof(what), "in timed call %d", ++p->ntimed);
	/* Both runners are stopped between requests: whichever is timed,
	 * the other cannot run. */
	bool base_first = rng_next(p->r) & 1;
	for (int k = 0; k < 2; k++) {
		bool do_base = (k == 0) == base_first;
		bool ok = do_base ? time_one(x, ROLE_BASE, bk->base, what, p->c,
					     &bc, &bw)
				  : time_one(x, ROLE_CAND, bk->cand, what, p->c,
					     &cc, &cw);
		if (!ok)
			return false;
	}
	uint64_t t2 = now_ns();
	if (!pair_check(p, bk, pattern, "timed", p->ntimed))
		return false;
	struct gpu_sample bs = { .claim = bc, .wall = bw };
	struct gpu_sample cs = { .claim = cc, .wall = cw };
	trace_pair(x, p->c, b, "timed", p->ntimed, 1, base_first, &bs, &cs,
		   t1 - t0, now_ns() - t2);
	timing_add(ct, b, (double)bc / (double)cc);
	samples_add(s, (double)bc, (double)cc, (double)(bw - bc),
		    (double)(cw - cc));
	bk->pairs++;
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Three standard errors of the median pairwise difference cand[i] -
 * base[i] (the standard error from the median absolute deviation): what
 * noise alone can add to a difference of overheads, so a loaded machine
 * or a short (quick) evaluation widens the bound and a clean one keeps it
 * tight. */
static double overhead_noise_ns(const double *cand, const double *base, int n)
{
	double *d = xmalloc((size_t)n * sizeof(double));

	for (int i = 0; i < n; i++)
		d[i] = cand[i] - base[i];
	double dmed = stats_median(d, (size_t)n);
	for (int i = 0; i < n; i++)
		d[i] = fabs(d[i] - dmed);
	double mad = stats_median(d, (size_t)n);
	free(d);
	return 3.0 * 1.2533 * 1.4826 * mad / sqrt((double)n);
}

static double lower_quartile(const double *v, int n)
{
	double *c = xmalloc((size_t)n * sizeof(double)), q;

	memcpy(c, v, (size_t)n * sizeof(double));
	qsort(c, (size_t)n, sizeof(double), cmp_double);
	q = stats_quantile_sorted(c, (size_t)n, 0.25);
	free(c);
	return q;
}

/* A clock-check finding: the verdict when it is the second in this case
 * (clock_confirming), else only noted, so that the case is timed again.
 * A forger fails every time; a machine that was briefly crowded - one
 * runner kept waiting for a CPU through most of a case - rarely twice. */
static void clock_finding(struct eval_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void clock_finding(struct eval_ctx *x, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (x->clock_confirming) {
		verdict(x, RS_REJECTED, "%s (found again when the case was "
			"timed a second time with fresh runners)",
			strbuf_str(&sb));
	} else {
		x->clock_suspect = true;
		free(x->clock_finding);
		x->clock_finding = strbuf_detach(&sb);
	}
	strbuf_release(&sb);
}

/* A candidate whose claims sit further below the controller's clock than
 * the baseline's do (same protocol, same machine) is claiming time it did
 * not spend.  The overheads (wall - claim) are compared as lower
 * quartiles: a forged claim shifts every sample by what it hides, while a
 * loaded machine (preemption, another process on the core) only adds to
 * some samples, so the lower quartile keeps an honest candidate near the
 * baseline where the median did not (an A/A run on a 2-core VM running
 * seven other jobs showed medians of 641 and 737 us).  The bound adds
 * three standard errors of the pairwise difference to the fixed
 * max(50 us, 5% of the claim), so noise widens it and a clean machine
 * keeps it tight. */
static bool claims_consistent(struct eval_ctx *x, const struct task_case *c,
			      const struct samples *s)
{
	double bo = lower_quartile(s->base_ovh, s->n);
	double co = lower_quartile(s->cand_ovh, s->n);
	double cm = stats_median(s->cand_ns, (size_t)s->n);
	double bound = fmax(OVERHEAD_ABS_NS, OVERHEAD_REL * cm) +
		       overhead_noise_ns(s->cand_ovh, s->base_ovh, s->n);

	if (co - bo > bound) {
		clock_finding(x, "reported times inconsistent with the "
			      "controller's clock in %s '%s': the candidate's "
			      "calls took %.1f us longer by the controller's "
			      "clock than it claimed (lower quartile), the "
			      "baseline's %.1f us (allowed difference %.1f us)",
			      case_kind(c), c->id, co / 1e3, bo / 1e3,
			      bound / 1e3);
		return false;
	}
	return true;
}

/* A case's timing limits from the request: defaults for unset fields,
 * blocks within 1..MAX_BLOCKS; a quick (search) evaluation uses one block,
 * budget / quick_div capped at quick_cap seconds, and at most 5 pairs. */
struct case_budget {
	int nblocks, min_pairs, max_pairs;
	double budget_s;
};

static void case_budget_resolve(const struct timing_budget *tb, bool quick,
				double quick_div, double quick_cap,
				struct case_budget *cb)
{
	cb->nblocks = quick ? 1 : tb->blocks;
	cb->min_pairs = tb->min_pairs > 0 ? tb->min_pairs : 10;
	cb->max_pairs = tb->max_pairs > 0 ? tb->max_pairs : 400;
	cb->budget_s = tb->case_budget_s > 0 ? tb->case_budget_s : 2.0;
	if (cb->nblocks < 1)
		cb->nblocks = 1;
	if (cb->nblocks > MAX_BLOCKS)
		cb->nblocks = MAX_BLOCKS;
	if (quick) {
		cb->budget_s = fmin(cb->budget_s / quick_div, quick_cap);
		if (cb->min_pairs > 5)
			cb->min_pairs = 5;
	}
}

/* The adaptive stop: whether case ci's interval is already as narrow as
 * the config's target_ci. */
static bool case_precise_enough(struct eval_ctx *x, int ci,
				const struct case_timing *ct)
{
	struct interval iv;

	return timing_ci(ct, CI_ITERS_STOP, derive(x->req->seed, 3,
						  (uint64_t)ci, 0), &iv) == 0 &&
	       interval_rel_halfwidth(&iv) <= x->req->timing.target_ci;
}

/* A last exchange with the candidate runners of blocks [b0, b1): a reply
 * forged during the final timed call would otherwise still be waiting,
 * unread.  False (verdict set) when one does not answer. */
static bool cands_answer(struct eval_ctx *x, struct block *blocks, int b0,
			 int b1, const struct task_case *c)
{
	for (int b = b0; b < b1; b++) {
		enum runner_fail pf = runner_ping(blocks[b].cand);
		if (pf != RUNNER_OK) {
			runner_failed(x, ROLE_CAND, blocks[b].cand, pf,
				      "after its last timed call", c);
			return false;
		}
	}
	return true;
}

/* Case ci's result from its timed pairs: the speedup and its interval
 * over the blocks, and the median time per call of each side.  0, or -1
 * with a verdict when there is no timing data. */
static int case_timing_result(struct eval_ctx *x, int ci, double base_ms,
			      double cand_ms, int pairs, struct case_result *cr)
{
	const struct task_case *c = &x->t->cases[ci];
	const struct case_timing *ct = &x->timing[ci];
	struct interval iv;

	if (timing_ci(ct, CI_ITERS_FINAL, derive(x->req->seed, 4, (uint64_t)ci,
						 0), &iv) != 0) {
		verdict(x, RS_INFRA_ERROR, "no timing data for %s '%s'",
			case_kind(c), c->id);
		return -1;
	}
	cr->timed = true;
	cr->base_ms = base_ms;
	cr->cand_ms = cand_ms;
	cr->speedup = iv.point;
	cr->ci_lo = iv.lo;
	cr->ci_hi = iv.hi;
	cr->pairs = pairs;
	cr->blocks = ct->nblocks;
	return 0;
}

static int time_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	const struct timing_budget *tb = &x->req->timing;
	struct case_timing *ct = &x->timing[ci];
	struct case_layout l;
	struct input_pool pool;
	struct samples s = { 0 };
	struct block blocks[MAX_BLOCKS];
	struct rng r;
	struct errbuf e;
	struct case_budget cb;
	int rc = -1;

	case_budget_resolve(tb, x->req->quick, 4, 0.5, &cb);
	int nblocks = cb.nblocks, min_pairs = cb.min_pairs;
	int max_pairs = cb.max_pairs;
	double budget = cb.budget_s;
	memset(blocks, 0, sizeof(blocks));
	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	rng_seed(&r, derive(x->req->seed, 2, (uint64_t)ci, 0));
	pool_build(t, &l, &r, &pool);
	void **stage = stage_alloc(t, &l);
	struct pair_ctx p = { x, c, &l, &pool, stage, &r, 0, 0 };
	ct->nblocks = 0;

	/* Blocks alive at once: all of them unless memory says otherwise. */
	uint64_t per_block = 2 * ((uint64_t)l.shm_size + x->flush_bytes);
	int group = (int)(GROUP_MEMORY_BUDGET / (per_block ? per_block : 1));
	if (group < 1)
		group = 1;
	if (group > nblocks)
		group = nblocks;

	uint64_t start = now_ns();
	int total = 0;
	for (int g0 = 0; g0 < nblocks; g0 += group) {
		int g1 = g0 + group < nblocks ? g0 + group : nblocks;
		bool last_group = g1 == nblocks;
		uint64_t share_end =
			start + (uint64_t)(budget * 1e9 * g1 / nblocks);
		for (int b = g0; b < g1; b++) {
			if (!(blocks[b].base = spawn(x, ROLE_BASE, &l, c)) ||
			    !(blocks[b].cand = spawn(x, ROLE_CAND, &l, c)) ||
			    !warm_up(&p, &blocks[b]))
				goto out;
			ct->nblocks = b + 1;
		}
		for (int round = 1;; round++) {
			for (int b = g0; b < g1; b++)
				if (!run_pair(&p, &blocks[b], b, ct, &s))
					goto out;
			total += g1 - g0;
			if (blocks[g0].pairs < min_pairs)
				continue;
			if (now_ns() >= share_end || total >= max_pairs)
				break;
			if (last_group && round % 4 == 0 &&
			    case_precise_enough(x, ci, ct))
				break;
		}
		if (!cands_answer(x, blocks, g0, g1, c))
			goto out;
		for (int b = g0; b < g1; b++) {
			ctx_forget(x, blocks[b].base);
			ctx_forget(x, blocks[b].cand);
			blocks[b].base = blocks[b].cand = NULL;
		}
	}
	if (!claims_consistent(x, c, &s) ||
	    case_timing_result(x, ci, stats_median(s.base_ns, (size_t)s.n) / 1e6,
			       stats_median(s.cand_ns, (size_t)s.n) / 1e6, s.n,
			       cr) != 0)
		goto out;
	rc = 0;
out:
	for (int b = 0; b < MAX_BLOCKS; b++) {
		if (blocks[b].base)
			ctx_forget(x, blocks[b].base);
		if (blocks[b].cand)
			ctx_forget(x, blocks[b].cand);
	}
	if (rc && !cr->error) {
		const char *m = x->res->speedup_calculation_error_message
					? x->res->speedup_calculation_error_message
					: x->res->correctness_error_message;
		if (m)
			cr->error = xstrdup(m);
	}
	samples_release(&s);
	stage_free(stage);
	pool_release(&pool);
	layout_release(&l);
	return rc;
}

/* ---- timing on a GPU -------------------------------------------------- */

/*
 * The host loop above, adapted (docs/gpu.md): per pair and per runner,
 * `flush` copies the pair's inputs (and poisoned outputs) to the device
 * and flushes L2, `time n` runs a batch of n calls between two events on
 * the runner's stream and waits for the whole device, `fetch` copies every
 * buffer back.  The controller's clock covers `time` and `fetch`: a claim
 * can be forged, the moment correct outputs arrive cannot.
 */

#define GPU_WARMUP_CALLS 3

struct gsamples {
	double *v[7];		/* base_ns, cand_ns, base_ovh, cand_ovh,
				 * base_drain, cand_drain, base_fetch */
	int n, cap;
};
enum { GS_BASE, GS_CAND, GS_BOVH, GS_COVH, GS_BDRAIN, GS_CDRAIN, GS_BFETCH };

static void gsamples_add(struct gsamples *s, const struct gpu_sample *b,
			 const struct gpu_sample *c)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 256;
		for (int i = 0; i < 7; i++)
			s->v[i] = xrealloc(s->v[i],
					   (size_t)s->cap * sizeof(double));
	}
	s->v[GS_BASE][s->n] = (double)b->claim;
	s->v[GS_CAND][s->n] = (double)c->claim;
	s->v[GS_BOVH][s->n] = (double)(b->wall + b->fetch - b->claim);
	s->v[GS_COVH][s->n] = (double)(c->wall + c->fetch - c->claim);
	s->v[GS_BDRAIN][s->n] = (double)b->drain;
	s->v[GS_CDRAIN][s->n] = (double)c->drain;
	s->v[GS_BFETCH][s->n] = (double)b->fetch;
	s->n++;
}

static void gsamples_release(struct gsamples *s)
{
	for (int i = 0; i < 7; i++)
		free(s->v[i]);
	memset(s, 0, sizeof(*s));
}

static double gmedian(const struct gsamples *s, int which)
{
	return stats_median(s->v[which], (size_t)s->n);
}

/* The lower quartile: a forger's shift moves every quantile alike, while
 * a busy machine's occasional delays inflate the upper ones. */
static double gquartile(const struct gsamples *s, int which)
{
	double *v = xmalloc((size_t)s->n * sizeof(double)), q;

	memcpy(v, s->v[which], (size_t)s->n * sizeof(double));
	qsort(v, (size_t)s->n, sizeof(double), cmp_double);
	q = stats_quantile_sorted(v, (size_t)s->n, 0.25);
	free(v);
	return q;
}

/* Stages (inputs copied, outputs poisoned on the device as spec says),
 * flushes, times a batch of n and fetches the arguments in mask, on one
 * runner. */
static bool time_one_gpu(struct eval_ctx *x, enum role role, struct runner *r,
			 int n, const char *spec, uint32_t mask,
			 const char *what, const struct task_case *c,
			 struct gpu_sample *o)
{
	int rc = 0;
	enum runner_fail f = runner_flush_spec(r, x->flush_bytes, spec);

	memset(o, 0, sizeof(*o));
	if (f == RUNNER_OK)
		f = runner_time_gpu(r, n, &rc, &o->claim, &o->drain, &o->wall);
	if (f == RUNNER_OK)
		f = runner_fetch(r, mask, &o->fetch);
	if (!call_outcome_ok(x, role, r, f, rc, what, c))
		return false;
	if (role != ROLE_CAND)
		note_trusted(x, r);
	if (o->claim <= 0 || o->claim > o->wall + CLAIM_SLACK_NS ||
	    o->drain < 0 || o->drain > o->wall) {
		if (role == ROLE_CAND)
			verdict(x, RS_REJECTED, "reported times inconsistent "
				"with the controller's clock: the candidate "
				"runner claimed %.1f us (and %.1f us waiting for "
				"the device) for a batch that took at most %.1f "
				"us %s, %s '%s'", o->claim / 1e3, o->drain / 1e3,
				o->wall / 1e3, what, case_kind(c), c->id);
		else
			verdict(x, RS_INFRA_ERROR, "the baseline runner "
				"reported an impossible time (%.1f us, wall "
				"%.1f us)", o->claim / 1e3, o->wall / 1e3);
		return false;
	}
	return true;
}

/* The flush spec of a pair: inputs drawn on the device from the pair's
 * seed (engine/runner/gpu/gpu_gen.h: the same values in both runners, every
 * set its own, none through the host), outputs poisoned with pattern. */
static char *gpu_flush_spec(const struct task *t, const struct case_layout *l,
			    int pattern, uint64_t seed)
{
	static const char dist[] = { [INIT_NORMAL] = 'n', [INIT_UNIFORM] = 'u',
				     [INIT_RANDINT] = 'r', [INIT_ONES] = 'o' };
	struct strbuf sb = STRBUF_INIT;

	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		uint64_t bits;
		if (a)
			strbuf_addch(&sb, ' ');
		if (ta->io != IO_OUT) {
			strbuf_addf(&sb, "g:%c:%.17g:%.17g:%lld:%lld:%llx",
				    dist[ta->init.dist], ta->init.a, ta->init.b,
				    (long long)l->lo[a], (long long)l->hi[a],
				    (unsigned long long)seed);
			continue;
		}
		int w = poison_bits(ta->dtype, pattern, &bits);
		strbuf_addf(&sb, "%d:%llx", w, (unsigned long long)bits);
	}
	return strbuf_detach(&sb);
}

/* Every set of the candidate against the baseline's: its inputs as the
 * (trusted) baseline left them, its outputs within twice the tolerance. */
/* A quiet first pass over a batch's sets, several at once: whether every
 * set passes (outputs within tolerance, inputs unchanged when fetched).
 * Only a failure needs the sequential pass that words the verdict. */
struct sets_check {
	const struct eval_ctx *x;
	const struct case_layout *l;
	const struct block *bk;
	size_t stride;
	int pattern;
	bool inputs;
	bool bad;		/* false -> true only, atomically */
};

static void sets_check_range(void *ctx, int64_t k0, int64_t n)
{
	struct sets_check *sc = ctx;
	const struct task *t = sc->x->t;

	for (int64_t k = k0;
	     k < k0 + n && !__atomic_load_n(&sc->bad, __ATOMIC_RELAXED); k++) {
		size_t off = (size_t)k * sc->stride;
		for (int a = 0; a < t->nargs; a++) {
			const struct task_arg *ta = &t->args[a];
			const unsigned char *got = sc->bk->cand->shm + off +
						   sc->l->offset[a];
			const unsigned char *want = sc->bk->base->shm + off +
						    sc->l->offset[a];
			struct cmp_result cr;
			if (ta->io == IO_IN) {
				if (sc->inputs &&
				    memcmp(got, want, sc->l->bytes[a]) != 0)
					__atomic_store_n(&sc->bad, true,
							 __ATOMIC_RELAXED);
				continue;
			}
			compare_arrays(ta->dtype, got, want, sc->l->numel[a],
				       t->atol * 2.0, t->rtol * 2.0,
				       ta->io == IO_OUT ? sc->pattern : -1, &cr);
			if (!cr.ok)
				__atomic_store_n(&sc->bad, true,
						 __ATOMIC_RELAXED);
		}
	}
}

static bool gpu_pair_check(struct pair_ctx *p, struct block *bk, int n,
			   size_t stride, int pattern, bool inputs,
			   const char *kind, int num)
{
	char what[96], prefix[200];
	struct sets_check sc = { p->x, p->l, bk, stride, pattern, inputs,
				 false };

	/* Large sets are compared by several threads each already. */
	if (n > 1 && p->l->shm_size < ((size_t)16 << 20)) {
		par_for(n, 1, sets_check_range, &sc);
		if (!sc.bad)
			return true;
	}

	snprintf(what, sizeof(what), "in %s call %d", kind, num);
	snprintf(prefix, sizeof(prefix), "output of %s call %d in %s '%s' "
		 "differs from baseline", kind, num, case_kind(p->c), p->c->id);
	for (int k = 0; k < n; k++) {
		size_t off = (size_t)k * stride;
		void *base_in[TASK_MAX_ARGS];
		for (int a = 0; a < p->x->t->nargs; a++)
			base_in[a] = bk->base->shm + off + p->l->offset[a];
		if ((inputs && !inputs_intact_at(p->x, p->l, base_in, bk->cand,
						 off, what, p->c)) ||
		    !outputs_match_at(p->x, p->l, bk->cand, bk->base, off, 2.0,
				      pattern, NULL, RS_INCORRECT, prefix))
			return false;
	}
	return true;
}

static bool gpu_pair(struct pair_ctx *p, struct block *bk, int n,
		     size_t stride, const char *kind, int num,
		     struct gpu_sample *bs, struct gpu_sample *cs)
{
	struct eval_ctx *x = p->x;
	const struct task *t = x->t;
	int pattern = num & 1;
	uint32_t mask = 0;
	char what[64];
	bool ok = true;

	/* Outputs always come back; inputs on warm-up calls and on a random
	 * quarter of the timed ones (a kernel that writes its inputs cannot
	 * know which), to spare the copy. */
	bool inputs = strcmp(kind, "timed") != 0 || (rng_next(p->r) & 3) == 0;
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].io != IO_IN || inputs)
			mask |= 1u << a;
	char *spec = gpu_flush_spec(t, p->l, pattern, rng_next(p->r));
	snprintf(what, sizeof(what), "in %s call %d", kind, num);
	/* Both runners are stopped between requests: whichever is timed,
	 * the other cannot launch anything. */
	bool base_first = rng_next(p->r) & 1;
	for (int k = 0; k < 2 && ok; k++) {
		bool do_base = (k == 0) == base_first;
		ok = do_base ? time_one_gpu(x, ROLE_BASE, bk->base, n, spec, mask,
					    what, p->c, bs)
			     : time_one_gpu(x, ROLE_CAND, bk->cand, n, spec, mask,
					    what, p->c, cs);
	}
	free(spec);
	uint64_t t2 = now_ns();
	ok = ok && gpu_pair_check(p, bk, n, stride, pattern, inputs, kind, num);
	/* No staging on the host: the inputs are drawn on the device. */
	if (ok)
		trace_pair(x, p->c, bk->index, kind, num, n, base_first, bs,
			   cs, 0, now_ns() - t2);
	return ok;
}

/* The case's timing claims against everything the controller knows; the
 * most specific finding first (work left on the device also shows as a
 * gap between claim and clock). */
static bool gpu_claims_ok(struct eval_ctx *x, const struct task_case *c,
			  const struct gsamples *s, int n)
{
	double bo = gquartile(s, GS_BOVH), co = gquartile(s, GS_COVH);
	double cm = gmedian(s, GS_CAND);
	double bd = gquartile(s, GS_BDRAIN), cd = gquartile(s, GS_CDRAIN);
	double allowed = claims_allowed_excess(cm, gmedian(s, GS_BFETCH)) +
			 overhead_noise_ns(s->v[GS_COVH], s->v[GS_BOVH], s->n);
	int64_t bytes = 0, flops = 0;
	struct errbuf e;

	if (cd > drain_allowed_ns(bd, cm)) {
		verdict(x, RS_REJECTED, "work left running on the device after "
			"%s returned in %s '%s': once the runner's stream had "
			"finished, waiting for the whole device took %.1f us "
			"(lower quartile; the baseline's %.1f us); a kernel must "
			"enqueue all its work on the stream it is given",
			x->t->entry ? x->t->entry : "arena_launch", case_kind(c),
			c->id, cd / 1e3, bd / 1e3);
		return false;
	}
	if (co - bo > allowed) {
		clock_finding(x, "reported times inconsistent with the "
			      "controller's clock in %s '%s': the candidate's "
			      "batches took %.1f us longer by the controller's "
			      "clock (timed call and copy back; lower quartile) "
			      "than it claimed, the baseline's %.1f us (allowed "
			      "difference %.1f us)", case_kind(c), c->id,
			      co / 1e3, bo / 1e3, allowed / 1e3);
		return false;
	}
	errbuf_init(&e);
	if (task_case_cost(x->t, c, &bytes, &flops, &e) == 0) {
		double floor = gpu_roofline_floor_ns(bytes, flops, &x->gi);
		double per_call = cm / n;
		if (floor > 0 && per_call < floor) {
			verdict(x, RS_REJECTED, "impossible time in %s '%s': the "
				"candidate claimed %.2f us per call, below the "
				"roofline floor of %.2f us (%lld bytes at %.2f "
				"TB/s x %.2f, %lld flops at %.1f TFLOP/s x %.0f, "
				"measured on this device)", case_kind(c), c->id,
				per_call / 1e3, floor / 1e3, (long long)bytes,
				x->gi.bandwidth_bps / 1e12, GPU_ROOFLINE_BW_MARGIN,
				(long long)flops, x->gi.fma_flops / 1e12,
				GPU_ROOFLINE_FLOPS_MARGIN);
			return false;
		}
	}
	return true;
}

/* Takes block b's runners for this case: block 0 is the correctness
 * pair, kept from the correctness phase; the others are kept across
 * cases.  Missing ones start all at once. */
static bool gpu_blocks_start(struct eval_ctx *x, struct block *blocks,
			     int nblocks, const struct case_layout *l,
			     const struct task_case *c)
{
	struct runner *fresh[MAX_BLOCKS][2];

	memset(fresh, 0, sizeof(fresh));
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = i ? ROLE_CAND : ROLE_BASE;
			if (x->tblk[b][i])
				continue;
			if (!(fresh[b][i] = launch(x, role, x->shm_size, c)))
				return false;
		}
	if (!(blocks[0].base = acquire(x, ROLE_BASE, l, c)) ||
	    !(blocks[0].cand = acquire(x, ROLE_CAND, l, c)))
		return false;
	for (int b = 1; b < nblocks; b++)
		for (int i = 0; i < 2; i++) {
			enum role role = i ? ROLE_CAND : ROLE_BASE;
			struct runner *r = x->tblk[b][i];
			x->tblk[b][i] = NULL;
			if (!r) {
				r = fresh[b][i];
				fresh[b][i] = NULL;
				if (!await_ready(x, role, r, c))
					return false;
			}
			if (!set_layout(x, role, r, l, c))
				return false;
			if (i)
				blocks[b].cand = r;
			else
				blocks[b].base = r;
		}
	return true;
}

static int time_case_gpu(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	const struct timing_budget *tb = &x->req->timing;
	struct case_timing *ct = &x->timing[ci];
	struct case_layout l;
	struct gsamples s = { 0 };
	struct block blocks[MAX_BLOCKS];
	struct rng r;
	struct errbuf e;
	struct case_budget cb;
	double *warm_b = NULL, *warm_c = NULL;
	int nwarm = 0, n = 1, rc = -1;
	bool ok = false;

	/* A quick search step: a rough answer fast (docs/gpu.md). */
	case_budget_resolve(tb, x->req->quick, 8, 0.15, &cb);
	int nblocks = cb.nblocks, min_pairs = cb.min_pairs;
	int max_pairs = cb.max_pairs;
	double budget = cb.budget_s;
	memset(blocks, 0, sizeof(blocks));
	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	size_t stride = l.shm_size;
	rng_seed(&r, derive(x->req->seed, 2, (uint64_t)ci, 0));
	/* Inputs are drawn on the device (gpu_flush_spec): no pool. */
	struct pair_ctx p = { x, c, &l, NULL, NULL, &r, 0, 0 };
	ct->nblocks = 0;

	for (int b = 0; b < MAX_BLOCKS; b++)
		blocks[b].index = b;
	if (!gpu_blocks_start(x, blocks, nblocks, &l, c))
		goto out;
	ct->nblocks = nblocks;

	/* Warm-up, which also says how long one call takes. */
	int nwarm_calls = x->req->quick ? 1 : GPU_WARMUP_CALLS;
	warm_b = xcalloc((size_t)(nblocks * GPU_WARMUP_CALLS), sizeof(double));
	warm_c = xcalloc((size_t)(nblocks * GPU_WARMUP_CALLS), sizeof(double));
	for (int b = 0; b < nblocks; b++)
		for (int i = 0; i < nwarm_calls; i++) {
			struct gpu_sample bs, cs;
			if (!gpu_pair(&p, &blocks[b], 1, stride, "warm-up",
				      ++p.nwarm, &bs, &cs))
				goto out;
			warm_b[nwarm] = (double)bs.claim;
			warm_c[nwarm] = (double)cs.claim;
			nwarm++;
		}

	/* Calls too short to time alone run in batches, each call on its
	 * own input set (no call can reuse another's work). */
	int max_sets = (int)(x->shm_size / stride);
	if (max_sets > RP_MAX_SETS)
		max_sets = RP_MAX_SETS;
	n = gpu_batch_size(fmin(stats_median(warm_b, (size_t)nwarm),
				stats_median(warm_c, (size_t)nwarm)),
			   stride, max_sets,
			   x->req->quick ? GPU_QUICK_BATCH_BYTES
					 : GPU_BATCH_MAX_BYTES);
	if (n > 1) {
		for (int b = 0; b < nblocks; b++) {
			enum runner_fail f = runner_sets(blocks[b].base, n, stride);
			if (f != RUNNER_OK) {
				runner_failed(x, ROLE_BASE, blocks[b].base, f,
					      "while allocating batch buffers", c);
				goto out;
			}
			f = runner_sets(blocks[b].cand, n, stride);
			if (f != RUNNER_OK) {
				runner_failed(x, ROLE_CAND, blocks[b].cand, f,
					      "while allocating batch buffers", c);
				goto out;
			}
		}
		strbuf_addf(&x->method_notes, "%s%s '%s' x%d",
			    x->method_notes.len ? ", " : "", case_kind(c), c->id,
			    n);
	}

	uint64_t start = now_ns(), end = start + (uint64_t)(budget * 1e9);
	int total = 0;
	for (int round = 1;; round++) {
		for (int b = 0; b < nblocks; b++) {
			struct gpu_sample bs, cs;
			if (!gpu_pair(&p, &blocks[b], n, stride, "timed",
				      ++p.ntimed, &bs, &cs))
				goto out;
			timing_add(ct, b, (double)bs.claim / (double)cs.claim);
			gsamples_add(&s, &bs, &cs);
			blocks[b].pairs++;
		}
		total += nblocks;
		if (blocks[0].pairs < min_pairs)
			continue;
		if (now_ns() >= end || total >= max_pairs)
			break;
		if (round % 4 == 0 && case_precise_enough(x, ci, ct))
			break;
	}
	if (!cands_answer(x, blocks, 0, nblocks, c) ||
	    !gpu_claims_ok(x, c, &s, n) ||
	    case_timing_result(x, ci, gmedian(&s, GS_BASE) / n / 1e6,
			       gmedian(&s, GS_CAND) / n / 1e6, s.n, cr) != 0)
		goto out;
	ok = true;
	rc = 0;
out:
	for (int b = 0; b < MAX_BLOCKS; b++) {
		struct runner **kb = b ? &x->tblk[b][0] : &x->keep[ROLE_BASE];
		struct runner **kc = b ? &x->tblk[b][1] : &x->keep[ROLE_CAND];
		release(x, kb, blocks[b].base, ok);
		release(x, kc, blocks[b].cand, ok);
	}
	if (rc && !cr->error) {
		const char *m = x->res->speedup_calculation_error_message
					? x->res->speedup_calculation_error_message
					: x->res->correctness_error_message;
		if (m)
			cr->error = xstrdup(m);
	}
	free(warm_b);
	free(warm_c);
	gsamples_release(&s);
	layout_release(&l);
	return rc;
}

/* Takes <lock_dir>/<device>.lock (flock, blocking) in mode (LOCK_SH or
 * LOCK_EX), opening it on first use and keeping it in x->lockfd until
 * ctx_release.  Host: only timing takes it (exclusively).  GPU: every
 * phase that runs anything on the device holds it shared, timing holds
 * it exclusively, so no correctness run of another evaluation shares the
 * device with a measurement.  A GPU's lock is named by its PCI address:
 * cuda:0 in two processes with different CUDA_VISIBLE_DEVICES are
 * different devices.  flock's conversion from shared to exclusive is not
 * atomic (it releases first), which is what keeps two evaluations that
 * both hold it shared from waiting for each other. */
static int lock_device(struct eval_ctx *x, int mode, bool nonblock)
{
	const char *dir = x->req->lock_dir;
	char *owned = NULL, *path;
	char dev[96];
	int rc;

	if (x->lockfd >= 0 && x->lockmode == mode)
		return 0;
	if (x->lockfd < 0) {
		if (!dir)
			dir = owned = path_join(x->req->cache_dir, "locks");
		if ((rc = mkdir_p(dir, x->err))) {
			free(owned);
			return rc;
		}
		if (x->gpu && x->gi.pci[0])
			snprintf(dev, sizeof(dev), "gpu-%s", x->gi.pci);
		else
			snprintf(dev, sizeof(dev), "%s",
				 x->req->device ? x->req->device : "host");
		for (char *q = dev; *q; q++)
			if (*q == '/' || *q == '.' || *q == ':')
				*q = '_';
		path = xasprintf("%s/%s.lock", dir, dev);
		free(owned);
		x->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (x->lockfd < 0) {
			rc = errf_code(x->err, errno, "%s: %s", path,
				       strerror(errno));
			free(path);
			return rc;
		}
		free(path);
	}
	while (flock(x->lockfd, mode | (nonblock ? LOCK_NB : 0)) != 0) {
		if (errno == EWOULDBLOCK && nonblock)
			return -EWOULDBLOCK;
		if (errno != EINTR)
			return errf_code(x->err, errno, "cannot lock the device: "
					 "%s", strerror(errno));
	}
	x->lockmode = mode;
	return 0;
}

/* lock_device with its failure turned into a verdict. */
static bool lock_or_verdict(struct eval_ctx *x, int mode)
{
	struct errbuf *saved = x->err;
	struct errbuf le;
	int rc;

	errbuf_init(&le);
	x->err = &le;
	rc = lock_device(x, mode, false);
	x->err = saved;
	if (rc)
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&le));
	return rc == 0;
}

/* ---- building --------------------------------------------------------- */

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
		.role = role_names[role],
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
	if (j->bo.message) {
		if (role == ROLE_CAND) {
			x->res->pass_compilation = false;
			verdict(x, RS_COMPILE_ERROR, "%s", j->bo.message);
		} else {
			verdict(x, RS_INFRA_ERROR, "the task's %s does not "
				"compile: %s", role_names[role], j->bo.message);
		}
		build_out_release(&j->bo);
		return 0;
	}
	x->so[role] = j->bo.so_path;
	j->bo.so_path = NULL;
	build_out_release(&j->bo);
	trace_mark(x, "%s built", role_names[role]);
	return 0;
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

/* The task's baseline.files (docs/tasks.md), read as if they were the
 * editable files they stand for.  0 with *out filled, -1 with a verdict
 * set when they cannot be read. */
static int task_baseline_sources(struct eval_ctx *x, struct source_set *out)
{
	const struct task *t = x->t;
	struct errbuf e;

	errbuf_init(&e);
	if (sources_read(t->dir, &t->baseline_files, out, &e) != 0) {
		verdict(x, RS_INFRA_ERROR, "the task's baseline cannot be read: "
			"%s", errbuf_str(&e));
		return -1;
	}
	for (int i = 0; i < out->n && (size_t)i < t->editable.n; i++) {
		if (!out->data[i]) {
			verdict(x, RS_INFRA_ERROR, "the task's baseline file %s is "
				"missing", t->baseline_files.v[i]);
			sources_release(out);
			return -1;
		}
		free(out->path[i]);
		out->path[i] = xstrdup(t->editable.v[i]);
	}
	return 0;
}

/* Timing blocks of this evaluation (block 0 is the correctness pair). */
static int timing_blocks(const struct eval_ctx *x)
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
	if (!x->gpu || lock_device(x, LOCK_SH, true) != 0)
		return;
	for (int role = 0; role < NROLES && !x->decided; role++) {
		if (!role_gpu(x, (enum role)role))
			continue;
		if ((x->keep[role] = launch(x, (enum role)role, x->shm_size,
					    NULL)))
			x->keep_pending[role] = true;
	}
	if (x->req->skip_timing)
		return;
	for (int b = 1; b < timing_blocks(x) && !x->decided; b++)
		for (int i = 0; i < 2; i++)
			x->tblk[b][i] = launch(x, i ? ROLE_CAND : ROLE_BASE,
					       x->shm_size, NULL);
}

/* Finishes the start of a prelaunched runner: hello, then its kernel.
 * false (verdict set, runner forgotten) on failure. */
static bool finish_start(struct eval_ctx *x, enum role role, struct runner *r)
{
	enum runner_fail f;

	if (!await_ready(x, role, r, NULL))
		return false;
	if (!r->deferred)
		return true;
	f = runner_load(r, x->so[role]);
	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, "while loading its kernel", NULL);
		ctx_forget(x, r);
		return false;
	}
	return true;
}

/* Every runner of the correctness phase started and ready (and the
 * prelaunched timing runners given their kernels). */
static void start_correctness_runners(struct eval_ctx *x)
{
	if (!x->gpu || x->decided)
		return;
	if (!lock_or_verdict(x, LOCK_SH))
		return;
	/* A baseline that is the host reference does not run on the
	 * device: prelaunched baseline runners have nothing to run. */
	if (x->baseline_is_reference || x->no_gpu_baseline) {
		for (int b = 0; b < MAX_BLOCKS; b++) {
			struct runner **slot = b ? &x->tblk[b][0]
						 : &x->keep[ROLE_BASE];
			if (*slot && (*slot)->gpu && x->lang[ROLE_BASE] == LANG_C) {
				ctx_forget(x, *slot);
				*slot = NULL;
			}
		}
		x->keep_pending[ROLE_BASE] = false;
	}
	for (int role = 0; role < NROLES && !x->decided; role++)
		if (!x->keep[role] &&
		    !(role == ROLE_BASE && x->baseline_is_reference) &&
		    (x->keep[role] = launch(x, (enum role)role, x->shm_size,
					    NULL)))
			x->keep_pending[role] = true;
	for (int role = 0; role < NROLES; role++) {
		struct runner *r = x->keep[role];
		if (!r || !x->keep_pending[role])
			continue;
		x->keep_pending[role] = false;
		x->keep[role] = NULL;
		if (!x->decided && finish_start(x, (enum role)role, r))
			x->keep[role] = r;
	}
	for (int b = 1; b < MAX_BLOCKS; b++)
		for (int i = 0; i < 2; i++) {
			struct runner *r = x->tblk[b][i];
			if (!r || !r->deferred)
				continue;
			x->tblk[b][i] = NULL;
			if (!x->decided &&
			    finish_start(x, i ? ROLE_CAND : ROLE_BASE, r))
				x->tblk[b][i] = r;
		}
}

static int build_all(struct eval_ctx *x, const struct source_set *cand_src)
{
	const struct task *t = x->t;
	struct source_set src;
	struct strvec ref_files = STRVEC_INIT;
	struct errbuf e;
	int rc;

	/* Reference: its file from the task directory. */
	errbuf_init(&e);
	strvec_push(&ref_files, t->reference_file);
	if (sources_read(t->dir, &ref_files, &src, &e) != 0 || !src.data[0]) {
		verdict(x, RS_INFRA_ERROR, "the task's reference %s cannot be "
			"read: %s", t->reference_file,
			e.set ? errbuf_str(&e) : "missing");
		if (src.n)
			sources_release(&src);
		strvec_release(&ref_files);
		return 0;
	}
	prelaunch_gpu(x);
	rc = build_role(x, ROLE_REF, &src, &ref_files, t->dir, NULL);
	sources_release(&src);
	strvec_release(&ref_files);
	if (rc || x->decided)
		return rc;

	/* Baseline: the frozen copy when there is one, else the task's
	 * baseline.files (under the editable names), else its editable
	 * files.  An unimplemented task without baseline files (the schema
	 * requires them; this is for callers of eval_run that bypass it)
	 * times against its reference, which for a GPU task with a host
	 * reference means no timing. */
	const char *bdir = x->req->baseline_dir;
	int have = 0;
	if (bdir) {
		errbuf_init(&e);
		if (sources_read(bdir, &t->editable, &src, &e) != 0) {
			verdict(x, RS_INFRA_ERROR, "the baseline sources in %s "
				"cannot be read: %s", bdir, errbuf_str(&e));
			return 0;
		}
		have = 1;
	} else if (t->baseline_files.n) {
		if (task_baseline_sources(x, &src) != 0)
			return 0;
		have = 1;
	} else if (t->initial_state != TASK_UNIMPLEMENTED) {
		errbuf_init(&e);
		if (sources_read(t->dir, &t->editable, &src, &e) != 0) {
			verdict(x, RS_INFRA_ERROR, "the baseline sources in %s "
				"cannot be read: %s", t->dir, errbuf_str(&e));
			return 0;
		}
		have = 1;
	}
	if (have) {
		rc = build_role(x, ROLE_BASE, &src, &t->editable, t->dir, NULL);
		sources_release(&src);
		if (rc || x->decided)
			return rc;
	} else {
		x->so[ROLE_BASE] = xstrdup(x->so[ROLE_REF]);
		x->baseline_is_reference = true;
		x->lang[ROLE_BASE] = x->lang[ROLE_REF];
		x->no_gpu_baseline = x->gpu && x->lang[ROLE_REF] == LANG_C;
	}

	/* Candidate: its snapshot only, no -I into its workspace.  A GPU
	 * compiler takes a second or two: a host reference runs ahead
	 * meanwhile, in this thread (the compiler's touches only its job). */
	struct build_job job;
	pthread_t th;
	build_prepare(x, ROLE_CAND, cand_src, &t->editable, NULL,
		      x->req->defines, &job);
	bool ahead = x->gpu && !role_gpu(x, ROLE_REF) &&
		     pthread_create(&th, NULL, build_run, &job) == 0;
	if (ahead) {
		reference_ahead(x);
		pthread_join(th, NULL);
	} else {
		build_run(&job);
	}
	rc = build_finish(&job);
	if (rc == 0 && !x->decided) {
		start_correctness_runners(x);
		trace_mark(x, "runners ready");
	}
	return rc;
}

/* ---- the evaluation --------------------------------------------------- */

static void ctx_release(struct eval_ctx *x)
{
	/* Every runner is told to die first and reaped after: a GPU
	 * runner's exit waits for the driver to tear its context down, and
	 * those teardowns then overlap instead of adding up. */
	for (int i = 0; i < x->nlive; i++)
		runner_kill(x->live[i]);
	while (x->nlive > 0)
		ctx_forget(x, x->live[x->nlive - 1]);
	for (int i = 0; i < NROLES; i++) {
		free(x->so[i]);
		if (x->logfd[i] >= 0)
			close(x->logfd[i]);
	}
	if (x->trace)
		fclose(x->trace);
	ahead_release(x);
	if (x->timing) {
		for (int i = 0; i < x->t->ncases; i++)
			timing_release(&x->timing[i]);
		free(x->timing);
	}
	if (x->scratch)
		rm_rf(x->scratch);
	free(x->scratch);
	free(x->log_dir);
	if (x->lockfd >= 0)
		close(x->lockfd);
	strbuf_release(&x->method_notes);
	free(x->roofline_note);
	free(x->clock_finding);
}

/* Keeps other processes of the same user - a candidate runner above all -
 * out of this process's /proc files: its memory, its descriptors (the
 * runners' shared memory) and its environment.  Without Yama (as on many
 * VMs) any same-user process may otherwise read /proc/<controller>/mem.
 * Not under ASan: LeakSanitizer needs to ptrace its own process. */
static void harden_controller(void)
{
#if !defined(__SANITIZE_ADDRESS__)
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
}

static char *host_name(void)
{
	struct utsname u;

	return uname(&u) == 0 ? xstrdup(u.nodename) : xstrdup("unknown");
}

static void fill_identity(struct eval_ctx *x, const char *device)
{
	const struct eval_request *req = x->req;
	struct task_result *res = x->res;
	char ts[32];

	set_str(&res->task_name, x->t->id);
	res->seed = req->seed;
	free(res->device);
	/* A GPU result names the model: runs on different GPUs are not
	 * comparable, and `arena compare` says so when the names differ. */
	res->device = x->gpu ? xasprintf("%s %s (%s)", device, x->gi.name,
					 x->gi.arch)
			     : xstrdup(device);
	free(res->host);
	res->host = host_name();
	free(res->compiler);
	res->compiler = x->gpu ? compile_tool_id(x->t->language, x->dev.kind)
			       : compile_compiler_id();
	set_str(&res->evaluator_version, ARENA_EVALUATOR_VERSION);
	time_stamp_iso(ts, now_wall());
	set_str(&res->evaluated_at, ts);
	set_str(&res->benchmark_method, x->gpu ? GPU_METHOD
					       : "host_clock_llc_flush");
	res->noise_floor = 0.01;
	strvec_release(&res->defines);
	for (size_t i = 0; req->defines && i < req->defines->n; i++)
		strvec_push(&res->defines, req->defines->v[i]);
	res->status = RS_NOT_EVALUATED;
	res->pass_compilation = false;
	res->pass_correctness = false;
}

static int open_logs(struct eval_ctx *x)
{
	static const char *const names[NROLES] = {
		"runner-reference.log", "runner-baseline.log",
		"runner-candidate.log"
	};

	char *tp = path_join(x->log_dir, "timing.tsv");
	x->trace = fopen(tp, "we");
	free(tp);
	if (x->trace)
		fputs("case\tblock\tkind\tnum\tbatch\tbase_first\t"
		      "base_claim_ns\tcand_claim_ns\tbase_wall_ns\t"
		      "cand_wall_ns\tbase_drain_ns\tcand_drain_ns\t"
		      "base_fetch_ns\tcand_fetch_ns\tstage_ns\tcheck_ns\n",
		      x->trace);
	for (int i = 0; i < NROLES; i++) {
		char *p = path_join(x->log_dir, names[i]);
		x->logfd[i] = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
					      O_CLOEXEC, 0644);
		if (x->logfd[i] < 0) {
			int rc = errf_code(x->err, errno, "%s: %s", p,
					   strerror(errno));
			free(p);
			return rc;
		}
		free(p);
	}
	return 0;
}

/* Task-level numbers from the timed cases. */
static void aggregate(struct eval_ctx *x)
{
	const struct task *t = x->t;
	struct task_result *res = x->res;
	struct ratio_blocks rbs[TASK_MAX_CASES];
	const double *blk[TASK_MAX_CASES][MAX_BLOCKS];
	double sp[TASK_MAX_CASES], ho[TASK_MAX_CASES];
	double bsum = 0, csum = 0;
	int nv = 0, nh = 0, pairs = 0;

	for (int k = 0; k < res->ncases; k++) {
		struct case_result *cr = &res->cases[k];
		const struct task_case *c = task_find_case(t, cr->id);
		if (!c || !cr->timed)
			continue;
		int ci = (int)(c - t->cases);
		if (cr->held_out) {
			ho[nh++] = cr->speedup;
			continue;
		}
		struct case_timing *ct = &x->timing[ci];
		for (int b = 0; b < ct->nblocks; b++)
			blk[nv][b] = ct->ratios[b];
		rbs[nv].nblocks = ct->nblocks;
		rbs[nv].blocks = blk[nv];
		rbs[nv].sizes = ct->sizes;
		sp[nv] = cr->speedup;
		bsum += cr->base_ms;
		csum += cr->cand_ms;
		pairs += cr->pairs;
		nv++;
	}
	res->valid_baseline_cases = nv;
	res->valid_optimized_cases = nv;
	res->pairs = pairs;
	if (nv > 0) {
		struct interval iv;
		if (stats_geomean_ci(rbs, nv, CI_ITERS_FINAL, 0.05,
				     derive(x->req->seed, 5, 0, 0), &iv) == 0) {
			res->speedup_ratio = iv.point;
			res->speedup_ci_lo = iv.lo;
			res->speedup_ci_hi = iv.hi;
		}
		res->speedup_arith_mean = stats_mean(sp, (size_t)nv);
		res->base_execution_time = bsum / nv;
		res->best_optimized_execution_time = csum / nv;
	}
	if (nh > 0)
		res->held_out_speedup = stats_geomean(ho, (size_t)nh);
}

/* The device's measured peaks, for the roofline floor: from the store's
 * device file, or measured now (under the exclusive lock, so that no
 * measurement runs meanwhile).  Without them no floor applies, and the
 * result says so. */
static void gpu_peaks_for_roofline(struct eval_ctx *x)
{
	struct gpu_info g;
	struct errbuf e;
	bool costed = x->t->cost_bytes || x->t->cost_flops;

	if (!costed || x->gi.bandwidth_bps > 0)
		return;
	errbuf_init(&e);
	if (gpu_info_get(&x->dev, x->req->cache_dir, true, &g, &e) == 0 &&
	    g.bandwidth_bps > 0) {
		x->gi.bandwidth_bps = g.bandwidth_bps;
		x->gi.copy_bps = g.copy_bps;
		x->gi.read_bps = g.read_bps;
		x->gi.fma_flops = g.fma_flops;
		return;
	}
	free(x->roofline_note);
	x->roofline_note = xasprintf("no roofline floor (%s)", errbuf_str(&e));
}

/* Times case ci; when only the clock check failed, times it once more
 * with fresh runners, and that second timing decides (clock_finding). */
static void time_case_confirmed(struct eval_ctx *x, int ci,
				struct case_result *cr)
{
	x->clock_suspect = false;
	if ((x->gpu ? time_case_gpu(x, ci, cr) : time_case(x, ci, cr)) == 0 ||
	    !x->clock_suspect || x->decided)
		return;
	trace_mark(x, "case %s: clock check failed once, timing it again: %s",
		   x->t->cases[ci].id, x->clock_finding);
	timing_release(&x->timing[ci]);
	x->clock_confirming = true;
	x->clock_suspect = false;
	(void)(x->gpu ? time_case_gpu(x, ci, cr) : time_case(x, ci, cr));
	x->clock_confirming = false;
}

static void run_phases(struct eval_ctx *x)
{
	const struct eval_request *req = x->req;
	const struct task *t = x->t;
	struct task_result *res = x->res;
	int first_case = res->ncases;

	/* Case results: visible, then held-out on final evaluations. */
	for (int ci = 0; ci < t->ncases; ci++)
		if (!t->cases[ci].held_out || req->include_held_out)
			result_add_case(res, t->cases[ci].id,
					t->cases[ci].held_out);
#define CASE_RESULT(ci) (&res->cases[first_case + (ci)])

	x->phase = PH_CORRECTNESS;
	int k = 0;
	for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
		if (t->cases[ci].held_out)
			continue;
		check_case(x, ci, CASE_RESULT(k));
		trace_mark(x, "case %s checked", t->cases[ci].id);
		k++;
	}
	if (!x->decided && req->include_held_out) {
		bool all = true;
		int kk = k;
		res->held_out_evaluated = true;
		for (int ci = 0; ci < t->ncases; ci++) {
			if (!t->cases[ci].held_out)
				continue;
			/* Keep checking held-out cases after a wrong answer
			 * (per-case generalisation data), not after a crash
			 * or a rejection. */
			if (x->decided && res->status != RS_INCORRECT)
				break;
			if (check_case(x, ci, CASE_RESULT(kk)) != 0)
				all = false;
			kk++;
		}
		res->held_out_correct = all;
	}
	if (x->decided)
		return;
	res->pass_correctness = true;
	if (req->skip_timing) {
		set_str(&res->speedup_calculation_error_message,
			"timing was skipped (correctness only)");
		x->decided = true;
		res->status = RS_OK;
		return;
	}

	x->phase = PH_TIMING;
	if (x->no_gpu_baseline) {
		set_str(&res->speedup_calculation_error_message,
			"not timed: the task provides no GPU baseline to time "
			"against (its reference runs on the host)");
		x->decided = true;
		res->status = RS_OK;
		return;
	}
	if (!lock_or_verdict(x, LOCK_EX))
		return;
	if (x->gpu)
		gpu_peaks_for_roofline(x);
	trace_mark(x, "timing");
	k = 0;
	for (int pass = 0; pass < 2 && !x->decided; pass++) {
		/* Visible first; held-out cases on final, unhurried runs. */
		if (pass == 1 && (!req->include_held_out || req->quick))
			break;
		k = 0;
		for (int ci = 0; ci < t->ncases && !x->decided; ci++) {
			bool ho = t->cases[ci].held_out;
			if (ho && !req->include_held_out)
				continue;
			if (ho == (pass == 1)) {
				time_case_confirmed(x, ci, CASE_RESULT(k));
				trace_mark(x, "case %s timed",
					   t->cases[ci].id);
			}
			k++;
		}
	}
#undef CASE_RESULT
	aggregate(x);
	if (!x->decided) {
		x->decided = true;
		res->status = RS_OK;
	}
}

/* Shared memory of every runner of a GPU evaluation: room for its largest
 * case, and for batches of small ones (runners live across cases). */
static int gpu_shm_size(struct eval_ctx *x, struct errbuf *err)
{
	size_t most = 0;

	for (int ci = 0; ci < x->t->ncases; ci++) {
		struct case_layout l;
		if (x->t->cases[ci].held_out && !x->req->include_held_out)
			continue;
		if (layout_build(x->t, &x->t->cases[ci], &l, err) != 0)
			return -EINVAL;
		if (l.shm_size > most)
			most = l.shm_size;
		layout_release(&l);
	}
	x->shm_size = most > GPU_BATCH_MAX_BYTES ? most : GPU_BATCH_MAX_BYTES;
	return 0;
}

int eval_check_device(const struct task *t, const char *device,
		      struct dev_id *d, struct errbuf *err)
{
	struct dev_id tmp;

	if (!d)
		d = &tmp;
	if (dev_parse(device ? device : "host", d, err) != 0) {
		errbuf_prefix(err, "%s", t->id);
		return -EINVAL;
	}
	if (d->kind == DEV_HOST) {
		if (t->language != LANG_C || t->reference_language != LANG_C)
			return errf_code(err, ENOTSUP, "%s: a %s task needs a "
					 "GPU, not device 'host'", t->id,
					 language_name(t->language == LANG_C
							       ? t->reference_language
							       : t->language));
		return 0;
	}
	if (t->language == LANG_C)
		return errf_code(err, ENOTSUP, "%s: a c task runs on device "
				 "'host', not '%s'", t->id, device);
	if (d->kind == DEV_HIP && (t->language == LANG_CUDA ||
				   t->reference_language == LANG_CUDA))
		return errf_code(err, ENOTSUP, "%s: CUDA sources need an "
				 "NVIDIA GPU (device cuda:N), not '%s'", t->id,
				 device);
	return 0;
}

/* Whether a driver for kind is present: the device nodes it creates. */
static bool driver_present(enum dev_kind kind)
{
	if (kind == DEV_CUDA)
		return access("/dev/nvidiactl", F_OK) == 0 ||
		       access("/proc/driver/nvidia/version", F_OK) == 0;
	return access("/dev/kfd", F_OK) == 0;
}

static bool gpu_usable(enum dev_kind kind)
{
	const char *p = gpu_runner_path(kind);

	return driver_present(kind) && p && access(p, X_OK) == 0;
}

int eval_resolve_device(const char *configured, const struct task *t,
			char **device, struct errbuf *err)
{
	const char *dev = configured && *configured ? configured : "auto";
	const char *env = getenv("ARENA_DEVICE");
	bool gpu_task = t->language != LANG_C;
	int rc;

	if (!strcmp(dev, "auto") && env && *env && gpu_task)
		dev = env;
	if (!gpu_task) {
		if (strcmp(dev, "auto") && strcmp(dev, "host"))
			return errf(err, "task %s is a host (c) task but the "
				    "config asks for device '%s'; use device: "
				    "host or auto", t->id, dev);
		*device = xstrdup("host");
		return 0;
	}
	if (!strcmp(dev, "auto")) {
		bool cuda_only = t->language == LANG_CUDA ||
				 t->reference_language == LANG_CUDA;
		if (gpu_usable(DEV_CUDA))
			dev = "cuda:0";
		else if (!cuda_only && gpu_usable(DEV_HIP))
			dev = "hip:0";
		else
			return errf_code(err, ENODEV, "task %s needs a GPU "
					 "(%s), and none is usable here: %s; "
					 "`arena doctor` says what is missing",
					 t->id, language_name(t->language),
					 driver_present(DEV_CUDA) ||
						 driver_present(DEV_HIP)
						 ? "a driver is present but its "
						   "arena runner is not built"
						 : "no NVIDIA (/dev/nvidiactl) or "
						   "AMD (/dev/kfd) driver");
	}
	if ((rc = eval_check_device(t, dev, NULL, err)))
		return rc;
	if (!strcmp(dev, "cuda") || !strcmp(dev, "hip"))
		*device = xasprintf("%s:0", dev);
	else
		*device = xstrdup(dev);
	return 0;
}

int eval_check_device_exists(const char *device, struct errbuf *err)
{
	struct dev_id d;
	struct gpu_info g;
	int rc;

	if ((rc = dev_parse(device ? device : "host", &d, err)))
		return rc;
	if (d.kind == DEV_HOST)
		return 0;
	return gpu_info_get(&d, NULL, false, &g, err);
}

int eval_check_gpu_model(const char *device, const char *model,
			 struct errbuf *err)
{
	struct dev_id d;
	struct gpu_info g;
	int rc;

	if (!model || !*model)
		return 0;
	if ((rc = dev_parse(device ? device : "host", &d, err)))
		return rc;
	if (d.kind == DEV_HOST)
		return 0;	/* host tasks run on no GPU at all */
	if ((rc = gpu_info_get(&d, NULL, false, &g, err)))
		return rc;
	if (!gpu_model_matches(model, g.name, g.arch))
		return errf_code(err, ENODEV, "target_gpu_model '%s' does not "
				 "match device %s, which is a%s %s (%s)", model,
				 device,
				 g.name[0] && strchr("AEIOUaeiou", g.name[0])
					 ? "n" : "",
				 g.name, g.arch);
	return 0;
}

int eval_run(const struct eval_request *req, struct task_result *res,
	     struct errbuf *err)
{
	const struct task *t = req->task;
	struct eval_ctx x;
	struct source_set cand_src;
	const char *device = req->device ? req->device : "host";
	uint64_t t0 = now_ns();
	int rc = 0;

	memset(&x, 0, sizeof(x));
	x.t0_ns = t0;
	memset(&cand_src, 0, sizeof(cand_src));
	for (int i = 0; i < NROLES; i++)
		x.logfd[i] = -1;
	x.req = req;
	x.t = t;
	x.res = res;
	x.err = err;
	x.all_sandboxed = true;

	if (!t || !req->candidate_dir || !req->cache_dir)
		return errf(err, "evaluation request without a task, a "
			    "candidate directory or a cache directory");
	x.lockfd = -1;
	if ((rc = eval_check_device(t, device, &x.dev, err)))
		return rc;
	x.gpu = x.dev.kind != DEV_HOST;
	x.lang[ROLE_REF] = t->reference_language;
	x.lang[ROLE_BASE] = x.lang[ROLE_CAND] = t->language;
	if (!dir_exists(req->candidate_dir))
		return errf_code(err, ENOENT, "%s: no such directory",
				 req->candidate_dir);
	harden_controller();
	x.runner_path = eval_runner_path();
	if (access(x.runner_path, X_OK) != 0)
		return errf_code(err, ENOENT, "cannot find the runner program "
				 "(looked for %s); build it with `make` or set "
				 "ARENA_RUNNER", x.runner_path);
	if (x.gpu) {
		const char *gp = gpu_runner_path(x.dev.kind);
		if (!gp || access(gp, X_OK) != 0)
			return errf_code(err, ENOENT, "cannot find the %s runner "
					 "(looked for %s); `make` builds it when "
					 "%s is installed, or set %s",
					 dev_kind_name(x.dev.kind), gp ? gp : "?",
					 x.dev.kind == DEV_CUDA ? "nvcc" : "hipcc",
					 x.dev.kind == DEV_CUDA
						 ? "ARENA_RUNNER_CUDA"
						 : "ARENA_RUNNER_HIP");
		if ((rc = gpu_info_get(&x.dev, req->cache_dir, false, &x.gi,
				       err)))
			return rc;
		if ((rc = gpu_shm_size(&x, err)))
			return rc;
		strbuf_init(&x.method_notes);
	}

	fill_identity(&x, device);
	x.flush_bytes = x.gpu ? gpu_flush_bytes(&x.gi) : 2 * llc_bytes();
	x.timeout_ms = (int)((req->timing.runner_timeout_s > 0
				      ? req->timing.runner_timeout_s
				      : 60) * 1000);

	/* Private scratch space and logs. */
	char *sdir = path_join(req->cache_dir, "scratch");
	rc = mkdir_p(sdir, err);
	if (!rc) {
		x.scratch = xasprintf("%s/eval-XXXXXX", sdir);
		if (!mkdtemp(x.scratch)) {
			rc = errf_code(err, errno, "cannot create a directory "
				       "under %s: %s", sdir, strerror(errno));
			free(x.scratch);
			x.scratch = NULL;
		}
	}
	free(sdir);
	if (rc)
		goto done;
	x.log_dir = req->log_dir ? xstrdup(req->log_dir)
				 : path_join(x.scratch, "logs");
	if ((rc = mkdir_p(x.log_dir, err)) || (rc = open_logs(&x)))
		goto done;

	/* 1. The candidate's sources, read once. */
	x.phase = PH_COMPILE;
	struct errbuf se;
	errbuf_init(&se);
	if (sources_read(req->candidate_dir, &t->editable, &cand_src, &se) !=
	    0) {
		verdict(&x, RS_COMPILE_ERROR, "the workspace cannot be "
			"evaluated: %s", errbuf_str(&se));
		goto done;
	}
	hash_snapshot(&cand_src, res);

	/* 2. Builds. */
	trace_mark(&x, "building");
	if ((rc = build_all(&x, &cand_src)) != 0 || x.decided)
		goto done;
	res->pass_compilation = true;
	trace_mark(&x, "built");

	/* 3 and 4. */
	x.timing = xcalloc((size_t)t->ncases, sizeof(struct case_timing));
	run_phases(&x);
done:
	if (rc == 0 && x.gpu) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addstr(&m, GPU_METHOD);
		if (x.method_notes.len)
			strbuf_addf(&m, "; batches of back-to-back calls per "
				    "event pair: %s", x.method_notes.buf);
		if (x.roofline_note)
			strbuf_addf(&m, "; %s", x.roofline_note);
		free(res->benchmark_method);
		res->benchmark_method = strbuf_detach(&m);
	}
	if (rc == 0) {
		res->candidate_accepted = res->status == RS_OK;
		res->sandboxed = x.all_sandboxed && res->status != RS_COMPILE_ERROR &&
				 res->pass_compilation;
		res->eval_seconds = (double)(now_ns() - t0) / 1e9;
		result_score(res);
	}
	trace_mark(&x, "done");
	ctx_release(&x);
	sources_release(&cand_src);
	return rc;
}

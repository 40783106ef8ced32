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

struct eval_ctx {
	const struct eval_request *req;
	const struct task *t;
	struct task_result *res;
	struct errbuf *err;
	enum phase phase;
	bool decided;

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

static bool is_executable(const char *p)
{
	return access(p, X_OK) == 0;
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
						   is_executable);
	if (!runner_path_found) {
		/* Last resort: the PATH. */
		const char *path = getenv("PATH");
		char *copy = xstrdup(path ? path : "/usr/local/bin:/usr/bin");
		for (char *p = copy, *colon; p && !runner_path_found;
		     p = colon ? colon + 1 : NULL) {
			colon = strchr(p, ':');
			if (colon)
				*colon = '\0';
			char *cand = path_join(*p ? p : ".", "arena-runner");
			if (is_executable(cand))
				runner_path_found = cand;
			else
				free(cand);
		}
		free(copy);
	}
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
	if (role != ROLE_CAND) {
		verdict(x, RS_INFRA_ERROR, "the %s runner %s %s (the task's "
			"%s is at fault, not the candidate)", role_names[role],
			r->why, where, role_names[role]);
		return;
	}
	switch (f) {
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

/* Starts a runner for role with layout l; NULL (verdict set) on failure. */
static struct runner *spawn(struct eval_ctx *x, enum role role,
			    const struct case_layout *l,
			    const struct task_case *c)
{
	struct runner *r;
	enum runner_fail f;
	struct runner_spec s = {
		.runner_path = x->runner_path,
		.so_path = x->so[role],
		.entry = x->t->entry ? x->t->entry : "arena_launch",
		.role = role_names[role],
		.shm_size = l->shm_size,
		.log_fd = x->logfd[role],
		.timeout_ms = x->timeout_ms,
	};
#if !defined(__SANITIZE_ADDRESS__)
	/* Room for the data several times over, the flush buffer and the
	 * libraries; an ASan runner reserves terabytes of shadow instead. */
	s.as_limit = (uint64_t)l->shm_size * 4 + x->flush_bytes + (1ull << 30);
#endif
	if (x->nlive >= MAX_LIVE) {
		verdict(x, RS_INFRA_ERROR, "too many runners at once");
		return NULL;
	}
	r = runner_new();
	x->live[x->nlive++] = r;
	f = runner_start(r, &s);
	if (f == RUNNER_OK)
		f = runner_layout(r, l->proto);
	if (f != RUNNER_OK) {
		runner_failed(x, role, r, f, "while starting", c);
		ctx_forget(x, r);
		return NULL;
	}
	if (!r->sandboxed)
		x->all_sandboxed = false;
	return r;
}

/* Checks that a (stopped) candidate runner has one thread and no child. */
static bool census_ok(struct eval_ctx *x, struct runner *r, const char *when,
		      const struct task_case *c)
{
	int threads = 0, children = 0;

	if (runner_census(r, &threads, &children) != 0) {
		verdict(x, RS_INFRA_ERROR, "cannot inspect the candidate "
			"runner's threads in /proc");
		return false;
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

/* Writes the staged inputs into a runner's memory and poisons outputs. */
static void stage_into(const struct task *t, const struct case_layout *l,
		       void *const *stage, struct runner *r, int pattern)
{
	for (int a = 0; a < t->nargs; a++) {
		void *dst = r->shm + l->offset[a];
		if (t->args[a].io == IO_OUT)
			poison_fill(t->args[a].dtype, dst, l->numel[a], pattern);
		else
			memcpy(dst, stage[a], l->bytes[a]);
	}
}

/* Inputs (io: in) must be bit-identical after a call. */
static bool inputs_intact(struct eval_ctx *x, const struct case_layout *l,
			  void *const *stage, struct runner *r,
			  const char *when, const struct task_case *c)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		if (ta->io != IO_IN)
			continue;
		const unsigned char *got = r->shm + l->offset[a];
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

/* Compares every output of `got` with `want`; fills *maxerr; on a
 * mismatch sets the verdict `st` with prefix. */
static bool outputs_match(struct eval_ctx *x, const struct case_layout *l,
			  struct runner *got, struct runner *want,
			  double tol_scale, int pattern, double *maxerr,
			  enum result_status st, const char *prefix)
{
	for (int a = 0; a < x->t->nargs; a++) {
		const struct task_arg *ta = &x->t->args[a];
		struct cmp_result cr;
		if (ta->io == IO_IN)
			continue;
		compare_arrays(ta->dtype, got->shm + l->offset[a],
			       want->shm + l->offset[a], l->numel[a],
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

/* Calls one runner once; false (verdict set) on any failure. */
static bool call_checked(struct eval_ctx *x, enum role role,
			 struct runner *r, const char *what,
			 const struct task_case *c)
{
	int rc = 0;
	enum runner_fail f = runner_call(r, &rc);

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
	if (role == ROLE_CAND && !census_ok(x, r, what, c))
		return false;
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

static int check_case(struct eval_ctx *x, int ci, struct case_result *cr)
{
	const struct task *t = x->t;
	const struct task_case *c = &t->cases[ci];
	struct case_layout l;
	struct runner *ref = NULL, *cand = NULL, *base = NULL;
	void **stage = NULL;
	struct errbuf e;
	int trials = x->req->timing.correctness_trials;
	bool ok = false;

	if (trials < 3)
		trials = 3;
	errbuf_init(&e);
	if (layout_build(t, c, &l, &e) != 0) {
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&e));
		return -1;
	}
	stage = stage_alloc(t, &l);
	if (!(ref = spawn(x, ROLE_REF, &l, c)) ||
	    !(cand = spawn(x, ROLE_CAND, &l, c)))
		goto out;
	if (!x->baseline_is_reference && !(base = spawn(x, ROLE_BASE, &l, c)))
		goto out;

	for (int trial = 0; trial < trials; trial++) {
		struct rng r;
		char what[64], prefix[160];
		int pattern = trial & 1;

		rng_seed(&r, derive(x->req->seed, 1, (uint64_t)ci,
				    (uint64_t)trial));
		for (int a = 0; a < t->nargs; a++)
			if (t->args[a].io != IO_OUT)
				inputs_fill(t, &l, a, &r, stage[a]);
		stage_into(t, &l, stage, ref, pattern);
		stage_into(t, &l, stage, cand, pattern);
		snprintf(what, sizeof(what), "in correctness trial %d", trial + 1);
		if (!call_checked(x, ROLE_REF, ref, what, c))
			goto out;
		/* The reference must write everything itself. */
		for (int a = 0; a < t->nargs; a++) {
			const struct task_arg *ta = &t->args[a];
			if (ta->io != IO_OUT)
				continue;
			const unsigned char *p = ref->shm + l.offset[a];
			size_t sz = dtype_size(ta->dtype);
			for (int64_t i = 0; i < l.numel[a]; i++)
				if (poison_is(ta->dtype, p + (size_t)i * sz,
					      pattern)) {
					verdict(x, RS_INFRA_ERROR, "the reference "
						"did not write output '%s' "
						"element %lld in %s '%s'",
						ta->name, (long long)i,
						case_kind(c), c->id);
					goto out;
				}
		}
		if (!call_checked(x, ROLE_CAND, cand, what, c) ||
		    !inputs_intact(x, &l, stage, cand, what, c))
			goto out;
		snprintf(prefix, sizeof(prefix), "%s '%s', correctness trial %d",
			 case_kind(c), c->id, trial + 1);
		if (!outputs_match(x, &l, cand, ref, 1.0, pattern,
				   &cr->max_abs_err, RS_INCORRECT, prefix)) {
			free(cr->error);
			cr->error = xstrdup(x->res->correctness_error_message);
			goto out;
		}
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
	if (ref)
		ctx_forget(x, ref);
	if (cand)
		ctx_forget(x, cand);
	if (base)
		ctx_forget(x, base);
	stage_free(stage);
	layout_release(&l);
	return ok ? 0 : -1;
}

/* ---- timing ----------------------------------------------------------- */

struct block {
	struct runner *base, *cand;
	int pairs;
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
			verdict(x, RS_INFRA_ERROR, "the baseline returned %d %s, "
				"%s '%s'", rc, what, case_kind(c), c->id);
		return false;
	}
	if (role == ROLE_CAND && !census_ok(x, r, what, c))
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

	pair_stage(p, bk, pattern);
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
	if (!pair_check(p, bk, pattern, "timed", p->ntimed))
		return false;
	timing_add(ct, b, (double)bc / (double)cc);
	samples_add(s, (double)bc, (double)cc, (double)(bw - bc),
		    (double)(cw - cc));
	bk->pairs++;
	return true;
}

/* A candidate whose claims sit further below the controller's clock than
 * the baseline's do (same protocol, same machine) is claiming time it did
 * not spend. */
static bool claims_consistent(struct eval_ctx *x, const struct task_case *c,
			      const struct samples *s)
{
	double bo = stats_median(s->base_ovh, (size_t)s->n);
	double co = stats_median(s->cand_ovh, (size_t)s->n);
	double cm = stats_median(s->cand_ns, (size_t)s->n);
	double bound = fmax(OVERHEAD_ABS_NS, OVERHEAD_REL * cm);

	if (co - bo > bound) {
		verdict(x, RS_REJECTED, "reported times inconsistent with the "
			"controller's clock in %s '%s': the candidate's calls "
			"took a median %.1f us longer by the controller's clock "
			"than it claimed, the baseline's %.1f us (allowed "
			"difference %.1f us)", case_kind(c), c->id, co / 1e3,
			bo / 1e3, bound / 1e3);
		return false;
	}
	return true;
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
	int nblocks = x->req->quick ? 1 : tb->blocks;
	int min_pairs = tb->min_pairs > 0 ? tb->min_pairs : 10;
	int max_pairs = tb->max_pairs > 0 ? tb->max_pairs : 400;
	double budget = tb->case_budget_s > 0 ? tb->case_budget_s : 2.0;
	int rc = -1;

	if (nblocks < 1)
		nblocks = 1;
	if (nblocks > MAX_BLOCKS)
		nblocks = MAX_BLOCKS;
	if (x->req->quick) {
		budget = fmin(budget / 4, 0.5);
		if (min_pairs > 5)
			min_pairs = 5;
	}
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
			if (last_group && round % 4 == 0) {
				struct interval iv;
				if (timing_ci(ct, CI_ITERS_STOP,
					      derive(x->req->seed, 3,
						     (uint64_t)ci, 0),
					      &iv) == 0 &&
				    interval_rel_halfwidth(&iv) <=
					    tb->target_ci)
					break;
			}
		}
		for (int b = g0; b < g1; b++) {
			enum runner_fail pf = runner_ping(blocks[b].cand);
			if (pf != RUNNER_OK) {
				runner_failed(x, ROLE_CAND, blocks[b].cand, pf,
					      "after its last timed call", c);
				goto out;
			}
		}
		for (int b = g0; b < g1; b++) {
			ctx_forget(x, blocks[b].base);
			ctx_forget(x, blocks[b].cand);
			blocks[b].base = blocks[b].cand = NULL;
		}
	}
	if (!claims_consistent(x, c, &s))
		goto out;

	struct interval iv;
	if (timing_ci(ct, CI_ITERS_FINAL, derive(x->req->seed, 4, (uint64_t)ci, 0),
		      &iv) != 0) {
		verdict(x, RS_INFRA_ERROR, "no timing data for %s '%s'",
			case_kind(c), c->id);
		goto out;
	}
	cr->timed = true;
	cr->base_ms = stats_median(s.base_ns, (size_t)s.n) / 1e6;
	cr->cand_ms = stats_median(s.cand_ns, (size_t)s.n) / 1e6;
	cr->speedup = iv.point;
	cr->ci_lo = iv.lo;
	cr->ci_hi = iv.hi;
	cr->pairs = s.n;
	cr->blocks = ct->nblocks;
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

/* Holds <lock_dir>/<device>.lock (flock, blocking) in *fd. */
static int lock_device(struct eval_ctx *x, int *fd)
{
	const char *dir = x->req->lock_dir;
	char *owned = NULL, *path;
	char dev[64];
	int rc;

	if (!dir)
		dir = owned = path_join(x->req->cache_dir, "locks");
	if ((rc = mkdir_p(dir, x->err))) {
		free(owned);
		return rc;
	}
	snprintf(dev, sizeof(dev), "%s", x->req->device ? x->req->device : "host");
	for (char *q = dev; *q; q++)
		if (*q == '/' || *q == '.')
			*q = '_';
	path = xasprintf("%s/%s.lock", dir, dev);
	free(owned);
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0) {
		rc = errf_code(x->err, errno, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	free(path);
	while (flock(*fd, LOCK_EX) != 0) {
		if (errno != EINTR) {
			rc = errf_code(x->err, errno, "cannot lock the device: "
				       "%s", strerror(errno));
			close(*fd);
			*fd = -1;
			return rc;
		}
	}
	return 0;
}

/* ---- building --------------------------------------------------------- */

static int build_role(struct eval_ctx *x, enum role role,
		      const struct source_set *src, const struct strvec *files,
		      const char *extra_inc, const struct strvec *defines)
{
	struct strvec compile = STRVEC_INIT;
	struct build_out bo;
	char *log = path_join(x->log_dir, role == ROLE_CAND
						  ? "compile-candidate.log"
					  : role == ROLE_BASE
						  ? "compile-baseline.log"
						  : "compile-reference.log");
	struct build_spec bs = {
		.role = role_names[role],
		.src = src,
		.compile = &compile,
		.extra_include = extra_inc,
		.flags = &x->t->compile_flags,
		.defines = defines,
		.cache_dir = x->req->cache_dir,
		.timeout_s = x->req->timing.compile_timeout_s,
		.log_path = log,
	};
	int rc;

	for (size_t i = 0; i < files->n; i++)
		if (str_ends_with(files->v[i], ".c"))
			strvec_push(&compile, files->v[i]);
	rc = compile_build(&bs, &bo, x->err);
	free(log);
	strvec_release(&compile);
	if (rc)
		return rc;
	if (bo.message) {
		if (role == ROLE_CAND) {
			x->res->pass_compilation = false;
			verdict(x, RS_COMPILE_ERROR, "%s", bo.message);
		} else {
			verdict(x, RS_INFRA_ERROR, "the task's %s does not "
				"compile: %s", role_names[role], bo.message);
		}
		build_out_release(&bo);
		return 0;
	}
	x->so[role] = bo.so_path;
	bo.so_path = NULL;
	build_out_release(&bo);
	return 0;
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
	rc = build_role(x, ROLE_REF, &src, &ref_files, t->dir, NULL);
	sources_release(&src);
	strvec_release(&ref_files);
	if (rc || x->decided)
		return rc;

	/* Baseline: the frozen copy (or the task's files).  A task whose
	 * initial state is unimplemented has no baseline to speak of; the
	 * reference stands in for it in timing. */
	if (t->initial_state == TASK_UNIMPLEMENTED) {
		x->so[ROLE_BASE] = xstrdup(x->so[ROLE_REF]);
		x->baseline_is_reference = true;
	} else {
		const char *bdir = x->req->baseline_dir ? x->req->baseline_dir
							: t->dir;
		errbuf_init(&e);
		if (sources_read(bdir, &t->editable, &src, &e) != 0) {
			verdict(x, RS_INFRA_ERROR, "the baseline sources in %s "
				"cannot be read: %s", bdir, errbuf_str(&e));
			return 0;
		}
		rc = build_role(x, ROLE_BASE, &src, &t->editable, t->dir, NULL);
		sources_release(&src);
		if (rc || x->decided)
			return rc;
	}

	/* Candidate: its snapshot only, no -I into its workspace. */
	return build_role(x, ROLE_CAND, cand_src, &t->editable, NULL,
			  x->req->defines);
}

/* ---- the evaluation --------------------------------------------------- */

static void ctx_release(struct eval_ctx *x)
{
	while (x->nlive > 0)
		ctx_forget(x, x->live[x->nlive - 1]);
	for (int i = 0; i < NROLES; i++) {
		free(x->so[i]);
		if (x->logfd[i] >= 0)
			close(x->logfd[i]);
	}
	if (x->timing) {
		for (int i = 0; i < x->t->ncases; i++)
			timing_release(&x->timing[i]);
		free(x->timing);
	}
	if (x->scratch)
		rm_rf(x->scratch);
	free(x->scratch);
	free(x->log_dir);
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
	set_str(&res->device, device);
	free(res->host);
	res->host = host_name();
	free(res->compiler);
	res->compiler = compile_compiler_id();
	set_str(&res->evaluator_version, ARENA_EVALUATOR_VERSION);
	time_stamp_iso(ts, now_wall());
	set_str(&res->evaluated_at, ts);
	set_str(&res->benchmark_method, "host_clock_llc_flush");
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
	int lockfd = -1;
	struct errbuf *saved = x->err;
	struct errbuf le;
	errbuf_init(&le);
	x->err = &le;
	if (lock_device(x, &lockfd) != 0) {
		x->err = saved;
		verdict(x, RS_INFRA_ERROR, "%s", errbuf_str(&le));
		return;
	}
	x->err = saved;
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
			if (ho == (pass == 1))
				time_case(x, ci, CASE_RESULT(k));
			k++;
		}
	}
	close(lockfd);
#undef CASE_RESULT
	aggregate(x);
	if (!x->decided) {
		x->decided = true;
		res->status = RS_OK;
	}
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
	if (strcmp(device, "host") != 0)
		return errf_code(err, ENOTSUP, "%s: device '%s' is not "
				 "supported by this evaluator (only 'host')",
				 t->id, device);
	if (t->language != LANG_C || t->reference_language != LANG_C)
		return errf_code(err, ENOTSUP, "%s: language %s is not "
				 "supported on device 'host' (only c)", t->id,
				 language_name(t->language));
	if (!dir_exists(req->candidate_dir))
		return errf_code(err, ENOENT, "%s: no such directory",
				 req->candidate_dir);
	harden_controller();
	x.runner_path = eval_runner_path();
	if (access(x.runner_path, X_OK) != 0)
		return errf_code(err, ENOENT, "cannot find the runner program "
				 "(looked for %s); build it with `make` or set "
				 "ARENA_RUNNER", x.runner_path);

	fill_identity(&x, device);
	x.flush_bytes = 2 * llc_bytes();
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
	if ((rc = build_all(&x, &cand_src)) != 0 || x.decided)
		goto done;
	res->pass_compilation = true;

	/* 3 and 4. */
	x.timing = xcalloc((size_t)t->ncases, sizeof(struct case_timing));
	run_phases(&x);
done:
	if (rc == 0) {
		res->candidate_accepted = res->status == RS_OK;
		res->sandboxed = x.all_sandboxed && res->status != RS_COMPILE_ERROR &&
				 res->pass_compilation;
		res->eval_seconds = (double)(now_ns() - t0) / 1e9;
		result_score(res);
	}
	ctx_release(&x);
	sources_release(&cand_src);
	return rc;
}

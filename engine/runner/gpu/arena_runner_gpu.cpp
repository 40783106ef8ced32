/*
 * arena_runner_gpu.cpp - arena-runner-cuda / arena-runner-hip: loads one
 * compiled GPU kernel (candidate, baseline or a GPU reference) and runs it
 * on the controller's behalf, on one device.
 *
 * Usage: arena-runner-{cuda,hip} <so-path> <entry> <device-index>, started
 * by the controller with the descriptors of runner_proto.h (<so-path> "-":
 * the kernel comes later with a `load` request, so that the device is
 * opened while the kernel compiles; "- -": a keeper, which never loads a
 * kernel and flushes L2 and probes the device for the controller); or
 * `--query` / `--peaks <index>` / `--selftest <index>` (gpu_diag.h) for
 * `arena doctor` and the evaluator's device facts (no kernel is loaded
 * then).  One source, compiled by nvcc (CUDA runtime) and by hipcc (HIP
 * runtime, -DARENA_GPU_HIP) through gpu_rt.h.
 *
 * Memory: this runner keeps one device buffer per argument (per set, see
 * `sets`).  A sample is `gen` (inputs drawn on the device from the
 * controller's seed, gpu_gen.h, and outputs poisoned there), the keeper's
 * `flush`, `time n` and `fetch`: the controller's clock covers all of it
 * (docs/gpu.md).  For a `call` (the reference, and the ordering check of
 * gpu_gate.h) the controller writes inputs and poisoned outputs into the
 * shared memory (fd 4); the runner copies every argument to the device,
 * calls, and copies every argument back, inputs included.  The shared
 * memory is page-locked (hipHostRegister / cudaHostRegister) from 1 MiB
 * up, for fast and steady copies.
 *
 * Order of start-up, and why: close descriptors, non-dumpable, drop
 * capabilities, no_new_privs; then open the device (the driver opens
 * /dev/nvidia* or /dev/kfd read-write and starts its threads, which the
 * sandbox below would refuse); create the stream and events; then
 * Landlock and the GPU seccomp filter (threads of this process allowed,
 * processes not); then `hello`; only then dlopen.  From
 * dlopen on, candidate code may have rewritten anything here, so the
 * controller treats every reply as a claim (docs/gpu.md).
 *
 * Device errors become `error <seq> device <sticky|soft> <name> ...`; after
 * a sticky one (the context is unusable: illegal address, launch failure)
 * the runner never runs anything again and the controller retires it.
 *
 * Built with -DARENA_RUNNER_EMBED this is arena_runner_gpu_main() of the
 * Python runner's library (runner_embed.h): the embedding program loads
 * and calls the kernel, opens its own runtime on the device before the
 * sandbox, and may widen the sandbox for Triton's compiler.
 *
 * Over 800 lines on purpose: this is the whole GPU runner, built three
 * times (nvcc, hipcc, and c++ against the host fake) as one translation
 * unit, so that each build is one compiler call with one set of flags and
 * nothing of it is shared with the controller.  Its separable parts
 * already live beside it as headers: the runtime shim (gpu_rt.h,
 * gpu_rt_fake.h), the ordering gate (gpu_gate.h) and the input generator
 * (gpu_gen.h); the protocol and sandbox are the host runner's
 * (runner_io.c, runner_sandbox.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu_rt.h"
#include "arena/kernel.h"
#include "runner_io.h"
#include "arena/runner_proto.h"
#include "runner_sandbox.h"
#include "runner_embed.h"
#include "gpu_gate.h"
#include "gpu_gen.h"
#include "gpu_cmp.h"

static arena_launch_fn launch;
static const struct runner_embed *embed;	/* NULL: a plain program */

static struct rio_layout lay;
static unsigned char *shm_base;		/* all of fd 4, mapped once */
static size_t shm_size;
static size_t registered;		/* page-locked bytes from shm_base */
static int nsets;			/* device copies of the layout */
static size_t set_stride;
/* Each argument's allocation, and where in it the argument lies for the
 * current sample (place_sets): dbuf[k][a] = dalloc[k][a] + an offset
 * within window[a]. */
static void *dalloc[RP_MAX_SETS][RP_MAX_ARGS];
static void *dbuf[RP_MAX_SETS][RP_MAX_ARGS];
static size_t window[RP_MAX_ARGS];

static gpu_stream stream;
static gpu_event ev_start, ev_end;
static struct gpu_gate gate;		/* the ordering check (gpu_gate.h) */
static void *flush_dev;
static size_t flush_dev_size;
static unsigned flush_round;

static bool dead;			/* a sticky device error happened */
static char dead_msg[400];

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- device errors ---------------------------------------------------- */

/* Replies to a device error and decides whether the context survived: a
 * sticky error keeps failing every later call (CUDA and HIP both behave
 * so), a soft one is cleared by reading it. */
static void device_error(const char *seq, gpu_err e, const char *during)
{
	(void)GPU(GetLastError)();
	gpu_err again = GPU(DeviceSynchronize)();
	bool sticky = again != GPU(Success);

	if (sticky) {
		dead = true;
		snprintf(dead_msg, sizeof(dead_msg), "device sticky %s %s (%s)",
			 gpu_err_name(e), during, gpu_err_string(e));
		rio_replyf("error %s %s", seq, dead_msg);
		return;
	}
	rio_replyf("error %s device soft %s %s (%s)", seq, gpu_err_name(e),
		   during, gpu_err_string(e));
}

#define CHECK(seq, call, during)                          \
	do {                                              \
		gpu_err e_ = (call);                      \
		if (e_ != GPU(Success)) {                 \
			device_error((seq), e_, (during)); \
			return;                           \
		}                                         \
	} while (0)

/* ---- buffers ---------------------------------------------------------- */

/* The sets the keeper lent (one allocation for all of them), mapped
 * here; ptr NULL while the sets are this runner's own allocations. */
static struct gpu_vmm lent_map;

/* The batch captured for the coming `time` (do_capture): n calls at the
 * placement place_seed (placed: false for every argument at the start of
 * its window), run by one launch.  Spent by that `time` (n 0), released
 * by the next capture and whenever the sets change. */
static struct {
	struct gpu_graph g;
	int n;
	bool placed;
	unsigned long long place_seed;
} cap;
/* Where the sets lie now (place_sets). */
static bool sets_placed;
static unsigned long long sets_place_seed;

/* No batch captured any more. */
static void drop_capture(void)
{
	gpu_graph_release(&cap.g);
	cap.n = 0;
}

static void free_sets(void)
{
	drop_capture();
	for (int k = 0; k < RP_MAX_SETS; k++)
		for (int a = 0; a < RP_MAX_ARGS; a++) {
			if (dalloc[k][a] && !lent_map.ptr)
				(void)GPU(Free)(dalloc[k][a]);
			dalloc[k][a] = dbuf[k][a] = NULL;
		}
	if (lent_map.ptr)
		gpu_vmm_release(&lent_map);
#if defined(ARENA_GPU_FAKE)
	fake_forget_allocs();
#endif
	nsets = 0;
}

/*
 * Placement.  Where a buffer lies in device memory can change a kernel's
 * speed by several percent: on the H200 the baseline of cuda2cuda/dot
 * (one float64 atomicAdd per block into an 8-byte result) ran at 487 us
 * in some runner processes and 515 us in others, steadily for the whole
 * evaluation and across its cases (2026-12-02).  Small buffers are
 * sub-allocated from memory the runtime set aside when the process
 * started, so each process kept one placement of its result, and A/A
 * evaluations came out at 0.97-0.98 with intervals that missed 1: a
 * whole block is one placement per role.  So every argument smaller than
 * PLACE_SMALL gets an allocation of its own with a window of slack, and
 * each sample puts it at an offset in that window drawn from the
 * sample's seed (place_sets): both runners of a pair use the same
 * offsets, and a block's samples spread over many placements, in both
 * roles alike.  Offsets are multiples of 256 bytes, the alignment
 * cudaMalloc and hipMalloc promise.  Larger arguments span many pages
 * already and stay at offset 0.
 */
#define PLACE_SMALL ((size_t)2 << 20)
#define PLACE_WINDOW_MAX ((size_t)8 << 20)
#define PLACE_WINDOW_MIN ((size_t)64 << 10)
#define PLACE_BUDGET ((size_t)64 << 20) /* all windows of a runner */
#define PLACE_ALIGN ((size_t)256)

static size_t place_window(const struct rio_layout *l, int n)
{
	int small = 0;

	for (int a = 0; a < l->nargs; a++)
		small += l->bytes[a] < PLACE_SMALL;
	if (!small)
		return 0;
	size_t w = PLACE_BUDGET / ((size_t)n * (size_t)small);
	if (w > PLACE_WINDOW_MAX)
		w = PLACE_WINDOW_MAX;
	if (w < PLACE_WINDOW_MIN)
		w = PLACE_WINDOW_MIN;
	return w / PLACE_ALIGN * PLACE_ALIGN;
}

/*
 * Where n sets of layout l lie in one allocation (memory the keeper
 * lends, docs/gpu.md section 6): argument a of set k at k * span +
 * off[a], in a slot of its rounded size plus its placement window, as
 * alloc_sets gives each argument an allocation of its own.  The keeper
 * and the runner compute it alike from the same layout.
 */
struct set_plan {
	size_t window[RP_MAX_ARGS], off[RP_MAX_ARGS], slot[RP_MAX_ARGS];
	size_t span;
};

static void plan_sets(const struct rio_layout *l, int n, struct set_plan *p)
{
	size_t w = place_window(l, n);

	p->span = 0;
	for (int a = 0; a < l->nargs; a++) {
		size_t b = l->bytes[a] ? l->bytes[a] : 256;
		b = (b + PLACE_ALIGN - 1) / PLACE_ALIGN * PLACE_ALIGN;
		p->window[a] = l->bytes[a] < PLACE_SMALL ? w : 0;
		p->off[a] = p->span;
		p->slot[a] = b + p->window[a];
		p->span += p->slot[a];
	}
}

/* The offset of argument a of set k in its window for the sample whose
 * placement seed is seed (the same in both runners of a pair and in
 * the keeper). */
static size_t place_offset(unsigned long long seed, int k, int a, size_t win)
{
	size_t slots = win / PLACE_ALIGN + 1;
	unsigned long long h = gen_mix(
		seed ^
		gen_mix(((unsigned long long)k << 8 | (unsigned long long)a) +
			0x9e3779b97f4a7c15ULL));

	return (size_t)(h % slots) * PLACE_ALIGN;
}

/* Maps `bytes` of the allocation the keeper lent (descriptor fd) as n
 * sets of the layout. */
static gpu_err map_lent_sets(int fd, int n, size_t bytes)
{
	struct set_plan p;

	plan_sets(&lay, n, &p);
	if (bytes < (size_t)n * p.span)
		return GPU(ErrorInvalidValue);
	gpu_err e = gpu_vmm_import(fd, bytes, &lent_map);
	if (e != GPU(Success))
		return e;
	for (int a = 0; a < lay.nargs; a++)
		window[a] = p.window[a];
	for (int k = 0; k < n; k++)
		for (int a = 0; a < lay.nargs; a++) {
			dalloc[k][a] = (unsigned char *)lent_map.ptr +
				       (size_t)k * p.span + p.off[a];
			dbuf[k][a] = dalloc[k][a];
#if defined(ARENA_GPU_FAKE)
			fake_note_alloc(dalloc[k][a], p.slot[a]);
#endif
		}
	nsets = n;
	return GPU(Success);
}

static gpu_err alloc_sets(int n)
{
	struct set_plan p;

	plan_sets(&lay, n, &p);
	for (int a = 0; a < lay.nargs; a++)
		window[a] = p.window[a];
	for (int k = 0; k < n; k++)
		for (int a = 0; a < lay.nargs; a++) {
			gpu_err e = GPU(Malloc)(&dalloc[k][a], p.slot[a]);
			if (e != GPU(Success)) {
				dalloc[k][a] = NULL;
				free_sets();
				return e;
			}
			dbuf[k][a] = dalloc[k][a];
		}
	nsets = n;
	return GPU(Success);
}

/* Puts every argument of every set at its offset for the sample whose
 * seed is `seed` (the same in both runners of a pair). */
static void place_sets(unsigned long long seed)
{
	for (int k = 0; k < nsets; k++)
		for (int a = 0; a < lay.nargs; a++)
			dbuf[k][a] = (unsigned char *)dalloc[k][a] +
				     place_offset(seed, k, a, window[a]);
	sets_placed = true;
	sets_place_seed = seed;
}

/* Every argument at the start of its window (recorded inputs). */
static void unplace_sets(void)
{
	for (int k = 0; k < nsets; k++)
		for (int a = 0; a < lay.nargs; a++)
			dbuf[k][a] = dalloc[k][a];
	sets_placed = false;
}

/* A placement seed in hex, the whole of tok. */
static bool parse_seed(const char *tok, unsigned long long *seed)
{
	char *end;

	errno = 0;
	*seed = strtoull(tok, &end, 16);
	return !errno && end != tok && !*end;
}

/* Grows what is page-locked of p (len bytes mapped, its first `locked`
 * locked already) to its first `used` bytes, rounded to pages: copies
 * between the device and locked memory run at the link's speed.  The
 * bytes locked now: `locked` when that was enough, 0 when the driver
 * refused (*err says why; failure only costs speed). */
static size_t lock_grown(unsigned char *p, size_t len, size_t locked,
			 size_t used, gpu_err *err)
{
	*err = GPU(Success);
	used = (used + 4095) / 4096 * 4096;
	if (used > len)
		used = len;
	if (used <= locked)
		return locked;
	if (locked)
		(void)GPU(HostUnregister)(p);
	*err = GPU(HostRegister)(p, used, GPU(HostRegisterDefault));
	if (*err == GPU(Success))
		return used;
	(void)GPU(GetLastError)();
	return 0;
}

/* Page-locks the first `used` bytes of the shared memory (for copies at
 * full speed) when they are 1 MiB or more; failure only costs speed.
 * Grows only: a case's `layout` (one set) and `sets` (n) and a later
 * smaller case keep what is locked already, since locking costs about
 * as much as copying the bytes once (a case of 32 Mi floats in batches
 * of two locked 256 MiB and then 512 MiB again in each of its thirteen
 * runners). */
static void lock_host(size_t used)
{
	/* Pinning costs about as much as a few copies, once per layout.
	 * Pageable copies of tens of MiB are slow and uneven from one
	 * process to the next: on the H200 a candidate runner's fetches
	 * of 16-40 MiB took 0.3-0.8 ms longer than the baseline's, enough
	 * for the controller's clock check to reject 4 in 100 unchanged
	 * candidates in quick evaluations (docs/gpu.md, section 6).  Only
	 * copies too small to matter stay pageable. */
	if (used < ((size_t)1 << 20))
		return;
	gpu_err e;
	registered = lock_grown(shm_base, shm_size, registered, used, &e);
	if (registered)
		return;
	/* For the log: every copy of this layout is pageable, and slower. */
	fprintf(stderr,
		"arena-runner-%s: the shared memory (%zu MiB) could not be "
		"page-locked (%s); its copies are pageable\n",
		GPU_BACKEND, used >> 20, GPU(GetErrorString)(e));
}

static unsigned char *host_arg(int k, int a)
{
	return shm_base + (size_t)k * set_stride + lay.offset[a];
}

static gpu_err copy_set(int k, bool to_device, uint32_t mask)
{
	for (int a = 0; a < lay.nargs; a++) {
		if (!lay.bytes[a] || !(mask & (1u << a)))
			continue;
		gpu_err e = to_device
			? GPU(MemcpyAsync)(dbuf[k][a], host_arg(k, a),
					   lay.bytes[a],
					   GPU(MemcpyHostToDevice), stream)
			: GPU(MemcpyAsync)(host_arg(k, a), dbuf[k][a],
					   lay.bytes[a],
					   GPU(MemcpyDeviceToHost), stream);
		if (e != GPU(Success))
			return e;
	}
	return GPU(Success);
}

/* One call on set k with a freshly built argument array. */
static int call_set(int k)
{
	arena_arg args[RP_MAX_ARGS];
	int64_t params[RP_MAX_PARAMS + 1];

	rio_build_args(&lay, dbuf[k], args, params);
	return launch(args, lay.nargs, params, lay.nparams, (void *)stream);
}

/* An embedded kernel that raised (runner_embed.h) gets `error <seq>
 * <what it raised>` for its reply; true when that was replied. */
static bool raised(const char *seq, int rc)
{
	char msg[600];

	if (rc != RUNNER_EMBED_RAISED || !embed || !embed->failure)
		return false;
	embed->failure(msg, sizeof(msg));
	rio_replyf("error %s %s", seq, msg);
	return true;
}

/* ---- requests --------------------------------------------------------- */

/* `ok <seq> <lo> <hi>` after the arguments were allocated: the lowest
 * device address of this runner's argument allocations and the end of
 * the highest, for the evaluation's log (blocks.tsv), so that a bias
 * between two runners can be set beside where their buffers lie.  A
 * claim like any reply: the controller only records it. */
static void reply_allocated(const char *seq)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (int k = 0; k < nsets; k++)
		for (int a = 0; a < lay.nargs; a++) {
			uintptr_t p = (uintptr_t)dalloc[k][a];
			size_t b = lay.bytes[a] ? lay.bytes[a] : 256;
			if (!p)
				continue;
			if (p < lo)
				lo = p;
			if (p + b + window[a] > hi)
				hi = p + b + window[a];
		}
	if (lo > hi)
		lo = hi = 0;
	rio_replyf("ok %s %" PRIu64 " %" PRIu64, seq, (uint64_t)lo,
		   (uint64_t)hi);
}

static void do_layout(const char *seq, char **save)
{
	struct rio_layout l;
	char why[128];

	if (rio_parse_layout(save, (int64_t)shm_size, &l, why, sizeof(why))) {
		rio_replyf("error %s %s", seq, why);
		return;
	}
	free_sets();
	lay = l;
	set_stride = (size_t)l.size;
	lock_host((size_t)l.size);
	CHECK(seq, alloc_sets(1), "allocating the arguments");
	reply_allocated(seq);
}

/* The optional last word of a lent `sets`: "pinned". */
static bool parse_pinned(char **save, bool *pinned)
{
	char *w = rio_next_tok(save);

	*pinned = w && strcmp(w, "pinned") == 0;
	return *pinned && !**save;
}

/* sets <seq> <n> <stride> [<bytes> [pinned]]: n sets, set k at k * stride
 * in the shared memory; with <bytes> and a descriptor, the sets are
 * `bytes` of memory the keeper lent (map_lent_sets) instead of
 * allocations of this runner's own, their shared memory page-locked only
 * when "pinned" says so. */
static void do_sets(const char *seq, char **save)
{
	int64_t n, stride, bytes = 0;
	int fd = rio_take_fd();
	bool pinned = fd < 0;

	if (!nsets) {
		rio_replyf("error %s no layout yet", seq);
	} else if (rio_parse_i64(save, &n) || rio_parse_i64(save, &stride) ||
		   n < 1 || n > RP_MAX_SETS || stride < lay.size ||
		   stride % RP_ALIGN != 0 ||
		   (uint64_t)stride > shm_size / (uint64_t)n ||
		   (**save && (rio_parse_i64(save, &bytes) || bytes < 1)) ||
		   (bytes > 0) != (fd >= 0) ||
		   (**save && (fd < 0 || !parse_pinned(save, &pinned)))) {
		rio_replyf("error %s bad sets request", seq);
	} else {
		free_sets();
		set_stride = (size_t)stride;
		int64_t t0 = mono_ns();
		/* Lent sets never cross PCIe in a timed sample (the keeper
		 * compares them on the device): only sets of one's own, and
		 * a baseline's lent ones (its inputs are fetched for some
		 * reference checks, and a GPU refuses a copy into memory
		 * page-locked in part, as an earlier layout's lock would
		 * leave it), need their shared memory page-locked.
		 * On an H100 locking 7 sets of 256 MiB took 0.8-1.1 s in
		 * each of 12 runners at once, the largest part of a case's
		 * start. */
		if (pinned)
			lock_host((size_t)(n * stride));
		int64_t t1 = mono_ns();
		gpu_err e = fd >= 0 ? map_lent_sets(fd, (int)n, (size_t)bytes)
				    : alloc_sets((int)n);
		(void)GPU(GetLastError)();
		/* For the log: where a slow `sets` spent its time. */
		if (mono_ns() - t0 > 10 * 1000 * 1000)
			fprintf(stderr,
				"arena-runner-%s: sets (%" PRId64 " of %" PRId64
				" bytes, %s): page-locking %.1f ms, the sets "
				"%.1f ms\n",
				GPU_BACKEND, n, stride,
				fd >= 0 ? "lent" : "own", (t1 - t0) / 1e6,
				(mono_ns() - t1) / 1e6);
		if (e == GPU(Success))
			reply_allocated(seq);
		else if (fd >= 0 && GPU(DeviceSynchronize)() == GPU(Success) &&
			 alloc_sets(1) == GPU(Success))
			/* Not a device error: lent memory cannot be mapped
			 * here (the sandbox, the driver).  One set of its own
			 * again, as after `layout`: the controller falls back
			 * to sets of the runners' own if a baseline says so. */
			rio_replyf("error %s lent sets refused: %s (%s)", seq,
				   gpu_err_name(e), gpu_err_string(e));
		else
			device_error(seq, e, "allocating the argument sets");
	}
	if (fd >= 0)
		close(fd);
}

/* The first argument whose hash differs, + 1; 0 when none does. */
static int first_changed(const unsigned long long *x,
			 const unsigned long long *y)
{
	for (int a = 0; a < lay.nargs; a++)
		if (x[a] != y[a])
			return a + 1;
	return 0;
}

/* One call on set 0 under the ordering check (gpu_gate.h), its inputs
 * already on the device.  *order: 0 when nothing changed while the stream
 * was held, a + 1 when argument a did, -1 when the check was inconclusive
 * (the gate's deadline passed first: the kernel waited for its own stream
 * inside arena_launch).  *late: a + 1 when argument a changed after the
 * stream's own work had finished, else 0.  False when a device error was
 * replied. */
static bool gated_call(const char *seq, int64_t hold_us, int *rc, int *order,
		       int *late)
{
	unsigned long long before[RP_MAX_ARGS], held[RP_MAX_ARGS];
	unsigned long long end[RP_MAX_ARGS], fin[RP_MAX_ARGS];
	unsigned state = GATE_WAITING;
	/* Long enough for arena_launch to return; a kernel that waits for
	 * its own stream inside it waits this long. */
	uint64_t limit_ns = (uint64_t)(hold_us + 50000) * 1000;
	const char *during = "hashing the arguments";
	gpu_err e = gate_hash(&gate, dbuf[0], lay.bytes, lay.nargs, before);

	*order = -1;
	*late = 0;
	if (e == GPU(Success)) {
		during = "holding the stream";
		e = gate_close(&gate, stream, limit_ns);
	}
	if (e == GPU(Success)) {
		*rc = call_set(0);
		during = "in the kernel's launch";
		e = GPU(GetLastError)();
		if (e == GPU(Success))
			e = gate_hash_start(&gate, stream, 1, dbuf[0], lay.bytes,
					    lay.nargs);
		if (e == GPU(Success)) {
			gate_sleep_us(hold_us);
			during = "running the kernel (its stream held)";
			e = gate_hash(&gate, dbuf[0], lay.bytes, lay.nargs,
				      held);
		}
		if (e == GPU(Success))
			e = gate_state(&gate, &state);
		/* Opened whatever happened: nothing waits for the deadline. */
		gpu_err eo = gate_open(&gate);
		if (e == GPU(Success) && eo != GPU(Success)) {
			during = "releasing the stream";
			e = eo;
		}
	}
	if (e == GPU(Success)) {
		during = "running the kernel";
		e = gate_hash_read(&gate, stream, 1, lay.nargs, end);
	}
	if (e == GPU(Success))
		e = GPU(DeviceSynchronize)();
	if (e == GPU(Success))
		e = gate_hash(&gate, dbuf[0], lay.bytes, lay.nargs, fin);
	if (e != GPU(Success)) {
		device_error(seq, e, during);
		return false;
	}
	int hit = gate_fake_hit(dbuf[0], lay.bytes, lay.nargs, true);
	*late = hit >= 0 ? hit + 1 : first_changed(end, fin);
	if (state == GATE_EXPIRED || state == GATE_OPENED)
		return true;
	hit = gate_fake_hit(dbuf[0], lay.bytes, lay.nargs, false);
	*order = hit >= 0 ? hit + 1 : first_changed(before, held);
	return true;
}

/* Where a slow `call` spent its time, for the log (a reference's calls
 * on the H200 took 80-155 ms for 128 MiB of arguments): the first few
 * calls over 20 ms. */
static void log_slow_call(int64_t t0, int64_t tin, int64_t t1, int64_t t2)
{
	static int logged;

	if (t2 - t0 < 20000000 || logged >= 4)
		return;
	logged++;
	fprintf(stderr,
		"arena-runner-%s: slow call: arguments in %.1f ms, the call "
		"%.1f ms, arguments out %.1f ms (%zu bytes each way, %zu "
		"page-locked)\n",
		GPU_BACKEND, (double)(tin - t0) / 1e6, (double)(t1 - tin) / 1e6,
		(double)(t2 - t1) / 1e6, (size_t)lay.size, registered);
}

/* call <seq> [<hold_us>]: one call on set 0, every argument copied in and
 * out; with <hold_us>, under the ordering check, and the reply carries
 * its two findings (`ok <seq> <rc> <order> <late>`). */
static void do_call(const char *seq, char **save)
{
	int64_t hold_us = -1;
	int rc = 0, order = -1, late = 0;

	if (**save && (rio_parse_i64(save, &hold_us) || hold_us < 0 ||
		       hold_us > 10000000)) {
		rio_replyf("error %s bad hold time", seq);
		return;
	}
	int64_t t0 = mono_ns();
	CHECK(seq, copy_set(0, true, ~0u), "copying the inputs to the device");
	CHECK(seq, GPU(StreamSynchronize)(stream),
	      "copying the inputs to the device");
	int64_t tin = mono_ns();
	if (hold_us >= 0) {
		if (!gated_call(seq, hold_us, &rc, &order, &late))
			return;
	} else {
		rc = call_set(0);
		CHECK(seq, GPU(GetLastError)(), "in the kernel's launch");
	}
	if (raised(seq, rc))
		return;
	CHECK(seq, GPU(StreamSynchronize)(stream), "running the kernel");
	CHECK(seq, GPU(DeviceSynchronize)(), "running the kernel");
	int64_t t1 = mono_ns();
	CHECK(seq, copy_set(0, false, ~0u), "copying the outputs back");
	CHECK(seq, GPU(StreamSynchronize)(stream), "copying the outputs back");
	log_slow_call(t0, tin, t1, mono_ns());
	if (hold_us >= 0)
		rio_replyf("ok %s %d %d %d", seq, rc, order, late);
	else
		rio_replyf("ok %s %d", seq, rc);
}

#if !defined(ARENA_GPU_FAKE)
__global__ void peak_fma_kernel(float *sink, int iters, float seed);

/* Fills n elements of width bytes (1, 2, 4 or 8) with pattern. */
__global__ void fill_kernel(unsigned char *p, size_t n, int width,
			    unsigned long long pattern)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		switch (width) {
		case 1:
			p[i] = (unsigned char)pattern;
			break;
		case 2:
			((unsigned short *)p)[i] = (unsigned short)pattern;
			break;
		case 4:
			((unsigned int *)p)[i] = (unsigned int)pattern;
			break;
		default:
			((unsigned long long *)p)[i] = pattern;
		}
	}
}
#endif

static gpu_err fill_device(void *p, size_t n, int width, uint64_t pattern)
{
#if defined(ARENA_GPU_FAKE)
	unsigned char *b = (unsigned char *)p;
	for (size_t i = 0; i < n; i++)
		memcpy(b + i * (size_t)width, &pattern, (size_t)width);
	return GPU(Success);
#else
	fill_kernel<<<1024, 256, 0, stream>>>((unsigned char *)p, n, width,
					      (unsigned long long)pattern);
	return GPU(GetLastError)();
#endif
}

/* A short busy kernel before every sample: the device idles while the
 * controller prepares and checks a pair (tens of ms for large cases), its
 * clocks drop, and a kernel timed right after an idle gap would start
 * slow.  About 1 ms at full clock (docs/gpu.md). */
static gpu_err warm_device(void)
{
#if defined(ARENA_GPU_FAKE)
	return GPU(Success);
#else
	static float *sink;
	static int sms;
	if (!sink) {
		gpu_err e = GPU(Malloc)((void **)&sink, 1u << 16);
		if (e != GPU(Success))
			return e;
		(void)GPU(DeviceGetAttribute)(&sms, GPU_ATTR_SMS, 0);
		if (sms < 1)
			sms = 64;
	}
	peak_fma_kernel<<<(unsigned)(sms * 2), 256, 0, stream>>>(sink, 65536,
								 1.0f);
	return GPU(GetLastError)();
#endif
}

/* "g:<dist>:<a>:<b>:<lo>:<hi>:<seed hex>" into *g; false when malformed. */
static bool parse_gen(const char *tok, struct gen_spec *g)
{
	char dist;
	int used = 0;

	*g = gen_spec{};
	if (sscanf(tok, "g:%c:%lf:%lf:%lld:%lld:%llx%n", &dist, &g->a, &g->b,
		   &g->lo, &g->hi, &g->seed, &used) != 6 || tok[used] ||
	    !strchr("nuro", dist) || (dist == 'r' && g->lo > g->hi))
		return false;
	g->dist = dist;
	return true;
}

/* gen <seq> [<arg spec>...]: the inputs and poisoned outputs of a sample,
 * per argument "u" (copy it from shared memory), "<width>:<hex pattern>"
 * (fill the device buffer with the poison) or "g:..." (draw it on the
 * device, every set from the sample's seed: gpu_gen.h); no specs: copy
 * every argument.  Then a wait for the stream: the controller's clock
 * covers this request, and the L2 flush that follows is the keeper's. */
static void do_gen(const char *seq, char **save)
{
	uint32_t upload = ~0u, generate = 0;
	int fill_w[RP_MAX_ARGS] = { 0 };
	uint64_t fill_p[RP_MAX_ARGS] = { 0 };
	struct gen_spec gen[RP_MAX_ARGS];
	unsigned long long place = 0;
	bool place_given = false;
	char *tok = rio_next_tok(save);

	/* "p:<hex>": where the sets go, apart from the inputs' seeds. */
	if (tok && strncmp(tok, "p:", 2) == 0) {
		if (!parse_seed(tok + 2, &place)) {
			rio_replyf("error %s bad placement", seq);
			return;
		}
		place_given = true;
		tok = rio_next_tok(save);
	}
	for (int a = 0; tok != NULL; a++, tok = rio_next_tok(save)) {
		char *end;
		if (a >= lay.nargs) {
			rio_replyf("error %s too many argument specs", seq);
			return;
		}
		if (a == 0)
			upload = 0;
		if (strcmp(tok, "u") == 0) {
			upload |= 1u << a;
			continue;
		}
		if (tok[0] == 'g') {
			if (!parse_gen(tok, &gen[a])) {
				rio_replyf("error %s bad generator of argument %d",
					   seq, a);
				return;
			}
			generate |= 1u << a;
			continue;
		}
		long w = strtol(tok, &end, 10);
		if ((w != 1 && w != 2 && w != 4 && w != 8) || *end != ':' ||
		    (size_t)w != rio_dtype_bytes(lay.dtype[a])) {
			rio_replyf("error %s bad argument spec %d", seq, a);
			return;
		}
		errno = 0;
		fill_p[a] = strtoull(end + 1, &end, 16);
		if (errno || *end) {
			rio_replyf("error %s bad pattern of argument %d", seq, a);
			return;
		}
		fill_w[a] = (int)w;
	}
	/* The placement given, else the first drawn argument's seed (a
	 * gen that draws nothing keeps the buffers where they are). */
	if (place_given)
		place_sets(place);
	else
		for (int a = 0; a < lay.nargs; a++)
			if (generate >> a & 1) {
				place_sets(gen[a].seed);
				break;
			}
	for (int k = 0; k < nsets; k++) {
		CHECK(seq, copy_set(k, true, upload),
		      "copying the inputs to the device");
		for (int a = 0; a < lay.nargs; a++) {
			if (fill_w[a] && lay.numel[a])
				CHECK(seq, fill_device(dbuf[k][a],
						       (size_t)lay.numel[a],
						       fill_w[a], fill_p[a]),
				      "poisoning the outputs");
			if ((generate >> a & 1) && lay.numel[a])
				CHECK(seq, gen_fill(dbuf[k][a], lay.dtype[a],
						    (size_t)lay.numel[a], &gen[a],
						    k, stream),
				      "drawing the inputs");
		}
	}
	CHECK(seq, GPU(StreamSynchronize)(stream), "drawing the inputs");
#if defined(ARENA_GPU_FAKE)
	fake_gen_jitter();
#endif
	rio_replyf("ok %s", seq);
}

/* ---- the keeper ------------------------------------------------------- */

/*
 * A keeper is this runner started with no kernel at all (`- -` for the
 * shared object and entry): trusted code only, for the whole evaluation.
 * It warms the device before a runner's `gen`, flushes the device's L2
 * between that `gen` and the runner's `time` (so that the flush does not
 * depend on a process that holds candidate code), and probes the device
 * after the runner's `time` and `fetch`, and after a device error.
 * Contexts of different processes take turns on the device: a kernel a
 * runner left running delays the keeper's work, and the controller
 * charges that delay to the runner.  The controller sends the keeper its
 * request the moment it has read the runner's reply, before it stops the
 * runner, so that little can run on the device unseen in between; each
 * reply says when the keeper launched its first work (CLOCK_MONOTONIC,
 * the controller's clock too), so the controller knows how long that
 * was.
 */
static bool keeper;
/* Whether `flush` runs the busy kernel before its write
 * (ARENA_GPU_FLUSH_WARM=1, for measurements), or, by default, trusts the
 * runner's `gen`, which it follows within microseconds, to have kept the
 * device's clocks up: on an H100 that took a pair's two spans from
 * 8.9-10.8 ms to 6.0-8.1 ms with A/As unchanged (docs/gpu.md section 6,
 * "Where a lent evaluation's time goes"). */
static bool flush_warms;
static void *probe_dev;
static int64_t probe_min;	/* the fastest probe so far, ns */

/* Work another context left running is still being waited for after this
 * long: the reply says busy and the controller decides. */
#define KEEPER_IDLE_LIMIT_NS 10000000000LL

/* Probes until one finds the device idle: a 1 MiB write of the keeper's
 * own memory and a wait for the whole device, timed by this process's
 * own clock from launch to the end of the wait.  A whole-device wait
 * covers the keeper's own context only; work another context left running
 * shows as a delay of the write, which must wait for its turn on the
 * device (up to a time slice).  So the probes go on while each takes more
 * than twice the fastest probe seen plus 50 us; *busy when that lasted
 * KEEPER_IDLE_LIMIT_NS from t0. */
static gpu_err probe_until_idle(int64_t t0, bool *busy)
{
	*busy = false;
	for (;;) {
		int64_t p0 = mono_ns();
		gpu_err e = GPU(MemsetAsync)(probe_dev, (int)(++flush_round & 0xff),
					     (size_t)1 << 20, stream);
		if (e == GPU(Success))
			e = GPU(DeviceSynchronize)();
		if (e != GPU(Success))
			return e;
		int64_t ns = mono_ns() - p0;
		if (probe_min <= 0 || ns < probe_min)
			probe_min = ns;
		if (ns <= 2 * probe_min + 50000)
			return GPU(Success);
		if (mono_ns() - t0 > KEEPER_IDLE_LIMIT_NS) {
			*busy = true;
			return GPU(Success);
		}
	}
}

/* Runs what `run` enqueues, then probes until the device is idle, and
 * replies `ok <seq> <ns> <busy> <launched>`: ns by this process's clock
 * from just before the first launch to the device found idle (work
 * another context left running included, whenever it ran), busy 1 when
 * it was still running after KEEPER_IDLE_LIMIT_NS, launched the
 * CLOCK_MONOTONIC ns of the first launch. */
template <typename F> static void keeper_until_idle(const char *seq,
						    const char *what, F run)
{
	bool busy = false;
	int64_t t0 = mono_ns();

	CHECK(seq, run(), what);
	CHECK(seq, GPU(DeviceSynchronize)(), what);
	CHECK(seq, probe_until_idle(t0, &busy), "probing the device");
	int64_t ns = mono_ns() - t0;
	rio_replyf("ok %s %" PRId64 " %d %" PRId64, seq, ns < 1 ? (int64_t)1 : ns,
		   busy ? 1 : 0, t0);
}

/* flush <seq> <bytes>: a reset of persisting L2 lines and a write of
 * <bytes> (>= 2x L2) of the keeper's own memory, after a ~1 ms busy
 * kernel where flush_warms says so (the device idles while the controller
 * prepares a sample, its clocks drop, and a kernel timed right after an
 * idle gap would start slow; `warm` before the runner's `gen` sees to
 * that now); then probes until the device is idle (keeper_until_idle). */
static void do_keeper_flush(const char *seq, char **save)
{
	int64_t bytes;

	if (rio_parse_i64(save, &bytes) || bytes < 4096 ||
	    bytes > RP_MAX_FLUSH_BYTES) {
		rio_replyf("error %s bad flush size", seq);
		return;
	}
	if (!flush_dev || flush_dev_size != (size_t)bytes) {
		if (flush_dev)
			(void)GPU(Free)(flush_dev);
		flush_dev = NULL;
		CHECK(seq, GPU(Malloc)(&flush_dev, (size_t)bytes),
		      "allocating the L2 flush buffer");
		flush_dev_size = (size_t)bytes;
	}
	/* Every line of L2 is overwritten with flush data (device writes go
	 * through L2), and no line stays pinned by a persisting-access
	 * window.  The emulation has no cache: writing its 64 MiB of host
	 * memory would only add milliseconds of noise to every sample. */
#if defined(ARENA_GPU_FAKE)
	size_t write = flush_dev_size < ((size_t)1 << 20) ? flush_dev_size
							  : (size_t)1 << 20;
#else
	size_t write = flush_dev_size;
#endif
	keeper_until_idle(seq, "flushing the L2 cache", [&] {
		/* Persisting lines (a set-aside a candidate's context may
		 * have asked for) back to normal first, so that the write
		 * below evicts them too. */
		gpu_reset_persisting_l2();
		(void)GPU(GetLastError)();
		gpu_err e = flush_warms ? warm_device() : GPU(Success);
		if (e == GPU(Success))
			e = GPU(MemsetAsync)(flush_dev,
					     (int)(++flush_round & 0xff), write,
					     stream);
		return e;
	});
}

/* probe <seq>: probes until the device is idle (keeper_until_idle, with
 * nothing before the probes).  Is another context's work still running,
 * and does the device work at all? */
static void do_probe(const char *seq)
{
	keeper_until_idle(seq, "probing the device",
			  [] { return GPU(Success); });
}

/* warm <seq>: the ~1 ms busy kernel alone and a wait for the device,
 * before a runner's `gen`: whichever runner of a pair goes first then
 * finds the device as warm as the second does (on the H200 the first
 * sample of a pair paid 25-35 us more in `gen` and in the flush than the
 * second, 2026-12-02).  ok <seq> <ns>, by this process's clock. */
static void do_warm(const char *seq)
{
	int64_t t0 = mono_ns();

	CHECK(seq, warm_device(), "warming the device");
	CHECK(seq, GPU(DeviceSynchronize)(), "warming the device");
	rio_replyf("ok %s %" PRId64, seq, mono_ns() - t0);
}

/*
 * Lent sets (docs/gpu.md section 6, "the keeper's compare").  The keeper
 * allocates every timing runner's argument sets, exportable
 * (gpu_rt.h), and the controller hands each runner its own descriptor
 * with `sets`: a runner never holds another's.  With both runners of a
 * pair stopped, the keeper compares the candidate's sets with the
 * baseline's where they lie (gpu_cmp.h) and copies to a runner's shared
 * memory only what the controller must see (a reference check's set, a
 * failure to word): a timed pair no longer copies every output to the
 * host.  A slot is one runner's sets; the runner's shared memory comes
 * with `lend` so that `take` can write into it.
 */
static struct lent_slot {
	struct rio_layout lay;
	int n;
	size_t stride;
	struct set_plan plan;
	struct gpu_vmm mem;
	unsigned char *shm; /* the runner's shared memory, for take */
	size_t shm_len;
} lent[RP_LEND_SLOTS];

static uintptr_t *cmp_htab;
static void *cmp_dtab;
static unsigned long long *cmp_res;

static void lent_free(struct lent_slot *s)
{
	if (s->mem.ptr)
		gpu_vmm_release(&s->mem);
	if (s->shm)
		munmap(s->shm, s->shm_len);
	s->shm = NULL;
	s->shm_len = 0;
	s->n = 0;
}

/* The slot named by the next token, with sets in it (need_sets). */
static struct lent_slot *parse_slot(char **save, bool need_sets)
{
	int64_t i;

	if (rio_parse_i64(save, &i) || i < 0 || i >= RP_LEND_SLOTS ||
	    (need_sets && !lent[i].n))
		return NULL;
	return &lent[i];
}

/* A placement seed ("-": none, every argument at the start of its
 * window). */
static bool parse_place(char **save, bool *placed, unsigned long long *seed)
{
	char *tok = rio_next_tok(save);

	if (!tok)
		return false;
	*placed = strcmp(tok, "-") != 0;
	return !*placed || parse_seed(tok, seed);
}

/* Where argument a of set k of slot s lies for the sample. */
static unsigned char *lent_arg(const struct lent_slot *s, int k, int a,
			       bool placed, unsigned long long seed)
{
	size_t at = (size_t)k * s->plan.span + s->plan.off[a];

	if (placed)
		at += place_offset(seed, k, a, s->plan.window[a]);
	return (unsigned char *)s->mem.ptr + at;
}

/* lend <seq> <slot> <n> <stride> <layout...> + the runner's shared
 * memory: n sets of the layout (its window and slot sizes as a runner's
 * own, plan_sets) in one exportable allocation, replacing the slot's;
 * `ok <seq> <bytes>` with the allocation's descriptor. */
static void do_lend(const char *seq, char **save)
{
	int fd = rio_take_fd();
	int64_t n, stride;
	struct lent_slot *s = parse_slot(save, false);
	struct stat st;
	struct rio_layout l;
	char why[128] = "bad lend request";

	if (fd < 0 || !s || fstat(fd, &st) != 0 || rio_parse_i64(save, &n) ||
	    rio_parse_i64(save, &stride) || n < 1 || n > RP_MAX_SETS ||
	    stride < 1 || stride % RP_ALIGN != 0 ||
	    (uint64_t)stride * (uint64_t)n > (uint64_t)st.st_size ||
	    rio_parse_layout(save, stride, &l, why, sizeof(why))) {
		if (fd >= 0)
			close(fd);
		rio_replyf("error %s %s", seq, why);
		return;
	}
	lent_free(s);
	s->lay = l;
	s->n = (int)n;
	s->stride = (size_t)stride;
	plan_sets(&l, (int)n, &s->plan);
	s->shm_len = (size_t)(n * stride);
	s->shm = (unsigned char *)mmap(NULL, s->shm_len, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd, 0);
	close(fd);
	if (s->shm == MAP_FAILED) {
		s->shm = NULL;
		lent_free(s);
		rio_replyf("error %s cannot map the runner's shared memory",
			   seq);
		return;
	}
	int out = -1;
	gpu_err e = gpu_vmm_create((size_t)n * s->plan.span, &s->mem, &out);
	if (e != GPU(Success)) {
		lent_free(s);
		(void)GPU(GetLastError)();
		/* No exportable memory here (HIP, an old driver, a sandbox
		 * the export needs more from): the controller keeps the host
		 * fetch, unless the device itself failed. */
		if (GPU(DeviceSynchronize)() == GPU(Success))
			rio_replyf("error %s lend unsupported: %s (%s)", seq,
				   gpu_err_name(e), gpu_err_string(e));
		else
			device_error(seq, e, "allocating lent sets");
		return;
	}
	rio_reply_fd(out, "ok %s %zu", seq, s->mem.size);
	close(out);
}

/* unlend <seq> <slot>: the keeper's part of a slot freed (what a runner
 * still maps stays until it maps something else). */
static void do_unlend(const char *seq, char **save)
{
	struct lent_slot *s = parse_slot(save, false);

	if (!s) {
		rio_replyf("error %s bad slot", seq);
		return;
	}
	lent_free(s);
	rio_replyf("ok %s", seq);
}

/* One argument's rule: "-" skipped, "=" bit for bit, "t:<atol>:<rtol>"
 * within tolerance (integers bit for bit). */
static bool parse_rule(const char *tok, int dtype, struct cmp_job *j)
{
	char *end;

	j->dtype = dtype;
	j->atol = j->rtol = 0;
	if (strcmp(tok, "-") == 0) {
		j->kind = CMP_SKIP;
		return true;
	}
	if (strcmp(tok, "=") == 0) {
		j->kind = CMP_BITS;
		return true;
	}
	if (tok[0] != 't' || tok[1] != ':')
		return false;
	j->kind = CMP_TOL;
	j->atol = strtod(tok + 2, &end);
	if (*end != ':')
		return false;
	j->rtol = strtod(end + 1, &end);
	return !*end && j->atol >= 0 && j->rtol >= 0;
}

/* compare <seq> <bslot> <cslot> <place> <rule>...: every set of cslot's
 * arguments (the candidate's) against bslot's (the baseline's) at the
 * sample's placement, per argument by its rule; `ok <seq> <bad> <set>
 * <arg> <index>`: how many elements failed, and the first (lowest set,
 * then argument, then index; -1 -1 -1 when none). */
static void do_compare(const char *seq, char **save)
{
	struct lent_slot *b = parse_slot(save, true);
	struct lent_slot *c = parse_slot(save, true);
	struct cmp_job jobs[RP_MAX_ARGS];
	unsigned long long seed = 0;
	bool placed = false, same = b && c && b != c && b->n == c->n &&
				    b->lay.nargs == c->lay.nargs;

	for (int a = 0; same && a < b->lay.nargs; a++)
		same = b->lay.bytes[a] == c->lay.bytes[a] &&
		       b->lay.dtype[a] == c->lay.dtype[a] &&
		       b->plan.window[a] == c->plan.window[a];
	if (!same || !parse_place(save, &placed, &seed)) {
		rio_replyf("error %s bad compare request", seq);
		return;
	}
	int nargs = b->lay.nargs, n = b->n;
	for (int a = 0; a < nargs; a++) {
		char *tok = rio_next_tok(save);
		if (!tok || !parse_rule(tok, b->lay.dtype[a], &jobs[a])) {
			rio_replyf("error %s bad rule for argument %d", seq, a);
			return;
		}
		jobs[a].esize = rio_dtype_bytes(b->lay.dtype[a]);
		jobs[a].numel = (size_t)b->lay.numel[a];
	}
	size_t tab_bytes = (size_t)nargs * (size_t)n * 2 * sizeof(uintptr_t);
	if (!cmp_htab) {
		size_t most = (size_t)RP_MAX_ARGS * RP_MAX_SETS * 2 *
			      sizeof(uintptr_t);
		cmp_htab = (uintptr_t *)malloc(most);
		CHECK(seq, cmp_htab ? GPU(Success) : GPU(ErrorMemoryAllocation),
		      "allocating the compare tables");
		CHECK(seq, GPU(Malloc)(&cmp_dtab, most),
		      "allocating the compare tables");
		CHECK(seq,
		      GPU(Malloc)((void **)&cmp_res,
				  2 * RP_MAX_ARGS * sizeof(*cmp_res)),
		      "allocating the compare results");
	}
	unsigned long long res[2 * RP_MAX_ARGS];
	for (int a = 0; a < nargs; a++) {
		res[2 * a] = 0;
		res[2 * a + 1] = CMP_NONE;
		for (int k = 0; k < n; k++) {
			uintptr_t *t = cmp_htab + ((size_t)a * n + k) * 2;
			t[0] = (uintptr_t)lent_arg(c, k, a, placed, seed);
			t[1] = (uintptr_t)lent_arg(b, k, a, placed, seed);
		}
	}
	CHECK(seq,
	      GPU(MemcpyAsync)(cmp_dtab, cmp_htab, tab_bytes,
			       GPU(MemcpyHostToDevice), stream),
	      "comparing the sets");
	CHECK(seq,
	      GPU(MemcpyAsync)(cmp_res, res, 2 * (size_t)nargs * sizeof(*res),
			       GPU(MemcpyHostToDevice), stream),
	      "comparing the sets");
	for (int a = 0; a < nargs; a++)
		if (jobs[a].kind != CMP_SKIP && jobs[a].numel)
			CHECK(seq,
			      cmp_enqueue(&jobs[a], n,
					  (const uintptr_t *)cmp_dtab +
						  (size_t)a * n * 2,
					  cmp_htab + (size_t)a * n * 2,
					  cmp_res + 2 * a, stream),
			      "comparing the sets");
	CHECK(seq,
	      GPU(MemcpyAsync)(res, cmp_res, 2 * (size_t)nargs * sizeof(*res),
			       GPU(MemcpyDeviceToHost), stream),
	      "comparing the sets");
	CHECK(seq, GPU(StreamSynchronize)(stream), "comparing the sets");
	unsigned long long bad = 0, first = CMP_NONE;
	int first_arg = -1;
	for (int a = 0; a < nargs; a++) {
		bad += res[2 * a];
		/* Lowest set first, then the lowest argument. */
		if (res[2 * a] &&
		    (first == CMP_NONE || res[2 * a + 1] >> 48 < first >> 48)) {
			first = res[2 * a + 1];
			first_arg = a;
		}
	}
	if (!bad)
		rio_replyf("ok %s 0 -1 -1 -1", seq);
	else
		rio_replyf("ok %s %llu %llu %d %llu", seq, bad, first >> 48,
			   first_arg, first & ((1ull << 48) - 1));
}

/*
 * Where a take handed a descriptor lands: the controller's memory (a
 * background reference check's buffer, its reference runner's shared
 * memory, refpool.c), mapped and page-locked once and kept for the next
 * takes into the same memory: a copy from the device into page-locked
 * memory runs at the link's speed, into pageable memory at a fraction of
 * it.  The oldest is let go when a new one needs its place.
 */
#define TAKE_DESTS 6
static struct take_dest {
	dev_t dev;
	ino_t ino;
	unsigned char *p;
	size_t len, locked;
	unsigned long long used;
} take_dests[TAKE_DESTS];
static unsigned long long take_clock;

static void take_dest_drop(struct take_dest *d)
{
	if (d->locked)
		(void)GPU(HostUnregister)(d->p);
	if (d->p)
		munmap(d->p, d->len);
	memset(d, 0, sizeof(*d));
}

/* fd's memory mapped here, its first `need` bytes page-locked where the
 * driver allows (failure only costs speed); NULL when it is smaller. */
static unsigned char *take_dest(int fd, size_t need)
{
	struct stat st;
	struct take_dest *d = NULL;

	if (fstat(fd, &st) != 0 || st.st_size < 0 || (size_t)st.st_size < need)
		return NULL;
	for (int i = 0; i < TAKE_DESTS && !d; i++) {
		struct take_dest *e = &take_dests[i];
		if (e->p && e->dev == st.st_dev && e->ino == st.st_ino) {
			if (e->len == (size_t)st.st_size)
				d = e;
			else
				take_dest_drop(e);
		}
	}
	for (int i = 0; i < TAKE_DESTS && !d; i++)
		if (!take_dests[i].p)
			d = &take_dests[i];
	if (!d) {
		d = &take_dests[0];
		for (int i = 1; i < TAKE_DESTS; i++)
			if (take_dests[i].used < d->used)
				d = &take_dests[i];
	}
	if (!d->p || d->dev != st.st_dev || d->ino != st.st_ino) {
		take_dest_drop(d);
		void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return NULL;
		d->p = (unsigned char *)p;
		d->len = (size_t)st.st_size;
		d->dev = st.st_dev;
		d->ino = st.st_ino;
	}
	d->used = ++take_clock;
	gpu_err e;
	d->locked = lock_grown(d->p, d->len, d->locked, need, &e);
	return d->p;
}

/* take <seq> <slot> <place> <mask> <set>...: the arguments in mask of the
 * sets listed, at the sample's placement, into the runner's shared memory
 * where its own fetch would put them (set k at k * stride).  Handed a
 * descriptor, one set is listed and lands in that memory as set 0 would
 * (take_dest). */
static void do_take(const char *seq, char **save)
{
	int dfd = rio_take_fd();
	struct lent_slot *s = parse_slot(save, true);
	unsigned long long seed = 0;
	bool placed = false;
	int64_t mask, k;
	int listed = 0;
	int64_t sets[RP_MAX_SETS];

	if (!s || !parse_place(save, &placed, &seed) ||
	    rio_parse_i64(save, &mask) || mask < 0) {
		if (dfd >= 0)
			close(dfd);
		rio_replyf("error %s bad take request", seq);
		return;
	}
	while (**save) {
		if (rio_parse_i64(save, &k) || k < 0 || k >= s->n ||
		    listed == RP_MAX_SETS) {
			if (dfd >= 0)
				close(dfd);
			rio_replyf("error %s bad set in take", seq);
			return;
		}
		sets[listed++] = k;
	}
	if (!listed || (dfd >= 0 && listed != 1)) {
		if (dfd >= 0)
			close(dfd);
		rio_replyf("error %s take lists %s", seq,
			   listed ? "more than one set for a descriptor"
				  : "no set");
		return;
	}
	unsigned char *dst = s->shm;
	size_t stride = s->stride;
	if (dfd >= 0) {
		size_t need = 0;
		for (int a = 0; a < s->lay.nargs; a++)
			if ((mask >> a & 1) &&
			    s->lay.offset[a] + s->lay.bytes[a] > need)
				need = s->lay.offset[a] + s->lay.bytes[a];
		dst = take_dest(dfd, need);
		close(dfd);
		stride = 0;
		if (!dst) {
			rio_replyf("error %s take destination refused: it "
				   "cannot be mapped, or is smaller than a set",
				   seq);
			return;
		}
	}
	for (int j = 0; j < listed; j++)
		for (int a = 0; a < s->lay.nargs; a++)
			if ((mask >> a & 1) && s->lay.bytes[a])
				CHECK(seq,
				      GPU(MemcpyAsync)(
					      dst + (size_t)sets[j] * stride +
						      s->lay.offset[a],
					      lent_arg(s, (int)sets[j], a,
						       placed, seed),
					      s->lay.bytes[a],
					      GPU(MemcpyDeviceToHost), stream),
				      "taking a set");
	CHECK(seq, GPU(StreamSynchronize)(stream), "taking a set");
	rio_replyf("ok %s", seq);
}

/* gate <seq> with a descriptor: the controller's gate page
 * (gpu_gate.h, gate_page_map), for `time <n> gate <token>`. */
static void do_gate_page(const char *seq)
{
	int fd = rio_take_fd();
	const char *why = "no descriptor came with the request";
	gpu_err e = GPU(ErrorInvalidValue);

	if (fd >= 0) {
		e = gate_page_map(&gate, fd, &why);
		close(fd);
	}
	if (e == GPU(Success))
		rio_replyf("ok %s", seq);
	else
		rio_replyf("error %s gate page refused: %s (%s)", seq, why,
			   gpu_err_name(e));
}

/*
 * capture <seq> <n> <place>: the coming `time`'s n calls (sets 0..n-1),
 * at the placement whose seed is place ("-": every argument at the start
 * of its window; a later `gen` must place the sets alike), recorded on
 * the stream before their inputs exist and kept as one graph, so that
 * `time ... graph` runs them with one launch and no call of the kernel's
 * own code (docs/gpu.md section 6, "A batch captured before its inputs
 * exist").  `ok <seq> 1` when captured; `ok <seq> 0 <why>` when not (a
 * call failed or raised, or did what a capture refuses, such as waiting
 * for the device): the calls then run live.  Capturing runs the kernel's
 * host code on sets that hold the previous sample's data, which the
 * `gen` after it overwrites; the controller's clock does not run, since
 * nothing the runner learns here tells it the coming inputs.
 */
static void do_capture(const char *seq, char **save)
{
	int64_t n;
	bool placed = false;
	unsigned long long seed = 0;
	char why[600];

	drop_capture();
	if (rio_parse_i64(save, &n) || n < 1 || n > nsets ||
	    !parse_place(save, &placed, &seed)) {
		rio_replyf("error %s bad capture request", seq);
		return;
	}
	if (placed)
		place_sets(seed);
	else
		unplace_sets();
	(void)GPU(GetLastError)();
	gpu_err e = gpu_capture_begin(stream);
	if (e != GPU(Success)) {
		(void)GPU(GetLastError)();
		rio_replyf("ok %s 0 the capture did not begin (%s)", seq,
			   gpu_err_name(e));
		return;
	}
	int rc = 0;
	for (int k = 0; k < n && rc == 0; k++)
		rc = call_set(k);
	struct gpu_graph g;
	e = gpu_capture_end(stream, &g);
	if (rc == RUNNER_EMBED_RAISED && embed && embed->failure)
		embed->failure(why, sizeof(why));
	else if (rc)
		snprintf(why, sizeof(why), "a call returned %d", rc);
	else if (e != GPU(Success))
		snprintf(why, sizeof(why), "the capture failed (%s: %s)",
			 gpu_err_name(e), gpu_err_string(e));
	if (rc || e != GPU(Success)) {
		gpu_graph_release(&g);
		(void)GPU(GetLastError)();
		rio_replyf("ok %s 0 %s", seq, why);
		return;
	}
	cap.g = g;
	cap.n = (int)n;
	cap.placed = sets_placed;
	cap.place_seed = sets_place_seed;
	rio_replyf("ok %s 1", seq);
}

/* Runs the captured batch (do_capture): the calls' return code (0 for a
 * graph, whose launch error the runtime keeps for GetLastError, as a
 * kernel launch's).  The fake's capture recorded nothing (its launches
 * are host calls that ran at once): it calls the batch again. */
static int launch_captured(void)
{
#if defined(ARENA_GPU_FAKE)
	int rc = 0;
	for (int k = 0; k < cap.n; k++) {
		int r = call_set(k);
		if (r == RUNNER_EMBED_RAISED)
			return r;
		if (r != 0 && rc == 0)
			rc = r;
	}
	return rc;
#else
	(void)gpu_graph_launch(&cap.g, stream);
	return 0;
#endif
}

/*
 * time <seq> <n> [hold | gate <token>] [graph].  With "hold" the gate's kernel
 * (gpu_gate.h) holds the stream from before the start event until every
 * call is enqueued: a Python kernel's launch costs tens to hundreds of
 * microseconds of host time, during which the device would idle inside
 * the timed window (six Triton tasks' A/As on the H200 had intervals of
 * +-4-9% at 250-530 us per call, 2026-12-03, where CUDA and HIP tasks of
 * the same length had +-0.2-0.5%).  What the host does meanwhile is
 * outside the events but inside the controller's clock, which charges a
 * candidate for it (docs/gpu.md section 6).  A launch that waits for its
 * own stream waits out the gate's limit: slower, never stuck.  With
 * "gate <token>" the controller opens it (gate_close_on): once every call
 * is enqueued the runner answers "armed <seq>" and the controller writes
 * the token; the reply follows as for "hold".
 */
#define HOLD_LIMIT_NS ((uint64_t)RP_GATE_LIMIT_NS)

static void do_time(const char *seq, char **save)
{
	int64_t n, token = 0;
	float ms = 0;
	int rc = 0;
	bool hold = false, ctl = false, armed = false, graph = false;

	if (rio_parse_i64(save, &n) || n < 1 || n > nsets) {
		rio_replyf("error %s bad batch size", seq);
		return;
	}
	char *w = rio_next_tok(save);
	if (w && strcmp(w, "graph") != 0) {
		ctl = strcmp(w, "gate") == 0;
		if ((strcmp(w, "hold") != 0 && !ctl) ||
		    (ctl && (rio_parse_i64(save, &token) || token < 1 ||
			     token > 0xffffffffll || !gate.ctl_host))) {
			rio_replyf("error %s bad time option", seq);
			return;
		}
		hold = !ctl;
		w = rio_next_tok(save);
	}
	if (w && strcmp(w, "graph") == 0) {
		graph = true;
		w = rio_next_tok(save);
	}
	if (w) {
		rio_replyf("error %s bad time option", seq);
		return;
	}
	/* The batch captured for this sample, or none: never another's. */
	if (graph && (cap.n != n || !cap.g.exec || cap.placed != sets_placed ||
		      (sets_placed && cap.place_seed != sets_place_seed))) {
		rio_replyf("error %s no batch of %d calls captured at this "
			   "placement",
			   seq, (int)n);
		return;
	}
	if (hold)
		CHECK(seq, gate_close(&gate, stream, HOLD_LIMIT_NS),
		      "holding the stream");
	else if (ctl) {
		gpu_err e = gate_close_on(&gate, stream, (unsigned)token,
					  HOLD_LIMIT_NS);
		if (e != GPU(Success))
			gate_open_on(&gate, (unsigned)token);
		CHECK(seq, e, "holding the stream");
#if defined(ARENA_GPU_FAKE)
		/* The fake runs each call as it is launched: the calls wait
		 * for the token here, as the device would behind the gate
		 * (unless the test makes the gate expire first, as a slow
		 * first launch does on a GPU). */
		if (!fake_gate_expires(HOLD_LIMIT_NS)) {
			rio_replyf("armed %s", seq);
			armed = true;
			gate_fake_wait(&gate, (unsigned)token, HOLD_LIMIT_NS);
		}
#endif
	}
	CHECK(seq, GPU(EventRecord)(ev_start, stream), "recording an event");
	/* One launch of the captured batch, or the n calls. */
	for (int k = 0; k < (graph ? 1 : n); k++) {
		int r = graph ? launch_captured() : call_set(k);
		if (r == RUNNER_EMBED_RAISED && hold)
			(void)gate_open(&gate);
		else if (r == RUNNER_EMBED_RAISED && ctl)
			gate_open_on(&gate, (unsigned)token);
		if (raised(seq, r))
			return;
		if (r != 0 && rc == 0)
			rc = r;
	}
	gpu_err launched = GPU(GetLastError)();
	gpu_err ended = launched == GPU(Success)
				? GPU(EventRecord)(ev_end, stream)
				: GPU(Success);
	/* Opened whatever happened: nothing waits for the deadline. */
	gpu_err opened = hold ? gate_open(&gate) : GPU(Success);
	if (ctl && !armed &&
	    (launched != GPU(Success) || ended != GPU(Success)))
		gate_open_on(&gate, (unsigned)token);
	else if (ctl && !armed)
		rio_replyf("armed %s", seq);
	CHECK(seq, launched, "in the kernel's launch");
	CHECK(seq, ended, "recording an event");
	CHECK(seq, opened, "releasing the stream");
	CHECK(seq, GPU(EventSynchronize)(ev_end), "running the kernel");
	/* Whatever the stream's end event did not cover - work on another
	 * stream, or still running - shows up here. */
	int64_t t0 = mono_ns();
	CHECK(seq, GPU(DeviceSynchronize)(), "running the kernel");
	int64_t drain = mono_ns() - t0;
	CHECK(seq, GPU(EventElapsedTime)(&ms, ev_start, ev_end),
	      "reading the events");
	int64_t ns = (int64_t)((double)ms * 1e6 + 0.5);
	if (ns < 1)
		ns = 1;
	/* Spent: never run again.  Its graph is released by the next
	 * capture (or free_sets), outside every clock: released here, its
	 * teardown (the larger the batch, the longer) would lie between the
	 * gate's opening and the reply, the span the controller charges
	 * with least noise (the gate's reaction, docs/gpu.md section 6). */
	cap.n = 0;
	rio_replyf("ok %s %d %" PRId64 " %" PRId64, seq, rc, ns, drain);
}

/* fetch <seq> [<mask> [<set>...]]: the arguments whose bit is set (all
 * without a mask) of the sets listed (every set without a list), back
 * into shared memory. */
static void do_fetch(const char *seq, char **save)
{
	int64_t mask = -1, k;
	bool listed = false;

	if (**save && (rio_parse_i64(save, &mask) || mask < 0)) {
		rio_replyf("error %s bad fetch mask", seq);
		return;
	}
	while (**save) {
		if (rio_parse_i64(save, &k) || k < 0 || k >= nsets) {
			rio_replyf("error %s bad set in fetch", seq);
			return;
		}
		CHECK(seq, copy_set((int)k, false, (uint32_t)mask),
		      "copying the outputs back");
		listed = true;
	}
	for (int i = 0; !listed && i < nsets; i++)
		CHECK(seq, copy_set(i, false, (uint32_t)mask),
		      "copying the outputs back");
	CHECK(seq, GPU(StreamSynchronize)(stream), "copying the outputs back");
	rio_replyf("ok %s", seq);
}

static const char *entry_name;

/* The kernel's entry: the shared object's symbol, or what the embedding
 * program's loader returns.  NULL with a message in why. */
static arena_launch_fn load_kernel(const char *path, const char *entry,
				   char *why, size_t n)
{
	if (embed)
		return embed->load(path, entry, why, n);
	return rio_load_entry(path, entry, why, n);
}

/* Loads the kernel from the descriptor that came with the request
 * (deferred start: the runner opened its device while the kernel was
 * still compiling). */
static void do_load(const char *seq)
{
	int fd = rio_take_fd();

	if (launch) {
		if (fd >= 0)
			close(fd);
		rio_replyf("error %s a kernel is already loaded", seq);
		return;
	}
	if (fd < 0) {
		rio_replyf("error %s load came without a descriptor", seq);
		return;
	}
	if (fd != RP_FD_KERNEL) {
		if (dup2(fd, RP_FD_KERNEL) < 0) {
			close(fd);
			rio_replyf("error %s cannot take the descriptor", seq);
			return;
		}
		close(fd);
	}
	/* From here on candidate code may run (constructors). */
	char why[512];
	launch = load_kernel(RP_KERNEL_PATH, entry_name, why, sizeof(why));
	if (!launch) {
		rio_replyf("error %s %s", seq, why);
		return;
	}
	rio_replyf("ok %s", seq);
}

static void serve(void)
{
	for (;;) {
		char *cmd, *seq, *save;
		rio_next_request(&cmd, &seq, &save);
		if (dead) {
			rio_replyf("error %s %s", seq, dead_msg);
			continue;
		}
		if (keeper) {
			/* No kernel ever: nothing else is served. */
			if (strcmp(cmd, "flush") == 0)
				do_keeper_flush(seq, &save);
			else if (strcmp(cmd, "probe") == 0)
				do_probe(seq);
			else if (strcmp(cmd, "warm") == 0)
				do_warm(seq);
			else if (strcmp(cmd, "lend") == 0)
				do_lend(seq, &save);
			else if (strcmp(cmd, "unlend") == 0)
				do_unlend(seq, &save);
			else if (strcmp(cmd, "compare") == 0)
				do_compare(seq, &save);
			else if (strcmp(cmd, "take") == 0)
				do_take(seq, &save);
			else
				rio_replyf(
					"error %s a keeper serves warm, "
					"flush, probe, lend, unlend, compare "
					"and take only",
					seq);
			continue;
		}
		if (strcmp(cmd, "load") == 0) {
			do_load(seq);
			continue;
		}
		if (strcmp(cmd, "gate") == 0) {
			do_gate_page(seq);
			continue;
		}
		if (!launch) {
			rio_replyf("error %s no kernel loaded yet", seq);
			continue;
		}
		if (strcmp(cmd, "layout") == 0) {
			do_layout(seq, &save);
			continue;
		}
		if (!nsets) {
			rio_replyf("error %s no layout yet", seq);
			continue;
		}
		if (strcmp(cmd, "sets") == 0)
			do_sets(seq, &save);
		else if (strcmp(cmd, "call") == 0)
			do_call(seq, &save);
		else if (strcmp(cmd, "gen") == 0)
			do_gen(seq, &save);
		else if (strcmp(cmd, "time") == 0)
			do_time(seq, &save);
		else if (strcmp(cmd, "capture") == 0)
			do_capture(seq, &save);
		else if (strcmp(cmd, "fetch") == 0)
			do_fetch(seq, &save);
		else
			rio_replyf("error %s unknown request", seq);
	}
}

/* ---- start-up --------------------------------------------------------- */

/*
 * Stream-ordered allocation (cudaMallocAsync / hipMallocAsync), which a
 * kernel may use for scratch (cuda2cuda/moe_align_block_size,
 * radix_sort_pass, splitk_gemm): the runtime creates the device's default
 * memory pool on first use, and whatever it opens or starts for it then
 * must happen before the sandbox closes, as for the first allocation
 * above.  Without this the baselines of moe_align_block_size and
 * radix_sort_pass failed their cudaMallocAsync in every runner on the
 * H200 (2026-12-02) while a plain program on the same device succeeded
 * (tests/gpu/bench/pool_probe.cu: Landlock alone is enough to make the
 * pool's creation fail); `--selftest` checks the pool under the sandbox.
 * A failure here only leaves the pool cold (the kernel's own call then
 * reports it): a device without pools is no reason to refuse the runner.
 * The keeper never runs a kernel and skips it.  The pool keeps the memory
 * freed into it (release threshold: all of it), below.
 */
static void warm_pool(int dev)
{
	int pools = 0;
	void *p = NULL;

	if (keeper ||
	    GPU(DeviceGetAttribute)(&pools, GPU_ATTR_POOLS, dev) != GPU(Success) ||
	    !pools) {
		(void)GPU(GetLastError)();
		return;
	}
	/* The pool keeps what is freed into it, as a framework's caching
	 * allocator does: with the default threshold of 0 every
	 * synchronisation hands the memory back, and a kernel that takes
	 * scratch per call pays for mapping it again each time, on the host,
	 * outside its stream's events (on the H200 an honest dot with
	 * per-call scratch ran 90 us per sample beyond its claims and was
	 * rejected as inconsistent with the controller's clock). */
	gpu_pool pool;
	unsigned long long keep = ~0ull;
	if (GPU(DeviceGetDefaultMemPool)(&pool, dev) == GPU(Success))
		(void)GPU(MemPoolSetAttribute)(pool, GPU_POOL_RELEASE_THRESHOLD,
					       &keep);
	if (GPU(MallocAsync)(&p, (size_t)1 << 20, stream) == GPU(Success)) {
		(void)GPU(MemsetAsync)(p, 0, (size_t)1 << 20, stream);
		(void)GPU(FreeAsync)(p, stream);
	}
	(void)GPU(StreamSynchronize)(stream);
	(void)GPU(GetLastError)();
}

/*
 * The keeper's file-system rules: no writes anywhere, as for every
 * runner, except the NVIDIA device nodes.  Exporting an allocation as a
 * file descriptor (`lend`, gpu_rt.h) makes the driver open a new
 * descriptor of its control device read-write, which the rules of a
 * runner refuse; the keeper runs no candidate code, and its device is
 * open already.  Nodes that do not exist are skipped (sbx_landlock_fs).
 */
static const struct sbx_fs *keeper_fs(void)
{
	static char names[34][24];
	static const char *list[35];
	static struct sbx_fs fs;

	if (!list[0]) {
		snprintf(names[0], sizeof(names[0]), "/dev/nvidiactl");
		snprintf(names[1], sizeof(names[1]), "/dev/nvidia-uvm");
		for (int i = 0; i < 32; i++)
			snprintf(names[i + 2], sizeof(names[i + 2]),
				 "/dev/nvidia%d", i);
		for (int i = 0; i < 34; i++)
			list[i] = names[i];
		fs.write = list;
	}
	return &fs;
}

/* Opens the device and everything the requests need, before the sandbox:
 * the driver opens its device files read-write and starts threads here. */
static gpu_err open_device(int dev, const char **during)
{
	gpu_err e;
	void *probe = NULL;

	*during = "selecting the device";
	if ((e = GPU(SetDevice)(dev)) != GPU(Success))
		return e;
	*during = "creating a context";
	if ((e = GPU(Free)(0)) != GPU(Success))
		return e;
	*during = "creating the stream and events";
	if ((e = GPU(StreamCreateWithFlags)(&stream, GPU(StreamNonBlocking))) !=
		    GPU(Success) ||
	    (e = GPU(EventCreate)(&ev_start)) != GPU(Success) ||
	    (e = GPU(EventCreate)(&ev_end)) != GPU(Success))
		return e;
	gpu_no_persisting_l2();
	(void)GPU(GetLastError)();
	*during = "preparing the ordering check";
	if ((e = gate_init(&gate)) != GPU(Success))
		return e;
	/* One round trip of everything a request does, so that the driver
	 * has done its lazy set-up before the sandbox closes. */
	*during = "a first allocation, copy and memset";
	char host[256] = { 0 };
	if ((e = GPU(Malloc)(&probe, sizeof(host))) != GPU(Success) ||
	    (e = GPU(MemcpyAsync)(probe, host, sizeof(host),
				  GPU(MemcpyHostToDevice), stream)) !=
		    GPU(Success) ||
	    (e = GPU(MemsetAsync)(probe, 1, sizeof(host), stream)) !=
		    GPU(Success) ||
	    (e = GPU(EventRecord)(ev_start, stream)) != GPU(Success) ||
	    (e = GPU(MemcpyAsync)(host, probe, sizeof(host),
				  GPU(MemcpyDeviceToHost), stream)) !=
		    GPU(Success) ||
	    (e = GPU(EventRecord)(ev_end, stream)) != GPU(Success) ||
	    (e = GPU(StreamSynchronize)(stream)) != GPU(Success) ||
	    (e = GPU(DeviceSynchronize)()) != GPU(Success))
		return e;
	(void)GPU(Free)(probe);
	warm_pool(dev);
	return GPU(Success);
}

#include "gpu_diag.h"

/* Seconds per start-up step, one line on stderr (the role's log): where a
 * runner's start goes (docs/python.md, tests/gpu/py_startup.sh). */
struct step_clock {
	struct timespec t;
	char line[256];
	size_t len;
};

static void step_clock_start(struct step_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->t);
	c->len = 0;
	c->line[0] = 0;
}

static void step_clock_mark(struct step_clock *c, const char *step)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	double s = (double)(now.tv_sec - c->t.tv_sec) +
		   (double)(now.tv_nsec - c->t.tv_nsec) / 1e9;
	int n = snprintf(c->line + c->len, sizeof(c->line) - c->len,
			 "%s%s %.3f", c->len ? ", " : "", step, s);
	if (n > 0 && (size_t)n < sizeof(c->line) - c->len)
		c->len += (size_t)n;
	c->t = now;
}

static void step_clock_report(const struct step_clock *c, const char *who)
{
	fprintf(stderr, "arena-runner-%s: %s started: %s\n", GPU_BACKEND, who,
		c->line);
	fflush(stderr);
}

static int runner_main(int argc, char **argv)
{
	struct stat st;
	char *end;

	if (argc == 2 && strcmp(argv[1], "--query") == 0)
		return query();
	if (argc == 3 && strcmp(argv[1], "--selftest") == 0) {
		long d = strtol(argv[2], &end, 10);
		if (*end || d < 0 || d > 1024)
			return 2;
		return selftest((int)d);
	}
	if (argc == 3 && strcmp(argv[1], "--peaks") == 0) {
		long d = strtol(argv[2], &end, 10);
		if (*end || d < 0 || d > 1024)
			return 2;
		return peaks((int)d);
	}
	sbx_close_other_fds();
	long dev = argc == 4 ? strtol(argv[3], &end, 10) : -1;
	if (argc != 4 || *end || dev < 0 || dev > 1024 ||
	    fstat(RP_FD_CONTROL, &st) != 0 || !S_ISSOCK(st.st_mode) ||
	    fstat(RP_FD_SHM, &st) != 0) {
		fprintf(stderr,
			"usage: arena-runner-%s <so-path> <entry> <device>\n"
			"       arena-runner-%s - - <device>   (a keeper)\n"
			"       arena-runner-%s --query | --peaks <device> | "
			"--selftest <device>\n"
			"(started by arena with a control socket on fd 3, "
			"shared memory on fd 4 and the kernel on fd 5)\n",
			GPU_BACKEND, GPU_BACKEND, GPU_BACKEND);
		return 2;
	}
	shm_size = (size_t)st.st_size;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sbx_drop_capabilities();
	int nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;

	const char *during = "";
	keeper = strcmp(argv[1], "-") == 0 && strcmp(argv[2], "-") == 0;
	struct step_clock sc;
	step_clock_start(&sc);
	gpu_err e = open_device((int)dev, &during);
	step_clock_mark(&sc, "device");
	if (e == GPU(Success) && keeper) {
		during = "allocating the keeper's probe buffer";
		e = GPU(Malloc)(&probe_dev, (size_t)1 << 20);
	}
	if (e != GPU(Success)) {
		rio_replyf("nodevice %ld %s device %ld: %s %s (%s)",
			   (long)getpid(), GPU_BACKEND, dev, during,
			   gpu_err_name(e), gpu_err_string(e));
		_exit(1);
	}
	char why[512];
	if (embed && embed->prepare &&
	    embed->prepare((int)dev, (void *)stream, why, sizeof(why)) != 0) {
		rio_replyf("nodevice %ld %s device %ld: %s", (long)getpid(),
			   GPU_BACKEND, dev, why);
		_exit(1);
	}
	step_clock_mark(&sc, "prepare");
	shm_base = (unsigned char *)mmap(NULL, shm_size, PROT_READ | PROT_WRITE,
					 MAP_SHARED, RP_FD_SHM, 0);
	if (shm_base == MAP_FAILED) {
		rio_replyf("nodevice %ld cannot map %zu bytes of shared memory",
			   (long)getpid(), shm_size);
		_exit(1);
	}
	int landlock = nnp && sbx_landlock_fs(keeper  ? keeper_fs()
					      : embed ? embed->fs
						      : NULL) == 0;
	int seccomp = nnp && sbx_seccomp(SBX_GPU | (embed ? embed->seccomp_extra
							   : 0)) == 0;
	step_clock_mark(&sc, "sandbox");
	const char *fw = getenv("ARENA_GPU_FLUSH_WARM");
	flush_warms = fw && strcmp(fw, "1") == 0;
	/* Requests awaited by polling where the controller says so
	 * (runner_io.h): a blocked runner's wake-up is noise in the
	 * controller's clock around every timed request. */
	const char *spin = getenv("ARENA_RUNNER_SPIN_US");
	if (spin)
		rio_set_spin((int64_t)strtol(spin, NULL, 10) * 1000);
	rio_replyf("hello %ld %s,%s", (long)getpid(), seccomp ? "seccomp" : "-",
		   landlock ? "landlock" : "-");
	entry_name = argv[2];
	if (strcmp(argv[1], "-") == 0) {
		/* Deferred: the kernel comes later with a `load` request;
		 * a keeper never gets one. */
		step_clock_report(&sc, keeper ? "keeper" : "deferred");
		serve();
		return 0;
	}

	/* From here on candidate code may run (constructors). */
	launch = load_kernel(argv[1], argv[2], why, sizeof(why));
	if (!launch) {
		rio_replyf("error %s", why);
		_exit(1);
	}
	step_clock_mark(&sc, "load");
	step_clock_report(&sc, "runner");
	rio_replyf("ready");
	serve();
	return 0;
}

#ifdef ARENA_RUNNER_EMBED
int arena_runner_gpu_main(int argc, char **argv, const struct runner_embed *e)
{
	embed = e;
	return runner_main(argc, argv);
}
#else
int main(int argc, char **argv)
{
	return runner_main(argc, argv);
}
#endif

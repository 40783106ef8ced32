/*
 * gpu_memory.c - the device memory of a GPU evaluation: what its runners
 * may hold at most, and the device's memory ledger (arena/memledger.h),
 * in which every evaluation on the device writes that down before its
 * first runner starts there and waits while the sum would pass the
 * device's memory (docs/gpu.md section 5).
 *
 * Without it, evaluations that share a device each start a dozen runners
 * holding up to 2 GiB of sets: four at once pass an 80 GB device, and
 * the allocation that fails is a runner's - a baseline's `infra_error`,
 * or an honest candidate's `runtime_error` caused by someone else.
 */
#include "evaluation.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#define MIB (1ull << 20)

/* $ARENA_GPU_MEMORY_MIB, a positive number, else 0. */
static uint64_t memory_knob(void)
{
	const char *v = getenv("ARENA_GPU_MEMORY_MIB");
	char *end;

	if (!v || !*v)
		return 0;
	unsigned long long mib = strtoull(v, &end, 10);
	return *end == '\0' ? (uint64_t)mib * MIB : 0;
}

uint64_t ev_gpu_memory_usable(const struct gpu_info *g)
{
	uint64_t knob = memory_knob();

	if (knob)
		return knob;
	if (g->memory_bytes <= 0)
		return 0;
	return (uint64_t)g->memory_bytes / 10 * GPU_MEMORY_USABLE_TENTHS;
}

char *ev_gpu_memory_ledger_dir(const struct gpu_info *g, const char *device,
			       const char *lock_dir)
{
	char name[96];

	ev_device_lock_name(g, device, name, sizeof(name));
	return ev_device_file(lock_dir, name, ".mem");
}

/* GPU runners x starts: its correctness roles on the device and two
 * per further timing block (none when it skips timing); the keeper
 * aside. */
static int gpu_runners(const struct eval_ctx *x)
{
	int runners = 0;

	for (int role = 0; role < NROLES; role++)
		if (ev_role_gpu(x, (enum role)role))
			runners++;
	if (!x->req->skip_timing)
		runners += 2 * (ev_timing_blocks(x) - 1);
	return runners;
}

/* A context and the L2 flush buffer, what every GPU process holds. */
static uint64_t process_bytes(const struct eval_ctx *x)
{
	return GPU_CONTEXT_BYTES + gpu_flush_bytes(&x->gi);
}

uint64_t ev_gpu_sets_room(const struct eval_ctx *x)
{
	uint64_t usable = ev_gpu_memory_usable(&x->gi);
	int runners = gpu_runners(x);
	uint64_t fixed = (uint64_t)(runners + 1) * process_bytes(x);

	if (!usable || runners == 0)
		return 0;
	/* (1 byte: one set a batch, whatever its size.) */
	return usable > fixed ? (usable - fixed) / (uint64_t)runners : 1;
}

uint64_t ev_gpu_memory_need(const struct eval_ctx *x)
{
	/* The keeper: a context and the flush buffer, no sets. */
	return (uint64_t)gpu_runners(x) *
		       (process_bytes(x) + x->gpu_sets_bytes) +
	       process_bytes(x);
}

static void mark_view(struct eval_ctx *x, const char *what, uint64_t cap,
		      const struct memledger_view *v)
{
	ev_trace_mark(x,
		      "%s: %.0f MiB asked; %.0f MiB held by %d other "
		      "evaluation%s of %.0f MiB usable, %d waiting ahead",
		      what, (double)x->mem.bytes / MIB,
		      (double)v->held_bytes / MIB, v->holders,
		      v->holders == 1 ? "" : "s", (double)cap / MIB,
		      v->waiting_ahead);
}

bool ev_gpu_memory_admit(struct eval_ctx *x, bool wait)
{
	struct memledger_view v;
	struct errbuf e;
	uint64_t cap;
	int rc;

	if (!x->gpu || x->mem.granted || !(cap = ev_gpu_memory_usable(&x->gi)))
		return true;
	char *dir = ev_gpu_memory_ledger_dir(&x->gi, x->req->device,
					     x->req->lock_dir);
	errbuf_init(&e);
	if (x->mem.fd < 0)
		rc = memledger_ask(dir, cap, ev_gpu_memory_need(x), &x->mem, &v,
				   &e);
	else
		rc = memledger_retry(dir, cap, &x->mem, &v, &e);
	if (rc == -EWOULDBLOCK && wait) {
		uint64_t asked = now_ns();
		long sleep_ns = 10 * 1000 * 1000;
		/* Never wait for memory while holding the device: the
		 * holders may be waiting for it. */
		ev_unlock_device(x);
		mark_view(x, "waiting for device memory", cap, &v);
		enum result_phase was = ev_phase_enter(x, RPH_LOCK_WAIT);
		while (rc == -EWOULDBLOCK) {
			struct timespec ts = { 0, sleep_ns };
			nanosleep(&ts, NULL);
			if (sleep_ns < 100 * 1000 * 1000)
				sleep_ns *= 2;
			rc = memledger_retry(dir, cap, &x->mem, &v, &e);
		}
		ev_phase_enter(x, was);
		if (rc == 0)
			ev_trace_mark(x,
				      "device memory granted after waiting "
				      "%.1f ms",
				      (double)(now_ns() - asked) / 1e6);
	} else if (rc == 0) {
		mark_view(x, "device memory granted", cap, &v);
	} else if (rc == -EWOULDBLOCK) {
		mark_view(x, "device memory queued", cap, &v);
	}
	free(dir);
	if (rc && rc != -EWOULDBLOCK)
		ev_verdict(x, RS_INFRA_ERROR,
			   "the device's memory ledger failed: %s",
			   errbuf_str(&e));
	return rc == 0;
}

bool ev_gpu_memory_before_launch(struct eval_ctx *x)
{
	int mode = x->lockmode;

	if (x->mem.granted)
		return true;
	if (!ev_gpu_memory_admit(x, true))
		return false;
	return !mode || x->lockmode || ev_lock_or_verdict(x, mode);
}

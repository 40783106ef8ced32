/*
 * gpu_gate.h - the GPU runner's ordering check: is all of a kernel's work
 * ordered on the stream it was given?
 *
 * A kernel must enqueue its work on the stream `arena_launch` receives (or
 * on streams that wait on it).  Work launched elsewhere - its own
 * non-blocking stream, the legacy default stream, a synchronous copy -
 * escapes the timing events and races with whatever the caller queued
 * before it.  The check, on a correctness call:
 *
 *   1. hash every argument buffer on the device (`before`);
 *   2. close the gate: a one-thread kernel on the runner's stream that
 *      spins until the runner opens it (or a deadline passes), so nothing
 *      enqueued on that stream after it can run;
 *   3. call arena_launch, then wait `hold` on the host;
 *   4. queue a hash of every buffer on the given stream, after the
 *      kernel's work (`end`);
 *   5. hash every buffer again on a second stream of the runner's own,
 *      which does not wait for the gate (`held`), and read the gate's
 *      state;
 *   6. open the gate, wait for the whole device, hash again (`final`).
 *
 * Ordered work cannot have run by step 5, so a buffer that changed
 * between `before` and `held` was written by work that does not wait for
 * the stream.  A buffer that changed between `end` and `final` was written
 * after the stream's own work had finished: work forked from the stream
 * and never joined back into it.  That second finding is a race (the
 * forked work and the `end` hash start together when the gate opens), won
 * by the check unless the forked work finishes before the hash has read
 * the buffer.  If the gate's
 * deadline passed before step 4 ended (a kernel that synchronises inside
 * arena_launch waits for it), the check is inconclusive, never a verdict.
 *
 * The fake runtime (gpu_rt_fake.h) runs every launch at once, so it cannot
 * hold a stream: there a test kernel declares its unordered writes with
 * arena_fake_gpu_write_unordered(), and the gate reports those.
 *
 * The same gate holds a timed batch (`time <n> hold`): opened by the
 * runner once every call is enqueued, or (`time <n> gate <token>`) by
 * the controller, which writes the token into a page of its own that the
 * runner maps into the device's address space (gate_page_map): the
 * controller then knows when the batch could start, and the time from
 * that moment to the reply, less the claim, binds the claim within the
 * gate's reaction (docs/gpu.md section 6, "The controller opens the
 * gate").  On the fake runtime the runner waits for the token itself
 * before it runs the calls (gate_fake_wait).
 */
#ifndef ARENA_GPU_GATE_H
#define ARENA_GPU_GATE_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "gpu_rt.h"
#include "arena/runner_proto.h"

/* gate[0]: opened by the runner; gate[1]: the gate kernel's state. */
enum { GATE_WAITING = 0, GATE_HOLDING = 1, GATE_OPENED = 2, GATE_EXPIRED = 3 };

struct gpu_gate {
	unsigned *dev;			/* gate[2] */
	unsigned long long *hashes;	/* two slots of one per argument */
	gpu_stream side;		/* does not wait for the gate */
	/* The controller's page (gate_page_map), or NULL: its first word
	 * opens a gate closed with gate_close_on when it equals the token. */
	volatile unsigned *ctl_host;
	unsigned *ctl_dev;
};

#if !defined(ARENA_GPU_FAKE)
__device__ static unsigned long long gate_clock_ns(void)
{
#if defined(ARENA_GPU_HIP)
	/* s_memrealtime: a constant 100 MHz on gfx9 and later. */
#if defined(__HIP_DEVICE_COMPILE__)
	return (unsigned long long)__builtin_amdgcn_s_memrealtime() * 10ull;
#else
	return 0;
#endif
#else
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
#endif
}

/* Spins until *open == want (gate[0], or the controller's page). */
__global__ void gate_kernel(volatile unsigned *gate,
			    volatile const unsigned *open, unsigned want,
			    unsigned long long limit_ns)
{
	unsigned long long t0 = gate_clock_ns(), spins = 0;

	gate[1] = GATE_HOLDING;
	__threadfence_system();
	for (;;) {
		if (*open == want) {
			gate[1] = GATE_OPENED;
			return;
		}
		unsigned long long now = gate_clock_ns();
		/* Without a clock, about 100 ns a spin. */
		if ((now && now - t0 > limit_ns) ||
		    (!now && ++spins > limit_ns / 100)) {
			gate[1] = GATE_EXPIRED;
			return;
		}
#if defined(ARENA_GPU_HIP)
		__builtin_amdgcn_s_sleep(2);
#else
		__nanosleep(100);
#endif
	}
}

__device__ static unsigned long long gate_mix(unsigned long long z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* An order-independent hash of n bytes: the sum of a mix of every 8-byte
 * word with its index (device allocations are 256-byte aligned). */
__global__ void gate_hash_kernel(const unsigned char *p, size_t n,
				 unsigned long long *out)
{
	size_t words = n / 8, stride = (size_t)gridDim.x * blockDim.x;
	size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long acc = 0;

	for (size_t i = first; i < words; i += stride)
		acc += gate_mix(((const unsigned long long *)p)[i] ^
				(i * 0x9e3779b97f4a7c15ull));
	if (first == 0)
		for (size_t i = words * 8; i < n; i++)
			acc += gate_mix((unsigned long long)p[i] << 8 ^ i);
	if (acc)
		atomicAdd(out, acc);
}
#endif

static gpu_err gate_init(struct gpu_gate *g)
{
	gpu_err e;

	memset(g, 0, sizeof(*g));
	if ((e = GPU(Malloc)((void **)&g->dev, 2 * sizeof(unsigned))) !=
		    GPU(Success) ||
	    (e = GPU(Malloc)((void **)&g->hashes,
			     2 * RP_MAX_ARGS * sizeof(unsigned long long))) !=
		    GPU(Success))
		return e;
	return GPU(StreamCreateWithFlags)(&g->side, GPU(StreamNonBlocking));
}

/* Starts hashing n buffers on stream s into hash slot `slot` (0 or 1). */
static gpu_err gate_hash_start(struct gpu_gate *g, gpu_stream s, int slot,
			       void *const *buf, const size_t *bytes, int n)
{
	unsigned long long *h = g->hashes + slot * RP_MAX_ARGS;
	gpu_err e = GPU(MemsetAsync)(h, 0, RP_MAX_ARGS * sizeof(*h), s);

	if (e != GPU(Success))
		return e;
#if defined(ARENA_GPU_FAKE)
	(void)buf, (void)bytes, (void)n;
	return GPU(Success);
#else
	for (int a = 0; a < n; a++)
		if (bytes[a] > 0)
			gate_hash_kernel<<<512, 256, 0, s>>>(
				(const unsigned char *)buf[a], bytes[a], h + a);
	return GPU(GetLastError)();
#endif
}

/* Waits for slot's hashes (queued on stream s) and copies them out. */
static gpu_err gate_hash_read(struct gpu_gate *g, gpu_stream s, int slot,
			      int n, unsigned long long *out)
{
#if defined(ARENA_GPU_FAKE)
	(void)g, (void)s, (void)slot;
	memset(out, 0, (size_t)n * sizeof(*out));
	return GPU(Success);
#else
	gpu_err e = GPU(MemcpyAsync)(out, g->hashes + slot * RP_MAX_ARGS,
				     (size_t)n * sizeof(*out),
				     GPU(MemcpyDeviceToHost), s);
	return e == GPU(Success) ? GPU(StreamSynchronize)(s) : e;
#endif
}

/* Hashes of n buffers now, on the gate's own stream (slot 0). */
static gpu_err gate_hash(struct gpu_gate *g, void *const *buf,
			 const size_t *bytes, int n, unsigned long long *out)
{
	gpu_err e = gate_hash_start(g, g->side, 0, buf, bytes, n);

	return e == GPU(Success) ? gate_hash_read(g, g->side, 0, n, out) : e;
}

/* Holds `stream` until gate_open, or for limit_ns at most. */
static gpu_err gate_close(struct gpu_gate *g, gpu_stream stream,
			  uint64_t limit_ns)
{
	gpu_err e = GPU(MemsetAsync)(g->dev, 0, 2 * sizeof(unsigned), stream);

	if (e != GPU(Success))
		return e;
#if defined(ARENA_GPU_FAKE)
	(void)limit_ns;
	fake_gate_closed = 1;
	fake_unordered_ptr = fake_late_ptr = NULL;
	return GPU(Success);
#else
	gate_kernel<<<1, 1, 0, stream>>>(g->dev, g->dev, 1u,
					 (unsigned long long)limit_ns);
	return GPU(GetLastError)();
#endif
}

/* Maps the controller's gate page (a descriptor of at least one page)
 * into the device's address space; on failure the gate stays the
 * runner's own and the reason is in *why. */
static gpu_err gate_page_map(struct gpu_gate *g, int fd, const char **why)
{
	void *p = mmap(NULL, RP_GATE_PAGE_BYTES, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	gpu_err e;

	*why = NULL;
	if (p == MAP_FAILED) {
		*why = "the page cannot be mapped";
		return GPU(ErrorInvalidValue);
	}
	if (g->ctl_host) {
		*why = "a gate page was mapped before";
		munmap(p, RP_GATE_PAGE_BYTES);
		return GPU(ErrorInvalidValue);
	}
	e = GPU(HostRegister)(p, RP_GATE_PAGE_BYTES, GPU(HostRegisterMapped));
	if (e == GPU(Success)) {
		e = GPU(HostGetDevicePointer)((void **)&g->ctl_dev, p, 0);
		if (e != GPU(Success))
			(void)GPU(HostUnregister)(p);
	}
	if (e != GPU(Success)) {
		(void)GPU(GetLastError)();
		*why = "the page cannot be mapped into the device's address "
		       "space";
		munmap(p, RP_GATE_PAGE_BYTES);
		return e;
	}
	g->ctl_host = (volatile unsigned *)p;
	return GPU(Success);
}

/* Holds `stream` until the controller writes `token` into its page, or
 * for limit_ns at most.  On the fake runtime nothing is queued: the
 * runner waits itself (gate_fake_wait) before it runs the calls. */
static gpu_err gate_close_on(struct gpu_gate *g, gpu_stream stream,
			     unsigned token, uint64_t limit_ns)
{
	gpu_err e = GPU(MemsetAsync)(g->dev, 0, 2 * sizeof(unsigned), stream);

	if (e != GPU(Success))
		return e;
#if defined(ARENA_GPU_FAKE)
	(void)limit_ns, (void)token;
	return GPU(Success);
#else
	gate_kernel<<<1, 1, 0, stream>>>(g->dev, g->ctl_dev, token,
					 (unsigned long long)limit_ns);
	return GPU(GetLastError)();
#endif
}

/* Opens a gate closed with gate_close_on from this side (a launch that
 * failed: nothing should wait for the deadline). */
static void gate_open_on(struct gpu_gate *g, unsigned token)
{
	__atomic_store_n(g->ctl_host, token, __ATOMIC_RELEASE);
}

#if defined(ARENA_GPU_FAKE)
/* The fake runtime's gate: waits until the page holds `token`, for
 * limit_ns at most, as a device held by gate_close_on would.  It yields
 * and then naps between looks, as a device's gate kernel does not need
 * to: this "device" is a CPU, and on two of them a spinning runner kept
 * the controller from the CPU it needed to open the gate. */
static void gate_fake_wait(struct gpu_gate *g, unsigned token,
			   uint64_t limit_ns)
{
	struct timespec nap = { 0, 5000 };
	int64_t end = fake_now() + (int64_t)limit_ns;

	for (int look = 0;
	     __atomic_load_n(g->ctl_host, __ATOMIC_ACQUIRE) != token; look++) {
		if (fake_now() > end)
			return;
		if (look < 20)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
}
#endif

/* The gate kernel's state (GATE_*), read without waiting for it. */
static gpu_err gate_state(struct gpu_gate *g, unsigned *state)
{
#if defined(ARENA_GPU_FAKE)
	*state = GATE_HOLDING;
	(void)g;
	return GPU(Success);
#else
	unsigned s[2] = { 0, 0 };
	gpu_err e = GPU(MemcpyAsync)(s, g->dev, sizeof(s),
				     GPU(MemcpyDeviceToHost), g->side);
	if (e == GPU(Success))
		e = GPU(StreamSynchronize)(g->side);
	*state = s[1];
	return e;
#endif
}

static gpu_err gate_open(struct gpu_gate *g)
{
#if defined(ARENA_GPU_FAKE)
	fake_gate_closed = 0;
	(void)g;
	return GPU(Success);
#else
	static const unsigned one = 1;
	gpu_err e = GPU(MemcpyAsync)(g->dev, &one, sizeof(one),
				     GPU(MemcpyHostToDevice), g->side);
	return e == GPU(Success) ? GPU(StreamSynchronize)(g->side) : e;
#endif
}

/* The argument (0-based) that the fake's declared unordered (late: true,
 * after the stream ended) write hit, or -1; real devices compare hashes
 * instead. */
static int gate_fake_hit(void *const *buf, const size_t *bytes, int n,
			 bool late)
{
#if defined(ARENA_GPU_FAKE)
	const unsigned char *p = (const unsigned char *)(late ? fake_late_ptr
							 : fake_unordered_ptr);
	for (int a = 0; p && a < n; a++) {
		const unsigned char *b = (const unsigned char *)buf[a];
		if (p >= b && p < b + bytes[a])
			return a;
	}
#else
	(void)buf, (void)bytes, (void)n, (void)late;
#endif
	return -1;
}

static void gate_sleep_us(int64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0)
		;
}

#endif /* ARENA_GPU_GATE_H */

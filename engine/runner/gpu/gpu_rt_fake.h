/*
 * gpu_rt_fake.h - a host emulation of the handful of runtime calls the GPU
 * runner makes (gpu_rt.h, backend ARENA_GPU_FAKE).  Built as
 * build/tests/arena-runner-fakegpu, it lets the test suite drive the GPU
 * runner and the controller's whole GPU path (device facts, batches,
 * drain and thread checks, device errors) on any machine: "device" memory
 * is host memory, a kernel is a host function that runs when it is
 * "launched", events read CLOCK_MONOTONIC.
 *
 * The "device" is shared by every runner of one controller process, as a
 * real device is shared by every context on it: a page of
 * /dev/shm/arena-fake-gpu-<controller pid>-<device>, mapped before the
 * sandbox closes, holds until when the device is busy with work some
 * process left running (a whole-device wait of any process waits for
 * it, so the keeper's flush and probe are delayed by a candidate's
 * leftover work as they would be on a GPU, whose contexts take turns)
 * and whether the device is broken.  When $ARENA_FAKE_GPU_DIR is set (a
 * directory /dev/shm/arena-fake-gpu-*, made by the test), the page is
 * <dir>/<device> instead: confined runners have a private /dev/shm and no
 * parent in their PID namespace, and the GPU profile shows that directory
 * as it shows a real GPU's device nodes.  Where the page cannot be created,
 * the state is the process's own and cross-process effects are not
 * emulated.
 *
 * Test kernels reach the emulation through functions the runner exports
 * (it links with -rdynamic):
 *   arena_fake_gpu_fault(code, sticky)  the next runtime call reports code
 *                                       (700 = cudaErrorIllegalAddress,
 *                                       2 = cudaErrorMemoryAllocation,
 *                                       214 = cudaErrorECCUncorrectable)
 *   arena_fake_gpu_leave_work(ns)       work left on "another stream": the
 *                                       device is busy for ns more, and
 *                                       every whole-device wait (this
 *                                       runner's drain, the keeper's flush
 *                                       and probe) waits for it
 *   arena_fake_gpu_leave_work_hidden(ns)
 *                                       the same, except that this
 *                                       process's own waits do not see it:
 *                                       a runner patched to skip its drain
 *   arena_fake_gpu_break_device()       every runtime call of every process
 *                                       on this device fails from now on
 *                                       with cudaErrorECCUncorrectable: a
 *                                       hardware fault
 *   arena_fake_gpu_write_unordered(p, byte, n)
 *                                       writes n bytes at p "from another
 *                                       stream": while the runner holds its
 *                                       stream (gpu_gate.h), the ordering
 *                                       check reports the buffer p is in
 *   arena_fake_gpu_write_late(p, byte, n)
 *                                       the same "after the given stream
 *                                       had finished": work never joined
 * and $ARENA_FAKE_GPU_NO_VMM makes the keeper's exportable allocations
 * (gpu_rt.h) fail as unsupported, as on a device without them;
 * $ARENA_FAKE_GPU_NO_IMPORT makes a runner's mapping of them fail;
 * $ARENA_FAKE_GPU_NO_HOST_MAP makes mapping a page of host memory into
 * the "device's" address space fail (the controller's gate page,
 * gpu_gate.h), and $ARENA_FAKE_GPU_GATE_EXPIRES makes each runner's first
 * batch behind the controller's gate outlast the gate's deadline (as a
 * fresh GPU runner's first launch does): the batch runs before the
 * token, and "armed" and the reply come together.
 *   arena_fake_gpu_alloc_base(p)        the start of the allocation p
 *                                       points into (the runner places
 *                                       arguments at an offset in theirs;
 *                                       in memory the keeper lent, the
 *                                       start of the argument's slot,
 *                                       fake_note_alloc)
 *   arena_fake_gpu_capturing()         1 while the runner captures a
 *                                       batch (gpu_rt.h)
 *   arena_fake_gpu_alloc_range(p, &base, &len)
 *                                       that allocation's start and length,
 *                                       0 when found (cuMemGetAddressRange's
 *                                       contract: the Python runner makes
 *                                       argument tensors as views of it)
 * Never part of a real build.
 */
#ifndef ARENA_GPU_RT_FAKE_H
#define ARENA_GPU_RT_FAKE_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define GPU_PASTE(a, b) a##b
#define GPU(x) GPU_PASTE(fake, x)
#define GPU_BACKEND "cuda"
#define GPU_ATTR_L2 1
#define GPU_ATTR_SMS 2
#define GPU_ATTR_POOLS 3
#define GPU_POOL_RELEASE_THRESHOLD 1
#define GPU_HAS_PERSISTING_L2 0

typedef int fakeError_t;
typedef void *fakeStream_t;
typedef struct fake_event {
	int64_t t;
} *fakeEvent_t;
enum {
	fakeSuccess = 0,
	fakeErrorInvalidValue = 1,
	fakeErrorMemoryAllocation = 2,
	fakeErrorNoDevice = 100,
	fakeErrorECCUncorrectable = 214,
	fakeErrorIllegalAddress = 700,
	fakeErrorLaunchTimeout = 702,
	fakeErrorNotSupported = 801,
	fakeStreamNonBlocking = 1,
	fakeHostRegisterDefault = 0,
	fakeHostRegisterMapped = 2,
	fakeMemcpyHostToDevice = 1,
	fakeMemcpyDeviceToHost = 2,
	fakeMemcpyDeviceToDevice = 3,
};
struct fake_prop {
	char name[256];
	int major, minor;
	size_t totalGlobalMem;
	int pciDomainID, pciBusID, pciDeviceID;
	int multiProcessorCount;
};
typedef struct fake_prop fakeDeviceProp_t;

static int fake_sticky, fake_soft;

/* Host memory page-locked (HostRegister), so that the fake refuses what a
 * GPU refuses: a copy whose host side is partly inside a page-locked
 * range and partly outside it fails with cudaErrorInvalidValue.  On an
 * H100 (2026-12-07) a baseline whose shared memory was locked for a
 * smaller layout and not again for the sets the keeper lent it failed so
 * in the reference checks that fetched its inputs from a set across the
 * old lock's end; copies wholly outside (pageable) or wholly inside
 * worked. */
enum { FAKE_LOCKS = 64 }; /* a few registrations a runner */
static struct {
	const char *p;
	size_t n;
} fake_locked[FAKE_LOCKS];

static inline void fake_lock_add(const void *p, size_t n)
{
	for (int i = 0; i < FAKE_LOCKS; i++)
		if (!fake_locked[i].p) {
			fake_locked[i].p = (const char *)p;
			fake_locked[i].n = n;
			return;
		}
}

static inline void fake_lock_del(const void *p)
{
	for (int i = 0; i < FAKE_LOCKS; i++)
		if (fake_locked[i].p == (const char *)p)
			fake_locked[i].p = NULL;
}

/* Whether host memory [p, p + n) is page-locked in part: it overlaps a
 * registered range without lying inside it. */
static inline bool fake_lock_straddles(const void *p, size_t n)
{
	const char *c = (const char *)p;

	for (int i = 0; i < FAKE_LOCKS; i++) {
		const char *b = fake_locked[i].p, *e = b + fake_locked[i].n;
		if (b && c < e && c + n > b && (c < b || c + n > e))
			return true;
	}
	return false;
}

/* Whether this gated batch outlasts its gate (once, the runner's first),
 * having waited out the gate's deadline of limit_ns. */
static inline bool fake_gate_expires(uint64_t limit_ns)
{
	static bool expired_once;

	if (expired_once || !getenv("ARENA_FAKE_GPU_GATE_EXPIRES"))
		return false;
	expired_once = true;
	struct timespec t = { (time_t)(limit_ns / 1000000000ull),
			      (long)(limit_ns % 1000000000ull) };
	nanosleep(&t, NULL);
	return true;
}
static int fake_gate_closed;
static void *fake_unordered_ptr, *fake_late_ptr;

/* The emulated device, shared by the runners of one controller. */
struct fake_device {
	int64_t busy_until;   /* CLOCK_MONOTONIC ns: work left running */
	int64_t hidden_until; /* the same, unseen by hidden_owner */
	int32_t busy_owner;   /* pid that left it */
	int32_t hidden_owner;
	int32_t broken; /* every call fails (a hardware fault) */
};
static struct fake_device fake_dev_local, *fake_dev = &fake_dev_local;

static inline int64_t fake_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Removes the pages of controllers that are gone. */
static void fake_dev_sweep(void)
{
	DIR *d = opendir("/dev/shm");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		long pid;
		int dev;
		if (sscanf(e->d_name, "arena-fake-gpu-%ld-%d", &pid, &dev) !=
			    2 ||
		    pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char path[300];
		snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
		unlink(path);
	}
	closedir(d);
}

/* Maps the shared page of device d (once, before the sandbox). */
static void fake_dev_open(int d)
{
	static bool done;
	char path[96];

	if (done)
		return;
	done = true;
	/* A confined runner is pid 1 of its own PID namespace (its parent
	 * is not in it) and has a private /dev/shm: there the controller's
	 * environment names the directory of the shared page, which the
	 * GPU profile shows (base/confine.c). */
	const char *dir = getenv("ARENA_FAKE_GPU_DIR");
	if (dir && *dir) {
		snprintf(path, sizeof(path), "%s/%d", dir, d);
	} else {
		fake_dev_sweep();
		snprintf(path, sizeof(path), "/dev/shm/arena-fake-gpu-%ld-%d",
			 (long)getppid(), d);
	}
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	if (ftruncate(fd, 4096) == 0) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			       fd, 0);
		if (p != MAP_FAILED)
			fake_dev = (struct fake_device *)p;
	}
	close(fd);
}

/* Makes the device busy for ns more from now (or from when it frees). */
static void fake_dev_busy(int64_t *until, int64_t ns)
{
	int64_t old = __atomic_load_n(until, __ATOMIC_SEQ_CST), want;
	do {
		int64_t now = fake_now();
		want = (old > now ? old : now) + ns;
	} while (!__atomic_compare_exchange_n(
		until, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

/* Tests only: host delays that mimic the H200's noise, every runner
 * alike, each read once from the environment (microseconds):
 *   ARENA_FAKE_GPU_GEN_JITTER_US   at the end of every `gen`, uniform
 *       from 0 to it: the noise outside the timed calls (offsets of tens
 *       of microseconds between runner processes, docs/benchmarks.md),
 *       loud enough here that a test can tell a charge the `time`
 *       request alone confirms from one the whole sample does;
 *   ARENA_FAKE_GPU_WAKE_JITTER_US  after every event wait, on 60% of
 *       them, exponential with that mean: the late wake-ups that swamp
 *       the median of the `time` request's overhead but leave its floor
 *       sharp (on the H200, 2026-12-06: lower decile ~205 us, upper
 *       quartile 260-400 us). */
static uint64_t fake_jitter_state;

static double fake_jitter_uniform(void)
{
	if (!fake_jitter_state)
		fake_jitter_state =
			((uint64_t)fake_now() ^ (uint64_t)getpid() << 32) | 1;
	fake_jitter_state = fake_jitter_state * 6364136223846793005ULL +
			    1442695040888963407ULL;
	return (double)(fake_jitter_state >> 11) / 9007199254740992.0;
}

static void fake_jitter_sleep(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000),
			       (long)(ns % 1000000000) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int64_t fake_jitter_knob(int64_t *cached, const char *name)
{
	if (*cached < 0) {
		const char *v = getenv(name);
		*cached = v ? atoll(v) * 1000 : 0;
	}
	return *cached;
}

static inline void fake_gen_jitter(void)
{
	static int64_t max_ns = -1;

	if (fake_jitter_knob(&max_ns, "ARENA_FAKE_GPU_GEN_JITTER_US") > 0)
		fake_jitter_sleep(
			(int64_t)(fake_jitter_uniform() * (double)max_ns));
}

static inline void fake_wake_jitter(void)
{
	static int64_t mean_ns = -1;

	if (fake_jitter_knob(&mean_ns, "ARENA_FAKE_GPU_WAKE_JITTER_US") > 0 &&
	    fake_jitter_uniform() < 0.6)
		fake_jitter_sleep((int64_t)(-(double)mean_ns *
					    log(1 - fake_jitter_uniform())));
}

/* Waits until the work processes left running has run: for a
 * whole-device wait every process's, else (a stream or event wait) other
 * processes' only, whose contexts take turns with this one.  Work left
 * hidden is never waited for by the process that left it. */
static void fake_dev_wait(bool whole_device)
{
	int32_t me = (int32_t)getpid();
	int64_t until = 0;

	if (whole_device ||
	    __atomic_load_n(&fake_dev->busy_owner, __ATOMIC_SEQ_CST) != me)
		until = __atomic_load_n(&fake_dev->busy_until,
					__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&fake_dev->hidden_owner, __ATOMIC_SEQ_CST) != me) {
		int64_t h = __atomic_load_n(&fake_dev->hidden_until,
					    __ATOMIC_SEQ_CST);
		if (h > until)
			until = h;
	}
	int64_t left = until - fake_now();
	if (left > 0) {
		struct timespec ts = { left / 1000000000LL,
				       left % 1000000000LL };
		nanosleep(&ts, NULL);
	}
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_fault(int code, int sticky)
{
	if (sticky)
		fake_sticky = code;
	else
		fake_soft = code;
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_leave_work(long ns)
{
	__atomic_store_n(&fake_dev->busy_owner, (int32_t)getpid(),
			 __ATOMIC_SEQ_CST);
	fake_dev_busy(&fake_dev->busy_until, ns);
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_leave_work_hidden(long ns)
{
	__atomic_store_n(&fake_dev->hidden_owner, (int32_t)getpid(),
			 __ATOMIC_SEQ_CST);
	fake_dev_busy(&fake_dev->hidden_until, ns);
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_break_device(void)
{
	__atomic_store_n(&fake_dev->broken, 1, __ATOMIC_SEQ_CST);
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_write_unordered(void *p, int byte, size_t n)
{
	memset(p, byte, n);
	if (fake_gate_closed && !fake_unordered_ptr)
		fake_unordered_ptr = p;
}

extern "C" __attribute__((visibility("default"))) void
arena_fake_gpu_write_late(void *p, int byte, size_t n)
{
	memset(p, byte, n);
	if (fake_gate_closed && !fake_late_ptr)
		fake_late_ptr = p;
}

static inline const char *fakeGetErrorName(fakeError_t e)
{
	switch (e) {
	case fakeSuccess:
		return "cudaSuccess";
	case fakeErrorInvalidValue:
		return "cudaErrorInvalidValue";
	case fakeErrorMemoryAllocation:
		return "cudaErrorMemoryAllocation";
	case fakeErrorNoDevice:
		return "cudaErrorNoDevice";
	case fakeErrorIllegalAddress:
		return "cudaErrorIllegalAddress";
	case fakeErrorECCUncorrectable:
		return "cudaErrorECCUncorrectable";
	case fakeErrorLaunchTimeout:
		return "cudaErrorLaunchTimeout";
	case fakeErrorNotSupported:
		return "cudaErrorNotSupported";
	}
	return "cudaErrorUnknown";
}
static inline const char *fakeGetErrorString(fakeError_t e)
{
	return e == fakeErrorIllegalAddress ? "an illegal memory access was "
					      "encountered (emulated)"
					    : "emulated error";
}
static inline fakeError_t fake_status(void)
{
	if (__atomic_load_n(&fake_dev->broken, __ATOMIC_SEQ_CST))
		fake_sticky = fakeErrorECCUncorrectable;
	return fake_sticky;
}
static inline fakeError_t fakeGetLastError(void)
{
	int e = fake_status() ? fake_sticky : fake_soft;
	fake_soft = 0;
	return e;
}
static inline fakeError_t fakeDeviceSynchronize(void)
{
	fake_dev_wait(true);
	return fake_status();
}
static inline fakeError_t fakeStreamSynchronize(fakeStream_t)
{
	fake_dev_wait(false);
	return fake_status();
}
/* As many devices as CUDA_VISIBLE_DEVICES names (the controller passes
 * it to runners), else one: tests of `arena run --gpus` see several. */
static inline int fake_device_count(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int n = 1;

	if (!v || !*v)
		return 1;
	for (const char *p = v; *p; p++)
		n += *p == ',';
	return n;
}
static inline fakeError_t fakeSetDevice(int d)
{
	if (d < 0 || d >= fake_device_count())
		return fakeErrorNoDevice;
	fake_dev_open(d);
	return fake_status();
}
/* "Device" memory: zeroed pages of its own mapping, 2 MiB aligned as a
 * GPU's large allocations are, so that a test kernel sees where in its
 * allocation the runner placed an argument (p % 2 MiB: the runner's
 * placement window, arena_runner_gpu.cpp).  The mapping's base and
 * length sit in the page before the pointer; pages are only touched when
 * used. */
#define FAKE_ALLOC_ALIGN ((size_t)2 << 20)
#define FAKE_ALLOC_MAGIC ((size_t)0x617265616d656d31ULL)
static inline fakeError_t fakeMalloc(void **p, size_t n)
{
	if (fake_status())
		return fake_sticky;
	size_t len = (n ? n : 1) + 2 * FAKE_ALLOC_ALIGN;
	unsigned char *m =
		(unsigned char *)mmap(NULL, len, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		*p = NULL;
		return fakeErrorMemoryAllocation;
	}
	uintptr_t at =
		((uintptr_t)m + FAKE_ALLOC_ALIGN + FAKE_ALLOC_ALIGN - 1) &
		~(uintptr_t)(FAKE_ALLOC_ALIGN - 1);
	size_t *hdr = (size_t *)(at - 4096);
	hdr[0] = (size_t)(uintptr_t)m;
	hdr[1] = len;
	hdr[2] = FAKE_ALLOC_MAGIC;
	hdr[3] = (size_t)at;
	*p = (void *)at;
	return fakeSuccess;
}
/* Whether the runner is capturing a batch (gpu_rt.h, gpu_capture_begin):
 * a fake launch still runs at once, and a test kernel can ask, to act
 * as a kernel whose calls cannot be captured (one that synchronises). */
static int fake_capturing;
extern "C" __attribute__((visibility("default"))) int
arena_fake_gpu_capturing(void)
{
	return fake_capturing;
}
/* Argument slots of memory the keeper lent (one allocation for every
 * set, arena_runner_gpu.cpp): each counts as an allocation of its own
 * for arena_fake_gpu_alloc_base, as each argument's cudaMalloc would. */
#define FAKE_SLOTS_MAX 4096
static struct fake_slot {
	uintptr_t at;
	size_t len;
} fake_slots[FAKE_SLOTS_MAX];
static int fake_nslots;

static inline void fake_note_alloc(const void *p, size_t len)
{
	if (fake_nslots < FAKE_SLOTS_MAX)
		fake_slots[fake_nslots++] = { (uintptr_t)p, len };
}

static inline void fake_forget_allocs(void)
{
	fake_nslots = 0;
}

/* The allocation p points into (cuMemGetAddressRange's contract on a
 * GPU): its start and length, 0 when found; -1 when none is found within
 * 64 MiB below p.  A slot of memory the keeper lent counts as an
 * allocation of its own; a mapping of fakeMalloc's runs from its aligned
 * start to its end. */
extern "C" __attribute__((visibility("default"))) int
arena_fake_gpu_alloc_range(const void *p, void **base, size_t *len)
{
	uintptr_t q = (uintptr_t)p & ~(uintptr_t)(FAKE_ALLOC_ALIGN - 1);

	for (int i = 0; i < fake_nslots; i++)
		if ((uintptr_t)p >= fake_slots[i].at &&
		    (uintptr_t)p < fake_slots[i].at + fake_slots[i].len) {
			*base = (void *)fake_slots[i].at;
			*len = fake_slots[i].len;
			return 0;
		}

	for (int i = 0; i < 32 && q > FAKE_ALLOC_ALIGN; i++) {
		const size_t *hdr = (const size_t *)(q - 4096);
		if (hdr[2] == FAKE_ALLOC_MAGIC && hdr[3] == (size_t)q) {
			*base = (void *)q;
			*len = hdr[0] + hdr[1] - (size_t)q;
			return 0;
		}
		q -= FAKE_ALLOC_ALIGN;
	}
	return -1;
}

/* The start of the allocation p points into (cuPointerGetAttribute's
 * range start on a GPU), for test kernels that recognise a buffer
 * whatever offset the runner placed it at; NULL when none is found. */
extern "C" __attribute__((visibility("default"))) void *
arena_fake_gpu_alloc_base(const void *p)
{
	void *base;
	size_t len;

	return arena_fake_gpu_alloc_range(p, &base, &len) == 0 ? base : NULL;
}
static inline fakeError_t fakeFree(void *p)
{
	if (p) {
		const size_t *hdr = (const size_t *)((uintptr_t)p - 4096);
		munmap((void *)(uintptr_t)hdr[0], hdr[1]);
	}
	return fakeSuccess;
}
static inline fakeError_t fakeMallocAsync(void **p, size_t n, fakeStream_t)
{
	return fakeMalloc(p, n);
}
static inline fakeError_t fakeFreeAsync(void *p, fakeStream_t)
{
	return fakeFree(p);
}
/* The fake's stream-ordered allocations are plain ones: no pool to keep. */
typedef void *fakeMemPool_t;
static inline fakeError_t fakeDeviceGetDefaultMemPool(fakeMemPool_t *pool, int)
{
	*pool = NULL;
	return fakeSuccess;
}
static inline fakeError_t fakeMemPoolSetAttribute(fakeMemPool_t, int, void *)
{
	return fakeSuccess;
}
static inline fakeError_t fakeMemcpyAsync(void *d, const void *s, size_t n,
					  int kind, fakeStream_t)
{
	if (fake_status())
		return fake_sticky;
	if ((kind == fakeMemcpyDeviceToHost && fake_lock_straddles(d, n)) ||
	    (kind == fakeMemcpyHostToDevice && fake_lock_straddles(s, n)))
		return fakeErrorInvalidValue;
	memcpy(d, s, n);
	return fakeSuccess;
}
static inline fakeError_t fakeMemsetAsync(void *d, int v, size_t n,
					  fakeStream_t)
{
	if (fake_status())
		return fake_sticky;
	memset(d, v, n);
	return fakeSuccess;
}
static inline fakeError_t fakeHostRegister(void *p, size_t n, int)
{
	fake_lock_add(p, n);
	return fakeSuccess;
}
static inline fakeError_t fakeHostUnregister(void *p)
{
	fake_lock_del(p);
	return fakeSuccess;
}
/* "Device" memory is host memory: a registered page is its own device
 * pointer. */
static inline fakeError_t fakeHostGetDevicePointer(void **d, void *h, int)
{
	if (getenv("ARENA_FAKE_GPU_NO_HOST_MAP"))
		return fakeErrorNotSupported;
	*d = h;
	return fake_status();
}
static inline fakeError_t fakeStreamCreateWithFlags(fakeStream_t *s, int)
{
	static int dummy;
	*s = &dummy;
	return fakeSuccess;
}
static inline fakeError_t fakeEventCreate(fakeEvent_t *e)
{
	*e = (fakeEvent_t)calloc(1, sizeof(**e));
	return *e ? fakeSuccess : fakeErrorMemoryAllocation;
}
static inline fakeError_t fakeEventRecord(fakeEvent_t e, fakeStream_t)
{
	e->t = fake_now();
	return fake_status();
}
static inline fakeError_t fakeEventSynchronize(fakeEvent_t)
{
	fake_dev_wait(false);
	fake_wake_jitter();
	return fake_status();
}
static inline fakeError_t fakeEventElapsedTime(float *ms, fakeEvent_t a,
					       fakeEvent_t b)
{
	*ms = (float)((double)(b->t - a->t) / 1e6);
	return fakeSuccess;
}
static inline fakeError_t fakeDriverGetVersion(int *v)
{
	*v = 13000;
	return fakeSuccess;
}
static inline fakeError_t fakeRuntimeGetVersion(int *v)
{
	*v = 13000;
	return fakeSuccess;
}
static inline fakeError_t fakeGetDeviceCount(int *n)
{
	*n = fake_device_count();
	return fakeSuccess;
}
static inline fakeError_t fakeGetDeviceProperties(fakeDeviceProp_t *p, int d)
{
	if (d < 0 || d >= fake_device_count())
		return fakeErrorNoDevice;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "Arena Fake GPU");
	p->pciDeviceID = d;
	/* An H100's size: evaluations' memory ledger (gpu_memory.c)
	 * bounds batches by it, and tests of batches assume room. */
	p->totalGlobalMem = (size_t)80 << 30;
	p->multiProcessorCount = 4;
	return fakeSuccess;
}
static inline fakeError_t fakeDeviceGetAttribute(int *v, int attr, int)
{
	*v = attr == GPU_ATTR_L2 ? (4 << 20) : 4;
	return fakeSuccess;
}
static inline fakeError_t fakeMemGetInfo(size_t *f, size_t *t)
{
	*f = *t = (size_t)80 << 30;
	return fakeSuccess;
}

typedef fakeDeviceProp_t gpu_prop;

#endif /* ARENA_GPU_RT_FAKE_H */

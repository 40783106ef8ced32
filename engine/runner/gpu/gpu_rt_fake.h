/*
 * gpu_rt_fake.h - a host emulation of the handful of runtime calls the GPU
 * runner makes (gpu_rt.h, backend ARENA_GPU_FAKE).  Built as
 * build/tests/arena-runner-fakegpu, it lets the test suite drive the GPU
 * runner and the controller's whole GPU path (device facts, batches,
 * drain and thread checks, device errors) on any machine: "device" memory
 * is host memory, a kernel is a host function that runs when it is
 * "launched", events read CLOCK_MONOTONIC.
 *
 * Test kernels reach the emulation through three functions the runner
 * exports (it links with -rdynamic):
 *   arena_fake_gpu_fault(code, sticky)  the next runtime call reports code
 *                                       (700 = cudaErrorIllegalAddress,
 *                                       2 = cudaErrorMemoryAllocation)
 *   arena_fake_gpu_leave_work(ns)       the next whole-device wait takes
 *                                       ns longer: work left on "another
 *                                       stream"
 *   arena_fake_gpu_write_unordered(p, byte, n)
 *                                       writes n bytes at p "from another
 *                                       stream": while the runner holds its
 *                                       stream (gpu_gate.h), the ordering
 *                                       check reports the buffer p is in
 *   arena_fake_gpu_write_late(p, byte, n)
 *                                       the same "after the given stream
 *                                       had finished": work never joined
 * Never part of a real build.
 */
#ifndef ARENA_GPU_RT_FAKE_H
#define ARENA_GPU_RT_FAKE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define GPU_PASTE(a, b) a##b
#define GPU(x) GPU_PASTE(fake, x)
#define GPU_BACKEND "cuda"
#define GPU_ATTR_L2 1
#define GPU_ATTR_SMS 2
#define GPU_HAS_PERSISTING_L2 0

typedef int fakeError_t;
typedef void *fakeStream_t;
typedef struct fake_event {
	int64_t t;
} *fakeEvent_t;
enum {
	fakeSuccess = 0,
	fakeErrorMemoryAllocation = 2,
	fakeErrorNoDevice = 100,
	fakeErrorIllegalAddress = 700,
	fakeErrorLaunchTimeout = 702,
	fakeStreamNonBlocking = 1,
	fakeHostRegisterDefault = 0,
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
static int64_t fake_pending_ns;
static int fake_gate_closed;
static void *fake_unordered_ptr, *fake_late_ptr;

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
	fake_pending_ns += ns;
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

static inline int64_t fake_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline const char *fakeGetErrorName(fakeError_t e)
{
	switch (e) {
	case fakeSuccess:
		return "cudaSuccess";
	case fakeErrorMemoryAllocation:
		return "cudaErrorMemoryAllocation";
	case fakeErrorNoDevice:
		return "cudaErrorNoDevice";
	case fakeErrorIllegalAddress:
		return "cudaErrorIllegalAddress";
	case fakeErrorLaunchTimeout:
		return "cudaErrorLaunchTimeout";
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
	return fake_sticky;
}
static inline fakeError_t fakeGetLastError(void)
{
	int e = fake_sticky ? fake_sticky : fake_soft;
	fake_soft = 0;
	return e;
}
static inline fakeError_t fakeDeviceSynchronize(void)
{
	if (fake_pending_ns > 0) {
		struct timespec ts = { fake_pending_ns / 1000000000LL,
				       fake_pending_ns % 1000000000LL };
		nanosleep(&ts, NULL);
		fake_pending_ns = 0;
	}
	return fake_status();
}
static inline fakeError_t fakeStreamSynchronize(fakeStream_t)
{
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
	return d >= 0 && d < fake_device_count() ? fake_status()
						  : fakeErrorNoDevice;
}
static inline fakeError_t fakeMalloc(void **p, size_t n)
{
	if (fake_sticky)
		return fake_sticky;
	*p = calloc(1, n ? n : 1);
	return *p ? fakeSuccess : fakeErrorMemoryAllocation;
}
static inline fakeError_t fakeFree(void *p)
{
	free(p);
	return fakeSuccess;
}
static inline fakeError_t fakeMemcpyAsync(void *d, const void *s, size_t n,
					  int, fakeStream_t)
{
	if (fake_sticky)
		return fake_sticky;
	memcpy(d, s, n);
	return fakeSuccess;
}
static inline fakeError_t fakeMemsetAsync(void *d, int v, size_t n,
					  fakeStream_t)
{
	if (fake_sticky)
		return fake_sticky;
	memset(d, v, n);
	return fakeSuccess;
}
static inline fakeError_t fakeHostRegister(void *, size_t, int)
{
	return fakeSuccess;
}
static inline fakeError_t fakeHostUnregister(void *)
{
	return fakeSuccess;
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
	p->totalGlobalMem = (size_t)8 << 30;
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
	*f = *t = (size_t)8 << 30;
	return fakeSuccess;
}

typedef fakeDeviceProp_t gpu_prop;

#endif /* ARENA_GPU_RT_FAKE_H */

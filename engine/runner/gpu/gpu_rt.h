/*
 * gpu_rt.h - the few GPU runtime calls the GPU runner makes, spelled once
 * for both runtimes.  The runner source (arena_runner_gpu.cpp) is compiled
 * twice: by nvcc against the CUDA runtime (arena-runner-cuda) and by hipcc
 * against the HIP runtime with ARENA_GPU_HIP defined (arena-runner-hip).
 *
 * GPU(Name) pastes the runtime's prefix: GPU(Malloc) is cudaMalloc or
 * hipMalloc, GPU(Stream_t) is cudaStream_t or hipStream_t.  Where the two
 * runtimes differ by more than the prefix the difference is spelled out
 * below; where HIP has no equivalent (persisting L2 lines) the call is a
 * no-op there, and docs/gpu.md says so.
 *
 * A third backend, ARENA_GPU_FAKE (gpu_rt_fake.h), emulates the runtime in
 * host memory so that the runner's protocol handling and the controller's
 * GPU path are tested on machines without a GPU (tests/unit/test_gpu_eval.c).
 */
#ifndef ARENA_GPU_RT_H
#define ARENA_GPU_RT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(ARENA_GPU_FAKE)
#include "gpu_rt_fake.h"
#elif defined(ARENA_GPU_HIP)
#include <hip/hip_runtime.h>
#define GPU_PASTE(a, b) a##b
#define GPU(x) GPU_PASTE(hip, x)
#define GPU_BACKEND "hip"
#define GPU_ATTR_L2 hipDeviceAttributeL2CacheSize
#define GPU_ATTR_SMS hipDeviceAttributeMultiprocessorCount
#define GPU_ATTR_POOLS hipDeviceAttributeMemoryPoolsSupported
#define GPU_POOL_RELEASE_THRESHOLD hipMemPoolAttrReleaseThreshold
#define GPU_HAS_PERSISTING_L2 0
typedef hipDeviceProp_t gpu_prop;
#else
#include <cuda_runtime.h>
#define GPU_PASTE(a, b) a##b
#define GPU(x) GPU_PASTE(cuda, x)
#define GPU_BACKEND "cuda"
#define GPU_ATTR_L2 cudaDevAttrL2CacheSize
#define GPU_ATTR_SMS cudaDevAttrMultiProcessorCount
#define GPU_ATTR_POOLS cudaDevAttrMemoryPoolsSupported
#define GPU_POOL_RELEASE_THRESHOLD cudaMemPoolAttrReleaseThreshold
#define GPU_HAS_PERSISTING_L2 1
typedef cudaDeviceProp gpu_prop;
#endif

typedef GPU(Error_t) gpu_err;
typedef GPU(Stream_t) gpu_stream;
typedef GPU(Event_t) gpu_event;
typedef GPU(MemPool_t) gpu_pool;

static inline const char *gpu_err_name(gpu_err e)
{
	return GPU(GetErrorName)(e);
}

static inline const char *gpu_err_string(gpu_err e)
{
	return GPU(GetErrorString)(e);
}

/* Drops every persisting L2 line (CUDA 11+; a no-op on HIP). */
static inline void gpu_reset_persisting_l2(void)
{
#if GPU_HAS_PERSISTING_L2
	(void)cudaCtxResetPersistingL2Cache();
#endif
}

/* No L2 set-aside for persisting accesses (CUDA; a no-op on HIP). */
static inline void gpu_no_persisting_l2(void)
{
#if GPU_HAS_PERSISTING_L2
	(void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
#endif
}

/*
 * Memory one process allocates and another maps (docs/gpu.md section 6,
 * "the keeper's compare"): the keeper creates an allocation with the
 * driver's virtual memory API, exportable as a POSIX file descriptor (a
 * capability that travels over the control socket with SCM_RIGHTS and
 * cannot be guessed), and a runner maps it as its argument sets.  CUDA
 * reaches the driver's calls through the runtime's entry-point lookup,
 * so the runner links no libcuda.  HIP has the same calls from ROCm 5.x
 * but they were never run here: GPU_HAS_VMM 0 there, every call answers
 * NotSupported, and the controller keeps the host fetch.
 */
struct gpu_vmm {
	void *ptr;   /* where this process maps it */
	size_t size; /* bytes mapped (a multiple of the granularity) */
	unsigned long long handle; /* the allocation's handle; 0 = none */
};

#if defined(ARENA_GPU_FAKE)
/* The fake's device memory is host memory: an exported allocation is a
 * memfd both processes map, so CI runs the same protocol. */
#define GPU_HAS_VMM 1
static inline void gpu_vmm_release(struct gpu_vmm *m)
{
	if (m->ptr)
		munmap(m->ptr, m->size);
	m->ptr = NULL;
	m->size = 0;
	m->handle = 0;
}

static inline gpu_err gpu_vmm_create(size_t want, struct gpu_vmm *m, int *fd)
{
	const size_t gran = FAKE_ALLOC_ALIGN;

	memset(m, 0, sizeof(*m));
	*fd = -1;
	if (fake_status())
		return fake_sticky;
	/* A device that cannot export memory (HIP today), for the test of
	 * the controller's fallback. */
	if (getenv("ARENA_FAKE_GPU_NO_VMM"))
		return fakeErrorNotSupported;
	m->size = want ? (want + gran - 1) / gran * gran : gran;
	int f = memfd_create("arena-fake-vmm", MFD_CLOEXEC);
	if (f < 0 || ftruncate(f, (off_t)m->size) != 0) {
		if (f >= 0)
			close(f);
		return fakeErrorMemoryAllocation;
	}
	void *p = mmap(NULL, m->size, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	if (p == MAP_FAILED) {
		close(f);
		return fakeErrorMemoryAllocation;
	}
	m->ptr = p;
	m->handle = 1;
	*fd = f;
	return fakeSuccess;
}

static inline gpu_err gpu_vmm_import(int fd, size_t size, struct gpu_vmm *m)
{
	struct stat st;

	memset(m, 0, sizeof(*m));
	if (fake_status())
		return fake_sticky;
	/* A runner that cannot map lent memory (a sandbox or driver that
	 * refuses), for the tests of the controller's answers. */
	if (getenv("ARENA_FAKE_GPU_NO_IMPORT"))
		return fakeErrorNotSupported;
	/* A real driver refuses to map past the allocation's end. */
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < size || !size)
		return fakeErrorInvalidValue;
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fakeErrorMemoryAllocation;
	m->ptr = p;
	m->size = size;
	m->handle = 1;
	return fakeSuccess;
}
#elif defined(ARENA_GPU_HIP)
#define GPU_HAS_VMM 0
static inline gpu_err gpu_vmm_create(size_t, struct gpu_vmm *, int *)
{
	return hipErrorNotSupported;
}
static inline gpu_err gpu_vmm_import(int, size_t, struct gpu_vmm *)
{
	return hipErrorNotSupported;
}
static inline void gpu_vmm_release(struct gpu_vmm *m)
{
	m->ptr = NULL;
	m->size = 0;
	m->handle = 0;
}
#else
#include <cuda.h>
#define GPU_HAS_VMM 1
static struct {
	bool tried, ok;
	CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
				CUmemAllocationGranularity_flags);
	CUresult (*create)(CUmemGenericAllocationHandle *, size_t,
			   const CUmemAllocationProp *, unsigned long long);
	CUresult (*export_fd)(void *, CUmemGenericAllocationHandle,
			      CUmemAllocationHandleType, unsigned long long);
	CUresult (*import_fd)(CUmemGenericAllocationHandle *, void *,
			      CUmemAllocationHandleType);
	CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
			    unsigned long long);
	CUresult (*map)(CUdeviceptr, size_t, size_t,
			CUmemGenericAllocationHandle, unsigned long long);
	CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *,
			       size_t);
	CUresult (*unmap)(CUdeviceptr, size_t);
	CUresult (*address_free)(CUdeviceptr, size_t);
	CUresult (*release)(CUmemGenericAllocationHandle);
} vmm;

static inline bool vmm_sym(const char *name, void **fn)
{
	cudaDriverEntryPointQueryResult q;

	return cudaGetDriverEntryPointByVersion(
		       name, fn, 12000, cudaEnableDefault, &q) == cudaSuccess &&
	       q == cudaDriverEntryPointSuccess && *fn;
}

static inline bool vmm_load(void)
{
	if (vmm.tried)
		return vmm.ok;
	vmm.tried = true;
	vmm.ok = vmm_sym("cuMemGetAllocationGranularity",
			 (void **)&vmm.granularity) &&
		 vmm_sym("cuMemCreate", (void **)&vmm.create) &&
		 vmm_sym("cuMemExportToShareableHandle",
			 (void **)&vmm.export_fd) &&
		 vmm_sym("cuMemImportFromShareableHandle",
			 (void **)&vmm.import_fd) &&
		 vmm_sym("cuMemAddressReserve", (void **)&vmm.reserve) &&
		 vmm_sym("cuMemMap", (void **)&vmm.map) &&
		 vmm_sym("cuMemSetAccess", (void **)&vmm.set_access) &&
		 vmm_sym("cuMemUnmap", (void **)&vmm.unmap) &&
		 vmm_sym("cuMemAddressFree", (void **)&vmm.address_free) &&
		 vmm_sym("cuMemRelease", (void **)&vmm.release);
	(void)cudaGetLastError();
	return vmm.ok;
}

/* The driver's result of a failed step, to the runner's log (the
 * runtime's error code below keeps only whether memory ran out). */
static inline void vmm_log(const char *step, CUresult r)
{
	if (r != CUDA_SUCCESS)
		fprintf(stderr, "arena-runner-cuda: %s failed: CUresult %d\n",
			step, (int)r);
}

static inline gpu_err vmm_err(CUresult r)
{
	return r == CUDA_SUCCESS	       ? cudaSuccess
	       : r == CUDA_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
					       : cudaErrorInvalidValue;
}

static inline CUmemAllocationProp vmm_prop(int dev)
{
	CUmemAllocationProp p;

	memset(&p, 0, sizeof(p));
	p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p.location.id = dev;
	p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	return p;
}

static inline void gpu_vmm_release(struct gpu_vmm *m)
{
	if (m->ptr) {
		(void)vmm.unmap((CUdeviceptr)(uintptr_t)m->ptr, m->size);
		(void)vmm.address_free((CUdeviceptr)(uintptr_t)m->ptr, m->size);
	}
	if (m->handle)
		(void)vmm.release((CUmemGenericAllocationHandle)m->handle);
	m->ptr = NULL;
	m->size = 0;
	m->handle = 0;
}

/* Maps m->handle (m->size bytes) at a fresh address, readable and
 * writable by this process's device. */
static inline gpu_err vmm_map(int dev, struct gpu_vmm *m)
{
	CUdeviceptr p = 0;
	CUmemAccessDesc a;
	CUresult r = vmm.reserve(&p, m->size, 0, 0, 0);

	vmm_log("cuMemAddressReserve", r);
	if (r != CUDA_SUCCESS)
		return vmm_err(r);
	r = vmm.map(p, m->size, 0, (CUmemGenericAllocationHandle)m->handle, 0);
	vmm_log("cuMemMap", r);
	if (r != CUDA_SUCCESS) {
		(void)vmm.address_free(p, m->size);
		return vmm_err(r);
	}
	m->ptr = (void *)(uintptr_t)p;
	memset(&a, 0, sizeof(a));
	a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	a.location.id = dev;
	a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	r = vmm.set_access(p, m->size, &a, 1);
	vmm_log("cuMemSetAccess", r);
	return vmm_err(r);
}

/* m emptied, the driver's calls found, *dev this process's device. */
static inline gpu_err vmm_begin(struct gpu_vmm *m, int *dev)
{
	memset(m, 0, sizeof(*m));
	if (!vmm_load())
		return cudaErrorNotSupported;
	return cudaGetDevice(dev) == cudaSuccess ? cudaSuccess
						 : cudaErrorInvalidDevice;
}

/* At least `want` bytes on the current device, mapped here, and *fd a
 * descriptor another process can map them by. */
static inline gpu_err gpu_vmm_create(size_t want, struct gpu_vmm *m, int *fd)
{
	int dev = 0;
	size_t gran = 0;
	CUmemGenericAllocationHandle h;

	*fd = -1;
	gpu_err e = vmm_begin(m, &dev);
	if (e != cudaSuccess)
		return e;
	CUmemAllocationProp p = vmm_prop(dev);
	CUresult r =
		vmm.granularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	vmm_log("cuMemGetAllocationGranularity", r);
	if (r != CUDA_SUCCESS || !gran)
		return r != CUDA_SUCCESS ? vmm_err(r) : cudaErrorNotSupported;
	m->size = (want + gran - 1) / gran * gran;
	if (!m->size)
		m->size = gran;
	r = vmm.create(&h, m->size, &p, 0);
	vmm_log("cuMemCreate", r);
	if (r != CUDA_SUCCESS)
		return vmm_err(r);
	m->handle = (unsigned long long)h;
	e = vmm_map(dev, m);
	if (e == cudaSuccess &&
	    (r = vmm.export_fd(fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
			       0)) != CUDA_SUCCESS) {
		vmm_log("cuMemExportToShareableHandle", r);
		e = vmm_err(r);
	}
	if (e != cudaSuccess)
		gpu_vmm_release(m);
	return e;
}

/* Maps `size` bytes of the allocation descriptor fd stands for. */
static inline gpu_err gpu_vmm_import(int fd, size_t size, struct gpu_vmm *m)
{
	int dev = 0;
	CUmemGenericAllocationHandle h;
	gpu_err e = vmm_begin(m, &dev);

	if (e != cudaSuccess)
		return e;
	CUresult r = vmm.import_fd(&h, (void *)(uintptr_t)fd,
				   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	vmm_log("cuMemImportFromShareableHandle", r);
	if (r != CUDA_SUCCESS)
		return vmm_err(r);
	m->handle = (unsigned long long)h;
	m->size = size;
	e = vmm_map(dev, m);
	if (e != cudaSuccess)
		gpu_vmm_release(m);
	return e;
}
#endif

/*
 * Captured batches (docs/gpu.md section 6, "A batch captured before its
 * inputs exist"): a batch's calls recorded on the runner's stream (stream
 * capture) into a graph, instantiated, and later run with one launch.
 * Thread-local mode: this thread's calls that a graph cannot hold (an
 * allocation or a free, a synchronisation) fail and end the capture with
 * the error and no graph, so the batch runs live.  In relaxed mode they
 * would run at capture time, and a call's workspace freed then would be
 * gone when the graph replays it (tests/gpu/probe_capture.cu).  The fake
 * records nothing (a fake launch is a host call that runs at once;
 * gpu_rt_fake.h): the runner replays its batch there by calling it
 * again.
 */
struct gpu_graph {
	void *graph, *exec; /* both NULL: none */
};

#if defined(ARENA_GPU_FAKE)
static inline gpu_err gpu_capture_begin(gpu_stream)
{
	fake_capturing = 1;
	return fake_status();
}

static inline gpu_err gpu_capture_end(gpu_stream, struct gpu_graph *g)
{
	static char token;

	fake_capturing = 0;
	g->graph = g->exec = &token;
	return fake_status();
}

static inline gpu_err gpu_graph_launch(const struct gpu_graph *, gpu_stream)
{
	return fake_status();
}

static inline void gpu_graph_release(struct gpu_graph *g)
{
	g->graph = g->exec = NULL;
}
#else
static inline gpu_err gpu_capture_begin(gpu_stream s)
{
	return GPU(StreamBeginCapture)(s, GPU(StreamCaptureModeThreadLocal));
}

static inline gpu_err gpu_capture_end(gpu_stream s, struct gpu_graph *g)
{
	GPU(Graph_t) graph = NULL;
	GPU(GraphExec_t) exec = NULL;
	gpu_err e = GPU(StreamEndCapture)(s, &graph);

	g->graph = g->exec = NULL;
	if (e == GPU(Success) && !graph)
		e = GPU(ErrorUnknown);
	if (e == GPU(Success))
		e = GPU(GraphInstantiateWithFlags)(&exec, graph, 0);
#if !defined(ARENA_GPU_HIP)
	/* The graph's first launch would otherwise copy it to the device
	 * inside the timed window (HIP 5.2 has no hipGraphUpload).  Waited
	 * for, so that the keeper's probe after the capture finds the
	 * device idle. */
	if (e == GPU(Success))
		e = GPU(GraphUpload)(exec, s);
	if (e == GPU(Success))
		e = GPU(StreamSynchronize)(s);
#endif
	if (e != GPU(Success)) {
		if (exec)
			(void)GPU(GraphExecDestroy)(exec);
		if (graph)
			(void)GPU(GraphDestroy)(graph);
		(void)GPU(GetLastError)();
		return e;
	}
	g->graph = (void *)graph;
	g->exec = (void *)exec;
	return e;
}

static inline gpu_err gpu_graph_launch(const struct gpu_graph *g, gpu_stream s)
{
	return GPU(GraphLaunch)((GPU(GraphExec_t))g->exec, s);
}

static inline void gpu_graph_release(struct gpu_graph *g)
{
	if (g->exec)
		(void)GPU(GraphExecDestroy)((GPU(GraphExec_t))g->exec);
	if (g->graph)
		(void)GPU(GraphDestroy)((GPU(Graph_t))g->graph);
	g->graph = g->exec = NULL;
}
#endif

#endif /* ARENA_GPU_RT_H */

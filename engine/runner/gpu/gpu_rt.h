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

#endif /* ARENA_GPU_RT_H */

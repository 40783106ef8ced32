/*
 * arena HIP-on-NVIDIA portability layer: <hip/hip_runtime.h> for nvcc.
 *
 * See hip_runtime_api.h (the host API half) for why this directory exists:
 * the distribution's HIP headers do not compile against the installed CUDA
 * (Debian 12's HIP 5.2 vs CUDA 13), so NVIDIA builds of HIP sources put
 * engine/include/arena/hip_nvidia first on the include path and get this
 * minimal layer instead.  AMD builds use ROCm's real headers via hipcc.
 * docs/hip-portability.md is the full story and the list of differences.
 *
 * This half maps the kernel language (CUDA C++ only: compile with nvcc
 * -x cu):
 *   launch     hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...)
 *              is kernel<<<grid, block, shmem, stream>>>(...) (wrap a
 *              template kernel in parentheses or HIP_KERNEL_NAME, as in
 *              HIP); dim3, __global__, __device__, __shared__,
 *              __launch_bounds__, threadIdx/blockIdx/blockDim/gridDim,
 *              __syncthreads, atomics and the math library are CUDA's own
 *              and need no mapping.  hipThreadIdx_x and friends (old HIP).
 *   shared     HIP_DYNAMIC_SHARED(type, name) -> extern __shared__ type name[]
 *   warps      warpSize is CUDA's built-in (32).  HIP's maskless
 *              cross-lane operations become CUDA's *_sync forms with a full
 *              mask: __shfl, __shfl_up, __shfl_down, __shfl_xor, __any,
 *              __all, __ballot (returns 64 bits, as in HIP).  A full mask
 *              means every lane of the warp must reach the call (the usual
 *              HIP rule on AMD as well); calling them under divergence is
 *              undefined on NVIDIA.  __lane_id() reads %laneid.
 *   atomics    unsafeAtomicAdd / safeAtomicAdd -> atomicAdd.
 *   fp16/bf16  __half and __hip_bfloat16 come from <hip/hip_fp16.h> and
 *              <hip/hip_bf16.h> in this directory (cuda_fp16.h /
 *              cuda_bf16.h), included only there, as in HIP: the two CUDA
 *              headers are a third of the compile time of a small kernel
 *              (0.88 s against 0.59 s here).  They declare maskless
 *              __shfl_* overloads of their own, so they are included with
 *              the cross-lane macros below set aside (push_macro and pop_macro in hip_fp16.h and hip_bf16.h).
 *   platform   __HIP_PLATFORM_NVIDIA__, __HIP_PLATFORM_NVCC__, __HIPCC__,
 *              __HIP_DEVICE_COMPILE__ (in device passes), as HIP defines
 *              them on NVIDIA, and ARENA_HIP_NVIDIA_SHIM.
 *
 * Semantic differences that remain (they are the platform's, not this
 * layer's): warpSize is 32 here and 64 on most AMD GPUs, so kernels must use
 * warpSize, never a literal; __launch_bounds__(T, N)'s second argument is
 * minimum blocks per multiprocessor in CUDA but minimum waves per EU in HIP.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_RUNTIME_H
#define ARENA_HIP_NVIDIA_HIP_RUNTIME_H

#if !defined(__CUDACC__)
#error "arena's hip_nvidia/hip/hip_runtime.h is for nvcc (-x cu); host C code can include <hip/hip_runtime_api.h>"
#endif

#include <cuda_runtime.h>

#include "hip_runtime_api.h"

/* A PyTorch extension (a gpumode task's .hip file, docs/aka.md): torch's
 * headers, included wherever the source includes them, bring
 * cuda_fp16.h and cuda_bf16.h (maskless __shfl_* functions) and CUDA's
 * C++ library (a struct __any with a variadic constructor), which the
 * cross-lane macros below would rewrite.  Included here, before the
 * macros exist, they are read once and intact. */
#ifdef TORCH_EXTENSION_NAME
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#endif

#ifndef __HIPCC__
#define __HIPCC__ 1
#endif
#if defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)
#define __HIP_DEVICE_COMPILE__ 1
#endif

/* ---- launching -------------------------------------------------------- */
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernelGGLInternal(kernel, grid, block, shmem, stream, ...) \
	do {                                                                \
		kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__); \
	} while (0)
#define hipLaunchKernelGGL(kernel, ...) \
	hipLaunchKernelGGLInternal((kernel), __VA_ARGS__)

#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

/* Old HIP spellings of the built-in index variables. */
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z

/* ---- cross-lane operations ------------------------------------------- */
#define ARENA_HIP_FULL_MASK 0xffffffffu
#define __shfl(...)      __shfl_sync(ARENA_HIP_FULL_MASK, __VA_ARGS__)
#define __shfl_up(...)   __shfl_up_sync(ARENA_HIP_FULL_MASK, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(ARENA_HIP_FULL_MASK, __VA_ARGS__)
#define __shfl_xor(...)  __shfl_xor_sync(ARENA_HIP_FULL_MASK, __VA_ARGS__)
#define __any(p)         __any_sync(ARENA_HIP_FULL_MASK, (p))
#define __all(p)         __all_sync(ARENA_HIP_FULL_MASK, (p))
#define __ballot(p) \
	((unsigned long long)__ballot_sync(ARENA_HIP_FULL_MASK, (p)))

static __device__ __forceinline__ unsigned int __lane_id(void)
{
	unsigned int id;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));
	return id;
}

/* ---- atomics -------------------------------------------------------- */
template <typename T>
static __device__ __forceinline__ T unsafeAtomicAdd(T *addr, T v)
{
	return atomicAdd(addr, v);
}
template <typename T>
static __device__ __forceinline__ T safeAtomicAdd(T *addr, T v)
{
	return atomicAdd(addr, v);
}

#define __clock() clock()
#define __clock64() clock64()

#endif /* ARENA_HIP_NVIDIA_HIP_RUNTIME_H */

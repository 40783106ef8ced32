/*
 * arena HIP-on-NVIDIA portability layer: the host API.
 *
 * WHY THIS EXISTS.  HIP is arena's portable GPU language.  On NVIDIA, HIP
 * code is meant to build with nvcc through HIP's own NVIDIA platform
 * headers (hip/nvidia_detail).  The HIP headers a distribution ships do
 * not always match the installed CUDA: Debian 12's HIP 5.2 headers fail with
 * 46 errors against CUDA 13 (texture references, cudaBindTextureToArray and
 * the graph-edge API were removed or changed in CUDA 12/13).  This directory
 * is the minimal replacement: put it first on the include path,
 *
 *     nvcc -x cu -arch=sm_90 -I engine/include/arena/hip_nvidia \
 *          -I engine/include -shared -Xcompiler -fPIC kernel.hip
 *
 * and `#include <hip/hip_runtime.h>` resolves here instead.  It is used only
 * where the installed HIP cannot serve (NVIDIA builds); AMD builds use the
 * real ROCm headers through hipcc and never see this directory.
 *
 * WHAT IS MAPPED.  Only what task kernels and a GPU runner need, each a
 * one-to-one rename of the CUDA runtime API (docs/hip-portability.md):
 *   types      hipError_t hipStream_t hipEvent_t hipDeviceProp_t
 *              hipMemcpyKind hipDeviceAttribute_t hipFuncAttribute dim3
 *   errors     hipSuccess and the common hipError* codes,
 *              hipGetErrorString hipGetErrorName hipGetLastError
 *              hipPeekAtLastError
 *   memory     hipMalloc hipFree hipMallocAsync hipFreeAsync hipMemcpy
 *              hipMemcpyAsync hipMemset hipMemsetAsync hipMemGetInfo
 *              hipHostMalloc hipHostFree hipMemcpyToSymbol(Async)
 *              hipMemcpyFromSymbol(Async), hipMemcpy* kinds
 *   streams    hipStreamCreate(WithFlags) hipStreamDestroy
 *              hipStreamSynchronize hipStreamQuery hipStreamWaitEvent
 *              hipStreamDefault hipStreamNonBlocking
 *   events     hipEventCreate(WithFlags) hipEventRecord hipEventSynchronize
 *              hipEventElapsedTime hipEventQuery hipEventDestroy + flags
 *   device     hipInit hipGetDeviceCount hipGetDevice hipSetDevice
 *              hipDeviceSynchronize hipGetDeviceProperties
 *              hipDeviceGetAttribute (+ the attributes listed below)
 *              hipDriverGetVersion hipRuntimeGetVersion
 *   functions  hipFuncSetAttribute hipFuncGetAttributes
 *              hipOccupancyMaxActiveBlocksPerMultiprocessor
 * Deliberately absent: textures, graphs, IPC, peer access, module/driver
 * API, hipDeviceReset and anything that changes device settings.
 *
 * This file is C and C++: a C runner can include it and link -lcudart.
 * Version numbers from hipDriverGetVersion/hipRuntimeGetVersion are CUDA's.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_RUNTIME_API_H
#define ARENA_HIP_NVIDIA_HIP_RUNTIME_API_H

#include <cuda_runtime_api.h>

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
#ifndef __HIP_PLATFORM_NVCC__
#define __HIP_PLATFORM_NVCC__ 1
#endif
/* Lets sources tell this layer apart from real HIP headers. */
#define ARENA_HIP_NVIDIA_SHIM 1

/* ---- types ---------------------------------------------------------- */
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef struct cudaDeviceProp hipDeviceProp_t;
typedef enum cudaMemcpyKind hipMemcpyKind;
typedef enum cudaDeviceAttr hipDeviceAttribute_t;
typedef enum cudaFuncAttribute hipFuncAttribute;
typedef struct cudaFuncAttributes hipFuncAttributes;

/* ---- errors --------------------------------------------------------- */
#define hipSuccess			cudaSuccess
#define hipErrorInvalidValue		cudaErrorInvalidValue
#define hipErrorOutOfMemory		cudaErrorMemoryAllocation
#define hipErrorMemoryAllocation	cudaErrorMemoryAllocation
#define hipErrorNotInitialized		cudaErrorInitializationError
#define hipErrorInitializationError	cudaErrorInitializationError
#define hipErrorNoDevice		cudaErrorNoDevice
#define hipErrorInvalidDevice		cudaErrorInvalidDevice
#define hipErrorInvalidDevicePointer	cudaErrorInvalidDevicePointer
#define hipErrorInvalidConfiguration	cudaErrorInvalidConfiguration
#define hipErrorInvalidDeviceFunction	cudaErrorInvalidDeviceFunction
#define hipErrorInvalidResourceHandle	cudaErrorInvalidResourceHandle
#define hipErrorInvalidSymbol		cudaErrorInvalidSymbol
#define hipErrorNotReady		cudaErrorNotReady
#define hipErrorNotSupported		cudaErrorNotSupported
#define hipErrorLaunchFailure		cudaErrorLaunchFailure
#define hipErrorLaunchOutOfResources	cudaErrorLaunchOutOfResources
#define hipErrorLaunchTimeOut		cudaErrorLaunchTimeout
#define hipErrorIllegalAddress		cudaErrorIllegalAddress
#define hipErrorAssert			cudaErrorAssert
#define hipErrorUnknown			cudaErrorUnknown

#define hipGetErrorString		cudaGetErrorString
#define hipGetErrorName			cudaGetErrorName
#define hipGetLastError			cudaGetLastError
#define hipPeekAtLastError		cudaPeekAtLastError

/* ---- memory --------------------------------------------------------- */
#define hipMemcpyHostToHost		cudaMemcpyHostToHost
#define hipMemcpyHostToDevice		cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost		cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice		cudaMemcpyDeviceToDevice
#define hipMemcpyDefault		cudaMemcpyDefault

#define hipMalloc			cudaMalloc
#define hipFree				cudaFree
#define hipMallocAsync			cudaMallocAsync
#define hipFreeAsync			cudaFreeAsync
#define hipMemcpy			cudaMemcpy
#define hipMemcpyAsync			cudaMemcpyAsync
#define hipMemset			cudaMemset
#define hipMemsetAsync			cudaMemsetAsync
#define hipMemGetInfo			cudaMemGetInfo
#define hipHostMalloc			cudaHostAlloc
#define hipHostFree			cudaFreeHost
#define hipHostMallocDefault		cudaHostAllocDefault
#define hipHostMallocPortable		cudaHostAllocPortable
#define hipHostMallocMapped		cudaHostAllocMapped
#define hipHostMallocWriteCombined	cudaHostAllocWriteCombined
#define hipMemcpyToSymbol		cudaMemcpyToSymbol
#define hipMemcpyToSymbolAsync		cudaMemcpyToSymbolAsync
#define hipMemcpyFromSymbol		cudaMemcpyFromSymbol
#define hipMemcpyFromSymbolAsync	cudaMemcpyFromSymbolAsync
/* HIP passes symbols as HIP_SYMBOL(x); the CUDA C API takes their address. */
#define HIP_SYMBOL(X)			(&(X))

/* ---- streams and events --------------------------------------------- */
#define hipStreamDefault		cudaStreamDefault
#define hipStreamNonBlocking		cudaStreamNonBlocking
#define hipStreamCreate			cudaStreamCreate
#define hipStreamCreateWithFlags	cudaStreamCreateWithFlags
#define hipStreamDestroy		cudaStreamDestroy
#define hipStreamSynchronize		cudaStreamSynchronize
#define hipStreamQuery			cudaStreamQuery
#define hipStreamWaitEvent		cudaStreamWaitEvent

#define hipEventDefault			cudaEventDefault
#define hipEventBlockingSync		cudaEventBlockingSync
#define hipEventDisableTiming		cudaEventDisableTiming
#define hipEventCreate			cudaEventCreate
#define hipEventCreateWithFlags		cudaEventCreateWithFlags
#define hipEventRecord			cudaEventRecord
#define hipEventSynchronize		cudaEventSynchronize
#define hipEventElapsedTime		cudaEventElapsedTime
#define hipEventQuery			cudaEventQuery
#define hipEventDestroy			cudaEventDestroy

/* ---- device --------------------------------------------------------- */
#define hipGetDeviceCount		cudaGetDeviceCount
#define hipGetDevice			cudaGetDevice
#define hipSetDevice			cudaSetDevice
#define hipDeviceSynchronize		cudaDeviceSynchronize
#define hipGetDeviceProperties		cudaGetDeviceProperties
#define hipDeviceGetAttribute		cudaDeviceGetAttribute
#define hipDriverGetVersion		cudaDriverGetVersion
#define hipRuntimeGetVersion		cudaRuntimeGetVersion

#define hipDeviceAttributeMaxThreadsPerBlock	cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeMaxBlockDimX		cudaDevAttrMaxBlockDimX
#define hipDeviceAttributeMaxGridDimX		cudaDevAttrMaxGridDimX
#define hipDeviceAttributeMaxSharedMemoryPerBlock \
	cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeSharedMemPerBlockOptin \
	cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeMaxSharedMemoryPerMultiprocessor \
	cudaDevAttrMaxSharedMemoryPerMultiprocessor
#define hipDeviceAttributeMaxRegistersPerBlock	cudaDevAttrMaxRegistersPerBlock
#define hipDeviceAttributeWarpSize		cudaDevAttrWarpSize
#define hipDeviceAttributeMultiprocessorCount	cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxThreadsPerMultiProcessor \
	cudaDevAttrMaxThreadsPerMultiProcessor
#define hipDeviceAttributeClockRate		cudaDevAttrClockRate
#define hipDeviceAttributeMemoryClockRate	cudaDevAttrMemoryClockRate
#define hipDeviceAttributeMemoryBusWidth	cudaDevAttrGlobalMemoryBusWidth
#define hipDeviceAttributeL2CacheSize		cudaDevAttrL2CacheSize
#define hipDeviceAttributeComputeCapabilityMajor \
	cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor \
	cudaDevAttrComputeCapabilityMinor

/* hipInit(0) creates the primary context, as cuInit + first use would. */
static inline hipError_t hipInit(unsigned int flags)
{
	(void)flags;
	return cudaFree((void *)0);
}

/* ---- kernels as functions ------------------------------------------- */
#define hipFuncSetAttribute		cudaFuncSetAttribute
#define hipFuncGetAttributes		cudaFuncGetAttributes
#define hipFuncAttributeMaxDynamicSharedMemorySize \
	cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipFuncAttributePreferredSharedMemoryCarveout \
	cudaFuncAttributePreferredSharedMemoryCarveout
#define hipOccupancyMaxActiveBlocksPerMultiprocessor \
	cudaOccupancyMaxActiveBlocksPerMultiprocessor

#endif /* ARENA_HIP_NVIDIA_HIP_RUNTIME_API_H */

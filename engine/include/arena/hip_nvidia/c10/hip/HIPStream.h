/*
 * arena HIP-on-NVIDIA portability layer: <c10/hip/HIPStream.h> for a
 * PyTorch extension written for ROCm's PyTorch (a gpumode AgentKernelArena
 * task's .hip file, docs/aka.md) and built with nvcc against CUDA's
 * PyTorch.  ROCm's PyTorch names its streams HIP; CUDA's names the same
 * things CUDA, and a HIP stream is a CUDA stream here (hipStream_t is
 * cudaStream_t, hip/hip_runtime_api.h).  Only this directory's builds of
 * extensions see it; torch's own headers come after it on the path.
 */
#ifndef ARENA_HIP_NVIDIA_C10_HIP_STREAM_H
#define ARENA_HIP_NVIDIA_C10_HIP_STREAM_H

#include <c10/cuda/CUDAStream.h>

namespace c10 {
namespace hip {

using HIPStream = c10::cuda::CUDAStream;

inline HIPStream getCurrentHIPStream(c10::DeviceIndex device = -1)
{
	return c10::cuda::getCurrentCUDAStream(device);
}

inline HIPStream getDefaultHIPStream(c10::DeviceIndex device = -1)
{
	return c10::cuda::getDefaultCUDAStream(device);
}

inline HIPStream getStreamFromPool(bool high_priority = false,
				   c10::DeviceIndex device = -1)
{
	return c10::cuda::getStreamFromPool(high_priority, device);
}

} // namespace hip
} // namespace c10

#endif

/*
 * arena HIP-on-NVIDIA portability layer: <ATen/hip/HIPContext.h> for a
 * PyTorch extension written for ROCm's PyTorch and built with nvcc against
 * CUDA's (see c10/hip/HIPStream.h): at::hip's stream and device names are
 * at::cuda's.
 */
#ifndef ARENA_HIP_NVIDIA_ATEN_HIP_CONTEXT_H
#define ARENA_HIP_NVIDIA_ATEN_HIP_CONTEXT_H

#include <ATen/cuda/CUDAContext.h>
#include <c10/hip/HIPStream.h>

namespace at {
namespace hip {

using c10::hip::HIPStream;
using c10::hip::getCurrentHIPStream;
using c10::hip::getDefaultHIPStream;
using c10::hip::getStreamFromPool;

inline cudaDeviceProp *getCurrentDeviceProperties()
{
	return at::cuda::getCurrentDeviceProperties();
}

} // namespace hip
} // namespace at

#endif

/*
 * arena HIP-on-NVIDIA portability layer: <hip/hip_fp16.h>.
 * __half, __half2 and their intrinsics (__half2float, __float2half,
 * __hadd, __hmul, __hfma, ...) are CUDA's from <cuda_fp16.h>, with the same
 * names HIP uses.  hip_runtime.h includes cuda_fp16.h before it defines the
 * maskless shuffle macros, so this header only includes it.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_FP16_H
#define ARENA_HIP_NVIDIA_HIP_FP16_H
#include "hip_runtime.h"
#endif

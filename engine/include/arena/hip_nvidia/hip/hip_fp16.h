/*
 * arena HIP-on-NVIDIA portability layer: <hip/hip_fp16.h>.
 * __half, __half2 and their intrinsics (__half2float, __float2half,
 * __hadd, __hmul, __hfma, ...) are CUDA's from <cuda_fp16.h>, with the same
 * names HIP uses.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_FP16_H
#define ARENA_HIP_NVIDIA_HIP_FP16_H
#include "hip_runtime.h"
/* CUDA's header declares maskless cross-lane overloads of its own. */
#include "arena_lanes_off.h"
#include <cuda_fp16.h>
#include "arena_lanes_on.h"
#endif

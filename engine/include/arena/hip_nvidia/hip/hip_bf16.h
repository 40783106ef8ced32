/*
 * arena HIP-on-NVIDIA portability layer: <hip/hip_bf16.h>.
 * ROCm >= 5.7 spells the bfloat16 type __hip_bfloat16 (and __hip_bfloat162)
 * with CUDA's intrinsic names (__bfloat162float, __float2bfloat16, ...);
 * on NVIDIA they are cuda_bf16.h's __nv_bfloat16.  Older ROCm (Debian 12's
 * HIP 5.2) has no hip_bf16.h at all, only the hip_bfloat16 class of
 * <hip/hip_bfloat16.h>, which is not mapped: portable kernels that must
 * also build with HIP 5.2 treat bf16 data as 16-bit patterns (the upper
 * half of a float32) and convert by hand, as arena's bf16 tasks do.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_BF16_H
#define ARENA_HIP_NVIDIA_HIP_BF16_H
#include "hip_runtime.h"
/* CUDA's header declares maskless cross-lane overloads of its own. */
#include "arena_lanes_off.h"
#include <cuda_bf16.h>
#include "arena_lanes_on.h"
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
#endif

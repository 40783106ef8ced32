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
/* CUDA's header declares maskless cross-lane overloads of its own:
 * included with hip_runtime.h's cross-lane macros set aside. */
#pragma push_macro("__shfl")
#undef __shfl
#pragma push_macro("__shfl_up")
#undef __shfl_up
#pragma push_macro("__shfl_down")
#undef __shfl_down
#pragma push_macro("__shfl_xor")
#undef __shfl_xor
#pragma push_macro("__any")
#undef __any
#pragma push_macro("__all")
#undef __all
#pragma push_macro("__ballot")
#undef __ballot
#include <cuda_bf16.h>
#pragma pop_macro("__shfl")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl_down")
#pragma pop_macro("__shfl_xor")
#pragma pop_macro("__any")
#pragma pop_macro("__all")
#pragma pop_macro("__ballot")
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
#endif

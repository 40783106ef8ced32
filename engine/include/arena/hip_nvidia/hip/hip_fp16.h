/*
 * arena HIP-on-NVIDIA portability layer: <hip/hip_fp16.h>.
 * __half, __half2 and their intrinsics (__half2float, __float2half,
 * __hadd, __hmul, __hfma, ...) are CUDA's from <cuda_fp16.h>, with the same
 * names HIP uses.
 */
#ifndef ARENA_HIP_NVIDIA_HIP_FP16_H
#define ARENA_HIP_NVIDIA_HIP_FP16_H
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
#include <cuda_fp16.h>
#pragma pop_macro("__shfl")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl_down")
#pragma pop_macro("__shfl_xor")
#pragma pop_macro("__any")
#pragma pop_macro("__all")
#pragma pop_macro("__ballot")
#endif

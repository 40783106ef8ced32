/*
 * arena HIP-on-NVIDIA portability layer, internal: sets hip_runtime.h's
 * cross-lane macros (__shfl, __any, __ballot, ...) aside, so that a CUDA
 * header declaring maskless overloads of those names can be included;
 * arena_lanes_on.h puts them back.  Used by hip_fp16.h and hip_bf16.h.
 */
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

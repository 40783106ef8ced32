/*
 * arena HIP-on-NVIDIA portability layer, internal: puts back the
 * cross-lane macros arena_lanes_off.h set aside.
 */
#pragma pop_macro("__shfl")
#pragma pop_macro("__shfl_up")
#pragma pop_macro("__shfl_down")
#pragma pop_macro("__shfl_xor")
#pragma pop_macro("__any")
#pragma pop_macro("__all")
#pragma pop_macro("__ballot")

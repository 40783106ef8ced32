/*
 * cuda_emu.h - runs the simple CUDA/HIP kernels of the torch2cuda and
 * torch2hip baselines on the CPU, for tests/python/taskcheck.py --emulate:
 * each block runs in turn, each of its threads as a std::thread, with a
 * barrier for __syncthreads and __shfl_xor through a per-block buffer.
 * __shared__ becomes static (blocks never overlap).  Only what those
 * baselines use is here; it checks their indexing and arithmetic, nothing
 * about the GPU (no warps, no memory model, no occupancy).
 * taskcheck.py rewrites `k<<<g, b, smem, stream>>>(args)` into EMU_LAUNCH.
 */
#ifndef CUDA_EMU_H
#define CUDA_EMU_H
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <math.h>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __constant__
#define __shared__ static
#define __restrict__ __restrict

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c)
	{
	}
};
struct emu_idx {
	unsigned x, y, z;
};
inline thread_local emu_idx threadIdx, blockIdx;
inline emu_idx blockDim, gridDim;
static const int warpSize = 32;

inline std::barrier<> *emu_bar;
inline std::vector<float> emu_shfl;

inline void __syncthreads()
{
	emu_bar->arrive_and_wait();
}
inline float __shfl_xor(float v, int off)
{
	unsigned t = threadIdx.x;
	emu_shfl[t] = v;
	__syncthreads();
	float r = emu_shfl[t ^ (unsigned)off];
	__syncthreads();
	return r;
}
inline float __shfl_xor_sync(unsigned, float v, int off)
{
	return __shfl_xor(v, off);
}
inline float __uint_as_float(uint32_t u)
{
	float f;
	std::memcpy(&f, &u, 4);
	return f;
}
inline uint32_t __float_as_uint(float f)
{
	uint32_t u;
	std::memcpy(&u, &f, 4);
	return u;
}

inline void emu_launch(dim3 g, dim3 b, const std::function<void()> &body)
{
	gridDim = { g.x, g.y, g.z };
	blockDim = { b.x, b.y, b.z };
	unsigned n = b.x * b.y * b.z;
	std::barrier<> bar(n);
	emu_bar = &bar;
	emu_shfl.assign(n, 0.0f);
	for (unsigned bz = 0; bz < g.z; bz++)
		for (unsigned by = 0; by < g.y; by++)
			for (unsigned bx = 0; bx < g.x; bx++) {
				std::vector<std::thread> ts;
				for (unsigned t = 0; t < n; t++)
					ts.emplace_back([&, t] {
						blockIdx = { bx, by, bz };
						threadIdx = { t % b.x,
							      (t / b.x) % b.y,
							      t / (b.x * b.y) };
						body();
					});
				for (auto &th : ts)
					th.join();
			}
}

#define EMU_LAUNCH(k, g, b, ...) \
	emu_launch(dim3(g), dim3(b), [&] { k(__VA_ARGS__); })
#define hipLaunchKernelGGL(k, g, b, smem, stream, ...) \
	EMU_LAUNCH(k, g, b, __VA_ARGS__)

typedef int cudaError_t;
typedef void *cudaStream_t;
typedef int hipError_t;
typedef void *hipStream_t;
#define cudaSuccess 0
#define hipSuccess 0
inline int cudaGetLastError()
{
	return 0;
}
inline int hipGetLastError()
{
	return 0;
}
#endif

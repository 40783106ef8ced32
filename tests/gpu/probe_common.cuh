/*
 * probe_common.cuh - what the stand-alone GPU probes (probe_gate.cu,
 * probe_xctx.cu) share: a CUDA error check, the host's monotonic clock, a
 * gate kernel spinning on a word of host-mapped memory (arena's own is
 * engine/runner/gpu/gpu_gate.h) and a busy kernel of a given length.
 */
#ifndef ARENA_PROBE_COMMON_CUH
#define ARENA_PROBE_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(x)                                                               \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, \
				#x, cudaGetErrorString(e_));                   \
			exit(1);                                               \
		}                                                              \
	} while (0)

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Spins until *flag == want, or for limit_ns at most. */
__global__ void gate_kernel(volatile unsigned *flag, unsigned want,
			    unsigned long long limit_ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	for (;;) {
		if (*flag == want)
			return;
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
		if (t - t0 > limit_ns)
			return;
		__nanosleep(100);
	}
}

/* Busy for ns by the device's clock; out is written only if the
 * arithmetic gives -1, which it never does (the loop stays). */
__global__ void busy_kernel(float *out, unsigned long long ns)
{
	unsigned long long t0, t;
	float acc = threadIdx.x;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do {
		acc = acc * 1.0000001f + 0.5f;
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	} while (t - t0 < ns);
	if (acc == -1.0f)
		out[threadIdx.x] = acc;
}

#endif

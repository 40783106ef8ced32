/*
 * gen_probe.cu - how fast the runners' input generator (gpu_gen.h) fills
 * device memory against the memory's own floor: per distribution and
 * dtype, the median of 20 timed fills of n elements by gen_fill, by a
 * plain cudaMemsetAsync of the same bytes (the write floor), and, for
 * normals, by the draw gen_fill made until 2026-12-07 (two 64-bit mixes
 * per element, the library's logarithm and cosine), which shows what the
 * generator's arithmetic costs.  A diagnostic for docs/gpu.md section 6
 * (a timed pair's `gen`), not part of arena.
 *
 * build: nvcc -O2 -arch=sm_90 -Iengine/include -Iengine/runner/gpu
 *            -o build/gen_probe tests/gpu/bench/gen_probe.cu
 * usage: gen_probe [elements]   (default 64 Mi)
 */
#define ARENA_GPU_CUDA 1
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "gpu_gen.h"

#define CK(x)                                            \
	do {                                             \
		cudaError_t e_ = (x);                    \
		if (e_ != cudaSuccess) {                 \
			fprintf(stderr, "%s: %s\n", #x,  \
				cudaGetErrorString(e_)); \
			exit(1);                         \
		}                                        \
	} while (0)

/* The normal draw before 2026-12-07: two mixes, the library's math. */
__global__ void before_kernel(void *dst, int dtype, size_t n, double a,
			      double b, unsigned long long seed)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += stride) {
		unsigned long long h =
			gen_mix(seed + i * 0x9e3779b97f4a7c15ull);
		double u = (double)(h >> 11) * 0x1p-53;
		float u1 = (float)((h >> 40) + 1) * 0x1p-24f;
		float u2 = (float)(gen_mix(h) >> 40) * 0x1p-24f;
		double v = a + b * (double)(sqrtf(-2.0f * logf(u1)) *
					    cosf(6.2831853f * u2));
		if (u < 0) /* as before: u computed for every element */
			v = u;
		if (dtype == ARENA_F32)
			((float *)dst)[i] = (float)v;
		else
			((uint16_t *)dst)[i] = arena_float_to_bf16((float)v);
	}
}

static float timed(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1,
		   void (*fill)(void *), void *arg)
{
	std::vector<float> ms;
	for (int r = 0; r < 21; r++) {
		CK(cudaEventRecord(e0, s));
		fill(arg);
		CK(cudaEventRecord(e1, s));
		CK(cudaEventSynchronize(e1));
		float t;
		CK(cudaEventElapsedTime(&t, e0, e1));
		if (r > 0)
			ms.push_back(t);
	}
	std::sort(ms.begin(), ms.end());
	return ms[ms.size() / 2];
}

struct job {
	void *buf;
	size_t n;
	int dtype, size;
	struct gen_spec g;
	cudaStream_t s;
};

static void by_gen(void *p)
{
	job *j = (job *)p;
	CK(gen_fill(j->buf, j->dtype, j->n, &j->g, 1, j->s));
}

static void by_memset(void *p)
{
	job *j = (job *)p;
	CK(cudaMemsetAsync(j->buf, 7, j->n * j->size, j->s));
}

static void by_before(void *p)
{
	job *j = (job *)p;
	size_t blocks = (j->n + 255) / 256;
	before_kernel<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, j->s>>>(
		j->buf, j->dtype, j->n, 0.0, 1.0, 12345);
	CK(cudaGetLastError());
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
	struct {
		const char *name;
		int dtype, size, dist;
	} rows[] = {
		{ "f32 normal", ARENA_F32, 4, GEN_NORMAL },
		{ "bf16 normal", ARENA_BF16, 2, GEN_NORMAL },
		{ "f32 uniform", ARENA_F32, 4, GEN_UNIFORM },
		{ "i32 randint", ARENA_I32, 4, GEN_RANDINT },
	};
	cudaStream_t s;
	cudaEvent_t e0, e1;
	void *buf;

	CK(cudaStreamCreate(&s));
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	CK(cudaMalloc(&buf, n * 4));
	printf("gen_probe: %zu elements; median ms of 20 fills (GB/s written)\n",
	       n);
	for (auto &r : rows) {
		job j = { buf, n, r.dtype, r.size, {}, s };
		j.g.dist = r.dist;
		j.g.a = r.dist == GEN_UNIFORM ? -1.0 : 0.0;
		j.g.b = 1.0;
		j.g.lo = -100;
		j.g.hi = 100;
		j.g.seed = 99;
		float g = timed(s, e0, e1, by_gen, &j);
		float m = timed(s, e0, e1, by_memset, &j);
		double gb = (double)n * r.size / 1e9;
		printf("%-12s gen_fill %.3f ms (%.0f GB/s)  memset %.3f ms (%.0f "
		       "GB/s)  gen/memset %.2fx",
		       r.name, g, gb / g * 1e3, m, gb / m * 1e3, g / m);
		if (r.dist == GEN_NORMAL) {
			float c = timed(s, e0, e1, by_before, &j);
			printf("  the draw before 2026-12-07 %.3f ms (%.2fx "
			       "memset)",
			       c, c / m);
		}
		printf("\n");
	}
	return 0;
}

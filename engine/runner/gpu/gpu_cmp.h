/*
 * gpu_cmp.h - the keeper's comparison of two runners' argument sets where
 * they lie, on the device (docs/gpu.md section 6, "the keeper's
 * compare").
 *
 * A timed pair used to copy every set of both runners' outputs to the
 * host (55 GB/s on the H200 against 3 TB/s on the device: on a 1 ms batch
 * of a memory-bound kernel, 15-20 ms a side) so that the controller
 * could compare them.  The keeper lends every runner its sets (memory it
 * allocated and exported, gpu_rt.h), so it can read both runners' sets
 * itself while they are stopped: one kernel per argument over every set,
 * counting the elements that fail and the first of them.
 *
 * The rule is array_compare.c's (docs/tasks.md): a floating-point element
 * passes when |got - want| <= atol + rtol |want| and got is finite
 * wherever want is; where want is NaN got must be NaN, where want is
 * infinite got must be the same infinity; integers, and every argument
 * compared bit for bit (inputs), must be equal.  Differences in double.
 * Which element failed first is (set, index), lowest first; the
 * controller words the failure from the host copies of that set.
 */
#ifndef ARENA_GPU_CMP_H
#define ARENA_GPU_CMP_H

#include <math.h>
#include <stdint.h>

#include "gpu_rt.h"
#include "arena/fp16.h"
#include "arena/kernel.h"

#if defined(ARENA_GPU_FAKE)
#define CMP_FN static inline
#else
#define CMP_FN __host__ __device__ static inline
#endif

enum { CMP_SKIP = 0, CMP_BITS = 1, CMP_TOL = 2 };

/* The first failing element's key: its set in the high 16 bits. */
#define CMP_KEY(set, i) \
	((unsigned long long)(set) << 48 | (unsigned long long)(i))
#define CMP_NONE (~0ull)

/* Element i of an array of T: one load of its width on the device
 * (every argument starts 256-byte aligned), memcpy on the host. */
template <typename T> CMP_FN T cmp_load(const unsigned char *p, size_t i)
{
#if defined(ARENA_GPU_FAKE)
	T v;
	memcpy(&v, p + i * sizeof(T), sizeof(T));
	return v;
#else
	return ((const T *)p)[i];
#endif
}

CMP_FN double cmp_value(int dtype, const unsigned char *p, size_t i)
{
	switch (dtype) {
	case ARENA_F32:
		return cmp_load<float>(p, i);
	case ARENA_F64:
		return cmp_load<double>(p, i);
	case ARENA_F16:
		return arena_half_to_float(cmp_load<uint16_t>(p, i));
	default: /* ARENA_BF16 */
		return arena_bf16_to_float(cmp_load<uint16_t>(p, i));
	}
}

CMP_FN bool cmp_is_float(int dtype)
{
	return dtype == ARENA_F32 || dtype == ARENA_F64 || dtype == ARENA_F16 ||
	       dtype == ARENA_BF16;
}

/* Whether element i of got fails against want (esize bytes each). */
CMP_FN bool cmp_element_bad(int kind, int dtype, size_t esize,
			    const unsigned char *got, const unsigned char *want,
			    size_t i, double atol, double rtol)
{
	if (kind == CMP_TOL && cmp_is_float(dtype)) {
		double g = cmp_value(dtype, got, i),
		       w = cmp_value(dtype, want, i);
		double d = fabs(g - w);
		/* An infinite want makes the tolerance infinite (rtol > 0):
		 * only the rules below decide it. */
		if (d <= atol + rtol * fabs(w) && isfinite(w))
			return false;
		if (isnan(w))
			return !isnan(g);
		if (isinf(w))
			return g != w;
		return true;
	}
	switch (esize) {
	case 1:
		return cmp_load<uint8_t>(got, i) != cmp_load<uint8_t>(want, i);
	case 2:
		return cmp_load<uint16_t>(got, i) !=
		       cmp_load<uint16_t>(want, i);
	case 4:
		return cmp_load<uint32_t>(got, i) !=
		       cmp_load<uint32_t>(want, i);
	default:
		return cmp_load<uint64_t>(got, i) !=
		       cmp_load<uint64_t>(want, i);
	}
}

/* One argument of every set: tab[2k] its got, tab[2k + 1] its want. */
struct cmp_job {
	int kind, dtype;
	size_t esize, numel;
	double atol, rtol;
};

#if !defined(ARENA_GPU_FAKE)
__global__ void cmp_kernel(const uintptr_t *tab, struct cmp_job j,
			   unsigned long long *res)
{
	int k = blockIdx.y;
	const unsigned char *g = (const unsigned char *)tab[2 * k];
	const unsigned char *w = (const unsigned char *)tab[2 * k + 1];
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	     i < j.numel; i += stride)
		if (cmp_element_bad(j.kind, j.dtype, j.esize, g, w, i, j.atol,
				    j.rtol)) {
			atomicAdd(&res[0], 1ull);
			atomicMin(&res[1], CMP_KEY(k, i));
		}
}
#endif

/* Enqueues the comparison of nsets sets of one argument on stream s:
 * dtab is the device copy of the pointer table (2 per set), res two
 * device words already holding {0, CMP_NONE}; htab the same table on the
 * host (the fake reads it). */
static gpu_err cmp_enqueue(const struct cmp_job *j, int nsets,
			   const uintptr_t *dtab, const uintptr_t *htab,
			   unsigned long long *res, gpu_stream s)
{
#if defined(ARENA_GPU_FAKE)
	(void)dtab, (void)s;
	for (int k = 0; k < nsets; k++)
		for (size_t i = 0; i < j->numel; i++)
			if (cmp_element_bad(
				    j->kind, j->dtype, j->esize,
				    (const unsigned char *)htab[2 * k],
				    (const unsigned char *)htab[2 * k + 1], i,
				    j->atol, j->rtol)) {
				res[0]++;
				if (CMP_KEY(k, i) < res[1])
					res[1] = CMP_KEY(k, i);
			}
	return GPU(Success);
#else
	(void)htab;
	size_t blocks = (j->numel + 255) / 256;
	if (blocks > 1024)
		blocks = 1024;
	dim3 grid((unsigned)(blocks ? blocks : 1), (unsigned)nsets);
	cmp_kernel<<<grid, 256, 0, s>>>(dtab, *j, res);
	return GPU(GetLastError)();
#endif
}

#endif /* ARENA_GPU_CMP_H */

/*
 * kernel.h - the kernel ABI: the whole contract between a task's kernel
 * source and the runner that loads it.
 *
 * A candidate, a baseline or a reference compiles to a shared object that
 * exports one C function (its name is the task's `entry`, `arena_launch`
 * by default):
 *
 *     int arena_launch(const arena_arg *args, int nargs,
 *                      const int64_t *params, int nparams, void *stream);
 *
 * args[] follow the task's `signature.args` order; params[] follow
 * `signature.params`.  For host (c) tasks data points to host memory and
 * stream is NULL; for GPU tasks data is device memory and stream is the
 * runner's stream (cudaStream_t / hipStream_t), on which all work must be
 * enqueued and finished, as seen by that stream, when the function returns.
 * Return 0 on success, anything else is a runtime error.
 *
 * Rules the evaluator enforces: write every element of every output; never
 * modify an input; keep no state that changes results between calls; leave
 * no thread, child process or stream work running after returning.
 *
 * This header is C99 and includes nothing but <stdint.h>, so it compiles
 * unchanged with cc, hipcc and nvcc.
 */
#ifndef ARENA_KERNEL_H
#define ARENA_KERNEL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ARENA_KERNEL_ABI_VERSION 1
#define ARENA_MAX_RANK 8

typedef enum arena_dtype {
	ARENA_F32 = 1,
	ARENA_F64 = 2,
	ARENA_F16 = 3,
	ARENA_BF16 = 4,
	ARENA_I32 = 5,
	ARENA_I64 = 6,
	ARENA_U8 = 7,
	ARENA_U32 = 8,
	ARENA_I8 = 9,
} arena_dtype;

typedef struct arena_arg {
	void *data;			/* host or device pointer */
	int32_t dtype;			/* an arena_dtype */
	int32_t rank;			/* number of dimensions, 0..ARENA_MAX_RANK */
	int64_t shape[ARENA_MAX_RANK];	/* row-major, contiguous */
	int64_t numel;			/* product of shape (1 for rank 0) */
} arena_arg;

typedef int (*arena_launch_fn)(const arena_arg *args, int nargs,
			       const int64_t *params, int nparams, void *stream);

#if defined(__GNUC__) || defined(__clang__)
#define ARENA_EXPORT __attribute__((visibility("default")))
#else
#define ARENA_EXPORT
#endif

/* The default entry point.  Declared here so that a definition in a C++
 * translation unit (hip, cuda) gets C linkage without writing extern "C",
 * and so that strict warning flags (-Wmissing-prototypes) stay quiet. */
ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_KERNEL_H */

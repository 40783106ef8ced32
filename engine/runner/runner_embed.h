/*
 * runner_embed.h - the host and GPU runners built as libraries, for a
 * program that embeds them: the Python runner (engine/runner/python/,
 * docs/python.md) loads them with ctypes and hands them its own way of
 * loading and calling a kernel.  Everything else - the protocol, the
 * order of start-up, the sandbox, the replies - is the runners' own code,
 * so a Python kernel is served exactly as a compiled one is.
 *
 * Built with -DARENA_RUNNER_EMBED, arena_runner.c defines
 * arena_runner_host_main() and arena_runner_gpu.cpp
 * arena_runner_gpu_main() instead of main(); without it nothing here is
 * used and the programs are what they always were.
 *
 * C linkage, libc only (the GPU runner is C++).
 */
#ifndef ARENA_RUNNER_EMBED_H
#define ARENA_RUNNER_EMBED_H

#include <stddef.h>

#include "arena/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What an embedded kernel's entry returns when it raised instead of
 * returning: the runner then asks failure() for the words and replies
 * `error <seq> <words>` instead of `ok <seq> <rc> ...`. */
#define RUNNER_EMBED_RAISED (-0x7a5e)

struct sbx_fs; /* runner_sandbox.h */

struct runner_embed {
	/* Loads the kernel at path (RP_KERNEL_PATH, the sealed memfd) and
	 * returns the function the runner calls as it would call a compiled
	 * kernel's entry, or NULL with a clause in why.  Called after the
	 * sandbox is on: from here on the embedding program runs candidate
	 * code. */
	arena_launch_fn (*load)(const char *path, const char *entry, char *why,
				size_t n);
	/* After an entry returned RUNNER_EMBED_RAISED: what it raised, as
	 * one line (the runner makes it printable). */
	void (*failure)(char *msg, size_t n);
	/* GPU runners only, may be NULL: called once the device is open and
	 * the runner's stream exists, before the sandbox (the embedding
	 * program's own runtime opens the device here, while file-system
	 * writes are still allowed).  0, or -1 with a clause in why. */
	int (*prepare)(int device, void *stream, char *why, size_t n);
	/* The file-system rules of the sandbox (runner_sandbox.h, struct
	 * sbx_fs); NULL: the runners' default (no writes at all). */
	const struct sbx_fs *fs;
	/* Or-ed into the seccomp mode (SBX_PROCS: the Triton runner, whose
	 * compiler runs ptxas and cc as child processes). */
	int seccomp_extra;
};

/* The runners' main() as functions: argv as the programs take it
 * (argv[0] is only a name).  They return only on a usage error; every
 * other end is an exit. */
int arena_runner_host_main(int argc, char **argv, const struct runner_embed *e);
int arena_runner_gpu_main(int argc, char **argv, const struct runner_embed *e);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_RUNNER_EMBED_H */

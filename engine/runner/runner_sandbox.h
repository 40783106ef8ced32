/*
 * runner_sandbox.h - what a runner does to itself before any kernel code
 * runs (docs/evaluator.md §2, docs/gpu.md for the GPU variant): close
 * inherited descriptors, drop capabilities, no_new_privs, a Landlock
 * ruleset without file-system writes, and a seccomp filter.
 *
 * Shared by the host runner and the GPU runners (C linkage, libc only).
 * The GPU runners call these after the driver has opened its device files
 * and started its threads: Landlock would refuse the driver's O_RDWR opens
 * of /dev/nvidia* (or /dev/kfd and /dev/dri), and the host filter forbids
 * every new thread, which a GPU driver needs.
 */
#ifndef ARENA_RUNNER_SANDBOX_H
#define ARENA_RUNNER_SANDBOX_H

#ifdef __cplusplus
extern "C" {
#endif

enum sbx_mode {
	/* Host kernels: no thread, no process, ever. */
	SBX_HOST = 0,
	/* GPU runners: new threads of this process are allowed (the driver
	 * starts them lazily), new processes are not; calls that could aim
	 * at one of this process's own threads by thread id (tkill,
	 * sched_setaffinity, ...) fail with EPERM instead of killing when
	 * the target is not the process itself, since the filter cannot
	 * tell our thread ids from other processes'. */
	SBX_GPU = 1,
	/* Or-ed into either mode for diagnosis (the GPU runner's --selftest):
	 * a forbidden call raises a SIGSYS the caller can catch and report
	 * (si_syscall says which) instead of killing the process. */
	SBX_TRAP = 2,
	/* Or-ed into SBX_GPU for the Triton runner (engine/runner/python):
	 * child processes are allowed too, since Triton's compiler runs
	 * ptxas and the C compiler; what they may execute is Landlock's
	 * (struct sbx_fs), they cannot leave the runner's process group
	 * (setsid and setpgid fail), so the controller's SIGSTOP stops them
	 * with it, and the controller counts them after every request. */
	SBX_PROCS = 4,
	/* Or-ed into SBX_HOST for a trusted C reference that the controller
	 * lets cut a call into row ranges (reference.split): threads of this
	 * process are allowed, processes are not.  Never given to a runner
	 * that loads candidate or baseline code. */
	SBX_THREADS = 8,
};

/* File-system rules beyond "no writes anywhere" (the Python runner):
 * NULL-terminated lists of paths, each a directory (the rule covers what
 * lies beneath) or a file.  read: when non-NULL, the only trees that may
 * be read at all; write: trees that may also be written; exec: when
 * non-NULL, the only files that may be executed.  A path that does not
 * exist is skipped. */
struct sbx_fs {
	const char *const *read;
	const char *const *write;
	const char *const *exec;
};

/* Closes every descriptor above RP_FD_KERNEL. */
void sbx_close_other_fds(void);
/* Drops every capability (a runner started by root keeps uid 0). */
void sbx_drop_capabilities(void);
/* Landlock: no writes anywhere in the file system, no TCP, and (ABI >= 6)
 * no signals or abstract sockets beyond this process.  0 when enforced. */
int sbx_landlock(void);
/* The same with the rules of fs (NULL: sbx_landlock()).  0 when enforced;
 * -1 when Landlock is missing or a rule could not be added. */
int sbx_landlock_fs(const struct sbx_fs *fs);
/* The seccomp filter for mode; needs no_new_privs.  0 when installed. */
int sbx_seccomp(int mode);

#ifdef __cplusplus
}
#endif

#endif /* ARENA_RUNNER_SANDBOX_H */

/*
 * runner_sandbox.c - the hardening a runner applies to itself before it
 * loads a kernel (runner_sandbox.h).
 *
 * Why each piece (docs/evaluator.md §2 has the whole argument):
 *   - closing descriptors: nothing the controller had open leaks in;
 *   - dropping capabilities: a runner started by root cannot open the
 *     /proc files of non-dumpable processes (the controller, the other
 *     runners) nor write files it does not own;
 *   - Landlock: no writes anywhere in the file system, so nothing the
 *     controller trusts later (cached artifacts, task files) can be
 *     replaced; no TCP; where the kernel supports it no signals or
 *     abstract sockets beyond this process;
 *   - seccomp: no way to reach another process (trace, signal, read its
 *     memory, reprioritise it), no asynchronous kernel-side work
 *     (io_uring, userfaultfd, bpf), and - on the host - no thread or
 *     process at all, so "work left running after returning" is
 *     impossible rather than merely detectable (a trusted C reference
 *     allowed to cut its calls into row ranges may start threads:
 *     SBX_THREADS).  GPU runners allow new
 *     threads of their own process (the driver starts them lazily) and the
 *     controller counts them instead (docs/gpu.md).
 * Raw constants: the ABIs are stable and the build machine's headers may
 * predate the running kernel.
 */
#include "runner_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "arena/runner_proto.h"

void sbx_close_other_fds(void)
{
	const int first = RP_FD_KERNEL + 1;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0U, 0U) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = first; fd < max; fd++)
		close(fd);
}

void sbx_drop_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	syscall(SYS_capset, &h, d);
}

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_add_rule)
/* Landlock's file-system access rights (linux/landlock.h). */
#define LL_EXECUTE (1ULL << 0)
#define LL_WRITE_FILE (1ULL << 1)
#define LL_READ_FILE (1ULL << 2)
#define LL_READ_DIR (1ULL << 3)
#define LL_REFER (1ULL << 13)	 /* ABI 2 */
#define LL_TRUNCATE (1ULL << 14) /* ABI 3 */
/* The rights that may be granted on a file rather than a directory. */
#define LL_FILE_RIGHTS (LL_EXECUTE | LL_WRITE_FILE | LL_READ_FILE | LL_TRUNCATE)
#define LL_RULE_PATH_BENEATH 1

struct ll_path_beneath {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* Allows `access` beneath each path of list (files: their file rights
 * only); a path that does not exist is skipped.  0, or -1 when the
 * kernel refused a rule. */
static int ll_allow(long ruleset, const char *const *list, uint64_t access,
		    uint64_t handled)
{
	for (; list && *list; list++) {
		int fd = open(*list, O_PATH | O_CLOEXEC);
		struct stat st;
		if (fd < 0)
			continue;
		struct ll_path_beneath pb = { access & handled, fd };
		if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
			pb.allowed_access &= LL_FILE_RIGHTS;
		long rc = pb.allowed_access
				  ? syscall(SYS_landlock_add_rule, (int)ruleset,
					    LL_RULE_PATH_BENEATH, &pb, 0U)
				  : 0;
		close(fd);
		if (rc != 0)
			return -1;
	}
	return 0;
}
#endif

int sbx_landlock(void)
{
	return sbx_landlock_fs(NULL);
}

int sbx_landlock_fs(const struct sbx_fs *fs)
{
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_add_rule) && \
	defined(SYS_landlock_restrict_self)
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	struct ll_ruleset_attr attr;
	size_t size = sizeof(uint64_t);
	uint64_t writes;

	if (abi < 1)
		return -1;
	memset(&attr, 0, sizeof(attr));
	/* write_file, remove_dir, remove_file, make_{char,dir,reg,sock,
	 * fifo,block,sym} */
	writes = LL_WRITE_FILE | (1ULL << 4) | (1ULL << 5) | (1ULL << 6) |
		 (1ULL << 7) | (1ULL << 8) | (1ULL << 9) | (1ULL << 10) |
		 (1ULL << 11) | (1ULL << 12);
	if (abi >= 2)
		writes |= LL_REFER;
	if (abi >= 3)
		writes |= LL_TRUNCATE;
	attr.handled_access_fs = writes;
	if (fs && fs->read)
		attr.handled_access_fs |= LL_READ_FILE | LL_READ_DIR;
	if (fs && fs->exec)
		attr.handled_access_fs |= LL_EXECUTE;
	if (abi >= 4) {
		attr.handled_access_net = (1ULL << 0) | (1ULL << 1);
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		attr.scoped = (1ULL << 0) | (1ULL << 1);
		size = sizeof(attr);
	}
	long fd = syscall(SYS_landlock_create_ruleset, &attr, size, 0U);
	if (fd < 0)
		return -1;
	uint64_t h = attr.handled_access_fs;
	if (fs &&
	    (ll_allow(fd, fs->read, LL_READ_FILE | LL_READ_DIR, h) ||
	     ll_allow(fd, fs->write, writes | LL_READ_FILE | LL_READ_DIR, h) ||
	     ll_allow(fd, fs->exec, LL_EXECUTE | LL_READ_FILE, h))) {
		close((int)fd);
		return -1;
	}
	long rc = syscall(SYS_landlock_restrict_self, (int)fd, 0U);
	close((int)fd);
	return rc == 0 ? 0 : -1;
#else
	(void)fs;
	return -1;
#endif
}

#if defined(__x86_64__)
#define RUNNER_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RUNNER_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef RUNNER_AUDIT_ARCH
#ifndef SECCOMP_RET_KILL_PROCESS
#define SECCOMP_RET_KILL_PROCESS 0x80000000U
#endif
#define RET_KILL ((uint32_t)SECCOMP_RET_KILL_PROCESS)
#define RET_ALLOW ((uint32_t)SECCOMP_RET_ALLOW)
#define RET_ERRNO(e) ((uint32_t)SECCOMP_RET_ERRNO | ((uint32_t)(e) & 0xffffU))
#define CLONE_THREAD_FLAG 0x00010000U

/* Invariant of the program below: every block either returns or falls
 * through with the accumulator still holding the syscall number (argument
 * loads happen only on paths that end in a return). */
struct filter_prog {
	struct sock_filter f[256];
	int n;
};

static void emit(struct filter_prog *p, struct sock_filter ins)
{
	if (p->n < (int)(sizeof(p->f) / sizeof(p->f[0])))
		p->f[p->n] = ins;
	p->n++;
}

static void load_nr(struct filter_prog *p)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, nr)));
}

/* Returns ret when the syscall number is nr. */
static void on(struct filter_prog *p, long nr, uint32_t ret)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					     (uint32_t)nr, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ret));
}

/* The action for forbidden calls of the filter being built. */
static uint32_t deny_action = RET_KILL;

static void deny(struct filter_prog *p, long nr)
{
	on(p, nr, deny_action);
}

/* Allows syscall nr only when its first argument (a pid) is this process
 * (or 0, "myself", where allow_zero); otherwise returns `otherwise`. */
static void self_only(struct filter_prog *p, long nr, uint32_t pid,
		      int allow_zero, uint32_t otherwise)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					     (uint32_t)nr, 0,
					     allow_zero ? 5 : 4));
	/* Little-endian: the low word of args[0]; pids are 32-bit ints and
	 * the kernel ignores the high word. */
	emit(p, (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[0])));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid,
					     allow_zero ? 2 : 1, 0));
	if (allow_zero)
		emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						     0, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, otherwise));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ALLOW));
}

/* clone(2) with CLONE_THREAD in its flags (a thread of this process) is
 * allowed; any other clone (a process) kills. */
static void clone_threads_only(struct filter_prog *p)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					     (uint32_t)SYS_clone, 0, 4));
	emit(p, (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_W | BPF_ABS,
			offsetof(struct seccomp_data, args[0])));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
					     CLONE_THREAD_FLAG, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, deny_action));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ALLOW));
}

int sbx_seccomp(int flags)
{
	struct filter_prog p = { .n = 0 };
	uint32_t me = (uint32_t)getpid();
	int mode = flags & SBX_GPU;
	int procs = mode == SBX_GPU && (flags & SBX_PROCS);
	uint32_t act = (flags & SBX_TRAP) ? (uint32_t)SECCOMP_RET_TRAP
					   : RET_KILL;
	/* What a call aimed at another thread or process gets: on the host
	 * there is no other thread, so it can only be an attack; a GPU
	 * runner's driver may aim at its own threads by id. */
	uint32_t foreign = mode == SBX_GPU ? RET_ERRNO(EPERM) : act;

	deny_action = act;

	emit(&p, (struct sock_filter)BPF_STMT(
			 BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      RUNNER_AUDIT_ARCH, 1, 0));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, act));
	load_nr(&p);
#ifdef __x86_64__
	/* The x32 ABI reaches the same calls under other numbers. */
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
					      0x40000000U, 0, 1));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, act));
#endif
	/* New threads and processes. */
	if (mode == SBX_GPU || (flags & SBX_THREADS)) {
		/* clone3 hides its flags in memory the filter cannot read:
		 * ENOSYS makes glibc fall back to clone(2), checked below. */
#ifdef SYS_clone3
		on(&p, SYS_clone3, RET_ERRNO(ENOSYS));
#endif
		if (!procs)
			clone_threads_only(&p);
	} else {
		deny(&p, SYS_clone);
#ifdef SYS_clone3
		deny(&p, SYS_clone3);
#endif
	}
	if (procs) {
		/* Children stay in the runner's process group (stopped with
		 * it) and its session. */
		on(&p, SYS_setsid, RET_ERRNO(EPERM));
		on(&p, SYS_setpgid, RET_ERRNO(EPERM));
	} else {
#ifdef SYS_fork
		deny(&p, SYS_fork);
#endif
#ifdef SYS_vfork
		deny(&p, SYS_vfork);
#endif
	}
	/* Other processes' memory, descriptors and state. */
	deny(&p, SYS_ptrace);
	deny(&p, SYS_process_vm_readv);
	deny(&p, SYS_process_vm_writev);
	deny(&p, SYS_kcmp);
#ifdef SYS_pidfd_open
	deny(&p, SYS_pidfd_open);
#endif
#ifdef SYS_pidfd_getfd
	deny(&p, SYS_pidfd_getfd);
#endif
#ifdef SYS_pidfd_send_signal
	deny(&p, SYS_pidfd_send_signal);
#endif
#ifdef SYS_process_madvise
	deny(&p, SYS_process_madvise);
#endif
	deny(&p, SYS_setpriority);
	deny(&p, SYS_ioprio_set);
	/* Asynchronous kernel-side work and other escapes from the rules. */
#ifdef SYS_io_uring_setup
	deny(&p, SYS_io_uring_setup);
#endif
	deny(&p, SYS_perf_event_open);
	deny(&p, SYS_userfaultfd);
	deny(&p, SYS_bpf);
	deny(&p, SYS_unshare);
	deny(&p, SYS_setns);
	deny(&p, SYS_keyctl);
	deny(&p, SYS_add_key);
	deny(&p, SYS_request_key);
	/* Pages, signals, scheduling and limits: this process only. */
	if (mode == SBX_GPU) {
		/* A driver may move its own pages (pid 0); never another
		 * process's. */
		self_only(&p, SYS_move_pages, me, 1, foreign);
			self_only(&p, SYS_migrate_pages, me, 1, foreign);
		} else {
		deny(&p, SYS_move_pages);
		deny(&p, SYS_migrate_pages);
	}
	/* kill and tgkill name the process (thread group) itself.  With
	 * child processes (which inherit this filter, and whose own pid is
	 * not `me`), a call aimed elsewhere fails instead of killing: a
	 * compiler that signals its own child must not die of it, and it
	 * reaches no other process either way. */
	uint32_t other = procs ? RET_ERRNO(EPERM) : act;
	self_only(&p, SYS_kill, me, 1, other);
	self_only(&p, SYS_tgkill, me, 0, other);
	self_only(&p, SYS_rt_sigqueueinfo, me, 0, other);
	self_only(&p, SYS_rt_tgsigqueueinfo, me, 0, other);
	self_only(&p, SYS_prlimit64, me, 1, other);
	/* These take a thread id. */
	self_only(&p, SYS_tkill, me, 0, foreign);
	self_only(&p, SYS_sched_setaffinity, me, 1, foreign);
	self_only(&p, SYS_sched_setscheduler, me, 1, foreign);
	self_only(&p, SYS_sched_setparam, me, 1, foreign);
	self_only(&p, SYS_sched_setattr, me, 1, foreign);
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, RET_ALLOW));
	if (p.n > (int)(sizeof(p.f) / sizeof(p.f[0])))
		return -1;

	struct sock_fprog prog = { .len = (unsigned short)p.n, .filter = p.f };
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		return -1;
	return 0;
}
#else
int sbx_seccomp(int flags)
{
	(void)flags;
	return -1;
}
#endif

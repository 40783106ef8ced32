/*
 * arena_runner.c - arena-runner: loads one compiled kernel (candidate,
 * baseline or reference) and runs it on the controller's behalf.
 *
 * Usage: arena-runner <so-path> <entry>, started by the controller with the
 * file descriptors described in runner_proto.h.  This program links
 * nothing of the controller: once dlopen() has run the candidate's
 * constructors, everything in this address space - including this code,
 * its buffers and its replies - may have been rewritten by the candidate,
 * so the controller treats every reply as a claim and checks it
 * (docs/evaluator.md).
 *
 * What this program does before any candidate code runs, and why:
 *   - closes every descriptor but 0-5, so nothing the controller had open
 *     leaks in;
 *   - marks itself non-dumpable, so other processes of the same user (a
 *     candidate runner next door) cannot open its /proc files: its shared
 *     memory, its memory, its descriptors;
 *   - drops every capability (a runner started by root stays uid 0 but
 *     loses CAP_SYS_PTRACE, CAP_DAC_OVERRIDE and the rest);
 *   - sets no_new_privs and a Landlock ruleset that forbids writing
 *     anywhere in the file system, so nothing the controller trusts later
 *     (cached artifacts, task files) can be replaced;
 *   - installs a seccomp filter that kills the process on any attempt to
 *     create a thread or process, to trace or signal another process, or
 *     to reach other processes' memory.  Host kernels are single-threaded
 *     by rule; the filter makes "work left running after returning" and
 *     "slow the baseline down from a helper process" impossible rather
 *     than merely detectable.  The controller checks thread counts anyway.
 *
 * The main loop reads one request line, answers with one line.  It rebuilds
 * the arena_arg array before every call, so a kernel that scribbles on the
 * (const) array it was given cannot redirect the next call.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "arena/kernel.h"
#include "runner_proto.h"

/* Exit status when the control channel breaks (the controller is gone or
 * the kernel closed fd 3). */
#define EXIT_CHANNEL 125

static arena_launch_fn launch;

static struct {
	unsigned char *base;	/* mapping of fd 4, or NULL */
	size_t size;
	int nargs, nparams;
	int64_t params[RP_MAX_PARAMS];
	size_t offset[RP_MAX_ARGS];
	int32_t dtype[RP_MAX_ARGS];
	int32_t rank[RP_MAX_ARGS];
	int64_t shape[RP_MAX_ARGS][ARENA_MAX_RANK];
	int64_t numel[RP_MAX_ARGS];
} lay;

static unsigned char *flush_buf;
static size_t flush_size;

/* ---- control channel -------------------------------------------------- */

static char inbuf[RP_MAX_LINE + 1];
static size_t inlen;

static void send_all(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(RP_FD_CONTROL, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(EXIT_CHANNEL);
		s += w;
		n -= (size_t)w;
	}
}

static void replyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void replyf(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		_exit(EXIT_CHANNEL);
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	/* Keep replies to one printable line whatever a message holds. */
	for (int i = 0; i < n; i++)
		if (line[i] < 0x20 || line[i] > 0x7e)
			line[i] = '?';
	line[n++] = '\n';
	send_all(line, (size_t)n);
}

/* Reads one request line into a NUL-terminated buffer; exits on EOF. */
static char *read_line(void)
{
	static size_t consumed;

	if (consumed) {
		memmove(inbuf, inbuf + consumed, inlen - consumed);
		inlen -= consumed;
		consumed = 0;
	}
	for (;;) {
		char *nl = memchr(inbuf, '\n', inlen);
		if (nl) {
			*nl = '\0';
			consumed = (size_t)(nl - inbuf) + 1;
			return inbuf;
		}
		if (inlen >= RP_MAX_LINE)
			_exit(EXIT_CHANNEL);
		ssize_t r = read(RP_FD_CONTROL, inbuf + inlen,
				 RP_MAX_LINE - inlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(r == 0 ? 0 : EXIT_CHANNEL);
		inlen += (size_t)r;
	}
}

/* ---- start-up hardening ----------------------------------------------- */

static void close_other_fds(void)
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

/* A runner started by root keeps uid 0 but no capability: without
 * CAP_SYS_PTRACE it cannot open the /proc files of non-dumpable processes
 * (the controller, the other runners), without CAP_DAC_OVERRIDE it cannot
 * write files it does not own, and so on. */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	syscall(SYS_capset, &h, d);
}

/* Landlock: no writes anywhere in the file system (a kernel must not be
 * able to replace the cached baseline artifact, a task's reference or
 * anything else the controller will trust later), no TCP, and - where
 * the kernel supports it - no signals or abstract sockets beyond this
 * process.  Reads stay allowed.  Raw constants: the ABI is stable and the
 * build machine's headers may predate the running kernel. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;	/* ABI 4 */
	uint64_t scoped;		/* ABI 6 */
};

static int install_landlock(void)
{
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_restrict_self)
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);
	struct ll_ruleset_attr attr;
	size_t size = sizeof(uint64_t);

	if (abi < 1)
		return -1;
	memset(&attr, 0, sizeof(attr));
	/* write_file, remove_dir, remove_file, make_{char,dir,reg,sock,
	 * fifo,block,sym} */
	attr.handled_access_fs = (1ULL << 1) | (1ULL << 4) | (1ULL << 5) |
				 (1ULL << 6) | (1ULL << 7) | (1ULL << 8) |
				 (1ULL << 9) | (1ULL << 10) | (1ULL << 11) |
				 (1ULL << 12);
	if (abi >= 2)
		attr.handled_access_fs |= 1ULL << 13;	/* refer */
	if (abi >= 3)
		attr.handled_access_fs |= 1ULL << 14;	/* truncate */
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
	long rc = syscall(SYS_landlock_restrict_self, (int)fd, 0U);
	close((int)fd);
	return rc == 0 ? 0 : -1;
#else
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

/* Kills the process when the syscall number is nr. */
static void deny(struct filter_prog *p, long nr)
{
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					     (uint32_t)nr, 0, 1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					     SECCOMP_RET_KILL_PROCESS));
}

/* Allows syscall nr only when its first argument (a pid) is this process
 * (or 0, "myself", where allow_zero). */
static void self_only(struct filter_prog *p, long nr, uint32_t pid,
		      int allow_zero)
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
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					     SECCOMP_RET_KILL_PROCESS));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					     SECCOMP_RET_ALLOW));
}

static int install_seccomp(void)
{
	struct filter_prog p = { .n = 0 };
	uint32_t me = (uint32_t)getpid();

	emit(&p, (struct sock_filter)BPF_STMT(
			 BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)));
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					      RUNNER_AUDIT_ARCH, 1, 0));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_KILL_PROCESS));
	emit(&p, (struct sock_filter)BPF_STMT(
			 BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
	/* The x32 ABI reaches the same calls under other numbers. */
	emit(&p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K,
					      0x40000000U, 0, 1));
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_KILL_PROCESS));
#endif
	/* New threads and processes. */
	deny(&p, SYS_clone);
#ifdef SYS_clone3
	deny(&p, SYS_clone3);
#endif
#ifdef SYS_fork
	deny(&p, SYS_fork);
#endif
#ifdef SYS_vfork
	deny(&p, SYS_vfork);
#endif
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
	deny(&p, SYS_move_pages);
	deny(&p, SYS_migrate_pages);
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
	/* Signals and limits: this process only. */
	self_only(&p, SYS_kill, me, 1);
	self_only(&p, SYS_tkill, me, 0);
	self_only(&p, SYS_tgkill, me, 0);
	self_only(&p, SYS_rt_sigqueueinfo, me, 0);
	self_only(&p, SYS_rt_tgsigqueueinfo, me, 0);
	self_only(&p, SYS_prlimit64, me, 1);
	self_only(&p, SYS_sched_setaffinity, me, 1);
	self_only(&p, SYS_sched_setscheduler, me, 1);
	self_only(&p, SYS_sched_setparam, me, 1);
	self_only(&p, SYS_sched_setattr, me, 1);
	emit(&p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW));
	if (p.n > (int)(sizeof(p.f) / sizeof(p.f[0])))
		return -1;

	struct sock_fprog prog = { .len = (unsigned short)p.n, .filter = p.f };
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0 &&
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
		return -1;
	return 0;
}
#else
static int install_seccomp(void)
{
	return -1;
}
#endif

/* ---- requests --------------------------------------------------------- */

/* Splits off the next space-separated token of *cur (NULL at the end);
 * requests are single-space separated, so empty tokens are malformed. */
static char *next_tok(char **cur)
{
	char *s = *cur, *sp;

	if (!s || !*s)
		return NULL;
	sp = strchr(s, ' ');
	if (sp) {
		*sp = '\0';
		*cur = sp + 1;
	} else {
		*cur = s + strlen(s);
	}
	return s;
}

static int parse_i64_tok(char **save, int64_t *out)
{
	char *tok = next_tok(save);
	char *end;

	if (!tok || !*tok)
		return -1;
	errno = 0;
	long long v = strtoll(tok, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static size_t dtype_bytes(int32_t d)
{
	switch (d) {
	case ARENA_F64:
	case ARENA_I64:
		return 8;
	case ARENA_F32:
	case ARENA_I32:
	case ARENA_U32:
		return 4;
	case ARENA_F16:
	case ARENA_BF16:
		return 2;
	case ARENA_U8:
	case ARENA_I8:
		return 1;
	default:
		return 0;
	}
}

static void do_layout(const char *seq, char **save)
{
	int64_t size, nargs, nparams, v;
	struct stat st;

	if (parse_i64_tok(save, &size) || parse_i64_tok(save, &nargs) ||
	    parse_i64_tok(save, &nparams) || size <= 0 || nargs < 1 ||
	    nargs > RP_MAX_ARGS || nparams < 0 || nparams > RP_MAX_PARAMS) {
		replyf("error %s malformed layout header", seq);
		return;
	}
	if (fstat(RP_FD_SHM, &st) != 0 || st.st_size < size) {
		replyf("error %s shared memory is smaller than %" PRId64
		       " bytes", seq, size);
		return;
	}
	for (int i = 0; i < nparams; i++) {
		if (parse_i64_tok(save, &v)) {
			replyf("error %s malformed parameter %d", seq, i);
			return;
		}
		lay.params[i] = v;
	}
	for (int a = 0; a < nargs; a++) {
		int64_t off, dt, rank, numel = 1;
		if (parse_i64_tok(save, &off) || parse_i64_tok(save, &dt) ||
		    parse_i64_tok(save, &rank) || off < 0 ||
		    off % RP_ALIGN != 0 || dtype_bytes((int32_t)dt) == 0 ||
		    rank < 0 || rank > ARENA_MAX_RANK) {
			replyf("error %s malformed argument %d", seq, a);
			return;
		}
		for (int d = 0; d < rank; d++) {
			if (parse_i64_tok(save, &v) || v < 0 ||
			    (v > 0 && numel > INT64_MAX / v)) {
				replyf("error %s bad dimension of argument %d",
				       seq, a);
				return;
			}
			lay.shape[a][d] = v;
			numel *= v;
		}
		if (numel > INT64_MAX / 8 || off > size ||
		    numel * (int64_t)dtype_bytes((int32_t)dt) > size - off) {
			replyf("error %s argument %d lies outside shared memory",
			       seq, a);
			return;
		}
		lay.offset[a] = (size_t)off;
		lay.dtype[a] = (int32_t)dt;
		lay.rank[a] = (int32_t)rank;
		lay.numel[a] = numel;
	}
	if (next_tok(save)) {
		replyf("error %s trailing data in layout", seq);
		return;
	}
	if (lay.base)
		munmap(lay.base, lay.size);
	lay.base = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED,
			RP_FD_SHM, 0);
	if (lay.base == MAP_FAILED) {
		lay.base = NULL;
		replyf("error %s mmap of %" PRId64 " bytes failed: %s", seq,
		       size, strerror(errno));
		return;
	}
	lay.size = (size_t)size;
	lay.nargs = (int)nargs;
	lay.nparams = (int)nparams;
	replyf("ok %s", seq);
}

/* One call with a freshly built argument array. */
static int call_once(void)
{
	arena_arg args[RP_MAX_ARGS];
	int64_t params[RP_MAX_PARAMS + 1];

	memset(args, 0, sizeof(args));
	for (int a = 0; a < lay.nargs; a++) {
		args[a].data = lay.base + lay.offset[a];
		args[a].dtype = lay.dtype[a];
		args[a].rank = lay.rank[a];
		for (int d = 0; d < lay.rank[a]; d++)
			args[a].shape[d] = lay.shape[a][d];
		args[a].numel = lay.numel[a];
	}
	memcpy(params, lay.params, sizeof(int64_t) * (size_t)lay.nparams);
	return launch(args, lay.nargs, params, lay.nparams, NULL);
}

static void do_flush(const char *seq, char **save)
{
	int64_t bytes;

	if (parse_i64_tok(save, &bytes) || bytes < 4096 ||
	    bytes > RP_MAX_FLUSH_BYTES) {
		replyf("error %s bad flush size", seq);
		return;
	}
	if (!flush_buf || flush_size != (size_t)bytes) {
		if (flush_buf)
			munmap(flush_buf, flush_size);
		flush_buf = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (flush_buf == MAP_FAILED) {
			flush_buf = NULL;
			replyf("error %s cannot allocate the flush buffer", seq);
			return;
		}
		flush_size = (size_t)bytes;
	}
	/* A read-modify-write of every cache line: ordinary stores that
	 * allocate in the cache (memset may use non-temporal stores, which
	 * would bypass it and flush nothing). */
	volatile unsigned char *p = flush_buf;
	for (size_t i = 0; i < flush_size; i += 64)
		p[i] = (unsigned char)(p[i] + 1);
	replyf("ok %s", seq);
}

static void serve(void)
{
	for (;;) {
		char *save = read_line();
		char *cmd = next_tok(&save);
		if (!cmd)
			_exit(EXIT_CHANNEL);
		if (strcmp(cmd, "quit") == 0)
			_exit(0);
		char *seq = next_tok(&save);
		if (!seq || strlen(seq) > 24) {
			replyf("error 0 request without a sequence number");
			continue;
		}
		if (strcmp(cmd, "ping") == 0) {
			replyf("pong %s", seq);
		} else if (strcmp(cmd, "layout") == 0) {
			do_layout(seq, &save);
		} else if (strcmp(cmd, "flush") == 0) {
			do_flush(seq, &save);
		} else if (strcmp(cmd, "call") == 0 ||
			   strcmp(cmd, "time") == 0) {
			if (!lay.base) {
				replyf("error %s no layout yet", seq);
				continue;
			}
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			int rc = call_once();
			clock_gettime(CLOCK_MONOTONIC, &t1);
			if (cmd[0] == 'c') {
				replyf("ok %s %d", seq, rc);
			} else {
				int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) *
						     1000000000LL +
					     (t1.tv_nsec - t0.tv_nsec);
				replyf("ok %s %d %" PRId64, seq, rc, ns);
			}
		} else {
			replyf("error %s unknown request", seq);
		}
	}
}

int main(int argc, char **argv)
{
	struct stat st;

	close_other_fds();
	if (argc != 3 || fstat(RP_FD_CONTROL, &st) != 0 ||
	    !S_ISSOCK(st.st_mode) || fstat(RP_FD_SHM, &st) != 0) {
		fprintf(stderr,
			"usage: arena-runner <so-path> <entry>\n"
			"(started by arena with a control socket on fd 3, "
			"shared memory on fd 4 and the kernel on fd 5)\n");
		return 2;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	drop_capabilities();
	int nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
	int landlock = nnp && install_landlock() == 0;
	int seccomp = nnp && install_seccomp() == 0;
	replyf("hello %ld %s,%s", (long)getpid(), seccomp ? "seccomp" : "-",
	       landlock ? "landlock" : "-");

	/* From here on candidate code may run (constructors). */
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		replyf("error cannot load the shared object: %s",
		       e ? e : "unknown error");
		_exit(1);
	}
	void *sym = dlsym(h, argv[2]);
	if (!sym) {
		replyf("error the shared object does not export '%s'", argv[2]);
		_exit(1);
	}
	memcpy(&launch, &sym, sizeof(launch));
	replyf("ready");
	serve();
	return 0;
}

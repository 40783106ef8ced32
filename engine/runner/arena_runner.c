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
 * The main loop reads one request line, answers with one line: `layout`,
 * `time` (the only request that calls the kernel) and `ping`.  There is no
 * flush here: the controller flushes the caches itself while this process
 * is stopped, and charges it the CPU time the kernel accounts to it from
 * the moment it is resumed until it is stopped again.  It rebuilds
 * the arena_arg array before every call, so a kernel that scribbles on the
 * (const) array it was given cannot redirect the next call.  The line I/O
 * and the hardening are shared with the GPU runners (runner_io.c,
 * runner_sandbox.c).
 *
 * Built with -DARENA_RUNNER_EMBED this is arena_runner_host_main() of the
 * Python runner's library (runner_embed.h): the embedding program loads
 * and calls the kernel, and may widen the file-system rules (reads are
 * then restricted too); everything else is this code.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arena/kernel.h"
#include "runner_io.h"
#include "arena/runner_proto.h"
#include "runner_sandbox.h"
#include "runner_embed.h"

static arena_launch_fn launch;
static const struct runner_embed *embed; /* NULL: a plain program */

static struct rio_layout lay;
static unsigned char *shm_base;	/* mapping of fd 4, or NULL */
static size_t shm_mapped;

/* A trusted reference's calls cut into row ranges (`split`): the threads
 * the controller allowed at start (threads=<n>; 1: none), and what the
 * last `split` asked for (split_threads 1: whole calls). */
static int max_threads = 1;
static int split_param, split_threads = 1;
static uint32_t split_args;

/* ---- requests --------------------------------------------------------- */

static void do_layout(const char *seq, char **save)
{
	struct stat st;
	struct rio_layout l;
	char why[128];

	if (fstat(RP_FD_SHM, &st) != 0) {
		rio_replyf("error %s cannot stat the shared memory", seq);
		return;
	}
	if (rio_parse_layout(save, (int64_t)st.st_size, &l, why,
			     sizeof(why)) != 0) {
		rio_replyf("error %s %s", seq, why);
		return;
	}
	if (shm_base)
		munmap(shm_base, shm_mapped);
	shm_base = mmap(NULL, (size_t)l.size, PROT_READ | PROT_WRITE,
			MAP_SHARED, RP_FD_SHM, 0);
	if (shm_base == MAP_FAILED) {
		shm_base = NULL;
		rio_replyf("error %s mmap of %" PRId64 " bytes failed: %s", seq,
			   l.size, strerror(errno));
		return;
	}
	shm_mapped = (size_t)l.size;
	lay = l;
	rio_replyf("ok %s", seq);
}

/* One call with a freshly built argument array. */
static int call_once(void)
{
	arena_arg args[RP_MAX_ARGS];
	int64_t params[RP_MAX_PARAMS + 1];
	void *base[RP_MAX_ARGS];

	for (int a = 0; a < lay.nargs; a++)
		base[a] = shm_base + lay.offset[a];
	rio_build_args(&lay, base, args, params);
	return launch(args, lay.nargs, params, lay.nparams, NULL);
}

/* split <seq> <param> <threads> <args hex>: later calls cut param's range
 * into row ranges, one thread each (runner_proto.h).  Checked against the
 * layout: every argument in the mask has that param as its first
 * dimension, so cutting it cuts whole rows. */
static void do_split(const char *seq, char **save)
{
	int64_t param, threads;
	char *tok, *end;
	unsigned long mask;

	if (max_threads < 2) {
		rio_replyf("error %s this runner was started without threads",
			   seq);
		return;
	}
	if (rio_parse_i64(save, &param) || rio_parse_i64(save, &threads) ||
	    !(tok = rio_next_tok(save))) {
		rio_replyf("error %s malformed split request", seq);
		return;
	}
	errno = 0;
	mask = strtoul(tok, &end, 16);
	if (errno || *end || !shm_base || param < 0 || param >= lay.nparams ||
	    threads < 1 || mask >> lay.nargs) {
		rio_replyf("error %s bad split request", seq);
		return;
	}
	for (int a = 0; a < lay.nargs; a++)
		if ((mask >> a & 1) &&
		    (lay.rank[a] < 1 || lay.shape[a][0] != lay.params[param])) {
			rio_replyf("error %s argument %d does not have param %d "
				   "as its first dimension", seq, a, (int)param);
			return;
		}
	split_param = (int)param;
	split_threads = threads > max_threads ? max_threads : (int)threads;
	split_args = (uint32_t)mask;
	rio_replyf("ok %s", seq);
}

/* One row range [r0, r1) of a cut call: its own argument array, every cut
 * argument moved to row r0 and shortened, the param set to the range's
 * length. */
struct part {
	pthread_t th;
	bool started;	/* in a thread of its own (else run on the caller's) */
	int64_t r0, r1;
	int rc;
};

static void *call_part(void *arg)
{
	struct part *pt = arg;
	arena_arg args[RP_MAX_ARGS];
	int64_t params[RP_MAX_PARAMS + 1];
	void *base[RP_MAX_ARGS];
	int64_t rows = lay.params[split_param];

	for (int a = 0; a < lay.nargs; a++)
		base[a] = shm_base + lay.offset[a];
	rio_build_args(&lay, base, args, params);
	params[split_param] = pt->r1 - pt->r0;
	for (int a = 0; a < lay.nargs; a++) {
		if (!(split_args >> a & 1))
			continue;
		/* numel is rows x the size of one row (shape[0] == rows). */
		int64_t row = rows ? lay.numel[a] / rows : 0;
		args[a].data = (unsigned char *)base[a] +
			       (size_t)(pt->r0 * row) *
				       rio_dtype_bytes(lay.dtype[a]);
		args[a].shape[0] = pt->r1 - pt->r0;
		args[a].numel = (pt->r1 - pt->r0) * row;
	}
	pt->rc = launch(args, lay.nargs, params, lay.nparams, NULL);
	return NULL;
}

/* A call cut into up to split_threads row ranges of near-equal length;
 * a part whose thread could not start runs on this thread, as does the
 * first.  The first nonzero return code of the parts. */
static int call_cut(void)
{
	int64_t rows = lay.params[split_param];
	int n = rows < split_threads ? (int)rows : split_threads;
	struct part parts[RP_MAX_REF_THREADS];
	int rc = 0;

	for (int i = 0; i < n; i++) {
		parts[i].r0 = rows * i / n;
		parts[i].r1 = rows * (i + 1) / n;
		parts[i].rc = 0;
		parts[i].started = false;
	}
	for (int i = 1; i < n; i++)
		parts[i].started = pthread_create(&parts[i].th, NULL, call_part,
						  &parts[i]) == 0;
	for (int i = 0; i < n; i++)
		if (!parts[i].started)
			call_part(&parts[i]);
	for (int i = 0; i < n; i++) {
		if (parts[i].started)
			pthread_join(parts[i].th, NULL);
		if (!rc)
			rc = parts[i].rc;
	}
	return rc;
}

static void serve(void)
{
	for (;;) {
		char *cmd, *seq, *save;
		rio_next_request(&cmd, &seq, &save);
		if (strcmp(cmd, "layout") == 0) {
			do_layout(seq, &save);
			split_threads = 1; /* a new case: whole calls until told */
		} else if (strcmp(cmd, "split") == 0) {
			do_split(seq, &save);
		} else if (strcmp(cmd, "time") == 0) {
			/* The only request that runs the kernel (runner_proto.h):
			 * correctness, warm-up and timed calls look alike. */
			if (!shm_base) {
				rio_replyf("error %s no layout yet", seq);
				continue;
			}
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			int rc = split_threads > 1 &&
						 lay.params[split_param] > 1
					 ? call_cut()
					 : call_once();
			clock_gettime(CLOCK_MONOTONIC, &t1);
			int64_t ns = (int64_t)(t1.tv_sec - t0.tv_sec) *
					     1000000000LL +
				     (t1.tv_nsec - t0.tv_nsec);
			if (rc == RUNNER_EMBED_RAISED && embed &&
			    embed->failure) {
				char msg[600];
				embed->failure(msg, sizeof(msg));
				rio_replyf("error %s %s", seq, msg);
				continue;
			}
			rio_replyf("ok %s %d %" PRId64, seq, rc, ns);
		} else {
			rio_replyf("error %s unknown request", seq);
		}
	}
}

/* The kernel's entry: the shared object's symbol, or what the embedding
 * program's loader returns.  NULL with a message in why. */
static arena_launch_fn load_kernel(const char *path, const char *entry,
				   char *why, size_t n)
{
	if (embed)
		return embed->load(path, entry, why, n);
	return rio_load_entry(path, entry, why, n);
}

/* "threads=<n>", 2 <= n <= RP_MAX_REF_THREADS: n; anything else 0. */
static int parse_threads(const char *arg)
{
	char *end;
	long n;

	if (strncmp(arg, "threads=", 8) != 0)
		return 0;
	errno = 0;
	n = strtol(arg + 8, &end, 10);
	return errno || *end || n < 2 || n > RP_MAX_REF_THREADS ? 0 : (int)n;
}

static int runner_main(int argc, char **argv)
{
	struct stat st;
	char why[512];

	sbx_close_other_fds();
	if ((argc != 3 && (argc != 4 || embed ||
			   (max_threads = parse_threads(argv[3])) < 2)) ||
	    fstat(RP_FD_CONTROL, &st) != 0 ||
	    !S_ISSOCK(st.st_mode) || fstat(RP_FD_SHM, &st) != 0) {
		fprintf(stderr,
			"usage: arena-runner <so-path> <entry> [threads=<n>]\n"
			"(started by arena with a control socket on fd 3, "
			"shared memory on fd 4 and the kernel on fd 5)\n");
		return 2;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sbx_drop_capabilities();
	int nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
	int landlock = nnp && sbx_landlock_fs(embed ? embed->fs : NULL) == 0;
	/* A reference cut into threads yields the CPUs to the evaluations'
	 * own threads (a timing loop next door); seccomp forbids it later. */
	if (max_threads > 1)
		(void)setpriority(PRIO_PROCESS, 0, 10);
	int seccomp = nnp && sbx_seccomp(max_threads > 1
						 ? SBX_HOST | SBX_THREADS
						 : SBX_HOST) == 0;
	rio_replyf("hello %ld %s,%s", (long)getpid(), seccomp ? "seccomp" : "-",
		   landlock ? "landlock" : "-");

	/* From here on candidate code may run (constructors, or the
	 * embedding program's import of a Python module). */
	launch = load_kernel(argv[1], argv[2], why, sizeof(why));
	if (!launch) {
		rio_replyf("error %s", why);
		_exit(1);
	}
	rio_replyf("ready");
	serve();
	return 0;
}

#ifdef ARENA_RUNNER_EMBED
int arena_runner_host_main(int argc, char **argv, const struct runner_embed *e)
{
	embed = e;
	return runner_main(argc, argv);
}
#else
int main(int argc, char **argv)
{
	return runner_main(argc, argv);
}
#endif

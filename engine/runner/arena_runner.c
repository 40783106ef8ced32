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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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

static void serve(void)
{
	for (;;) {
		char *cmd, *seq, *save;
		rio_next_request(&cmd, &seq, &save);
		if (strcmp(cmd, "layout") == 0) {
			do_layout(seq, &save);
		} else if (strcmp(cmd, "time") == 0) {
			/* The only request that runs the kernel (runner_proto.h):
			 * correctness, warm-up and timed calls look alike. */
			if (!shm_base) {
				rio_replyf("error %s no layout yet", seq);
				continue;
			}
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			int rc = call_once();
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

static int runner_main(int argc, char **argv)
{
	struct stat st;
	char why[512];

	sbx_close_other_fds();
	if (argc != 3 || fstat(RP_FD_CONTROL, &st) != 0 ||
	    !S_ISSOCK(st.st_mode) || fstat(RP_FD_SHM, &st) != 0) {
		fprintf(stderr,
			"usage: arena-runner <so-path> <entry>\n"
			"(started by arena with a control socket on fd 3, "
			"shared memory on fd 4 and the kernel on fd 5)\n");
		return 2;
	}
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	sbx_drop_capabilities();
	int nnp = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
	int landlock = nnp && sbx_landlock_fs(embed ? embed->fs : NULL) == 0;
	int seccomp = nnp && sbx_seccomp(SBX_HOST) == 0;
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

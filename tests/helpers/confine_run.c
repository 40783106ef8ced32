/*
 * tests/helpers/confine_run.c - runs a program confined exactly as arena
 * confines a GPU runner (arena/confine.h: the CONFINE_GPU_RUNNER plan,
 * with the program in the runner binary's place, entered by
 * confine_clone and confine_enter as runner_client.c does), its
 * descriptors inherited.  For probes that need a child confined like a
 * runner beside a trusted parent: tests/gpu/probe_ipc.cu's child, which
 * imports device memory the parent exports (issue 17, the device-side
 * compare's step 0; under bwrap's own setup the child could not open the
 * device, docs/gpu.md).
 *
 * usage: confine_run PROGRAM [ARGS...]
 * Exits with the program's status; 125 when the plan cannot be prepared
 * or the child not created, 126 (CONFINE_EXIT_FAILED) when the child
 * could not enter it, 127 when the exec failed.  Prints nothing else.
 * Built with the tests (`make build/tests/helpers/confine_run`).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/confine.h"
#include "arena/util.h"

int main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] != '/') {
		fprintf(stderr, "usage: confine_run /ABSOLUTE/PROGRAM [ARGS...]\n");
		return 2;
	}
	struct confine_plan plan;
	struct confine_spec spec = {
		.profile = CONFINE_GPU_RUNNER,
		.runner = argv[1],
	};
	struct errbuf err;
	errbuf_init(&err);
	confine_plan_for(&spec, &plan);
	struct confine_prep *prep = confine_prepare(&plan, &err);
	confine_plan_release(&plan);
	if (!prep) {
		fprintf(stderr, "confine_run: %s\n", err.msg);
		return 125;
	}
	char *inside = confine_runner_inside(argv[1]);
	fflush(NULL);
	pid_t pid = confine_clone(prep);
	if (pid < 0) {
		fprintf(stderr, "confine_run: clone: %s\n", strerror(errno));
		return 125;
	}
	if (pid == 0) {
		const char *what = "";
		int rc = confine_enter(prep, &what);
		if (rc) {
			fprintf(stderr, "confine_run: %s: %s\n", what,
				strerror(-rc));
			_exit(CONFINE_EXIT_FAILED);
		}
		argv[1] = inside;
		execv(inside, argv + 1);
		fprintf(stderr, "confine_run: exec %s: %s\n", inside,
			strerror(errno));
		_exit(127);
	}
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	free(inside);
	confine_prep_free(prep);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Cheat (issue 10, class 3): tells the timing phase from the correctness
 * phase by counting its sibling runner processes in /proc (three per
 * case while correctness is checked - reference, baseline, candidate -
 * and at least five while a case is timed: a reference and a pair per
 * block), and computes approximately only then: 1.6e-5 (relative) off,
 * inside twice the tolerance of the baseline's outputs, outside the task's
 * own tolerance of the reference's.  Timed calls that stray beyond 1x of
 * the baseline's are checked against the reference: incorrect. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

/* Processes with the same parent as this runner (the controller): its
 * sibling runners. */
static int runners_visible(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long me = (long)getppid();
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], st[512];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t k = read(fd, st, sizeof(st) - 1);
		close(fd);
		if (k <= 0)
			continue;
		st[k] = '\0';
		/* pid (comm) state ppid ...: the comm may hold spaces. */
		const char *p = strrchr(st, ')');
		long ppid = 0;
		if (p && sscanf(p + 1, " %*c %ld", &ppid) == 1 && ppid == me)
			n++;
	}
	closedir(d);
	return n;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	float s = runners_visible() >= 5 ? 1.0f + 1.6e-5f : 1.0f;

	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = (1.0f + v + v2 / 2.0f + v2 * v / 6.0f +
			v2 * v2 / 24.0f) *
		       s;
	}
	return 0;
}

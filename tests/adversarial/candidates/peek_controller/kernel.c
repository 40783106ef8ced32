/* Probe: tries to reach the controller (its parent) and the other runners
 * through /proc - their memory, environment and file descriptors (where
 * the shared argument memory of the reference runner lives).  Returns 99
 * if any of it opens, else computes honestly: it must be accepted. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "arena/kernel.h"

static int opens(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static int probe_pid(int pid)
{
	char p[64];
	snprintf(p, sizeof(p), "/proc/%d/mem", pid);
	if (opens(p))
		return 1;
	snprintf(p, sizeof(p), "/proc/%d/environ", pid);
	if (opens(p))
		return 1;
	snprintf(p, sizeof(p), "/proc/%d/fd", pid);
	DIR *d = opendir(p);
	if (!d)
		return 0;
	struct dirent *e;
	int hit = 0;
	while ((e = readdir(d)) && !hit) {
		char q[300];
		if (e->d_name[0] == '.')
			continue;
		snprintf(q, sizeof(q), "/proc/%d/fd/%s", pid, e->d_name);
		hit = opens(q);
	}
	closedir(d);
	return hit;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int me = (int)getpid(), parent = (int)getppid();
	if (probe_pid(parent))
		return 99;
	/* Sibling runners were started just before or after this one. */
	for (int pid = me - 64; pid < me + 64; pid++)
		if (pid > 1 && pid != me && pid != parent && probe_pid(pid)) {
			char comm[64] = "", p[64];
			snprintf(p, sizeof(p), "/proc/%d/comm", pid);
			FILE *f = fopen(p, "r");
			if (f) {
				if (!fgets(comm, sizeof(comm), f))
					comm[0] = '\0';
				fclose(f);
			}
			if (strncmp(comm, "arena-runner", 12) == 0)
				return 98;
		}
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

/* Probe on a GPU: the host side of a kernel, in the GPU runner, looks for
 * what it must never read - tests/adversarial/candidates/peek_secrets
 * (whose probes these are) says which; the test names the task package,
 * the store and a file in /tmp with -D.  Returns 90 + the number of the
 * probe that found something, else computes honestly on the device: under
 * the confinement it must be accepted. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#define S(x) #x
#define STR(x) S(x)

static int opens(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* A directory that lists anything besides . and .. */
static int lists(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n > 0;
}

static int in_file(const char *path, const char *needle)
{
	char buf[8192];
	int fd = open(path, O_RDONLY), hit = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	hit = strstr(buf, needle) != NULL;
	return hit;
}

static int probe(void)
{
	char p[PATH_MAX + 64], exe[PATH_MAX];
	ssize_t n;

#ifdef SECRET_TASK
	snprintf(p, sizeof(p), "%s/held_out.yaml", SECRET_TASK);
	if (opens(p))
		return 1;
	snprintf(p, sizeof(p), "%s/reference.c", SECRET_TASK);
	if (opens(p))
		return 1;
#endif
	/* The tree around the runner's own binary. */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		static const char *const rel[] = {
			"/../tasks", "/../../tasks", "/../share/arena/tasks",
			"/../tests/adversarial/task/vecpoly",
		};
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(p, sizeof(p), "%s%s", exe, rel[i]);
			if (lists(p))
				return 2;
		}
	}
	if (lists("/usr/local/share/arena/tasks") ||
	    lists("/usr/share/arena/tasks"))
		return 3;
#ifdef SECRET_TASKS
	if (lists(SECRET_TASKS))
		return 4;
#endif
#ifdef SECRET_STORE
	snprintf(p, sizeof(p), "%s/arena.db", SECRET_STORE);
	if (opens(p) || lists(SECRET_STORE))
		return 5;
	/* Any process whose command line names the store. */
	DIR *d = opendir("/proc");
	struct dirent *e;
	int hit = 0;
	while (d && (e = readdir(d)) && !hit) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
		hit = in_file(p, SECRET_STORE);
		snprintf(p, sizeof(p), "/proc/%s/environ", e->d_name);
		hit |= in_file(p, SECRET_STORE);
	}
	if (d)
		closedir(d);
	if (hit)
		return 6;
#endif
#ifdef SECRET_TMP
	if (opens(SECRET_TMP))
		return 7;
#endif
	if (lists("/tmp"))
		return 8;
	return 0;
}

__device__ __forceinline__ float horner(float v)
{
	return 1.0f + v * (1.0f + v * (0.5f + v * (1.0f / 6.0f + v * (1.0f / 24.0f))));
}

__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = horner(x[i]);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int found = probe();
	if (found)
		return 90 + found;
	int64_t n = params[0];
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + 255) / 256)), dim3(256),
			   0, (hipStream_t)stream, (const float *)args[0].data,
			   (float *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}

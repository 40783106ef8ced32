/*
 * Probe, for task/fakepoly: the baseline's kernel, which on every call
 * looks for lent memory it can reach - every descriptor it holds and
 * every mapping of its process that is a lent allocation of the fake GPU
 * (a memfd named arena-fake-vmm, gpu_rt.h) - and counts the distinct
 * allocations.  Its own sets are one; a second would be another runner's
 * (the baseline's), whose outputs a cheat could then overwrite with its
 * own so that the keeper's comparison passes.  The kernel fails its call
 * when it reaches more than one, and says once on stderr (its runner's
 * log) that it found its own, so that a test knows the search worked.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/kernel.h"

#define LENT_NAME "arena-fake-vmm"
#define MAX_FOUND 64

static unsigned long found[MAX_FOUND];
static int nfound;

static void note(unsigned long ino)
{
	for (int i = 0; i < nfound; i++)
		if (found[i] == ino)
			return;
	if (nfound < MAX_FOUND)
		found[nfound++] = ino;
}

/* Distinct lent allocations among the descriptors and the mappings. */
static int reachable(void)
{
	char path[64], link[256], line[512];
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	nfound = 0;
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		struct stat st;
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, LENT_NAME) && stat(path, &st) == 0)
			note((unsigned long)st.st_ino);
	}
	if (d)
		closedir(d);
	FILE *m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof(line), m)) {
		unsigned long ino = 0;
		if (strstr(line, LENT_NAME) &&
		    sscanf(line, "%*s %*s %*s %*s %lu", &ino) == 1)
			note(ino);
	}
	if (m)
		fclose(m);
	return nfound;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	static bool said;

	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int got = reachable();
	if (got > 1) {
		fprintf(stderr, "lent_thief: %d lent allocations reachable\n",
			got);
		return 1;
	}
	if (got == 1 && !said) {
		fprintf(stderr, "lent_thief: its own lent sets found\n");
		said = true;
	}
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}

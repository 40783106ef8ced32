/*
 * Probe, for task/fakepoly: the baseline's kernel, which on every call
 * looks for the evaluator's memory it can reach - every descriptor it
 * holds and every mapping of its process that is a memfd - and counts the
 * distinct ones of each kind:
 *   arena-fake-vmm  sets the keeper lent (gpu_rt.h): its own, at most;
 *   arena-args      a runner's shared memory (runner_client.c): its own;
 *   arena-refcheck  a reference check's copy of a candidate's outputs
 *                   (refpool.c): none.
 * Another runner's sets or shared memory would let a cheat write its
 * outputs into the baseline's, past the keeper's comparison; a reference
 * check's memory, its outputs where the reference compares them.  The
 * kernel fails its call when it reaches more than its own, and says once
 * on stderr (its runner's log) that it found its own lent sets, so that
 * a test knows the search worked.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/kernel.h"

#define MAX_FOUND 64

struct kind {
	const char *name;
	int most; /* how many it may reach */
	unsigned long ino[MAX_FOUND];
	int n;
};

static struct kind kinds[] = {
	{ "arena-fake-vmm", 1, { 0 }, 0 },
	{ "arena-args", 1, { 0 }, 0 },
	{ "arena-refcheck", 0, { 0 }, 0 },
};
#define NKINDS (int)(sizeof(kinds) / sizeof(kinds[0]))

static void note(const char *what, unsigned long ino)
{
	for (int k = 0; k < NKINDS; k++) {
		struct kind *d = &kinds[k];
		if (!strstr(what, d->name))
			continue;
		for (int i = 0; i < d->n; i++)
			if (d->ino[i] == ino)
				return;
		if (d->n < MAX_FOUND)
			d->ino[d->n++] = ino;
	}
}

/* Every memfd among the descriptors and the mappings, by kind. */
static void search(void)
{
	char path[64], link[256], line[512];
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;

	for (int k = 0; k < NKINDS; k++)
		kinds[k].n = 0;
	while (dir && (e = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(path, link, sizeof(link) - 1);
		struct stat st;
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strstr(link, "memfd:") && stat(path, &st) == 0)
			note(link, (unsigned long)st.st_ino);
	}
	if (dir)
		closedir(dir);
	FILE *m = fopen("/proc/self/maps", "r");
	while (m && fgets(line, sizeof(line), m)) {
		unsigned long ino = 0;
		if (strstr(line, "memfd:") &&
		    sscanf(line, "%*s %*s %*s %*s %lu", &ino) == 1)
			note(line, ino);
	}
	if (m)
		fclose(m);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	static bool said;

	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	search();
	for (int k = 0; k < NKINDS; k++)
		if (kinds[k].n > kinds[k].most) {
			fprintf(stderr, "memory_thief: %d of %s reachable\n",
				kinds[k].n, kinds[k].name);
			return 1;
		}
	if (kinds[0].n == 1 && kinds[1].n == 1 && !said) {
		fprintf(stderr, "memory_thief: its own lent sets and shared "
				"memory found\n");
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

/*
 * replay.c - a main() for fuzz harnesses outside libFuzzer: feeds every
 * file under the directories (or files) named on the command line to
 * LLVMFuzzerTestOneInput, in sorted order, recursively, and prints how many
 * ran.  `make test` uses it to replay tests/fuzz/corpus/<target>/, so every
 * input that once crashed a parser stays a regression test.
 *
 * A crash, a sanitizer report or an abort() in the harness fails the run;
 * a path that cannot be read fails it too (a missing corpus is a broken
 * test, not a pass).
 */
#include "arena/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_MAX_INPUT (16u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int replay_file(const char *path, size_t *count)
{
	struct errbuf err;
	char *data;
	size_t len;

	errbuf_init(&err);
	if (file_read_all(path, REPLAY_MAX_INPUT, &data, &len, &err)) {
		fprintf(stderr, "replay: %s\n", errbuf_str(&err));
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	(*count)++;
	return 0;
}

static int replay_path(const char *path, size_t *count)
{
	struct strvec names = STRVEC_INIT;
	struct stat st;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? replay_file(path, count) : 0;
	if (!(d = opendir(path))) {
		fprintf(stderr, "replay: cannot list %s\n", path);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strvec_push(&names, de->d_name);
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), replay_cmp);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		char *child = path_join(path, names.v[i]);
		rc = replay_path(child, count);
		free(child);
	}
	strvec_release(&names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i], &count) != 0)
			return 1;
	printf("replayed %zu inputs\n", count);
	return 0;
}

/*
 * scratch.c - an agent launch's scratch directory: made, held by a flock,
 * removed, and swept when its launch died without removing it
 * (scratch.h).
 */
#include "sandbox/scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void agent_scratch_init(struct agent_scratch *s)
{
	*s = (struct agent_scratch)AGENT_SCRATCH_INIT;
}

int agent_scratch_sweep(const char *dir, double min_age_s)
{
	size_t plen = strlen(AGENT_SCRATCH_PREFIX);
	DIR *d = opendir(dir);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (strncmp(de->d_name, AGENT_SCRATCH_PREFIX, plen) != 0)
			continue;
		int fd = openat(dirfd(d), de->d_name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Young ones are left alone (a launch locks its directory
		 * just after making it), and other users' (a root sweep does
		 * not reach into theirs). */
		bool stale = fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
			     difftime(time(NULL), st.st_ctime) >= min_age_s &&
			     flock(fd, LOCK_EX | LOCK_NB) == 0;
		if (stale) {
			char *p = path_join(dir, de->d_name);
			if (rm_rf(p) == 0)
				removed++;
			free(p);
		}
		close(fd);
	}
	closedir(d);
	return removed;
}

int agent_scratch_make_in(const char *dir, struct agent_scratch *s,
			  struct errbuf *err)
{
	char *tmpl = xasprintf("%s/" AGENT_SCRATCH_PREFIX "XXXXXX", dir);

	agent_scratch_init(s);
	(void)agent_scratch_sweep(dir, AGENT_SCRATCH_STALE_S);
	if (!mkdtemp(tmpl)) {
		int e = errno;
		errf_code(err, e, "mkdtemp %s: %s", tmpl, strerror(e));
		free(tmpl);
		return -e;
	}
	s->lock_fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		if (s->lock_fd >= 0)
			close(s->lock_fd);
		s->lock_fd = -1;
		rm_rf(tmpl);
		errf_code(err, e, "cannot lock %s: %s", tmpl, strerror(e));
		free(tmpl);
		return -e;
	}
	s->path = tmpl;
	return 0;
}

int agent_scratch_make(struct agent_scratch *s, struct errbuf *err)
{
	return agent_scratch_make_in("/tmp", s, err);
}

void agent_scratch_remove(struct agent_scratch *s)
{
	if (s->path)
		rm_rf(s->path);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	free(s->path);
	agent_scratch_init(s);
}

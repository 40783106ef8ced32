/*
 * fsutil.c - file helpers: bounded reads, atomic writes (temp + fsync +
 * rename), mkdir -p, rm -rf, copies and path checks.
 *
 * Invariant kept by file_write_atomic(): a reader of `path` sees either the
 * old complete content or the new complete content.  The temporary lives in
 * the same directory (rename is atomic only within a file system) and is
 * named with the pid and a counter so concurrent writers never share one.
 */
#include "arena/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int file_read_all(const char *path, size_t max, char **out, size_t *len,
		  struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errf_code(err, errno, "%s: cannot open: %s", path,
				 strerror(errno));
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			strbuf_release(&sb);
			return errf_code(err, e, "%s: read failed: %s", path,
					 strerror(e));
		}
		if (r == 0)
			break;
		if (sb.len + (size_t)r > max) {
			close(fd);
			strbuf_release(&sb);
			return errf_code(err, EFBIG,
					 "%s: larger than the %zu-byte limit",
					 path, max);
		}
		strbuf_add(&sb, buf, (size_t)r);
	}
	close(fd);
	if (len)
		*len = sb.len;
	*out = strbuf_detach(&sb);
	return 0;
}

static int write_full(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int file_write_atomic(const char *path, const void *data, size_t len,
		      struct errbuf *err)
{
	static atomic_uint counter;
	char *tmp = xasprintf("%s.tmp.%d.%u", path, (int)getpid(),
			      atomic_fetch_add(&counter, 1));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc;

	if (fd < 0) {
		rc = errf_code(err, errno, "%s: cannot create: %s", tmp,
			       strerror(errno));
		free(tmp);
		return rc;
	}
	rc = write_full(fd, data, len);
	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp);
		errf_code(err, rc, "%s: cannot write: %s", path, strerror(-rc));
	}
	free(tmp);
	return rc;
}

int file_write_atomic_str(const char *path, const char *s, struct errbuf *err)
{
	return file_write_atomic(path, s, strlen(s), err);
}

bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int mkdir_shared(const char *path, struct errbuf *err)
{
	int rc;

	if (dir_exists(path))
		return 0;
	if ((rc = mkdir_p(path, err)))
		return rc;
	(void)chmod(path, 01777);
	return 0;
}

const char *path_last(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

int mkdir_p(const char *path, struct errbuf *err)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				rc = errf_code(err, errno, "%s: cannot create "
					       "directory: %s", p,
					       strerror(errno));
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	free(p);
	if (rc == 0 && !dir_exists(path))
		rc = errf_code(err, ENOTDIR, "%s: exists and is not a directory",
			       path);
	return rc;
}

int rm_rf(const char *path)
{
	struct stat st;
	int rc = 0;

	if (!path || !*path || strcmp(path, "/") == 0)
		return -EINVAL;
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? 0 : -errno;
	/* A read-only directory (a trusted task copy is 0555) is emptied by
	 * its owner after making it writable again. */
	if ((st.st_mode & S_IRWXU) != S_IRWXU)
		chmod(path, (st.st_mode & 07777) | S_IRWXU);
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *child = path_join(path, de->d_name);
		int r = rm_rf(child);
		if (r && !rc)
			rc = r;
		free(child);
	}
	closedir(d);
	if (rmdir(path) != 0 && !rc)
		rc = -errno;
	return rc;
}

int file_copy(const char *src, const char *dst, struct errbuf *err)
{
	struct stat st;
	char *data;
	size_t len;
	int rc;

	if (stat(src, &st) != 0)
		return errf_code(err, errno, "%s: %s", src, strerror(errno));
	rc = file_read_all(src, (size_t)1 << 30, &data, &len, err);
	if (rc)
		return rc;
	rc = file_write_atomic(dst, data, len, err);
	free(data);
	if (rc == 0)
		chmod(dst, st.st_mode & 07777);
	return rc;
}

char *path_join(const char *a, const char *b)
{
	size_t n = strlen(a);

	while (n > 1 && a[n - 1] == '/')
		n--;
	while (*b == '/')
		b++;
	return xasprintf("%.*s/%s", (int)n, a, b);
}

bool path_is_safe_relative(const char *rel)
{
	const char *p = rel;

	if (!rel || !*rel || *rel == '/' || strchr(rel, '\\'))
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!slash)
			break;
		p = slash + 1;
		if (!*p)
			return false;	/* trailing slash */
	}
	return true;
}

char *path_real(const char *path)
{
	return realpath(path, NULL);
}

bool path_is_executable(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* path_search's walk; resolve: the found file's symlink-resolved path,
 * else its directory's resolved path joined with prog. */
static char *search_dirs(const char *prog, const char *dirs, bool resolve)
{
	const char *path = dirs ? dirs : getenv("PATH");
	char *copy = xstrdup(path ? path : PATH_SEARCH_DEFAULT);
	char *found = NULL, *colon;

	for (char *d = copy; d && !found; d = colon ? colon + 1 : NULL) {
		colon = strchr(d, ':');
		if (colon)
			*colon = '\0';
		char *cand = path_join(*d ? d : ".", prog);
		if (path_is_executable(cand)) {
			char *dir = resolve ? NULL : path_real(*d ? d : ".");
			found = resolve ? path_real(cand)
				: dir	? path_join(dir, prog)
					: NULL;
			free(dir);
		}
		free(cand);
	}
	free(copy);
	return found;
}

char *path_search(const char *prog, const char *dirs)
{
	return search_dirs(prog, dirs, true);
}

char *path_search_unresolved(const char *prog, const char *dirs)
{
	return search_dirs(prog, dirs, false);
}

/*
 * task_trusted.c - trusted copies of task packages (arena/task.h,
 * DESIGN.md §3.10).
 *
 * Why: the controller trusts a task's reference, its baseline and its
 * held-out cases.  Read from the catalogue or from a run directory, any of
 * them could be changed by whoever can write there - an agent with
 * `sandbox: off`, a candidate on a machine without the sandbox, a second
 * experiment sharing the catalogue.  A run therefore copies each package
 * when it is created, into <store>/trusted/<hash>/, named by the hash of
 * what it holds, and the evaluator checks the copy against its name
 * before every build.
 *
 * Invariants:
 *   - a copy is complete or absent: it is written into a temporary
 *     directory beside the others and renamed into place, so a crash never
 *     leaves a half copy under a hash;
 *   - its name is the SHA-256 of its manifest, and the manifest lists the
 *     SHA-256 of every file, so one hash pins every byte; the files'
 *     hashes are taken from the copy as written, not from the source;
 *   - files are 0444 and directories 0555 (a speed bump for unconfined
 *     processes of the same user; the verification is the guarantee);
 *   - verification lists the directory, so a file added to a copy is
 *     found as surely as a changed or missing one.
 *
 * task_trust_seal gives the same guarantee to a directory that trusted
 * code wrote rather than copied (a prepared AgentKernelArena task, its
 * recorded inputs up to a few GiB): the manifest is written in place,
 * the directory sealed, and its caller names it by the manifest's hash.
 */
#include "arena/task.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRUST_MAX_FILES 4096
#define TRUST_MAX_BYTES ((off_t)512 << 20)
/* A sealed directory (task_trust_seal: a prepared AgentKernelArena task
 * with its recorded inputs, up to 4 GiB of them) and what verification
 * reads. */
#define TRUST_MAX_SEALED_BYTES ((off_t)5 << 30)
#define TRUST_MAX_DEPTH 16

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files under dir (relative paths, sorted), following links
 * to regular files; *bytes gets their total size, at most max_bytes. */
static int list_files(const char *dir, const char *rel, int depth,
		      off_t max_bytes, struct strvec *out, off_t *bytes,
		      struct errbuf *err)
{
	char *path = rel ? path_join(dir, rel) : xstrdup(dir);
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		rc = errf_code(err, errno, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	while (rc == 0 && (e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *r = rel ? xasprintf("%s/%s", rel, e->d_name)
			      : xstrdup(e->d_name);
		char *full = path_join(dir, r);
		if (stat(full, &st) != 0) {
			/* A dangling link is not part of the package. */
		} else if (S_ISDIR(st.st_mode)) {
			if (depth >= TRUST_MAX_DEPTH)
				rc = errf_code(err, ELOOP,
					       "%s: directories "
					       "nested deeper than %d",
					       full, TRUST_MAX_DEPTH);
			else
				rc = list_files(dir, r, depth + 1, max_bytes,
						out, bytes, err);
		} else if (S_ISREG(st.st_mode)) {
			*bytes += st.st_size;
			strvec_push(out, r);
			if (out->n > TRUST_MAX_FILES || *bytes > max_bytes)
				rc = errf_code(
					err, EFBIG,
					"%s: a trusted directory "
					"holds at most %d files and %lld "
					"MiB",
					dir, TRUST_MAX_FILES,
					(long long)(max_bytes >> 20));
		}
		free(full);
		free(r);
	}
	closedir(d);
	free(path);
	if (rc == 0 && !rel && out->n)
		qsort(out->v, out->n, sizeof(char *), cmp_str);
	return rc;
}

char *task_trust_dir(const char *root, const char *hash)
{
	return path_join(root, hash);
}

/* Makes every file of dir 0444 and every directory 0555, deepest first. */
static void seal(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d) {
		while ((e = readdir(d))) {
			struct stat st;
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			char *p = path_join(dir, e->d_name);
			if (lstat(p, &st) == 0) {
				if (S_ISDIR(st.st_mode))
					seal(p);
				else
					chmod(p, 0444);
			}
			free(p);
		}
		closedir(d);
	}
	chmod(dir, 0555);
}

int task_trust_copy(const char *src_dir, const char *root, char hash[65],
		    struct errbuf *err)
{
	struct strvec files = STRVEC_INIT;
	struct strbuf man = STRBUF_INIT;
	char *tmp = NULL, *final = NULL;
	off_t bytes = 0;
	int rc;

	if ((rc = mkdir_p(root, err)) ||
	    (rc = list_files(src_dir, NULL, 0, TRUST_MAX_BYTES, &files, &bytes,
			     err)))
		goto out;
	tmp = xasprintf("%s/.tmp-XXXXXX", root);
	if (!mkdtemp(tmp)) {
		rc = errf_code(err, errno,
			       "cannot create a directory under "
			       "%s: %s",
			       root, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	for (size_t i = 0; i < files.n && rc == 0; i++) {
		char *src = path_join(src_dir, files.v[i]);
		char *dst = path_join(tmp, files.v[i]);
		char *parent = xstrdup(dst), fh[65];
		*strrchr(parent, '/') = '\0';
		rc = mkdir_p(parent, err);
		if (!rc)
			rc = file_copy(src, dst, err);
		if (!rc)
			rc = sha256_file_hex(dst, fh, err);
		if (!rc)
			strbuf_addf(&man, "%s  %s\n", fh, files.v[i]);
		free(parent);
		free(src);
		free(dst);
	}
	if (rc)
		goto out;
	char *mpath = path_join(tmp, TASK_TRUST_MANIFEST);
	rc = file_write_atomic(mpath, man.buf, man.len, err);
	free(mpath);
	if (rc)
		goto out;
	sha256_hex(man.buf, man.len, hash);
	final = task_trust_dir(root, hash);
	if (dir_exists(final))
		goto out; /* the same content, copied before */
	seal(tmp);
	if (rename(tmp, final) != 0 && errno != EEXIST && errno != ENOTEMPTY)
		rc = errf_code(err, errno,
			       "cannot move the trusted copy into "
			       "%s: %s",
			       final, strerror(errno));
out:
	if (tmp)
		rm_rf(tmp);
	free(tmp);
	free(final);
	strbuf_release(&man);
	strvec_release(&files);
	return rc;
}

int task_trust_seal(const char *dir, char hash[65], struct errbuf *err)
{
	struct strvec files = STRVEC_INIT;
	struct strbuf man = STRBUF_INIT;
	off_t bytes = 0;
	char *mpath = path_join(dir, TASK_TRUST_MANIFEST);
	int rc;

	if (file_exists(mpath)) {
		rc = errf_code(err, EEXIST, "%s is sealed already", dir);
		goto out;
	}
	if ((rc = list_files(dir, NULL, 0, TRUST_MAX_SEALED_BYTES, &files,
			     &bytes, err)))
		goto out;
	for (size_t i = 0; i < files.n && rc == 0; i++) {
		char *p = path_join(dir, files.v[i]), fh[65];
		rc = sha256_file_hex(p, fh, err);
		if (!rc)
			strbuf_addf(&man, "%s  %s\n", fh, files.v[i]);
		free(p);
	}
	if (rc || (rc = file_write_atomic(mpath, man.buf, man.len, err)))
		goto out;
	sha256_hex(man.buf, man.len, hash);
	seal(dir);
out:
	free(mpath);
	strbuf_release(&man);
	strvec_release(&files);
	return rc;
}

int task_trust_verify(const char *dir, const char *hash,
		      struct strvec *manifest, struct errbuf *err)
{
	struct strvec files = STRVEC_INIT, entries = STRVEC_INIT;
	char *mpath = path_join(dir, TASK_TRUST_MANIFEST);
	char *man = NULL, got[65];
	size_t len = 0, k = 0;
	off_t bytes = 0;
	int rc;

	rc = file_read_all(mpath, 1 << 20, &man, &len, err);
	if (rc) {
		errbuf_prefix(err, "the trusted copy of the task has no "
				   "readable manifest");
		goto out;
	}
	sha256_hex(man, len, got);
	if (strcmp(got, hash) != 0) {
		rc = errf_code(err, EBADMSG,
			       "the trusted copy %s was changed: "
			       "its manifest no longer hashes to its name",
			       dir);
		goto out;
	}
	if ((rc = list_files(dir, NULL, 0, TRUST_MAX_SEALED_BYTES, &files,
			     &bytes, err)))
		goto out;
	for (char *line = man, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl || nl - line < 67 || line[64] != ' ' ||
		    line[65] != ' ') {
			rc = errf_code(err, EBADMSG,
				       "the trusted copy %s has "
				       "a malformed manifest",
				       dir);
			goto out;
		}
		*nl = '\0';
		line[64] = '\0';
		strvec_pushf(&entries, "%s\t%s", line + 66, line);
	}
	/* Both lists are sorted by path: walk them together. */
	for (size_t i = 0; i < files.n; i++) {
		const char *f = files.v[i];
		if (!strcmp(f, TASK_TRUST_MANIFEST))
			continue;
		const char *e = k < entries.n ? entries.v[k] : NULL;
		size_t fl = strlen(f);
		if (!e || strncmp(e, f, fl) != 0 || e[fl] != '\t') {
			if (e && strcmp(e, f) < 0) {
				*strchr(entries.v[k], '\t') = '\0';
				rc = errf_code(err, EBADMSG,
					       "the trusted copy "
					       "%s was changed: %s is missing",
					       dir, entries.v[k]);
			} else {
				rc = errf_code(err, EBADMSG,
					       "the trusted copy "
					       "%s was changed: it has a file "
					       "it was not made with: %s",
					       dir, f);
			}
			goto out;
		}
		char *p = path_join(dir, f);
		rc = sha256_file_hex(p, got, err);
		free(p);
		if (rc)
			goto out;
		if (strcmp(got, e + fl + 1) != 0) {
			rc = errf_code(err, EBADMSG,
				       "the trusted copy %s was "
				       "changed: %s no longer matches its "
				       "recorded hash",
				       dir, f);
			goto out;
		}
		k++;
	}
	if (k < entries.n) {
		*strchr(entries.v[k], '\t') = '\0';
		rc = errf_code(err, EBADMSG,
			       "the trusted copy %s was changed: "
			       "%s is missing",
			       dir, entries.v[k]);
		goto out;
	}
	if (manifest) {
		for (size_t i = 0; i < entries.n; i++)
			strvec_push(manifest, entries.v[i]);
	}
out:
	free(mpath);
	free(man);
	strvec_release(&files);
	strvec_release(&entries);
	return rc;
}

const char *task_trust_lookup(const struct strvec *manifest, const char *rel)
{
	size_t n = strlen(rel);

	for (size_t i = 0; manifest && i < manifest->n; i++)
		if (!strncmp(manifest->v[i], rel, n) &&
		    manifest->v[i][n] == '\t')
			return manifest->v[i] + n + 1;
	return NULL;
}

/*
 * fsx_lite.c - fsx's operation mix against an in-memory model of the file,
 * for checking a file system (here: a workspace through `arena mount`).
 *
 *   fsx_lite [-n OPS] [-S SEED] [-l MAXLEN] [-q] DIR
 *
 * One file in DIR is driven by a seeded random sequence of the operations
 * fsx (xfstests, LTP) uses - read, write (also past the end, leaving a
 * hole), truncate (shrinking and growing), read and write through a
 * shared mmap, close and reopen - plus rename (the open descriptor must
 * keep working, the new name must show the same bytes, the old one must be
 * gone).  A byte array is the model of what the file must hold.  After
 * every operation the whole file is read back through a fresh descriptor
 * of its current name and compared with the model, and its size is checked
 * with fstat and stat; -q checks only what fsx checks (the bytes each read
 * returns, and the size), which is the mode to time.  The same seed gives
 * the same sequence, so a failure is reproduced by its seed and operation
 * number; the last operations are printed with it.
 *
 * Exit status: 0 when every check passed, 1 on a mismatch or an
 * unexpected error (the message says which operation, where, and what
 * differed), 2 on bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HISTORY 32

enum op { OP_READ, OP_WRITE, OP_TRUNC, OP_MAPREAD, OP_MAPWRITE, OP_RENAME,
	  OP_REOPEN, OP_COUNT };
/* fsx's default mix is reads and writes first; truncates and maps less
 * often; renames and reopens now and then. */
static const int op_weight[OP_COUNT] = { 25, 25, 12, 12, 12, 7, 7 };

struct fsx {
	const char *dir;
	char path[2][4096];	/* the file's two names; cur is the live one */
	int cur;
	int fd;
	unsigned char *model;	/* what the file must hold */
	size_t size, maxlen;
	uint64_t rng;
	long opno;
	bool quick;
	char history[HISTORY][128];
	unsigned char *buf;
	long pagesize;
};

static uint64_t rnd(struct fsx *f)
{
	/* xorshift64*: fast, seeded, the same everywhere */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545f4914f6cdd1dULL;
}

static size_t below(struct fsx *f, size_t n)
{
	return n ? (size_t)(rnd(f) % n) : 0;
}

static void note(struct fsx *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct fsx *f, const char *fmt, ...)
{
	va_list ap;
	char *h = f->history[f->opno % HISTORY];
	int n = snprintf(h, 128, "%6ld ", f->opno);

	va_start(ap, fmt);
	vsnprintf(h + n, (size_t)(128 - n), fmt, ap);
	va_end(ap);
}

static void die(struct fsx *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
static void die(struct fsx *f, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fsx_lite: operation %ld: ", f->opno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nlast operations (file %s):\n", f->path[f->cur]);
	for (long k = f->opno - HISTORY + 1; k <= f->opno; k++)
		if (k >= 1)
			fprintf(stderr, "  %s\n", f->history[k % HISTORY]);
	exit(1);
}

static void fail_errno(struct fsx *f, const char *what)
{
	die(f, "%s: %s", what, strerror(errno));
}

/* Compares n bytes read at off with the model. */
static void compare(struct fsx *f, const unsigned char *got, size_t off,
		    size_t n, const char *how)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != f->model[off + i])
			die(f, "%s: byte %zu is 0x%02x, the model says 0x%02x "
			    "(size %zu)", how, off + i, got[i],
			    f->model[off + i], f->size);
}

static void check_size(struct fsx *f)
{
	struct stat st;

	if (fstat(f->fd, &st) != 0)
		fail_errno(f, "fstat");
	if ((size_t)st.st_size != f->size)
		die(f, "fstat size %jd, the model says %zu",
		    (intmax_t)st.st_size, f->size);
	if (stat(f->path[f->cur], &st) != 0)
		fail_errno(f, "stat");
	if ((size_t)st.st_size != f->size)
		die(f, "stat size %jd, the model says %zu",
		    (intmax_t)st.st_size, f->size);
}

/* The whole file, through a fresh descriptor of its current name. */
static void check_all(struct fsx *f)
{
	int fd = open(f->path[f->cur], O_RDONLY);
	size_t got = 0;

	if (fd < 0)
		fail_errno(f, "open for the check");
	while (got < f->maxlen + 1) {
		ssize_t r = pread(fd, f->buf + got, f->maxlen + 1 - got,
				  (off_t)got);
		if (r < 0)
			fail_errno(f, "pread for the check");
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got != f->size)
		die(f, "a fresh read returns %zu bytes, the model has %zu", got,
		    f->size);
	compare(f, f->buf, 0, got, "full check");
}

static void op_read(struct fsx *f)
{
	size_t off = below(f, f->size + 1), len = below(f, f->size - off + 1);
	ssize_t r;

	note(f, "read     0x%zx len 0x%zx", off, len);
	r = pread(f->fd, f->buf, len, (off_t)off);
	if (r < 0)
		fail_errno(f, "pread");
	if ((size_t)r != len)
		die(f, "pread of %zu bytes at %zu returned %zd", len, off, r);
	compare(f, f->buf, off, len, "read");
}

static void fill(struct fsx *f, unsigned char *p, size_t n)
{
	/* fsx writes the operation number into its data: here one byte of
	 * it and of the offset, so misplaced data shows. */
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((f->opno * 7 + (long)i) % 251 + 1);
}

static void op_write(struct fsx *f)
{
	size_t off = below(f, f->maxlen);
	size_t len = 1 + below(f, f->maxlen - off);

	if (len > 65536)
		len = 1 + len % 65536;
	note(f, "write    0x%zx len 0x%zx%s", off, len,
	     off > f->size ? " (past the end: a hole)" : "");
	fill(f, f->buf, len);
	ssize_t w = pwrite(f->fd, f->buf, len, (off_t)off);
	if (w < 0)
		fail_errno(f, "pwrite");
	if ((size_t)w != len)
		die(f, "pwrite of %zu bytes wrote %zd", len, w);
	if (off > f->size)
		memset(f->model + f->size, 0, off - f->size);
	memcpy(f->model + off, f->buf, len);
	if (off + len > f->size)
		f->size = off + len;
}

static void set_size(struct fsx *f, size_t n)
{
	if (n > f->size)
		memset(f->model + f->size, 0, n - f->size);
	f->size = n;
}

static void op_trunc(struct fsx *f)
{
	size_t n = below(f, f->maxlen + 1);

	note(f, "truncate 0x%zx -> 0x%zx", f->size, n);
	if (ftruncate(f->fd, (off_t)n) != 0)
		fail_errno(f, "ftruncate");
	set_size(f, n);
}

/* mmap needs a page-aligned offset: map from the page below off. */
static unsigned char *map(struct fsx *f, size_t off, size_t len, int prot,
			  size_t *pg, size_t *maplen)
{
	*pg = off - off % (size_t)f->pagesize;
	*maplen = len + (off - *pg);
	void *p = mmap(NULL, *maplen, prot, MAP_SHARED, f->fd, (off_t)*pg);
	if (p == MAP_FAILED)
		fail_errno(f, "mmap");
	return p;
}

static void op_mapread(struct fsx *f)
{
	size_t off, len, pg, maplen;
	unsigned char *p;

	if (f->size == 0) {
		note(f, "mapread  skipped (empty file)");
		return;
	}
	off = below(f, f->size);
	len = 1 + below(f, f->size - off);
	note(f, "mapread  0x%zx len 0x%zx", off, len);
	p = map(f, off, len, PROT_READ, &pg, &maplen);
	compare(f, p + (off - pg), off, len, "mapread");
	munmap(p, maplen);
}

static void op_mapwrite(struct fsx *f)
{
	size_t off = below(f, f->maxlen);
	size_t len = 1 + below(f, f->maxlen - off), pg, maplen;
	unsigned char *p;

	if (len > 65536)
		len = 1 + len % 65536;
	note(f, "mapwrite 0x%zx len 0x%zx", off, len);
	/* As fsx does: grow the file first, a map cannot. */
	if (off + len > f->size) {
		if (ftruncate(f->fd, (off_t)(off + len)) != 0)
			fail_errno(f, "ftruncate before mapwrite");
		set_size(f, off + len);
	}
	p = map(f, off, len, PROT_READ | PROT_WRITE, &pg, &maplen);
	fill(f, f->buf, len);
	memcpy(p + (off - pg), f->buf, len);
	/* fsx's msync(p, len, 0): no forced write-out (on a disk that
	 * would time the disk, not the file system). */
	if (msync(p, maplen, MS_ASYNC) != 0)
		fail_errno(f, "msync");
	munmap(p, maplen);
	memcpy(f->model + off, f->buf, len);
}

static void op_rename(struct fsx *f)
{
	int to = 1 - f->cur;

	note(f, "rename   %s -> %s", strrchr(f->path[f->cur], '/') + 1,
	     strrchr(f->path[to], '/') + 1);
	if (rename(f->path[f->cur], f->path[to]) != 0)
		fail_errno(f, "rename");
	if (access(f->path[f->cur], F_OK) == 0)
		die(f, "the old name %s still exists after rename",
		    f->path[f->cur]);
	f->cur = to;
}

static void op_reopen(struct fsx *f)
{
	note(f, "reopen");
	if (close(f->fd) != 0)
		fail_errno(f, "close");
	f->fd = open(f->path[f->cur], O_RDWR);
	if (f->fd < 0)
		fail_errno(f, "reopen");
}

static enum op pick(struct fsx *f)
{
	int total = 0, r;

	for (int i = 0; i < OP_COUNT; i++)
		total += op_weight[i];
	r = (int)below(f, (size_t)total);
	for (int i = 0; i < OP_COUNT; i++) {
		if (r < op_weight[i])
			return (enum op)i;
		r -= op_weight[i];
	}
	return OP_READ;
}

static int usage(void)
{
	fputs("usage: fsx_lite [-n OPS] [-S SEED] [-l MAXLEN] [-q] DIR\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct fsx f = { .fd = -1, .maxlen = 256 * 1024 };
	long ops = 2000;
	uint64_t seed = 1;
	int c;

	while ((c = getopt(argc, argv, "n:S:l:q")) != -1) {
		switch (c) {
		case 'n': ops = strtol(optarg, NULL, 10); break;
		case 'S': seed = strtoull(optarg, NULL, 10); break;
		case 'l': f.maxlen = strtoul(optarg, NULL, 10); break;
		case 'q': f.quick = true; break;
		default: return usage();
		}
	}
	if (optind != argc - 1 || ops < 1 || f.maxlen < 16 ||
	    f.maxlen > (64u << 20))
		return usage();
	f.dir = argv[optind];
	f.rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	f.pagesize = sysconf(_SC_PAGESIZE);
	snprintf(f.path[0], sizeof(f.path[0]), "%s/fsx_lite.%" PRIu64 ".a",
		 f.dir, seed);
	snprintf(f.path[1], sizeof(f.path[1]), "%s/fsx_lite.%" PRIu64 ".b",
		 f.dir, seed);
	unlink(f.path[0]);
	unlink(f.path[1]);
	f.model = calloc(1, f.maxlen + 1);
	f.buf = malloc(f.maxlen + 2);
	if (!f.model || !f.buf)
		return fprintf(stderr, "fsx_lite: out of memory\n"), 1;
	f.fd = open(f.path[0], O_RDWR | O_CREAT | O_EXCL, 0644);
	if (f.fd < 0)
		fail_errno(&f, "create");
	for (f.opno = 1; f.opno <= ops; f.opno++) {
		switch (pick(&f)) {
		case OP_READ: op_read(&f); break;
		case OP_WRITE: op_write(&f); break;
		case OP_TRUNC: op_trunc(&f); break;
		case OP_MAPREAD: op_mapread(&f); break;
		case OP_MAPWRITE: op_mapwrite(&f); break;
		case OP_RENAME: op_rename(&f); break;
		case OP_REOPEN: op_reopen(&f); break;
		default: break;
		}
		check_size(&f);
		if (!f.quick)
			check_all(&f);
	}
	f.opno--;
	check_all(&f);
	close(f.fd);
	unlink(f.path[f.cur]);
	printf("fsx_lite: %ld operations, seed %" PRIu64 ", all checks "
	       "passed\n", ops, seed);
	free(f.model);
	free(f.buf);
	return 0;
}

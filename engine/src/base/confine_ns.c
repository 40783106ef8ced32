/*
 * confine_ns.c - entering a plan of arena/confine.h from a child process:
 * the in-process executor used for runners and compilers.
 *
 * The child is created by clone() with new mount, PID, IPC, UTS (and
 * network) namespaces, plus a user namespace when the caller is not root.
 * It then builds its root the way bubblewrap does:
 *
 *   1. every mount made private, a tmpfs on /tmp as a scaffold, and a first
 *      pivot_root into it: / is the scaffold, /oldroot the real root;
 *   2. the plan's operations, each from /oldroot/<src> to /newroot/<dst>
 *      (read-only binds made read-only recursively with mount_setattr, or
 *      by a remount of the top where the kernel is older than 5.12);
 *   3. /newroot made read-only, /oldroot detached, and a second
 *      pivot_root into /newroot, whose old root is detached in turn;
 *   4. the capability bounding set emptied and no_new_privs set, so that
 *      nothing executed inside gains a privilege, even as root.
 *
 * Everything the child needs is computed by confine_prepare() in the
 * parent: the child of a threaded process may not allocate, so
 * confine_enter() uses only system calls and stack buffers.
 *
 * The child is pid 1 of its namespace.  That matters in three ways: when
 * it exits every other process of the namespace dies with it (nothing a
 * compiler or runner starts can outlive it); signals it sends itself
 * without a handler are ignored (abort() ends in SIGSEGV instead of
 * SIGABRT); and it can only be signalled from outside with SIGKILL and
 * SIGSTOP, or SIGCONT, which is all the controller sends.
 */
#include "arena/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
/* <linux/mount.h> clashes with glibc's <sys/mount.h>: the few values used. */
#define ATTR_RDONLY 0x1
#define ATTR_NOSUID 0x2
#define ATTR_NODEV 0x4
struct attr_arg {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

struct prep_op {
	enum confine_op_kind kind;
	bool dir;
	char *src;     /* /oldroot/<src> for binds; the target of a link */
	char *dst;     /* /newroot/<dst> */
	char data[48]; /* tmpfs options */
};

struct confine_prep {
	struct prep_op *ops;
	size_t n;
	int flags; /* clone flags */
	bool userns;
	char uid_map[48], gid_map[48];
	char *cwd;
};

/* ---- preparing (parent) ----------------------------------------------- */

static void push(struct confine_prep *cp, size_t *alloc,
		 enum confine_op_kind kind, bool dir, const char *src,
		 const char *dst, const char *data)
{
	if (cp->n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		cp->ops = xrealloc(cp->ops, *alloc * sizeof(*cp->ops));
	}
	struct prep_op *o = &cp->ops[cp->n++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->dir = dir;
	o->src = src ? xstrdup(src) : NULL;
	o->dst = xasprintf("/newroot%s", dst);
	snprintf(o->data, sizeof(o->data), "%s", data ? data : "");
}

static struct confine_prep *prepare(const struct confine_plan *p, bool userns)
{
	static const char *const nodes[] = { "null",   "zero",	  "full",
					     "random", "urandom", "tty" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "fd" },
		{ "/proc/self/fd/0", "stdin" },
		{ "/proc/self/fd/1", "stdout" },
		{ "/proc/self/fd/2", "stderr" },
	};
	struct confine_prep *cp = xcalloc(1, sizeof(*cp));
	size_t alloc = 0;
	char buf[PATH_MAX + 16], data[48];

	cp->userns = userns;
	cp->flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
		    (p->share_net ? 0 : CLONE_NEWNET) |
		    (userns ? CLONE_NEWUSER : 0);
	snprintf(cp->uid_map, sizeof(cp->uid_map), "%u %u 1\n",
		 (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(cp->gid_map, sizeof(cp->gid_map), "%u %u 1\n",
		 (unsigned)getegid(), (unsigned)getegid());
	cp->cwd = xstrdup(p->cwd ? p->cwd : "/");
	for (size_t i = 0; i < p->n; i++) {
		const struct confine_op *o = &p->ops[i];
		switch (o->kind) {
		case CO_RO_BIND:
		case CO_RW_BIND:
		case CO_DEV_BIND:
			snprintf(buf, sizeof(buf), "/oldroot%s", o->src);
			push(cp, &alloc, o->kind, o->dir, buf, o->dst, NULL);
			break;
		case CO_TMPFS:
			if (o->size)
				snprintf(data, sizeof(data),
					 "mode=1777,size=%zu", o->size);
			else
				snprintf(data, sizeof(data), "mode=1777");
			push(cp, &alloc, CO_TMPFS, true, NULL, o->dst, data);
			break;
		case CO_MASK:
			push(cp, &alloc, CO_MASK, o->dir, "/oldroot/dev/null",
			     o->dst, "mode=0555,size=4096");
			break;
		case CO_SYMLINK:
			push(cp, &alloc, CO_SYMLINK, false, o->src, o->dst,
			     NULL);
			break;
		case CO_PROC:
			push(cp, &alloc, CO_PROC, true, NULL, o->dst, NULL);
			break;
		case CO_DEVFS:
			push(cp, &alloc, CO_TMPFS, true, NULL, o->dst,
			     "mode=0755,size=65536");
			for (size_t k = 0; k < ARRAY_SIZE(nodes); k++) {
				char src[64], dst[PATH_MAX];
				snprintf(src, sizeof(src), "/oldroot/dev/%s",
					 nodes[k]);
				snprintf(dst, sizeof(dst), "%s/%s", o->dst,
					 nodes[k]);
				push(cp, &alloc, CO_DEV_BIND, false, src, dst,
				     NULL);
			}
			for (size_t k = 0; k < ARRAY_SIZE(links); k++) {
				char dst[PATH_MAX];
				snprintf(dst, sizeof(dst), "%s/%s", o->dst,
					 links[k][1]);
				push(cp, &alloc, CO_SYMLINK, false, links[k][0],
				     dst, NULL);
			}
			snprintf(buf, sizeof(buf), "%s/shm", o->dst);
			push(cp, &alloc, CO_TMPFS, true, NULL, buf,
			     "mode=1777,size=67108864");
			break;
		}
	}
	return cp;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool probe_ok, probe_userns;
static char probe_why[512];

struct confine_prep *confine_prepare(const struct confine_plan *p,
				     struct errbuf *err)
{
	const char *why;

	if (!confine_available(&why)) {
		errf_code(err, ENOTSUP, "the sandbox is not available: %s",
			  why);
		return NULL;
	}
	return prepare(p, probe_userns);
}

void confine_prep_free(struct confine_prep *cp)
{
	if (!cp)
		return;
	for (size_t i = 0; i < cp->n; i++) {
		free(cp->ops[i].src);
		free(cp->ops[i].dst);
	}
	free(cp->ops);
	free(cp->cwd);
	free(cp);
}

pid_t confine_clone(const struct confine_prep *cp)
{
	return (pid_t)syscall(SYS_clone, (unsigned long)cp->flags | SIGCHLD,
			      NULL, NULL, NULL, NULL);
}

/* ---- entering (child) -------------------------------------------------- */

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n, len = (ssize_t)strlen(s);

	if (fd < 0)
		return -errno;
	n = write(fd, s, (size_t)len);
	int e = n == len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return e;
}

/* mkdir -p, on a stack copy of path; the last component too when
 * last is set. */
static int mkdirs(const char *path, bool last)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (buf[i] == '\0' && !last)
			break;
		char c = buf[i];
		buf[i] = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -errno;
		buf[i] = c;
	}
	return 0;
}

/* Creates what a mount at dst needs: a directory, or an empty file. */
static int make_target(const char *dst, bool dir)
{
	struct stat st;
	int rc, fd;

	if (lstat(dst, &st) == 0)
		return 0;
	if (dir)
		return mkdirs(dst, true);
	if ((rc = mkdirs(dst, false)) != 0)
		return rc;
	fd = open(dst, O_RDONLY | O_CREAT | O_CLOEXEC, 0444);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Makes the mount at dst (and, when rec, every mount below it) read-only,
 * nosuid and (unless dev) nodev. */
static int make_readonly(const char *dst, bool rec)
{
	struct attr_arg a = { .attr_set = ATTR_RDONLY | ATTR_NOSUID |
					  ATTR_NODEV };
	struct statvfs sv;
	unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;

	if (syscall(SYS_mount_setattr, AT_FDCWD, dst, rec ? AT_RECURSIVE : 0,
		    &a, sizeof(a)) == 0)
		return 0;
	if (errno != ENOSYS)
		return -errno;
	/* Before 5.12: the top mount only, keeping the flags the kernel
	 * locks in a user namespace. */
	if (statvfs(dst, &sv) != 0)
		return -errno;
	flags |= MS_NOSUID | MS_NODEV;
	if (sv.f_flag & ST_NOEXEC)
		flags |= MS_NOEXEC;
	if (sv.f_flag & ST_NOATIME)
		flags |= MS_NOATIME;
	if (sv.f_flag & ST_NODIRATIME)
		flags |= MS_NODIRATIME;
	if (sv.f_flag & ST_RELATIME)
		flags |= MS_RELATIME;
	return mount(NULL, dst, NULL, flags, NULL) == 0 ? 0 : -errno;
}

static int apply(const struct prep_op *o, const char **what)
{
	int rc;

	switch (o->kind) {
	case CO_RO_BIND:
	case CO_RW_BIND:
	case CO_DEV_BIND:
		*what = "a bind mount";
		if ((rc = make_target(o->dst, o->dir)) != 0)
			return rc;
		if (mount(o->src, o->dst, NULL,
			  MS_BIND | (o->kind == CO_DEV_BIND ? 0 : MS_REC),
			  NULL) != 0)
			return -errno;
		if (o->kind == CO_RO_BIND) {
			*what = "making a bind mount read-only";
			return make_readonly(o->dst, true);
		}
		return 0;
	case CO_TMPFS:
		*what = "a tmpfs";
		if ((rc = make_target(o->dst, true)) != 0)
			return rc;
		return mount("tmpfs", o->dst, "tmpfs", MS_NOSUID | MS_NODEV,
			     o->data) == 0
			       ? 0
			       : -errno;
	case CO_MASK:
		*what = "a mask";
		/* Made read-only once everything is mounted: a later bind
		 * (a compiler kept in a hidden directory) may need a target
		 * inside it. */
		if (o->dir)
			return mount("tmpfs", o->dst, "tmpfs",
				     MS_NOSUID | MS_NODEV | MS_NOEXEC,
				     o->data) == 0
				       ? 0
				       : -errno;
		if (mount(o->src, o->dst, NULL, MS_BIND, NULL) != 0)
			return -errno;
		return make_readonly(o->dst, false);
	case CO_SYMLINK:
		*what = "a symbolic link";
		if ((rc = mkdirs(o->dst, false)) != 0)
			return rc;
		return symlink(o->src, o->dst) == 0 || errno == EEXIST ? 0
								       : -errno;
	case CO_PROC: {
		static const char *const ro[] = { "sys", "sysrq-trigger", "irq",
						  "bus" };
		char sub[PATH_MAX];
		*what = "/proc";
		if ((rc = make_target(o->dst, true)) != 0)
			return rc;
		if (mount("proc", o->dst, "proc",
			  MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
			return -errno;
		/* As bubblewrap does: what would let root (even without
		 * capabilities, by file modes) change the machine. */
		for (size_t i = 0; i < ARRAY_SIZE(ro); i++) {
			size_t n = strlen(o->dst);
			if (n + strlen(ro[i]) + 2 > sizeof(sub))
				return -ENAMETOOLONG;
			memcpy(sub, o->dst, n);
			sub[n] = '/';
			memcpy(sub + n + 1, ro[i], strlen(ro[i]) + 1);
			if (access(sub, F_OK) != 0)
				continue;
			if (mount(sub, sub, NULL, MS_BIND | MS_REC, NULL) !=
				    0 ||
			    make_readonly(sub, true) != 0)
				return -errno;
		}
		return 0;
	}
	case CO_DEVFS:
		break; /* expanded by prepare() */
	}
	return 0;
}

int confine_enter(const struct confine_prep *cp, const char **what)
{
	int rc;

	*what = "the user namespace's maps";
	if (cp->userns &&
	    ((rc = write_file("/proc/self/setgroups", "deny")) != 0 ||
	     (rc = write_file("/proc/self/uid_map", cp->uid_map)) != 0 ||
	     (rc = write_file("/proc/self/gid_map", cp->gid_map)) != 0))
		return rc;
	*what = "making mounts private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -errno;
	*what = "the scaffold";
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
		  "mode=0755") != 0 ||
	    chdir("/tmp") != 0 || mkdir("newroot", 0755) != 0 ||
	    mount("newroot", "newroot", NULL, MS_BIND | MS_REC, NULL) != 0 ||
	    mkdir("oldroot", 0755) != 0)
		return -errno;
	*what = "the first pivot_root";
	if (syscall(SYS_pivot_root, ".", "oldroot") != 0 || chdir("/") != 0)
		return -errno;
	for (size_t i = 0; i < cp->n; i++)
		if ((rc = apply(&cp->ops[i], what)) != 0)
			return rc;
	*what = "making a mask read-only";
	for (size_t i = 0; i < cp->n; i++) {
		const struct prep_op *o = &cp->ops[i];
		if (o->kind == CO_MASK && o->dir &&
		    mount(NULL, o->dst, NULL,
			  MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV |
				  MS_NOEXEC,
			  o->data) != 0)
			return -errno;
	}
	*what = "making the root read-only";
	if (mount("/newroot", "/newroot", NULL,
		  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
		  NULL) != 0)
		return -errno;
	*what = "detaching the old root";
	if (mount("/oldroot", "/oldroot", NULL, MS_REC | MS_PRIVATE, NULL) !=
		    0 ||
	    umount2("/oldroot", MNT_DETACH) != 0)
		return -errno;
	*what = "the second pivot_root";
	if (chdir("/newroot") != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
	    umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
		return -errno;
	*what = "the working directory";
	if (chdir(cp->cwd) != 0)
		return -errno;
	*what = "dropping privileges";
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 &&
		    errno == EINVAL)
			break;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -errno;
	return 0;
}

/* ---- the probe --------------------------------------------------------- */

/* Confines /bin/true under the runner profile; 0 when it ran. */
static int try_mode(bool userns, char *why, size_t n)
{
	struct confine_plan p;
	struct confine_spec s = { .profile = CONFINE_RUNNER };
	struct confine_prep *cp;
	int pfd[2], status = 0;
	char msg[160] = "";

	confine_plan_for(&s, &p);
	cp = prepare(&p, userns);
	confine_plan_release(&p);
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(why, n, "pipe: %s", strerror(errno));
		confine_prep_free(cp);
		return -1;
	}
	pid_t pid = confine_clone(cp);
	if (pid == 0) {
		const char *what = "";
		int rc = confine_enter(cp, &what);
		if (rc == 0) {
			char *const argv[] = { (char *)"true", NULL };
			char *const envp[] = { NULL };
			execve("/usr/bin/true", argv, envp);
			execve("/bin/true", argv, envp);
			rc = -errno;
			what = "running /bin/true inside";
		}
		/* Only system calls here: the step and the errno. */
		char num[16];
		int k = (int)sizeof(num);
		num[--k] = '\0';
		for (int v = -rc; k > 0 && (v || k == (int)sizeof(num) - 1);
		     v /= 10)
			num[--k] = (char)('0' + v % 10);
		(void)!write(pfd[1], what, strlen(what));
		(void)!write(pfd[1], ": errno ", 8);
		(void)!write(pfd[1], num + k, strlen(num + k));
		_exit(CONFINE_EXIT_FAILED);
	}
	close(pfd[1]);
	if (pid < 0) {
		snprintf(why, n, "cannot create its namespaces (clone: %s)",
			 strerror(errno));
		close(pfd[0]);
		confine_prep_free(cp);
		return -1;
	}
	ssize_t got = read(pfd[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	confine_prep_free(cp);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	snprintf(why, n, "cannot build its file system view (%s)",
		 *msg ? msg : "no reason given");
	return -1;
}

static void probe(void)
{
	const char *env = getenv("ARENA_SANDBOX");
	char why1[240] = "", why2[240] = "";

	if (env && !strcmp(env, "off")) {
		snprintf(probe_why, sizeof(probe_why),
			 "turned off ($ARENA_SANDBOX=off)");
		return;
	}
	/* Root mounts directly; anyone else (or root without the right to
	 * mount, in a container) needs a user namespace. */
	if (geteuid() == 0 && try_mode(false, why1, sizeof(why1)) == 0) {
		probe_ok = true;
		return;
	}
	if (try_mode(true, why2, sizeof(why2)) == 0) {
		probe_ok = probe_userns = true;
		return;
	}
	snprintf(probe_why, sizeof(probe_why), "the sandbox %s%s%s", why2,
		 *why1 ? "; as root without a user namespace: " : "", why1);
}

bool confine_available(const char **why)
{
	pthread_once(&probe_once, probe);
	if (why)
		*why = probe_ok ? NULL : probe_why;
	return probe_ok;
}

bool confine_required(void)
{
	const char *env = getenv("ARENA_SANDBOX");

	return env && !strcmp(env, "on");
}

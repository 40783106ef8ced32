/*
 * fsv_main.c - `arena mount`: the daemon's life cycle.
 *
 * Start: open the store once to fail early with a message, clean up a
 * stale mount left by a daemon that died (stat gives ENOTCONN: detach it),
 * refuse a mount point that already carries an arena mount, mount with
 * default_permissions (the kernel checks modes; the daemon runs as root)
 * and allow_other when root, daemonize unless --foreground, and serve with
 * fuse_session_loop_mt() and the operation table of fsv_ops.c.  Stop
 * (SIGINT/SIGTERM/SIGHUP through fuse_set_signal_handlers(), or an
 * unmount): kill evaluation workers and answer their waiting readers, stop
 * the poll notifier, unmount, free.  Detached run executors are left
 * running on purpose.
 */
#include "fsv.h"
#include "arena/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

/* The per-thread engine handle's destructor (fsv_engine). */
static void engine_destroy(void *p)
{
	engine_close(p);
}

/* ---- start-up -------------------------------------------------------- */

/* True when /proc/self/mountinfo lists an arena mount at path. */
static bool arena_mounted_at(const char *path)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point ... - fstype */
		char mnt[4096], *dash = strstr(line, " - ");
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 || !dash)
			continue;
		found = strcmp(mnt, path) == 0 &&
			str_starts_with(dash + 3, "fuse.arena ");
	}
	fclose(f);
	return found;
}

/* Detaches the stale mount a dead daemon left at mnt. */
static int unmount_stale(const char *mnt, struct errbuf *err)
{
	struct proc_result pr;
	char *argv[] = { (char *)"fusermount3", (char *)"-u", (char *)"-z",
			 (char *)mnt, NULL };

	fprintf(stderr, "arena: %s: a previous daemon died; detaching its "
		"stale mount\n", mnt);
	if (umount2(mnt, MNT_DETACH) == 0)
		return 0;
	if (proc_run_capture(argv, NULL, NULL, 10000, 4096, &pr, err) == 0) {
		int ok = WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0;
		proc_result_release(&pr);
		if (ok)
			return 0;
	}
	return errf_code(err, EBUSY, "%s: cannot detach the stale mount; run "
			 "'fusermount3 -u -z %s' and try again", mnt, mnt);
}

static int prepare_mountpoint(const char *mnt, char **abs, struct errbuf *err)
{
	struct stat st;

	if (stat(mnt, &st) != 0) {
		if (errno != ENOTCONN)
			return errf_code(err, errno, "%s: %s", mnt,
					 strerror(errno));
		int rc = unmount_stale(mnt, err);
		if (rc)
			return rc;
		if (stat(mnt, &st) != 0)
			return errf_code(err, errno, "%s: %s", mnt,
					 strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return errf_code(err, ENOTDIR, "%s: not a directory", mnt);
	*abs = path_real(mnt);
	if (!*abs)
		return errf_code(err, errno, "%s: %s", mnt, strerror(errno));
	if (arena_mounted_at(*abs)) {
		/* stat may be answered from the kernel's cache after the
		 * daemon died; statfs always asks the daemon. */
		struct statfs sf;
		if (statfs(*abs, &sf) == 0 ||
		    (errno != ENOTCONN && errno != ECONNABORTED))
			return errf_code(err, EBUSY, "%s: an arena file system "
					 "is already mounted here; unmount it "
					 "first (fusermount3 -u %s)", *abs,
					 *abs);
		int rc = unmount_stale(*abs, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* True when path is dir or lies below it. */
static bool path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '/' || path[n] == '\0');
}

static int open_store(struct fsv *fs, const struct fsv_options *o,
		      struct errbuf *err)
{
	struct engine *e;
	int rc = engine_open(o->store_dir, o->tasks_dir, &e, err);

	if (rc)
		return rc;
	fs->store_dir = xstrdup(store_root(engine_store(e)));
	fs->tasks_dir = path_real(engine_tasks_root(e));
	if (!fs->tasks_dir)
		rc = errf_code(err, ENOENT, "%s: the task root does not "
			       "exist", engine_tasks_root(e));
	engine_close(e);
	if (rc)
		return rc;
	char *dir = path_join(fs->store_dir, "fs");
	rc = mkdir_p(dir, err);
	free(dir);
	return rc;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* After fuse_daemonize() stderr is /dev/null: send it to the mount log. */
static void log_to_store(struct fsv *fs)
{
	char *path = xasprintf("%s/fs/mount.log", fs->store_dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd >= 0) {
		dup2(fd, 2);
		close(fd);
	}
	free(path);
}

static struct fuse_session *session_new(struct fsv *fs)
{
	char opts[256];
	char *argv[4];
	int argc = 0;

	snprintf(opts, sizeof(opts), "fsname=arena,subtype=arena,"
		 "default_permissions%s", geteuid() == 0 ? ",allow_other" : "");
	argv[argc++] = (char *)"arena";
	argv[argc++] = (char *)"-o";
	argv[argc++] = opts;
	if (fs->debug)
		argv[argc++] = (char *)"-d";
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_session *se = fuse_session_new(&args, &fsv_ops, sizeof(fsv_ops),
						   fs);
	fuse_opt_free_args(&args);
	return se;
}

static void fsv_init(struct fsv *fs, const struct fsv_options *o)
{
	memset(fs, 0, sizeof(*fs));
	fs->ws_timeout = o->ws_timeout;
	fs->debug = o->debug;
	fs->uid = geteuid();
	fs->gid = getegid();
	clock_gettime(CLOCK_REALTIME, &fs->started);
	pthread_key_create(&fs->engine_key, engine_destroy);
	pthread_mutex_init(&fs->eval_lock, NULL);
	pthread_cond_init(&fs->eval_cond, NULL);
	pthread_mutex_init(&fs->outcome_lock, NULL);
	fs->inotify_fd = -1;
	fsv_roots_init(fs);
	fsv_nodes_init(fs);
}

static void fsv_release(struct fsv *fs)
{
	struct engine *e = pthread_getspecific(fs->engine_key);

	if (e) {
		engine_close(e);
		pthread_setspecific(fs->engine_key, NULL);
	}
	fsv_nodes_free(fs);
	free(fs->by_wd);
	fsv_roots_free(fs);
	fsv_spawn_release(fs);
	pthread_mutex_destroy(&fs->eval_lock);
	pthread_cond_destroy(&fs->eval_cond);
	pthread_mutex_destroy(&fs->outcome_lock);
	pthread_key_delete(fs->engine_key);
	free(fs->store_dir);
	free(fs->tasks_dir);
	free(fs->mountpoint);
}

static int serve(struct fsv *fs, const struct fsv_options *o)
{
	struct fuse_loop_config *cfg;
	int rc;

	fs->se = session_new(fs);
	if (!fs->se)
		return 1;
	if (fuse_set_signal_handlers(fs->se) != 0) {
		fuse_session_destroy(fs->se);
		return 1;
	}
	if (fuse_session_mount(fs->se, fs->mountpoint) != 0) {
		fuse_remove_signal_handlers(fs->se);
		fuse_session_destroy(fs->se);
		return 1;
	}
	fprintf(stderr, "arena: %s mounted at %s%s\n", fs->store_dir,
		fs->mountpoint, o->foreground ? "" : " (daemon; log in "
		"<store>/fs/mount.log)");
	fflush(stderr);
	fuse_daemonize(o->foreground);
	if (!o->foreground)
		log_to_store(fs);
	fsv_log("serving %s at %s (pid %d)", fs->store_dir, fs->mountpoint,
		(int)getpid());
	fsv_polls_start(fs);
	fsv_watch_start(fs);
	cfg = fuse_loop_cfg_create();
	fuse_loop_cfg_set_max_threads(cfg, (unsigned)o->threads);
	rc = fuse_session_loop_mt(fs->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	/* libfuse returns the signal number after a signal, 0 after an
	 * unmount and a negative errno after an error. */
	if (rc > 0)
		fsv_log("stopping on signal %d", rc);
	else
		fsv_log("stopping (%s)", rc ? strerror(-rc) : "unmounted");
	fsv_evals_stop(fs);
	fsv_polls_stop(fs);
	fsv_watch_stop(fs);
	fuse_session_unmount(fs->se);
	fuse_remove_signal_handlers(fs->se);
	fuse_session_destroy(fs->se);
	return rc < 0 ? 1 : 0;
}

int fsv_mount(const struct fsv_options *o)
{
	struct fsv fs;
	struct errbuf err;
	int rc;

	fsv_init(&fs, o);
	errbuf_init(&err);
	rc = open_store(&fs, o, &err);
	if (!rc)
		rc = prepare_mountpoint(o->mountpoint, &fs.mountpoint, &err);
	if (!rc && (path_within(fs.store_dir, fs.mountpoint) ||
		    path_within(fs.tasks_dir, fs.mountpoint)))
		rc = errf_code(&err, EINVAL, "the store %s or the task root "
			       "%s lies inside the mount point %s; choose "
			       "another mount point", fs.store_dir,
			       fs.tasks_dir, fs.mountpoint);
	if (rc) {
		fprintf(stderr, "arena: %s\n", errbuf_str(&err));
		fsv_release(&fs);
		return 1;
	}
	/* Modes arrive already masked by the caller's umask. */
	umask(0);
	raise_fd_limit();
	fsv_spawn_init(&fs);
	rc = serve(&fs, o);
	fsv_release(&fs);
	return rc;
}

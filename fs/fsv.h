/*
 * fsv.h - the filesystem view (`arena mount`): private interfaces of fs/.
 *
 * The daemon translates FUSE low-level requests into engine calls; the
 * engine (and through it the store) is the only source of truth.  What
 * the daemon keeps in memory is only what the kernel protocol needs: an
 * inode table (names the kernel has looked up), open-file handles with
 * their rendered snapshots, evaluations in flight with the requests
 * waiting for them, and poll handles.  docs/fs-semantics.md is the
 * contract; this header is the map of the code:
 *
 *   fsv_main.c    mount, daemonize, loop, shutdown
 *   fsv_ops.c     per-thread engines; the operation table that
 *                 dispatches every request to the synthetic or the
 *                 pass-through half
 *   fsv_inode.c   the inode table (synthetic nodes by path hash,
 *                 pass-through nodes by device and inode number)
 *   fsv_tree.c    the synthetic namespace: lookup, attributes, listings
 *   fsv_render.c  the content of every synthetic file
 *   fsv_files.c   open/read/write/flush/release/poll of synthetic files,
 *                 runs/new and control
 *   fsv_eval.c    score and task_result.yaml: deferred replies while an
 *                 evaluation runs in a child process
 *   fsv_pass.c    workspaces and task packages: fd-based pass-through
 *   fsv_root.c    the roots of those subtrees: which attempt a workspace
 *                 belongs to, and whether it is final (read-only)
 *   fsv_watch.c   inotify on the real directories the kernel caches, so
 *                 that changes made behind the mount invalidate the
 *                 kernel's long-lived entries and attributes
 *   fsv_spawn.c   detached executors and evaluation workers
 *   fsv_worker.c  the hidden `arena mount --eval-worker` and
 *                 `--resume-waiter` modes those children run
 *
 * Locking: fs->nodes_lock guards the inode table and the inotify watch
 * map; fs->roots_lock the pass-through roots; fs->eval_lock the
 * evaluation jobs; fs->poll_lock the poll handles; fs->outcome_lock the
 * runs/new outcome files; each synthetic handle has its own lock.  No
 * lock is held across a fuse_reply_* call or an engine call, and locks
 * are never nested (except a handle lock around engine calls that only
 * that handle's reader waits for).
 */
#ifndef ARENA_FSV_H
#define ARENA_FSV_H

#define FUSE_USE_VERSION 314

#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "arena/engine_fs.h"

/* ---- options (cli/cmd_mount.c fills them) ----------------------------- */

struct fsv_options {
	const char *mountpoint;
	const char *store_dir;
	const char *tasks_dir;	/* NULL: engine default */
	bool foreground;
	bool debug;
	int threads;		/* max worker threads of the loop */
	double ws_timeout;	/* entry/attr timeout of pass-through nodes
				 * whose real directory is watched */
};

#define FSV_DEFAULT_THREADS 16
/* Pass-through entries and attributes are kept this long when an inotify
 * watch on their real directory tells the daemon of every change made
 * behind the mount (fsv_watch.c); where no watch could be placed, at most
 * FSV_UNWATCHED_TIMEOUT. */
#define FSV_DEFAULT_WS_TIMEOUT 3600.0
#define FSV_UNWATCHED_TIMEOUT 1.0
/* How often a workspace that is not final yet is checked for having
 * become final, at most (a store read). */
#define FSV_FINAL_CHECK_S 0.25
/* Names of synthetic nodes are kept by the kernel for a second, and
 * those of the directories on the way to a workspace (fsv_tree.c
 * stable_dir: /, runs, runs/<run>, its tasks/ and task directories), with
 * those directories' attributes, as long as workspace entries (--ws-timeout)
 * since they never change while the run exists; attributes of synthetic
 * files are never cached (their content changes), those of the other
 * directories for a second (runs and compare move their mtime at every
 * look, so that a new run is listed within a second). */
#define FSV_SYNTH_ENTRY_TIMEOUT 1.0
#define FSV_SYNTH_DIR_ATTR_TIMEOUT 1.0
/* The longest a reader of score waits for one evaluation. */
#define FSV_EVAL_DEADLINE_S (30 * 60)
/* Outputs of an evaluation worker larger than this are refused. */
#define FSV_WORKER_OUTPUT_MAX ((size_t)16 << 20)
/* runs/errors keeps this many entries. */
#define FSV_ERRORS_KEEP 64

/* Mounts and serves until unmounted or signalled; returns an exit status
 * (messages go to stderr before daemonizing, to <store>/fs/mount.log
 * after). */
int fsv_mount(const struct fsv_options *o);
/* The hidden child modes (fsv_worker.c); return an exit status. */
int fsv_eval_worker(const char *store_dir, const char *tasks_dir,
		    const char *run_id, const char *dirname);
int fsv_resume_waiter(const char *store_dir, const char *tasks_dir,
		      const char *run_id);

/* ---- nodes ------------------------------------------------------------ */

enum fsv_kind {
	FSV_ROOT = 1,
	FSV_README,
	FSV_RUNS,		/* /runs */
	FSV_RUNS_NEW,		/* /runs/new */
	FSV_RUNS_ERRORS,	/* /runs/errors */
	FSV_RUNS_LATEST,	/* /runs/latest (symlink) */
	FSV_RUN,		/* /runs/<run> */
	FSV_RUN_CONFIG,
	FSV_RUN_STATUS,
	FSV_RUN_CSV,
	FSV_RUN_JSON,
	FSV_RUN_TXT,
	FSV_RUN_HTML,
	FSV_RUN_CONTROL,
	FSV_RUN_EVENTS,
	FSV_RUN_TASKS,		/* /runs/<run>/tasks */
	FSV_TASK,		/* /runs/<run>/tasks/<dir> */
	FSV_TASK_RESULT,	/* .../task_result.yaml */
	FSV_TASK_SCORE,		/* .../score */
	FSV_CMP,		/* /compare */
	FSV_CMP_A,		/* /compare/<a> */
	FSV_CMP_AB,		/* /compare/<a>/<b> */
	FSV_CMP_REPORT,		/* /compare/<a>/<b>/report.txt */
	FSV_PASS,		/* a real file or directory */
};

/* What names a synthetic node: its kind and the identifiers it needs. */
struct fsv_spec {
	enum fsv_kind kind;
	const char *run;	/* run id, or run A under /compare */
	const char *run_b;	/* run B under /compare */
	const char *task;	/* task directory name */
};

struct fsv_node {
	fuse_ino_t ino;
	uint64_t nlookup;	/* kernel references; guarded by nodes_lock */
	enum fsv_kind kind;
	/* synthetic nodes */
	char *path;		/* canonical path in the mount, e.g.
				 * "/runs/run_x/status" */
	char *run, *run_b, *task;
	/* pass-through nodes */
	int fd;			/* O_PATH, -1 for synthetic nodes */
	dev_t dev;
	ino_t src_ino;
	struct fsv_root *root;	/* the subtree it was reached through */
	int wd;			/* inotify watch (directories), or -1 */
	bool covered;		/* changes behind the mount are reported:
				 * its own watch (directories) or its
				 * parent's at lookup (files) */
	/* What the mount's own operations make inotify report
	 * (fsv_watch.c): names about to change in this directory; the
	 * change time and size last sent to the kernel for this node.
	 * nodes_lock. */
	struct fsv_expect *expect;
	size_t nexpect;
	struct timespec told_ctime;
	off_t told_size;
	/* The change time and size right after the mount's own latest change
	 * of the file's bytes (or when the node was made): while the real
	 * file still shows them, the kernel's cached pages are what the file
	 * holds.  nodes_lock. */
	struct timespec data_ctime;
	off_t data_size;
	struct fsv_node *next_ino;	/* hash chains, nodes_lock */
	struct fsv_node *next_src;
	struct fsv_node *next_wd;
};

/* The root of a pass-through subtree: the task packages (read-only) or one
 * attempt's workspace, read-write until the attempt is done and read-only
 * (EROFS) from then on.  Roots live until the daemon stops. */
struct fsv_root {
	char *run, *dirname;	/* the attempt; NULL for the task packages */
	char *task_id;
	int attempt;
	bool readonly;		/* the task packages */
	bool final;		/* attempt done; never goes back */
	double checked;		/* when final was last asked of the store */
	struct fsv_root *next;
};

struct fsv_eval_job;
struct fsv_poll;

/* The daemon's context, reached through fuse_req_userdata(). */
struct fsv {
	char *store_dir;	/* absolute */
	char *tasks_dir;	/* absolute */
	char *mountpoint;	/* absolute */
	char *exe;		/* this binary, for argv[0] of children */
	char **envp;		/* children's environment: ours plus
				 * ARENA_MOUNT=<mountpoint> */
	double ws_timeout;
	bool debug;
	uid_t uid;		/* owner of synthetic files */
	gid_t gid;
	struct timespec started;
	struct fuse_session *se;
	pthread_key_t engine_key;

	pthread_mutex_t nodes_lock;
	struct fsv_node **by_ino;	/* buckets */
	struct fsv_node **by_src;
	size_t nbuckets;
	size_t nnodes;
	fuse_ino_t next_ino;		/* pass-through numbers */
	struct fsv_node root;

	pthread_mutex_t eval_lock;
	pthread_cond_t eval_cond;
	struct fsv_eval_job *jobs;
	int eval_threads;
	bool eval_stopping;

	pthread_mutex_t poll_lock;
	pthread_cond_t poll_cond;
	struct fsv_poll *polls;
	bool poll_stopping;
	pthread_t poll_thread;
	bool poll_started;

	pthread_mutex_t outcome_lock;

	pthread_mutex_t roots_lock;
	struct fsv_root *roots;
	struct fsv_root tasks_root;

	/* fsv_watch.c: the inotify instance and its reader */
	int inotify_fd;			/* -1 when inotify is unavailable */
	int watch_stop[2];		/* pipe that wakes the reader to stop */
	pthread_t watch_thread;
	bool watch_started;
	struct fsv_node **by_wd;	/* FSV_WD_BUCKETS chains, nodes_lock */
	uint64_t watch_events, watch_invals, watch_overflows;
	bool watch_lost;		/* an overflow lost events: short
					 * timeouts from then on (atomic) */
};
#define FSV_WD_BUCKETS 1024

/* The calling thread's engine (opened on first use, closed when the
 * thread exits); NULL with *errp set when the store cannot be opened. */
struct engine *fsv_engine(struct fsv *fs, int *errp);
/* fsv_ops.c: every operation of the mount. */
extern const struct fuse_lowlevel_ops fsv_ops;
struct fsv *fsv_of(fuse_req_t req);
/* Logs one line to stderr (the mount log once daemonized). */
void fsv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* fsv_inode.c */
void fsv_nodes_init(struct fsv *fs);
void fsv_nodes_free(struct fsv *fs);
/* The node for ino, or NULL (borrowed: the kernel holds it while any
 * request names it). */
struct fsv_node *fsv_node_get(struct fsv *fs, fuse_ino_t ino);
/* Finds or creates the synthetic node for spec/path and adds one lookup
 * reference. */
struct fsv_node *fsv_node_synth(struct fsv *fs, const struct fsv_spec *spec,
				const char *path);
/* Finds or creates the pass-through node for (st->st_dev, st->st_ino,
 * root) and adds one lookup reference; a new directory node gets an
 * inotify watch.  covered says whether the parent directory is watched
 * (for files).  Takes ownership of fd (closed when an existing node is
 * reused). */
struct fsv_node *fsv_node_pass(struct fsv *fs, int fd, const struct stat *st,
			       struct fsv_root *root, bool covered);
void fsv_node_ref(struct fsv *fs, struct fsv_node *n);
/* The pass-through node for (dev, ino, root), or NULL (nodes_lock held). */
struct fsv_node *fsv_node_find_pass(struct fsv *fs, dev_t dev, ino_t ino,
				    const struct fsv_root *root);
/* Calls fn on every pass-through node (nodes_lock held). */
void fsv_nodes_each_pass(struct fsv *fs, void (*fn)(struct fsv_node *, void *),
			 void *arg);
void fsv_node_forget(struct fsv *fs, fuse_ino_t ino, uint64_t nlookup);
/* The stable inode number of a synthetic path (the root is 1). */
fuse_ino_t fsv_path_ino(const char *path);

/* fsv_tree.c */
bool fsv_kind_is_dir(enum fsv_kind k);
bool fsv_kind_writable(enum fsv_kind k);
/* Resolves name in a synthetic parent; on success e is filled and the
 * child holds one more lookup reference.  Returns 0 or an errno. */
int fsv_tree_lookup(struct fsv *fs, struct fsv_node *parent, const char *name,
		    struct fuse_entry_param *e);
int fsv_tree_stat(struct fsv *fs, struct fsv_node *n, struct stat *st,
		  double *timeout);
/* Lists a synthetic directory (names and d_type, "." and ".." first). */
struct fsv_dirent {
	char *name;
	unsigned char type;	/* DT_DIR, DT_REG, DT_LNK */
	fuse_ino_t ino;
};
struct fsv_listing {
	struct fsv_dirent *v;
	size_t n;
};
int fsv_tree_list(struct fsv *fs, struct fsv_node *dir,
		  struct fsv_listing *out);
void fsv_listing_release(struct fsv_listing *l);
int fsv_tree_readlink(struct fsv *fs, struct fsv_node *n, char **target);
/* The real directory behind a task node's workspace (caller frees). */
char *fsv_workspace_path(struct fsv *fs, struct engine *e,
			 const struct fsv_node *task);

/* fsv_render.c: the content of synthetic file n (appended to out).
 * ctx names the caller (runs/new shows the caller's last outcome). */
int fsv_render(struct fsv *fs, struct engine *e, const struct fsv_node *n,
	       const struct fuse_ctx *ctx, struct strbuf *out);
/* Events of a run after after_id, one line each, appended to out;
 * *last_id is advanced to the last one rendered. */
int fsv_render_events(struct engine *e, const char *run_id, int64_t *last_id,
		      struct strbuf *out);
/* The size getattr reports for synthetic file n. */
off_t fsv_render_size(struct fsv *fs, struct engine *e,
		      const struct fsv_node *n, const struct fuse_ctx *ctx);
/* runs/new outcomes: what `cat runs/new` shows to uid, and runs/errors. */
void fsv_outcome_record(struct fsv *fs, uid_t uid, pid_t pid, bool ok,
			const char *text);
int fsv_outcome_read(struct fsv *fs, uid_t uid, struct strbuf *out);
int fsv_errors_read(struct fsv *fs, struct strbuf *out);
/* The result rendered as the file `kind` shows it (caller frees). */
char *fsv_render_result(enum fsv_kind kind, const struct task_result *r);

/* fsv_files.c: synthetic files */
void fsv_file_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi);
/* Completes an open of score/task_result.yaml with rendered content;
 * takes ownership of text. */
void fsv_file_reply_snapshot(fuse_req_t req, struct fsv_node *n,
			     struct fuse_file_info *fi, char *text);
void fsv_file_read(fuse_req_t req, size_t size, off_t off,
		   struct fuse_file_info *fi);
void fsv_file_write(fuse_req_t req, struct fsv_node *n, const char *buf,
		    size_t size, off_t off, struct fuse_file_info *fi);
void fsv_file_flush(fuse_req_t req, struct fuse_file_info *fi);
void fsv_file_release(fuse_req_t req, struct fuse_file_info *fi);
void fsv_file_poll(fuse_req_t req, struct fuse_file_info *fi,
		   struct fuse_pollhandle *ph);
void fsv_polls_start(struct fsv *fs);
void fsv_polls_stop(struct fsv *fs);

/* fsv_eval.c */
void fsv_eval_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi);
void fsv_evals_stop(struct fsv *fs);

/* fsv_pass.c: every operation on FSV_PASS nodes (and on names inside a
 * pass-through directory).  fsv_pass_entry() opens real_path as the root
 * of a pass-through subtree (a workspace, the task packages). */
int fsv_pass_entry(struct fsv *fs, const char *real_path,
		   struct fsv_root *root, struct fuse_entry_param *e);
void fsv_pass_lookup(fuse_req_t req, struct fsv_node *parent,
		     const char *name);
void fsv_pass_getattr(fuse_req_t req, struct fsv_node *n);
void fsv_pass_setattr(fuse_req_t req, struct fsv_node *n, struct stat *attr,
		      int valid, struct fuse_file_info *fi);
void fsv_pass_readlink(fuse_req_t req, struct fsv_node *n);
void fsv_pass_mknod(fuse_req_t req, struct fsv_node *parent,
		    const char *name, mode_t mode, dev_t rdev,
		    const char *link);
void fsv_pass_link(fuse_req_t req, struct fsv_node *n,
		   struct fsv_node *newparent, const char *name);
void fsv_pass_unlink(fuse_req_t req, struct fsv_node *parent,
		     const char *name, int flags);
void fsv_pass_rename(fuse_req_t req, struct fsv_node *parent,
		     const char *name, struct fsv_node *newparent,
		     const char *newname, unsigned int flags);
void fsv_pass_open(fuse_req_t req, struct fsv_node *n,
		   struct fuse_file_info *fi);
void fsv_pass_create(fuse_req_t req, struct fsv_node *parent,
		     const char *name, mode_t mode, struct fuse_file_info *fi);
void fsv_pass_read(fuse_req_t req, size_t size, off_t off,
		   struct fuse_file_info *fi);
void fsv_pass_write_buf(fuse_req_t req, struct fsv_node *n,
			struct fuse_bufvec *in, off_t off,
			struct fuse_file_info *fi);
void fsv_pass_flush(fuse_req_t req, struct fuse_file_info *fi);
void fsv_pass_release(fuse_req_t req, struct fuse_file_info *fi);
void fsv_pass_fsync(fuse_req_t req, int datasync, struct fuse_file_info *fi);
/* Directories have no open handle (op_opendir): each READDIR reads the
 * real directory afresh from off. */
void fsv_pass_readdir(fuse_req_t req, struct fsv_node *n, size_t size,
		      off_t off, bool plus);
void fsv_pass_fsyncdir(fuse_req_t req, struct fsv_node *n, int datasync);
void fsv_pass_statfs(fuse_req_t req, struct fsv_node *n);
void fsv_pass_fallocate(fuse_req_t req, struct fsv_node *n, int mode,
			off_t off, off_t len, struct fuse_file_info *fi);
void fsv_pass_lseek(fuse_req_t req, off_t off, int whence,
		    struct fuse_file_info *fi);
void fsv_pass_copy_file_range(fuse_req_t req, struct fsv_node *out_node,
			      off_t off_in, struct fuse_file_info *fi_in,
			      off_t off_out, struct fuse_file_info *fi_out,
			      size_t len, int flags);

/* fsv_root.c */
void fsv_roots_init(struct fsv *fs);
void fsv_roots_free(struct fsv *fs);
/* The root of the workspace of attempt `dirname` of run (found or made;
 * borrowed, lives until fsv_roots_free). */
struct fsv_root *fsv_root_workspace(struct fsv *fs, const char *run,
				    const char *dirname, const char *task_id,
				    int attempt);
/* 0 when changes are allowed under r, EROFS when not (task packages, or
 * the attempt is done: finished is final). */
int fsv_root_writable(struct fsv *fs, struct fsv_root *r);

/* fsv_watch.c */
/* Opens the inotify instance (fs->inotify_fd stays -1 when it cannot) and
 * starts the thread that turns events into kernel cache invalidations. */
void fsv_watch_start(struct fsv *fs);
void fsv_watch_stop(struct fsv *fs);
/* Watches directory node n (nodes_lock held); sets n->wd and n->covered. */
void fsv_watch_add(struct fsv *fs, struct fsv_node *n);
/* Drops n's watch (nodes_lock held). */
void fsv_watch_remove(struct fsv *fs, struct fsv_node *n);
/* The timeout for entries and attributes of a node. */
double fsv_pass_timeout(const struct fsv *fs, bool covered);
/* The mount is about to change `name` in directory node dir (mask: the
 * inotify event(s) that will follow, IN_CREATE, IN_DELETE, IN_MOVED_FROM,
 * IN_MOVED_TO): that event needs no invalidation, the kernel made the
 * change.  fsv_watch_unexpect() withdraws it when the change failed. */
void fsv_watch_expect(struct fsv *fs, struct fsv_node *dir, const char *name,
		      uint32_t mask);
void fsv_watch_unexpect(struct fsv *fs, struct fsv_node *dir,
			const char *name, uint32_t mask);
/* Records the attributes the daemon is sending the kernel for n: a later
 * IN_CLOSE_WRITE or IN_ATTRIB that leaves them as they are needs no
 * invalidation. */
void fsv_watch_told(struct fsv *fs, struct fsv_node *n, const struct stat *st);
/* Records that the mount itself has just changed the bytes of n (a write,
 * a truncation, fallocate, copy_file_range) through descriptor fd, or
 * with fd < 0 that st holds the file's attributes right after such a
 * change: the kernel's page cache holds what the file holds, and an
 * IN_CLOSE_WRITE that finds the file so needs no data invalidation. */
void fsv_watch_wrote(struct fsv *fs, struct fsv_node *n, int fd,
		     const struct stat *st);
/* Whether st (the real file now) shows the state of fsv_watch_wrote's
 * last record for n: the kernel's cached pages are the file's bytes. */
bool fsv_watch_pages_exact(struct fsv *fs, const struct fsv_node *n,
			   const struct stat *st);
/* A rename or link through the mount changes a file's change time, not
 * its bytes: fsv_watch_exact_at() says, before it, whether the kernel's
 * pages of the regular file `name` in dir are exact (st: its attributes),
 * and fsv_watch_wrote_at() records, after it, that they still are for the
 * same file now at `name` in dir. */
bool fsv_watch_exact_at(struct fsv *fs, struct fsv_node *dir, const char *name,
			struct stat *st);
void fsv_watch_wrote_at(struct fsv *fs, struct fsv_node *dir, const char *name,
			const struct stat *before);
/* Whether the kernel may keep n's cached pages across opens: only where
 * changes behind the mount are reported (the mount asks the kernel to
 * drop cached pages only when told to, FUSE_CAP_EXPLICIT_INVAL_DATA). */
bool fsv_watch_keeps_pages(const struct fsv *fs, const struct fsv_node *n);
/* Frees what the watch bookkeeping holds in n (node_free). */
void fsv_watch_node_release(struct fsv_node *n);

/* fsv_spawn.c */
/* Builds fs->exe and fs->envp; fsv_spawn_release() frees them. */
void fsv_spawn_init(struct fsv *fs);
void fsv_spawn_release(struct fsv *fs);
/* Starts `arena resume RUN` (or the resume waiter when waiter is true)
 * detached: double fork, setsid, output appended to
 * runs/<run>/logs/executor.log, ARENA_MOUNT set.  It survives the
 * daemon. */
int fsv_spawn_executor(struct fsv *fs, const char *run_id, bool waiter,
		       pid_t *pid, struct errbuf *err);
/* engine_workspace_view_fn for an executor started by the mount at
 * mountpoint (ctx: the mountpoint): <mountpoint>/runs/<run>/tasks/<task
 * dir>/workspace when the mount answers there, else NULL (daemon down:
 * the agent gets the real path). */
char *fsv_workspace_view(void *mountpoint, const char *run_id,
			 const char *task_dirname);
/* Starts an evaluation worker for one attempt; *pid is its process group
 * leader and *out_fd the read end of its stdout. */
int fsv_spawn_worker(struct fsv *fs, const char *run_id, const char *dirname,
		     pid_t *pid, int *out_fd, struct errbuf *err);

#endif /* ARENA_FSV_H */

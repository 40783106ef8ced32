/*
 * sandbox.c - see sandbox.h.
 *
 * Why a probe: bubblewrap may be installed yet unusable (unprivileged user
 * namespaces disabled, seccomp profiles of a container, no /proc).  The
 * probe runs the same options the agent will get, around /bin/true, once
 * per process; a failure is reported in words and the launcher records
 * sandboxed = false (or refuses, with `sandbox: on`).
 *
 * The view itself is arena/confine.h's agent profile: this file adds the
 * user namespace, the new session and the parent-death rule, and leaves
 * --size out for a bwrap too old to know it.
 */
#include "sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/confine.h"
#include "arena/proc.h"

void sandbox_spec_init(struct sandbox_spec *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->hide);
	strvec_init(&s->expose_ro);
	strvec_init(&s->bind_rw);
	s->share_net = true;
}

void sandbox_spec_release(struct sandbox_spec *s)
{
	strvec_release(&s->hide);
	strvec_release(&s->expose_ro);
	strvec_release(&s->bind_rw);
}

bool path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
					       path[n] == '/');
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool probe_ok;
static char probe_why[2048];
static char bwrap_path[512];

const char *sandbox_bwrap_path(void)
{
	const char *env = getenv("ARENA_BWRAP");

	if (env && *env)
		return env;
	return "bwrap";
}

/* The options shared by the probe and every launch. */
static void base_options(struct strvec *out)
{
	strvec_push(out, "--die-with-parent");
	strvec_push(out, "--new-session");
	strvec_push(out, "--unshare-user");
	strvec_push(out, "--unshare-pid");
	strvec_push(out, "--unshare-ipc");
	strvec_push(out, "--unshare-uts");
	strvec_push(out, "--unshare-cgroup-try");
	if (geteuid() == 0) {
		strvec_push(out, "--uid");
		strvec_pushf(out, "%d", SANDBOX_UID);
		strvec_push(out, "--gid");
		strvec_pushf(out, "%d", SANDBOX_UID);
	}
}

static pthread_once_t size_once = PTHREAD_ONCE_INIT;
static bool bwrap_has_size;

/* Whether this bwrap knows --size (0.8 and later): older ones get
 * unbounded tmpfs instead of failing. */
static void find_size(void)
{
	char *argv[] = { (char *)sandbox_bwrap_path(), (char *)"--help", NULL };
	struct proc_result r;
	struct errbuf e;

	errbuf_init(&e);
	if (proc_run_capture(argv, NULL, NULL, 10000, 65536, &r, &e) == 0) {
		bwrap_has_size = r.output && strstr(r.output, "--size");
		proc_result_release(&r);
	}
}

/* The agent profile of spec as bwrap options. */
static void plan_options(const struct sandbox_spec *s, struct strvec *out)
{
	struct confine_plan p;
	struct strvec opts = STRVEC_INIT;
	struct confine_spec cs = {
		.profile = CONFINE_AGENT,
		.workspace = s->workspace,
		.rw = &s->bind_rw,
		.ro = &s->expose_ro,
		.hide = &s->hide,
		.tmp_bytes = s->tmp_bytes ? s->tmp_bytes : 256ul << 20,
	};

	pthread_once(&size_once, find_size);
	confine_plan_for(&cs, &p);
	p.share_net = s->share_net;
	confine_bwrap_argv(&p, &opts);
	for (size_t i = 0; i < opts.n; i++) {
		if (!bwrap_has_size && !strcmp(opts.v[i], "--size")) {
			i++;
			continue;
		}
		strvec_push(out, opts.v[i]);
	}
	strvec_release(&opts);
	confine_plan_release(&p);
}

static void probe(void)
{
	struct strvec argv = STRVEC_INIT;
	struct proc_result r;
	struct errbuf err;

	memset(&r, 0, sizeof(r));
	snprintf(bwrap_path, sizeof(bwrap_path), "%s", sandbox_bwrap_path());
	struct sandbox_spec spec;
	sandbox_spec_init(&spec);
	strvec_push(&argv, bwrap_path);
	base_options(&argv);
	plan_options(&spec, &argv);
	sandbox_spec_release(&spec);
	strvec_push(&argv, "--");
	strvec_push(&argv, "true");
	errbuf_init(&err);
	if (proc_run_capture(argv.v, NULL, NULL, 10000, 4096, &r, &err) != 0) {
		snprintf(probe_why, sizeof(probe_why), "bubblewrap (%s) cannot "
			 "be run: %s; install it (apt-get install bubblewrap)",
			 bwrap_path, errbuf_str(&err));
	} else if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) {
		probe_ok = true;
	} else {
		char why[128];
		size_t n = r.output_len;
		while (n > 0 && (r.output[n - 1] == '\n' || r.output[n - 1] == ' '))
			n--;
		proc_describe_status(r.status, why, sizeof(why));
		if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127)
			snprintf(probe_why, sizeof(probe_why), "bubblewrap (%s) "
				 "is not installed; apt-get install bubblewrap",
				 bwrap_path);
		else
			snprintf(probe_why, sizeof(probe_why), "bubblewrap "
				 "cannot create its namespaces here (%s: %.*s)",
				 why, (int)(n > 300 ? 300 : n),
				 r.output ? r.output : "");
	}
	proc_result_release(&r);
	strvec_release(&argv);
}

bool sandbox_available(const char **why)
{
	pthread_once(&probe_once, probe);
	if (why)
		*why = probe_ok ? NULL : probe_why;
	return probe_ok;
}

void sandbox_argv(const struct sandbox_spec *s, struct strvec *out)
{
	strvec_push(out, sandbox_bwrap_path());
	base_options(out);
	plan_options(s, out);
	strvec_push(out, "--");
}

/* ---- limits ------------------------------------------------------------ */

void sandbox_proc_limits(const struct sandbox_limits *l,
			 struct proc_limits *out)
{
	memset(out, 0, sizeof(*out));
	/* One page past the quota: a file that reaches the cap is over the
	 * quota, so the measurement stops the agent and removes it, rather
	 * than a capped file sitting in the store. */
	out->fsize_bytes = l->disk_bytes ? l->disk_bytes + 4096 : 0;
#if !defined(__SANITIZE_ADDRESS__)
	out->data_bytes = l->memory_bytes;
#else
	/* An ASan build's own programs in the sandbox (`arena mcp call`)
	 * reserve terabytes of shadow, which RLIMIT_DATA refuses: `make
	 * asan` runs agents without the memory quota, as it runs runners
	 * without RLIMIT_AS (eval/runners.c). */
	(void)l->memory_bytes;
#endif
}

/* How deep the measurement walks (one open directory a level).  A tree
 * deeper than this is not measured but refused: below it an agent could
 * otherwise keep any number of files of up to the quota each. */
#define USAGE_MAX_DEPTH 64
/* What an entry holding no block costs (an empty file, a short link, a
 * FIFO): an inode, counted as one block, so that an agent cannot fill
 * the store's file system with millions of empty files. */
#define USAGE_INODE_BYTES 4096

/* Bytes of disk held under the directory open at dfd (its blocks, so a
 * sparse file counts what it holds; an entry holding none counts one
 * block), not crossing into other file systems and not following links;
 * *deep set when a directory lies deeper than USAGE_MAX_DEPTH. */
static uint64_t usage_at(int dfd, dev_t dev, int depth, bool *deep)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	uint64_t sum = 0;

	if (!d) {
		close(dfd);
		return 0;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		sum += st.st_blocks ? (uint64_t)st.st_blocks * 512
				    : USAGE_INODE_BYTES;
		if (!S_ISDIR(st.st_mode) || st.st_dev != dev)
			continue;
		if (depth >= USAGE_MAX_DEPTH) {
			*deep = true;
			continue;
		}
		int sub =
			openat(dirfd(d), e->d_name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			sum += usage_at(sub, dev, depth + 1, deep);
	}
	closedir(d);
	return sum;
}

static uint64_t usage(const char *dir, bool *deep)
{
	struct stat st;
	int fd;

	if (!dir || stat(dir, &st) != 0)
		return 0;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? 0 : usage_at(fd, st.st_dev, 0, deep);
}

const char *sandbox_quota_tick(void *limits)
{
	struct sandbox_limits *l = limits;

	if (!l->disk_bytes)
		return NULL;
	bool deep = false;
	l->used = usage(l->workspace, &deep) + usage(l->scratch, &deep);
	if (deep) {
		snprintf(l->why, sizeof(l->why),
			 "the agent was stopped: its workspace or scratch "
			 "space held directories nested more than %d deep, "
			 "which its disk quota (agent.disk_quota_mb) cannot "
			 "measure; files other than the editable ones were "
			 "removed from the workspace",
			 USAGE_MAX_DEPTH);
		return l->why;
	}
	if (l->used <= l->disk_bytes)
		return NULL;
	snprintf(l->why, sizeof(l->why),
		 "the agent was stopped: its "
		 "workspace and scratch space held %.0f MiB, over its disk "
		 "quota of %.0f MiB (agent.disk_quota_mb); files other than "
		 "the editable ones were removed from the workspace",
		 (double)l->used / (1 << 20),
		 (double)l->disk_bytes / (1 << 20));
	return l->why;
}

const char *sandbox_launch_tick(void *limits)
{
	struct sandbox_limits *l = limits;
	const char *why = sandbox_quota_tick(l);

	if (why || !l->cancelled)
		return why;
	uint64_t now = now_ns();
	if (now - l->cancel_polled_ns < 1000000000ull)
		return NULL;
	l->cancel_polled_ns = now;
	if (!l->cancelled(l->cancelled_ctx))
		return NULL;
	l->was_cancelled = true;
	return "its run was cancelled; it runs again, on the same "
	       "workspace, when the run is resumed";
}

static bool kept(const char *rel, const struct strvec *editable)
{
	if (!strcmp(rel, "TASK.md"))
		return true;
	for (size_t i = 0; i < editable->n; i++) {
		size_t n = strlen(rel);
		if (!strcmp(editable->v[i], rel))
			return true;
		/* A directory on the way to an editable file. */
		if (!strncmp(editable->v[i], rel, n) &&
		    editable->v[i][n] == '/')
			return true;
	}
	return false;
}

static int clean_at(const char *root, const char *rel,
		    const struct strvec *editable)
{
	char *path = rel ? path_join(root, rel) : xstrdup(root);
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d) {
		free(path);
		return 0;
	}
	while ((e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *r = rel ? xasprintf("%s/%s", rel, e->d_name)
			      : xstrdup(e->d_name);
		char *full = path_join(root, r);
		if (lstat(full, &st) == 0) {
			if (!kept(r, editable)) {
				rm_rf(full);
				n++;
			} else if (S_ISDIR(st.st_mode)) {
				n += clean_at(root, r, editable);
			} else if (!S_ISREG(st.st_mode)) {
				unlink(full);
				n++;
			}
		}
		free(full);
		free(r);
	}
	closedir(d);
	free(path);
	return n;
}

int sandbox_quota_clean(const char *workspace, const struct strvec *editable)
{
	return clean_at(workspace, NULL, editable);
}

/* Decodes the octal escapes of a /proc/self/mountinfo field in place
 * ("\040" is a space). */
static void unescape_mountinfo(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 +
				      (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

void sandbox_hide_arena_mounts(struct sandbox_spec *s)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point options ... - type */
		char mnt[4096], *dash = strstr(line, " - ");
		if (!dash || strncmp(dash + 3, "fuse.arena ", 11) != 0 ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		unescape_mountinfo(mnt);
		strvec_push(&s->hide, mnt);
		/* The agent's own workspace under this mount: its score and
		 * task_result.yaml beside it stay readable (they show the
		 * visible cases only).  The workspace itself is bound back
		 * last, read-write, by sandbox_argv(). */
		if (s->workspace && path_is_under(s->workspace, mnt) &&
		    strcmp(s->workspace, mnt) != 0) {
			char *dir = xstrdup(s->workspace);
			char *slash = strrchr(dir, '/');
			if (slash && strcmp(slash, "/workspace") == 0) {
				*slash = '\0';
				strvec_pushf(&s->expose_ro, "%s/score", dir);
				strvec_pushf(&s->expose_ro, "%s/task_result.yaml",
					     dir);
			}
			free(dir);
		}
	}
	fclose(f);
}

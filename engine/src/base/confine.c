/*
 * confine.c - the plans of arena/confine.h: what a confined compiler,
 * runner or agent sees, and how that is said to bubblewrap.
 *
 * A plan is built as an allow-list on an empty root, in an order that the
 * two executors (confine_ns.c in-process, bubblewrap for agents) apply as
 * written: system directories, /dev, /proc and /tmp, then what the
 * profile needs (which may lie under /tmp), then the masks, then the
 * writable binds.  Later mounts
 * cover earlier ones, so a mask hides what an allowed directory would
 * show, and a writable bind (a workspace inside a hidden store) wins over
 * the mask around it.
 *
 * Masks are laid only where they are needed: over a hidden path that lies
 * inside an allowed directory (the installed catalogue under /usr, say).
 * A hidden path outside every allowed directory is invisible already.
 * Paths are compared in their resolved form, so a link into a hidden
 * directory does not get around a mask.
 */
#include "arena/confine.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/proc.h"

void confine_plan_init(struct confine_plan *p)
{
	memset(p, 0, sizeof(*p));
	strvec_init(&p->hidden);
}

void confine_plan_release(struct confine_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->ops[i].src);
		free(p->ops[i].dst);
	}
	free(p->ops);
	free(p->cwd);
	strvec_release(&p->hidden);
	memset(p, 0, sizeof(*p));
}

static struct confine_op *add_op(struct confine_plan *p,
				 enum confine_op_kind kind, const char *src,
				 const char *dst)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 32;
		p->ops = xrealloc(p->ops, p->alloc * sizeof(*p->ops));
	}
	struct confine_op *o = &p->ops[p->n++];
	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->src = src ? xstrdup(src) : NULL;
	o->dst = xstrdup(dst);
	return o;
}

/* True when path equals dir or lies below it (both absolute, resolved). */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

bool confine_bind(struct confine_plan *p, enum confine_op_kind kind,
		  const char *src, const char *dst)
{
	char *real = path_real(src);
	struct stat st;

	if (!real)
		return false;
	if (stat(real, &st) != 0) {
		free(real);
		return false;
	}
	struct confine_op *o = add_op(p, kind, real, dst ? dst : real);
	o->dir = S_ISDIR(st.st_mode);
	free(real);
	return true;
}

void confine_tmpfs(struct confine_plan *p, const char *dst, size_t size)
{
	add_op(p, CO_TMPFS, NULL, dst)->size = size;
}

void confine_symlink(struct confine_plan *p, const char *target,
		     const char *dst)
{
	add_op(p, CO_SYMLINK, target, dst);
}

void confine_hide(struct confine_plan *p, const char *path)
{
	char *real;

	if (!path || !*path)
		return;
	if (!strvec_contains(&p->hidden, path))
		strvec_push(&p->hidden, path);
	real = path_real(path);
	if (real && !strvec_contains(&p->hidden, real))
		strvec_push(&p->hidden, real);
	free(real);
}

/* ---- the parts of a profile ------------------------------------------- */

/* The system directories, read-only; merged-/usr links recreated. */
static void add_system(struct confine_plan *p)
{
	static const char *const dirs[] = {
		"/usr",	  "/bin",   "/sbin",   "/lib",
		"/lib32", "/lib64", "/libx32", "/etc",
	};

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char target[PATH_MAX];
		struct stat st;
		if (lstat(dirs[i], &st) != 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			ssize_t n =
				readlink(dirs[i], target, sizeof(target) - 1);
			if (n > 0) {
				target[n] = '\0';
				confine_symlink(p, target, dirs[i]);
			}
		} else if (S_ISDIR(st.st_mode)) {
			add_op(p, CO_RO_BIND, dirs[i], dirs[i])->dir = true;
		}
	}
}

/* Whether the plan's binds show path (resolved) already. */
static bool shown(const struct confine_plan *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++) {
		const struct confine_op *o = &p->ops[i];
		if ((o->kind == CO_RO_BIND || o->kind == CO_RW_BIND) &&
		    o->dir && !strcmp(o->src, o->dst) && under(path, o->src))
			return true;
	}
	return false;
}

/* Shows dir read-only at its own path unless the plan shows it already. */
static void add_ro_dir(struct confine_plan *p, const char *dir)
{
	char *real = dir && *dir == '/' ? path_real(dir) : NULL;

	if (real && dir_exists(real) && !shown(p, real) && strcmp(real, "/"))
		confine_bind(p, CO_RO_BIND, real, NULL);
	free(real);
}

/* Each directory of a colon-separated list, read-only. */
static void add_ro_list(struct confine_plan *p, const char *list)
{
	char *copy, *save = NULL;

	if (!list || !*list)
		return;
	copy = xstrdup(list);
	for (char *d = strtok_r(copy, ":", &save); d;
	     d = strtok_r(NULL, ":", &save))
		add_ro_dir(p, d);
	free(copy);
}

/* The install root of a program: /opt/rocm for /opt/rocm/bin/hipcc. */
static char *install_root(const char *prog)
{
	char *real = path_real(prog), *slash;

	if (!real)
		return NULL;
	for (int i = 0; i < 2 && (slash = strrchr(real, '/')); i++)
		*slash = '\0';
	if (!*real) {
		free(real);
		return NULL;
	}
	return real;
}

/* The directories of the shared libraries the dynamic loader knows
 * (ldconfig's cache), found once per process: a GPU runtime loads its
 * driver's libraries from wherever the machine installed them. */
static struct strvec lib_dirs = STRVEC_INIT;
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void find_lib_dirs(void)
{
	static const char *const ldconfig[] = { "/sbin/ldconfig",
						"/usr/sbin/ldconfig" };
	struct proc_result r;
	struct errbuf e;

	for (size_t i = 0; i < ARRAY_SIZE(ldconfig); i++) {
		char *argv[] = { (char *)ldconfig[i], (char *)"-p", NULL };
		if (access(ldconfig[i], X_OK) != 0)
			continue;
		errbuf_init(&e);
		if (proc_run_capture(argv, NULL, NULL, 20000, 4 << 20, &r,
				     &e) != 0)
			continue;
		for (char *l = r.output; l && *l;) {
			char *nl = strchr(l, '\n');
			char *arrow = strstr(l, "=> ");
			if (nl)
				*nl = '\0';
			if (arrow) {
				char *path = arrow + 3,
				     *slash = strrchr(path, '/');
				if (slash && slash != path) {
					*slash = '\0';
					if (!strvec_contains(&lib_dirs, path))
						strvec_push(&lib_dirs, path);
				}
			}
			l = nl ? nl + 1 : NULL;
		}
		proc_result_release(&r);
		break;
	}
}

/* The "device" of the test suite's fake GPU runtime
 * (engine/runner/gpu/gpu_rt_fake.h): the directory $ARENA_FAKE_GPU_DIR
 * holding the page its runners share, shown read-write like a device
 * node.  Only a directory directly under /dev/shm named arena-fake-gpu-*
 * is shown, so the variable cannot widen a view beyond such a page. */
static void add_fake_gpu(struct confine_plan *p)
{
	static const char prefix[] = "/dev/shm/arena-fake-gpu-";
	const char *dir = getenv("ARENA_FAKE_GPU_DIR");
	char *real = dir && *dir ? path_real(dir) : NULL;

	if (real && dir_exists(real) &&
	    strncmp(real, prefix, sizeof(prefix) - 1) == 0 &&
	    !strchr(real + sizeof(prefix) - 1, '/'))
		confine_bind(p, CO_RW_BIND, real, real);
	free(real);
}

/* Every NVIDIA node (nvidiaN, nvidiactl, nvidia-uvm, nvidia-caps/, the
 * IMEX channels of newer drivers, ...) and AMD's. */
static void add_gpu(struct confine_plan *p)
{
	static const char *const globs[] = { "/dev/nvidia*", "/dev/kfd",
					     "/dev/dri" };

	add_fake_gpu(p);

	for (size_t i = 0; i < ARRAY_SIZE(globs); i++) {
		glob_t g;
		if (glob(globs[i], 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			confine_bind(p, CO_DEV_BIND, g.gl_pathv[k],
				     g.gl_pathv[k]);
		globfree(&g);
	}
}

static pthread_mutex_t always_lock = PTHREAD_MUTEX_INITIALIZER;
static struct strvec always_hidden = STRVEC_INIT;

void confine_hide_always(const char *path)
{
	if (!path || path[0] != '/')
		return;
	pthread_mutex_lock(&always_lock);
	if (!strvec_contains(&always_hidden, path))
		strvec_push(&always_hidden, path);
	pthread_mutex_unlock(&always_lock);
}

/* The catalogue wherever arena keeps it, /etc's secrets, and what the
 * process was told to hide always. */
static void hide_defaults(struct confine_plan *p)
{
	static const char *const secrets[] = {
		"/etc/shadow",
		"/etc/shadow-",
		"/etc/gshadow",
		"/etc/gshadow-",
		"/etc/security/opasswd",
		"/etc/sudoers",
		"/etc/sudoers.d",
		"/etc/ssh",
		"/etc/ssl/private",
		"/usr/local/share/arena/tasks",
		"/usr/share/arena/tasks",
	};
	const char *exe = paths_exe_dir();

	for (size_t i = 0; i < ARRAY_SIZE(secrets); i++)
		confine_hide(p, secrets[i]);
	confine_hide(p, paths_tasks_root());
	confine_hide(p, getenv("ARENA_TASKS_DIR"));
	pthread_mutex_lock(&always_lock);
	for (size_t i = 0; i < always_hidden.n; i++)
		confine_hide(p, always_hidden.v[i]);
	pthread_mutex_unlock(&always_lock);
	if (exe) {
		char *inst = xasprintf("%s/../share/arena/tasks", exe);
		char *tree = xasprintf("%s/../tasks", exe);
		confine_hide(p, inst);
		confine_hide(p, tree);
		free(inst);
		free(tree);
	}
}

/* Whether a bind among the first n operations of p shows path. */
static bool bound(const struct confine_plan *p, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if ((p->ops[i].kind == CO_RO_BIND ||
		     p->ops[i].kind == CO_RW_BIND) &&
		    under(path, p->ops[i].src))
			return true;
	return false;
}

/* Masks over every hidden path that a bind of the plan would show, except
 * those inside another one (its mask covers them, and inside it they do
 * not exist to be masked). */
static void add_masks(struct confine_plan *p)
{
	size_t nbinds = p->n;

	for (size_t h = 0; h < p->hidden.n; h++) {
		const char *hp = p->hidden.v[h];
		struct stat st;
		bool covered = false;
		if (hp[0] != '/' || lstat(hp, &st) != 0 || S_ISLNK(st.st_mode))
			continue;
		for (size_t k = 0; k < p->hidden.n && !covered; k++) {
			const char *outer = p->hidden.v[k];
			struct stat ost;
			covered = strcmp(outer, hp) && under(hp, outer) &&
				  lstat(outer, &ost) == 0 &&
				  S_ISDIR(ost.st_mode) &&
				  bound(p, nbinds, outer);
		}
		if (covered)
			continue;
		for (size_t i = 0; i < nbinds; i++) {
			const struct confine_op *o = &p->ops[i];
			if ((o->kind != CO_RO_BIND && o->kind != CO_RW_BIND) ||
			    !under(hp, o->src))
				continue;
			char *inside =
				xasprintf("%s%s", o->dst, hp + strlen(o->src));
			bool dup = false;
			for (size_t k = nbinds; k < p->n; k++)
				dup |= !strcmp(p->ops[k].dst, inside);
			if (!dup)
				add_op(p, CO_MASK, NULL, inside)->dir =
					S_ISDIR(st.st_mode);
			free(inside);
		}
	}
}

char *confine_runner_inside(const char *runner)
{
	const char *slash = strrchr(runner, '/');

	return xasprintf("%s/%s", CONFINE_BIN_DIR, slash ? slash + 1 : runner);
}

void confine_plan_for(const struct confine_spec *s, struct confine_plan *p)
{
	bool agent = s->profile == CONFINE_AGENT;
	bool gpu = s->profile == CONFINE_GPU_RUNNER || agent;

	confine_plan_init(p);
	hide_defaults(p);
	for (size_t i = 0; s->hide && i < s->hide->n; i++)
		confine_hide(p, s->hide->v[i]);
	add_system(p);
	/* Before what the profile binds, which may lie under /tmp. */
	add_op(p, CO_DEVFS, NULL, "/dev");
	if (gpu)
		add_gpu(p);
	add_op(p, CO_PROC, NULL, "/proc");
	size_t agent_tmp = s->tmp_bytes ? s->tmp_bytes : 1ul << 30;
	confine_tmpfs(p, "/tmp",
		      s->profile == CONFINE_COMPILER ? 1ul << 30
		      : agent			     ? agent_tmp
						     : 16ul << 20);
	if (agent)
		confine_tmpfs(p, "/var/tmp", agent_tmp);

	switch (s->profile) {
	case CONFINE_COMPILER: {
		static const char *const env_dirs[] = {
			"CUDA_HOME",
			"CUDA_PATH",
			"ROCM_PATH",
			"HIP_PATH",
		};
		char *root = s->tool ? install_root(s->tool) : NULL;
		add_ro_dir(p, root);
		free(root);
		for (size_t i = 0; i < ARRAY_SIZE(env_dirs); i++)
			add_ro_dir(p, getenv(env_dirs[i]));
		add_ro_list(p, getenv("LD_LIBRARY_PATH"));
		for (size_t i = 0; s->ro && i < s->ro->n; i++)
			add_ro_dir(p, s->ro->v[i]);
		confine_bind(p, CO_RO_BIND, paths_include_dir(),
			     CONFINE_INCLUDE_DIR);
		break;
	}
	case CONFINE_GPU_RUNNER:
		pthread_once(&lib_once, find_lib_dirs);
		for (size_t i = 0; i < lib_dirs.n; i++)
			add_ro_dir(p, lib_dirs.v[i]);
		add_ro_list(p, getenv("LD_LIBRARY_PATH"));
		add_ro_dir(p, "/sys");
		/* fall through */
	case CONFINE_RUNNER:
		if (s->runner) {
			char *in = confine_runner_inside(s->runner);
			confine_bind(p, CO_RO_BIND, s->runner, in);
			free(in);
		}
		break;
	case CONFINE_AGENT: {
		/* The GPU toolchains an agent may build with (not the rest
		 * of /opt, where anything could be kept). */
		static const char *const tools[] = {
			"/opt/rocm",
			"/opt/nvidia",
			"/opt/cuda",
		};
		static const char *const tool_env[] = {
			"CUDA_HOME",
			"CUDA_PATH",
			"ROCM_PATH",
			"HIP_PATH",
		};
		static const char *const progs[] = { "nvcc", "hipcc" };
		for (size_t i = 0; i < ARRAY_SIZE(tools); i++)
			add_ro_dir(p, tools[i]);
		for (size_t i = 0; i < ARRAY_SIZE(tool_env); i++)
			add_ro_dir(p, getenv(tool_env[i]));
		for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
			char *prog = path_search(progs[i], NULL);
			char *root = prog ? install_root(prog) : NULL;
			add_ro_dir(p, root);
			free(root);
			free(prog);
		}
		add_ro_dir(p, "/sys");
		/* The libraries of what it runs from our side (arena itself,
		 * for `arena eval` and `arena mcp call`, and the toolchains)
		 * where the machine keeps them outside the system: the
		 * H200's staged libyaml and cJSON under /tmp/arena-deps,
		 * which the private /tmp above would hide. */
		add_ro_list(p, getenv("LD_LIBRARY_PATH"));
		/* The resolver's file may be a link into /run. */
		{
			char *rc = path_real("/etc/resolv.conf");
			if (rc && !shown(p, rc))
				confine_bind(p, CO_RO_BIND, rc, NULL);
			free(rc);
		}
		for (size_t i = 0; s->ro && i < s->ro->n; i++) {
			char *real = path_real(s->ro->v[i]);
			if (real && !shown(p, real))
				confine_bind(p, CO_RO_BIND, real, NULL);
			free(real);
		}
		break;
	}
	}

	add_masks(p);

	/* A compiler kept inside a hidden directory (a test's stand-in in
	 * its catalogue) is shown by itself, not with what is around it. */
	if (s->profile == CONFINE_COMPILER && s->tool) {
		char *real = path_real(s->tool);
		bool hidden = false;
		for (size_t i = 0; real && i < p->hidden.n; i++)
			hidden |= under(real, p->hidden.v[i]);
		if (hidden)
			confine_bind(p, CO_RO_BIND, real, NULL);
		free(real);
	}
	if (s->profile == CONFINE_COMPILER && s->scratch) {
		confine_bind(p, CO_RW_BIND, s->scratch, CONFINE_BUILD_DIR);
		p->cwd = xstrdup(CONFINE_BUILD_DIR);
	}
	if (agent) {
		for (size_t i = 0; s->rw && i < s->rw->n; i++)
			confine_bind(p, CO_RW_BIND, s->rw->v[i], s->rw->v[i]);
		if (s->workspace) {
			/* At the path the agent was given, even when that is
			 * a link or a mount's view of the real one. */
			add_op(p, CO_RW_BIND, s->workspace, s->workspace)->dir =
				true;
			p->cwd = xstrdup(s->workspace);
		}
		p->share_net = true;
	}
}

/* ---- bubblewrap -------------------------------------------------------- */

static void push2(struct strvec *out, const char *op, const char *a,
		  const char *b)
{
	strvec_push(out, op);
	strvec_push(out, a);
	if (b)
		strvec_push(out, b);
}

void confine_bwrap_argv(const struct confine_plan *p, struct strvec *out)
{
	strvec_push(out, "--unshare-pid");
	strvec_push(out, "--unshare-ipc");
	strvec_push(out, "--unshare-uts");
	strvec_push(out, "--unshare-cgroup-try");
	if (!p->share_net)
		strvec_push(out, "--unshare-net");
	for (size_t i = 0; i < p->n; i++) {
		const struct confine_op *o = &p->ops[i];
		switch (o->kind) {
		case CO_RO_BIND:
			push2(out, "--ro-bind", o->src, o->dst);
			break;
		case CO_RW_BIND:
			push2(out, "--bind", o->src, o->dst);
			break;
		case CO_DEV_BIND:
			push2(out, "--dev-bind", o->src, o->dst);
			break;
		case CO_TMPFS:
			if (o->size) {
				strvec_push(out, "--size");
				strvec_pushf(out, "%zu", o->size);
			}
			push2(out, "--tmpfs", o->dst, NULL);
			break;
		case CO_MASK:
			if (o->dir) {
				strvec_push(out, "--size");
				strvec_push(out, "65536");
				push2(out, "--tmpfs", o->dst, NULL);
				push2(out, "--remount-ro", o->dst, NULL);
			} else {
				push2(out, "--ro-bind", "/dev/null", o->dst);
			}
			break;
		case CO_SYMLINK:
			push2(out, "--symlink", o->src, o->dst);
			break;
		case CO_DEVFS:
			push2(out, "--dev", o->dst, NULL);
			break;
		case CO_PROC:
			push2(out, "--proc", o->dst, NULL);
			break;
		}
	}
	if (p->cwd)
		push2(out, "--chdir", p->cwd, NULL);
}

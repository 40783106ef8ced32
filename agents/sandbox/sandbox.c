/*
 * sandbox.c - see sandbox.h.
 *
 * Why a probe: bubblewrap may be installed yet unusable (unprivileged user
 * namespaces disabled, seccomp profiles of a container, no /proc).  The
 * probe runs the same options the agent will get, around /bin/true, once
 * per process; a failure is reported in words and the launcher records
 * sandboxed = false (or refuses, with `sandbox: on`).
 */
#include "sandbox.h"

#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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
	strvec_push(out, "--ro-bind");
	strvec_push(out, "/");
	strvec_push(out, "/");
	strvec_push(out, "--dev");
	strvec_push(out, "/dev");
	strvec_push(out, "--proc");
	strvec_push(out, "/proc");
	strvec_push(out, "--tmpfs");
	strvec_push(out, "/tmp");
}

static void probe(void)
{
	struct strvec argv = STRVEC_INIT;
	struct proc_result r;
	struct errbuf err;

	memset(&r, 0, sizeof(r));
	snprintf(bwrap_path, sizeof(bwrap_path), "%s", sandbox_bwrap_path());
	strvec_push(&argv, bwrap_path);
	base_options(&argv);
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

static void push3(struct strvec *out, const char *op, const char *a,
		  const char *b)
{
	strvec_push(out, op);
	strvec_push(out, a);
	if (b)
		strvec_push(out, b);
}

void sandbox_argv(const struct sandbox_spec *s, struct strvec *out)
{
	static const char *const gpu_globs[] = {
		"/dev/nvidia*", "/dev/kfd", "/dev/dri",
	};

	strvec_push(out, sandbox_bwrap_path());
	base_options(out);
	if (!s->share_net)
		strvec_push(out, "--unshare-net");
	/* GPU device nodes: --dev gives a minimal /dev without them. */
	for (size_t i = 0; i < ARRAY_SIZE(gpu_globs); i++) {
		glob_t g;
		if (glob(gpu_globs[i], 0, NULL, &g) != 0)
			continue;
		for (size_t k = 0; k < g.gl_pathc; k++)
			push3(out, "--dev-bind-try", g.gl_pathv[k],
			      g.gl_pathv[k]);
		globfree(&g);
	}
	/* 1. hidden directories that the exposures below may re-open (the
	 *    caller's HOME), 2. exposures, 3. hidden roots that must win over
	 *    the exposures (store, tasks), 4. writable binds.  hide[] is
	 *    applied in both 1 and 3 according to whether an exposure lies
	 *    inside it. */
	for (size_t i = 0; i < s->hide.n; i++) {
		bool reopened = false;
		for (size_t k = 0; k < s->expose_ro.n; k++)
			if (path_is_under(s->expose_ro.v[k], s->hide.v[i]))
				reopened = true;
		if (reopened)
			push3(out, "--tmpfs", s->hide.v[i], NULL);
	}
	for (size_t k = 0; k < s->expose_ro.n; k++)
		push3(out, "--ro-bind-try", s->expose_ro.v[k],
		      s->expose_ro.v[k]);
	for (size_t i = 0; i < s->hide.n; i++) {
		bool reopened = false;
		for (size_t k = 0; k < s->expose_ro.n; k++)
			if (path_is_under(s->expose_ro.v[k], s->hide.v[i]))
				reopened = true;
		if (!reopened)
			push3(out, "--tmpfs", s->hide.v[i], NULL);
	}
	for (size_t i = 0; i < s->bind_rw.n; i++)
		push3(out, "--bind", s->bind_rw.v[i], s->bind_rw.v[i]);
	push3(out, "--bind", s->workspace, s->workspace);
	push3(out, "--chdir", s->workspace, NULL);
	strvec_push(out, "--");
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

/*
 * command.c - the `command` agent: any executable, run in the workspace.
 *
 * This is how custom agents plug in without C: the run config gives an argv
 * (agent.command: [python3, my_agent.py, --fast]); the program gets the
 * prompt on stdin and in $ARENA_PROMPT_FILE, plus $ARENA_WORKSPACE,
 * $ARENA_TASK_ID and $ARENA_EVAL_SOCKET (`arena mcp call evaluate`
 * evaluates the workspace through the launch's evaluation bridge), never
 * the task package's path: the reference and the held-out cases live
 * there.  Exit status 0 is "completed", anything else "failed".
 *
 * The program is confined like the agent CLIs (DESIGN.md §3.8, §3.11):
 *   - `options.sandbox` auto (default: bubblewrap when it works here), on
 *     (refuse to start without it) or off; inside, it sees the agent
 *     profile of arena/confine.h - the system, its workspace, a private
 *     HOME and /tmp, its own program and the files its argv names, and
 *     `options.expose` (colon-separated paths, read-only) - and nothing
 *     of the store, the catalogue or other runs;
 *   - sandbox or not, it runs under a holder (proc_spec.contain): when it
 *     exits, at its deadline, or when its run is cancelled, every process
 *     it started is killed, setsid daemons included, before the workspace
 *     is evaluated (a cancelled agent's is not: it runs again on resume);
 *   - agent.disk_quota_mb caps its files and its workspace (stopped with a
 *     clear error when over, files other than the editable ones removed),
 *     agent.memory_mb each process's memory.
 *
 * What it did is traced like any agent (logs/trace.jsonl, bridge/trace.h):
 * an episode_start with its argv, model and prompt, the tail of its output,
 * and the outcome with its exit status; `arena export` adds the diff of
 * the workspace against the baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agents.h"
#include "arena/paths.h"
#include "arena/proc.h"
#include "bridge/eval_bridge.h"
#include "bridge/trace.h"
#include "sandbox/sandbox.h"
#include "sandbox/scratch.h"

#define COMMAND_OUTPUT_TAIL (16 * 1024) /* bytes of its log traced */

enum { SB_AUTO, SB_ON, SB_OFF };

struct command_settings {
	int sandbox;
	struct strvec expose;
};

static void settings_release(struct command_settings *s)
{
	strvec_release(&s->expose);
}

static int settings_load(const struct agent_config *c,
			 struct command_settings *s, struct errbuf *err)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->expose);
	for (size_t i = 0; i < c->options.n; i++) {
		const char *kv = c->options.v[i], *eq = strchr(kv, '=');
		size_t kl = eq ? (size_t)(eq - kv) : strlen(kv);
		const char *v = eq ? eq + 1 : "";
		if (kl == 7 && !strncmp(kv, "sandbox", 7)) {
			if (!strcmp(v, "auto"))
				s->sandbox = SB_AUTO;
			else if (!strcmp(v, "on") || !strcmp(v, "true"))
				s->sandbox = SB_ON;
			else if (!strcmp(v, "off") || !strcmp(v, "false"))
				s->sandbox = SB_OFF;
			else
				return errf(err,
					    "agent.options.sandbox must be "
					    "auto, on or off, not '%.40s'",
					    v);
		} else if (kl == 6 && !strncmp(kv, "expose", 6)) {
			char *copy = xstrdup(v), *save = NULL;
			for (char *p = strtok_r(copy, ":", &save); p;
			     p = strtok_r(NULL, ":", &save)) {
				if (p[0] != '/') {
					free(copy);
					return errf(
						err,
						"agent.options.expose: "
						"'%.200s' is not an absolute "
						"path",
						p);
				}
				strvec_push(&s->expose, p);
			}
			free(copy);
		} else {
			return errf(err,
				    "agent.options.%.*s is not an option "
				    "of the command agent; it knows sandbox "
				    "(auto, on, off) and expose (paths)",
				    (int)(kl > 60 ? 60 : kl), kv);
		}
	}
	return 0;
}

static int command_validate(const struct agent_config *c, struct errbuf *err)
{
	struct command_settings s;
	int rc;

	if (c->command.n == 0)
		return errf(err, "the command agent needs agent.command, the "
			    "program to run as a list, e.g. [python3, "
			    "agent.py]");
	rc = settings_load(c, &s, err);
	settings_release(&s);
	return rc;
}

/* What the program needs to see besides the system: the program itself,
 * the files its arguments name, the prompt, the arena binary (for `arena
 * mcp call`), and what options.expose lists. */
static void sandbox_for(const struct agent_launch *l,
			const struct command_settings *set, const char *scratch,
			struct sandbox_spec *sb)
{
	const struct strvec *argv = &l->config->command;
	char *prog = strchr(argv->v[0], '/') ? path_real(argv->v[0])
					     : path_search(argv->v[0], NULL);
	char *self = paths_self();

	sandbox_spec_init(sb);
	sb->workspace = l->workspace;
	if (prog)
		strvec_push(&sb->expose_ro, prog);
	for (size_t i = 1; i < argv->n; i++)
		if (argv->v[i][0] == '/' && access(argv->v[i], F_OK) == 0)
			strvec_push(&sb->expose_ro, argv->v[i]);
	strvec_push(&sb->expose_ro, l->prompt_file);
	if (self)
		strvec_push(&sb->expose_ro, self);
	for (size_t i = 0; i < set->expose.n; i++)
		strvec_push(&sb->expose_ro, set->expose.v[i]);
	strvec_push(&sb->bind_rw, scratch);
	if (l->store_dir)
		strvec_push(&sb->hide, l->store_dir);
	if (l->tasks_root)
		strvec_push(&sb->hide, l->tasks_root);
	sandbox_hide_arena_mounts(sb);
	sb->tmp_bytes = (size_t)(l->config->disk_quota_mb > 0
					 ? l->config->disk_quota_mb
					 : AGENT_DEFAULT_DISK_QUOTA_MB)
			<< 20;
	free(prog);
	free(self);
}

static void trace_start(struct trace *tr, const struct agent_launch *l,
			const struct strvec *argv, bool sandboxed,
			const char *why)
{
	cJSON *ev = cJSON_CreateObject(), *a = cJSON_CreateArray();
	unsigned char id[16];
	char hex[33];

	random_bytes(id, sizeof(id));
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	cJSON_AddStringToObject(ev, "episode", hex);
	cJSON_AddStringToObject(ev, "agent", "command");
	if (l->config->model)
		cJSON_AddStringToObject(ev, "model", l->config->model);
	cJSON_AddStringToObject(ev, "task_id", l->task->id);
	cJSON_AddStringToObject(ev, "workspace", l->workspace);
	cJSON_AddBoolToObject(ev, "sandboxed", sandboxed);
	if (why)
		cJSON_AddStringToObject(ev, "sandbox_unavailable", why);
	for (size_t i = 0; i < argv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv->v[i]));
	cJSON_AddItemToObject(ev, "argv", a);
	cJSON_AddNumberToObject(ev, "timeout_s", l->timeout_s);
	cJSON_AddStringToObject(ev, "prompt", l->prompt ? l->prompt : "");
	trace_emit(tr, "episode_start", ev);
}

/* The last COMMAND_OUTPUT_TAIL bytes of what it printed (stdout and
 * stderr both go to logs/agent.log). */
static void trace_output(struct trace *tr, const char *log)
{
	char *text = NULL;
	size_t len = 0;

	if (file_read_all(log, (size_t)64 << 20, &text, &len, NULL) != 0)
		return;
	const char *from = len > COMMAND_OUTPUT_TAIL
				   ? text + len - COMMAND_OUTPUT_TAIL
				   : text;
	char *clean = result_utf8_sanitize(from);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "stream", "logs/agent.log");
	cJSON_AddBoolToObject(o, "truncated", from != text);
	cJSON_AddStringToObject(o, "text", clean);
	trace_emit(tr, "output", o);
	free(clean);
	free(text);
}

static void trace_end(struct trace *tr, const struct agent_outcome *o,
		      const struct proc_spawn_result *res)
{
	cJSON *ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "status", o->status);
	if (o->error)
		cJSON_AddStringToObject(ev, "error", o->error);
	cJSON_AddNumberToObject(ev, "duration_s", o->duration_s);
	cJSON_AddBoolToObject(ev, "sandboxed", o->sandboxed);
	if (o->contained)
		cJSON_AddStringToObject(ev, "contained", o->contained);
	cJSON_AddNumberToObject(ev, "leftover_processes_killed", o->leftovers);
	if (WIFEXITED(res->status))
		cJSON_AddNumberToObject(ev, "exit", WEXITSTATUS(res->status));
	else if (WIFSIGNALED(res->status))
		cJSON_AddNumberToObject(ev, "signal", WTERMSIG(res->status));
	cJSON_AddBoolToObject(ev, "timed_out", res->timed_out);
	trace_emit(tr, "outcome", ev);
}

static int command_launch(const struct agent_launch *l,
			  struct agent_outcome *out, struct errbuf *err)
{
	struct command_settings set;
	struct strvec env = STRVEC_INIT, argv = STRVEC_INIT;
	struct proc_spawn_result res;
	struct eval_bridge *bridge = NULL;
	struct trace *tr = NULL;
	char *log = path_join(l->log_dir, "agent.log");
	char *trace_path = path_join(l->log_dir, "trace.jsonl");
	struct agent_scratch sc = AGENT_SCRATCH_INIT;
	char *home = NULL, *sock = NULL;
	const char *why = NULL;
	bool sandboxed = false;
	int rc;

	if ((rc = settings_load(l->config, &set, err)))
		goto out;
	if (set.sandbox != SB_OFF)
		sandboxed = sandbox_available(&why);
	if (set.sandbox == SB_ON && !sandboxed) {
		rc = errf_code(err, EPERM, "command: sandbox: on, but %s", why);
		goto out;
	}
	if ((rc = agent_scratch_make(&sc, err)))
		goto out;
	home = path_join(sc.path, "home");
	sock = path_join(sc.path, "eval.sock");
	if ((rc = mkdir_p(home, err)) ||
	    (rc = trace_open(trace_path, &tr, err)) ||
	    (rc = eval_bridge_start(l, tr, sock, &bridge, err)))
		goto out;

	strvec_pushf(&env, "ARENA_WORKSPACE=%s", l->workspace);
	strvec_pushf(&env, "ARENA_TASK_ID=%s", l->task->id);
	strvec_pushf(&env, "ARENA_PROMPT_FILE=%s", l->prompt_file);
	strvec_pushf(&env, "ARENA_EVAL_SOCKET=%s", sock);
	if (l->config->model)
		strvec_pushf(&env, "ARENA_MODEL=%s", l->config->model);
	if (l->config->max_iterations > 0)
		strvec_pushf(&env, "ARENA_MAX_ITERATIONS=%d",
			     l->config->max_iterations);
	if (sandboxed) {
		/* Our environment without arena's own variables (they name
		 * the store and the catalogue); its HOME and /tmp are its
		 * own; arena is first on PATH. */
		extern char **environ;
		const char *path = getenv("PATH");
		const char *exe = paths_exe_dir();
		for (char **e = environ; e && *e; e++)
			if (strncmp(*e, "ARENA_", 6) &&
			    strncmp(*e, "HOME=", 5) &&
			    strncmp(*e, "TMPDIR=", 7) &&
			    strncmp(*e, "PATH=", 5))
				strvec_push(&env, *e);
		strvec_pushf(&env, "HOME=%s", home);
		strvec_push(&env, "TMPDIR=/tmp");
		strvec_pushf(&env, "PATH=%s%s%s", exe ? exe : "",
			     exe ? ":" : "", path ? path : "/usr/bin:/bin");
		struct sandbox_spec sb;
		sandbox_for(l, &set, sc.path, &sb);
		sandbox_argv(&sb, &argv);
		sandbox_spec_release(&sb);
	}
	for (size_t i = 0; i < l->config->command.n; i++)
		strvec_push(&argv, l->config->command.v[i]);
	trace_start(tr, l, &l->config->command, sandboxed,
		    set.sandbox == SB_AUTO ? why : NULL);

	struct sandbox_limits lim = {
		.workspace = l->workspace_real ? l->workspace_real
					       : l->workspace,
		.scratch = sc.path,
		.disk_bytes = (uint64_t)(l->config->disk_quota_mb > 0
						 ? l->config->disk_quota_mb
						 : AGENT_DEFAULT_DISK_QUOTA_MB)
			      << 20,
		.memory_bytes = (uint64_t)(l->config->memory_mb > 0
						   ? l->config->memory_mb
						   : AGENT_DEFAULT_MEMORY_MB)
				<< 20,
		.cancelled = l->cancelled,
		.cancelled_ctx = l->cancelled_ctx,
	};
	struct proc_limits plim;
	sandbox_proc_limits(&lim, &plim);
	struct proc_spec spec = {
		.argv = argv.v,
		.cwd = l->workspace,
		.stdin_path = l->prompt_file,
		.log_path = log,
		.env_add = &env,
		.env_replace = sandboxed,
		.timeout_s = l->timeout_s,
		.contain = true,
		.limits = &plim,
		.on_tick = sandbox_launch_tick,
		.on_tick_ctx = &lim,
	};
	rc = proc_spawn(&spec, &res, err);
	/* Its processes are gone: no evaluation can be asked for any more;
	 * one in progress is waited for. */
	eval_bridge_stop_accepting(bridge);
	if (rc)
		goto out;
	trace_output(tr, log);
	out->duration_s = res.seconds;
	out->sandboxed = sandboxed;
	out->contained = res.contained == PROC_CONTAINED_NS ? "pid_namespace"
			 : res.contained == PROC_CONTAINED_SUBREAPER
				 ? "subreaper"
				 : NULL;
	out->leftovers = res.leftovers;
	if (res.stopped && lim.was_cancelled) {
		out->status = xstrdup("cancelled");
		out->error = xstrdup(res.stop_reason);
	} else if (res.stopped) {
		sandbox_quota_clean(lim.workspace, &l->task->editable);
		out->status = xstrdup("failed");
		out->error = xstrdup(res.stop_reason);
	} else if (res.timed_out) {
		out->status = xstrdup("timeout");
		out->error = xasprintf("deadline of %.0f s reached; every "
				       "process it started was killed",
				       l->timeout_s);
	} else if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0) {
		out->status = xstrdup("completed");
	} else {
		char st[128];
		proc_describe_status(res.status, st, sizeof(st));
		out->status = xstrdup("failed");
		if (WIFSIGNALED(res.status) &&
		    (WTERMSIG(res.status) == SIGXFSZ))
			out->error = xasprintf(
				"%s %s: it wrote a file larger "
				"than its disk quota of %llu MiB "
				"(agent.disk_quota_mb)",
				l->config->command.v[0], st,
				(unsigned long long)(lim.disk_bytes >> 20));
		else
			out->error =
				xasprintf("%s %s", l->config->command.v[0], st);
	}
	/* A file written up to the quota and stopped there still counts. */
	if (!res.stopped && sandbox_quota_tick(&lim)) {
		sandbox_quota_clean(lim.workspace, &l->task->editable);
		free(out->status);
		free(out->error);
		out->status = xstrdup("failed");
		out->error = xstrdup(lim.why);
	}
	trace_end(tr, out, &res);
out:
	if (bridge)
		eval_bridge_stop(bridge);
	trace_close(tr);
	agent_scratch_remove(&sc);
	free(home);
	free(sock);
	free(log);
	free(trace_path);
	strvec_release(&env);
	strvec_release(&argv);
	settings_release(&set);
	return rc;
}

const struct agent_ops agent_command = {
	.name = "command",
	.summary = "runs any executable in the workspace (agent.command), "
		   "sandboxed, its processes ending with it",
	.validate = command_validate,
	.launch = command_launch,
};

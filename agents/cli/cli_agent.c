/*
 * cli_agent.c - see cli_agent.h: launching an agent CLI (settings are
 * cli_settings.c, reading its output cli_output.c; cli_internal.h).
 *
 * One launch, in order:
 *   1. settings: agents/<name>/agent_config.yaml, then the run's agent
 *      section (model, effort, max_iterations, timeout_seconds,
 *      max_budget_usd, options) on top; validated like the run config;
 *   2. the CLI binary ($ARENA_<CLI>_BIN, PATH, the install prefixes);
 *   3. the sandbox decision (option sandbox: auto | on | off);
 *   4. a scratch directory /tmp/arena-agent-XXXXXX (0700): home/ (a
 *      private HOME with copies of the CLI's auth files only) and
 *      eval.sock (the evaluation bridge); removed at the end, or by a
 *      later launch's sweep when this one is killed (sandbox/scratch.h);
 *   5. the prompt: persona (agents/prompts/<family>.md), the engine's
 *      prompt (TASK.md + iteration guidance), how to evaluate in this
 *      setting, the device, the budget, a per-task addendum
 *      (agents/prompts/tasks/<task id>.md); written to
 *      logs/agent_prompt.txt and given on stdin;
 *   6. the environment, built from nothing: PATH, HOME, locale, the CLI's
 *      auth and endpoint variables, proxies, LD_LIBRARY_PATH, ARENA_*;
 *   7. spawn (own process group, deadline, SIGTERM then SIGKILL), stdout
 *      parsed line by line as it arrives into the trace and the outcome,
 *      and kept raw in logs/agent_stdout.jsonl; stderr in logs/agent.log;
 *   8. classification: timeout; exit status; the CLI's own error events
 *      (an is_error result with exit 0, turn.failed, no final result).
 */
#include "cli_internal.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/sandbox.h"
#define CLI_PROMPT_PART_MAX (256 * 1024)
const struct cli_agent *const cli_agents_all[] = {
	&cli_claude_code, &cli_codex, &cli_cursor, &cli_gemini, &cli_deepseek,
	NULL,
};

const struct cli_agent *cli_agent_find(const char *name)
{
	const struct agent_ops *ops = agent_find(name);

	for (int i = 0; cli_agents_all[i]; i++)
		if (!strcmp(cli_agents_all[i]->name, name) ||
		    (ops && !strcmp(cli_agents_all[i]->name, ops->name)))
			return cli_agents_all[i];
	return NULL;
}


/* ---- preparation ---------------------------------------------------- */

/* <root> of a log_dir <root>/runs/<run>/tasks/<dir>/logs, or NULL when
 * the path has another shape (a launcher driven by a test). */
static char *store_root_of(const char *log_dir)
{
	char *p = path_real(log_dir);
	char *parts[5];

	if (!p)
		return NULL;
	for (int i = 0; i < 5; i++) {
		char *slash = strrchr(p, '/');
		if (!slash || slash == p) {
			free(p);
			return NULL;
		}
		parts[i] = slash + 1;
		*slash = '\0';
	}
	/* parts: logs, <dir>, tasks, <run>, runs */
	if (strcmp(parts[0], "logs") || strcmp(parts[2], "tasks") ||
	    strcmp(parts[4], "runs")) {
		free(p);
		return NULL;
	}
	return p;
}

/* The tasks root: task->dir without its trailing "/<id>". */
static char *tasks_root_of(const struct task *t)
{
	size_t dl = strlen(t->dir), il = strlen(t->id);

	if (dl > il + 1 && !strcmp(t->dir + dl - il, t->id) &&
	    t->dir[dl - il - 1] == '/')
		return xstrndup(t->dir, dl - il - 1);
	return xstrdup(t->dir);
}

/* The install prefix of a node CLI (the directory holding node_modules),
 * or the binary's own directory. */
static char *install_root_of(const char *bin)
{
	char *nm = strstr(bin, "/node_modules/");

	if (nm)
		return xstrndup(bin, (size_t)(nm - bin));
	char *d = xstrdup(bin);
	char *slash = strrchr(d, '/');
	if (slash && slash != d)
		*slash = '\0';
	return d;
}

static int copy_auth(struct cli_run *r, struct errbuf *err)
{
	const char *home = cli_real_home();

	for (int i = 0; r->agent->auth_files && r->agent->auth_files[i]; i++) {
		const char *rel = r->agent->auth_files[i];
		char *src = path_join(home, rel);
		char *dst = path_join(r->home, rel);
		int rc = 0;
		if (file_exists(src)) {
			char *parent = xstrdup(dst);
			*strrchr(parent, '/') = '\0';
			rc = mkdir_p(parent, err);
			if (!rc)
				rc = file_copy(src, dst, err);
			if (!rc)
				chmod(dst, 0600);
			free(parent);
		}
		free(src);
		free(dst);
		if (rc)
			return rc;
	}
	return 0;
}

static char *read_prompt_part(const char *path)
{
	char *text = NULL;

	if (file_read_all(path, CLI_PROMPT_PART_MAX, &text, NULL, NULL) != 0)
		return NULL;
	return text;
}

static void add_part(struct strbuf *sb, const char *text)
{
	if (!text || !*text)
		return;
	strbuf_addstr(sb, text);
	if (sb->buf[sb->len - 1] != '\n')
		strbuf_addch(sb, '\n');
	strbuf_addch(sb, '\n');
}

static void device_facts(struct strbuf *sb, const struct task *t)
{
	if (t->language == LANG_C || t->language == LANG_PYTHON) {
		char *info = NULL, *model = NULL;
		if (file_read_all("/proc/cpuinfo", 1 << 20, &info, NULL,
				  NULL) == 0) {
			char *m = strstr(info, "model name");
			char *colon = m ? strchr(m, ':') : NULL;
			if (colon) {
				colon += 2;
				model = xstrndup(colon, strcspn(colon, "\n"));
			}
		}
		strbuf_addf(sb, "- Device: the host CPU (%s, %ld cores "
			    "online); the evaluator runs your kernel "
			    "single-threaded and flushes the last-level cache "
			    "before every timed sample.\n",
			    model ? model : "unknown model",
			    sysconf(_SC_NPROCESSORS_ONLN));
		free(model);
		free(info);
	} else {
		strbuf_addf(sb, "- Device: a GPU (%s task); the evaluator "
			    "builds with the platform compiler and flushes the "
			    "L2 cache before every timed sample.\n",
			    language_name(t->language));
	}
}

static void build_prompt(struct cli_run *r)
{
	const struct agent_launch *l = r->l;
	const char *dir = cli_agents_dir();
	struct strbuf sb = STRBUF_INIT;
	char *p, *text;

	if (!r->set.persona || strcmp(r->set.persona, "none")) {
		if (!r->set.persona || !strcmp(r->set.persona, "auto"))
			p = xasprintf("%s/prompts/%s.md", dir, l->task->family);
		else
			p = xasprintf("%s/prompts/%s", dir, r->set.persona);
		text = read_prompt_part(p);
		if (!text && (!r->set.persona ||
			      !strcmp(r->set.persona, "auto"))) {
			free(p);
			p = xasprintf("%s/prompts/default.md", dir);
			text = read_prompt_part(p);
		}
		add_part(&sb, text);
		free(text);
		free(p);
	}
	add_part(&sb, l->prompt);
	strbuf_addf(&sb, "## Working in arena\n\n");
	if (r->set.mcp)
		strbuf_addstr(&sb, "- Evaluate with the `evaluate` tool of the "
			      "`arena` MCP server (pass quick: true for a "
			      "faster, rougher timing); `show_task` repeats the "
			      "task, `last_result` shows the last verdict. ");
	else
		strbuf_addstr(&sb, "- Evaluate by running `arena mcp call "
			      "evaluate` in the workspace (add `--quick` for a "
			      "faster, rougher timing); it prints the verdict "
			      "and task_result.yaml and exits 0 only when the "
			      "kernel is correct. ");
	strbuf_addstr(&sb, "Evaluations run in arena's trusted evaluator, "
		      "outside your environment: they see the workspace as "
		      "it is at that moment.\n");
	if (r->sandboxed)
		strbuf_addstr(&sb, "- You work in a sandbox: only this "
			      "workspace and /tmp are writable; the task "
			      "package, the reference and the held-out cases "
			      "are not visible.\n");
	device_facts(&sb, l->task);
	strbuf_addf(&sb, "- Budget: %d minutes of wall-clock time in all, "
		    "then you are stopped; up to %d improvement iterations.",
		    (int)(l->timeout_s > 0 ? l->timeout_s / 60
					   : r->set.timeout_seconds / 60),
		    r->set.max_iterations > 0 ? r->set.max_iterations : 3);
	if (r->set.max_budget_usd > 0)
		strbuf_addf(&sb, " Spend cap: %.2f USD.", r->set.max_budget_usd);
	strbuf_addstr(&sb, "\n- Whatever happens, the workspace as you leave "
		      "it is evaluated at the end, with held-out cases.\n\n");
	p = xasprintf("%s/prompts/tasks/%s.md", dir, l->task->id);
	text = read_prompt_part(p);
	if (text) {
		strbuf_addstr(&sb, "## Notes for this task\n\n");
		add_part(&sb, text);
	}
	free(text);
	free(p);
	r->prompt = strbuf_detach(&sb);
}

static void push_env(struct strvec *env, const char *name)
{
	const char *v = getenv(name);
	size_t n = strlen(name);

	if (!v)
		return;
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return;	/* already set by us */
	strvec_pushf(env, "%s=%s", name, v);
}

static void build_env(struct cli_run *r, struct strvec *env)
{
	static const char *const common[] = {
		"LANG", "LC_ALL", "TZ", "USER", "LOGNAME", "http_proxy",
		"https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY",
		"NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
		"NODE_EXTRA_CA_CERTS", "CUDA_VISIBLE_DEVICES",
		"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
		/* Where arena's own libraries may be (the sandbox shows
		 * its directories): `arena mcp call` runs inside. */
		"LD_LIBRARY_PATH",
	};
	const char *path = getenv("PATH");
	char *exe_dir = xstrdup(r->arena_exe), *bin_dir = xstrdup(r->bin);

	*strrchr(exe_dir, '/') = '\0';
	*strrchr(bin_dir, '/') = '\0';
	strvec_pushf(env, "PATH=%s:%s:%s", exe_dir, bin_dir,
		     path ? path : "/usr/local/bin:/usr/bin:/bin");
	free(exe_dir);
	free(bin_dir);
	strvec_pushf(env, "HOME=%s", r->home);
	strvec_push(env, "TMPDIR=/tmp");
	strvec_push(env, "TERM=dumb");
	strvec_push(env, "NO_COLOR=1");
	if (!getenv("LANG"))
		strvec_push(env, "LANG=C.UTF-8");
	strvec_pushf(env, "ARENA_AGENT=%s", r->agent->name);
	strvec_pushf(env, "ARENA_WORKSPACE=%s", r->l->workspace);
	strvec_pushf(env, "ARENA_TASK_ID=%s", r->l->task->id);
	strvec_pushf(env, "ARENA_EVAL_SOCKET=%s", r->socket_path);
	if (r->set.model)
		strvec_pushf(env, "ARENA_MODEL=%s", r->set.model);
	if (r->sandboxed) {
		strvec_push(env, "IS_SANDBOX=1");
	} else {
		/* Outside the sandbox `arena eval` (TASK.md) works too. */
		char *store = store_root_of(r->l->log_dir);
		char *tasks = tasks_root_of(r->l->task);
		if (store)
			strvec_pushf(env, "ARENA_STORE=%s", store);
		strvec_pushf(env, "ARENA_TASKS_DIR=%s", tasks);
		free(store);
		free(tasks);
	}
	if (r->agent->build_env)
		r->agent->build_env(r, env);
	for (size_t i = 0; i < ARRAY_SIZE(common); i++)
		push_env(env, common[i]);
	for (int i = 0; r->agent->auth_env && r->agent->auth_env[i]; i++)
		push_env(env, r->agent->auth_env[i]);
	for (int i = 0; r->agent->pass_env && r->agent->pass_env[i]; i++)
		push_env(env, r->agent->pass_env[i]);
	for (size_t i = 0; i < r->set.env_pass.n; i++)
		push_env(env, r->set.env_pass.v[i]);
}

/* Login shells (Codex runs commands with `bash -lc`) reset PATH from
 * /etc/profile; the private HOME's .profile puts ours back, so `arena`
 * stays reachable from the agent's shell. */
static int write_profile(struct cli_run *r, const struct strvec *env,
			 struct errbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(r->home, ".profile");
	int rc;

	strbuf_addstr(&sb, "# Written by arena for this launch.\n");
	for (size_t i = 0; i < env->n; i++) {
		if (!str_starts_with(env->v[i], "PATH="))
			continue;
		strbuf_addstr(&sb, "PATH='");
		for (const char *c = env->v[i] + 5; *c; c++) {
			if (*c == '\'')
				strbuf_addstr(&sb, "'\\''");
			else
				strbuf_addch(&sb, *c);
		}
		strbuf_addstr(&sb, "'\nexport PATH\n");
	}
	rc = file_write_atomic_str(path, sb.buf, err);
	strbuf_release(&sb);
	free(path);
	return rc;
}

static void sandbox_spec_for(struct cli_run *r, struct sandbox_spec *s)
{
	char *store = store_root_of(r->l->log_dir);
	char *tasks = tasks_root_of(r->l->task);
	char *home = path_real(cli_real_home());

	sandbox_spec_init(s);
	s->workspace = r->l->workspace;
	if (home && strcmp(home, "/"))
		strvec_push(&s->hide, home);
	if (store) {
		strvec_push(&s->hide, store);
	} else {
		/* Not a run's layout: hide the attempt directory at least
		 * (its baseline and logs). */
		char *logs = path_real(r->l->log_dir);
		if (logs) {
			*strrchr(logs, '/') = '\0';
			strvec_push(&s->hide, logs);
		}
		free(logs);
	}
	strvec_push(&s->hide, tasks);
	sandbox_hide_arena_mounts(s);
	/* What it runs: the CLI's install root, the node that runs it (a
	 * nvm or /opt install is outside the system directories), and the
	 * arena binary itself (`arena mcp`), not the tree around it. */
	char *node = path_search("node", NULL);
	char *roots[] = { install_root_of(r->bin),
			  node ? install_root_of(node) : NULL };
	if (roots[1]) {
		/* /x/bin/node: its root is /x */
		char *slash = strrchr(roots[1], '/');
		if (slash && !strcmp(slash, "/bin") && slash != roots[1])
			*slash = '\0';
	}
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		if (roots[i] && strcmp(roots[i], "/"))
			strvec_push(&s->expose_ro, roots[i]);
		free(roots[i]);
	}
	free(node);
	strvec_push(&s->expose_ro, r->arena_exe);
	strvec_push(&s->bind_rw, r->scratch_dir.path);
	s->tmp_bytes = (size_t)(r->l->config && r->l->config->disk_quota_mb > 0
					? r->l->config->disk_quota_mb
					: AGENT_DEFAULT_DISK_QUOTA_MB)
		       << 20;
	free(store);
	free(tasks);
	free(home);
}

/* Last non-empty line of what was appended to path after offset. */
/* ---- native transcripts --------------------------------------------- */

#define NATIVE_MAX_BYTES ((off_t)64 << 20)
#define NATIVE_MAX_FILES 2000

/* nftw has no context argument: one archive at a time. */
static pthread_mutex_t native_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const char *from;	/* the private HOME */
	const char *to;		/* logs/native */
	off_t bytes;
	int files;
} native;

static int native_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	/* Regular files only (FTW_PHYS: symlinks are not followed, so an
	 * agent cannot make us copy a file from outside its HOME). */
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (native.files >= NATIVE_MAX_FILES ||
	    native.bytes + st->st_size > NATIVE_MAX_BYTES)
		return 0;
	const char *rel = path + strlen(native.from);
	while (*rel == '/')
		rel++;
	char *dst = path_join(native.to, rel);
	char *parent = xstrdup(dst);
	*strrchr(parent, '/') = '\0';
	if (mkdir_p(parent, NULL) == 0 && file_copy(path, dst, NULL) == 0) {
		native.files++;
		native.bytes += st->st_size;
	}
	free(parent);
	free(dst);
	return 0;
}

/* Copies the CLI's own transcripts (Claude's projects/<slug>/<session>.jsonl,
 * Codex's sessions/.../rollout-*.jsonl, Gemini's tmp/<project>/chats)
 * from the private HOME into logs/native/, capped, before the scratch
 * directory is removed.  The auth files are never among them. */
static void archive_native(struct cli_run *r)
{
	char *to = path_join(r->l->log_dir, "native");

	pthread_mutex_lock(&native_lock);
	native.from = r->home;
	native.to = to;
	native.bytes = 0;
	native.files = 0;
	for (int i = 0; r->agent->native_dirs && r->agent->native_dirs[i];
	     i++) {
		char *d = path_join(r->home, r->agent->native_dirs[i]);
		if (dir_exists(d))
			nftw(d, native_one, 16, FTW_PHYS);
		free(d);
	}
	pthread_mutex_unlock(&native_lock);
	free(to);
}

static void uuid4(char out[37])
{
	unsigned char b[16];

	random_bytes(b, sizeof(b));
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4],
		 b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		 b[14], b[15]);
}

static void run_release(struct cli_run *r)
{
	agent_scratch_remove(&r->scratch_dir);
	trace_close(r->trace);
	cli_settings_release(&r->set);
	free(r->bin);
	free(r->arena_exe);
	free(r->home);
	free(r->socket_path);
	free(r->prompt);
	free(r->prompt_path);
	strbuf_release(&r->line);
	strbuf_release(&r->pending);
	free(r->error_text);
	free(r->final_text);
	free(r->session_id);
	free(r->last_msg_id);
}

int cli_agent_launch(const struct cli_agent *a, const struct agent_launch *l,
		     struct agent_outcome *out, struct errbuf *err)
{
	struct cli_run r;
	struct eval_bridge *bridge = NULL;
	struct strvec argv = STRVEC_INIT, env = STRVEC_INIT;
	struct proc_spawn_result res;
	char *trace_path = NULL, *log_path = NULL, *stdout_path = NULL;
	const char *why = NULL;
	long log_offset = 0;
	struct stat st;
	int rc;

	memset(&r, 0, sizeof(r));
	agent_scratch_init(&r.scratch_dir);
	r.agent = a;
	r.l = l;
	strbuf_init(&r.line);
	rc = cli_settings_load(a, l->config, &r.set, err);
	if (rc)
		goto out;
	r.bin = cli_find_bin(a);
	if (!r.bin) {
		rc = errf_code(err, ENOENT, "%s: the %s CLI was not found (set "
			       "%s, or put %s on PATH; %s)", a->name, a->cli,
			       a->bin_env, a->cli, a->install_hint);
		goto out;
	}
	r.arena_exe = xstrdup(cli_arena_exe());
	if (r.set.sandbox != CLI_SANDBOX_OFF)
		r.sandboxed = sandbox_available(&why);
	if (r.set.sandbox == CLI_SANDBOX_ON && !r.sandboxed) {
		rc = errf_code(err, EPERM, "%s: sandbox: on, but %s", a->name,
			       why);
		goto out;
	}
	if ((rc = agent_scratch_make(&r.scratch_dir, err)) != 0)
		goto out;
	r.home = path_join(r.scratch_dir.path, "home");
	r.socket_path = path_join(r.scratch_dir.path, "eval.sock");
	if ((rc = mkdir_p(r.home, err)) != 0 || (rc = copy_auth(&r, err)) != 0)
		goto out;
	chmod(r.home, 0700);

	trace_path = path_join(l->log_dir, "trace.jsonl");
	log_path = path_join(l->log_dir, "agent.log");
	stdout_path = path_join(l->log_dir, "agent_stdout.jsonl");
	if ((rc = trace_open(trace_path, &r.trace, err)) != 0)
		goto out;
	if (stat(log_path, &st) == 0)
		log_offset = (long)st.st_size;

	build_prompt(&r);
	r.prompt_path = path_join(l->log_dir, "agent_prompt.txt");
	if ((rc = file_write_atomic_str(r.prompt_path, r.prompt, err)) != 0)
		goto out;
	if ((rc = eval_bridge_start(l, r.trace, r.socket_path, &bridge,
				    err)) != 0)
		goto out;
	if (a->prepare && (rc = a->prepare(&r, err)) != 0)
		goto out;

	struct strvec cli_argv = STRVEC_INIT;
	strvec_push(&cli_argv, r.bin);
	a->build_argv(&r, &cli_argv);
	if (r.sandboxed) {
		struct sandbox_spec sb;
		sandbox_spec_for(&r, &sb);
		sandbox_argv(&sb, &argv);
		sandbox_spec_release(&sb);
	}
	size_t cli_at = argv.n;
	for (size_t i = 0; i < cli_argv.n; i++)
		strvec_push(&argv, cli_argv.v[i]);
	strvec_release(&cli_argv);
	build_env(&r, &env);
	if ((rc = write_profile(&r, &env, err)) != 0)
		goto out;

	char episode[37];
	uuid4(episode);
	cJSON *start = cJSON_CreateObject();
	cJSON_AddStringToObject(start, "episode", episode);
	cJSON_AddStringToObject(start, "agent", a->name);
	cJSON_AddStringToObject(start, "cli", r.bin);
	char *installed = cli_version_cached(r.bin);
	if (installed)
		cJSON_AddStringToObject(start, "cli_version", installed);
	free(installed);
	if (r.set.cli_version)
		cJSON_AddStringToObject(start, "cli_version_tested",
					r.set.cli_version);
	if (r.set.model)
		cJSON_AddStringToObject(start, "model", r.set.model);
	if (r.set.effort)
		cJSON_AddStringToObject(start, "effort", r.set.effort);
	cJSON_AddStringToObject(start, "task_id", l->task->id);
	cJSON_AddStringToObject(start, "workspace", l->workspace);
	cJSON_AddBoolToObject(start, "sandboxed", r.sandboxed);
	if (!r.sandboxed && why && r.set.sandbox == CLI_SANDBOX_AUTO)
		cJSON_AddStringToObject(start, "sandbox_unavailable", why);
	cJSON_AddBoolToObject(start, "mcp", r.set.mcp);
	cJSON_AddNumberToObject(start, "timeout_s", l->timeout_s);
	cJSON_AddItemToObject(start, "argv", cli_argv_json(&argv, cli_at));
	cJSON_AddStringToObject(start, "prompt", r.prompt);
	trace_emit(r.trace, "episode_start", start);

	double timeout = l->config && l->config->timeout_seconds > 0
				 ? l->timeout_s
				 : (double)r.set.timeout_seconds;
	const struct agent_config *ac = l->config;
	struct sandbox_limits lim = {
		.workspace = l->workspace_real ? l->workspace_real
					       : l->workspace,
		.scratch = r.scratch_dir.path,
		.disk_bytes = (uint64_t)(ac && ac->disk_quota_mb > 0
						 ? ac->disk_quota_mb
						 : AGENT_DEFAULT_DISK_QUOTA_MB)
			      << 20,
		.memory_bytes = (uint64_t)(ac && ac->memory_mb > 0
						   ? ac->memory_mb
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
		.stdin_path = r.prompt_path,
		.log_path = log_path,
		.env_add = &env,
		.env_replace = true,
		.timeout_s = timeout,
		.stdout_path = stdout_path,
		.on_stdout = cli_feed_stdout,
		.on_stdout_ctx = &r,
		/* Whatever the CLI started (shells, servers, setsid
		 * daemons) ends with it, sandbox or not. */
		.contain = true,
		.limits = &plim,
		.on_tick = sandbox_launch_tick,
		.on_tick_ctx = &lim,
	};
	rc = proc_spawn(&spec, &res, err);
	/* Stopping waits for an evaluation in progress (the agent is dead,
	 * its client gone); the counters are read after it. */
	double best = 0;
	eval_bridge_stop_accepting(bridge);
	int evals = eval_bridge_evaluations(bridge, &best);
	eval_bridge_stop(bridge);
	bridge = NULL;
	if (rc) {
		trace_error(r.trace, errbuf_str(err));
		goto out;
	}
	if (r.line.len > 0 || r.line_too_long)
		cli_process_line(&r);	/* a last line without newline */
	archive_native(&r);
	cli_classify(&r, &res, log_path, log_offset, out);
	out->contained = res.contained == PROC_CONTAINED_NS ? "pid_namespace"
			 : res.contained == PROC_CONTAINED_SUBREAPER
				 ? "subreaper"
				 : NULL;
	out->leftovers = res.leftovers;
	if (res.stopped && lim.was_cancelled) {
		free(out->status);
		free(out->error);
		out->status = xstrdup("cancelled");
		out->error = xstrdup(res.stop_reason);
	} else if (res.stopped || sandbox_quota_tick(&lim)) {
		sandbox_quota_clean(lim.workspace, &l->task->editable);
		free(out->status);
		free(out->error);
		out->status = xstrdup("failed");
		out->error = xstrdup(res.stopped ? res.stop_reason : lim.why);
	}

	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", out->status);
	if (out->error)
		cJSON_AddStringToObject(o, "error", out->error);
	cJSON_AddNumberToObject(o, "duration_s", out->duration_s);
	cJSON_AddNumberToObject(o, "turns", out->turns);
	cJSON_AddNumberToObject(o, "input_tokens", (double)out->input_tokens);
	cJSON_AddNumberToObject(o, "cached_input_tokens",
				(double)r.cached_tokens);
	cJSON_AddNumberToObject(o, "output_tokens",
				(double)out->output_tokens);
	cJSON_AddNumberToObject(o, "cost_usd", out->cost_usd);
	cJSON_AddBoolToObject(o, "cost_reported", r.cost_reported);
	cJSON_AddNumberToObject(o, "tool_calls", r.tool_calls);
	cJSON_AddNumberToObject(o, "evaluations", evals);
	cJSON_AddNumberToObject(o, "best_score", best);
	cJSON_AddBoolToObject(o, "sandboxed", r.sandboxed);
	if (out->contained)
		cJSON_AddStringToObject(o, "contained", out->contained);
	cJSON_AddNumberToObject(o, "leftover_processes_killed", out->leftovers);
	if (WIFEXITED(res.status))
		cJSON_AddNumberToObject(o, "exit", WEXITSTATUS(res.status));
	else if (WIFSIGNALED(res.status))
		cJSON_AddNumberToObject(o, "signal", WTERMSIG(res.status));
	cJSON_AddBoolToObject(o, "timed_out", res.timed_out);
	cJSON_AddNumberToObject(o, "stdout_bytes", (double)res.stdout_bytes);
	cJSON_AddNumberToObject(o, "non_json_lines", r.other_lines);
	if (r.session_id)
		cJSON_AddStringToObject(o, "session_id", r.session_id);
	trace_emit(r.trace, "outcome", o);
out:
	if (bridge)
		eval_bridge_stop(bridge);
	strvec_release(&argv);
	strvec_release(&env);
	free(trace_path);
	free(log_path);
	free(stdout_path);
	run_release(&r);
	return rc;
}

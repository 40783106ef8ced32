/*
 * cli_agent.c - see cli_agent.h.
 *
 * One launch, in order:
 *   1. settings: agents/<name>/agent_config.yaml, then the run's agent
 *      section (model, effort, max_iterations, timeout_seconds,
 *      max_budget_usd, options) on top; validated like the run config;
 *   2. the CLI binary ($ARENA_<CLI>_BIN, PATH, the install prefixes);
 *   3. the sandbox decision (option sandbox: auto | on | off);
 *   4. a scratch directory /tmp/arena-agent-XXXXXX (0700): home/ (a
 *      private HOME with copies of the CLI's auth files only) and
 *      eval.sock (the evaluation bridge); removed at the end;
 *   5. the prompt: persona (agents/prompts/<family>.md), the engine's
 *      prompt (TASK.md + iteration guidance), how to evaluate in this
 *      setting, the device, the budget, a per-task addendum
 *      (agents/prompts/tasks/<task id>.md); written to
 *      logs/agent_prompt.txt and given on stdin;
 *   6. the environment, built from nothing: PATH, HOME, locale, the CLI's
 *      auth and endpoint variables, proxies, ARENA_*;
 *   7. spawn (own process group, deadline, SIGTERM then SIGKILL), stdout
 *      parsed line by line as it arrives into the trace and the outcome,
 *      and kept raw in logs/agent_stdout.jsonl; stderr in logs/agent.log;
 *   8. classification: timeout; exit status; the CLI's own error events
 *      (an is_error result with exit 0, turn.failed, no final result).
 */
#include "cli_agent.h"

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
#include "arena/proc.h"
#include "arena/paths.h"
#include "arena/ydoc.h"

#define CLI_CONFIG_MAX (64 * 1024)
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

/* ---- settings ------------------------------------------------------- */

void cli_settings_init(struct cli_settings *s)
{
	memset(s, 0, sizeof(*s));
	strvec_init(&s->env_pass);
}

void cli_settings_release(struct cli_settings *s)
{
	free(s->model);
	free(s->effort);
	free(s->cli_version);
	free(s->persona);
	free(s->base_url);
	strvec_release(&s->env_pass);
	memset(s, 0, sizeof(*s));
}

/* Keys of agent_config.yaml; the last ones are also agent.options. */
static const char *const yaml_keys[] = {
	"model", "effort", "max_iterations", "timeout_seconds",
	"max_budget_usd",
	/* options from here */
	"mcp", "sandbox", "max_turns", "persona", "base_url", "cli_version",
	"price_input_per_mtok", "price_cached_input_per_mtok",
	"price_output_per_mtok", "env_pass",
};
#define FIRST_OPTION 5

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = v && *v ? xstrdup(v) : NULL;
}

static int parse_bool_word(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "True") || !strcmp(v, "yes") ||
	    !strcmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "False") ||
		 !strcmp(v, "no") || !strcmp(v, "off") || !strcmp(v, "0") ||
		 !*v)
		*out = false;
	else
		return -EINVAL;
	return 0;
}

/* Applies one setting; `where` names its origin in messages. */
static int apply_kv(const struct cli_agent *a, struct cli_settings *s,
		    const char *k, const char *v, const char *where,
		    struct errbuf *err)
{
	int64_t i;
	double d;

	if (!strcmp(k, "model")) {
		set_str(&s->model, v);
	} else if (!strcmp(k, "effort")) {
		if (*v && !a->efforts)
			return errf(err, "%s: %s has no effort setting; choose "
				    "a model id that names the effort instead "
				    "(e.g. a -thinking-high variant)", where,
				    a->name);
		bool ok = !*v;
		for (int j = 0; *v && a->efforts[j]; j++)
			ok |= !strcmp(v, a->efforts[j]);
		if (!ok) {
			struct strbuf names = STRBUF_INIT;
			for (int j = 0; a->efforts[j]; j++)
				strbuf_addf(&names, "%s%s", j ? ", " : "",
					    a->efforts[j]);
			errf(err, "%s: effort '%.40s' is not one %s accepts; "
			     "use one of %s", where, v, a->name,
			     strbuf_str(&names));
			strbuf_release(&names);
			return -EINVAL;
		}
		set_str(&s->effort, v);
	} else if (!strcmp(k, "max_iterations") ||
		   !strcmp(k, "timeout_seconds") || !strcmp(k, "max_turns")) {
		if (parse_i64(v, &i) != 0 || i < 0 || i > 10000000)
			return errf(err, "%s: %s must be a non-negative "
				    "integer, not '%.40s'", where, k, v);
		if (!strcmp(k, "max_iterations"))
			s->max_iterations = (int)i;
		else if (!strcmp(k, "timeout_seconds"))
			s->timeout_seconds = (int)i;
		else
			s->max_turns = (int)i;
	} else if (!strcmp(k, "max_budget_usd") || str_starts_with(k, "price_")) {
		if (!*v)
			d = 0;
		else if (parse_double(v, &d) != 0 || !(d >= 0) || d > 1e9)
			return errf(err, "%s: %s must be a non-negative number, "
				    "not '%.40s'", where, k, v);
		if (!strcmp(k, "max_budget_usd"))
			s->max_budget_usd = d;
		else if (!strcmp(k, "price_input_per_mtok"))
			s->price_input = d;
		else if (!strcmp(k, "price_cached_input_per_mtok"))
			s->price_cached_input = d;
		else
			s->price_output = d;
	} else if (!strcmp(k, "mcp")) {
		if (parse_bool_word(v, &s->mcp) != 0)
			return errf(err, "%s: mcp must be true or false, not "
				    "'%.40s'", where, v);
		if (s->mcp && !a->has_mcp)
			return errf(err, "%s: %s cannot be given arena's MCP "
				    "server", where, a->name);
	} else if (!strcmp(k, "sandbox")) {
		bool b;
		if (!strcmp(v, "auto") || !*v)
			s->sandbox = CLI_SANDBOX_AUTO;
		else if (parse_bool_word(v, &b) == 0)
			s->sandbox = b ? CLI_SANDBOX_ON : CLI_SANDBOX_OFF;
		else
			return errf(err, "%s: sandbox must be auto, on or off, "
				    "not '%.40s'", where, v);
	} else if (!strcmp(k, "persona")) {
		if (*v && (strchr(v, '/') || v[0] == '.'))
			return errf(err, "%s: persona must be auto, none or a "
				    "file name under agents/prompts/, not "
				    "'%.60s'", where, v);
		set_str(&s->persona, v);
	} else if (!strcmp(k, "base_url")) {
		if (*v && !str_starts_with(v, "http://") &&
		    !str_starts_with(v, "https://"))
			return errf(err, "%s: base_url must start with "
				    "http:// or https://", where);
		set_str(&s->base_url, v);
	} else if (!strcmp(k, "cli_version")) {
		set_str(&s->cli_version, v);
	} else if (!strcmp(k, "env_pass")) {
		strvec_release(&s->env_pass);
		char *copy = xstrdup(v), *save = NULL;
		for (char *t = strtok_r(copy, ", ", &save); t;
		     t = strtok_r(NULL, ", ", &save)) {
			for (const char *c = t; *c; c++)
				if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') ||
				      (*c >= 'a' && *c <= 'z') ||
				      (*c >= '0' && *c <= '9'))) {
					errf(err, "%s: env_pass: '%.40s' is not a "
					     "variable name", where, t);
					free(copy);
					return -EINVAL;
				}
			strvec_push(&s->env_pass, t);
		}
		free(copy);
	} else {
		struct strbuf names = STRBUF_INIT;
		for (size_t j = FIRST_OPTION; j < ARRAY_SIZE(yaml_keys); j++)
			strbuf_addf(&names, "%s%s", j > FIRST_OPTION ? ", " : "",
				    yaml_keys[j]);
		errf(err, "%s: unknown option '%.60s' for %s; known options "
		     "are %s", where, k, a->name, strbuf_str(&names));
		strbuf_release(&names);
		return -EINVAL;
	}
	return 0;
}

static void settings_defaults(const struct cli_agent *a, struct cli_settings *s)
{
	set_str(&s->model, a->default_model);
	set_str(&s->effort, a->default_effort);
	s->max_iterations = 3;
	s->timeout_seconds = 3600;
	s->persona = xstrdup("auto");
}

static int load_yaml(const struct cli_agent *a, struct cli_settings *s,
		     struct errbuf *err)
{
	const char *dir = cli_agents_dir();
	char *path = xasprintf("%s/%s/agent_config.yaml", dir, a->name);
	char *text = NULL;
	size_t len = 0;
	struct ydoc doc;
	int rc = 0;

	if (!file_exists(path)) {
		free(path);
		return 0;	/* compiled-in defaults */
	}
	rc = file_read_all(path, CLI_CONFIG_MAX, &text, &len, err);
	if (!rc)
		rc = ydoc_parse(&doc, path, text, len, err);
	if (rc) {
		free(text);
		free(path);
		return rc;
	}
	const struct ynode *root = doc.root;
	if (root && root->kind != YNODE_MAP)
		rc = ynode_errf(err, path, root, "must be a map of settings");
	if (!rc && root)
		rc = ynode_check_keys(root, yaml_keys, ARRAY_SIZE(yaml_keys),
				      path, NULL, err);
	for (size_t i = 0; !rc && root && i < root->n; i++) {
		const struct ypair *kv = &root->pairs[i];
		if (!kv->value || kv->value->kind != YNODE_SCALAR) {
			rc = ynode_errf(err, path, kv->value, "%s must be a "
					"single value", kv->key);
			break;
		}
		char *where = xasprintf("%s:%d", path, kv->line);
		rc = apply_kv(a, s, kv->key,
			      ynode_is_null(kv->value) ? "" : kv->value->str,
			      where, err);
		free(where);
	}
	ydoc_release(&doc);
	free(text);
	free(path);
	return rc;
}

int cli_settings_load(const struct cli_agent *a, const struct agent_config *c,
		      struct cli_settings *s, struct errbuf *err)
{
	int rc;

	cli_settings_init(s);
	settings_defaults(a, s);
	rc = load_yaml(a, s, err);
	if (rc || !c)
		return rc;
	if (c->model && (rc = apply_kv(a, s, "model", c->model, "agent.model",
				       err)))
		return rc;
	if (c->effort && (rc = apply_kv(a, s, "effort", c->effort,
					"agent.effort", err)))
		return rc;
	if (c->max_iterations > 0)
		s->max_iterations = c->max_iterations;
	if (c->timeout_seconds > 0)
		s->timeout_seconds = c->timeout_seconds;
	if (c->max_budget_usd > 0) {
		if (!a->has_budget)
			return errf(err, "agent.max_budget_usd: %s has no "
				    "spend cap; leave it out", a->name);
		s->max_budget_usd = c->max_budget_usd;
	}
	for (size_t i = 0; i < c->options.n; i++) {
		const char *kv = c->options.v[i];
		const char *eq = strchr(kv, '=');
		char *k = eq ? xstrndup(kv, (size_t)(eq - kv)) : xstrdup(kv);
		char *where = xasprintf("agent.options.%s", k);
		size_t j;
		for (j = FIRST_OPTION; j < ARRAY_SIZE(yaml_keys); j++)
			if (!strcmp(k, yaml_keys[j]))
				break;
		if (j == ARRAY_SIZE(yaml_keys)) {
			struct strbuf names = STRBUF_INIT;
			for (j = FIRST_OPTION; j < ARRAY_SIZE(yaml_keys); j++)
				strbuf_addf(&names, "%s%s",
					    j > FIRST_OPTION ? ", " : "",
					    yaml_keys[j]);
			rc = errf(err, "%s: unknown option '%.60s' for %s; "
				  "known options are %s", where, k, a->name,
				  strbuf_str(&names));
			strbuf_release(&names);
		} else {
			rc = apply_kv(a, s, k, eq ? eq + 1 : "", where, err);
		}
		free(where);
		free(k);
		if (rc)
			return rc;
	}
	return 0;
}

int cli_agent_validate(const struct cli_agent *a, const struct agent_config *c,
		       struct errbuf *err)
{
	struct cli_settings s;
	int rc = cli_settings_load(a, c, &s, err);

	cli_settings_release(&s);
	return rc;
}

/* ---- locations ------------------------------------------------------ */

static char exe_buf[PATH_MAX];
static char agents_dir_buf[PATH_MAX];
static pthread_once_t dirs_once = PTHREAD_ONCE_INIT;

/* The arena binary agents call (`arena eval`, `arena mcp`): this
 * program, or $ARENA_EXE when a program other than arena launches agents
 * (the unit tests do); its directory goes first on the agent's PATH and is
 * kept visible inside the sandbox. */
static void dirs_init(void)
{
	const char *over = getenv("ARENA_EXE");
	ssize_t n;
	char dir[PATH_MAX];

	if (over && *over && access(over, X_OK) == 0 &&
	    strlen(over) < sizeof(exe_buf)) {
		n = (ssize_t)strlen(over);
		memcpy(exe_buf, over, (size_t)n);
	} else {
		n = readlink("/proc/self/exe", exe_buf, sizeof(exe_buf) - 1);
	}

	if (n <= 0) {
		snprintf(agents_dir_buf, sizeof(agents_dir_buf), "agents");
		return;
	}
	exe_buf[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", exe_buf);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *base = paths_layout_dir(dir, "agents", "agents/prompts");
	snprintf(agents_dir_buf, sizeof(agents_dir_buf), "%s", base);
	free(base);
}

const char *cli_agents_dir(void)
{
	const char *env = getenv("ARENA_AGENTS_DIR");

	if (env && *env)
		return env;
	pthread_once(&dirs_once, dirs_init);
	return agents_dir_buf;
}

static const char *arena_exe(void)
{
	pthread_once(&dirs_once, dirs_init);
	return exe_buf;
}

static const char *real_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h)
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

char *cli_find_bin(const struct cli_agent *a)
{
	const char *env = getenv(a->bin_env);

	if ((!env || !*env) && a->bin_env_fallback)
		env = getenv(a->bin_env_fallback);

	/* A path is taken as it is; a bare name is looked up like the CLI's
	 * own name, in $PATH and then the install prefixes. */
	if (env && *env && strchr(env, '/'))
		return path_is_executable(env) ? path_real(env) : NULL;
	const char *name = env && *env ? env : a->cli;
	char *found = path_search(name, NULL);
	if (found)
		return found;
	/* scripts/install-agents.sh prefixes. */
	const char *prefixes[] = { getenv("ARENA_AGENTS_PREFIX"),
				   "/opt/arena-agents", NULL };
	char *user = xasprintf("%s/.local/share/arena/agents", real_home());
	prefixes[2] = user;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes) && !found; i++) {
		if (!prefixes[i] || !*prefixes[i])
			continue;
		char *p = xasprintf("%s/node_modules/.bin/%s", prefixes[i],
				    name);
		if (path_is_executable(p))
			found = path_real(p);
		free(p);
	}
	free(user);
	return found;
}

/* The path of the bin as found (not resolved) matters for node shims:
 * node_modules/.bin/x -> ../pkg/x.js; the resolved path is what runs. */

char *cli_version_of(const char *bin, struct errbuf *err)
{
	char *argv[] = { (char *)bin, (char *)"--version", NULL };
	struct proc_result r;
	char *v = NULL;

	memset(&r, 0, sizeof(r));
	if (proc_run_capture(argv, NULL, NULL, 30000, 4096, &r, err) != 0)
		return NULL;
	if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && r.output) {
		/* First token that starts with a digit: "2.1.332 (Claude
		 * Code)", "codex-cli 0.171.0", "0.61.0". */
		for (char *p = r.output; *p; p++) {
			if (*p >= '0' && *p <= '9' &&
			    (p == r.output || p[-1] == ' ' || p[-1] == 'v' ||
			     p[-1] == '\n')) {
				size_t n = strspn(p, "0123456789.-abcdefghijk"
						  "lmnopqrstuvwxyz");
				v = xstrndup(p, n);
				break;
			}
		}
	} else {
		char why[128];
		proc_describe_status(r.status, why, sizeof(why));
		errf(err, "%s --version %s", bin, why);
	}
	proc_result_release(&r);
	return v;
}

bool cli_authenticated(const struct cli_agent *a, const char **how)
{
	for (int i = 0; a->auth_env && a->auth_env[i]; i++) {
		const char *v = getenv(a->auth_env[i]);
		if (v && *v && !strstr(a->auth_env[i], "BASE_URL")) {
			*how = a->auth_env[i];
			return true;
		}
	}
	for (int i = 0; a->auth_files && a->auth_files[i]; i++) {
		char *p = path_join(real_home(), a->auth_files[i]);
		bool ok = file_exists(p);
		free(p);
		if (ok) {
			*how = a->auth_files[i];
			return true;
		}
	}
	*how = NULL;
	return false;
}

/* ---- parsing helpers ------------------------------------------------ */

const char *cli_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double cli_json_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble
							     : dflt;
}

char *cli_content_text(const cJSON *content)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *it;

	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	cJSON_ArrayForEach(it, content) {
		const char *t = cli_json_str(it, "text");
		if (t) {
			if (sb.len)
				strbuf_addch(&sb, '\n');
			strbuf_addstr(&sb, t);
		}
	}
	return strbuf_detach(&sb);
}

void cli_toml_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

static void process_line(struct cli_run *r)
{
	const char *s = strbuf_str(&r->line);
	size_t n = r->line.len;

	if (r->line_too_long) {
		r->other_lines++;
		trace_error(r->trace, "a line of the CLI's output longer than "
			    "8 MiB was skipped");
		return;
	}
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	cJSON *ev = s[0] == '{' ? cJSON_ParseWithLength(s, n) : NULL;
	if (!cJSON_IsObject(ev)) {
		r->other_lines++;	/* noise: progress text, warnings */
		cJSON_Delete(ev);
		return;
	}
	r->json_lines++;
	r->agent->parse_event(r, ev);
	cJSON_Delete(ev);
}

void cli_feed_stdout(void *ctx, const char *data, size_t n)
{
	struct cli_run *r = ctx;

	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		if (!r->line_too_long) {
			if (r->line.len + chunk > CLI_LINE_MAX) {
				r->line_too_long = true;
				strbuf_reset(&r->line);
			} else {
				strbuf_add(&r->line, data, chunk);
			}
		}
		if (!nl)
			break;
		process_line(r);
		strbuf_reset(&r->line);
		r->line_too_long = false;
		data = nl + 1;
		n -= chunk + 1;
	}
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
	const char *home = real_home();

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
	if (t->language == LANG_C) {
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
	char *home = path_real(real_home());

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
	char *roots[] = { install_root_of(r->bin), xstrdup(r->arena_exe) };
	*strrchr(roots[1], '/') = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		bool hidden = path_is_under(roots[i], "/tmp");
		for (size_t k = 0; k < s->hide.n; k++)
			hidden |= path_is_under(roots[i], s->hide.v[k]);
		if (hidden)
			strvec_push(&s->expose_ro, roots[i]);
		free(roots[i]);
	}
	strvec_push(&s->bind_rw, r->scratch);
	free(store);
	free(tasks);
	free(home);
}

/* Last non-empty line of what was appended to path after offset. */
static char *stderr_tail(const char *path, long offset)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t n = 0;
	long end;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	if (end > offset) {
		long from = end - (long)sizeof(buf) + 1 > offset
				    ? end - (long)sizeof(buf) + 1 : offset;
		fseek(f, from, SEEK_SET);
		n = fread(buf, 1, sizeof(buf) - 1, f);
	}
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (n == 0)
		return NULL;
	char *nl = strrchr(buf, '\n');
	char *line = nl ? nl + 1 : buf;
	return trace_cap(line, 300);
}

static cJSON *argv_json(const struct strvec *argv, size_t from)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = from; i < argv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv->v[i]));
	return a;
}

static void classify(struct cli_run *r, const struct proc_spawn_result *res,
		     const char *log_path, long log_offset,
		     struct agent_outcome *out)
{
	const char *cli = r->agent->cli;
	bool exit0 = WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0;
	char why[128];

	out->duration_s = res->seconds;
	out->sandboxed = r->sandboxed;
	out->turns = r->turns;
	out->input_tokens = r->input_tokens;
	out->output_tokens = r->output_tokens;
	if (!r->cost_reported && (r->set.price_input > 0 ||
				  r->set.price_output > 0)) {
		double cached_price = r->set.price_cached_input > 0
					      ? r->set.price_cached_input
					      : r->set.price_input;
		int64_t fresh = r->input_tokens - r->cached_tokens;
		r->cost_usd = ((double)(fresh > 0 ? fresh : 0) *
				       r->set.price_input +
			       (double)r->cached_tokens * cached_price +
			       (double)r->output_tokens * r->set.price_output) /
			      1e6;
	}
	out->cost_usd = r->cost_usd;
	proc_describe_status(res->status, why, sizeof(why));
	if (res->timed_out) {
		out->status = xstrdup("timeout");
		out->error = xasprintf("deadline of %.0f s reached; %s was "
				       "stopped (SIGTERM, then SIGKILL)",
				       r->l->timeout_s, cli);
	} else if (!exit0) {
		char *tail = r->error_text ? NULL
					   : stderr_tail(log_path, log_offset);
		out->status = xstrdup("failed");
		if (r->error_text)
			out->error = xasprintf("%s %s: %s", cli, why,
					       r->error_text);
		else
			out->error = xasprintf("%s %s%s%s", cli, why,
					       tail ? ": " : "",
					       tail ? tail : "");
		free(tail);
	} else if (r->final_error) {
		out->status = xstrdup("failed");
		out->error = xasprintf("%s reported an error (exit status 0): "
				       "%s", cli, r->error_text ? r->error_text
							       : "no detail");
	} else if (!r->saw_final) {
		char *tail = stderr_tail(log_path, log_offset);
		out->status = xstrdup("failed");
		out->error = xasprintf("%s exited 0 without a final result "
				       "event (%d JSON lines seen)%s%s", cli,
				       r->json_lines, tail ? "; stderr: " : "",
				       tail ? tail : "");
		free(tail);
	} else {
		out->status = xstrdup("completed");
	}
	if (r->final_text && *r->final_text) {
		size_t n = strcspn(r->final_text, "\n");
		char *first = xstrndup(r->final_text, n > 200 ? 200 : n);
		out->summary = result_utf8_sanitize(first);
		free(first);
	}
}

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
	if (r->scratch)
		rm_rf(r->scratch);
	trace_close(r->trace);
	cli_settings_release(&r->set);
	free(r->bin);
	free(r->arena_exe);
	free(r->scratch);
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
	r.arena_exe = xstrdup(arena_exe());
	if (r.set.sandbox != CLI_SANDBOX_OFF)
		r.sandboxed = sandbox_available(&why);
	if (r.set.sandbox == CLI_SANDBOX_ON && !r.sandboxed) {
		rc = errf_code(err, EPERM, "%s: sandbox: on, but %s", a->name,
			       why);
		goto out;
	}
	char tmpl[] = "/tmp/arena-agent-XXXXXX";
	if (!mkdtemp(tmpl)) {
		rc = errf_code(err, errno, "mkdtemp %s: %s", tmpl,
			       strerror(errno));
		goto out;
	}
	r.scratch = xstrdup(tmpl);
	r.home = path_join(r.scratch, "home");
	r.socket_path = path_join(r.scratch, "eval.sock");
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
	cJSON_AddItemToObject(start, "argv", argv_json(&argv, cli_at));
	cJSON_AddStringToObject(start, "prompt", r.prompt);
	trace_emit(r.trace, "episode_start", start);

	double timeout = l->config && l->config->timeout_seconds > 0
				 ? l->timeout_s
				 : (double)r.set.timeout_seconds;
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
		process_line(&r);	/* a last line without newline */
	archive_native(&r);
	classify(&r, &res, log_path, log_offset, out);

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

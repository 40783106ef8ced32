/*
 * cli_settings.c - a CLI agent's settings and where things are
 * (cli_agent.h): defaults from agents/<name>/agent_config.yaml, the run's
 * agent section on top (model, effort, max_iterations, timeout_seconds,
 * max_budget_usd, options), validated like the run config; the agents'
 * data directory (arena/paths.h knows the layout), the CLI binary
 * ($ARENA_<CLI>_BIN, PATH, the install prefixes), its version and whether
 * it is authenticated.
 */
#include "cli_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena/paths.h"
#include "arena/ydoc.h"

#define CLI_CONFIG_MAX (64 * 1024)

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

const char *cli_arena_exe(void)
{
	pthread_once(&dirs_once, dirs_init);
	return exe_buf;
}

const char *cli_real_home(void)
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
	char *user = xasprintf("%s/.local/share/arena/agents", cli_real_home());
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

/* Versions already asked, by binary (path, size, mtime): a run launches
 * the same CLI for every attempt, and `gemini --version` alone takes
 * seconds. */
#define VERSION_CACHE 16
static pthread_mutex_t version_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char *path, *version;
	off_t size;
	struct timespec mtime;
} versions[VERSION_CACHE];
static int nversions;

char *cli_version_cached(const char *bin)
{
	struct stat st;
	char *v = NULL;
	int k;

	if (stat(bin, &st) != 0)
		return NULL;
	pthread_mutex_lock(&version_lock);
	for (k = 0; k < nversions; k++)
		if (!strcmp(versions[k].path, bin) &&
		    versions[k].size == st.st_size &&
		    versions[k].mtime.tv_sec == st.st_mtim.tv_sec &&
		    versions[k].mtime.tv_nsec == st.st_mtim.tv_nsec) {
			v = versions[k].version ? xstrdup(versions[k].version)
						: NULL;
			pthread_mutex_unlock(&version_lock);
			return v;
		}
	pthread_mutex_unlock(&version_lock);
	v = cli_version_of(bin, NULL);
	pthread_mutex_lock(&version_lock);
	k = nversions < VERSION_CACHE ? nversions++ : 0;
	if (k == 0 && nversions == VERSION_CACHE) {
		free(versions[0].path);
		free(versions[0].version);
	}
	versions[k].path = xstrdup(bin);
	versions[k].version = v ? xstrdup(v) : NULL;
	versions[k].size = st.st_size;
	versions[k].mtime = st.st_mtim;
	pthread_mutex_unlock(&version_lock);
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
		char *p = path_join(cli_real_home(), a->auth_files[i]);
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

/*
 * config.c - run configs: the YAML that describes one experiment (see
 * arena/config.h; docs/config.md is the reference).
 *
 * How it works: the text is loaded into a ydoc tree (arena/ydoc.h) and
 * each top-level section has one function that validates it into struct
 * runconfig.  The rule is "fail before anything runs": unknown keys,
 * values of the wrong type or out of range, and task selectors that match
 * nothing are errors naming the file, the line, the field and the fix.
 * Every selected task is also loaded (and then freed) here, so a broken
 * task is reported when the config is written, not hours later when a
 * worker reaches it.
 *
 * AgentKernelArena's keys are accepted with their meaning
 * (agent.template is normalised the same way: case-insensitive, '-' = '_');
 * whether the named agent exists is for the engine to decide, since agents
 * are registered by the front end.
 */
#include "arena/config.h"

#include "arena/task.h"
#include "arena/ydoc.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define RUNCONFIG_MAX_SELECTORS 1024
#define RUNCONFIG_MAX_COMMAND 256
#define RUNCONFIG_MAX_OPTIONS 256
#define RUNCONFIG_MAX_NAME 64

void timing_budget_defaults(struct timing_budget *t)
{
	t->case_budget_s = 2.0;
	t->target_ci = 0.01;
	t->min_pairs = 10;
	t->max_pairs = 400;
	t->blocks = 6;
	t->correctness_trials = 3;
	t->runner_timeout_s = 60;
	t->compile_timeout_s = 120;
}

void agent_config_release(struct agent_config *a)
{
	free(a->template_name);
	free(a->model);
	free(a->effort);
	strvec_release(&a->command);
	free(a->replay_dir);
	strvec_release(&a->options);
	memset(a, 0, sizeof(*a));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void agent_config_copy(struct agent_config *dst,
		       const struct agent_config *src)
{
	*dst = *src;
	dst->template_name = dup_or_null(src->template_name);
	dst->model = dup_or_null(src->model);
	dst->effort = dup_or_null(src->effort);
	dst->replay_dir = dup_or_null(src->replay_dir);
	strvec_init(&dst->command);
	strvec_init(&dst->options);
	for (size_t i = 0; i < src->command.n; i++)
		strvec_push(&dst->command, src->command.v[i]);
	for (size_t i = 0; i < src->options.n; i++)
		strvec_push(&dst->options, src->options.v[i]);
}

void runconfig_free(struct runconfig *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->text);
	agent_config_release(&c->agent);
	for (int i = 0; i < c->nvariants; i++) {
		free(c->variants[i].name);
		agent_config_release(&c->variants[i].agent);
	}
	free(c->variants);
	strvec_release(&c->selectors);
	strvec_release(&c->task_ids);
	free(c->target_gpu_model);
	free(c->log_directory);
	free(c->workspace_directory_prefix);
	free(c->device);
	free(c);
}

/* ---- helpers ----------------------------------------------------------- */

struct cparse {
	const char *source;
	const char *tasks_root;
	struct runconfig *c;
	struct errbuf *err;
	struct agent_config *cur;	/* the agent map being parsed */
	char pfx[48];			/* its field name: agent, agents[1] */
	char fbuf[96];			/* cp_field's result */
};

/* "<prefix>.<key>" for messages about the current agent map. */
static const char *cp_field(struct cparse *p, const char *key)
{
	snprintf(p->fbuf, sizeof(p->fbuf), "%s.%s", p->pfx, key);
	return p->fbuf;
}

static int cp_err(struct cparse *p, const struct ynode *n, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));

static int cp_err(struct cparse *p, const struct ynode *n, const char *fmt,
		  ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ynode_errf(p->err, p->source, n, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return -EINVAL;
}

/* A non-empty scalar, copied into *out (replacing nothing: keys are
 * unique, so each field is set at most once). */
static int cp_string(struct cparse *p, const struct ynode *n,
		     const char *field, char **out)
{
	if (!ynode_is_text(n) || n->str[0] == '\0')
		return cp_err(p, n, "%s must be a non-empty string, not %s",
			      field, ynode_describe(n));
	*out = xstrdup(n->str);
	return 0;
}

static int cp_int(struct cparse *p, const struct ynode *n, const char *field,
		  int64_t min, int64_t max, int64_t *out)
{
	if (ynode_i64(n, out) || *out < min || *out > max) {
		if (max == INT64_MAX)
			return cp_err(p, n, "%s must be an integer >= %lld, not "
				      "%s '%.40s'", field, (long long)min,
				      ynode_describe(n), ynode_is_text(n) ?
				      n->str : "");
		return cp_err(p, n, "%s must be an integer from %lld to %lld, "
			      "not %s '%.40s'", field, (long long)min,
			      (long long)max, ynode_describe(n),
			      ynode_is_text(n) ? n->str : "");
	}
	return 0;
}

static int cp_int32(struct cparse *p, const struct ynode *n,
		    const char *field, int min, int max, int *out)
{
	int64_t v;
	int rc = cp_int(p, n, field, min, max, &v);

	if (rc == 0)
		*out = (int)v;
	return rc;
}

/* A number in (min, max]: budgets, timeouts and the CI target are strictly
 * positive. */
static int cp_positive(struct cparse *p, const struct ynode *n,
		       const char *field, double max, double *out)
{
	if (ynode_double(n, out) || !(*out > 0) || *out > max)
		return cp_err(p, n, "%s must be a number greater than 0 and at "
			      "most %g, not %s '%.40s'", field, max,
			      ynode_describe(n), ynode_is_text(n) ? n->str :
			      "");
	return 0;
}

static int cp_map(struct cparse *p, const struct ynode *n, const char *field,
		  const char *const *keys, size_t nkeys, const char *example)
{
	if (!n || n->kind != YNODE_MAP)
		return cp_err(p, n, "%s must be a map, not %s (e.g. %s)", field,
			      ynode_describe(n), example);
	return ynode_check_keys(n, keys, nkeys, p->source, field, p->err);
}

/* ---- agent ------------------------------------------------------------- */

/* AgentKernelArena matches agent names case-insensitively with '-' equal
 * to '_'; we store the normal form. */
static int cp_template(struct cparse *p, const struct ynode *n)
{
	char *name;

	if (!ynode_is_text(n) || n->str_len == 0 ||
	    n->str_len > RUNCONFIG_MAX_NAME)
		return cp_err(p, n, "%s.template must be an agent name such "
			      "as claude_code, codex, autotune or noop, not %s",
			      p->pfx, ynode_describe(n));
	name = xstrdup(n->str);
	for (char *s = name; *s; s++) {
		if (*s == '-')
			*s = '_';
		else if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_')) {
			free(name);
			return cp_err(p, n, "%s.template '%.80s' must use "
				      "only letters, digits, '_' and '-'",
				      p->pfx, n->str);
		}
	}
	p->cur->template_name = name;
	return 0;
}

static int cp_effort(struct cparse *p, const struct ynode *n)
{
	static const char *const efforts[] = { "low", "medium", "high",
					       "xhigh", "max" };

	for (size_t i = 0; ynode_is_text(n) && i < ARRAY_SIZE(efforts); i++) {
		if (!strcmp(n->str, efforts[i])) {
			p->cur->effort = xstrdup(n->str);
			return 0;
		}
	}
	return cp_err(p, n, "%s.effort must be one of low, medium, high, "
		      "xhigh, max, not '%.80s'", p->pfx, ynode_is_text(n) ?
		      n->str : ynode_describe(n));
}

static int cp_command(struct cparse *p, const struct ynode *n)
{
	if (ynode_is_text(n))
		return cp_err(p, n, "%s.command must be a list of arguments, "
			      "not one string; write command: [\"%.60s\"] and "
			      "split it into its words", p->pfx, n->str);
	if (!n || n->kind != YNODE_SEQ || n->n == 0 ||
	    n->n > RUNCONFIG_MAX_COMMAND)
		return cp_err(p, n, "%s.command must be a list of 1 to %d "
			      "strings, e.g. command: [./my_agent, --fast]",
			      p->pfx, RUNCONFIG_MAX_COMMAND);
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *a = n->items[i];
		if (!ynode_is_text(a) || (i == 0 && a->str[0] == '\0'))
			return cp_err(p, a, "%s.command[%zu] must be a "
				      "string, not %s", p->pfx, i,
				      ynode_describe(a));
		strvec_push(&p->cur->command, a->str);
	}
	return 0;
}

static int cp_options(struct cparse *p, const struct ynode *n)
{
	if (!n || n->kind != YNODE_MAP || n->n > RUNCONFIG_MAX_OPTIONS)
		return cp_err(p, n, "%s.options must be a map of at most %d "
			      "settings, e.g. options: {temperature: 0.2}",
			      p->pfx, RUNCONFIG_MAX_OPTIONS);
	for (size_t i = 0; i < n->n; i++) {
		const struct ypair *kv = &n->pairs[i];
		if (kv->key[0] == '\0' || strchr(kv->key, '='))
			return cp_err(p, kv->value, "%s.options: key "
				      "'%.80s' must be non-empty and hold no "
				      "'='", p->pfx, kv->key);
		if (!kv->value || kv->value->kind != YNODE_SCALAR)
			return cp_err(p, kv->value, "%s.options.%.80s must "
				      "be a single value, not %s", p->pfx,
				      kv->key, ynode_describe(kv->value));
		strvec_pushf(&p->cur->options, "%s=%s", kv->key,
			     ynode_is_null(kv->value) ? "" : kv->value->str);
	}
	return 0;
}

/* One optional key of the agent map. */
static int cp_agent_key(struct cparse *p, const struct ypair *kv)
{
	struct agent_config *a = p->cur;
	const struct ynode *n = kv->value;
	const char *k = kv->key;

	if (!strcmp(k, "template"))
		return 0;	/* cp_template */
	if (!strcmp(k, "model"))
		return cp_string(p, n, cp_field(p, "model"), &a->model);
	if (!strcmp(k, "effort"))
		return cp_effort(p, n);
	if (!strcmp(k, "timeout_seconds"))
		return cp_int32(p, n, cp_field(p, "timeout_seconds"), 1, INT_MAX,
				&a->timeout_seconds);
	if (!strcmp(k, "max_iterations"))
		return cp_int32(p, n, cp_field(p, "max_iterations"), 1, INT_MAX,
				&a->max_iterations);
	if (!strcmp(k, "max_budget_usd"))
		return cp_positive(p, n, cp_field(p, "max_budget_usd"), 1e9,
				   &a->max_budget_usd);
	if (!strcmp(k, "command"))
		return cp_command(p, n);
	if (!strcmp(k, "replay_dir"))
		return cp_string(p, n, cp_field(p, "replay_dir"), &a->replay_dir);
	if (!strcmp(k, "disk_quota_mb"))
		return cp_int32(p, n, cp_field(p, "disk_quota_mb"), 1, 1048576,
				&a->disk_quota_mb);
	if (!strcmp(k, "memory_mb"))
		return cp_int32(p, n, cp_field(p, "memory_mb"), 64, 16777216,
				&a->memory_mb);
	return cp_options(p, n);	/* "options": the only key left */
}

/* One agent map (agent: or an entry of agents:) into p->cur. */
static int cp_agent_map(struct cparse *p, const struct ynode *n,
			bool named)
{
	static const char *const keys[] = {
		"template",	   "model",	     "effort",
		"timeout_seconds", "max_iterations", "max_budget_usd",
		"command",	   "replay_dir",     "disk_quota_mb",
		"memory_mb",	   "options",	     "name",
	};
	int rc;

	if ((rc = cp_map(p, n, p->pfx, keys, ARRAY_SIZE(keys) - !named,
			 "{template: claude_code, model: ...}")) != 0)
		return rc;
	if (!ynode_get(n, "template"))
		return cp_err(p, n, "%s: missing required key 'template'; "
			      "name the agent, e.g. template: noop", p->pfx);
	if ((rc = cp_template(p, ynode_get(n, "template"))) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++) {
		if (!strcmp(n->pairs[i].key, "name"))
			continue;
		if ((rc = cp_agent_key(p, &n->pairs[i])) != 0)
			return rc;
	}
	return 0;
}

static bool cp_variant_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '-'))
			return false;
	return true;
}

/* agents: [{name: a, template: ...}, ...] - several configurations, each
 * attempting every task (arena's answer to AgentKernelArena's "one agent
 * per run"). */
static int cp_agents(struct cparse *p, const struct ynode *n)
{
	struct runconfig *c = p->c;
	int rc;

	if (n->kind != YNODE_SEQ || n->n < 2 || n->n > RUNCONFIG_MAX_VARIANTS)
		return cp_err(p, n, "agents must be a list of 2 to %d agent "
			      "maps, each with a unique name, e.g. agents: "
			      "[{name: a, template: noop}, {name: b, template: "
			      "autotune}]; use agent: for a single one",
			      RUNCONFIG_MAX_VARIANTS);
	c->nvariants = (int)n->n;
	c->variants = xcalloc(n->n, sizeof(*c->variants));
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *m = n->items[i], *name;
		snprintf(p->pfx, sizeof(p->pfx), "agents[%zu]", i);
		p->cur = &c->variants[i].agent;
		if ((rc = cp_agent_map(p, m, true)) != 0)
			return rc;
		name = ynode_get(m, "name");
		if (!name || !ynode_is_text(name) ||
		    !cp_variant_name_ok(name->str))
			return cp_err(p, name ? name : m, "%s.name must be 1 to "
				      "32 characters from [a-z0-9_-]; it names "
				      "this configuration in directories and "
				      "reports", p->pfx);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->variants[j].name, name->str))
				return cp_err(p, name, "%s.name '%s' is used "
					      "twice; names must be unique",
					      p->pfx, name->str);
		c->variants[i].name = xstrdup(name->str);
	}
	return 0;
}

static int cp_agent(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "agent");
	const struct ynode *many = ynode_get(root, "agents");
	int rc;

	if (n && many)
		return cp_err(p, many, "give either agent: (one configuration) "
			      "or agents: (several), not both");
	if (many) {
		if ((rc = cp_agents(p, many)) != 0)
			return rc;
		/* agent mirrors the first variant for single-agent readers. */
		agent_config_copy(&p->c->agent, &p->c->variants[0].agent);
		return 0;
	}
	if (!n)
		return cp_err(p, root, "missing required key 'agent'; e.g. "
			      "agent: {template: noop}");
	snprintf(p->pfx, sizeof(p->pfx), "agent");
	p->cur = &p->c->agent;
	if ((rc = cp_agent_map(p, n, false)) != 0)
		return rc;
	p->c->nvariants = 1;
	p->c->variants = xcalloc(1, sizeof(*p->c->variants));
	p->c->variants[0].name = xstrdup("");
	agent_config_copy(&p->c->variants[0].agent, &p->c->agent);
	return 0;
}

/* ---- tasks ------------------------------------------------------------- */

/* Expands selector i, loads every task it adds (to report broken tasks
 * now) and appends the new ids. */
static int cp_expand(struct cparse *p, const struct ynode *n, size_t i)
{
	struct strvec ids = STRVEC_INIT;
	struct errbuf e;
	int rc;

	errbuf_init(&e);
	rc = task_select(p->tasks_root, n->str, &ids, &e);
	if (rc) {
		cp_err(p, n, "tasks[%zu]: %s", i, errbuf_str(&e));
		strvec_release(&ids);
		return rc;
	}
	for (size_t j = 0; j < ids.n; j++) {
		struct task *t;
		if (strvec_contains(&p->c->task_ids, ids.v[j]))
			continue;
		if ((rc = task_load(p->tasks_root, ids.v[j], &t, &e)) != 0) {
			cp_err(p, n, "tasks[%zu] ('%.80s'): task '%s' is "
			       "invalid: %s", i, n->str, ids.v[j],
			       errbuf_str(&e));
			break;
		}
		task_free(t);
		strvec_push(&p->c->task_ids, ids.v[j]);
	}
	strvec_release(&ids);
	return rc;
}

static int cp_str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cp_tasks(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "tasks");
	const struct ynode *one[1];
	const struct ynode *const *items;
	size_t count;
	int rc;

	if (!n)
		return cp_err(p, root, "missing required key 'tasks'; list task "
			      "selectors, e.g. tasks: [c2c] or tasks: [all]");
	if (ynode_is_text(n)) {
		one[0] = n;
		items = one;
		count = 1;
	} else if (n->kind == YNODE_SEQ && n->n > 0 &&
		   n->n <= RUNCONFIG_MAX_SELECTORS) {
		items = (const struct ynode *const *)n->items;
		count = n->n;
	} else if (n->kind == YNODE_SEQ && n->n > 0) {
		return cp_err(
			p, n,
			"tasks lists %zu selectors; at most %d: "
			"select whole families or subtrees (c2c, "
			"hip2hip/gpumode) or a suite (suite:NAME) instead "
			"of every task",
			n->n, RUNCONFIG_MAX_SELECTORS);
	} else {
		return cp_err(p, n, "tasks must be a list of 1 to %d selectors "
			      "(all, a family such as c2c, or a task id such as "
			      "c2c/saxpy), not %s", RUNCONFIG_MAX_SELECTORS,
			      n->kind == YNODE_SEQ ? "an empty list" :
			      ynode_describe(n));
	}
	for (size_t i = 0; i < count; i++) {
		if (!ynode_is_text(items[i]))
			return cp_err(p, items[i], "tasks[%zu] must be a "
				      "selector string, not %s", i,
				      ynode_describe(items[i]));
		strvec_push(&p->c->selectors, items[i]->str);
		if ((rc = cp_expand(p, items[i], i)) != 0)
			return rc;
	}
	qsort(p->c->task_ids.v, p->c->task_ids.n, sizeof(char *), cp_str_cmp);
	return 0;
}

/* ---- device, seed, repeats, timing ------------------------------------ */

static bool cp_device_ok(const char *s)
{
	const char *num;

	if (!strcmp(s, "auto") || !strcmp(s, "host"))
		return true;
	if (str_starts_with(s, "cuda:"))
		num = s + 5;
	else if (str_starts_with(s, "hip:"))
		num = s + 4;
	else
		return false;
	size_t len = strlen(num);
	return len >= 1 && len <= 4 && strspn(num, "0123456789") == len;
}

static int cp_device(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "device");

	if (!n) {
		p->c->device = xstrdup("auto");
		return 0;
	}
	if (!ynode_is_text(n) || !cp_device_ok(n->str))
		return cp_err(p, n, "device must be auto, host, cuda:N or hip:N "
			      "(N a device index such as 0), not '%.80s'",
			      ynode_is_text(n) ? n->str : ynode_describe(n));
	p->c->device = xstrdup(n->str);
	return 0;
}

/* gpus: [0, 1, ...]: one worker per device (docs/config.md). */
static int cp_gpus(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "gpus");

	if (!n)
		return 0;
	if (n->kind != YNODE_SEQ || n->n == 0)
		return cp_err(p, n, "gpus must be a list of device indices, as "
			      "in gpus: [0, 1], not %s", ynode_describe(n));
	if (!strcmp(p->c->device, "host"))
		return cp_err(p, n, "gpus names GPU devices but device is host; "
			      "remove gpus or set device: cuda:0 (or hip:0, or "
			      "auto)");
	if (n->n > RUNCONFIG_MAX_GPUS)
		return cp_err(p, n, "gpus lists %zu devices; at most %d", n->n,
			      RUNCONFIG_MAX_GPUS);
	for (size_t i = 0; i < n->n; i++) {
		char field[32];
		int v, rc;
		snprintf(field, sizeof(field), "gpus[%zu]", i);
		if ((rc = cp_int32(p, n->items[i], field, 0, 1023, &v)) != 0)
			return rc;
		for (int k = 0; k < p->c->ngpus; k++)
			if (p->c->gpus[k] == v)
				return cp_err(p, n->items[i], "gpus lists device "
					      "%d twice; name each device once", v);
		p->c->gpus[p->c->ngpus++] = v;
	}
	return 0;
}

static int cp_numbers(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n;
	int64_t v;
	int rc;

	p->c->repeats = 1;
	if ((n = ynode_get(root, "repeats")) &&
	    (rc = cp_int32(p, n, "repeats", 1, 100, &p->c->repeats)) != 0)
		return rc;
	if ((n = ynode_get(root, "seed")) != NULL) {
		if ((rc = cp_int(p, n, "seed", 0, INT64_MAX, &v)) != 0)
			return rc;
		p->c->has_seed = true;
		p->c->seed = (uint64_t)v;
	}
	return 0;
}

static int cp_timing_key(struct cparse *p, const struct ypair *kv)
{
	struct timing_budget *t = &p->c->timing;
	const struct ynode *n = kv->value;
	const char *k = kv->key;

	if (!strcmp(k, "case_budget_s"))
		return cp_positive(p, n, "timing.case_budget_s", 3600,
				   &t->case_budget_s);
	if (!strcmp(k, "target_ci"))
		return cp_positive(p, n, "timing.target_ci", 0.5,
				   &t->target_ci);
	if (!strcmp(k, "min_pairs"))
		return cp_int32(p, n, "timing.min_pairs", 1, 100000,
				&t->min_pairs);
	if (!strcmp(k, "max_pairs"))
		return cp_int32(p, n, "timing.max_pairs", 1, 1000000,
				&t->max_pairs);
	if (!strcmp(k, "blocks"))
		return cp_int32(p, n, "timing.blocks", 1, 100, &t->blocks);
	if (!strcmp(k, "correctness_trials"))
		return cp_int32(p, n, "timing.correctness_trials", 3, 1000,
				&t->correctness_trials);
	if (!strcmp(k, "runner_timeout_s"))
		return cp_positive(p, n, "timing.runner_timeout_s", 86400,
				   &t->runner_timeout_s);
	if (!strcmp(k, "compile_memory_mb"))
		return cp_int32(p, n, "timing.compile_memory_mb", 64, 1048576,
				&t->compile_memory_mb);
	return cp_positive(p, n, "timing.compile_timeout_s", 86400,
			   &t->compile_timeout_s);
}

static int cp_timing(struct cparse *p, const struct ynode *root)
{
	static const char *const keys[] = {
		"case_budget_s",
		"target_ci",
		"min_pairs",
		"max_pairs",
		"blocks",
		"correctness_trials",
		"runner_timeout_s",
		"compile_timeout_s",
		"compile_memory_mb",
	};
	const struct ynode *n = ynode_get(root, "timing");
	struct timing_budget *t = &p->c->timing;
	int rc;

	timing_budget_defaults(t);
	if (!n)
		return 0;
	if ((rc = cp_map(p, n, "timing", keys, ARRAY_SIZE(keys),
			 "timing: {case_budget_s: 2.0}")) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++)
		if ((rc = cp_timing_key(p, &n->pairs[i])) != 0)
			return rc;
	if ((int64_t)t->min_pairs * t->blocks > t->max_pairs)
		return cp_err(p, n, "timing: max_pairs (%d) must be at least "
			      "min_pairs x blocks (%d x %d); raise max_pairs or "
			      "lower the others", t->max_pairs, t->min_pairs,
			      t->blocks);
	return 0;
}

/* ---- top level --------------------------------------------------------- */

static int cp_strings(struct cparse *p, const struct ynode *root)
{
	static const char *const keys[] = {
		"target_gpu_model", "log_directory",
		"workspace_directory_prefix",
	};
	char **fields[] = {
		&p->c->target_gpu_model, &p->c->log_directory,
		&p->c->workspace_directory_prefix,
	};
	int rc;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const struct ynode *n = ynode_get(root, keys[i]);
		if (n && (rc = cp_string(p, n, keys[i], fields[i])) != 0)
			return rc;
	}
	return 0;
}

/* task_roots: {name: path}: other directories of tasks, e.g. an
 * AgentKernelArena checkout; their tasks are selected as name/... */
static int cp_task_roots(struct cparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "task_roots");

	if (!n)
		return 0;
	if (n->kind != YNODE_MAP)
		return cp_err(p, n,
			      "task_roots must be a map of names to "
			      "directories, not %s (e.g. task_roots: {aka: "
			      "/path/to/AgentKernelArena})",
			      ynode_describe(n));
	for (size_t i = 0; i < n->n; i++) {
		const struct ypair *kv = &n->pairs[i];
		struct errbuf e;
		if (!ynode_is_text(kv->value))
			return cp_err(p, kv->value,
				      "task_roots.%s must be a "
				      "directory path, not %s",
				      kv->key, ynode_describe(kv->value));
		errbuf_init(&e);
		if (task_root_add(kv->key, kv->value->str, &e) != 0)
			return cp_err(p, kv->value, "task_roots.%s: %s",
				      kv->key, errbuf_str(&e));
	}
	return 0;
}

static int cp_root(struct cparse *p, const struct ynode *root)
{
	static const char *const keys[] = {
		"agent",	 "agents",
		"tasks",	 "target_gpu_model",
		"log_directory", "workspace_directory_prefix",
		"device",	 "gpus",
		"seed",		 "repeats",
		"timing",	 "task_roots",
	};
	int rc;

	if (!root)
		return cp_err(p, NULL, "the run config is empty; it needs at "
			      "least agent and tasks (docs/config.md)");
	if (root->kind != YNODE_MAP)
		return cp_err(p, root, "a run config must be a map of keys, not "
			      "%s (docs/config.md)", ynode_describe(root));
	if ((rc = ynode_check_keys(root, keys, ARRAY_SIZE(keys), p->source,
				   NULL, p->err)) != 0 ||
	    (rc = cp_agent(p, root)) != 0 || (rc = cp_strings(p, root)) != 0 ||
	    (rc = cp_device(p, root)) != 0 || (rc = cp_gpus(p, root)) != 0 ||
	    (rc = cp_numbers(p, root)) != 0 || (rc = cp_timing(p, root)) != 0 ||
	    (rc = cp_task_roots(p, root)) != 0)
		return rc;
	/* Last: it loads every task, the slow part. */
	return cp_tasks(p, root);
}

int runconfig_parse(const char *source, const char *text, size_t len,
		    const char *tasks_root, struct runconfig **out,
		    struct errbuf *err)
{
	struct cparse p = {
		.source = source ? source : "<runs/new>",
		.tasks_root = tasks_root ? tasks_root : task_default_root(),
		.err = err,
	};
	struct ydoc doc;
	int rc;

	*out = NULL;
	if (!text)
		text = "", len = 0;
	if (len > RUNCONFIG_MAX_BYTES)
		return errf_code(err, EFBIG, "%s: a run config is at most %d "
				 "bytes; this one has %zu", p.source,
				 RUNCONFIG_MAX_BYTES, len);
	if ((rc = ydoc_parse(&doc, p.source, text, len, err)) != 0)
		return rc;
	p.c = xcalloc(1, sizeof(*p.c));
	p.c->path = xstrdup(p.source);
	p.c->text = xstrndup(text, len);
	rc = cp_root(&p, doc.root);
	ydoc_release(&doc);
	if (rc) {
		runconfig_free(p.c);
		return rc;
	}
	*out = p.c;
	return 0;
}

int runconfig_load(const char *path, const char *tasks_root,
		   struct runconfig **out, struct errbuf *err)
{
	char *text;
	size_t len;
	int rc;

	*out = NULL;
	rc = file_read_all(path, RUNCONFIG_MAX_BYTES, &text, &len, err);
	if (rc)
		return rc;
	rc = runconfig_parse(path, text, len, tasks_root, out, err);
	free(text);
	return rc;
}

/*
 * task_load.c - building a struct task from its files: reading
 * config.yaml and held_out.yaml, running the section parsers in order,
 * the per-case and on-disk checks, and the config hash
 * (task_load, task_parse; arena/task.h).
 */
#include "task_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- building a task ---------------------------------------------------- */

static int task_set_id(struct task *t, const char *id, struct errbuf *err)
{
	const char *slash;

	if (!id || !path_is_safe_relative(id) || !strchr(id, '/'))
		return errf(err, "task id '%.200s' must be a relative path "
			    "<family>/<name> under the tasks directory",
			    id ? id : "(null)");
	for (const char *s = id; *s; s = slash + 1) {
		slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		if (!tp_is_name(s, len))
			return errf(err, "task id '%.200s': each component must "
				    "be 1 to %d characters from [A-Za-z0-9_.-]",
				    id, TASK_MAX_NAME_LEN);
		if (!slash)
			break;
	}
	t->id = xstrdup(id);
	/* Under a registered root the first component is the root's name,
	 * and the family is the next one (aka/triton2triton/... is a
	 * triton2triton task). */
	const char *rest = NULL;
	if (task_root_of(id, &rest) && strchr(rest, '/'))
		t->family = xstrndup(rest, (size_t)(strchr(rest, '/') - rest));
	else
		t->family = xstrndup(id, (size_t)(strchr(id, '/') - id));
	t->name = xstrdup(strrchr(id, '/') + 1);
	return 0;
}

static int tp_sections(struct tparse *p, const struct ynode *root,
		       const struct ynode *held)
{
	static const char *const keys[] = {
		"schema",
		"description",
		"language",
		"initial_state",
		"editable",
		"entry",
		"reference",
		"readme",
		"compile_flags",
		"signature",
		"cases",
		"tolerance",
		"cost",
		"tunables",
		"held_out",
		"baseline",
		"timing_floor_us",
		"timing_floor_reason",
		"forbid_library_calls",
		"allowed_calls",
		"held_out_rules",
	};
	int rc;

	if (!root || root->kind != YNODE_MAP)
		return tp_err(p, root, "a task config must be a map of keys, "
			      "not %s; start from the example in "
			      "docs/tasks.md", ynode_describe(root));
	/* The schema first: an AgentKernelArena task is named as such
	 * rather than reported as a pile of unknown keys. */
	if ((rc = tp_schema(p, root)) != 0 ||
	    (rc = tp_keys(p, root, keys, ARRAY_SIZE(keys), NULL)) != 0 ||
	    (rc = tp_meta(p, root)) != 0 ||
	    (rc = tp_editable(p, root)) != 0 ||
	    (rc = tp_reference(p, root)) != 0 ||
	    (rc = tp_baseline(p, root)) != 0 ||
	    (rc = tp_compile_flags(p, root)) != 0 ||
	    (rc = tp_optional_paths(p, root)) != 0 ||
	    (rc = tp_signature(p, root)) != 0 ||
	    (rc = tp_reference_split(p, root)) != 0 ||
	    (rc = tp_cases(p, root, false)) != 0)
		return rc;
	p->t->nvisible = p->t->ncases;
	if (held && (rc = tp_held_out(p, held)) != 0)
		return rc;
	if ((rc = tp_tolerance(p, root)) != 0 || (rc = tp_cost(p, root)) != 0 ||
	    (rc = tp_timing_floor(p, root)) != 0 ||
	    (rc = tp_held_out_rules(p, root)) != 0 ||
	    (rc = tp_tunables(p, root)) != 0 ||
	    (rc = tp_python(p, root)) != 0 ||
	    (rc = tp_check_files(p, root)) != 0)
		return rc;
	for (int i = 0; i < p->t->ncases; i++)
		if ((rc = tp_check_case(p, i)) != 0)
			return rc;
	return 0;
}

struct task_src {
	const char *id;
	const char *dir_real;		/* NULL: skip file checks */
	const char *config_name;	/* for messages */
	const char *held_name;
	const char *config_text;
	size_t config_len;
	const char *held_text;		/* NULL: no held-out cases */
	size_t held_len;
};

static void task_hash(struct task *t, const struct task_src *src)
{
	struct sha256 s;
	unsigned char d[32];
	char hex[65];

	sha256_init(&s);
	sha256_update(&s, src->config_text, src->config_len);
	if (src->held_text)
		sha256_update(&s, src->held_text, src->held_len);
	sha256_final(&s, d);
	sha256_to_hex(d, hex);
	t->config_sha256 = xstrdup(hex);
}

/* The seed of held_out_rules' choices: the held-out file's bytes when
 * there is one (an agent never sees them), else config.yaml's. */
static uint64_t rule_seed(const struct task_src *src)
{
	struct sha256 s;
	unsigned char d[32];
	uint64_t seed;

	sha256_init(&s);
	if (src->held_text)
		sha256_update(&s, src->held_text, src->held_len);
	else
		sha256_update(&s, src->config_text, src->config_len);
	sha256_final(&s, d);
	memcpy(&seed, d, sizeof(seed));
	return seed;
}

/* Parses the YAML of src and validates it into a new task. */
static int task_build(const struct task_src *src, struct task **out,
		      struct errbuf *err)
{
	struct ydoc cfg, held = { 0 };
	struct tparse p = {
		.source = src->config_name,
		.config_name = src->config_name,
		.held_name = src->held_name,
		.dir = src->dir_real,
		.err = err,
	};
	int rc;

	*out = NULL;
	p.t = xcalloc(1, sizeof(*p.t));
	if ((rc = task_set_id(p.t, src->id, err)) != 0) {
		task_free(p.t);
		return rc;
	}
	if ((rc = ydoc_parse(&cfg, src->config_name, src->config_text,
			     src->config_len, err)) != 0) {
		task_free(p.t);
		return rc;
	}
	/* AgentKernelArena's folders have their own schema (and no
	 * held-out file). */
	bool aka = aka_config_detect(src->config_text, src->config_len);
	if (src->held_text && !aka)
		rc = ydoc_parse(&held, src->held_name, src->held_text,
				src->held_len, err);
	if (rc == 0 && aka)
		rc = tp_aka(&p, cfg.root);
	else if (rc == 0)
		rc = tp_sections(&p, cfg.root, src->held_text ? held.root :
				 NULL);
	if (rc == 0 && src->held_text && !held.root && !aka)
		rc = ynode_errf(err, src->held_name, NULL, "the file is empty; "
				"give cases: [...] or delete it");
	if (rc == 0)
		tp_rule_cases(&p, rule_seed(src));
	ydoc_release(&cfg);
	ydoc_release(&held);
	if (rc) {
		task_free(p.t);
		return rc;
	}
	if (src->dir_real)
		p.t->dir = xstrdup(src->dir_real);
	task_hash(p.t, src);
	*out = p.t;
	return 0;
}

int task_parse(const char *id, const char *dir, const char *config_text,
	       size_t config_len, const char *held_out_text,
	       size_t held_out_len, struct task **out, struct errbuf *err)
{
	const char *base = dir ? dir : id ? id : "task";
	char *config_name = path_join(base, "config.yaml");
	char *held_name = path_join(base, "held_out.yaml");
	char *real = NULL;
	int rc = 0;

	*out = NULL;
	if (dir && !(real = path_real(dir)))
		rc = errf_code(err, ENOENT, "task directory %s does not exist",
			       dir);
	if (rc == 0) {
		struct task_src src = {
			.id = id,
			.dir_real = real,
			.config_name = config_name,
			.held_name = held_name,
			.config_text = config_text ? config_text : "",
			.config_len = config_text ? config_len : 0,
			.held_text = held_out_text,
			.held_len = held_out_len,
		};
		rc = task_build(&src, out, err);
	}
	free(config_name);
	free(held_name);
	free(real);
	return rc;
}

/* The held-out file task_load reads: the one named by `held_out:`, which
 * must exist, else held_out.yaml when present.  *path is NULL when there is
 * none; a malformed `held_out:` value is left for task_build to report. */
static int task_held_out_path(const char *dir, const char *config_name,
			      const char *text, size_t len, char **path,
			      struct errbuf *err)
{
	struct ydoc doc;
	const struct ynode *n;
	int rc;

	*path = NULL;
	if ((rc = ydoc_parse(&doc, config_name, text, len, err)) != 0)
		return rc;
	n = ynode_get(doc.root, "held_out");
	if (n && ynode_is_text(n) && path_is_safe_relative(n->str)) {
		*path = path_join(dir, n->str);
		if (!file_exists(*path))
			rc = ynode_errf(err, config_name, n, "held_out '%s' "
					"does not exist in %s; add the file or "
					"remove the key", n->str, dir);
	} else if (!n) {
		*path = path_join(dir, "held_out.yaml");
		if (!file_exists(*path)) {
			free(*path);
			*path = NULL;
		}
	}
	ydoc_release(&doc);
	if (rc) {
		free(*path);
		*path = NULL;
	}
	return rc;
}

/* Reads config.yaml and the held-out file of the task in dir. */
static int task_read_sources(const char *dir, struct task_src *src,
			     char **config, char **held, char **held_path,
			     struct errbuf *err)
{
	char *config_path = path_join(dir, "config.yaml");
	int rc = file_read_all(config_path, TASK_CONFIG_MAX_BYTES, config,
			       &src->config_len, err);

	free(config_path);
	if (rc)
		return rc;
	rc = task_held_out_path(dir, src->config_name, *config,
				src->config_len, held_path, err);
	if (rc == 0 && *held_path)
		rc = file_read_all(*held_path, TASK_CONFIG_MAX_BYTES, held,
				   &src->held_len, err);
	src->config_text = *config;
	src->held_text = *held;
	if (*held_path)
		src->held_name = *held_path;
	return rc;
}

/* Loads task `id` whose package is dir (tasks_root/id, or a trusted
 * copy); where names the place in messages. */
static int task_load_from(const char *dir, const char *id, const char *where,
			  struct task **out, struct errbuf *err)
{
	char *config_name, *real = NULL;
	char *config = NULL, *held = NULL, *held_path = NULL;
	struct task_src src = { .id = id };
	int rc;

	*out = NULL;
	if (!id || !path_is_safe_relative(id))
		return errf(err,
			    "task id '%.200s' must be a relative path "
			    "<family>/<name> under the tasks directory",
			    id ? id : "(null)");
	config_name = path_join(dir, "config.yaml");
	src.config_name = config_name;
	src.held_name = config_name;
	if (!file_exists(config_name) || !(real = path_real(dir)))
		rc = errf_code(err, ENOENT,
			       "no task '%s' under %s (%s does not "
			       "exist); run 'arena tasks' to list them",
			       id, where, config_name);
	else
		rc = task_read_sources(dir, &src, &config, &held, &held_path,
				       err);
	if (rc == 0) {
		src.dir_real = real;
		rc = task_build(&src, out, err);
	}
	free(config_name);
	free(real);
	free(config);
	free(held);
	free(held_path);
	return rc;
}

int task_load(const char *tasks_root, const char *id, struct task **out,
	      struct errbuf *err)
{
	char *dir;
	int rc;

	*out = NULL;
	if (!id || !path_is_safe_relative(id))
		return errf(err,
			    "task id '%.200s' must be a relative path "
			    "<family>/<name> under the tasks directory",
			    id ? id : "(null)");
	/* An id under a registered root (aka/...) is that root's task. */
	const char *rest = NULL, *other = task_root_of(id, &rest);
	if (other) {
		tasks_root = other;
		dir = path_join(other, rest);
	} else {
		dir = path_join(tasks_root, id);
	}
	rc = task_load_from(dir, id, tasks_root, out, err);
	free(dir);
	return rc;
}

int task_load_trusted(const char *root, const char *hash, const char *id,
		      struct task **out, struct errbuf *err)
{
	char *dir = task_trust_dir(root, hash);
	int rc = task_trust_verify(dir, hash, NULL, err);

	*out = NULL;
	if (rc == 0)
		rc = task_load_from(dir, id, "its trusted copy", out, err);
	if (rc == 0)
		(*out)->trusted_hash = xstrdup(hash);
	free(dir);
	return rc;
}

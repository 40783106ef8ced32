/*
 * aka_task.c - AgentKernelArena task folders as they are (docs/aka.md):
 * config.yaml with AKA's legacy keys (task_type, source_file_path,
 * compile_command, ...) or with `schema_version: 2`, parsed strictly into
 * a struct task whose `aka` part says how the task checks itself (its
 * harness style) and whether it can run here at all.
 *
 * Such a task has no signature and no cases: the evaluator records them
 * from the task's own harness when it prepares the task (eval room,
 * aka_prepare.c).  What is decided here, from the files alone:
 *
 *   - the editable files: target_file_path (the .hip of a torch2hip task,
 *     whose source_file_path is the PyTorch module it is checked against)
 *     or source_file_path, plus editable_sources; where both are empty
 *     (instruction2triton), the .py file that defines the target
 *     functions;
 *   - the language: hip for .hip/.cu sources, triton when a Python source
 *     of the task imports triton, python (PyTorch on the host) otherwise;
 *   - the style: vllm (scripts/task_runner.py), rocmbench (a pytest file
 *     holding kernel and tests), geak (test_kernel_harness.py), gpumode
 *     (eval_tools/);
 *   - a skip reason for what cannot run on this machine for certain:
 *     FlyDSL, aiter, ROCm images and repositories, HIP torch extensions,
 *     tasks the folder marks skip.  Failures that depend on the code path
 *     taken (fp8 "fnuz" types, waves_per_eu) are found when the task is
 *     prepared, by running it (aka_prepare.c).
 *
 * Every error names the file, the line, the field and the fix, like the
 * arena/1 parser's (tp_err).
 */
#include "task_parse.h"

#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define AKA_MAX_COMMANDS 32
#define AKA_SCAN_MAX_FILES 256
#define AKA_SCAN_MAX_DEPTH 3
#define AKA_SCAN_MAX_BYTES (1u << 20)
#define AKA_DEFAULT_TIMEOUT_S 3600

const char *aka_style_name(enum aka_style s)
{
	switch (s) {
	case AKA_STYLE_VLLM:
		return "vllm";
	case AKA_STYLE_ROCMBENCH:
		return "rocmbench";
	case AKA_STYLE_GEAK:
		return "geak_eval";
	case AKA_STYLE_GPUMODE:
		return "gpumode";
	case AKA_STYLE_UNKNOWN:
		break;
	}
	return "unknown";
}

void aka_task_free(struct aka_task *a)
{
	if (!a)
		return;
	free(a->task_type);
	free(a->harness);
	strvec_release(&a->targets);
	strvec_release(&a->compile_command);
	strvec_release(&a->correctness_command);
	strvec_release(&a->performance_command);
	strvec_release(&a->runner);
	free(a->instructions);
	free(a->source_code);
	free(a->cheatsheet);
	free(a->skip_reason);
	free(a);
}

bool aka_config_detect(const char *text, size_t len)
{
	struct ydoc doc;
	struct errbuf e;
	bool aka = false;

	errbuf_init(&e);
	if (ydoc_parse(&doc, "config.yaml", text, len, &e) != 0)
		return false;
	if (doc.root && doc.root->kind == YNODE_MAP &&
	    !ynode_get(doc.root, "schema"))
		aka = ynode_get(doc.root, "schema_version") ||
		      ynode_get(doc.root, "task_type") ||
		      ynode_get(doc.root, "compile_command");
	ydoc_release(&doc);
	return aka;
}

/* ---- field helpers -------------------------------------------------------- */

/* A list of non-empty strings into out (a missing key: nothing). */
static int aka_strings(struct tparse *p, const struct ynode *root,
		       const char *key, size_t max, bool paths,
		       struct strvec *out)
{
	const struct ynode *n = ynode_get(root, key);

	if (!n || ynode_is_null(n))
		return 0;
	if (n->kind == YNODE_SCALAR)
		return tp_err(p, n,
			      "%s must be a list, not a string; write "
			      "%s: [\"%.60s\"]",
			      key, key, n->str);
	int rc = tp_list(p, n, key, 0, max, "[\"...\"]");
	for (size_t i = 0; rc == 0 && i < n->n; i++) {
		char field[96], *s = NULL;
		snprintf(field, sizeof(field), "%s[%zu]", key, i);
		rc = paths ? tp_relpath(p, n->items[i], field, &s)
			   : tp_string(p, n->items[i], field, &s);
		if (rc == 0)
			strvec_push(out, s);
		free(s);
	}
	return rc;
}

static int aka_text(struct tparse *p, const struct ynode *map, const char *key,
		    const char *field, char **out)
{
	const struct ynode *n = ynode_get(map, key);

	if (!n || ynode_is_null(n))
		return 0;
	if (n->kind != YNODE_SCALAR)
		return tp_err(p, n, "%s must be a string, not %s", field,
			      ynode_describe(n));
	free(*out);
	*out = xstrdup(n->str);
	return 0;
}

static int aka_timeout(struct tparse *p, const struct ynode *map,
		       const char *key, const char *field, int *out)
{
	const struct ynode *n = ynode_get(map, key);
	int64_t v;

	if (!n || ynode_is_null(n))
		return 0;
	if (ynode_i64(n, &v) != 0 || v < 1 || v > 7 * 86400)
		return tp_err(p, n,
			      "%s must be a whole number of seconds "
			      "between 1 and 604800, not %s",
			      field, ynode_describe(n));
	*out = (int)v;
	return 0;
}

/* A map whose keys must be among allowed (or absent). */
static int aka_submap(struct tparse *p, const struct ynode *root,
		      const char *key, const char *const *allowed, size_t n,
		      const struct ynode **out)
{
	const struct ynode *m = ynode_get(root, key);

	*out = NULL;
	if (!m || ynode_is_null(m))
		return 0;
	if (m->kind != YNODE_MAP)
		return tp_err(p, m, "%s must be a map, not %s", key,
			      ynode_describe(m));
	if (allowed) {
		int rc = tp_keys(p, m, allowed, n, key);
		if (rc)
			return rc;
	}
	*out = m;
	return 0;
}

/* ---- the task folder's files ----------------------------------------------- */

static int aka_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The folder's .py, .hip and .cu files (relative), depth-bounded, sorted;
 * hidden entries and build/ are skipped. */
static void aka_scan(const char *dir, const char *rel, int depth,
		     struct strvec *out)
{
	char *abs = rel ? path_join(dir, rel) : xstrdup(dir);
	DIR *d = opendir(abs);
	struct dirent *de;
	struct strvec names = STRVEC_INIT;

	free(abs);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL && names.n < AKA_SCAN_MAX_FILES)
		if (de->d_name[0] != '.' && strcmp(de->d_name, "build") &&
		    strcmp(de->d_name, "__pycache__"))
			strvec_push(&names, de->d_name);
	closedir(d);
	qsort(names.v, names.n, sizeof(*names.v), aka_cmp);
	for (size_t i = 0; i < names.n && out->n < AKA_SCAN_MAX_FILES; i++) {
		char *r = rel ? path_join(rel, names.v[i])
			      : xstrdup(names.v[i]);
		char *a = path_join(dir, r);
		size_t len = strlen(r);
		if (dir_exists(a)) {
			if (depth < AKA_SCAN_MAX_DEPTH)
				aka_scan(dir, r, depth + 1, out);
		} else if ((len > 3 && !strcmp(r + len - 3, ".py")) ||
			   (len > 4 && !strcmp(r + len - 4, ".hip")) ||
			   (len > 3 && !strcmp(r + len - 3, ".cu"))) {
			strvec_push(out, r);
		}
		free(r);
		free(a);
	}
	strvec_release(&names);
}

static char *aka_read(const char *dir, const char *rel)
{
	char *path = path_join(dir, rel), *text = NULL;
	size_t len;
	struct errbuf e;

	errbuf_init(&e);
	if (file_read_all(path, AKA_SCAN_MAX_BYTES, &text, &len, &e) != 0)
		text = NULL;
	free(path);
	return text;
}

/* Whether text has a line matching the extended regex re. */
static bool aka_grep(const char *text, const char *re)
{
	regex_t rx;
	bool hit;

	if (!text || regcomp(&rx, re, REG_EXTENDED | REG_NEWLINE | REG_NOSUB))
		return false;
	hit = regexec(&rx, text, 0, NULL, 0) == 0;
	regfree(&rx);
	return hit;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* The first `<something>.py` word of a shell command, or NULL. */
static char *command_script(const char *cmd)
{
	const char *s = cmd;

	while (*s) {
		while (*s == ' ' || *s == '\t')
			s++;
		const char *w = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		size_t n = (size_t)(s - w);
		if (n > 3 && !strncmp(s - 3, ".py", 3)) {
			char *word = xstrndup(w, n);
			char *q = word;
			if (*q == '"' || *q == '\'')
				q++;
			char *r = xstrdup(q);
			free(word);
			return r;
		}
	}
	return NULL;
}

/* ---- what the folder is --------------------------------------------------- */

/* The harness a style found; it replaces what harness_path named, as it
 * always has (that string leaked before). Takes h. */
static void aka_set_harness(struct aka_task *a, char *h)
{
	free(a->harness);
	a->harness = h;
}

static void aka_style_detect(struct task *t, const struct strvec *files)
{
	struct aka_task *a = t->aka;
	const char *c0 = a->correctness_command.n ? a->correctness_command.v[0]
						  : NULL;
	char *script = c0 ? command_script(c0) : NULL;

	if (c0 && strstr(c0, "eval_tools/")) {
		a->style = AKA_STYLE_GPUMODE;
		aka_set_harness(a, script);
		return;
	}
	if (c0 && !strncmp(c0, "pytest", 6) && script) {
		a->style = AKA_STYLE_ROCMBENCH;
		aka_set_harness(a, script);
		return;
	}
	if (script && ends_with(script, "task_runner.py")) {
		a->style = AKA_STYLE_VLLM;
		aka_set_harness(a, script);
		return;
	}
	if (script && ends_with(script, "_harness.py")) {
		a->style = AKA_STYLE_GEAK;
		aka_set_harness(a, script);
		return;
	}
	free(script);
	/* schema_version 2 names a runner, not the legacy commands: the
	 * files the migrated folders kept say which harness it wraps. */
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		if (!strcmp(f, "scripts/task_runner.py")) {
			a->style = AKA_STYLE_VLLM;
			aka_set_harness(a, xstrdup(f));
			return;
		}
		if (!strcmp(f, "test_kernel_harness.py")) {
			a->style = AKA_STYLE_GEAK;
			aka_set_harness(a, xstrdup(f));
			return;
		}
		if (!strncmp(f, "eval_tools/", 11)) {
			a->style = AKA_STYLE_GPUMODE;
			aka_set_harness(a, xstrdup("eval_tools/"
						   "correctness_check.py"));
			return;
		}
	}
}

static void aka_skip(struct task *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void aka_skip(struct task *t, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	if (t->aka->skip_reason)
		return; /* the first reason found stands */
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	t->aka->skip_reason = strbuf_detach(&sb);
}

/* A gpumode task's extension source (its .hip file), read once: whether
 * it is for a GPU - anything but a complete host C++ extension (one that
 * defines its module and has no GPU code, as arena's CPU fixtures do); an
 * empty file (a torch2hip task's, which the agent fills) is for a GPU -
 * and what in it only an AMD GPU runs. */
static void aka_inspect_gpumode(struct task *t, const char *dir)
{
	char *text = aka_read(dir, t->editable.v[0]);

	if (aka_grep(text, "PYBIND11_MODULE") &&
	    !aka_grep(text, "__global__|hip_runtime|hipLaunchKernelGGL|"
			    "cuda_runtime|<<<"))
		t->language = LANG_PYTHON;
	if (aka_grep(text, "hipblas|hipBLAS|rocblas"))
		aka_skip(t, "its kernel calls hipBLAS, which arena's HIP "
			    "portability layer does not map to cuBLAS");
	if (aka_grep(text, "__builtin_amdgcn"))
		aka_skip(t, "its kernel uses AMD GPU built-ins "
			    "(__builtin_amdgcn_*)");
	/* kWarpSize = 64, #define WAVE_SIZE 64: shared memory and lane
	 * arithmetic sized for AMD's wavefront overflow on a 32-wide warp
	 * (SoftmaxModule's did, on the H200). */
	if (aka_grep(text, "(WAVE|WARP|Wave|Warp|wave|warp)[A-Za-z_]*"
			   "[ \t]*(=[ \t]*)?64([^0-9x.]|$)"))
		aka_skip(t, "its kernel assumes a 64-wide wavefront (a warp "
			    "or wave size of 64 written into it), which an "
			    "NVIDIA warp (32) is not");
	free(text);
}

/* Language, and what certainly cannot run here. */
static void aka_inspect(struct task *t, const char *dir,
			const struct strvec *files)
{
	struct aka_task *a = t->aka;
	bool hip = false, triton = false, flydsl = false, aiter = false;
	struct strvec read = STRVEC_INIT;

	for (size_t i = 0; i < t->editable.n; i++) {
		const char *f = t->editable.v[i];
		if (ends_with(f, ".hip") || ends_with(f, ".cu") ||
		    ends_with(f, ".cpp"))
			hip = true;
		strvec_push(&read, f);
	}
	if (a->harness)
		strvec_push(&read, a->harness);
	for (size_t i = 0; i < read.n; i++) {
		char *text = aka_read(dir, read.v[i]);
		if (aka_grep(text, "^[ \t]*(import|from)[ \t]+triton"))
			triton = true;
		if (aka_grep(text, "^[ \t]*(import|from)[ \t]+flydsl"))
			flydsl = true;
		if (aka_grep(text, "^(import|from)[ \t]+aiter"))
			aiter = true;
		free(text);
	}
	strvec_release(&read);
	t->language = hip ? LANG_HIP : triton ? LANG_TRITON : LANG_PYTHON;

	const char *tt = a->task_type ? a->task_type : "";
	if (strstr(tt, "flydsl") || flydsl)
		aka_skip(t, "FlyDSL kernels run only on AMD GPUs");
	if (aiter)
		aka_skip(t, "the task imports AMD's aiter library");
	/* A gpumode task's .hip file is a PyTorch extension: a HIP one
	 * (kernels, or nothing yet: torch2hip) needs a GPU; host C++ (arena's
	 * own CPU fixtures) runs on the host. */
	if (hip && a->style == AKA_STYLE_GPUMODE && t->editable.n)
		aka_inspect_gpumode(t, dir);
	/* The reference is the kernel as shipped (docs/aka.md). */
	t->reference_language = t->language;
	if (hip && a->style != AKA_STYLE_GPUMODE)
		aka_skip(t,
			 "its HIP kernel is built by a kernel loader of its "
			 "own (a .cpp binding compiled at import); arena "
			 "builds HIP task folders of the gpumode style only");
	if (a->style == AKA_STYLE_UNKNOWN)
		aka_skip(t, "arena has no adapter for this task's harness "
			    "(its correctness command is not one of the vllm, "
			    "rocmbench, geak_eval or gpumode styles)");
	(void)files;
}

/* The .py file that defines every target function (instruction2triton
 * folders list no source file), or NULL. */
static char *aka_defining_file(const char *dir, const struct strvec *targets,
			       const struct strvec *files)
{
	for (size_t i = 0; i < files->n && targets->n; i++) {
		if (!ends_with(files->v[i], ".py"))
			continue;
		char *text = aka_read(dir, files->v[i]);
		bool all = text != NULL;
		for (size_t k = 0; all && k < targets->n; k++) {
			char re[192];
			snprintf(re, sizeof(re), "^[ \t]*def[ \t]+%s[ \t]*\\(",
				 targets->v[k]);
			all = tp_is_ident(targets->v[k]) && aka_grep(text, re);
		}
		free(text);
		if (all)
			return xstrdup(files->v[i]);
	}
	return NULL;
}

/* ---- legacy keys -------------------------------------------------------- */

static int aka_legacy(struct tparse *p, const struct ynode *root,
		      struct strvec *sources, char **target_file)
{
	static const char *const keys[] = {
		"task_type",
		"compile_command",
		"correctness_command",
		"performance_command",
		"source_file_path",
		"target_kernel_functions",
		"task_result_template",
		"prompt",
		"target_file_path",
		"harness_path",
		"repository_language",
		"repo_subdir",
		"repo_url",
		"post_clone_install",
		"post_clone_install_mode",
		"image_repo_path",
		"image_repo_exclude",
		"kernel_identity",
		"source_origin",
		"platform_support",
		"supported_archs",
		"compile_timeout",
		"correctness_timeout",
		"performance_timeout",
		"editable_sources",
		"aiter_commit",
	};
	static const char *const prompt_keys[] = {
		"instructions", "cheatsheet",	 "source_code",
		"task_type",	"output_format",
	};
	static const char *const platform_keys[] = {
		"status",
		"required_arch",
		"skip_reason",
		"runnable_on_gfx942",
	};
	struct aka_task *a = p->t->aka;
	const struct ynode *prompt, *plat;
	int rc;

	a->schema_version = 1;
	if ((rc = tp_keys(p, root, keys, ARRAY_SIZE(keys), NULL)) != 0)
		return rc;
	const struct ynode *tt = ynode_get(root, "task_type");
	if (!tt || ynode_is_null(tt))
		return tp_err(p, root,
			      "task_type is missing; an "
			      "AgentKernelArena task names its type "
			      "(triton2triton, hip2hip, torch2hip, ...)");
	if ((rc = tp_string(p, tt, "task_type", &a->task_type)) != 0)
		return rc;
	if (!ynode_get(root, "correctness_command"))
		return tp_err(p, root,
			      "correctness_command is missing; an "
			      "AgentKernelArena task says how it is checked");
	if ((rc = aka_strings(p, root, "compile_command", AKA_MAX_COMMANDS,
			      false, &a->compile_command)) ||
	    (rc = aka_strings(p, root, "correctness_command", AKA_MAX_COMMANDS,
			      false, &a->correctness_command)) ||
	    (rc = aka_strings(p, root, "performance_command", AKA_MAX_COMMANDS,
			      false, &a->performance_command)) ||
	    (rc = aka_strings(p, root, "target_kernel_functions", 64, false,
			      &a->targets)) ||
	    (rc = aka_strings(p, root, "source_file_path", 32, true,
			      sources)) ||
	    (rc = aka_strings(p, root, "editable_sources", 32, true, sources)))
		return rc;
	/* Some folders write several names in one entry ("a,b"). */
	struct strvec split = STRVEC_INIT;
	for (size_t i = 0; i < a->targets.n; i++) {
		const char *s = a->targets.v[i];
		while (*s) {
			size_t n = strcspn(s, ", ");
			if (n)
				strvec_pushf(&split, "%.*s", (int)n, s);
			s += n;
			s += strspn(s, ", ");
		}
	}
	strvec_release(&a->targets);
	a->targets = split;
	if (a->correctness_command.n == 0)
		return tp_err(p, ynode_get(root, "correctness_command"),
			      "correctness_command is empty; give at least "
			      "one command");
	const struct ynode *tf = ynode_get(root, "target_file_path");
	if (tf && !ynode_is_null(tf) &&
	    (rc = tp_relpath(p, tf, "target_file_path", target_file)) != 0)
		return rc;
	const struct ynode *hp = ynode_get(root, "harness_path");
	if (hp && !ynode_is_null(hp) &&
	    (rc = tp_relpath(p, hp, "harness_path", &a->harness)) != 0)
		return rc;
	if ((rc = aka_timeout(p, root, "compile_timeout", "compile_timeout",
			      &a->timeout_s[AKA_TIMEOUT_COMPILE])) ||
	    (rc = aka_timeout(p, root, "correctness_timeout",
			      "correctness_timeout",
			      &a->timeout_s[AKA_TIMEOUT_CORRECTNESS])) ||
	    (rc = aka_timeout(p, root, "performance_timeout",
			      "performance_timeout",
			      &a->timeout_s[AKA_TIMEOUT_PERFORMANCE])))
		return rc;
	if ((rc = aka_submap(p, root, "prompt", prompt_keys,
			     ARRAY_SIZE(prompt_keys), &prompt)) != 0)
		return rc;
	if (prompt &&
	    ((rc = aka_text(p, prompt, "instructions", "prompt.instructions",
			    &a->instructions)) ||
	     (rc = aka_text(p, prompt, "source_code", "prompt.source_code",
			    &a->source_code)) ||
	     (rc = aka_text(p, prompt, "cheatsheet", "prompt.cheatsheet",
			    &a->cheatsheet))))
		return rc;
	if ((rc = aka_submap(p, root, "platform_support", platform_keys,
			     ARRAY_SIZE(platform_keys), &plat)) != 0)
		return rc;
	if (plat) {
		const struct ynode *st = ynode_get(plat, "status");
		if (st && ynode_is_text(st) && !strcmp(st->str, "skip")) {
			const struct ynode *why =
				ynode_get(plat, "skip_reason");
			aka_skip(p->t, "the task folder marks itself skip%s%s",
				 ynode_is_text(why) ? ": " : "",
				 ynode_is_text(why) ? why->str : "");
		}
	}
	if (ynode_get(root, "repo_url") || ynode_get(root, "image_repo_path"))
		aka_skip(p->t, "the task clones a repository or copies its "
			       "sources from a ROCm image");
	return 0;
}

/* ---- schema_version 2 ------------------------------------------------------- */

static int aka_v2_editable(struct tparse *p, const struct ynode *cand,
			   struct strvec *sources)
{
	static const char *const keys[] = { "path", "scope", "symbols",
					    "allow_new_helpers" };
	const struct ynode *ed = ynode_get(cand, "editable");
	int rc = tp_list(p, ed, "candidate.editable", 1, 32,
			 "[source/kernel.py]");

	for (size_t i = 0; rc == 0 && i < ed->n; i++) {
		const struct ynode *e = ed->items[i];
		char field[64], *path = NULL;
		snprintf(field, sizeof(field), "candidate.editable[%zu]", i);
		if (e->kind == YNODE_MAP) {
			if ((rc = tp_keys(p, e, keys, ARRAY_SIZE(keys), field)))
				break;
			const struct ynode *scope = ynode_get(e, "scope");
			if (scope && ynode_is_text(scope) &&
			    strcmp(scope->str, "file") &&
			    strcmp(scope->str, "symbols") &&
			    strcmp(scope->str, "tree")) {
				rc = tp_err(p, scope,
					    "%s.scope must be file, "
					    "symbols or tree, not '%.40s'",
					    field, scope->str);
				break;
			}
			if (scope && ynode_is_text(scope) &&
			    !strcmp(scope->str, "tree")) {
				aka_skip(p->t,
					 "an editable tree (%s) is not "
					 "supported; arena snapshots files",
					 field);
			}
			char f2[80];
			snprintf(f2, sizeof(f2), "%s.path", field);
			rc = tp_relpath(p, ynode_get(e, "path"), f2, &path);
		} else {
			rc = tp_relpath(p, e, field, &path);
		}
		if (rc == 0)
			strvec_push(sources, path);
		free(path);
	}
	return rc;
}

static int aka_v2(struct tparse *p, const struct ynode *root,
		  struct strvec *sources)
{
	static const char *const keys[] = {
		"schema_version",     "description",	  "instructions",
		"kernel_identity",    "candidate",	  "baseline",
		"evaluation",	      "workspace",	  "platform_support",
		"evaluation_profile", "evaluation_tools", "exports",
	};
	static const char *const cand_keys[] = {
		"language", "initial_state", "initial_language",
		"editable", "entrypoints",
	};
	static const char *const base_keys[] = {
		"kind",
		"language",
		"source_files",
		"correctness_policy",
		"diagnostic_reason",
	};
	static const char *const eval_keys[] = {
		"runner", "workloads", "timeout_s",
		"task",	  "baseline",  "candidate",
	};
	static const char *const ep_keys[] = { "file", "kind", "symbol" };
	static const char *const plat_keys[] = { "required_arch", "status",
						 "skip_reason" };
	struct aka_task *a = p->t->aka;
	const struct ynode *cand, *base, *ev, *plat, *n;
	int64_t v;
	int rc;

	a->schema_version = 2;
	if ((rc = tp_keys(p, root, keys, ARRAY_SIZE(keys), NULL)) != 0)
		return rc;
	n = ynode_get(root, "schema_version");
	if (ynode_i64(n, &v) != 0 || v != 2)
		return tp_err(p, n,
			      "schema_version must be the integer 2, not "
			      "%s; legacy AgentKernelArena tasks have no "
			      "schema_version",
			      ynode_describe(n));
	if ((rc = aka_submap(p, root, "candidate", cand_keys,
			     ARRAY_SIZE(cand_keys), &cand)) ||
	    (rc = aka_submap(p, root, "baseline", base_keys,
			     ARRAY_SIZE(base_keys), &base)) ||
	    (rc = aka_submap(p, root, "evaluation", eval_keys,
			     ARRAY_SIZE(eval_keys), &ev)) ||
	    (rc = aka_submap(p, root, "platform_support", plat_keys,
			     ARRAY_SIZE(plat_keys), &plat)))
		return rc;
	if (!cand)
		return tp_err(p, root,
			      "candidate is missing; a schema_version "
			      "2 task declares candidate.language and "
			      "candidate.editable");
	if (!ev)
		return tp_err(p, root,
			      "evaluation is missing; a "
			      "schema_version 2 task declares "
			      "evaluation.runner (or per-action commands)");
	n = ynode_get(cand, "language");
	char *lang = NULL;
	if ((rc = tp_string(p, n, "candidate.language", &lang)) != 0)
		return rc;
	free(lang);
	n = ynode_get(cand, "initial_state");
	if (n && ynode_is_text(n)) {
		if (!strcmp(n->str, "unimplemented"))
			p->t->initial_state = TASK_UNIMPLEMENTED;
		else if (strcmp(n->str, "implemented"))
			return tp_err(p, n,
				      "candidate.initial_state must be "
				      "implemented or unimplemented, not "
				      "'%.40s'",
				      n->str);
	}
	if ((rc = aka_v2_editable(p, cand, sources)) != 0)
		return rc;
	n = ynode_get(cand, "entrypoints");
	if (n && !ynode_is_null(n)) {
		if ((rc = tp_list(p, n, "candidate.entrypoints", 0, 64,
				  "[{file: source/kernel.py, kind: function, "
				  "symbol: kernel}]")))
			return rc;
		for (size_t i = 0; i < n->n; i++) {
			char field[64];
			snprintf(field, sizeof(field),
				 "candidate.entrypoints[%zu]", i);
			if ((rc = tp_map(p, n->items[i], field,
					 "{file, kind, "
					 "symbol}")) ||
			    (rc = tp_keys(p, n->items[i], ep_keys,
					  ARRAY_SIZE(ep_keys), field)))
				return rc;
			const struct ynode *sym =
				ynode_get(n->items[i], "symbol");
			if (ynode_is_text(sym))
				strvec_push(&a->targets, sym->str);
		}
	}
	n = ynode_get(ev, "runner");
	if (n && !ynode_is_null(n)) {
		if (n->kind == YNODE_SCALAR)
			return tp_err(p, n,
				      "evaluation.runner must be an argv "
				      "list, not a shell string; write runner: "
				      "[python3, scripts/run.py]");
		if ((rc = aka_strings(p, ev, "runner", 64, false, &a->runner)))
			return rc;
	}
	int t_s = 0;
	if ((rc = aka_timeout(p, ev, "timeout_s", "evaluation.timeout_s",
			      &t_s)) != 0)
		return rc;
	for (int i = 0; t_s && i < 3; i++)
		a->timeout_s[i] = t_s;
	if ((rc = aka_text(p, root, "description", "description",
			   &p->t->description)) != 0)
		return rc;
	const struct ynode *ins = ynode_get(root, "instructions");
	if (ins && !ynode_is_null(ins)) {
		struct strvec files = STRVEC_INIT;
		if ((rc = aka_strings(p, root, "instructions", 16, true,
				      &files)) == 0 &&
		    p->dir) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < files.n; i++) {
				char *text = aka_read(p->dir, files.v[i]);
				if (!text) {
					rc = tp_err(p, ins,
						    "instructions file "
						    "'%s' cannot be read in %s",
						    files.v[i], p->dir);
					break;
				}
				strbuf_addf(&sb, "%s%s", sb.len ? "\n" : "",
					    text);
				free(text);
			}
			a->instructions = strbuf_detach(&sb);
		}
		strvec_release(&files);
		if (rc)
			return rc;
	}
	const struct ynode *ws = ynode_get(root, "workspace");
	if (ws && ynode_get(ws, "sources"))
		aka_skip(p->t,
			 "the task materialises its workspace from a "
			 "ROCm image or a git source (workspace.sources)");
	if (plat) {
		n = ynode_get(plat, "status");
		if (n && ynode_is_text(n) && !strcmp(n->str, "skip"))
			aka_skip(p->t, "the task folder marks itself skip");
	}
	/* The task type is the id's first component in schema 2. */
	a->task_type = xstrdup(p->t->family);
	return 0;
}

/* ---- the task -------------------------------------------------------------- */

int tp_aka(struct tparse *p, const struct ynode *root)
{
	struct task *t = p->t;
	struct strvec sources = STRVEC_INIT, files = STRVEC_INIT;
	char *target_file = NULL;
	int rc;

	t->aka = xcalloc(1, sizeof(*t->aka));
	t->initial_state = TASK_IMPLEMENTED;
	for (int i = 0; i < 3; i++)
		t->aka->timeout_s[i] = AKA_DEFAULT_TIMEOUT_S;
	if (!root || root->kind != YNODE_MAP)
		return tp_err(p, root,
			      "a task config must be a map of keys, "
			      "not %s",
			      ynode_describe(root));
	rc = ynode_get(root, "schema_version")
		     ? aka_v2(p, root, &sources)
		     : aka_legacy(p, root, &sources, &target_file);
	if (rc)
		goto out;
	if (p->dir)
		aka_scan(p->dir, NULL, 0, &files);
	const char *tt = t->aka->task_type ? t->aka->task_type : "";
	if (!strcmp(tt, "repository") || !strcmp(tt, "image_kernel"))
		aka_skip(t,
			 "%s tasks build kernels inside ROCm images or "
			 "cloned AMD repositories",
			 tt);
	/* torch2hip: source_file_path is the PyTorch module the .hip file
	 * is checked against; the .hip file is what the agent writes. */
	if (target_file)
		strvec_push(&t->editable, target_file);
	else
		for (size_t i = 0; i < sources.n; i++)
			strvec_push(&t->editable, sources.v[i]);
	if (t->editable.n == 0 && p->dir) {
		char *f = aka_defining_file(p->dir, &t->aka->targets, &files);
		if (f)
			strvec_push(&t->editable, f);
		free(f);
	}
	if (t->editable.n == 0 && !t->aka->skip_reason) {
		rc = tp_err(p, root,
			    "no editable file: source_file_path and "
			    "target_file_path are empty and no .py file of the "
			    "folder defines every target_kernel_functions "
			    "entry");
		goto out;
	}
	for (size_t i = 0; i < t->editable.n; i++) {
		for (size_t k = 0; k < i; k++)
			if (!strcmp(t->editable.v[i], t->editable.v[k])) {
				rc = tp_err(p, root,
					    "editable file '%s' is "
					    "listed twice",
					    t->editable.v[i]);
				goto out;
			}
		/* A skipped folder's sources may come from an image or a
		 * clone that is not there. */
		if (!p->dir || t->aka->skip_reason)
			continue;
		char *f = path_join(p->dir, t->editable.v[i]);
		bool ok = file_exists(f);
		free(f);
		if (!ok) {
			rc = tp_err(p, root,
				    "editable file '%s' does not exist "
				    "in %s",
				    t->editable.v[i], p->dir);
			goto out;
		}
	}
	t->entry = xstrdup("launch");
	if (!t->description) {
		const char *ins = t->aka->instructions;
		while (ins && (*ins == '\n' || *ins == ' '))
			ins++;
		if (ins && *ins) {
			const char *nl = strchr(ins, '\n');
			t->description = nl ? xstrndup(ins, (size_t)(nl - ins))
					    : xstrdup(ins);
		} else {
			t->description = xasprintf("AgentKernelArena %s task "
						   "%s",
						   t->aka->task_type, t->name);
		}
	}
	aka_style_detect(t, &files);
	if (p->dir)
		aka_inspect(t, p->dir, &files);
out:
	strvec_release(&sources);
	strvec_release(&files);
	free(target_file);
	return rc;
}

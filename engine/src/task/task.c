/*
 * task.c - tasks in the native schema `arena/1`: parsing, validation,
 * shape and cost evaluation, and the catalogue (selectors, default root).
 * docs/tasks.md is the reference this file implements, key by key.
 *
 * How it works: the YAML is loaded into a ydoc tree (arena/ydoc.h), then
 * one small function per section (metadata, files, signature, cases, tolerance,
 * cost, tunables) copies what it validates into a struct task.  Nothing is
 * accepted silently: an unknown key, a value of the wrong type or a name
 * that does not resolve is an error naming the file, its line, the field
 * and the fix.  Once every section parsed, every case is evaluated against
 * every shape, randint bound and cost formula, so an expression that
 * overflows or a shape that is not positive is reported at load time and
 * the evaluator can rely on task_arg_shape() succeeding for loaded cases.
 *
 * Ownership: a struct task owns every string it points to; task_free()
 * releases a partly built task too, so error paths just free and return.
 */
#include "arena/task.h"

#include "arena/expr.h"
#include "arena/paths.h"
#include "arena/ydoc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TASK_MAX_EDITABLE 32
#define TASK_MAX_COMPILE_FLAGS 64
#define TASK_MAX_NAME_LEN 64
#define TASK_SELECT_MAX_DEPTH 16
#define TASK_SELECT_MAX_TASKS 100000

/* ---- dtypes and languages -------------------------------------------- */

static const struct {
	arena_dtype dtype;
	const char *name;
	size_t size;
	bool is_float;
} dtype_table[] = {
	{ ARENA_F32, "f32", 4, true },	{ ARENA_F64, "f64", 8, true },
	{ ARENA_F16, "f16", 2, true },	{ ARENA_BF16, "bf16", 2, true },
	{ ARENA_I32, "i32", 4, false }, { ARENA_I64, "i64", 8, false },
	{ ARENA_U8, "u8", 1, false },	{ ARENA_U32, "u32", 4, false },
	{ ARENA_I8, "i8", 1, false },
};

#define DTYPE_NAMES "f32, f64, f16, bf16, i32, i64, u8, u32, i8"

size_t dtype_size(arena_dtype d)
{
	for (size_t i = 0; i < ARRAY_SIZE(dtype_table); i++)
		if (dtype_table[i].dtype == d)
			return dtype_table[i].size;
	return 0;
}

const char *dtype_name(arena_dtype d)
{
	for (size_t i = 0; i < ARRAY_SIZE(dtype_table); i++)
		if (dtype_table[i].dtype == d)
			return dtype_table[i].name;
	return "unknown";
}

int dtype_parse(const char *s, arena_dtype *out)
{
	for (size_t i = 0; s && i < ARRAY_SIZE(dtype_table); i++) {
		if (!strcmp(dtype_table[i].name, s)) {
			*out = dtype_table[i].dtype;
			return 0;
		}
	}
	return -EINVAL;
}

bool dtype_is_float(arena_dtype d)
{
	for (size_t i = 0; i < ARRAY_SIZE(dtype_table); i++)
		if (dtype_table[i].dtype == d)
			return dtype_table[i].is_float;
	return false;
}

const char *language_name(enum task_language l)
{
	switch (l) {
	case LANG_C:
		return "c";
	case LANG_HIP:
		return "hip";
	case LANG_CUDA:
		return "cuda";
	}
	return "unknown";
}

static int language_parse(const char *s, enum task_language *out)
{
	static const enum task_language all[] = { LANG_C, LANG_HIP, LANG_CUDA };

	for (size_t i = 0; s && i < ARRAY_SIZE(all); i++) {
		if (!strcmp(language_name(all[i]), s)) {
			*out = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* The integer range an init value of dtype d must stay in (floats: any). */
static void dtype_int_range(arena_dtype d, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MIN;
	*hi = INT64_MAX;
	switch (d) {
	case ARENA_I8:
		*lo = INT8_MIN, *hi = INT8_MAX;
		break;
	case ARENA_U8:
		*lo = 0, *hi = UINT8_MAX;
		break;
	case ARENA_I32:
		*lo = INT32_MIN, *hi = INT32_MAX;
		break;
	case ARENA_U32:
		*lo = 0, *hi = UINT32_MAX;
		break;
	default:
		break;
	}
}

/* ---- freeing ----------------------------------------------------------- */

void task_free(struct task *t)
{
	if (!t)
		return;
	free(t->id);
	free(t->family);
	free(t->name);
	free(t->dir);
	free(t->description);
	strvec_release(&t->editable);
	free(t->entry);
	free(t->reference_file);
	strvec_release(&t->baseline_files);
	free(t->readme);
	strvec_release(&t->compile_flags);
	for (int i = 0; i < TASK_MAX_PARAMS; i++)
		free(t->params[i]);
	for (int i = 0; i < TASK_MAX_ARGS; i++) {
		struct task_arg *a = &t->args[i];
		free(a->name);
		for (int d = 0; d < ARENA_MAX_RANK; d++)
			free(a->shape[d]);
		free(a->init.lo_expr);
		free(a->init.hi_expr);
	}
	for (int i = 0; i < TASK_MAX_CASES; i++)
		free(t->cases[i].id);
	free(t->cost_bytes);
	free(t->cost_flops);
	free(t->timing_floor_reason);
	for (int i = 0; i < TASK_MAX_TUNABLES; i++) {
		free(t->tunables[i].name);
		for (int v = 0; v < TASK_MAX_TUNABLE_VALUES; v++)
			free(t->tunables[i].values[v]);
	}
	free(t->config_sha256);
	free(t);
}

/* ---- parsing context and message helpers ------------------------------ */

struct tparse {
	const char *source;	/* the file named in messages right now */
	const char *config_name;
	const char *held_name;
	const char *dir;	/* real task directory, or NULL: no file checks */
	struct task *t;
	struct errbuf *err;
	/* Where each case came from, for the per-case checks. */
	int case_line[TASK_MAX_CASES];
	int case_index[TASK_MAX_CASES];	/* position in its own file */
};

static int tp_err(struct tparse *p, const struct ynode *n, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));

static int tp_err(struct tparse *p, const struct ynode *n, const char *fmt,
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

static bool is_ident(const char *s)
{
	if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    *s == '_'))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return strlen(s) <= TASK_MAX_NAME_LEN;
}

/* [A-Za-z0-9_.-]+, at most TASK_MAX_NAME_LEN: case ids, id components. */
static bool is_name(const char *s, size_t len)
{
	if (len == 0 || len > TASK_MAX_NAME_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return true;
}

/* A non-empty scalar, copied. */
static int tp_string(struct tparse *p, const struct ynode *n,
		     const char *field, char **out)
{
	if (!ynode_is_text(n) || n->str[0] == '\0')
		return tp_err(p, n, "%s must be a non-empty string, not %s",
			      field, ynode_describe(n));
	*out = xstrdup(n->str);
	return 0;
}

static int tp_relpath(struct tparse *p, const struct ynode *n,
		      const char *field, char **out)
{
	int rc = tp_string(p, n, field, out);

	if (rc)
		return rc;
	if (!path_is_safe_relative(*out) || strlen(*out) > PATH_MAX / 4) {
		rc = tp_err(p, n, "%s '%.120s' must be a relative path inside "
			    "the task directory (no leading '/', no '.' or "
			    "'..' components)", field, *out);
		free(*out);
		*out = NULL;
	}
	return rc;
}

/* A list of min..max entries. */
static int tp_list(struct tparse *p, const struct ynode *n, const char *field,
		   size_t min, size_t max, const char *example)
{
	if (!n || n->kind != YNODE_SEQ)
		return tp_err(p, n, "%s must be a list, not %s (e.g. %s)",
			      field, ynode_describe(n), example);
	if (n->n < min || n->n > max)
		return tp_err(p, n, "%s has %zu entries; give %zu to %zu",
			      field, n->n, min, max);
	return 0;
}

static int tp_map(struct tparse *p, const struct ynode *n, const char *field,
		  const char *example)
{
	if (!n || n->kind != YNODE_MAP)
		return tp_err(p, n, "%s must be a map, not %s (e.g. %s)", field,
			      ynode_describe(n), example);
	return 0;
}

static int tp_keys(struct tparse *p, const struct ynode *map,
		   const char *const *allowed, size_t n, const char *field)
{
	return ynode_check_keys(map, allowed, n, p->source, field, p->err);
}

static void tp_param_list(const struct task *t, struct strbuf *sb)
{
	for (int i = 0; i < t->nparams; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", t->params[i]);
}

/* An expression node: an integer or a string, checked against params. */
static int tp_expr(struct tparse *p, const struct ynode *n, const char *field,
		   char **out)
{
	struct errbuf e;
	int rc;

	if (!ynode_is_text(n))
		return tp_err(p, n, "%s must be an integer or an expression "
			      "string such as \"2*n\", not %s", field,
			      ynode_describe(n));
	errbuf_init(&e);
	rc = expr_check(n->str, (const char *const *)p->t->params,
			p->t->nparams, &e);
	if (rc) {
		if (p->t->nparams == 0)
			return tp_err(p, n, "%s: %s; there are no "
				      "signature.params to refer to", field,
				      errbuf_str(&e));
		struct strbuf names = STRBUF_INIT;
		tp_param_list(p->t, &names);
		rc = tp_err(p, n, "%s: %s; expressions may use integers, the "
			    "signature.params (%s), + - * / %% and parentheses",
			    field, errbuf_str(&e), strbuf_str(&names));
		strbuf_release(&names);
		return rc;
	}
	*out = xstrdup(n->str);
	return 0;
}

/* ---- metadata ---------------------------------------------------------- */

static int tp_schema(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "schema");

	if (!n) {
		if (ynode_get(root, "schema_version"))
			return tp_err(p, root, "this is an AgentKernelArena "
				      "schema_version task; arena/1 tasks start "
				      "with 'schema: arena/1' (docs/tasks.md)");
		return tp_err(p, root, "missing required key 'schema'; the "
			      "first line of a task is 'schema: arena/1'");
	}
	if (!ynode_is_text(n) || strcmp(n->str, "arena/1") != 0)
		return tp_err(p, n, "schema must be 'arena/1', not '%.80s'",
			      ynode_is_text(n) ? n->str : ynode_describe(n));
	return 0;
}

static int tp_meta(struct tparse *p, const struct ynode *root)
{
	struct task *t = p->t;
	const struct ynode *n;
	int rc;

	n = ynode_get(root, "description");
	if (!n)
		return tp_err(p, root, "missing required key 'description'; "
			      "say in a sentence what the kernel computes");
	if ((rc = tp_string(p, n, "description", &t->description)) != 0)
		return rc;

	n = ynode_get(root, "language");
	if (!n)
		return tp_err(p, root, "missing required key 'language'; give "
			      "one of c, hip, cuda");
	if (!ynode_is_text(n) || language_parse(n->str, &t->language))
		return tp_err(p, n, "language must be one of c, hip, cuda, not "
			      "'%.80s'", ynode_is_text(n) ? n->str :
			      ynode_describe(n));

	t->initial_state = TASK_IMPLEMENTED;
	n = ynode_get(root, "initial_state");
	if (n) {
		const char *s = ynode_str(n);
		if (s && !strcmp(s, "implemented"))
			t->initial_state = TASK_IMPLEMENTED;
		else if (s && !strcmp(s, "unimplemented"))
			t->initial_state = TASK_UNIMPLEMENTED;
		else
			return tp_err(p, n, "initial_state must be implemented "
				      "or unimplemented, not '%.80s'",
				      s ? s : ynode_describe(n));
	}

	n = ynode_get(root, "entry");
	if (!n) {
		t->entry = xstrdup("arena_launch");
		return 0;
	}
	if (!ynode_is_text(n) || !is_ident(n->str))
		return tp_err(p, n, "entry must be a C identifier (the symbol "
			      "the runner calls), not '%.80s'",
			      ynode_is_text(n) ? n->str : ynode_describe(n));
	t->entry = xstrdup(n->str);
	return 0;
}

/* ---- files -------------------------------------------------------------- */

static int tp_editable(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "editable");
	int rc;

	if (!n)
		return tp_err(p, root, "missing required key 'editable'; list "
			      "the files the agent may change, e.g. editable: "
			      "[kernel.c]");
	if (n->kind == YNODE_SCALAR && ynode_is_text(n))
		return tp_err(p, n, "editable must be a list, not a string; "
			      "write editable: [%.80s]", n->str);
	if ((rc = tp_list(p, n, "editable", 1, TASK_MAX_EDITABLE,
			  "editable: [kernel.c]")) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++) {
		char field[64], *path;
		snprintf(field, sizeof(field), "editable[%zu]", i);
		if ((rc = tp_relpath(p, n->items[i], field, &path)) != 0)
			return rc;
		bool dup = strvec_contains(&p->t->editable, path);
		bool reserved = !strcmp(path, "config.yaml") ||
				!strcmp(path, "held_out.yaml");
		if (dup || reserved) {
			rc = tp_err(p, n->items[i], "%s: '%s' %s", field, path,
				    dup ? "is listed twice; list each file "
				    "once" : "is part of the task definition "
				    "and cannot be editable");
			free(path);
			return rc;
		}
		strvec_push(&p->t->editable, path);
		free(path);
	}
	return 0;
}

static int tp_reference(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "file", "language" };
	const struct ynode *n = ynode_get(root, "reference");
	const struct ynode *f, *lang;
	struct task *t = p->t;
	int rc;

	if (!n)
		return tp_err(p, root, "missing required key 'reference'; name "
			      "the trusted implementation, e.g. reference: "
			      "{file: reference.c, language: c}");
	if ((rc = tp_map(p, n, "reference",
			 "reference: {file: reference.c, language: c}")) != 0 ||
	    (rc = tp_keys(p, n, keys, ARRAY_SIZE(keys), "reference")) != 0)
		return rc;
	f = ynode_get(n, "file");
	if (!f)
		return tp_err(p, n, "reference: missing required key 'file'; "
			      "e.g. reference: {file: reference.c}");
	if ((rc = tp_relpath(p, f, "reference.file", &t->reference_file)) != 0)
		return rc;
	if (strvec_contains(&t->editable, t->reference_file))
		return tp_err(p, f, "reference.file '%s' is also editable; the "
			      "reference must be a separate file the agent "
			      "cannot change", t->reference_file);
	t->reference_language = LANG_C;
	lang = ynode_get(n, "language");
	if (lang && (!ynode_is_text(lang) ||
		     language_parse(lang->str, &t->reference_language)))
		return tp_err(p, lang, "reference.language must be one of c, "
			      "hip, cuda, not '%.80s'", ynode_is_text(lang) ?
			      lang->str : ynode_describe(lang));
	return 0;
}

/* baseline: {files: [baseline.hip]} maps one to one onto editable. */
static int tp_baseline(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "files" };
	const struct ynode *n = ynode_get(root, "baseline"), *f;
	struct task *t = p->t;
	int rc;

	if (!n) {
		if (t->initial_state == TASK_UNIMPLEMENTED)
			return tp_err(p, root, "an unimplemented task needs "
				      "'baseline: {files: [...]}', a working "
				      "implementation (one file per editable "
				      "file) that candidates are timed "
				      "against");
		return 0;
	}
	if ((rc = tp_map(p, n, "baseline", "baseline: {files: "
			 "[baseline.hip]}")) != 0 ||
	    (rc = tp_keys(p, n, keys, ARRAY_SIZE(keys), "baseline")) != 0)
		return rc;
	f = ynode_get(n, "files");
	if (!f)
		return tp_err(p, n, "baseline: missing required key 'files'; "
			      "e.g. baseline: {files: [baseline.hip]}");
	if ((rc = tp_list(p, f, "baseline.files", 1, TASK_MAX_EDITABLE,
			  "baseline: {files: [baseline.hip]}")) != 0)
		return rc;
	if (f->n != t->editable.n)
		return tp_err(p, f, "baseline.files lists %zu file(s) but "
			      "editable lists %zu; give the baseline's version "
			      "of each editable file, in the same order", f->n,
			      t->editable.n);
	for (size_t i = 0; i < f->n; i++) {
		char field[64], *path;
		snprintf(field, sizeof(field), "baseline.files[%zu]", i);
		if ((rc = tp_relpath(p, f->items[i], field, &path)) != 0)
			return rc;
		bool clash = strvec_contains(&t->editable, path);
		if (clash) {
			rc = tp_err(p, f->items[i], "%s '%s' is editable; the "
				    "baseline must be a separate file the agent "
				    "cannot change", field, path);
			free(path);
			return rc;
		}
		strvec_push(&t->baseline_files, path);
		free(path);
	}
	return 0;
}

static int tp_compile_flags(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "compile_flags");
	int rc;

	if (!n)
		return 0;
	if ((rc = tp_list(p, n, "compile_flags", 0, TASK_MAX_COMPILE_FLAGS,
			  "compile_flags: [-O3, -ffast-math]")) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *f = n->items[i];
		if (!ynode_is_text(f) || f->str[0] != '-' ||
		    !strcmp(f->str, "-o") || str_starts_with(f->str, "-o"))
			return tp_err(p, f, "compile_flags[%zu] must be a "
				      "compiler option starting with '-' "
				      "(and not -o), not '%.80s'", i,
				      ynode_is_text(f) ? f->str :
				      ynode_describe(f));
		strvec_push(&p->t->compile_flags, f->str);
	}
	return 0;
}

/* Optional paths: readme and held_out (the latter is read by task_load). */
static int tp_optional_paths(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "readme");
	char *held = NULL;
	int rc = 0;

	if (n && (rc = tp_relpath(p, n, "readme", &p->t->readme)) != 0)
		return rc;
	n = ynode_get(root, "held_out");
	if (n && (rc = tp_relpath(p, n, "held_out", &held)) != 0)
		return rc;
	if (held && strvec_contains(&p->t->editable, held))
		rc = tp_err(p, n, "held_out '%s' is also editable; held-out "
			    "cases must stay hidden from the agent", held);
	free(held);
	return rc;
}

/* ---- signature ---------------------------------------------------------- */

static int tp_params(struct tparse *p, const struct ynode *sig)
{
	const struct ynode *n = ynode_get(sig, "params");
	struct task *t = p->t;
	int rc;

	if (!n)
		return 0;
	if ((rc = tp_list(p, n, "signature.params", 0, TASK_MAX_PARAMS,
			  "params: [m, n, k]")) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++) {
		const struct ynode *item = n->items[i];
		if (!ynode_is_text(item) || !is_ident(item->str))
			return tp_err(p, item, "signature.params[%zu] must be "
				      "an identifier such as n, not '%.80s'", i,
				      ynode_is_text(item) ? item->str :
				      ynode_describe(item));
		for (int j = 0; j < t->nparams; j++)
			if (!strcmp(t->params[j], item->str))
				return tp_err(p, item, "signature.params: '%s' "
					      "is listed twice", item->str);
		if (!strcmp(item->str, "id"))
			return tp_err(p, item, "signature.params: 'id' is "
				      "reserved for case ids; rename the "
				      "parameter");
		t->params[t->nparams++] = xstrdup(item->str);
	}
	return 0;
}

static int tp_init_dist(struct tparse *p, const struct ynode *n,
			const char *field, const char *s,
			enum init_dist *dist)
{
	static const struct {
		const char *name;
		enum init_dist dist;
	} dists[] = {
		{ "normal", INIT_NORMAL },
		{ "uniform", INIT_UNIFORM },
		{ "randint", INIT_RANDINT },
		{ "ones", INIT_ONES },
	};

	for (size_t i = 0; s && i < ARRAY_SIZE(dists); i++) {
		if (!strcmp(s, dists[i].name)) {
			*dist = dists[i].dist;
			return 0;
		}
	}
	return tp_err(p, n, "%s must be normal, uniform, randint or ones, not "
		      "'%.80s'", field, s ? s : ynode_describe(n));
}

/* A number from an init map, or its default when absent. */
static int tp_init_number(struct tparse *p, const struct ynode *map,
			  const char *key, const char *field, double def,
			  double *out)
{
	const struct ynode *n = ynode_get(map, key);

	*out = def;
	if (n && ynode_double(n, out))
		return tp_err(p, n, "%s.%s must be a number, not %s", field,
			      key, ynode_describe(n));
	return 0;
}

static int tp_init_map(struct tparse *p, const struct ynode *n,
		       const char *field, struct arg_init *init)
{
	static const char *const normal_keys[] = { "dist", "mean", "std" };
	static const char *const range_keys[] = { "dist", "low", "high" };
	static const char *const ones_keys[] = { "dist" };
	const struct ynode *dist = ynode_get(n, "dist");
	int rc;

	if (!dist)
		return tp_err(p, n, "%s: missing required key 'dist' (normal, "
			      "uniform, randint or ones)", field);
	if ((rc = tp_init_dist(p, dist, field, ynode_str(dist),
			       &init->dist)) != 0)
		return rc;
	switch (init->dist) {
	case INIT_NORMAL:
		if ((rc = tp_keys(p, n, normal_keys, 3, field)) != 0 ||
		    (rc = tp_init_number(p, n, "mean", field, 0, &init->a)) ||
		    (rc = tp_init_number(p, n, "std", field, 1, &init->b)))
			return rc;
		if (!(init->b > 0))
			return tp_err(p, n, "%s.std must be greater than 0",
				      field);
		return 0;
	case INIT_UNIFORM:
		if ((rc = tp_keys(p, n, range_keys, 3, field)) != 0 ||
		    (rc = tp_init_number(p, n, "low", field, -1, &init->a)) ||
		    (rc = tp_init_number(p, n, "high", field, 1, &init->b)))
			return rc;
		if (!(init->a < init->b))
			return tp_err(p, n, "%s: low must be less than high",
				      field);
		return 0;
	case INIT_RANDINT: {
		const struct ynode *lo = ynode_get(n, "low");
		const struct ynode *hi = ynode_get(n, "high");
		char sub[192];
		if ((rc = tp_keys(p, n, range_keys, 3, field)) != 0)
			return rc;
		snprintf(sub, sizeof(sub), "%s.low", field);
		if (lo && (rc = tp_expr(p, lo, sub, &init->lo_expr)) != 0)
			return rc;
		snprintf(sub, sizeof(sub), "%s.high", field);
		if (hi && (rc = tp_expr(p, hi, sub, &init->hi_expr)) != 0)
			return rc;
		return 0;
	}
	case INIT_ONES:
		return tp_keys(p, n, ones_keys, 1, field);
	}
	return 0;
}

/* Fills in defaults and checks that the distribution suits the dtype. */
static int tp_init_finish(struct tparse *p, const struct ynode *n,
			  const char *field, struct task_arg *a)
{
	struct arg_init *init = &a->init;

	if (init->dist == INIT_RANDINT) {
		if (!init->lo_expr)
			init->lo_expr = xstrdup("0");
		if (!init->hi_expr)
			init->hi_expr = xstrdup("100");
	}
	if ((init->dist == INIT_NORMAL || init->dist == INIT_UNIFORM) &&
	    !dtype_is_float(a->dtype))
		return tp_err(p, n, "%s: %s needs a floating-point dtype; for "
			      "%s use {dist: randint, low: ..., high: ...}",
			      field, init->dist == INIT_NORMAL ? "normal" :
			      "uniform", dtype_name(a->dtype));
	return 0;
}

static int tp_init(struct tparse *p, const struct ynode *argn,
		   const char *label, struct task_arg *a)
{
	const struct ynode *n = ynode_get(argn, "init");
	char field[160];
	int rc;

	snprintf(field, sizeof(field), "%s.init", label);
	if (a->io == IO_OUT) {
		if (n)
			return tp_err(p, n, "%s: init applies to inputs only; "
				      "remove it from this output (outputs are "
				      "poisoned before every call)", field);
		return 0;
	}
	if (!n) {
		a->init.dist = dtype_is_float(a->dtype) ? INIT_NORMAL :
			       INIT_RANDINT;
		a->init.a = 0;
		a->init.b = 1;
		return tp_init_finish(p, argn, field, a);
	}
	if (n->kind == YNODE_MAP)
		rc = tp_init_map(p, n, field, &a->init);
	else if (ynode_is_text(n))
		rc = tp_init_dist(p, n, field, n->str, &a->init.dist);
	else
		rc = tp_err(p, n, "%s must be a distribution name or a map, "
			    "not %s (e.g. init: {dist: uniform, low: 0, "
			    "high: 1})", field, ynode_describe(n));
	if (rc)
		return rc;
	if (n->kind != YNODE_MAP) {
		if (a->init.dist == INIT_NORMAL)
			a->init.a = 0, a->init.b = 1;
		else if (a->init.dist == INIT_UNIFORM)
			a->init.a = -1, a->init.b = 1;
	}
	return tp_init_finish(p, n, field, a);
}

static int tp_io(struct tparse *p, const struct ynode *argn,
		 const char *label, enum arg_io *io)
{
	const struct ynode *n = ynode_get(argn, "io");
	const char *s = ynode_str(n);

	if (!n)
		return tp_err(p, argn, "%s: missing required key 'io' (in, out "
			      "or inout)", label);
	if (s && !strcmp(s, "in"))
		*io = IO_IN;
	else if (s && !strcmp(s, "out"))
		*io = IO_OUT;
	else if (s && !strcmp(s, "inout"))
		*io = IO_INOUT;
	else
		return tp_err(p, n, "%s.io must be in, out or inout, not "
			      "'%.80s'", label, s ? s : ynode_describe(n));
	return 0;
}

static int tp_shape(struct tparse *p, const struct ynode *argn,
		    const char *label, struct task_arg *a)
{
	const struct ynode *n = ynode_get(argn, "shape");
	char field[160];
	int rc;

	snprintf(field, sizeof(field), "%s.shape", label);
	if (!n)
		return tp_err(p, argn, "%s: missing required key 'shape'; e.g. "
			      "shape: [n] ([] for a scalar)", label);
	if ((rc = tp_list(p, n, field, 0, ARENA_MAX_RANK, "shape: [m, n]")))
		return rc;
	for (size_t d = 0; d < n->n; d++) {
		char dim[192];
		snprintf(dim, sizeof(dim), "%s[%zu]", field, d);
		if ((rc = tp_expr(p, n->items[d], dim, &a->shape[d])) != 0)
			return rc;
		a->rank = (int)d + 1;
	}
	return 0;
}

static int tp_arg(struct tparse *p, const struct ynode *argn, int i)
{
	static const char *const keys[] = { "name", "dtype", "shape", "io",
					    "init" };
	struct task_arg *a = &p->t->args[i];
	const struct ynode *n;
	char label[128];
	int rc;

	snprintf(label, sizeof(label), "signature.args[%d]", i);
	if ((rc = tp_map(p, argn, label, "{name: x, dtype: f32, shape: [n], "
			 "io: in}")) != 0 ||
	    (rc = tp_keys(p, argn, keys, ARRAY_SIZE(keys), label)) != 0)
		return rc;
	n = ynode_get(argn, "name");
	if (!n)
		return tp_err(p, argn, "%s: missing required key 'name'", label);
	if (!ynode_is_text(n) || !is_ident(n->str))
		return tp_err(p, n, "%s.name must be an identifier such as x, "
			      "not '%.80s'", label, ynode_is_text(n) ? n->str :
			      ynode_describe(n));
	for (int j = 0; j < i; j++)
		if (!strcmp(p->t->args[j].name, n->str))
			return tp_err(p, n, "%s: name '%s' is already used by "
				      "signature.args[%d]", label, n->str, j);
	a->name = xstrdup(n->str);
	snprintf(label, sizeof(label), "signature.args[%d] ('%s')", i, a->name);

	n = ynode_get(argn, "dtype");
	if (!n)
		return tp_err(p, argn, "%s: missing required key 'dtype' (one "
			      "of " DTYPE_NAMES ")", label);
	if (!ynode_is_text(n) || dtype_parse(n->str, &a->dtype))
		return tp_err(p, n, "%s.dtype must be one of " DTYPE_NAMES
			      ", not '%.80s'", label, ynode_is_text(n) ?
			      n->str : ynode_describe(n));
	if ((rc = tp_io(p, argn, label, &a->io)) != 0 ||
	    (rc = tp_shape(p, argn, label, a)) != 0)
		return rc;
	return tp_init(p, argn, label, a);
}

static int tp_signature(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "params", "args" };
	const struct ynode *sig = ynode_get(root, "signature");
	const struct ynode *args;
	int rc;

	if (!sig)
		return tp_err(p, root, "missing required key 'signature'; give "
			      "its params and args (docs/tasks.md)");
	if ((rc = tp_map(p, sig, "signature", "signature: {params: [n], "
			 "args: [...]}")) != 0 ||
	    (rc = tp_keys(p, sig, keys, ARRAY_SIZE(keys), "signature")) != 0 ||
	    (rc = tp_params(p, sig)) != 0)
		return rc;
	args = ynode_get(sig, "args");
	if (!args)
		return tp_err(p, sig, "signature: missing required key 'args'; "
			      "list the arrays the kernel receives");
	if ((rc = tp_list(p, args, "signature.args", 1, TASK_MAX_ARGS,
			  "args: [{name: x, dtype: f32, shape: [n], "
			  "io: in}]")) != 0)
		return rc;
	for (size_t i = 0; i < args->n; i++) {
		if ((rc = tp_arg(p, args->items[i], (int)i)) != 0)
			return rc;
		p->t->nargs = (int)i + 1;
	}
	return 0;
}

/* ---- cases ------------------------------------------------------------- */

static int tp_case_param(struct tparse *p, const struct ynode *casen,
			 const char *label, int k, int64_t *out)
{
	const struct ynode *v = ynode_get(casen, p->t->params[k]);

	if (!v) {
		struct strbuf names = STRBUF_INIT;
		tp_param_list(p->t, &names);
		int rc = tp_err(p, casen, "%s: missing parameter '%s'; every "
				"case must give each of signature.params (%s)",
				label, p->t->params[k], strbuf_str(&names));
		strbuf_release(&names);
		return rc;
	}
	if (ynode_i64(v, out))
		return tp_err(p, v, "%s.%s must be an integer, not %s '%.40s'",
			      label, p->t->params[k], ynode_describe(v),
			      ynode_is_text(v) ? v->str : "");
	return 0;
}

/* Keys other than id and the params. */
static int tp_case_extra_keys(struct tparse *p, const struct ynode *casen,
			      const char *label)
{
	for (size_t i = 0; i < casen->n; i++) {
		const char *key = casen->pairs[i].key;
		bool known = !strcmp(key, "id");
		for (int k = 0; !known && k < p->t->nparams; k++)
			known = !strcmp(key, p->t->params[k]);
		if (known)
			continue;
		struct strbuf names = STRBUF_INIT;
		tp_param_list(p->t, &names);
		int rc = tp_err(p, casen->pairs[i].value, "%s: unknown key "
				"'%.80s'; a case holds its id and the "
				"signature.params (%s), nothing else", label,
				key, strbuf_str(&names));
		strbuf_release(&names);
		return rc;
	}
	return 0;
}

static int tp_case(struct tparse *p, const struct ynode *casen, size_t index,
		   bool held_out)
{
	struct task *t = p->t;
	struct task_case *c = &t->cases[t->ncases];
	const struct ynode *id;
	char label[128];
	int rc;

	snprintf(label, sizeof(label), "cases[%zu]", index);
	if ((rc = tp_map(p, casen, label, "{id: small, n: 4096}")) != 0)
		return rc;
	id = ynode_get(casen, "id");
	if (!id)
		return tp_err(p, casen, "%s: missing required key 'id'; give "
			      "the case a name such as small", label);
	if (!ynode_is_text(id) || !is_name(id->str, id->str_len))
		return tp_err(p, id, "%s.id must be a name of 1 to %d "
			      "characters from [A-Za-z0-9_.-], not '%.80s'",
			      label, TASK_MAX_NAME_LEN, ynode_is_text(id) ?
			      id->str : ynode_describe(id));
	snprintf(label, sizeof(label), "cases[%zu] ('%s')", index, id->str);
	for (int j = 0; j < t->ncases; j++)
		if (!strcmp(t->cases[j].id, id->str))
			return tp_err(p, id, "%s: id '%s' is already used by "
				      "another %scase; case ids must be unique",
				      label, id->str, t->cases[j].held_out ?
				      "held-out " : "visible ");
	if ((rc = tp_case_extra_keys(p, casen, label)) != 0)
		return rc;
	for (int k = 0; k < t->nparams; k++)
		if ((rc = tp_case_param(p, casen, label, k,
					&c->params[k])) != 0)
			return rc;
	c->id = xstrdup(id->str);
	c->held_out = held_out;
	p->case_line[t->ncases] = casen->line;
	p->case_index[t->ncases] = (int)index;
	t->ncases++;
	return 0;
}

/* The cases list of config.yaml (held_out false) or held_out.yaml. */
static int tp_cases(struct tparse *p, const struct ynode *map, bool held_out)
{
	const struct ynode *n = ynode_get(map, "cases");
	int room = TASK_MAX_CASES - p->t->ncases;
	int rc;

	if (!n)
		return tp_err(p, map, "missing required key 'cases'; list at "
			      "least one, e.g. cases: [{id: small, n: 4096}]");
	if (n->kind == YNODE_SEQ && n->n > (size_t)room)
		return tp_err(p, n, "cases has %zu entries; a task holds at "
			      "most %d cases in total (visible and held-out "
			      "together)%s", n->n, TASK_MAX_CASES,
			      held_out ? " and config.yaml already has the "
			      "rest" : "");
	if ((rc = tp_list(p, n, "cases", 1, (size_t)room,
			  "cases: [{id: small, n: 4096}]")) != 0)
		return rc;
	for (size_t i = 0; i < n->n; i++)
		if ((rc = tp_case(p, n->items[i], i, held_out)) != 0)
			return rc;
	return 0;
}

static int tp_held_out(struct tparse *p, const struct ynode *held)
{
	static const char *const keys[] = { "cases" };
	int rc;

	p->source = p->held_name;
	if (!held || held->kind != YNODE_MAP)
		rc = tp_err(p, held, "a held-out file must be a map with one "
			    "key, cases, not %s (e.g. cases: [{id: odd, n: "
			    "1001}])", ynode_describe(held));
	else if ((rc = tp_keys(p, held, keys, 1, NULL)) == 0)
		rc = tp_cases(p, held, true);
	p->source = p->config_name;
	return rc;
}

/* ---- tolerance, cost, tunables ---------------------------------------- */

static bool task_has_float_output(const struct task *t)
{
	for (int i = 0; i < t->nargs; i++)
		if (t->args[i].io != IO_IN && dtype_is_float(t->args[i].dtype))
			return true;
	return false;
}

static int tp_tolerance_value(struct tparse *p, const struct ynode *map,
			      const char *key, double *out)
{
	const struct ynode *n = ynode_get(map, key);

	*out = 0;
	if (!n)
		return 0;
	if (ynode_double(n, out) || *out < 0)
		return tp_err(p, n, "tolerance.%s must be a number >= 0 such as "
			      "1e-5, not %s '%.40s'", key, ynode_describe(n),
			      ynode_is_text(n) ? n->str : "");
	return 0;
}

static int tp_tolerance(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "atol", "rtol" };
	const struct ynode *n = ynode_get(root, "tolerance");
	int rc;

	if (!n) {
		if (task_has_float_output(p->t))
			return tp_err(p, root, "missing required key "
				      "'tolerance'; an output is floating "
				      "point, so give e.g. tolerance: {atol: "
				      "1e-5, rtol: 1e-5}");
		return 0;
	}
	if ((rc = tp_map(p, n, "tolerance", "tolerance: {atol: 1e-5, rtol: "
			 "1e-5}")) != 0 ||
	    (rc = tp_keys(p, n, keys, 2, "tolerance")) != 0)
		return rc;
	if (n->n == 0)
		return tp_err(p, n, "tolerance is empty; give atol, rtol or "
			      "both");
	if ((rc = tp_tolerance_value(p, n, "atol", &p->t->atol)) != 0)
		return rc;
	return tp_tolerance_value(p, n, "rtol", &p->t->rtol);
}

static int tp_cost(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "bytes", "flops" };
	const struct ynode *n = ynode_get(root, "cost");
	const struct ynode *v;
	int rc;

	if (!n)
		return 0;
	if ((rc = tp_map(p, n, "cost", "cost: {bytes: \"8*n\", flops: "
			 "\"2*n\"}")) != 0 ||
	    (rc = tp_keys(p, n, keys, 2, "cost")) != 0)
		return rc;
	if ((v = ynode_get(n, "bytes")) &&
	    (rc = tp_expr(p, v, "cost.bytes", &p->t->cost_bytes)) != 0)
		return rc;
	if ((v = ynode_get(n, "flops")) &&
	    (rc = tp_expr(p, v, "cost.flops", &p->t->cost_flops)) != 0)
		return rc;
	return 0;
}

/* timing_floor_us (with timing_floor_reason): the task's own timing
 * floor, replacing the evaluator's (docs/tasks.md). */
static int tp_timing_floor(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "timing_floor_us");
	const struct ynode *why = ynode_get(root, "timing_floor_reason");
	int rc;

	p->t->timing_floor_us = -1;
	if (!n && !why)
		return 0;
	if (!n)
		return tp_err(p, why, "timing_floor_reason is given without "
			      "timing_floor_us");
	if (ynode_double(n, &p->t->timing_floor_us) ||
	    !(p->t->timing_floor_us >= 0 && p->t->timing_floor_us <= 1e6))
		return tp_err(p, n, "timing_floor_us must be a number of "
			      "microseconds from 0 to 1000000, not %s",
			      ynode_describe(n));
	if (!why)
		return tp_err(p, n, "timing_floor_us needs a "
			      "timing_floor_reason: say why calls this short "
			      "can be timed (e.g. timing_floor_reason: \"the "
			      "kernel's launch dominates every use of it\")");
	if ((rc = tp_string(p, why, "timing_floor_reason",
			    &p->t->timing_floor_reason)) != 0)
		return rc;
	if (strlen(p->t->timing_floor_reason) > 400)
		return tp_err(p, why, "timing_floor_reason is longer than 400 "
			      "characters");
	return 0;
}

static bool is_macro_name(const char *s)
{
	if (!s || !((*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '_'))
			return false;
	return strlen(s) <= TASK_MAX_NAME_LEN;
}

static int tp_tunable(struct tparse *p, const struct ypair *pair)
{
	struct task_tunable *tu = &p->t->tunables[p->t->ntunables];
	const struct ynode *vals = pair->value;
	char field[128];
	int64_t iv;
	int rc;

	if (!is_macro_name(pair->key))
		return tp_err(p, vals, "tunables: '%.80s' must be a macro name "
			      "like BLOCK ([A-Z_][A-Z0-9_]*)", pair->key);
	snprintf(field, sizeof(field), "tunables.%s", pair->key);
	if ((rc = tp_list(p, vals, field, 1, TASK_MAX_TUNABLE_VALUES,
			  "BLOCK: [64, 128, 256]")) != 0)
		return rc;
	tu->name = xstrdup(pair->key);
	for (size_t i = 0; i < vals->n; i++) {
		const struct ynode *v = vals->items[i];
		if (ynode_i64(v, &iv) && !(ynode_is_text(v) && is_ident(v->str)))
			return tp_err(p, v, "%s[%zu] must be an integer or an "
				      "identifier, not %s", field, i,
				      ynode_describe(v));
		for (int j = 0; j < tu->nvalues; j++)
			if (!strcmp(tu->values[j], v->str))
				return tp_err(p, v, "%s: value '%s' is listed "
					      "twice", field, v->str);
		tu->values[tu->nvalues++] = xstrdup(v->str);
	}
	p->t->ntunables++;
	return 0;
}

static int tp_tunables(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "tunables");
	int rc;

	if (!n)
		return 0;
	if ((rc = tp_map(p, n, "tunables", "tunables: {BLOCK: [64, 128]}")))
		return rc;
	if (n->n > TASK_MAX_TUNABLES)
		return tp_err(p, n, "tunables has %zu knobs; at most %d are "
			      "allowed", n->n, TASK_MAX_TUNABLES);
	for (size_t i = 0; i < n->n; i++)
		if ((rc = tp_tunable(p, &n->pairs[i])) != 0)
			return rc;
	return 0;
}

/* ---- evaluation --------------------------------------------------------- */

static void task_env(const struct task *t, const struct task_case *c,
		     struct expr_env *env)
{
	env->names = (const char *const *)t->params;
	env->values = c->params;
	env->n = t->nparams;
}

int task_arg_shape(const struct task *t, int arg, const struct task_case *c,
		   int64_t shape[ARENA_MAX_RANK], struct errbuf *err)
{
	struct expr_env env;

	if (arg < 0 || arg >= t->nargs)
		return errf(err, "%s: no argument %d (the task has %d)", t->id,
			    arg, t->nargs);
	task_env(t, c, &env);
	const struct task_arg *a = &t->args[arg];
	for (int d = 0; d < a->rank; d++) {
		int rc = expr_eval(a->shape[d], &env, &shape[d], err);
		if (rc) {
			errbuf_prefix(err, "%s: case '%s': argument '%s' "
				      "shape[%d]", t->id, c->id, a->name, d);
			return rc;
		}
		if (shape[d] < 1)
			return errf(err, "%s: case '%s': argument '%s' shape[%d] "
				    "'%s' is %lld; every dimension must be at "
				    "least 1", t->id, c->id, a->name, d,
				    a->shape[d], (long long)shape[d]);
	}
	return 0;
}

int task_arg_numel(const struct task *t, int arg, const struct task_case *c,
		   int64_t *numel, struct errbuf *err)
{
	int64_t shape[ARENA_MAX_RANK], n = 1;
	int rc = task_arg_shape(t, arg, c, shape, err);

	if (rc)
		return rc;
	for (int d = 0; d < t->args[arg].rank; d++)
		if (__builtin_mul_overflow(n, shape[d], &n))
			return errf(err, "%s: case '%s': argument '%s' has more "
				    "elements than fit in 64 bits", t->id,
				    c->id, t->args[arg].name);
	*numel = n;
	return 0;
}

static int task_cost_one(const struct task *t, const struct task_case *c,
			 const char *expr, const char *what, int64_t *out,
			 struct errbuf *err)
{
	struct expr_env env;
	int rc;

	*out = 0;
	if (!expr)
		return 0;
	task_env(t, c, &env);
	if ((rc = expr_eval(expr, &env, out, err)) != 0) {
		errbuf_prefix(err, "%s: case '%s': cost.%s", t->id, c->id, what);
		return rc;
	}
	if (*out < 0)
		return errf(err, "%s: case '%s': cost.%s '%s' is %lld; a cost "
			    "cannot be negative", t->id, c->id, what, expr,
			    (long long)*out);
	return 0;
}

int task_case_cost(const struct task *t, const struct task_case *c,
		   int64_t *bytes, int64_t *flops, struct errbuf *err)
{
	int rc = task_cost_one(t, c, t->cost_bytes, "bytes", bytes, err);

	if (rc)
		return rc;
	return task_cost_one(t, c, t->cost_flops, "flops", flops, err);
}

const struct task_case *task_find_case(const struct task *t, const char *id)
{
	for (int i = 0; t && id && i < t->ncases; i++)
		if (!strcmp(t->cases[i].id, id))
			return &t->cases[i];
	return NULL;
}

/* ---- per-case validation at load time ---------------------------------- */

/* Rewrites an evaluation error (which names the task id) into the load
 * form: "file:line: cases[i] ('id'): <what went wrong>". */
static int tp_case_fail(struct tparse *p, int ci, struct errbuf *e)
{
	const struct task_case *c = &p->t->cases[ci];
	char *prefix = xasprintf("%s: case '%s': ", p->t->id, c->id);
	const char *msg = errbuf_str(e);

	/* Drop the "<id>: case '<case>': " prefix the evaluators add. */
	if (str_starts_with(msg, prefix))
		msg += strlen(prefix);
	free(prefix);
	return errf(p->err, "%s:%d: cases[%d] ('%s'): %s; fix the case or "
		    "the expression", c->held_out ? p->held_name :
		    p->config_name, p->case_line[ci], p->case_index[ci], c->id,
		    msg);
}

static int tp_check_randint(struct tparse *p, int ci, int ai,
			    struct errbuf *e)
{
	const struct task *t = p->t;
	const struct task_arg *a = &t->args[ai];
	const struct task_case *c = &t->cases[ci];
	struct expr_env env;
	int64_t lo, hi, min, max;

	if (a->io == IO_OUT || a->init.dist != INIT_RANDINT)
		return 0;
	task_env(t, c, &env);
	if (expr_eval(a->init.lo_expr, &env, &lo, e) ||
	    expr_eval(a->init.hi_expr, &env, &hi, e)) {
		errbuf_prefix(e, "%s: case '%s': argument '%s' init bound",
			      t->id, c->id, a->name);
		return tp_case_fail(p, ci, e);
	}
	dtype_int_range(a->dtype, &min, &max);
	if (lo > hi)
		errf(e, "%s: case '%s': argument '%s' init: randint low %lld "
		     "is greater than high %lld", t->id, c->id, a->name,
		     (long long)lo, (long long)hi);
	else if (lo < min || hi > max)
		errf(e, "%s: case '%s': argument '%s' init: randint range "
		     "[%lld, %lld] does not fit dtype %s", t->id, c->id,
		     a->name, (long long)lo, (long long)hi,
		     dtype_name(a->dtype));
	else
		return 0;
	return tp_case_fail(p, ci, e);
}

static int tp_check_case(struct tparse *p, int ci)
{
	const struct task *t = p->t;
	const struct task_case *c = &t->cases[ci];
	struct errbuf e;
	int64_t numel = 0, bytes = 0, flops = 0;

	errbuf_init(&e);
	for (int i = 0; i < t->nargs; i++) {
		if (task_arg_numel(t, i, c, &numel, &e))
			return tp_case_fail(p, ci, &e);
		if (__builtin_mul_overflow(numel, (int64_t)dtype_size(
						   t->args[i].dtype), &bytes)) {
			errf(&e, "%s: case '%s': argument '%s' is larger than "
			     "fits in 64 bits of bytes", t->id, c->id,
			     t->args[i].name);
			return tp_case_fail(p, ci, &e);
		}
		if (tp_check_randint(p, ci, i, &e))
			return -EINVAL;
	}
	if (task_case_cost(t, c, &bytes, &flops, &e))
		return tp_case_fail(p, ci, &e);
	return 0;
}

/* ---- files on disk ------------------------------------------------------ */

/* rel must name a regular file whose real path lies inside dir. */
static int tp_check_file(struct tparse *p, const struct ynode *n,
			 const char *field, const char *rel)
{
	char *path = path_join(p->dir, rel);
	char *real = path_real(path);
	size_t dlen = strlen(p->dir);
	bool inside = real && !strncmp(real, p->dir, dlen) &&
		      real[dlen] == '/';
	bool regular = file_exists(path);
	int rc = 0;

	if (!regular)
		rc = tp_err(p, n, "%s '%s' does not exist in %s; add the file "
			    "or fix the name", field, rel, p->dir);
	else if (!inside)
		rc = tp_err(p, n, "%s '%s' resolves outside the task directory "
			    "%s; task files must live inside it", field, rel,
			    p->dir);
	free(path);
	free(real);
	return rc;
}

static int tp_check_files(struct tparse *p, const struct ynode *root)
{
	struct task *t = p->t;
	const struct ynode *n;
	int rc;

	if (!p->dir)
		return 0;
	n = ynode_get(root, "editable");
	for (size_t i = 0; i < t->editable.n; i++) {
		char field[64];
		snprintf(field, sizeof(field), "editable[%zu]", i);
		if ((rc = tp_check_file(p, n->items[i], field,
					t->editable.v[i])) != 0)
			return rc;
	}
	n = ynode_get(ynode_get(root, "reference"), "file");
	if ((rc = tp_check_file(p, n, "reference.file",
				t->reference_file)) != 0)
		return rc;
	n = ynode_get(ynode_get(root, "baseline"), "files");
	for (size_t i = 0; i < t->baseline_files.n; i++) {
		char field[64];
		snprintf(field, sizeof(field), "baseline.files[%zu]", i);
		if ((rc = tp_check_file(p, n->items[i], field,
					t->baseline_files.v[i])) != 0)
			return rc;
	}
	n = ynode_get(root, "readme");
	if (n)
		return tp_check_file(p, n, "readme", t->readme);
	char *readme = path_join(p->dir, "README.md");
	if (file_exists(readme))
		t->readme = xstrdup("README.md");
	free(readme);
	return 0;
}

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
		if (!is_name(s, len))
			return errf(err, "task id '%.200s': each component must "
				    "be 1 to %d characters from [A-Za-z0-9_.-]",
				    id, TASK_MAX_NAME_LEN);
		if (!slash)
			break;
	}
	t->id = xstrdup(id);
	t->family = xstrndup(id, (size_t)(strchr(id, '/') - id));
	t->name = xstrdup(strrchr(id, '/') + 1);
	return 0;
}

static int tp_sections(struct tparse *p, const struct ynode *root,
		       const struct ynode *held)
{
	static const char *const keys[] = {
		"schema", "description", "language", "initial_state",
		"editable", "entry", "reference", "readme", "compile_flags",
		"signature", "cases", "tolerance", "cost", "tunables",
		"held_out", "baseline", "timing_floor_us",
		"timing_floor_reason",
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
	    (rc = tp_cases(p, root, false)) != 0)
		return rc;
	p->t->nvisible = p->t->ncases;
	if (held && (rc = tp_held_out(p, held)) != 0)
		return rc;
	if ((rc = tp_tolerance(p, root)) != 0 ||
	    (rc = tp_cost(p, root)) != 0 ||
	    (rc = tp_timing_floor(p, root)) != 0 ||
	    (rc = tp_tunables(p, root)) != 0 ||
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
	if (src->held_text)
		rc = ydoc_parse(&held, src->held_name, src->held_text,
				src->held_len, err);
	if (rc == 0)
		rc = tp_sections(&p, cfg.root, src->held_text ? held.root :
				 NULL);
	if (rc == 0 && src->held_text && !held.root)
		rc = ynode_errf(err, src->held_name, NULL, "the file is empty; "
				"give cases: [...] or delete it");
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

int task_load(const char *tasks_root, const char *id, struct task **out,
	      struct errbuf *err)
{
	char *dir, *config_name, *real = NULL;
	char *config = NULL, *held = NULL, *held_path = NULL;
	struct task_src src = { .id = id };
	int rc;

	*out = NULL;
	if (!id || !path_is_safe_relative(id))
		return errf(err, "task id '%.200s' must be a relative path "
			    "<family>/<name> under the tasks directory",
			    id ? id : "(null)");
	dir = path_join(tasks_root, id);
	config_name = path_join(dir, "config.yaml");
	src.config_name = config_name;
	src.held_name = config_name;
	if (!file_exists(config_name) || !(real = path_real(dir)))
		rc = errf_code(err, ENOENT, "no task '%s' under %s (%s does not "
			       "exist); run 'arena tasks' to list them", id,
			       tasks_root, config_name);
	else
		rc = task_read_sources(dir, &src, &config, &held, &held_path,
				       err);
	if (rc == 0) {
		src.dir_real = real;
		rc = task_build(&src, out, err);
	}
	free(dir);
	free(config_name);
	free(real);
	free(config);
	free(held);
	free(held_path);
	return rc;
}

/* ---- catalogue ---------------------------------------------------------- */

static int task_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends the ids of the task directories below root/rel (rel may be NULL
 * for root itself).  A directory holding config.yaml is a task and is not
 * descended; entries starting with '.' are skipped. */
static int task_walk(const char *root, const char *rel, int depth,
		     struct strvec *found, struct errbuf *err)
{
	char *abs = rel ? path_join(root, rel) : xstrdup(root);
	struct strvec names = STRVEC_INIT;
	struct dirent *de;
	DIR *d = opendir(abs);
	int rc = 0;

	if (!d) {
		rc = errf_code(err, errno, "cannot list %s: %s", abs,
			       strerror(errno));
		free(abs);
		return rc;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			strvec_push(&names, de->d_name);
	closedir(d);
	for (size_t i = 0; rc == 0 && i < names.n; i++) {
		char *child_rel = rel ? path_join(rel, names.v[i]) :
				  xstrdup(names.v[i]);
		char *child = path_join(root, child_rel);
		char *config = path_join(child, "config.yaml");
		if (!dir_exists(child))
			;
		else if (file_exists(config))
			strvec_push(found, child_rel);
		else if (depth < TASK_SELECT_MAX_DEPTH)
			rc = task_walk(root, child_rel, depth + 1, found, err);
		if (found->n > TASK_SELECT_MAX_TASKS)
			rc = errf(err, "more than %d tasks under %s",
				  TASK_SELECT_MAX_TASKS, root);
		free(child_rel);
		free(child);
		free(config);
	}
	strvec_release(&names);
	free(abs);
	return rc;
}

/* "c2c/" and "c2c" name the same directory. */
static char *task_selector_clean(const char *selector)
{
	size_t n = strlen(selector);

	while (n > 1 && selector[n - 1] == '/')
		n--;
	return xstrndup(selector, n);
}

int task_select(const char *tasks_root, const char *selector,
		struct strvec *ids, struct errbuf *err)
{
	struct strvec found = STRVEC_INIT;
	char *sel, *dir = NULL, *config = NULL;
	int rc = 0;

	if (!tasks_root || !dir_exists(tasks_root))
		return errf_code(err, ENOENT, "tasks directory %s does not "
				 "exist; set ARENA_TASKS_DIR to the directory "
				 "that holds the task families",
				 tasks_root ? tasks_root : "(none)");
	if (!selector)
		return errf(err, "missing task selector");
	sel = task_selector_clean(selector);
	if (strcmp(sel, "all") != 0 && !path_is_safe_relative(sel)) {
		rc = errf(err, "task selector '%.200s' is not a path under the "
			  "tasks directory; use 'all', a family such as 'c2c' "
			  "or a task id such as 'c2c/saxpy'", selector);
		free(sel);
		return rc;
	}
	if (!strcmp(sel, "all")) {
		rc = task_walk(tasks_root, NULL, 0, &found, err);
	} else {
		dir = path_join(tasks_root, sel);
		config = path_join(dir, "config.yaml");
		if (file_exists(config))
			strvec_push(&found, sel);
		else if (dir_exists(dir))
			rc = task_walk(tasks_root, sel, 0, &found, err);
	}
	if (rc == 0 && found.n == 0)
		rc = errf_code(err, ENOENT, "no task matches selector '%.200s' "
			       "under %s; run 'arena tasks' to list them",
			       selector, tasks_root);
	if (rc == 0) {
		qsort(found.v, found.n, sizeof(*found.v), task_cmp_str);
		for (size_t i = 0; i < found.n; i++)
			strvec_push(ids, found.v[i]);
	}
	strvec_release(&found);
	free(sel);
	free(dir);
	free(config);
	return rc;
}

const char *task_default_root(void)
{
	return paths_tasks_root();
}

/*
 * task_parse.c - parsing a task's config.yaml in the native schema
 * `arena/1` (docs/tasks.md, key by key): the helpers every section uses,
 * the metadata, files, tolerance, cost and tunables sections, and the
 * checks made once every section parsed (every case against every shape,
 * randint bound and cost formula; files on disk).  The signature and the
 * cases are task_signature.c; task_load.c runs the sections in order.
 *
 * How it works: the YAML is loaded into a ydoc tree (arena/ydoc.h), then
 * one small function per section copies what it validates into a struct
 * task.  Nothing is accepted silently: an unknown key, a value of the
 * wrong type or a name that does not resolve is an error naming the file,
 * its line, the field and the fix.  Because every case is evaluated at
 * load time, an expression that overflows or a shape that is not positive
 * is reported then, and the evaluator can rely on task_arg_shape()
 * succeeding for loaded cases.
 */
#include "task_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- parsing context and message helpers ------------------------------ */


int tp_err(struct tparse *p, const struct ynode *n, const char *fmt,
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

bool tp_is_ident(const char *s)
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
bool tp_is_name(const char *s, size_t len)
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
int tp_string(struct tparse *p, const struct ynode *n,
	      const char *field, char **out)
{
	if (!ynode_is_text(n) || n->str[0] == '\0')
		return tp_err(p, n, "%s must be a non-empty string, not %s",
			      field, ynode_describe(n));
	*out = xstrdup(n->str);
	return 0;
}

int tp_relpath(struct tparse *p, const struct ynode *n,
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
int tp_list(struct tparse *p, const struct ynode *n, const char *field,
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

int tp_map(struct tparse *p, const struct ynode *n, const char *field,
	   const char *example)
{
	if (!n || n->kind != YNODE_MAP)
		return tp_err(p, n, "%s must be a map, not %s (e.g. %s)", field,
			      ynode_describe(n), example);
	return 0;
}

int tp_keys(struct tparse *p, const struct ynode *map,
	    const char *const *allowed, size_t n, const char *field)
{
	return ynode_check_keys(map, allowed, n, p->source, field, p->err);
}

void tp_param_list(const struct task *t, struct strbuf *sb)
{
	for (int i = 0; i < t->nparams; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", t->params[i]);
}

/* An expression node: an integer or a string, checked against params. */
int tp_expr(struct tparse *p, const struct ynode *n, const char *field,
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

int tp_schema(struct tparse *p, const struct ynode *root)
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

int tp_meta(struct tparse *p, const struct ynode *root)
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
		return tp_err(p, root,
			      "missing required key 'language'; give "
			      "one of " LANGUAGE_NAMES);
	if (!ynode_is_text(n) ||
	    task_language_parse(n->str, &t->language))
		return tp_err(p, n,
			      "language must be one of " LANGUAGE_NAMES
			      ", not '%.80s'",
			      ynode_is_text(n) ? n->str : ynode_describe(n));

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
		t->entry = xstrdup(task_default_entry(t->language));
		return 0;
	}
	if (!ynode_is_text(n) || !tp_is_ident(n->str))
		return tp_err(p, n,
			      "entry must be an identifier (the %s the "
			      "runner calls), not '%.80s'",
			      language_is_python(t->language)
				      ? "module's function"
				      : "symbol",
			      ynode_is_text(n) ? n->str : ynode_describe(n));
	t->entry = xstrdup(n->str);
	return 0;
}

/* ---- files -------------------------------------------------------------- */

int tp_editable(struct tparse *p, const struct ynode *root)
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

int tp_reference(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "file", "language", "entry",
					    "split" };
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
		     task_language_parse(lang->str, &t->reference_language)))
		return tp_err(
			p, lang,
			"reference.language must be one of " LANGUAGE_NAMES
			", not '%.80s'",
			ynode_is_text(lang) ? lang->str : ynode_describe(lang));
	if (t->reference_language == LANG_TRITON)
		return tp_err(
			p, lang,
			"reference.language triton: a reference "
			"is trusted code and runs as plain PyTorch; write "
			"language: python (it runs on the task's device)");
	return tp_reference_entry(p, n);
}

/* reference.split: P, checked once the signature is known.  P must be a
 * param; the reference a C one (it runs in the host runner, which cuts
 * the call); every output the first-dimension-P kind, so that each thread
 * writes rows of its own; and P nowhere else in a shape nor in a bound of
 * drawn values, so that cutting the first dimension of those arguments
 * is all that a smaller P means. */
int tp_reference_split(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(ynode_get(root, "reference"), "split");
	struct task *t = p->t;
	const char *others[TASK_MAX_PARAMS];
	int param = -1, nothers = 0;

	if (!n)
		return 0;
	if (!ynode_is_text(n))
		return tp_err(p, n, "reference.split must name one of "
			      "signature.params, not %s", ynode_describe(n));
	for (int i = 0; i < t->nparams; i++)
		if (strcmp(t->params[i], n->str) == 0)
			param = i;
		else
			others[nothers++] = t->params[i];
	if (param < 0)
		return tp_err(p, n, "reference.split '%.80s' is not one of "
			      "signature.params; name the param whose rows "
			      "the reference computes independently",
			      n->str);
	if (t->reference_language != LANG_C)
		return tp_err(p, n, "reference.split applies to a C reference "
			      "(language: c), which the host runner calls in "
			      "several threads; remove it for a %s reference",
			      language_name(t->reference_language));
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		bool first = ta->rank > 0 && strcmp(ta->shape[0], n->str) == 0;
		struct errbuf e;

		for (int d = first ? 1 : 0; d < ta->rank; d++) {
			errbuf_init(&e);
			int uses = expr_check(ta->shape[d], others, nothers, &e);
			if (uses)
				return tp_err(p, n, "reference.split '%s': "
					      "argument '%s' uses it in "
					      "dimension %d ('%s'); a split "
					      "param may only be an argument's "
					      "whole first dimension; remove "
					      "split", n->str, ta->name, d + 1,
					      ta->shape[d]);
		}
		/* Values drawn up to the param (an index into its rows)
		 * would point outside a range. */
		for (int k = 0; k < 2; k++) {
			const char *b = k ? ta->init.hi_expr : ta->init.lo_expr;
			errbuf_init(&e);
			if (b && expr_check(b, others, nothers, &e))
				return tp_err(p, n, "reference.split '%s': "
					      "argument '%s' draws its values "
					      "with a bound that uses it "
					      "('%s'), so they index rows of "
					      "the whole call; remove split",
					      n->str, ta->name, b);
		}
		if (!first && ta->io != IO_IN)
			return tp_err(p, n, "reference.split '%s': output "
				      "'%s' does not have it as its first "
				      "dimension, so threads would write the "
				      "same elements; remove split", n->str,
				      ta->name);
		if (first)
			t->reference_split_args |= 1u << a;
	}
	t->reference_split = true;
	t->reference_split_param = param;
	return 0;
}

/* baseline: {files: [baseline.hip]} maps one to one onto editable. */
int tp_baseline(struct tparse *p, const struct ynode *root)
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

int tp_compile_flags(struct tparse *p, const struct ynode *root)
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
int tp_optional_paths(struct tparse *p, const struct ynode *root)
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

/* ---- tolerance, cost, tunables ---------------------------------------- */

/* Whether some floating-point output has no tolerance of its own, so
 * that the task's `tolerance` must give one. */
static bool task_needs_tolerance(const struct task *t)
{
	for (int i = 0; i < t->nargs; i++)
		if (t->args[i].io != IO_IN &&
		    dtype_is_float(t->args[i].dtype) && !t->args[i].tol_set)
			return true;
	return false;
}

static int tp_tolerance_value(struct tparse *p, const struct ynode *map,
			      const char *field, const char *key, double *out)
{
	const struct ynode *n = ynode_get(map, key);

	*out = 0;
	if (!n)
		return 0;
	/* ynode_double refuses inf, nan and overflow: finite or an error. */
	if (ynode_double(n, out) || *out < 0)
		return tp_err(p, n,
			      "%s.%s must be a finite number >= 0 such "
			      "as 1e-5, not %s '%.40s'",
			      field, key, ynode_describe(n),
			      ynode_is_text(n) ? n->str : "");
	return 0;
}

int tp_tolerance_pair(struct tparse *p, const struct ynode *v,
		      const char *field, const char *example, double *atol,
		      double *rtol)
{
	static const char *const keys[] = { "atol", "rtol" };
	int rc;

	if ((rc = tp_map(p, v, field, example)) != 0 ||
	    (rc = tp_keys(p, v, keys, 2, field)) != 0)
		return rc;
	if (v->n == 0)
		return tp_err(p, v, "%s is empty; give atol, rtol or both",
			      field);
	if ((rc = tp_tolerance_value(p, v, field, "atol", atol)) != 0)
		return rc;
	return tp_tolerance_value(p, v, field, "rtol", rtol);
}

/* tolerance.<dtype>: {atol, rtol} for the outputs of that dtype. */
static int tp_dtype_tolerance(struct tparse *p, const struct ypair *pair)
{
	const struct ynode *v = pair->value;
	arena_dtype d;
	char field[64];

	if (dtype_parse(pair->key, &d) || (int)d >= TASK_MAX_DTYPES)
		return tp_err(p, v,
			      "tolerance: unknown key '%.40s'; give atol, "
			      "rtol, or a dtype (" DTYPE_NAMES ") with its own "
			      "{atol, rtol}",
			      pair->key);
	snprintf(field, sizeof(field), "tolerance.%s", pair->key);
	p->t->dtype_tol_set[d] = true;
	return tp_tolerance_pair(p, v, field, "bf16: {atol: 1e-2, rtol: 1e-2}",
				 &p->t->dtype_atol[d], &p->t->dtype_rtol[d]);
}

int tp_tolerance(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "tolerance");
	int rc;

	if (!n) {
		if (task_needs_tolerance(p->t))
			return tp_err(p, root,
				      "missing required key "
				      "'tolerance'; an output is floating "
				      "point and has no tolerance of its own, "
				      "so give e.g. tolerance: {atol: 1e-5, "
				      "rtol: 1e-5}");
		return 0;
	}
	if ((rc = tp_map(p, n, "tolerance",
			 "tolerance: {atol: 1e-5, rtol: "
			 "1e-5}")) != 0)
		return rc;
	if (n->n == 0)
		return tp_err(p, n, "tolerance is empty; give atol, rtol or "
			      "both");
	for (size_t i = 0; i < n->n; i++) {
		const char *k = n->pairs[i].key;
		if (strcmp(k, "atol") && strcmp(k, "rtol") &&
		    (rc = tp_dtype_tolerance(p, &n->pairs[i])) != 0)
			return rc;
	}
	if ((rc = tp_tolerance_value(p, n, "tolerance", "atol", &p->t->atol)) !=
	    0)
		return rc;
	return tp_tolerance_value(p, n, "tolerance", "rtol", &p->t->rtol);
}

int tp_cost(struct tparse *p, const struct ynode *root)
{
	static const char *const keys[] = { "bytes", "flops", "compute_class" };
	static const char *const classes[] = { "fp32", "tf32", "bf16",
					       "fp16", "fp8",  "int8" };
	const struct ynode *n = ynode_get(root, "cost");
	const struct ynode *v;
	int rc;

	if (!n)
		return 0;
	if ((rc = tp_map(p, n, "cost",
			 "cost: {bytes: \"8*n\", flops: "
			 "\"2*n\"}")) != 0 ||
	    (rc = tp_keys(p, n, keys, 3, "cost")) != 0)
		return rc;
	if ((v = ynode_get(n, "bytes")) &&
	    (rc = tp_expr(p, v, "cost.bytes", &p->t->cost_bytes)) != 0)
		return rc;
	if ((v = ynode_get(n, "flops")) &&
	    (rc = tp_expr(p, v, "cost.flops", &p->t->cost_flops)) != 0)
		return rc;
	/* The fastest arithmetic the kernels may use, for the roofline
	 * floor (docs/gpu.md); from the argument types when absent. */
	if ((v = ynode_get(n, "compute_class"))) {
		if ((rc = tp_string(p, v, "cost.compute_class",
				    &p->t->cost_class)) != 0)
			return rc;
		for (size_t i = 0; i < ARRAY_SIZE(classes); i++)
			if (strcmp(p->t->cost_class, classes[i]) == 0)
				return 0;
		return tp_err(p, v,
			      "cost.compute_class '%s' is not one of "
			      "fp32, tf32, bf16, fp16, fp8, int8",
			      p->t->cost_class);
	}
	return 0;
}

/* timing_floor_us (with timing_floor_reason): the task's own timing
 * floor, replacing the evaluator's (docs/tasks.md). */
int tp_timing_floor(struct tparse *p, const struct ynode *root)
{
	const struct ynode *n = ynode_get(root, "timing_floor_us");
	const struct ynode *why = ynode_get(root, "timing_floor_reason");
	int rc;

	p->t->timing_floor_us = -1;
	if (!n && !why)
		return 0;
	if (!n)
		return tp_err(p, why,
			      "timing_floor_reason is given without "
			      "timing_floor_us");
	if (ynode_double(n, &p->t->timing_floor_us) ||
	    !(p->t->timing_floor_us >= 0 && p->t->timing_floor_us <= 1e6))
		return tp_err(p, n,
			      "timing_floor_us must be a number of "
			      "microseconds from 0 to 1000000, not %s",
			      ynode_describe(n));
	if (!why)
		return tp_err(p, n,
			      "timing_floor_us needs a "
			      "timing_floor_reason: say why calls this short "
			      "can be timed (e.g. timing_floor_reason: \"the "
			      "kernel's launch dominates every use of it\")");
	if ((rc = tp_string(p, why, "timing_floor_reason",
			    &p->t->timing_floor_reason)) != 0)
		return rc;
	if (strlen(p->t->timing_floor_reason) > 400)
		return tp_err(p, why,
			      "timing_floor_reason is longer than 400 "
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
		if (ynode_i64(v, &iv) &&
		    !(ynode_is_text(v) && tp_is_ident(v->str)))
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

int tp_tunables(struct tparse *p, const struct ynode *root)
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
	task_dtype_int_range(a->dtype, &min, &max);
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

int tp_check_case(struct tparse *p, int ci)
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

int tp_check_files(struct tparse *p, const struct ynode *root)
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

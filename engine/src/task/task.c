/*
 * task.c - the task model (arena/task.h): dtypes and languages, freeing a
 * task, and evaluating a case's shapes and costs.  Parsing is
 * task_parse.c, task_signature.c and task_load.c; the catalogue is
 * task_catalogue.c; docs/tasks.md is the reference they implement.
 *
 * Ownership: a struct task owns every string it points to; task_free()
 * releases a partly built task too, so error paths just free and return.
 */
#include "task_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	case LANG_PYTHON:
		return "python";
	case LANG_TRITON:
		return "triton";
	}
	return "unknown";
}

bool language_is_python(enum task_language l)
{
	return l == LANG_PYTHON || l == LANG_TRITON;
}

static bool dtype_tolerance_set(const struct task *t, arena_dtype d)
{
	return (int)d > 0 && (int)d < TASK_MAX_DTYPES && t->dtype_tol_set[d];
}

void task_tolerance(const struct task *t, const struct task_arg *a,
		    double *atol, double *rtol)
{
	arena_dtype d = a->dtype;

	if (a->tol_set) {
		*atol = a->atol;
		*rtol = a->rtol;
		return;
	}
	if (dtype_tolerance_set(t, d)) {
		*atol = t->dtype_atol[d];
		*rtol = t->dtype_rtol[d];
		return;
	}
	*atol = t->atol;
	*rtol = t->rtol;
}

bool task_tolerance_is_tasks(const struct task *t, const struct task_arg *a)
{
	return !a->tol_set && !dtype_tolerance_set(t, a->dtype);
}

int task_language_parse(const char *s, enum task_language *out)
{
	static const enum task_language all[] = { LANG_C, LANG_HIP, LANG_CUDA,
						  LANG_PYTHON, LANG_TRITON };

	for (size_t i = 0; s && i < ARRAY_SIZE(all); i++) {
		if (!strcmp(language_name(all[i]), s)) {
			*out = all[i];
			return 0;
		}
	}
	return -EINVAL;
}

/* The integer range an init value of dtype d must stay in (floats: any). */
void task_dtype_int_range(arena_dtype d, int64_t *lo, int64_t *hi)
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
	free(t->reference_entry);
	strvec_release(&t->allowed_calls);
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
	for (int i = 0; i < TASK_MAX_CASES; i++) {
		free(t->cases[i].id);
		free(t->cases[i].rule);
	}
	strvec_release(&t->rule_notes);
	free(t->cost_bytes);
	free(t->cost_flops);
	free(t->cost_class);
	free(t->timing_floor_reason);
	for (int i = 0; i < TASK_MAX_TUNABLES; i++) {
		free(t->tunables[i].name);
		for (int v = 0; v < TASK_MAX_TUNABLE_VALUES; v++)
			free(t->tunables[i].values[v]);
	}
	free(t->config_sha256);
	aka_task_free(t->aka);
	strvec_release(&t->bundle_files);
	free(t->torch_ext);
	free(t->trusted_hash);
	free(t);
}

/* ---- evaluation --------------------------------------------------------- */

void task_env(const struct task *t, const struct task_case *c,
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

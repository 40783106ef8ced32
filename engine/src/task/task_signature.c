/*
 * task_signature.c - the signature (params and args: dtype, shape, io,
 * init) and the cases (visible ones in config.yaml, held-out ones in
 * held_out.yaml) of a task's config (docs/tasks.md).  Shapes, bounds and
 * case parameters are checked against the parameter list here; their
 * values are checked per case once every section parsed (task_parse.c).
 */
#include "task_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		if (!ynode_is_text(item) || !tp_is_ident(item->str))
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
	case INIT_RECORDED: /* never parsed: tp_init_dist has no name */
		break;
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

/* An output's own tolerance, which replaces the task's (and its dtype's)
 * for that output: one task can hold a float32 statistic to rtol 1e-4
 * while its bf16 output needs 1e-2 (docs/tasks.md). */
static int tp_arg_tolerance(struct tparse *p, const struct ynode *argn,
			    const char *label, struct task_arg *a)
{
	const struct ynode *n = ynode_get(argn, "tolerance");
	char field[160];

	if (!n)
		return 0;
	snprintf(field, sizeof(field), "%s.tolerance", label);
	if (a->io == IO_IN)
		return tp_err(p, n,
			      "%s: a tolerance applies to outputs only; "
			      "remove it from this input (inputs must be "
			      "unchanged bit for bit)",
			      field);
	if (!dtype_is_float(a->dtype))
		return tp_err(p, n,
			      "%s: %s outputs must match exactly; remove "
			      "the tolerance (only floating-point outputs "
			      "take one)",
			      field, dtype_name(a->dtype));
	a->tol_set = true;
	return tp_tolerance_pair(p, n, field,
				 "tolerance: {atol: 1e-6, rtol: "
				 "1e-4}",
				 &a->atol, &a->rtol);
}

static int tp_arg(struct tparse *p, const struct ynode *argn, int i)
{
	static const char *const keys[] = { "name", "dtype", "shape",
					    "io",   "init",  "tolerance" };
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
	if (!ynode_is_text(n) || !tp_is_ident(n->str))
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
	    (rc = tp_shape(p, argn, label, a)) != 0 ||
	    (rc = tp_arg_tolerance(p, argn, label, a)) != 0)
		return rc;
	return tp_init(p, argn, label, a);
}

int tp_signature(struct tparse *p, const struct ynode *root)
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
	if (!ynode_is_text(id) || !tp_is_name(id->str, id->str_len))
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
int tp_cases(struct tparse *p, const struct ynode *map, bool held_out)
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

int tp_held_out(struct tparse *p, const struct ynode *held)
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

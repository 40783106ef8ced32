/*
 * task_python.c - what the schema adds for Python-language tasks
 * (docs/tasks.md, docs/python.md): the entry a Python module exposes, the
 * reference's entry, and the rule that a candidate may call no library
 * kernel (forbid_library_calls, allowed_calls).
 *
 * Python files are modules: an editable or reference file of a python or
 * triton task must be named <module>.py with a module name that is a
 * Python identifier, so the runner can import it from memory under that
 * name; a name the runner itself imports (torch, triton, numpy, ...)
 * would shadow it and is refused.
 */
#include "task_parse.h"

#include <string.h>

const char *task_default_entry(enum task_language l)
{
	return language_is_python(l) ? "launch" : "arena_launch";
}

int tp_reference_entry(struct tparse *p, const struct ynode *n)
{
	struct task *t = p->t;
	const struct ynode *e = ynode_get(n, "entry");

	if (e) {
		if (!ynode_is_text(e) || !tp_is_ident(e->str))
			return tp_err(p, e,
				      "reference.entry must be an "
				      "identifier, not '%.80s'",
				      ynode_is_text(e) ? e->str
						       : ynode_describe(e));
		t->reference_entry = xstrdup(e->str);
		return 0;
	}
	/* Same kind as the task (both compiled, or both Python): the task's
	 * entry, as before; otherwise the default of the reference's kind. */
	if (language_is_python(t->reference_language) ==
	    language_is_python(t->language))
		t->reference_entry = xstrdup(t->entry);
	else
		t->reference_entry =
			xstrdup(task_default_entry(t->reference_language));
	return 0;
}

/* Names a Python kernel's module may not take: what the runner imports
 * or the standard library modules a kernel is likely to import. */
static const char *const taken[] = {
	"torch",  "triton",    "numpy",		  "math",    "os",     "sys",
	"typing", "functools", "itertools",	  "ctypes",  "struct", "time",
	"random", "zygote",    "arena_runner_py", "pycheck",
};

/* path must be <identifier>.py (a module of the top directory). */
static int tp_module_file(struct tparse *p, const struct ynode *at,
			  const char *field, const char *path)
{
	size_t len = strlen(path);
	char name[128];

	if (len < 4 || len - 3 >= sizeof(name) || strcmp(path + len - 3, ".py"))
		return tp_err(p, at,
			      "%s '%s' must be a Python module named "
			      "<name>.py",
			      field, path);
	memcpy(name, path, len - 3);
	name[len - 3] = '\0';
	if (!tp_is_ident(name))
		return tp_err(
			p, at,
			"%s '%s': the module name '%s' must be a "
			"Python identifier (files of a Python task lie in "
			"the task's top directory)",
			field, path, name);
	for (size_t i = 0; i < ARRAY_SIZE(taken); i++)
		if (!strcmp(name, taken[i]))
			return tp_err(p, at,
				      "%s '%s' would shadow the module "
				      "'%s' the runner imports; choose another "
				      "name",
				      field, path, name);
	return 0;
}

/* "torch.matmul", "torch.nn.functional.gelu", "Tensor.sum": dotted
 * identifiers. */
static bool dotted_name(const char *s)
{
	char part[128];
	const char *dot;

	do {
		dot = strchr(s, '.');
		size_t n = dot ? (size_t)(dot - s) : strlen(s);
		if (n == 0 || n >= sizeof(part))
			return false;
		memcpy(part, s, n);
		part[n] = '\0';
		if (!tp_is_ident(part))
			return false;
		s = dot ? dot + 1 : s + n;
	} while (dot);
	return true;
}

int tp_python(struct tparse *p, const struct ynode *root)
{
	struct task *t = p->t;
	const struct ynode *f = ynode_get(root, "forbid_library_calls");
	const struct ynode *a = ynode_get(root, "allowed_calls");
	bool py = language_is_python(t->language);
	int rc;

	if (py) {
		const struct ynode *ed = ynode_get(root, "editable");
		for (size_t i = 0; i < t->editable.n; i++) {
			char field[64];
			snprintf(field, sizeof(field), "editable[%zu]", i);
			if ((rc = tp_module_file(
				     p, ed && i < ed->n ? ed->items[i] : root,
				     field, t->editable.v[i])) != 0)
				return rc;
		}
		if (t->reference_language != LANG_PYTHON &&
		    t->reference_language != LANG_C)
			return tp_err(p, ynode_get(root, "reference"),
				      "a %s task's reference must be python "
				      "(or c), not %s",
				      language_name(t->language),
				      language_name(t->reference_language));
	}
	if (t->reference_language == LANG_PYTHON &&
	    (rc = tp_module_file(
		     p, ynode_get(ynode_get(root, "reference"), "file"),
		     "reference.file", t->reference_file)) != 0)
		return rc;
	if (f) {
		if (!py)
			return tp_err(
				p, f,
				"forbid_library_calls applies to "
				"python and triton tasks only (a compiled "
				"kernel's calls are its linker's)");
		if (ynode_bool(f, &t->forbid_library_calls))
			return tp_err(p, f,
				      "forbid_library_calls must be true or "
				      "false, not %s",
				      ynode_describe(f));
	}
	if (!a)
		return 0;
	if (!t->forbid_library_calls)
		return tp_err(p, a,
			      "allowed_calls without forbid_library_calls: "
			      "true allows nothing more; set "
			      "forbid_library_calls: true or drop the list");
	if ((rc = tp_list(p, a, "allowed_calls", 0, TASK_MAX_ALLOWED_CALLS,
			  "allowed_calls: [torch.matmul, Tensor.sum]")) != 0)
		return rc;
	for (size_t i = 0; i < a->n; i++) {
		const struct ynode *v = a->items[i];
		if (!ynode_is_text(v) || !dotted_name(v->str))
			return tp_err(
				p, v,
				"allowed_calls[%zu] must be a dotted "
				"name such as torch.matmul or Tensor.sum, "
				"not %s",
				i, ynode_describe(v));
		strvec_push(&t->allowed_calls, v->str);
	}
	return 0;
}

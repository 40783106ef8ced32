/*
 * task_parse.h - what the task room's files share (private to
 * engine/src/task): the parsing context of one config.yaml, the helpers
 * every section parser uses, and the section parsers task_load.c calls in
 * order.  arena/task.h is the room's public interface.
 *
 * Every tp_* function returns 0 or -EINVAL with a message in p->err that
 * names the file, the line, the field and the fix (tp_err).
 */
#ifndef ARENA_TASK_PARSE_H
#define ARENA_TASK_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena/expr.h"
#include "arena/task.h"
#include "arena/ydoc.h"

#define TASK_MAX_EDITABLE 32
#define TASK_MAX_COMPILE_FLAGS 64
#define TASK_MAX_NAME_LEN 64

#define DTYPE_NAMES "f32, f64, f16, bf16, i32, i64, u8, u32, i8"
#define LANGUAGE_NAMES "c, hip, cuda, python, triton"

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

/* ---- task.c: the task model ------------------------------------------ */

int task_language_parse(const char *s, enum task_language *out);
void task_dtype_int_range(arena_dtype d, int64_t *lo, int64_t *hi);
void task_env(const struct task *t, const struct task_case *c,
	      struct expr_env *env);

/* ---- task_parse.c: helpers every section uses ------------------------- */

int tp_err(struct tparse *p, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool tp_is_ident(const char *s);
bool tp_is_name(const char *s, size_t len);
int tp_string(struct tparse *p, const struct ynode *n,
	      const char *field, char **out);
int tp_relpath(struct tparse *p, const struct ynode *n,
	       const char *field, char **out);
int tp_list(struct tparse *p, const struct ynode *n, const char *field,
	    size_t min, size_t max, const char *example);
int tp_map(struct tparse *p, const struct ynode *n, const char *field,
	   const char *example);
int tp_keys(struct tparse *p, const struct ynode *map,
	    const char *const *allowed, size_t n, const char *field);
void tp_param_list(const struct task *t, struct strbuf *sb);
int tp_expr(struct tparse *p, const struct ynode *n, const char *field,
	    char **out);

/* ---- task_parse.c: sections and load-time checks ---------------------- */

int tp_schema(struct tparse *p, const struct ynode *root);
int tp_meta(struct tparse *p, const struct ynode *root);
int tp_editable(struct tparse *p, const struct ynode *root);
int tp_reference(struct tparse *p, const struct ynode *root);
int tp_reference_split(struct tparse *p, const struct ynode *root);
int tp_baseline(struct tparse *p, const struct ynode *root);
int tp_compile_flags(struct tparse *p, const struct ynode *root);
int tp_optional_paths(struct tparse *p, const struct ynode *root);
/* A {atol, rtol} map at v (the top level's, a dtype's or an output's):
 * atol and/or rtol, each a finite number >= 0 (a key left out is 0). */
int tp_tolerance_pair(struct tparse *p, const struct ynode *v,
		      const char *field, const char *example, double *atol,
		      double *rtol);
int tp_tolerance(struct tparse *p, const struct ynode *root);
int tp_cost(struct tparse *p, const struct ynode *root);
int tp_timing_floor(struct tparse *p, const struct ynode *root);
int tp_tunables(struct tparse *p, const struct ynode *root);
int tp_check_case(struct tparse *p, int ci);
int tp_check_files(struct tparse *p, const struct ynode *root);

/* ---- task_python.c: what Python-language tasks add --------------------- */

/* The entry a language's kernels have unless the task names one. */
const char *task_default_entry(enum task_language l);
/* reference.entry (n: the reference map), or its default. */
int tp_reference_entry(struct tparse *p, const struct ynode *n);
/* forbid_library_calls and allowed_calls; the rules Python files obey
 * (editable and reference files named *.py, module names). */
int tp_python(struct tparse *p, const struct ynode *root);
/* ---- held_out_rules.c --------------------------------------------------- */

int tp_held_out_rules(struct tparse *p, const struct ynode *root);
/* Appends the held-out cases of the task's rules (after every written
 * case is loaded and checked); seed fixes the choices inside each rule. */
void tp_rule_cases(struct tparse *p, uint64_t seed);

/* ---- aka_task.c: AgentKernelArena task folders (docs/aka.md) --------- */

/* Fills p->t from an AKA config (legacy keys or schema_version 2). */
int tp_aka(struct tparse *p, const struct ynode *root);
/* TASK.md of an AKA task (aka_doc.c; caller frees). */
char *aka_doc_render(const struct task *t);

/* ---- task_roots.c --------------------------------------------------------- */

/* The directory of the registered root an id starts with, *rest after
 * its name; NULL when the id is the tasks root's. */
const char *task_root_of(const char *id, const char **rest);

/* ---- task_signature.c --------------------------------------------------- */

int tp_signature(struct tparse *p, const struct ynode *root);
int tp_cases(struct tparse *p, const struct ynode *map, bool held_out);
int tp_held_out(struct tparse *p, const struct ynode *held);

#endif /* ARENA_TASK_PARSE_H */

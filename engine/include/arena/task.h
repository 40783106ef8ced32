/*
 * task.h - tasks in the native schema `arena/1` (docs/tasks.md is the
 * field-by-field reference) and the task catalogue.
 *
 * A task is a directory tasks/<family>/<name>/ holding config.yaml, the
 * baseline sources (the files named in `editable`), a trusted reference,
 * an optional README.md and an optional held_out.yaml.  Its id is the path
 * relative to the tasks root ("c2c/saxpy"); its family is the first
 * component.  task_load() validates everything strictly: unknown keys, bad
 * values, expressions naming unknown parameters, cases that miss a
 * parameter, missing files are all errors that name the file and field.
 */
#ifndef ARENA_TASK_H
#define ARENA_TASK_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/kernel.h"
#include "arena/util.h"

#define TASK_MAX_ARGS 16
#define TASK_MAX_PARAMS 16
#define TASK_MAX_CASES 64
#define TASK_MAX_TUNABLES 8
#define TASK_MAX_TUNABLE_VALUES 16
#define TASK_CONFIG_MAX_BYTES (256 * 1024)

enum task_language { LANG_C = 1, LANG_HIP, LANG_CUDA };
enum task_state { TASK_IMPLEMENTED = 1, TASK_UNIMPLEMENTED };
enum arg_io { IO_IN = 1, IO_OUT, IO_INOUT };

enum init_dist {
	INIT_NORMAL = 1,	/* a = mean, b = std */
	INIT_UNIFORM,		/* [a, b) */
	INIT_RANDINT,		/* integers in [lo_expr, hi_expr] inclusive */
	INIT_ONES,		/* for masks and scales; never for timing data */
};

struct arg_init {
	enum init_dist dist;
	double a, b;		/* normal / uniform parameters */
	char *lo_expr;		/* randint bounds (expressions), owned */
	char *hi_expr;
};

struct task_arg {
	char *name;
	arena_dtype dtype;
	enum arg_io io;
	int rank;
	char *shape[ARENA_MAX_RANK];	/* expressions, owned */
	struct arg_init init;		/* inputs and inouts only */
};

struct task_case {
	char *id;
	int64_t params[TASK_MAX_PARAMS];	/* in signature.params order */
	bool held_out;
};

struct task_tunable {
	char *name;				/* a -D macro name */
	int nvalues;
	char *values[TASK_MAX_TUNABLE_VALUES];	/* as written */
};

struct task {
	char *id;		/* "c2c/saxpy" */
	char *family;		/* "c2c" */
	char *name;		/* "saxpy" */
	char *dir;		/* absolute path of the task directory */
	char *description;
	enum task_language language;
	enum task_state initial_state;
	struct strvec editable;	/* relative paths */
	char *entry;		/* "arena_launch" */
	/* baseline.files: the baseline's version of each editable file, one
	 * to one (empty = the editable files themselves).  Required for
	 * unimplemented tasks, whose editable files are stubs. */
	struct strvec baseline_files;
	char *reference_file;	/* relative path */
	enum task_language reference_language;
	char *readme;		/* relative path or NULL */
	struct strvec compile_flags;	/* extra flags for every build */

	int nparams;
	char *params[TASK_MAX_PARAMS];
	int nargs;
	struct task_arg args[TASK_MAX_ARGS];

	int ncases;		/* visible first, then held-out */
	int nvisible;
	struct task_case cases[TASK_MAX_CASES];

	double atol, rtol;
	char *cost_bytes;	/* expressions or NULL */
	char *cost_flops;
	/* The task's timing floor in us (cases whose baseline call is
	 * shorter are checked, not timed) and why; -1 / NULL: the
	 * evaluator's default. */
	double timing_floor_us;
	char *timing_floor_reason;

	int ntunables;
	struct task_tunable tunables[TASK_MAX_TUNABLES];

	char *config_sha256;	/* hash of config.yaml + held_out.yaml */
};

/* Loads and validates tasks_root/id.  On success *out is a new task the
 * caller frees with task_free().  held_out.yaml cases are loaded too (with
 * held_out = true). */
int task_load(const char *tasks_root, const char *id, struct task **out,
	      struct errbuf *err);
/* Parses config text (and optional held-out text) as if it were the
 * config.yaml of task `id` in dir; file existence checks are skipped when
 * dir is NULL.  Used by task_load() and by the fuzz harness. */
int task_parse(const char *id, const char *dir, const char *config_text,
	       size_t config_len, const char *held_out_text,
	       size_t held_out_len, struct task **out, struct errbuf *err);
void task_free(struct task *t);

/* Number of elements of arg i for case c (product of its shape). */
int task_arg_numel(const struct task *t, int arg, const struct task_case *c,
		   int64_t *numel, struct errbuf *err);
int task_arg_shape(const struct task *t, int arg, const struct task_case *c,
		   int64_t shape[ARENA_MAX_RANK], struct errbuf *err);
/* Cost of case c in bytes/flops; 0 when the task declares none. */
int task_case_cost(const struct task *t, const struct task_case *c,
		   int64_t *bytes, int64_t *flops, struct errbuf *err);
/* Finds a case by id, or NULL. */
const struct task_case *task_find_case(const struct task *t, const char *id);

size_t dtype_size(arena_dtype d);
const char *dtype_name(arena_dtype d);
int dtype_parse(const char *s, arena_dtype *out);
bool dtype_is_float(arena_dtype d);
const char *language_name(enum task_language l);

/* TASK.md for t (caller frees): objective, editable files, signature,
 * visible cases, tolerance, how it is judged, how to evaluate, rules, and
 * the task's README.  Shows only what an agent may know: never held-out
 * cases, never the reference (task/taskdoc.c). */
char *task_doc_render(const struct task *t);

/* ---- catalogue ------------------------------------------------------- */

/* Expands a selector ("all", "c2c", "c2c/saxpy", a parent directory) into
 * the sorted list of task ids under tasks_root.  A selector that matches no
 * task is an error naming it. */
int task_select(const char *tasks_root, const char *selector,
		struct strvec *ids, struct errbuf *err);

/* The tasks root: $ARENA_TASKS_DIR, else the built-in default. */
const char *task_default_root(void);

#endif /* ARENA_TASK_H */

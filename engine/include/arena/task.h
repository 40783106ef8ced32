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
#define TASK_MAX_DTYPES 16 /* > the largest arena_dtype */
#define TASK_MAX_ALLOWED_CALLS 64

/* c, hip, cuda: compiled to a shared object (arena_launch).  python: a
 * PyTorch module run on the host (CPU tensors); triton: a Triton/PyTorch
 * module run on a GPU (docs/python.md). */
enum task_language {
	LANG_C = 1,
	LANG_HIP,
	LANG_CUDA,
	LANG_PYTHON,
	LANG_TRITON
};
enum task_state { TASK_IMPLEMENTED = 1, TASK_UNIMPLEMENTED };
enum arg_io { IO_IN = 1, IO_OUT, IO_INOUT };

enum init_dist {
	INIT_NORMAL = 1, /* a = mean, b = std */
	INIT_UNIFORM,	 /* [a, b) */
	INIT_RANDINT,	 /* integers in [lo_expr, hi_expr] inclusive */
	INIT_ONES,	 /* for masks and scales; never for timing data */
	INIT_RECORDED,	 /* a prepared AKA task's recorded input sets
				 * (eval room, aka_prepare.c); never parsed */
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
	/* Checked, never timed: a prepared AKA task's shapes that its
	 * harness checks but does not time. */
	bool check_only;
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
	char *reference_entry;	/* reference.entry, else the task's entry
				 * when the reference is of the same kind
				 * (compiled or Python), else that kind's
				 * default (arena_launch, launch) */
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
	/* tolerance: {<dtype>: {atol, rtol}}: an output of that dtype is
	 * compared with these instead (task_tolerance). */
	bool dtype_tol_set[TASK_MAX_DTYPES];
	double dtype_atol[TASK_MAX_DTYPES], dtype_rtol[TASK_MAX_DTYPES];
	/* Python tasks (docs/python.md): the candidate may call no library
	 * kernel - no torch function or tensor method beyond allocation and
	 * views - except those in allowed_calls ("torch.matmul",
	 * "Tensor.sum"); checked statically before anything runs. */
	bool forbid_library_calls;
	struct strvec allowed_calls;
	char *cost_bytes;	/* expressions or NULL */
	char *cost_flops;
	char *cost_class; /* cost.compute_class: "fp32", "tf32", "bf16",
				 * "fp16", "fp8", "int8" or NULL (docs/gpu.md) */
	/* The task's timing floor in us (cases whose baseline call is
	 * shorter are checked, not timed) and why; -1 / NULL: the
	 * evaluator's default. */
	double timing_floor_us;
	char *timing_floor_reason;

	int ntunables;
	struct task_tunable tunables[TASK_MAX_TUNABLES];

	char *config_sha256;	/* hash of config.yaml + held_out.yaml */

	/* An AgentKernelArena task folder (docs/aka.md), or NULL.  Such a
	 * task has no signature and no cases until the evaluator prepares
	 * it (it records them from the task's own harness); language,
	 * editable, initial_state and description are filled. */
	struct aka_task *aka;
	/* Files of the task directory added to every Python bundle of the
	 * task (a prepared AKA task's call shim and the modules its kernel
	 * imports); the first is the bundle's entry module when
	 * bundle_entry is set.  Empty for arena/1 tasks. */
	struct strvec bundle_files;
	bool bundle_entry;
	/* The reference is the baseline's own files (and bundle_files):
	 * a prepared AKA task, whose kernel as shipped is checked against
	 * the task's reference when it is prepared. */
	bool reference_is_baseline;
	/* Loaded from a trusted copy (task_load_trusted): the copy's hash,
	 * which the evaluator verifies before every build; else NULL. */
	char *trusted_hash;
};

/* ---- AgentKernelArena task folders (docs/aka.md) ---------------------- */

/* How an AKA task checks and times its kernel: the adapter that extracts
 * its calls, inputs and tolerances. */
enum aka_style {
	AKA_STYLE_UNKNOWN = 0,
	AKA_STYLE_VLLM,	     /* scripts/task_runner.py compile|correctness|
				 * performance, TEST_SHAPES */
	AKA_STYLE_ROCMBENCH, /* one pytest file holding kernel and tests */
	AKA_STYLE_GEAK,	     /* kernel.py + test_kernel_harness.py */
	AKA_STYLE_GPUMODE,   /* eval_tools/ scripts, pytorch_code_module/,
				 * hip/ sources (torch2hip, hip2hip) */
};

#define AKA_TIMEOUT_COMPILE 0
#define AKA_TIMEOUT_CORRECTNESS 1
#define AKA_TIMEOUT_PERFORMANCE 2

struct aka_task {
	int schema_version; /* 1: AKA's legacy keys; 2: schema_version 2 */
	char *task_type;    /* task_type (legacy), else the id's family */
	enum aka_style style;
	char *harness;	       /* the file holding AKA's checks, relative */
	struct strvec targets; /* target_kernel_functions / entrypoints */
	/* Legacy: shell command strings, run in the task folder. */
	struct strvec compile_command, correctness_command, performance_command;
	/* schema_version 2: evaluation.runner (argv); role and action are
	 * appended by AKA's framework. */
	struct strvec runner;
	int timeout_s[3];   /* compile, correctness, performance */
	char *instructions; /* prompt.instructions / instructions files */
	char *source_code;  /* prompt.source_code */
	char *cheatsheet;   /* prompt.cheatsheet */
	/* Why this task cannot be evaluated here (AMD-only code, FlyDSL,
	 * ROCm images, a style arena has no adapter for), or NULL. */
	char *skip_reason;
};

const char *aka_style_name(enum aka_style s);
void aka_task_free(struct aka_task *a);
/* Whether config text is AgentKernelArena's (legacy keys or
 * schema_version) rather than arena/1. */
bool aka_config_detect(const char *text, size_t len);

/* ---- task roots ---------------------------------------------------------- */

/* Other directories of tasks, each under a name: a task of root `aka` at
 * triton2triton/vllm/x has the id aka/triton2triton/vllm/x, and every
 * task_load and task_select resolves ids that start with a registered
 * name there (the name hides a family of the same name in the tasks
 * root).  The table is process-wide; run configs (`task_roots:`,
 * `aka:PATH` selectors) and the store (engine_open) fill it.
 *
 * task_root_add: name [A-Za-z0-9_-], path an existing directory (an AKA
 * checkout is accepted for its tasks/ folder).  Adding a name again with
 * the same directory is a no-op; with another one it is an error. */
int task_root_add(const char *name, const char *path, struct errbuf *err);
/* The directory of a registered root (borrowed), or NULL. */
const char *task_root_path(const char *name);
/* The registered roots, "name\tpath" each (caller releases). */
void task_root_list(struct strvec *out);
/* An id as its own root names it: after a registered root's name
 * ("aka/triton2triton/x" -> "triton2triton/x"), else the id itself
 * (borrowed from id). */
const char *task_local_id(const char *id);
/* A task's family from its id: the first component of its local id
 * (caller frees). */
char *task_family_of(const char *id);
/* Resolves `aka:PATH[/subdir]` (PATH an AKA checkout, its tasks/ folder,
 * or a folder below it): registers the tasks folder as root `aka` and
 * writes the plain selector ("aka/triton2triton/vllm" or "aka") into
 * *sel.  0, or -EINVAL / -ENOENT with a sentence. */
int task_aka_selector(const char *selector, char **sel, struct errbuf *err);

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

/* ---- trusted copies (task/task_trusted.c; DESIGN.md §3.10) ------------
 *
 * A trusted copy is a task package copied into <root>/<hash>/, where hash
 * is the SHA-256 of its manifest (TASK_TRUST_MANIFEST: one "<sha256>  <path>"
 * line per file, sorted by path), with files 0444 and directories 0555.
 * The controller builds the baseline and the reference and reads the
 * held-out cases only from such a copy, and verifies it before every
 * build: nothing an agent or a candidate writes can change what it
 * trusts. */
#define TASK_TRUST_MANIFEST ".arena-manifest"

/* Copies the package in src_dir (regular files, at most 4096 and 512 MiB)
 * into root, unless a copy with the same content is there already; hash
 * gets its name.  The copy appears whole or not at all (renamed into
 * place). */
int task_trust_copy(const char *src_dir, const char *root, char hash[65],
		    struct errbuf *err);
/* <root>/<hash> (caller frees). */
char *task_trust_dir(const char *root, const char *hash);
/* Re-hashes every file of the copy in dir against its manifest and the
 * manifest against hash: 0, or -EBADMSG with a sentence naming the file
 * that changed, appeared or went missing.  When manifest is not NULL it
 * gets "<path>\t<sha256>" entries (for task_trust_lookup). */
int task_trust_verify(const char *dir, const char *hash,
		      struct strvec *manifest, struct errbuf *err);
/* The recorded hash of rel in a manifest from task_trust_verify, or NULL. */
const char *task_trust_lookup(const struct strvec *manifest, const char *rel);
/* Loads task `id` from the trusted copy <root>/<hash>, verified first;
 * (*out)->dir is the copy and (*out)->trusted_hash its hash. */
int task_load_trusted(const char *root, const char *hash, const char *id,
		      struct task **out, struct errbuf *err);

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
/* Python and Triton kernels are modules loaded by the Python runner;
 * the other languages compile to shared objects. */
bool language_is_python(enum task_language l);
/* The tolerance an output of dtype d is compared with. */
void task_tolerance(const struct task *t, arena_dtype d, double *atol,
		    double *rtol);

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

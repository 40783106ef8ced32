/*
 * taskdoc.c - TASK.md, the agent's brief for a task (arena/task.h:
 * task_doc_render): objective, editable files, signature, visible cases,
 * tolerance, how it is judged, how to evaluate, rules, and the task
 * author's README.
 *
 * TASK.md shows only what the agent may know: the visible cases, never the
 * held-out ones, never the reference source.
 */
#include "task_parse.h"

#include <stdlib.h>
#include <string.h>

static const char *io_name(enum arg_io io)
{
	return io == IO_IN ? "in" : io == IO_OUT ? "out" : "inout";
}

static void render_shape(struct strbuf *sb, const struct task_arg *a)
{
	strbuf_addch(sb, '[');
	for (int d = 0; d < a->rank; d++)
		strbuf_addf(sb, "%s%s", d ? ", " : "", a->shape[d]);
	strbuf_addch(sb, ']');
}

static void render_signature(struct strbuf *sb, const struct task *t)
{
	strbuf_addstr(sb, "## Signature\n\n");
	if (language_is_python(t->language))
		strbuf_addf(
			sb,
			"Your module `%s` must define `%s(args, params)`: "
			"`args` is a list of torch tensors in the order "
			"below (%s, contiguous; write every output in "
			"place), `params` a list of ints.  Return None (or "
			"0).  %s\n\n",
			t->editable.n ? t->editable.v[0] : "kernel.py",
			t->entry,
			t->language == LANG_TRITON ? "on the GPU"
						   : "on the CPU",
			t->language == LANG_TRITON
				? "Work goes on torch's current stream (the "
				  "evaluator's); Triton uses it by default."
				: "The evaluator runs it with one torch thread.");
	else
		strbuf_addf(sb,
			    "Your file(s) must export `int %s(const arena_arg "
			    "*args, int nargs, const int64_t *params, int "
			    "nparams, void *stream)` (see `arena/kernel.h`, "
			    "included with `#include \"arena/kernel.h\"`).\n\n",
			    t->entry);
	strbuf_addstr(sb, "Parameters (`params[]`, in this order): ");
	if (t->nparams == 0)
		strbuf_addstr(sb, "none");
	for (int i = 0; i < t->nparams; i++)
		strbuf_addf(sb, "%s`%s`", i ? ", " : "", t->params[i]);
	strbuf_addstr(sb, "\n\n| # | arg | dtype | shape | io |\n"
		      "|---|---|---|---|---|\n");
	for (int i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];
		strbuf_addf(sb, "| %d | `%s` | %s | ", i, a->name,
			    dtype_name(a->dtype));
		render_shape(sb, a);
		strbuf_addf(sb, " | %s |\n", io_name(a->io));
	}
	strbuf_addch(sb, '\n');
}

static void render_cases(struct strbuf *sb, const struct task *t)
{
	strbuf_addstr(sb, "## Visible cases\n\n| case |");
	for (int p = 0; p < t->nparams; p++)
		strbuf_addf(sb, " %s |", t->params[p]);
	strbuf_addstr(sb, "\n|---|");
	for (int p = 0; p < t->nparams; p++)
		strbuf_addstr(sb, "---|");
	strbuf_addch(sb, '\n');
	for (int c = 0; c < t->ncases; c++) {
		if (t->cases[c].held_out)
			continue;
		strbuf_addf(sb, "| %s |", t->cases[c].id);
		for (int p = 0; p < t->nparams; p++)
			strbuf_addf(sb, " %lld |",
				    (long long)t->cases[c].params[p]);
		strbuf_addch(sb, '\n');
	}
	strbuf_addstr(sb, "\nThe final evaluation also checks held-out cases "
		      "you cannot see (other sizes, odd and prime ones among "
		      "them): do not specialise your code to the sizes "
		      "above.\n\n");
}

/* Whether some floating-point output is held to the task-level tolerance
 * (not to its dtype's or its own): otherwise TASK.md names none. */
static bool uses_task_tolerance(const struct task *t)
{
	for (int a = 0; a < t->nargs; a++) {
		const struct task_arg *ta = &t->args[a];
		if (ta->io != IO_IN && dtype_is_float(ta->dtype) &&
		    task_tolerance_is_tasks(t, ta))
			return true;
	}
	return false;
}

char *task_doc_render(const struct task *t)
{
	if (t->aka)
		return aka_doc_render(t);

	struct strbuf sb = STRBUF_INIT;
	char *readme_path = t->readme ? path_join(t->dir, t->readme) : NULL;
	char *readme = NULL;

	strbuf_addf(&sb, "# Task %s\n\n## Objective\n\n%s\n\n", t->id,
		    t->description);
	strbuf_addf(&sb, "Make the %s kernel faster while keeping it correct. "
		    "Language: %s. Entry point: `%s`.\n\n",
		    t->initial_state == TASK_UNIMPLEMENTED ? "(unimplemented)"
							   : "given",
		    language_name(t->language), t->entry);
	strbuf_addstr(&sb, "## Files you may change\n\n");
	for (size_t i = 0; i < t->editable.n; i++)
		strbuf_addf(&sb, "- `%s`\n", t->editable.v[i]);
	strbuf_addstr(&sb, "\nEverything else is read-only; only these files "
		      "are evaluated.\n\n");
	render_signature(&sb, t);
	render_cases(&sb, t);
	strbuf_addstr(&sb, "## How it is judged\n\n");
	if (language_is_python(t->language))
		strbuf_addf(
			&sb,
			"- **Compiles**: your files are parsed%s and "
			"imported (a syntax error, or an exception at import, "
			"is a compile error); Triton compiles its kernels "
			"during warm-up, before anything is timed.\n",
			t->forbid_library_calls
				? " and checked against the rule on library calls "
				  "below"
				: "");
	else
		strbuf_addstr(
			&sb, "- **Compiles**: your files build with the "
			     "platform compiler (`cc -O2 -shared -fPIC` for c, "
			     "nvcc or hipcc for GPU languages) plus the task's "
			     "flags.\n");
	char tol[96];
	if (uses_task_tolerance(t))
		snprintf(tol, sizeof(tol),
			 "`|yours - reference| <= %g + %g * "
			 "|reference|`",
			 t->atol, t->rtol);
	else
		snprintf(tol, sizeof(tol), "its tolerance below");
	strbuf_addf(
		&sb,
		"- **Correct**: on several fresh random input sets per case "
		"(new values every evaluation), every element of every "
		"output must be written and satisfy %s (integers: exact); "
		"inputs must be left unchanged; outputs of every timed call "
		"are checked too.\n"
		"- **Fast**: your kernel and the original baseline run in "
		"two separate processes, strictly alternating, with the "
		"cache flushed before every sample; speedup = median of "
		"per-pair time ratios (geometric mean over cases), with a "
		"confidence interval.\n"
		"- **Score**: 0 if it does not compile, 20 if it is wrong, "
		"120 + 100 x speedup if correct.\n\n",
		tol);
	for (int d = 0; d < TASK_MAX_DTYPES; d++)
		if (t->dtype_tol_set[d])
			strbuf_addf(&sb,
				    "Outputs of dtype %s are held to `%g + %g "
				    "* |reference|` instead.\n\n",
				    dtype_name((arena_dtype)d),
				    t->dtype_atol[d], t->dtype_rtol[d]);
	for (int a = 0; a < t->nargs; a++)
		if (t->args[a].tol_set)
			strbuf_addf(&sb,
				    "Output `%s` is held to `%g + %g * "
				    "|reference|` instead.\n\n",
				    t->args[a].name, t->args[a].atol,
				    t->args[a].rtol);
	if (t->ntunables > 0) {
		strbuf_addstr(
			&sb,
			language_is_python(t->language)
				? "## Tunables\n\nModule-level constants of the "
				  "entry module; a value chosen for a run replaces "
				  "the constant after the module is imported:\n\n"
				: "## Tunables\n\nCompile-time knobs the "
				  "baseline reads (`#ifndef NAME`):\n\n");
		for (int i = 0; i < t->ntunables; i++) {
			strbuf_addf(&sb, "- `%s`:", t->tunables[i].name);
			for (int v = 0; v < t->tunables[i].nvalues; v++)
				strbuf_addf(&sb, " %s", t->tunables[i].values[v]);
			strbuf_addch(&sb, '\n');
		}
		strbuf_addch(&sb, '\n');
	}
	strbuf_addf(&sb, "## How to evaluate your work\n\n"
		    "- `arena eval %s --workspace .` prints a "
		    "task_result.yaml for the current files.\n"
		    "- Through a mounted arena (`arena mount`), `cat ../score` "
		    "or `cat ../task_result.yaml` from this workspace "
		    "evaluates it if it changed.\n\n", t->id);
	strbuf_addstr(&sb,
		      "## Rules\n\n"
		      "- Change only the files listed above.\n"
		      "- Results come only from arena's evaluator; anything "
		      "your code prints is ignored.\n"
		      "- Host (c, python) kernels run single-threaded: no "
		      "threads, no child processes, nothing left running after "
		      "the entry point returns.\n"
		      "- No caching of results across calls, no reading or "
		      "writing outside the arguments, no modifying inputs.\n"
		      "- Attempts to game the evaluator are detected and score "
		      "as wrong.\n");
	if (t->forbid_library_calls) {
		strbuf_addstr(
			&sb,
			"- **No library kernels**: the work must be "
			"your own kernels.  Allowed from torch: allocation "
			"(torch.empty, empty_like, zeros, ...), dtypes, views "
			"and metadata (view, reshape, stride, numel, "
			"data_ptr, ...); imports of torch, triton, "
			"triton.language, math, typing and functools only; "
			"outside Triton kernels no arithmetic on tensors, no "
			"item assignment, no in-place operators; no eval, "
			"exec, getattr, dunder attributes or changes to "
			"modules.");
		if (t->allowed_calls.n) {
			strbuf_addstr(&sb, "  This task also allows:");
			for (size_t i = 0; i < t->allowed_calls.n; i++)
				strbuf_addf(&sb, " `%s`",
					    t->allowed_calls.v[i]);
			strbuf_addch(&sb, '.');
		}
		strbuf_addch(&sb, '\n');
	}
	if (readme_path && file_read_all(readme_path, 64 * 1024, &readme, NULL,
					 NULL) == 0) {
		strbuf_addstr(&sb, "\n## Notes from the task author\n\n");
		strbuf_addstr(&sb, readme);
		if (sb.len && sb.buf[sb.len - 1] != '\n')
			strbuf_addch(&sb, '\n');
	}
	free(readme);
	free(readme_path);
	return strbuf_detach(&sb);
}

/*
 * aka_doc.c - TASK.md for an AgentKernelArena task folder (task_doc_render
 * calls it; docs/aka.md): AKA's own prompt (instructions, source code,
 * cheatsheet), the files to change and the functions that must stay, the
 * task's own commands (the agent may run them in its workspace, which
 * holds the whole folder, for feedback only), and how arena judges it.
 */
#include "task_parse.h"

#include <stdlib.h>
#include <string.h>

static void commands(struct strbuf *sb, const char *what,
		     const struct strvec *cmds)
{
	if (!cmds->n)
		return;
	strbuf_addf(sb, "- %s:\n", what);
	for (size_t i = 0; i < cmds->n; i++)
		strbuf_addf(sb, "      %s\n", cmds->v[i]);
}

/* How a task whose harness arena records is judged. */
static void harness_judged(struct strbuf *sb)
{
	strbuf_addstr(
		sb,
		"## How it is judged\n\n"
		"arena runs the task's harness on the kernel as shipped and "
		"records what it does: the calls it makes of your module, "
		"their arguments, its cases, the tolerance it states.  Your "
		"files are then evaluated by arena alone, from a trusted "
		"copy of the task: the same calls on the harness's own "
		"inputs and on fresh inputs drawn by the harness's own "
		"input code with other seeds, in a separate process.\n\n"
		"- **Compiles**: your files are parsed and imported.\n"
		"- **Correct**: every output and every argument your "
		"functions write must match the kernel as shipped within "
		"the task's tolerance, on every case the harness checks; "
		"inputs must be left unchanged; outputs of every timed call "
		"are checked too.\n"
		"- **Fast**: your module and the original run in two "
		"separate processes, strictly alternating, caches flushed "
		"before every sample; speedup = median of per-pair time "
		"ratios (geometric mean over the timed cases), with a "
		"confidence interval.\n"
		"- **Score**: AgentKernelArena's: 0 if it does not import, "
		"20 if it is wrong, 120 + 100 x speedup if correct.\n\n");
}

/* How a gpumode task's extension is judged (docs/aka.md). */
static void gpumode_judged(struct strbuf *sb, const struct task *t)
{
	strbuf_addstr(
		sb,
		"## How it is judged\n\n"
		"arena records the calls the task's functional module makes "
		"of its `fn` (your extension's `forward`) on each input of "
		"`get_inputs()`, with the module's weights, and on fresh "
		"inputs drawn by the same code with other seeds.  Your file "
		"is then evaluated by arena alone, from a trusted copy of the "
		"task, in a separate process.\n\n"
		"- **Compiles**: your file is built as a PyTorch extension "
		"(module `TORCH_EXTENSION_NAME`, exporting `forward`)");
	strbuf_addstr(
		sb, t->language == LANG_HIP
			    ? ", by nvcc through arena's HIP portability "
			      "layer on an NVIDIA GPU (docs/hip-portability.md:"
			      " warpSize is 32 there, hipBLAS is not mapped).\n"
			    : ", for the host (C++).\n");
	strbuf_addstr(
		sb,
		"- **Correct**: what `forward` returns must match the "
		"functional module's own PyTorch function within the "
		"harness's tolerance (rtol 1e-4, atol 1e-5, no tighter than "
		"a few units in the last place of the dtype), on every case "
		"and on the outputs of timed calls.  `forward` may overwrite "
		"its arguments: each call gets them afresh.\n"
		"- **Fast**: your extension and the kernel as shipped (for a "
		"task whose file ships empty, the PyTorch function) run in "
		"two separate processes, strictly alternating, caches "
		"flushed before every sample; speedup = median of per-pair "
		"time ratios (geometric mean over the timed cases), with a "
		"confidence interval.\n"
		"- **Score**: AgentKernelArena's: 0 if it does not compile, "
		"20 if it is wrong, 120 + 100 x speedup if correct.\n\n");
}

char *aka_doc_render(const struct task *t)
{
	const struct aka_task *a = t->aka;
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb,
		    "# Task %s\n\nAn AgentKernelArena %s task (%s "
		    "harness), evaluated by arena.\n\n## Objective\n\n",
		    t->id, a->task_type, aka_style_name(a->style));
	strbuf_addstr(&sb, a->instructions ? a->instructions : t->description);
	if (sb.len && sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, "\n## Files you may change\n\n");
	for (size_t i = 0; i < t->editable.n; i++)
		strbuf_addf(&sb, "- `%s`\n", t->editable.v[i]);
	if (a->targets.n) {
		strbuf_addstr(&sb,
			      "\nKernel functions the task names (keep "
			      "them, and the signatures of the functions its "
			      "harness calls):");
		for (size_t i = 0; i < a->targets.n; i++)
			strbuf_addf(&sb, " `%s`", a->targets.v[i]);
		strbuf_addch(&sb, '\n');
	}
	strbuf_addstr(&sb,
		      "\nThe rest of the task folder is in your workspace "
		      "too, read-only in spirit: only the files above are "
		      "evaluated, from a snapshot taken when you stop.\n\n");
	if (a->source_code) {
		strbuf_addstr(&sb, "## Source code\n\n");
		strbuf_addstr(&sb, a->source_code);
		strbuf_addstr(&sb, "\n\n");
	}
	strbuf_addstr(&sb,
		      "## The task's own commands\n\n"
		      "Run in your workspace, they check your files with the "
		      "task's own harness (the performance command needs "
		      "AgentKernelArena's timing helpers, which arena does not "
		      "ship):\n\n");
	commands(&sb, "compile", &a->compile_command);
	commands(&sb, "correctness", &a->correctness_command);
	commands(&sb, "performance", &a->performance_command);
	strbuf_addstr(&sb, "\nThey are feedback, not the verdict: what they "
			   "print is never read.\n\n");
	if (a->style == AKA_STYLE_GPUMODE)
		gpumode_judged(&sb, t);
	else
		harness_judged(&sb);
	strbuf_addf(
		&sb,
		"## How to evaluate your work\n\n"
		"- `arena eval %s --workspace .` prints a task_result.yaml "
		"for the current files.\n"
		"- Through a mounted arena, `cat ../score` from this "
		"workspace.\n\n"
		"## Rules\n\n"
		"- Change only the files listed above; keep the functions "
		"the harness calls and what they return.\n"
		"- No caching of results across calls, no work left "
		"running after a call returns%s.\n"
		"- Attempts to game the evaluator are detected and score as "
		"wrong.\n",
		t->id,
		a->style == AKA_STYLE_GPUMODE ? "" : ", no modifying inputs");
	if (a->cheatsheet) {
		strbuf_addstr(&sb, "\n## Cheatsheet\n\n");
		strbuf_addstr(&sb, a->cheatsheet);
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb);
}

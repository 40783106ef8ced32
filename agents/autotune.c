/*
 * autotune.c - the `autotune` agent: searches the task's tunables through
 * the evaluator and keeps the best.  It needs no model and no network, so
 * it is the offline default that lets the quickstart show real speedups.
 *
 * Search: every combination of the tunables' values when there are at most
 * AUTOTUNE_MAX_COMBOS of them, otherwise a coordinate search (one tunable
 * at a time, the others at their best so far).  Each candidate
 * configuration is evaluated in quick mode (correctness plus one block of
 * paired timing) with -DNAME=value; only a correct configuration whose
 * speedup interval lies entirely above 1 can win.  The winner is written
 * into the first editable file as #define lines between marker comments,
 * so the final evaluation (which uses no -D) sees exactly what was chosen,
 * and a person reading the workspace sees it too.  For Python tasks
 * (docs/python.md) a tunable is a module-level constant that a -D value
 * replaces after import: the winner is written as assignments at the end
 * of the entry module, where they take the same effect.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents.h"

#define AUTOTUNE_MAX_COMBOS 32
#define MARK_BEGIN "/* arena autotune: begin */\n"
#define MARK_END "/* arena autotune: end */\n"
#define PY_BEGIN "# arena autotune: begin\n"
#define PY_END "# arena autotune: end\n"

struct tune_state {
	const struct agent_launch *l;
	int best[TASK_MAX_TUNABLES];	/* value index per tunable, -1 = none */
	double best_speedup;
	double best_lo;
	int tried;
	int correct;
	bool cancelled; /* the run was cancelled: nothing more is tried */
};

static void defines_for(const struct task *t, const int *choice,
			struct strvec *defs)
{
	for (int i = 0; i < t->ntunables; i++)
		if (choice[i] >= 0)
			strvec_pushf(defs, "%s=%s", t->tunables[i].name,
				     t->tunables[i].values[choice[i]]);
}

/* Evaluates one configuration and keeps it when it beats the best. */
static void try_config(struct tune_state *s, const int *choice)
{
	const struct task *t = s->l->task;
	struct strvec defs = STRVEC_INIT;
	struct task_result r;
	struct errbuf err;

	if (s->cancelled ||
	    (s->l->cancelled && s->l->cancelled(s->l->cancelled_ctx))) {
		s->cancelled = true;
		return;
	}
	errbuf_init(&err);
	result_init(&r);
	defines_for(t, choice, &defs);
	s->tried++;
	if (s->l->progress) {
		struct strbuf what = STRBUF_INIT;

		strbuf_addf(&what, "agent turn %d: trying", s->tried);
		for (size_t i = 0; i < defs.n; i++)
			strbuf_addf(&what, " %s", defs.v[i]);
		s->l->progress(s->l->progress_ctx, strbuf_str(&what));
		strbuf_release(&what);
	}
	if (s->l->evaluate(s->l->evaluate_ctx, &defs, true, &r, &err) == 0 &&
	    r.status == RS_OK) {
		s->correct++;
		if (r.speedup_ci_lo > 1.0 && r.speedup_ratio > s->best_speedup) {
			s->best_speedup = r.speedup_ratio;
			s->best_lo = r.speedup_ci_lo;
			memcpy(s->best, choice, sizeof(s->best));
		}
	}
	result_release(&r);
	strvec_release(&defs);
}

static void search_all(struct tune_state *s, int *choice, int k)
{
	const struct task *t = s->l->task;

	if (k == t->ntunables) {
		try_config(s, choice);
		return;
	}
	for (int v = 0; v < t->tunables[k].nvalues; v++) {
		choice[k] = v;
		search_all(s, choice, k + 1);
	}
	choice[k] = -1;
}

static void search_coordinate(struct tune_state *s)
{
	const struct task *t = s->l->task;
	int choice[TASK_MAX_TUNABLES];

	for (int k = 0; k < t->ntunables; k++) {
		memcpy(choice, s->best, sizeof(choice));
		for (int v = 0; v < t->tunables[k].nvalues; v++) {
			choice[k] = v;
			try_config(s, choice);
		}
	}
}

/* A define's value as Python source: numbers and True/False as they are,
 * anything else as a string (what the runner makes of a -D value). */
static void py_value(struct strbuf *sb, const char *v)
{
	char *end;

	(void)strtod(v, &end);
	if ((*v && !*end) || !strcmp(v, "True") || !strcmp(v, "False")) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *v; v++) {
		if (*v == '\\' || *v == '\'')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *v);
	}
	strbuf_addch(sb, '\'');
}

/* Python: removes an earlier autotune block and appends ours at the end
 * of the entry module, after the constants it replaces. */
static int write_choice_py(const struct agent_launch *l, const int *choice,
			   double speedup, struct errbuf *err)
{
	const struct task *t = l->task;
	char *path = path_join(l->workspace, t->editable.v[0]), *text = NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc = file_read_all(path, (size_t)4 << 20, &text, NULL, err);

	if (rc) {
		free(path);
		return rc;
	}
	char *b = strstr(text, PY_BEGIN), *e = b ? strstr(b, PY_END) : NULL;
	if (b && e) {
		strbuf_add(&sb, text, (size_t)(b - text));
		strbuf_addstr(&sb, e + strlen(PY_END));
	} else {
		strbuf_addstr(&sb, text);
	}
	if (sb.len && sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');
	strbuf_addstr(&sb, PY_BEGIN);
	strbuf_addf(&sb,
		    "# chosen by arena's autotune agent: quick speedup "
		    "%.3fx\n",
		    speedup);
	for (int i = 0; i < t->ntunables; i++)
		if (choice[i] >= 0) {
			strbuf_addf(&sb, "%s = ", t->tunables[i].name);
			py_value(&sb, t->tunables[i].values[choice[i]]);
			strbuf_addch(&sb, '\n');
		}
	strbuf_addstr(&sb, PY_END);
	rc = file_write_atomic(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	free(text);
	free(path);
	return rc;
}

/* Removes an earlier autotune block (a resumed run) and prepends ours. */
static int write_choice(const struct agent_launch *l, const int *choice,
			double speedup, struct errbuf *err)
{
	const struct task *t = l->task;
	char *path = NULL, *text = NULL;
	struct strbuf sb = STRBUF_INIT;
	int rc;

	if (language_is_python(t->language))
		return write_choice_py(l, choice, speedup, err);
	for (size_t i = 0; i < t->editable.n && !path; i++)
		if (str_ends_with(t->editable.v[i], ".c") ||
		    str_ends_with(t->editable.v[i], ".hip") ||
		    str_ends_with(t->editable.v[i], ".cu"))
			path = path_join(l->workspace, t->editable.v[i]);
	if (!path)
		return errf(err, "no editable source file to write the choice "
			    "into");
	rc = file_read_all(path, (size_t)4 << 20, &text, NULL, err);
	if (rc) {
		free(path);
		return rc;
	}
	const char *body = text;
	char *b = strstr(text, MARK_BEGIN), *e = b ? strstr(b, MARK_END) : NULL;
	strbuf_addstr(&sb, MARK_BEGIN);
	strbuf_addf(&sb, "/* chosen by arena's autotune agent: quick speedup "
		    "%.3fx */\n", speedup);
	for (int i = 0; i < t->ntunables; i++)
		if (choice[i] >= 0)
			strbuf_addf(&sb, "#define %s %s\n", t->tunables[i].name,
				    t->tunables[i].values[choice[i]]);
	strbuf_addstr(&sb, MARK_END);
	if (b && e) {
		strbuf_add(&sb, text, (size_t)(b - text));
		body = e + strlen(MARK_END);
	}
	strbuf_addstr(&sb, body);
	rc = file_write_atomic(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	free(text);
	free(path);
	return rc;
}

static int autotune_launch(const struct agent_launch *l,
			   struct agent_outcome *out, struct errbuf *err)
{
	const struct task *t = l->task;
	struct tune_state s = { .l = l, .best_speedup = 1.0 };
	int choice[TASK_MAX_TUNABLES];
	long combos = 1;
	uint64_t t0 = now_ns();

	for (int i = 0; i < TASK_MAX_TUNABLES; i++)
		s.best[i] = choice[i] = -1;
	if (t->ntunables == 0) {
		out->status = xstrdup("completed");
		out->summary = xstrdup("task has no tunables; nothing to try");
		return 0;
	}
	for (int i = 0; i < t->ntunables; i++)
		combos *= t->tunables[i].nvalues;
	if (combos <= AUTOTUNE_MAX_COMBOS)
		search_all(&s, choice, 0);
	else
		search_coordinate(&s);

	bool found = false;
	for (int i = 0; i < t->ntunables; i++)
		found |= s.best[i] >= 0;
	out->duration_s = (double)(now_ns() - t0) / 1e9;
	out->turns = s.tried;
	out->cost_known = true; /* calls no model */
	if (s.cancelled) {
		/* Nothing written: the search starts again on resume. */
		out->status = xstrdup("cancelled");
		out->error = xasprintf("its run was cancelled after %d "
				       "configurations; it runs again when the "
				       "run is resumed",
				       s.tried);
		return 0;
	}
	if (!found) {
		out->status = xstrdup("completed");
		out->summary = xasprintf("no configuration beat the baseline "
					 "(%d tried, %d correct); sources "
					 "unchanged", s.tried, s.correct);
		return 0;
	}
	struct errbuf werr;
	errbuf_init(&werr);
	if (write_choice(l, s.best, s.best_speedup, &werr) != 0) {
		out->status = xstrdup("failed");
		out->error = xstrdup(errbuf_str(&werr));
		return 0;
	}
	struct strvec defs = STRVEC_INIT;
	struct strbuf desc = STRBUF_INIT;
	defines_for(t, s.best, &defs);
	for (size_t i = 0; i < defs.n; i++)
		strbuf_addf(&desc, "%s%s", i ? " " : "", defs.v[i]);
	out->status = xstrdup("completed");
	out->summary = xasprintf("%s (quick speedup %.3fx, interval low "
				 "%.3f; %d configurations tried, %d correct)",
				 strbuf_str(&desc), s.best_speedup, s.best_lo,
				 s.tried, s.correct);
	strbuf_release(&desc);
	strvec_release(&defs);
	return 0;
}

const struct agent_ops agent_autotune = {
	.name = "autotune",
	.summary = "searches the task's tunables through the evaluator",
	.launch = autotune_launch,
};

/*
 * check_static.c - the checks of `arena check-tasks` that need no device
 * (arena/check.h): what TASK.md reveals, what the held-out cases cover,
 * what held_out_rules generated, and whether the cost model is one a
 * roofline floor may use.
 *
 * What counts (docs/tasks.md, "Checking a task"):
 *   - a leak: a written held-out case's id, or one of its sizes that no
 *     visible case has, standing alone in TASK.md, where the size is
 *     distinctive (at least 100, not a power of two, one less than one,
 *     or a multiple of 100: those a specification states for its own
 *     reasons, "d <= 256", "& 255");
 *   - "not a multiple of common block sizes": an argument dimension above
 *     1 that 32 does not divide and no visible case has there;
 *   - "a prime": such a dimension that is a prime of at least 11;
 *   - "degenerate": a dimension of at most 3 where every visible case has
 *     more than 3;
 *   - the cost: cost.bytes present, positive, and no more than the
 *     arguments hold (inputs read once, outputs written once, inouts
 *     both), which is the most a least-traffic count can be; above it the
 *     roofline floor could reject a correct kernel;
 *   - the tolerance of every bf16 and f16 output: an rtol of at least one
 *     rounding step of the dtype (2^-7 of the value for bf16, 2^-10 for
 *     f16), or an exact comparison (atol and rtol 0).  A kernel that
 *     computes in float32 and rounds once, as the reference does, can
 *     land on the neighbour of the reference's value; a smaller rtol
 *     fails such kernels by chance, more often the more elements a case
 *     has.  What the magnitudes of a computation's intermediates need
 *     of atol (docs/tasks.md, "Tolerances of bf16 and f16 outputs")
 *     depends on the data and is measured, not checked here.
 */
#include "engine_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/check.h"

const char *check_status_name(enum check_status s)
{
	return s == CHECK_OK ? "ok" : s == CHECK_FAIL ? "FAIL" : "skip";
}

void check_add(struct task_check *out, const char *name, enum check_status st,
	       const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (out->nitems >= CHECK_MAX_ITEMS)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	out->items[out->nitems].name = name;
	out->items[out->nitems].status = st;
	out->items[out->nitems].detail = strbuf_detach(&sb);
	out->nitems++;
	if (st == CHECK_FAIL)
		out->failed = true;
}

/* ---- TASK.md ------------------------------------------------------------- */

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The first place in text where word stands alone (no letter, digit or
 * underscore on either side), or NULL. */
static const char *find_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; n && (p = strstr(p, word)) != NULL; p++) {
		bool left = p == text || !word_char(p[-1]);
		bool right = !word_char(p[n]);
		if (left && right)
			return p;
	}
	return NULL;
}

static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	return line;
}

/* Up to 30 characters either side of at (newlines as spaces) into buf. */
static void excerpt(const char *text, const char *at, size_t n, char *buf,
		    size_t len)
{
	const char *a = at - text > 30 ? at - 30 : text;
	size_t k = 0;

	for (const char *p = a; *p && p < at + n + 30 && k + 1 < len; p++)
		buf[k++] = *p == '\n' || *p == '\t' ? ' ' : *p;
	buf[k] = '\0';
}

/* A size that could only name a case: 100 or more, and not a round
 * number a specification states anyway (a power of two, one less, a
 * multiple of 100: "d <= 256", "& 255", "100 x speedup"). */
static bool distinctive(int64_t v)
{
	return v >= 100 && (v & (v - 1)) != 0 && (v & (v + 1)) != 0 &&
	       v % 100 != 0;
}

static bool visible_value(const struct task *t, int64_t v)
{
	for (int c = 0; c < t->nvisible; c++)
		for (int p = 0; p < t->nparams; p++)
			if (t->cases[c].params[p] == v)
				return true;
	return false;
}

/* TASK.md as arena would render it without the task's own words (its
 * description and README): a held-out id that is also a word of arena's
 * text ("one", "tiny") is no leak there. */
static char *task_doc_without_authors_text(const struct task *t)
{
	struct task bare = *t;

	/* An AKA task's TASK.md is its own prompt: all of it the author's. */
	if (t->aka)
		return xstrdup("");

	bare.description = (char *)"";
	bare.readme = NULL;
	return task_doc_render(&bare);
}

static void check_task_md(const struct task *t, struct task_check *out)
{
	char *doc = task_doc_render(t);
	char *bare = task_doc_without_authors_text(t);
	struct strbuf leaks = STRBUF_INIT;
	int n = 0;

	for (int c = t->nvisible; c < t->ncases; c++) {
		const struct task_case *hc = &t->cases[c];
		const char *at;
		if (hc->rule)
			continue;
		char ex[80];
		if ((at = find_word(doc, hc->id)) && !find_word(bare, hc->id) &&
		    n++ < 8) {
			excerpt(doc, at, strlen(hc->id), ex, sizeof(ex));
			strbuf_addf(&leaks,
				    "%sheld-out case id '%s' (line %d: "
				    "\"...%s...\")",
				    leaks.len ? "; " : "", hc->id,
				    line_of(doc, at), ex);
		}
		for (int p = 0; p < t->nparams; p++) {
			int64_t v = hc->params[p];
			char num[32];
			if (!distinctive(v) || visible_value(t, v))
				continue;
			snprintf(num, sizeof(num), "%lld", (long long)v);
			if ((at = find_word(doc, num)) && n++ < 8) {
				excerpt(doc, at, strlen(num), ex, sizeof(ex));
				strbuf_addf(&leaks,
					    "%s%s = %s of held-out case "
					    "'%s' (line %d: \"...%s...\")",
					    leaks.len ? "; " : "", t->params[p],
					    num, hc->id, line_of(doc, at), ex);
			}
		}
	}
	if (n)
		check_add(out, "task_md", CHECK_FAIL,
			  "TASK.md shows what the "
			  "agent must not see: %s%s; remove it from the README "
			  "or the description",
			  leaks.buf, n > 8 ? "; ..." : "");
	else
		check_add(out, "task_md", CHECK_OK,
			  "TASK.md names no held-out "
			  "case id and no distinctive held-out size");
	strbuf_release(&leaks);
	free(bare);
	free(doc);
}

/* ---- held-out coverage ----------------------------------------------------- */

struct dim_stats {
	bool any;
	int64_t vmin;
	int64_t seen[TASK_MAX_CASES];
	int nseen;
};

static bool seen(const struct dim_stats *s, int64_t v)
{
	for (int i = 0; i < s->nseen; i++)
		if (s->seen[i] == v)
			return true;
	return false;
}

/* The visible cases' values of every (argument, dimension). */
static void visible_dims(const struct task *t,
			 struct dim_stats st[TASK_MAX_ARGS][ARENA_MAX_RANK])
{
	for (int c = 0; c < t->nvisible; c++)
		for (int a = 0; a < t->nargs; a++) {
			int64_t shape[ARENA_MAX_RANK];
			struct errbuf e;
			errbuf_init(&e);
			if (task_arg_shape(t, a, &t->cases[c], shape, &e) != 0)
				continue;
			for (int d = 0; d < t->args[a].rank; d++) {
				struct dim_stats *s = &st[a][d];
				if (!s->any || shape[d] < s->vmin)
					s->vmin = shape[d];
				s->any = true;
				if (!seen(s, shape[d]))
					s->seen[s->nseen++] = shape[d];
			}
		}
}

static void note_example(char *buf, size_t n, const struct task *t,
			 const struct task_case *c, int a, int d, int64_t v)
{
	if (!buf[0])
		snprintf(buf, n, "'%s': %s[%d] = %lld", c->id, t->args[a].name,
			 d, (long long)v);
}

static void check_held_out(const struct task *t, struct task_check *out)
{
	struct dim_stats(*st)[ARENA_MAX_RANK] =
		xcalloc(TASK_MAX_ARGS, sizeof(*st));
	char odd[160] = "", prime[160] = "", degen[160] = "";
	int nheld = t->ncases - t->nvisible, nrule = 0;

	visible_dims(t, st);
	for (int c = t->nvisible; c < t->ncases; c++) {
		const struct task_case *hc = &t->cases[c];
		nrule += hc->rule != NULL;
		for (int a = 0; a < t->nargs; a++) {
			int64_t shape[ARENA_MAX_RANK];
			struct errbuf e;
			errbuf_init(&e);
			if (task_arg_shape(t, a, hc, shape, &e) != 0)
				continue;
			for (int d = 0; d < t->args[a].rank; d++) {
				int64_t v = shape[d];
				const struct dim_stats *s = &st[a][d];
				bool fresh = !seen(s, v);
				if (fresh && v > 1 && v % 32 != 0)
					note_example(odd, sizeof(odd), t, hc, a,
						     d, v);
				if (fresh && v >= 11 && task_is_prime(v))
					note_example(prime, sizeof(prime), t,
						     hc, a, d, v);
				if (v <= 3 && s->any && s->vmin > 3)
					note_example(degen, sizeof(degen), t,
						     hc, a, d, v);
			}
		}
	}
	struct strbuf miss = STRBUF_INIT;
	if (nheld < 2)
		strbuf_addf(&miss,
			    "%s%d held-out case%s (at least 2 are needed)",
			    miss.len ? "; " : "", nheld, nheld == 1 ? "" : "s");
	if (!odd[0])
		strbuf_addf(&miss, "%sno size that 32 does not divide",
			    miss.len ? "; " : "");
	if (!prime[0])
		strbuf_addf(&miss, "%sno prime size of 11 or more",
			    miss.len ? "; " : "");
	if (!degen[0])
		strbuf_addf(&miss,
			    "%sno degenerate size (3 or less where "
			    "every visible case has more)",
			    miss.len ? "; " : "");
	if (miss.len)
		check_add(out, "held_out", CHECK_FAIL,
			  "%d held-out case%s (%d "
			  "from rules): %s; add cases to the held-out file or "
			  "held_out_rules: {vary: [...]} (docs/tasks.md)",
			  nheld, nheld == 1 ? "" : "s", nrule, miss.buf);
	else
		check_add(out, "held_out", CHECK_OK,
			  "%d held-out cases (%d from "
			  "rules); not a multiple of 32: %s; prime: %s; "
			  "degenerate: %s",
			  nheld, nrule, odd, prime, degen);
	strbuf_release(&miss);
	free(st);
}

static void check_rules(const struct task *t, struct task_check *out)
{
	struct strbuf sb = STRBUF_INIT;

	for (int c = t->nvisible; c < t->ncases; c++) {
		const struct task_case *hc = &t->cases[c];
		if (!hc->rule)
			continue;
		struct check_generated *g;
		out->generated = xrealloc(out->generated,
					  (size_t)(out->ngenerated + 1) *
						  sizeof(*out->generated));
		g = &out->generated[out->ngenerated++];
		g->id = xstrdup(hc->id);
		g->rule = xstrdup(hc->rule);
		for (int p = 0; p < t->nparams; p++)
			strbuf_addf(&sb, "%s%s=%lld", p ? " " : "",
				    t->params[p], (long long)hc->params[p]);
		g->params = strbuf_detach(&sb);
	}
	for (size_t i = 0; i < t->rule_notes.n; i++)
		strvec_push(&out->rule_notes, t->rule_notes.v[i]);
	if (t->rules.nvary == 0) {
		check_add(out, "rules", CHECK_OK,
			  "no held_out_rules: every "
			  "held-out case is written by hand");
		return;
	}
	for (int i = 0; i < out->ngenerated; i++)
		strbuf_addf(&sb, "%s%s (%s: %s)", i ? ", " : "",
			    out->generated[i].id, out->generated[i].params,
			    out->generated[i].rule);
	check_add(out, "rules", CHECK_OK, "%d held-out case%s generated%s%s%s",
		  out->ngenerated, out->ngenerated == 1 ? "" : "s",
		  sb.len ? ": " : "", sb.buf ? sb.buf : "",
		  t->rule_notes.n ? "; some rules made none (see notes)" : "");
	strbuf_release(&sb);
}

/* ---- cost --------------------------------------------------------------- */

static void check_cost(const struct task *t, struct task_check *out)
{
	if (!t->cost_bytes) {
		check_add(out, "cost", CHECK_FAIL,
			  "no cost.bytes: every kernel "
			  "reads its inputs and writes its outputs, so a "
			  "roofline applies; add cost: {bytes: \"...\"} "
			  "(the least DRAM traffic, docs/tasks.md)");
		return;
	}
	for (int c = 0; c < t->ncases; c++) {
		const struct task_case *tc = &t->cases[c];
		int64_t bytes = 0, flops = 0, args = 0, numel;
		struct errbuf e;
		errbuf_init(&e);
		if (task_case_cost(t, tc, &bytes, &flops, &e) != 0) {
			check_add(out, "cost", CHECK_FAIL, "%s",
				  errbuf_str(&e));
			return;
		}
		for (int a = 0; a < t->nargs; a++) {
			if (task_arg_numel(t, a, tc, &numel, &e) != 0)
				continue;
			int64_t b =
				numel * (int64_t)dtype_size(t->args[a].dtype);
			args += t->args[a].io == IO_INOUT ? 2 * b : b;
		}
		if (bytes <= 0) {
			check_add(out, "cost", CHECK_FAIL,
				  "cost.bytes is %lld in "
				  "case '%s'; it must count the bytes the case "
				  "moves",
				  (long long)bytes, tc->id);
			return;
		}
		if (bytes > args) {
			check_add(out, "cost", CHECK_FAIL,
				  "cost.bytes is %lld in "
				  "case '%s', more than its arguments hold "
				  "(%lld: inputs read once, outputs written "
				  "once); the roofline floor could reject a "
				  "correct kernel",
				  (long long)bytes, tc->id, (long long)args);
			return;
		}
	}
	check_add(out, "cost", CHECK_OK, "bytes %s%s%s", t->cost_bytes,
		  t->cost_flops ? ", flops "
				: " (no flops: memory roofline "
				  "only)",
		  t->cost_flops ? t->cost_flops : "");
}

/* ---- tolerance ------------------------------------------------------------ */

/* The largest gap between a value and its neighbour, relative to the
 * value, for the half-precision dtypes (8 and 11 significant bits); 0 for
 * the others, whose tolerances are set by accumulation orders far above
 * one step. */
static double rounding_step(arena_dtype d)
{
	return d == ARENA_BF16 ? 0x1p-7 : d == ARENA_F16 ? 0x1p-10 : 0;
}

static void check_tolerance(const struct task *t, struct task_check *out)
{
	int checked = 0;

	for (int i = 0; i < t->nargs; i++) {
		const struct task_arg *a = &t->args[i];
		double step = rounding_step(a->dtype), atol, rtol;
		if (a->io == IO_IN || step == 0)
			continue;
		task_tolerance(t, a, &atol, &rtol);
		checked++;
		if ((atol == 0 && rtol == 0) || rtol >= step)
			continue;
		check_add(out, "tolerance", CHECK_FAIL,
			  "signature.args[%d] ('%s', %s): rtol %g is below "
			  "one %s rounding step (%g of the value): a kernel "
			  "that rounds once, as the reference does, can land "
			  "on the neighbouring value and fail by chance; use "
			  "rtol >= %g, or atol 0 and rtol 0 for an output "
			  "that must match exactly (docs/tasks.md, "
			  "\"Tolerances of bf16 and f16 outputs\")",
			  i, a->name, dtype_name(a->dtype), rtol,
			  dtype_name(a->dtype), step, step);
		return;
	}
	check_add(out, "tolerance", CHECK_OK,
		  checked ? "every bf16/f16 output allows one rounding step"
			  : "no bf16/f16 output");
}

void check_task_static(const struct task *t, struct task_check *out)
{
	check_task_md(t, out);
	check_held_out(t, out);
	check_rules(t, out);
	check_cost(t, out);
	check_tolerance(t, out);
}

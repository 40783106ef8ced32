/*
 * result_view.c - the agent-readable view of a result (result_view.h).
 *
 * Redaction is by removal and replacement, never by rewriting numbers:
 * the visible cases, the verdict, the score and the task-level held-out
 * aggregate are left exactly as the final evaluation recorded them.
 */
#include "arena/result_view.h"

#include <stdlib.h>
#include <string.h>

bool result_text_mentions_held_out(const char *text)
{
	return text && strstr(text, "held-out case") != NULL;
}

/* Whether text names one of the held-out case ids of r (quoted, as the
 * evaluator writes ids) or uses the evaluator's wording for them. */
static bool concerns(const char *text, char *const *ids, int nids)
{
	if (!text)
		return false;
	if (result_text_mentions_held_out(text))
		return true;
	for (int i = 0; i < nids; i++) {
		size_t n = strlen(ids[i]);
		for (const char *p = strstr(text, ids[i]); p;
		     p = strstr(p + 1, ids[i]))
			if (p > text && p[-1] == '\'' && p[n] == '\'')
				return true;
	}
	return false;
}

static void withhold(char **field, char *const *ids, int nids)
{
	if (concerns(*field, ids, nids)) {
		free(*field);
		*field = xstrdup(RESULT_WITHHELD);
	}
}

bool result_message_concerns_held_out(const struct task_result *r,
				      const char *text)
{
	char **ids = xcalloc((size_t)r->ncases + 1, sizeof(*ids));
	int nids = 0;

	for (int i = 0; i < r->ncases; i++)
		if (r->cases[i].held_out)
			ids[nids++] = r->cases[i].id;
	bool yes = concerns(text, ids, nids);
	free(ids);
	return yes;
}

char *result_event_text(const struct task_result *r, const char *text)
{
	if (!text)
		return NULL;
	if (!result_text_mentions_held_out(text) &&
	    result_message_concerns_held_out(r, text))
		return xasprintf("(held-out case) %s", text);
	return xstrdup(text);
}

void result_hide_held_out(struct task_result *r)
{
	char **ids = xcalloc((size_t)r->ncases + 1, sizeof(*ids));
	int nids = 0, kept = 0;

	for (int i = 0; i < r->ncases; i++) {
		struct case_result *c = &r->cases[i];
		if (c->held_out) {
			ids[nids++] = c->id;	/* freed below */
			free(c->error);
			continue;
		}
		r->cases[kept++] = *c;
	}
	r->ncases = kept;
	withhold(&r->compilation_error_message, ids, nids);
	withhold(&r->correctness_error_message, ids, nids);
	withhold(&r->speedup_calculation_error_message, ids, nids);
	for (int i = 0; i < r->ncases; i++)
		withhold(&r->cases[i].error, ids, nids);
	for (size_t i = 0; i < r->integrity.n; i++)
		withhold(&r->integrity.v[i], ids, nids);
	for (int i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
}

/*
 * result_view.h - what of a result may be shown where agents can read
 * (the mount): everything but the held-out cases.
 *
 * Held-out cases are secret from agents (DESIGN.md §3.11): their ids,
 * their per-case results and every message the evaluator wrote about one
 * of them (the evaluator names such a case "held-out case '<id>'", and a
 * candidate can put anything in what it returns there, e.g. the case's
 * size).  The task-level held-out aggregate (evaluated, correct, speedup)
 * stays: the run's reports show it too.  The task's owner sees the whole
 * result through the CLI and the store.
 */
#ifndef ARENA_RESULT_VIEW_H
#define ARENA_RESULT_VIEW_H

#include <stdbool.h>

#include "arena/result.h"

/* What replaces a message that concerns a held-out case. */
#define RESULT_WITHHELD "(withheld: it concerns a held-out case)"

/* Removes the held-out cases from r and replaces every message that
 * mentions one (by the evaluator's wording or by its id) with
 * RESULT_WITHHELD. */
void result_hide_held_out(struct task_result *r);

/* Whether text concerns a held-out case by the evaluator's wording
 * ("held-out case"); used for event messages, which carry no case list. */
bool result_text_mentions_held_out(const char *text);

/* Whether text (a message of r) concerns one of r's held-out cases, by
 * the evaluator's wording or by the case's quoted id. */
bool result_message_concerns_held_out(const struct task_result *r,
				      const char *text);

/* text, a message of r for the run's events, marked "(held-out case) "
 * in front when it names one of r's held-out cases by id alone: events
 * carry no case list, and every agent-readable view of them withholds a
 * message by the wording (result_text_mentions_held_out), while the
 * store and the CLI keep it whole.  Caller frees; NULL for NULL. */
char *result_event_text(const struct task_result *r, const char *text);

#endif /* ARENA_RESULT_VIEW_H */

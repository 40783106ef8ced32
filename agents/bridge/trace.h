/*
 * trace.h - the per-launch episode trace: <log_dir>/trace.jsonl.
 *
 * One JSON object per line, appended as things happen, so a trace can be
 * followed live (`tail -f`) and survives a killed run.  Every event has
 * "ts" (ISO 8601 UTC with milliseconds), "seq" (from 1 within an episode)
 * and "type".  A launch writes, in order:
 *
 *   episode_start  {episode, agent, cli, cli_version (installed),
 *                   cli_version_tested, model, effort, task_id, workspace,
 *                   sandboxed, mcp, argv, prompt}
 *   message        {role: "assistant"|"user", text}
 *   reasoning      {text}
 *   tool_call      {id, name, input}
 *   tool_result    {id, is_error, content}          (content capped)
 *   file_change    {path, kind}
 *   usage          {input_tokens, output_tokens, cached_input_tokens,
 *                   cost_usd}                       (as the CLI reports)
 *   evaluation     {via, quick, status, compiled, correct, speedup,
 *                   score, reward, why (when not ok: the verdict's
 *                   message, capped)}               (arena's own verdict)
 *   output         {stream, truncated, text}   (a command agent's log tail)
 *   error          {message}
 *   outcome        {status, error, duration_s, turns, input_tokens,
 *                   output_tokens, cost_usd, sandboxed, exit}
 *
 * Normalised events come from every CLI's own format (cli_agent.c); the
 * raw stdout of the CLI is kept beside it (agent_stdout.jsonl).  A
 * relaunch of the same attempt (resume) appends a new episode.  Writes are
 * serialised by a mutex: the evaluation bridge records from its thread.
 */
#ifndef ARENA_AGENTS_TRACE_H
#define ARENA_AGENTS_TRACE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include "arena/result.h"
#include "arena/util.h"

#define TRACE_TEXT_MAX (64 * 1024)	/* bytes of one text field kept */
#define TRACE_RESULT_MAX (4 * 1024)	/* bytes of a tool result kept */

struct trace;

/* Opens (appending) path; NULL path gives a trace that records nothing.
 * *out is owned by the caller (trace_close). */
int trace_open(const char *path, struct trace **out, struct errbuf *err);
void trace_close(struct trace *t);

/* Appends ev (adds ts, seq and type; takes ownership of ev). */
void trace_emit(struct trace *t, const char *type, cJSON *ev);

/* Convenience constructors; strings are copied and capped. */
void trace_message(struct trace *t, const char *role, const char *text);
void trace_reasoning(struct trace *t, const char *text);
void trace_tool_call(struct trace *t, const char *id, const char *name,
		     const cJSON *input);
void trace_tool_result(struct trace *t, const char *id, bool is_error,
		       const char *content);
void trace_file_change(struct trace *t, const char *path, const char *kind);
void trace_error(struct trace *t, const char *message);
/* An evaluation the agent asked for: the result's summary, and where its
 * time went (eval_seconds and eval_phases of the result, served_s: the
 * seconds from the request's arrival to this call, negative when
 * unknown), so that tests/bench/py_latency.sh can tell the evaluator's
 * time from the bridge's and the agent's. */
void trace_evaluation(struct trace *t, const char *via, bool quick,
		      const struct task_result *r, const char *error,
		      double served_s);

/* A copy of s cut at max bytes (on a UTF-8 boundary) with a note of how
 * much was dropped; caller frees. */
char *trace_cap(const char *s, size_t max);

#endif /* ARENA_AGENTS_TRACE_H */

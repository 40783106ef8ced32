/*
 * eval_bridge.h - the launcher's side of "the agent may run the evaluator
 * but never touches the controller's files" (DESIGN.md §3).
 *
 * A sandboxed agent cannot see the store, the task package or the
 * reference, so it cannot evaluate by itself.  For each launch the
 * launcher starts a bridge: a thread of the controller listening on a
 * Unix socket inside a directory that is bound into the sandbox
 * ($ARENA_EVAL_SOCKET).  `arena mcp` (the MCP tool) and `arena mcp call
 * evaluate` inside the sandbox connect to it; the bridge evaluates the
 * attempt's workspace with the engine's agent evaluator (l->evaluate:
 * visible cases, against the attempt's frozen baseline, the run's timing
 * settings) and answers with the verdict.  It evaluates nothing else: the
 * task and the workspace are fixed when it starts, whatever a client
 * sends.  Every evaluation is recorded in the trace with its verdict.
 *
 * Wire format: one JSON line each way.  Request {"tool": NAME,
 * "arguments": {...}}; reply {"text": ..., "is_error": bool,
 * "structured": {...}?} or {"error": "..."} when the tool could not run.
 * Requests are served one at a time, in order.
 */
#ifndef ARENA_AGENTS_EVAL_BRIDGE_H
#define ARENA_AGENTS_EVAL_BRIDGE_H

#include "arena/agent.h"
#include "trace.h"

#define EVAL_BRIDGE_REQUEST_MAX (64 * 1024)

struct eval_bridge;

/* Starts serving socket_path (created here; its directory must exist).
 * l and trace must outlive the bridge. */
int eval_bridge_start(const struct agent_launch *l, struct trace *trace,
		      const char *socket_path, struct eval_bridge **out,
		      struct errbuf *err);
/* Stops accepting and waits for a request in progress; the counters stay
 * readable until eval_bridge_stop. */
void eval_bridge_stop_accepting(struct eval_bridge *b);
/* Stops (if not yet), removes the socket, frees b. */
void eval_bridge_stop(struct eval_bridge *b);
/* Evaluations served so far, and the best correct score among them
 * (0 when none was correct). */
int eval_bridge_evaluations(struct eval_bridge *b, double *best_score);

#endif /* ARENA_AGENTS_EVAL_BRIDGE_H */

/*
 * mcp_server.h - arena's evaluator as tools for agents: a Model Context
 * Protocol server over stdio (JSON-RPC 2.0, one message per line; the
 * legacy handshake of revisions 2024-11-05 .. 2025-11-25; agents.md §5).
 *
 * Tools:
 *   evaluate     {quick?: bool}  evaluates the workspace now (visible
 *                cases only) and answers with the verdict and the
 *                task_result.yaml; isError when it does not compile or is
 *                wrong, so a model sees failure as failure
 *   show_task    {}              TASK.md: objective, files, signature,
 *                visible cases, rules
 *   last_result  {}              the last evaluation's task_result.yaml
 *
 * The protocol layer (this file) knows nothing of where evaluations run;
 * it calls an mcp_tool_fn.  Two exist: the bridge client (a launcher's
 * evaluation bridge on a Unix socket, eval_bridge.h, used when
 * $ARENA_EVAL_SOCKET is set: the agent is sandboxed and cannot see the
 * store) and the engine (cmd_mcp.c: engine_eval_dir in this process).
 */
#ifndef ARENA_AGENTS_MCP_SERVER_H
#define ARENA_AGENTS_MCP_SERVER_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include "arena/result.h"
#include "arena/util.h"

#define MCP_LINE_MAX (4 << 20)		/* longest request line accepted */
#define MCP_LATEST_VERSION "2025-11-25"
#define MCP_SERVER_NAME "arena"

/* What a tool answers: text for the model, whether it is an error, and an
 * optional structured form (owned). */
struct mcp_reply {
	char *text;
	bool is_error;
	cJSON *structured;
};

void mcp_reply_release(struct mcp_reply *r);

/* Runs tool `name` with `args` (a JSON object, never NULL).  Returns 0
 * with *out filled, -ENOENT for an unknown tool, another negative errno
 * (message in err) when the tool could not run at all. */
typedef int (*mcp_tool_fn)(void *ctx, const char *name, const cJSON *args,
			   struct mcp_reply *out, struct errbuf *err);

struct mcp_session {
	mcp_tool_fn call;
	void *ctx;
	bool initialized;	/* initialize answered */
	char *protocol;		/* negotiated version */
	int calls;		/* tools/call requests served */
};

void mcp_session_init(struct mcp_session *s, mcp_tool_fn call, void *ctx);
void mcp_session_release(struct mcp_session *s);

/* Handles one line; returns the response line (no newline; caller frees)
 * or NULL when nothing is to be sent (notifications, blank lines). */
char *mcp_handle_line(struct mcp_session *s, const char *line, size_t len);

/* Serves in (fd) until EOF, answering on out; logs nothing on out.
 * Returns 0 at EOF. */
int mcp_serve(struct mcp_session *s, int in_fd, FILE *out);

/* The tool list as a JSON array (caller owns). */
cJSON *mcp_tools_list(void);

/* An evaluate reply from a result: a one-line verdict, then the YAML. */
void mcp_reply_from_result(const struct task_result *r, bool quick,
			   struct mcp_reply *out);

/* The bridge client: sends {tool, arguments} to the Unix socket and reads
 * the reply.  ctx is the socket path (const char *). */
int mcp_bridge_call(void *ctx, const char *name, const cJSON *args,
		    struct mcp_reply *out, struct errbuf *err);

#endif /* ARENA_AGENTS_MCP_SERVER_H */

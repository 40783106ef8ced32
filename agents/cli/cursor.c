/*
 * cursor.c - the `cursor` agent: Cursor's agent CLI (`cursor-agent`).
 *
 *   cursor-agent -p --output-format stream-json --force --trust
 *                --workspace WS [--model M] [--approve-mcps] -- PROMPT
 *
 * Cursor's CLI is not on npm or Debian: it installs with the vendor's
 * script (`curl https://cursor.com/install -fsS | bash`, into
 * ~/.local/bin) and authenticates with CURSOR_API_KEY or `cursor-agent
 * login`.  It has no effort setting (pick an effort-suffixed model id),
 * no spend cap and no turn cap.  arena's MCP server goes into the private
 * HOME's ~/.cursor/mcp.json, approved with --approve-mcps.
 *
 * Output (agents.md §3): Claude-like stream-json: system/init, user,
 * assistant {message.content[]}, tool_call {subtype started|completed,
 * call_id, tool_call {<kind>ToolCall {args, result}}}, and a final result
 * {subtype, is_error, result, session_id, usage?} (usage camelCase in
 * newer builds).  On failure the stream may end without a result.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_agent.h"

static const char *const cursor_auth_files[] = {
	".cursor/cli-config.json", ".config/cursor/auth.json", NULL,
};
static const char *const cursor_auth_env[] = { "CURSOR_API_KEY", NULL };

static void cursor_argv(struct cli_run *r, struct strvec *argv)
{
	strvec_push(argv, "-p");
	strvec_push(argv, "--output-format");
	strvec_push(argv, "stream-json");
	strvec_push(argv, "--force");
	strvec_push(argv, "--trust");
	strvec_push(argv, "--workspace");
	strvec_push(argv, r->l->workspace);
	if (r->set.model) {
		strvec_push(argv, "--model");
		strvec_push(argv, r->set.model);
	}
	if (r->set.mcp)
		strvec_push(argv, "--approve-mcps");
	strvec_push(argv, "--");
	strvec_push(argv, r->prompt);
}

static int cursor_prepare(struct cli_run *r, struct errbuf *err)
{
	char *dir, *path;
	int rc;

	if (!r->set.mcp)
		return 0;
	dir = xasprintf("%s/.cursor", r->home);
	path = xasprintf("%s/mcp.json", dir);
	rc = mkdir_p(dir, err);
	if (!rc)
		rc = cli_write_mcp_json(r, path, false, err);
	free(path);
	free(dir);
	return rc;
}

static void cursor_tool_call(struct cli_run *r, const cJSON *ev)
{
	const char *sub = cli_json_str(ev, "subtype");
	const char *id = cli_json_str(ev, "call_id");
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(ev, "tool_call");
	const cJSON *kind = tc ? tc->child : NULL;	/* {"xToolCall": {...}} */
	const char *name = kind && kind->string ? kind->string : "tool";
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(kind, "args");

	if (sub && !strcmp(sub, "started")) {
		r->tool_calls++;
		trace_tool_call(r->trace, id, name, args);
		if (strstr(name, "edit") || strstr(name, "write") ||
		    strstr(name, "Edit") || strstr(name, "Write"))
			trace_file_change(r->trace, cli_json_str(args, "path"),
					  "edit");
	} else if (sub && !strcmp(sub, "completed")) {
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(kind,
								    "result");
		bool failed = cJSON_GetObjectItemCaseSensitive(res, "error") ||
			      cJSON_GetObjectItemCaseSensitive(res, "failure");
		char *text = res ? cJSON_PrintUnformatted(res) : NULL;
		trace_tool_result(r->trace, id, failed, text);
		free(text);
	}
}

static void cursor_event(struct cli_run *r, const cJSON *ev)
{
	const char *type = cli_json_str(ev, "type");

	if (!type)
		return;
	if (!strcmp(type, "tool_call")) {
		cursor_tool_call(r, ev);
	} else if (!strcmp(type, "result")) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(ev, "usage");
		cli_claude_event(r, ev);
		if (cJSON_IsObject(u) && cJSON_GetObjectItemCaseSensitive(
						 u, "inputTokens")) {
			r->cached_tokens = (int64_t)cli_json_num(
				u, "cacheReadTokens", 0);
			r->input_tokens = (int64_t)cli_json_num(
				u, "inputTokens", 0) + r->cached_tokens +
				(int64_t)cli_json_num(u, "cacheWriteTokens", 0);
			r->output_tokens = (int64_t)cli_json_num(
				u, "outputTokens", 0);
		}
	} else {
		cli_claude_event(r, ev);	/* system, assistant, user */
	}
}

const struct cli_agent cli_cursor = {
	.name = "cursor",
	.cli = "cursor-agent",
	.bin_env = "ARENA_CURSOR_BIN",
	.package = NULL,
	.install_hint = "install it with `curl https://cursor.com/install "
			"-fsS | bash` (not on npm)",
	.auth_files = cursor_auth_files,
	.auth_env = cursor_auth_env,
	.efforts = NULL,
	.has_mcp = true,
	.build_argv = cursor_argv,
	.prepare = cursor_prepare,
	.parse_event = cursor_event,
};

static int cursor_validate(const struct agent_config *c, struct errbuf *err)
{
	return cli_agent_validate(&cli_cursor, c, err);
}

static int cursor_launch(const struct agent_launch *l,
			 struct agent_outcome *out, struct errbuf *err)
{
	return cli_agent_launch(&cli_cursor, l, out, err);
}

const struct agent_ops agent_cursor = {
	.name = "cursor",
	.summary = "Cursor agent CLI (cursor-agent -p, stream-json), sandboxed",
	.validate = cursor_validate,
	.launch = cursor_launch,
};

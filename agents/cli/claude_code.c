/*
 * claude_code.c - the `claude_code` agent: Claude Code (`claude`, npm
 * @anthropic-ai/claude-code) in print mode with stream-json output.
 *
 *   claude -p --output-format stream-json --verbose [--model M]
 *          [--effort E] [--max-turns N] [--max-budget-usd X]
 *          --dangerously-skip-permissions        (sandboxed, or not root)
 *        | --permission-mode acceptEdits --allowedTools ...  (root, bare)
 *          [--mcp-config FILE --strict-mcp-config --allowedTools mcp__arena]
 *   prompt on stdin, cwd = the workspace.
 *
 * As root, Claude Code refuses bypassPermissions unless IS_SANDBOX=1
 * (agents.md §1.7).  In our sandbox a root caller is uid 1000, so the
 * guard does not fire, and IS_SANDBOX=1 is set only there (truthfully).
 * Without the sandbox a root caller gets an explicit tool allow-list
 * instead of bypass.
 *
 * Output (agents.md §1.4): system/init, assistant (content blocks, usage
 * per message), user (tool results), ..., and a final `result` line with
 * is_error, subtype, num_turns, usage, total_cost_usd.  An API failure can
 * exit 0 with is_error true; a crash leaves no result line: both are
 * failures (cli_agent.c classifies).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_agent.h"

static const char *const claude_auth_files[] = {
	".claude/.credentials.json", ".claude.json", NULL,
};
static const char *const claude_auth_env[] = {
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	NULL,
};
static const char *const claude_pass_env[] = {
	"ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL",
	"ANTHROPIC_DEFAULT_OPUS_MODEL", "ANTHROPIC_DEFAULT_SONNET_MODEL",
	"ANTHROPIC_DEFAULT_HAIKU_MODEL", "API_TIMEOUT_MS",
	"CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX", "AWS_REGION",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"ANTHROPIC_VERTEX_PROJECT_ID", "CLOUD_ML_REGION", NULL,
};
static const char *const claude_efforts[] = {
	"low", "medium", "high", "xhigh", "max", NULL,
};

/* Tools Claude Code may use without bypass (root without sandbox). */
#define CLAUDE_TOOLS "Bash,Read,Edit,MultiEdit,Write,Glob,Grep,LS," \
		     "TodoWrite,NotebookEdit,WebFetch,WebSearch,Task"

void cli_claude_argv(struct cli_run *r, struct strvec *argv)
{
	strvec_push(argv, "-p");
	strvec_push(argv, "--output-format");
	strvec_push(argv, "stream-json");
	strvec_push(argv, "--verbose");
	if (r->set.model) {
		strvec_push(argv, "--model");
		strvec_push(argv, r->set.model);
	}
	if (r->set.effort) {
		strvec_push(argv, "--effort");
		strvec_push(argv, r->set.effort);
	}
	if (r->set.max_turns > 0) {
		strvec_push(argv, "--max-turns");
		strvec_pushf(argv, "%d", r->set.max_turns);
	}
	if (r->set.max_budget_usd > 0) {
		strvec_push(argv, "--max-budget-usd");
		strvec_pushf(argv, "%.4f", r->set.max_budget_usd);
	}
	if (r->sandboxed || geteuid() != 0) {
		strvec_push(argv, "--dangerously-skip-permissions");
	} else {
		strvec_push(argv, "--permission-mode");
		strvec_push(argv, "acceptEdits");
		strvec_push(argv, "--allowedTools");
		strvec_push(argv, CLAUDE_TOOLS);
	}
	if (r->set.mcp) {
		strvec_push(argv, "--mcp-config");
		strvec_pushf(argv, "%s/mcp.json", r->scratch_dir.path);
		strvec_push(argv, "--strict-mcp-config");
		strvec_push(argv, "--allowedTools");
		strvec_push(argv, "mcp__arena");
	}
}

void cli_claude_env(struct cli_run *r, struct strvec *env)
{
	strvec_pushf(env, "CLAUDE_CONFIG_DIR=%s/.claude", r->home);
	strvec_push(env, "DISABLE_AUTOUPDATER=1");
	strvec_push(env, "DISABLE_TELEMETRY=1");
	strvec_push(env, "DISABLE_ERROR_REPORTING=1");
	strvec_push(env, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1");
	strvec_push(env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1");
	/* Evaluations take minutes: the Bash tool's 2-minute default would
	 * cut them off. */
	strvec_push(env, "BASH_DEFAULT_TIMEOUT_MS=1800000");
	strvec_push(env, "BASH_MAX_TIMEOUT_MS=7200000");
	strvec_push(env, "MCP_TOOL_TIMEOUT=7200000");
}

int cli_write_mcp_json(struct cli_run *r, const char *path, bool trust,
		       struct errbuf *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *servers = cJSON_AddObjectToObject(root, "mcpServers");
	cJSON *s = cJSON_AddObjectToObject(servers, "arena");
	cJSON *args = cJSON_AddArrayToObject(s, "args");
	cJSON *env;
	char *text;
	int rc;

	cJSON_AddStringToObject(s, "type", "stdio");
	cJSON_AddStringToObject(s, "command", r->arena_exe);
	cJSON_AddItemToArray(args, cJSON_CreateString("mcp"));
	env = cJSON_AddObjectToObject(s, "env");
	cJSON_AddStringToObject(env, "ARENA_EVAL_SOCKET", r->socket_path);
	cJSON_AddStringToObject(env, "ARENA_WORKSPACE", r->l->workspace);
	cJSON_AddStringToObject(env, "ARENA_TASK_ID", r->l->task->id);
	if (trust) {	/* Gemini: no confirmation; generous timeout */
		cJSON_AddBoolToObject(s, "trust", true);
		cJSON_AddNumberToObject(s, "timeout", 7200000);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	rc = file_write_atomic_str(path, text, err);
	free(text);
	return rc;
}

int cli_claude_prepare(struct cli_run *r, struct errbuf *err)
{
	char *p;
	int rc;

	if (!r->set.mcp)
		return 0;
	p = xasprintf("%s/mcp.json", r->scratch_dir.path);
	rc = cli_write_mcp_json(r, p, false, err);
	free(p);
	return rc;
}

static bool is_edit_tool(const char *name)
{
	return !strcmp(name, "Edit") || !strcmp(name, "Write") ||
	       !strcmp(name, "MultiEdit") || !strcmp(name, "NotebookEdit");
}

void cli_claude_assistant(struct cli_run *r, const cJSON *msg)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(msg, "usage");
	const char *id = cli_json_str(msg, "id");
	const cJSON *b;

	/* Claude Code prints one assistant line per content block, each
	 * with the message's usage: count a message once. */
	if (!id || !r->last_msg_id || strcmp(id, r->last_msg_id)) {
		free(r->last_msg_id);
		r->last_msg_id = id ? xstrdup(id) : NULL;
		if (!r->saw_final) {
			r->turns++;
			if (usage) {
				int64_t cached = (int64_t)(
					cli_json_num(usage,
						     "cache_read_input_tokens",
						     0) +
					cli_json_num(usage,
						     "cache_creation_input_tokens",
						     0));
				r->cached_tokens += (int64_t)cli_json_num(
					usage, "cache_read_input_tokens", 0);
				r->input_tokens += cached +
					(int64_t)cli_json_num(usage,
							      "input_tokens", 0);
				r->output_tokens += (int64_t)cli_json_num(
					usage, "output_tokens", 0);
			}
		}
	}
	cJSON_ArrayForEach(b, content) {
		const char *type = cli_json_str(b, "type");
		if (!type)
			continue;
		if (!strcmp(type, "text")) {
			const char *t = cli_json_str(b, "text");
			trace_message(r->trace, "assistant", t);
			free(r->final_text);
			r->final_text = xstrdup(t ? t : "");
		} else if (!strcmp(type, "thinking")) {
			trace_reasoning(r->trace, cli_json_str(b, "thinking"));
		} else if (!strcmp(type, "tool_use")) {
			const char *name = cli_json_str(b, "name");
			const cJSON *input =
				cJSON_GetObjectItemCaseSensitive(b, "input");
			r->tool_calls++;
			trace_tool_call(r->trace, cli_json_str(b, "id"), name,
					input);
			if (name && is_edit_tool(name)) {
				const char *f = cli_json_str(input, "file_path");
				if (!f)
					f = cli_json_str(input, "notebook_path");
				trace_file_change(r->trace, f,
						  !strcmp(name, "Write")
							  ? "write" : "edit");
			}
		}
	}
}

static void claude_user(struct cli_run *r, const cJSON *msg)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	const cJSON *b;

	cJSON_ArrayForEach(b, content) {
		const char *type = cli_json_str(b, "type");
		if (!type || strcmp(type, "tool_result"))
			continue;
		char *text = cli_content_text(
			cJSON_GetObjectItemCaseSensitive(b, "content"));
		trace_tool_result(r->trace, cli_json_str(b, "tool_use_id"),
				  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					  b, "is_error")),
				  text);
		free(text);
	}
}

static void claude_result(struct cli_run *r, const cJSON *ev)
{
	const char *subtype = cli_json_str(ev, "subtype");
	const char *text = cli_json_str(ev, "result");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(ev, "usage");
	const cJSON *errors = cJSON_GetObjectItemCaseSensitive(ev, "errors");
	bool is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				ev, "is_error")) ||
			(subtype && strcmp(subtype, "success"));

	r->saw_final = true;
	r->final_error = is_error;
	if (cJSON_GetObjectItemCaseSensitive(ev, "num_turns"))
		r->turns = (int)cli_json_num(ev, "num_turns", r->turns);
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(ev,
							    "total_cost_usd"))) {
		r->cost_usd = cli_json_num(ev, "total_cost_usd", 0);
		r->cost_reported = true;
	}
	if (cJSON_IsObject(usage)) {
		int64_t in = (int64_t)cli_json_num(usage, "input_tokens", 0);
		int64_t cr = (int64_t)cli_json_num(usage,
						   "cache_read_input_tokens", 0);
		int64_t cc = (int64_t)cli_json_num(
			usage, "cache_creation_input_tokens", 0);
		r->input_tokens = in + cr + cc;
		r->cached_tokens = cr;
		r->output_tokens = (int64_t)cli_json_num(usage,
							 "output_tokens", 0);
	}
	if (r->session_id == NULL && cli_json_str(ev, "session_id"))
		r->session_id = xstrdup(cli_json_str(ev, "session_id"));
	if (is_error) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *e;
		double status = cli_json_num(ev, "api_error_status", 0);
		strbuf_addstr(&sb, subtype ? subtype : "error");
		if (status > 0)
			strbuf_addf(&sb, " (API status %.0f)", status);
		if (text && *text)
			strbuf_addf(&sb, ": %s", text);
		cJSON_ArrayForEach(e, errors) {
			if (cJSON_IsString(e))
				strbuf_addf(&sb, "; %s", e->valuestring);
		}
		free(r->error_text);
		r->error_text = trace_cap(sb.buf ? sb.buf : "", 500);
		strbuf_release(&sb);
	} else if (text) {
		free(r->final_text);
		r->final_text = xstrdup(text);
	}
	cJSON *u = cJSON_CreateObject();
	cJSON_AddNumberToObject(u, "input_tokens", (double)r->input_tokens);
	cJSON_AddNumberToObject(u, "cached_input_tokens",
				(double)r->cached_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", (double)r->output_tokens);
	if (r->cost_reported)
		cJSON_AddNumberToObject(u, "cost_usd", r->cost_usd);
	cJSON_AddNumberToObject(u, "turns", r->turns);
	trace_emit(r->trace, "usage", u);
}

void cli_claude_event(struct cli_run *r, const cJSON *ev)
{
	const char *type = cli_json_str(ev, "type");

	if (!type)
		return;
	if (!strcmp(type, "system")) {
		const char *sub = cli_json_str(ev, "subtype");
		if (sub && !strcmp(sub, "init")) {
			const char *sid = cli_json_str(ev, "session_id");
			cJSON *o = cJSON_CreateObject();
			if (sid && !r->session_id)
				r->session_id = xstrdup(sid);
			cJSON_AddStringToObject(o, "session_id", sid ? sid : "");
			if (cli_json_str(ev, "model"))
				cJSON_AddStringToObject(o, "model",
							cli_json_str(ev, "model"));
			const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(
				ev, "mcp_servers");
			if (mcp)
				cJSON_AddItemToObject(o, "mcp_servers",
						      cJSON_Duplicate(mcp, 1));
			trace_emit(r->trace, "session", o);
		}
	} else if (!strcmp(type, "assistant")) {
		cli_claude_assistant(r, cJSON_GetObjectItemCaseSensitive(
					     ev, "message"));
	} else if (!strcmp(type, "user")) {
		claude_user(r, cJSON_GetObjectItemCaseSensitive(ev, "message"));
	} else if (!strcmp(type, "result")) {
		claude_result(r, ev);
	}
	/* Other types (stream_event, rate_limit_event, ...) are skipped
	 * on purpose: the stream adds types over time. */
}

static const char *const claude_native[] = { ".claude/projects", NULL };

const struct cli_agent cli_claude_code = {
	.name = "claude_code",
	.cli = "claude",
	.bin_env = "ARENA_CLAUDE_BIN",
	.package = "@anthropic-ai/claude-code",
	.install_hint = "scripts/install-agents.sh installs it",
	.auth_files = claude_auth_files,
	.auth_env = claude_auth_env,
	.pass_env = claude_pass_env,
	.native_dirs = claude_native,
	.efforts = claude_efforts,
	.default_model = NULL,
	.default_effort = NULL,
	.has_budget = true,
	.has_max_turns = true,
	.has_mcp = true,
	.build_argv = cli_claude_argv,
	.build_env = cli_claude_env,
	.prepare = cli_claude_prepare,
	.parse_event = cli_claude_event,
};

static int claude_validate(const struct agent_config *c, struct errbuf *err)
{
	return cli_agent_validate(&cli_claude_code, c, err);
}

static int claude_launch(const struct agent_launch *l,
			 struct agent_outcome *out, struct errbuf *err)
{
	return cli_agent_launch(&cli_claude_code, l, out, err);
}

const struct agent_ops agent_claude_code = {
	.name = "claude_code",
	.summary = "Claude Code CLI (claude -p, stream-json), sandboxed",
	.validate = claude_validate,
	.launch = claude_launch,
};

/*
 * codex.c - the `codex` agent: OpenAI's Codex CLI (`codex exec`, npm
 * @openai/codex) with JSONL events.
 *
 *   codex exec --json --skip-git-repo-check --cd WS [-m M]
 *        [-c model_reasoning_effort="E"]
 *        [-c model_provider=... base_url]              (option base_url)
 *        --dangerously-bypass-approvals-and-sandbox   (inside our sandbox)
 *      | --sandbox workspace-write                    (without it)
 *        [-c mcp_servers.arena.command="..." ... approval "approve"]
 *        -                                            (prompt on stdin)
 *
 * Inside our bubblewrap Codex's own sandbox (bwrap again) is switched off,
 * as agents.md §6.2 advises; without ours, Codex's workspace-write keeps
 * commands to the workspace.  CODEX_HOME is the private HOME's .codex,
 * with only auth.json copied in.
 *
 * Events (agents.md §2.3): thread.started, turn.started, item.* (agent
 * messages, reasoning, command executions, file changes, MCP tool calls),
 * turn.completed {usage} or turn.failed {error}.  Top-level `error` events
 * also report retried transport errors, so only turn.failed (or a non-zero
 * exit) fails a run.  Codex reports no cost: cost comes from the price
 * settings when given.  `turns` counts completed model actions (messages,
 * commands, file changes, tool calls): Codex has no per-request count.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_agent.h"

static const char *const codex_auth_files[] = { ".codex/auth.json", NULL };
static const char *const codex_auth_env[] = {
	"CODEX_API_KEY", "OPENAI_API_KEY", NULL,
};
static const char *const codex_pass_env[] = {
	"OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", NULL,
};
static const char *const codex_efforts[] = {
	"minimal", "low", "medium", "high", "xhigh", "max", NULL,
};

static void push_c(struct strvec *argv, const char *key, const char *str)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s=", key);
	cli_toml_string(&sb, str);
	strvec_push(argv, "-c");
	strvec_push(argv, sb.buf);
	strbuf_release(&sb);
}

static void codex_argv(struct cli_run *r, struct strvec *argv)
{
	strvec_push(argv, "exec");
	strvec_push(argv, "--json");
	strvec_push(argv, "--skip-git-repo-check");
	strvec_push(argv, "--cd");
	strvec_push(argv, r->l->workspace);
	if (r->set.model) {
		strvec_push(argv, "-m");
		strvec_push(argv, r->set.model);
	}
	if (r->set.effort)
		push_c(argv, "model_reasoning_effort", r->set.effort);
	if (r->set.base_url) {
		/* Another endpoint (a gateway, a proxy, a test server): a
		 * provider of our own speaking the Responses API, keyed by
		 * OPENAI_API_KEY. */
		push_c(argv, "model_provider", "arena_endpoint");
		push_c(argv, "model_providers.arena_endpoint.name", "arena");
		push_c(argv, "model_providers.arena_endpoint.base_url",
		       r->set.base_url);
		push_c(argv, "model_providers.arena_endpoint.env_key",
		       "OPENAI_API_KEY");
		push_c(argv, "model_providers.arena_endpoint.wire_api",
		       "responses");
	}
	if (r->sandboxed) {
		strvec_push(argv, "--dangerously-bypass-approvals-and-sandbox");
	} else {
		strvec_push(argv, "--sandbox");
		strvec_push(argv, "workspace-write");
	}
	if (r->set.mcp) {
		struct strbuf env = STRBUF_INIT;
		push_c(argv, "mcp_servers.arena.command", r->arena_exe);
		strvec_push(argv, "-c");
		strvec_push(argv, "mcp_servers.arena.args=[\"mcp\"]");
		strbuf_addstr(&env, "mcp_servers.arena.env={ARENA_EVAL_SOCKET=");
		cli_toml_string(&env, r->socket_path);
		strbuf_addstr(&env, ", ARENA_WORKSPACE=");
		cli_toml_string(&env, r->l->workspace);
		strbuf_addstr(&env, ", ARENA_TASK_ID=");
		cli_toml_string(&env, r->l->task->id);
		strbuf_addch(&env, '}');
		strvec_push(argv, "-c");
		strvec_push(argv, env.buf);
		strbuf_release(&env);
		push_c(argv, "mcp_servers.arena.default_tools_approval_mode",
		       "approve");
		strvec_push(argv, "-c");
		strvec_push(argv, "mcp_servers.arena.tool_timeout_sec=7200");
		strvec_push(argv, "-c");
		strvec_push(argv, "mcp_servers.arena.startup_timeout_sec=30");
	}
	strvec_push(argv, "-");
}

static void codex_env(struct cli_run *r, struct strvec *env)
{
	strvec_pushf(env, "CODEX_HOME=%s/.codex", r->home);
}

static int codex_prepare(struct cli_run *r, struct errbuf *err)
{
	char *p = xasprintf("%s/.codex", r->home);
	int rc = mkdir_p(p, err);	/* CODEX_HOME must exist */

	free(p);
	return rc;
}

static void codex_item(struct cli_run *r, const cJSON *item)
{
	const char *type = cli_json_str(item, "type");
	const char *id = cli_json_str(item, "id");

	if (!type)
		return;
	if (!strcmp(type, "agent_message")) {
		const char *t = cli_json_str(item, "text");
		r->turns++;
		trace_message(r->trace, "assistant", t);
		free(r->final_text);
		r->final_text = xstrdup(t ? t : "");
	} else if (!strcmp(type, "reasoning")) {
		trace_reasoning(r->trace, cli_json_str(item, "text"));
	} else if (!strcmp(type, "command_execution")) {
		cJSON *in = cJSON_CreateObject();
		const char *cmd = cli_json_str(item, "command");
		const char *st = cli_json_str(item, "status");
		double code = cli_json_num(item, "exit_code", 0);
		cJSON_AddStringToObject(in, "command", cmd ? cmd : "");
		r->turns++;
		r->tool_calls++;
		trace_tool_call(r->trace, id, "shell", in);
		cJSON_Delete(in);
		trace_tool_result(r->trace, id, code != 0 ||
				  (st && strcmp(st, "completed")),
				  cli_json_str(item, "aggregated_output"));
	} else if (!strcmp(type, "file_change")) {
		const cJSON *c, *changes =
			cJSON_GetObjectItemCaseSensitive(item, "changes");
		r->turns++;
		cJSON_ArrayForEach(c, changes) {
			trace_file_change(r->trace, cli_json_str(c, "path"),
					  cli_json_str(c, "kind"));
		}
	} else if (!strcmp(type, "mcp_tool_call")) {
		const char *server = cli_json_str(item, "server");
		const char *tool = cli_json_str(item, "tool");
		const cJSON *res = cJSON_GetObjectItemCaseSensitive(item,
								    "result");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(item, "error");
		char *name = xasprintf("mcp__%s__%s", server ? server : "",
				       tool ? tool : "");
		char *text = e ? xstrdup(cli_json_str(e, "message")
					 ? cli_json_str(e, "message") : "error")
			       : cli_content_text(
				       cJSON_GetObjectItemCaseSensitive(
					       res, "content"));
		r->turns++;
		r->tool_calls++;
		trace_tool_call(r->trace, id, name,
				cJSON_GetObjectItemCaseSensitive(item,
								 "arguments"));
		trace_tool_result(r->trace, id, e != NULL, text);
		free(text);
		free(name);
	} else if (!strcmp(type, "web_search")) {
		r->turns++;
		r->tool_calls++;
		trace_tool_call(r->trace, id, "web_search", item);
	} else if (!strcmp(type, "error")) {
		trace_error(r->trace, cli_json_str(item, "message"));
	}
}

static void codex_event(struct cli_run *r, const cJSON *ev)
{
	const char *type = cli_json_str(ev, "type");

	if (!type)
		return;
	if (!strcmp(type, "thread.started")) {
		const char *tid = cli_json_str(ev, "thread_id");
		cJSON *o = cJSON_CreateObject();
		if (tid && !r->session_id)
			r->session_id = xstrdup(tid);
		cJSON_AddStringToObject(o, "session_id", tid ? tid : "");
		trace_emit(r->trace, "session", o);
	} else if (!strcmp(type, "item.completed")) {
		codex_item(r, cJSON_GetObjectItemCaseSensitive(ev, "item"));
	} else if (!strcmp(type, "turn.completed")) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(ev, "usage");
		r->saw_final = true;
		/* The usage is the thread's running total: keep the last. */
		r->input_tokens = (int64_t)cli_json_num(u, "input_tokens", 0);
		r->cached_tokens = (int64_t)cli_json_num(u,
							 "cached_input_tokens",
							 0);
		r->output_tokens = (int64_t)cli_json_num(u, "output_tokens", 0);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "input_tokens",
					(double)r->input_tokens);
		cJSON_AddNumberToObject(o, "cached_input_tokens",
					(double)r->cached_tokens);
		cJSON_AddNumberToObject(o, "output_tokens",
					(double)r->output_tokens);
		cJSON_AddNumberToObject(o, "turns", r->turns);
		trace_emit(r->trace, "usage", o);
	} else if (!strcmp(type, "turn.failed")) {
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "error");
		const char *m = cli_json_str(e, "message");
		r->saw_final = true;
		r->final_error = true;
		free(r->error_text);
		r->error_text = trace_cap(m ? m : "turn failed", 500);
		trace_error(r->trace, r->error_text);
	} else if (!strcmp(type, "error")) {
		const char *m = cli_json_str(ev, "message");
		trace_error(r->trace, m);
		if (!r->final_error) {
			free(r->error_text);
			r->error_text = trace_cap(m ? m : "error", 500);
		}
	}
}

static const char *const codex_native[] = { ".codex/sessions", NULL };

const struct cli_agent cli_codex = {
	.name = "codex",
	.cli = "codex",
	.bin_env = "ARENA_CODEX_BIN",
	.package = "@openai/codex",
	.install_hint = "scripts/install-agents.sh installs it",
	.auth_files = codex_auth_files,
	.auth_env = codex_auth_env,
	.pass_env = codex_pass_env,
	.native_dirs = codex_native,
	.efforts = codex_efforts,
	.has_mcp = true,
	.build_argv = codex_argv,
	.build_env = codex_env,
	.prepare = codex_prepare,
	.parse_event = codex_event,
};

static int codex_validate(const struct agent_config *c, struct errbuf *err)
{
	return cli_agent_validate(&cli_codex, c, err);
}

static int codex_launch(const struct agent_launch *l,
			struct agent_outcome *out, struct errbuf *err)
{
	return cli_agent_launch(&cli_codex, l, out, err);
}

const struct agent_ops agent_codex = {
	.name = "codex",
	.summary = "OpenAI Codex CLI (codex exec --json), sandboxed",
	.validate = codex_validate,
	.launch = codex_launch,
};

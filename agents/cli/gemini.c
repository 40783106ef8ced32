/*
 * gemini.c - the `gemini` agent: Google's Gemini CLI (`gemini`, npm
 * @google/gemini-cli) in headless mode with stream-json output.
 *
 *   gemini --output-format stream-json --yolo --skip-trust [-m M]
 *          -p "Carry out the task given above."
 *   the full prompt on stdin (-p is appended to it), cwd = the workspace.
 *
 * Settings live in $HOME/.gemini/settings.json (the private HOME's copy):
 * arena's MCP server goes there (trust: true, so no confirmation),
 * model.maxSessionTurns when max_turns is set, and the auth type when
 * none is chosen and an API key is in the environment (headless mode
 * refuses to start without one).
 *
 * Events (gemini-cli 0.61 JsonStreamEventType): init {session_id, model},
 * message {role, content, delta}, tool_use {tool_name, tool_id,
 * parameters}, tool_result {tool_id, status, output, error}, error
 * {severity, message}, result {status, error?, stats {input_tokens,
 * output_tokens, cached, tool_calls, ...}}.  Exit status 0 ok, 1 error,
 * 42 bad input, 53 turn limit.  Streamed assistant text arrives in deltas;
 * a message is traced once it ends (next non-message event).  `turns`
 * counts assistant messages.  No cost is reported: prices settings give
 * one.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_agent.h"

static const char *const gemini_auth_files[] = {
	".gemini/oauth_creds.json", ".gemini/google_accounts.json",
	".gemini/settings.json", NULL,
};
static const char *const gemini_auth_env[] = {
	"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS",
	NULL,
};
static const char *const gemini_pass_env[] = {
	"GOOGLE_GEMINI_BASE_URL", "GOOGLE_CLOUD_PROJECT",
	"GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI", NULL,
};

static void gemini_argv(struct cli_run *r, struct strvec *argv)
{
	strvec_push(argv, "--output-format");
	strvec_push(argv, "stream-json");
	strvec_push(argv, "--yolo");
	strvec_push(argv, "--skip-trust");
	if (r->set.model) {
		strvec_push(argv, "-m");
		strvec_push(argv, r->set.model);
	}
	if (r->set.mcp) {
		strvec_push(argv, "--allowed-mcp-server-names");
		strvec_push(argv, "arena");
	}
	strvec_push(argv, "-p");
	strvec_push(argv, "Carry out the task given above.");
}

static void gemini_env(struct cli_run *r, struct strvec *env)
{
	strvec_push(env, "GEMINI_CLI_NO_RELAUNCH=true");
	strvec_push(env, "GEMINI_TELEMETRY_ENABLED=false");
}

static int gemini_prepare(struct cli_run *r, struct errbuf *err)
{
	char *dir = xasprintf("%s/.gemini", r->home);
	char *path = xasprintf("%s/settings.json", dir);
	char *text = NULL;
	cJSON *root = NULL;
	int rc = mkdir_p(dir, err);

	if (!rc && file_exists(path) &&
	    file_read_all(path, 1 << 20, &text, NULL, NULL) == 0)
		root = cJSON_Parse(text);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		root = cJSON_CreateObject();
	}
	/* Headless runs need an auth type chosen in the settings; an API
	 * key in the environment means "gemini-api-key". */
	cJSON *sec = cJSON_GetObjectItemCaseSensitive(root, "security");
	cJSON *auth = cJSON_GetObjectItemCaseSensitive(sec, "auth");
	if (!rc && !cJSON_GetObjectItemCaseSensitive(auth, "selectedType")) {
		const char *type = NULL;
		if (getenv("GOOGLE_GENAI_USE_VERTEXAI"))
			type = "vertex-ai";
		else if (getenv("GEMINI_API_KEY") || getenv("GOOGLE_API_KEY"))
			type = "gemini-api-key";
		if (type) {
			if (!cJSON_IsObject(sec)) {
				cJSON_DeleteItemFromObjectCaseSensitive(root,
									"security");
				sec = cJSON_AddObjectToObject(root, "security");
			}
			if (!cJSON_IsObject(auth)) {
				cJSON_DeleteItemFromObjectCaseSensitive(sec, "auth");
				auth = cJSON_AddObjectToObject(sec, "auth");
			}
			cJSON_AddStringToObject(auth, "selectedType", type);
		}
	}
	if (!rc && r->set.max_turns > 0) {
		cJSON *model = cJSON_GetObjectItemCaseSensitive(root, "model");
		if (!cJSON_IsObject(model)) {
			cJSON_DeleteItemFromObjectCaseSensitive(root, "model");
			model = cJSON_AddObjectToObject(root, "model");
		}
		cJSON_DeleteItemFromObjectCaseSensitive(model,
							"maxSessionTurns");
		cJSON_AddNumberToObject(model, "maxSessionTurns",
					r->set.max_turns);
	}
	if (!rc && r->set.mcp) {
		char *mcp_path = xasprintf("%s/mcp.json", r->scratch_dir.path);
		char *mcp_text = NULL;
		rc = cli_write_mcp_json(r, mcp_path, true, err);
		if (!rc)
			rc = file_read_all(mcp_path, 1 << 20, &mcp_text, NULL,
					   err);
		if (!rc) {
			cJSON *m = cJSON_Parse(mcp_text);
			cJSON *servers = cJSON_DetachItemFromObjectCaseSensitive(
				m, "mcpServers");
			cJSON_DeleteItemFromObjectCaseSensitive(root,
								"mcpServers");
			cJSON_AddItemToObject(root, "mcpServers", servers);
			cJSON_Delete(m);
		}
		free(mcp_text);
		free(mcp_path);
	}
	if (!rc) {
		char *out = cJSON_Print(root);
		rc = file_write_atomic_str(path, out, err);
		free(out);
	}
	cJSON_Delete(root);
	free(text);
	free(path);
	free(dir);
	return rc;
}

/* Traces the assistant text gathered from deltas. */
static void flush_message(struct cli_run *r)
{
	if (!r->in_message)
		return;
	r->in_message = false;
	trace_message(r->trace, "assistant", strbuf_str(&r->pending));
	free(r->final_text);
	r->final_text = strbuf_detach(&r->pending);
}

static void gemini_event(struct cli_run *r, const cJSON *ev)
{
	const char *type = cli_json_str(ev, "type");

	if (!type)
		return;
	if (!strcmp(type, "message")) {
		const char *role = cli_json_str(ev, "role");
		const char *content = cli_json_str(ev, "content");
		if (!role || strcmp(role, "assistant"))
			return;	/* the user message is our prompt */
		if (!r->in_message) {
			r->in_message = true;
			r->turns++;
			strbuf_reset(&r->pending);
		}
		strbuf_addstr(&r->pending, content ? content : "");
		return;
	}
	flush_message(r);
	if (!strcmp(type, "init")) {
		const char *sid = cli_json_str(ev, "session_id");
		cJSON *o = cJSON_CreateObject();
		if (sid && !r->session_id)
			r->session_id = xstrdup(sid);
		cJSON_AddStringToObject(o, "session_id", sid ? sid : "");
		if (cli_json_str(ev, "model"))
			cJSON_AddStringToObject(o, "model",
						cli_json_str(ev, "model"));
		trace_emit(r->trace, "session", o);
	} else if (!strcmp(type, "tool_use")) {
		r->tool_calls++;
		trace_tool_call(r->trace, cli_json_str(ev, "tool_id"),
				cli_json_str(ev, "tool_name"),
				cJSON_GetObjectItemCaseSensitive(ev,
								 "parameters"));
	} else if (!strcmp(type, "tool_result")) {
		const char *st = cli_json_str(ev, "status");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(ev, "error");
		const char *out = cli_json_str(ev, "output");
		trace_tool_result(r->trace, cli_json_str(ev, "tool_id"),
				  st && strcmp(st, "success"),
				  out ? out : cli_json_str(e, "message"));
	} else if (!strcmp(type, "error")) {
		const char *m = cli_json_str(ev, "message");
		trace_error(r->trace, m);
		free(r->error_text);
		r->error_text = trace_cap(m ? m : "error", 500);
	} else if (!strcmp(type, "result")) {
		const char *st = cli_json_str(ev, "status");
		const cJSON *stats = cJSON_GetObjectItemCaseSensitive(ev,
								      "stats");
		r->saw_final = true;
		r->final_error = !st || strcmp(st, "success");
		if (r->final_error) {
			const cJSON *e = cJSON_GetObjectItemCaseSensitive(
				ev, "error");
			const char *m = cli_json_str(e, "message");
			free(r->error_text);
			r->error_text = trace_cap(m ? m : "result status "
						  "error", 500);
		}
		r->input_tokens = (int64_t)cli_json_num(stats, "input_tokens",
							0);
		r->cached_tokens = (int64_t)cli_json_num(stats, "cached", 0);
		r->output_tokens = (int64_t)cli_json_num(stats,
							 "output_tokens", 0);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "input_tokens",
					(double)r->input_tokens);
		cJSON_AddNumberToObject(o, "cached_input_tokens",
					(double)r->cached_tokens);
		cJSON_AddNumberToObject(o, "output_tokens",
					(double)r->output_tokens);
		cJSON_AddNumberToObject(o, "turns", r->turns);
		trace_emit(r->trace, "usage", o);
	}
}

static const char *const gemini_native[] = { ".gemini/tmp", NULL };

const struct cli_agent cli_gemini = {
	.name = "gemini",
	.cli = "gemini",
	.bin_env = "ARENA_GEMINI_BIN",
	.package = "@google/gemini-cli",
	.install_hint = "scripts/install-agents.sh installs it",
	.auth_files = gemini_auth_files,
	.auth_env = gemini_auth_env,
	.pass_env = gemini_pass_env,
	.native_dirs = gemini_native,
	.efforts = NULL,
	.has_max_turns = true,
	.has_mcp = true,
	.build_argv = gemini_argv,
	.build_env = gemini_env,
	.prepare = gemini_prepare,
	.parse_event = gemini_event,
};

static int gemini_validate(const struct agent_config *c, struct errbuf *err)
{
	return cli_agent_validate(&cli_gemini, c, err);
}

static int gemini_launch(const struct agent_launch *l,
			 struct agent_outcome *out, struct errbuf *err)
{
	return cli_agent_launch(&cli_gemini, l, out, err);
}

const struct agent_ops agent_gemini = {
	.name = "gemini",
	.summary = "Google Gemini CLI (gemini -p, stream-json), sandboxed",
	.validate = gemini_validate,
	.launch = gemini_launch,
};

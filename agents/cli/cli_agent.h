/*
 * cli_agent.h - what the agent CLI launchers (claude_code, codex, cursor,
 * gemini, deepseek_harness) share: settings (defaults from
 * agents/<name>/agent_config.yaml, run-level overrides from the run
 * config), the binary's location, the per-launch scratch directory (a
 * private HOME holding only the CLI's auth files, the evaluation bridge's
 * socket, MCP configs), the prompt, the sandbox, the environment, the
 * spawn, the line-by-line parsing of the CLI's JSON output into the trace
 * and the outcome, and the classification of how the CLI ended.
 *
 * A launcher is a struct cli_agent: names, auth files and variables, and
 * three hooks (argv, one parsed stdout line, optional extra preparation).
 * Everything else is here, once.
 */
#ifndef ARENA_AGENTS_CLI_AGENT_H
#define ARENA_AGENTS_CLI_AGENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include "arena/agent.h"
#include "bridge/eval_bridge.h"
#include "bridge/trace.h"
#include "sandbox/scratch.h"

#define CLI_LINE_MAX ((size_t)8 << 20)	/* longest stdout line parsed */

enum cli_sandbox_mode { CLI_SANDBOX_AUTO = 0, CLI_SANDBOX_ON, CLI_SANDBOX_OFF };

/* Effective settings of one launch: agent_config.yaml, then the run's
 * agent section on top. */
struct cli_settings {
	char *model;		/* NULL: the CLI's own default */
	char *effort;		/* NULL: none */
	int max_iterations;
	int timeout_seconds;
	int max_turns;		/* 0: none */
	double max_budget_usd;	/* 0: none */
	bool mcp;		/* give the agent arena's MCP server */
	enum cli_sandbox_mode sandbox;
	char *cli_version;	/* the version this launcher was tested with */
	char *persona;		/* "auto" (by family), "none" or a file name */
	char *base_url;		/* endpoint override (deepseek), or NULL */
	double price_input;	/* USD per million tokens, for CLIs that */
	double price_cached_input;	/* report no cost; 0: unknown */
	double price_output;
	struct strvec env_pass;	/* extra variable names passed through */
};

void cli_settings_init(struct cli_settings *s);
void cli_settings_release(struct cli_settings *s);

struct cli_run;

struct cli_agent {
	const char *name;		/* agent name: "claude_code" */
	const char *cli;		/* program name: "claude" */
	const char *bin_env;		/* override: "ARENA_CLAUDE_BIN" */
	const char *bin_env_fallback;	/* a second override, or NULL */
	const char *package;		/* npm package, or NULL */
	const char *install_hint;	/* one sentence */
	/* Files under HOME copied into the private HOME (NULL-terminated). */
	const char *const *auth_files;
	/* Variables passed through when set (NULL-terminated); the first
	 * group that is set counts as "authenticated" for check-agents. */
	const char *const *auth_env;
	const char *const *pass_env;	/* passed through, not auth */
	const char *const *efforts;	/* accepted values; NULL: no knob */
	/* Directories under the private HOME holding the CLI's own
	 * transcripts, archived into logs/native/ (NULL-terminated). */
	const char *const *native_dirs;
	const char *default_model;
	const char *default_effort;
	bool has_budget;		/* CLI takes a spend cap */
	bool has_max_turns;
	bool has_mcp;			/* option mcp: true is supported */
	/* Appends the CLI's arguments after argv[0]. */
	void (*build_argv)(struct cli_run *r, struct strvec *argv);
	/* Appends CLI-specific environment ("NAME=value"). */
	void (*build_env)(struct cli_run *r, struct strvec *env);
	/* Writes config files into the private HOME (MCP settings, ...). */
	int (*prepare)(struct cli_run *r, struct errbuf *err);
	/* One JSON object from stdout. */
	void (*parse_event)(struct cli_run *r, const cJSON *ev);
};

/* State of one launch, shared by the common code and the hooks. */
struct cli_run {
	const struct cli_agent *agent;
	const struct agent_launch *l;
	struct cli_settings set;
	char *bin;		/* absolute path of the CLI */
	char *arena_exe;	/* absolute path of this arena binary */
	struct agent_scratch scratch_dir; /* per-launch, removed at the end */
	char *home;		/* private HOME (in scratch) */
	char *socket_path;	/* evaluation bridge (in scratch) */
	char *prompt;		/* the final prompt */
	char *prompt_path;	/* logs/agent_prompt.txt */
	bool sandboxed;
	struct trace *trace;

	/* stdout parsing */
	struct strbuf line;
	bool line_too_long;
	int json_lines, other_lines;

	/* What the CLI reported (hooks fill these). */
	bool saw_final;		/* a final result/completion event */
	bool final_error;	/* the final event says it failed */
	char *error_text;	/* its message (or an error event's) */
	char *final_text;	/* final answer text */
	char *session_id;
	int turns;
	int64_t input_tokens;	/* all prompt tokens, cached included */
	int64_t cached_tokens;
	int64_t output_tokens;
	double cost_usd;
	bool cost_reported;
	int tool_calls;
	char *last_msg_id;	/* de-duplicates per-message usage */
	struct strbuf pending;	/* streamed message text not yet traced */
	bool in_message;	/* the last event was part of a message */
};

/* The launch entry point every CLI agent's agent_ops uses. */
int cli_agent_launch(const struct cli_agent *a, const struct agent_launch *l,
		     struct agent_outcome *out, struct errbuf *err);
/* agent_ops.validate: options, effort, values. */
int cli_agent_validate(const struct cli_agent *a, const struct agent_config *c,
		       struct errbuf *err);

/* Settings of a: agent_config.yaml then c (c may be NULL). */
int cli_settings_load(const struct cli_agent *a, const struct agent_config *c,
		      struct cli_settings *s, struct errbuf *err);

/* Where agents/ data lives: $ARENA_AGENTS_DIR, <exe>/../agents, or
 * <exe>/../share/arena/agents (borrowed). */
const char *cli_agents_dir(void);

/* The CLI's binary: $bin_env, PATH, then the install prefixes of
 * scripts/install-agents.sh.  Caller frees; NULL when not found. */
char *cli_find_bin(const struct cli_agent *a);
/* "2.1.332" from `CLI --version` (caller frees), or NULL. */
char *cli_version_of(const char *bin, struct errbuf *err);
/* The same, asked once per binary (path, size, mtime) in this process;
 * NULL when it cannot be told.  Caller frees. */
char *cli_version_cached(const char *bin);
/* Whether credentials are present: an auth variable or auth file. *how
 * (borrowed) names it. */
bool cli_authenticated(const struct cli_agent *a, const char **how);

/* Feeds stdout bytes (the spawn callback). */
void cli_feed_stdout(void *ctx, const char *data, size_t n);

/* Helpers for the parse hooks. */
const char *cli_json_str(const cJSON *o, const char *key);
double cli_json_num(const cJSON *o, const char *key, double dflt);
/* Text of a tool result's content (string or array of text blocks);
 * caller frees. */
char *cli_content_text(const cJSON *content);
/* Appends a TOML basic string ("..." with escapes). */
void cli_toml_string(struct strbuf *sb, const char *s);

/* Claude Code's stream-json, shared with deepseek_harness (Claude Code
 * driven against DeepSeek's Anthropic-compatible API) and, for its
 * message events, cursor (claude_code.c). */
void cli_claude_argv(struct cli_run *r, struct strvec *argv);
void cli_claude_env(struct cli_run *r, struct strvec *env);
int cli_claude_prepare(struct cli_run *r, struct errbuf *err);
void cli_claude_event(struct cli_run *r, const cJSON *ev);
/* One assistant message (Claude's shape: content[] of text, thinking,
 * tool_use; usage counted once per message id). */
void cli_claude_assistant(struct cli_run *r, const cJSON *msg);
/* Writes an mcpServers JSON file for arena's MCP server at path. */
int cli_write_mcp_json(struct cli_run *r, const char *path, bool trust,
		       struct errbuf *err);

/* The built-in CLI agents (one per file). */
extern const struct cli_agent cli_claude_code;
extern const struct cli_agent cli_codex;
extern const struct cli_agent cli_cursor;
extern const struct cli_agent cli_gemini;
extern const struct cli_agent cli_deepseek;
extern const struct cli_agent *const cli_agents_all[];
/* Their agent_ops, registered by agents_register_builtin(). */
extern const struct agent_ops agent_claude_code;
extern const struct agent_ops agent_codex;
extern const struct agent_ops agent_cursor;
extern const struct agent_ops agent_gemini;
extern const struct agent_ops agent_deepseek;
/* By agent name, or NULL. */
const struct cli_agent *cli_agent_find(const char *name);

#endif /* ARENA_AGENTS_CLI_AGENT_H */

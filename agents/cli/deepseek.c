/*
 * deepseek.c - the `deepseek_harness` agent: DeepSeek models driving the
 * Claude Code harness through DeepSeek's Anthropic-compatible API
 * (agents.md §4: ANTHROPIC_BASE_URL=https://api.deepseek.com/anthropic).
 *
 * The argv, the stream-json parsing and the sandbox are Claude Code's
 * (claude_code.c); what differs:
 *   - the endpoint: option base_url, else $DEEPSEEK_BASE_URL, else
 *     https://api.deepseek.com/anthropic;
 *   - the key: $DEEPSEEK_API_KEY, passed as ANTHROPIC_AUTH_TOKEN.  None of
 *     Claude's own credentials reach the process (no auth files copied,
 *     no ANTHROPIC_* variables passed through), so a key for one provider
 *     is never sent to the other;
 *   - the model: every Claude model alias is mapped to agent.model;
 *   - the cost: Claude Code prices tokens as Claude, so its
 *     total_cost_usd is ignored and the cost is computed from the price
 *     settings of agent_config.yaml.
 * AgentKernelArena's own DeepSeek harness CLI (`dsh`) is not published on
 * npm; this launcher needs only the claude binary.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_agent.h"

#define DEEPSEEK_DEFAULT_URL "https://api.deepseek.com/anthropic"

static const char *const deepseek_auth_env[] = { "DEEPSEEK_API_KEY", NULL };
static const char *const deepseek_pass_env[] = { "DEEPSEEK_BASE_URL", NULL };
static const char *const deepseek_efforts[] = {
	"low", "medium", "high", "xhigh", "max", NULL,
};

static void deepseek_env(struct cli_run *r, struct strvec *env)
{
	const char *url = r->set.base_url ? r->set.base_url
					  : getenv("DEEPSEEK_BASE_URL");
	const char *key = getenv("DEEPSEEK_API_KEY");

	cli_claude_env(r, env);
	strvec_pushf(env, "ANTHROPIC_BASE_URL=%s",
		     url && *url ? url : DEEPSEEK_DEFAULT_URL);
	if (key && *key)
		strvec_pushf(env, "ANTHROPIC_AUTH_TOKEN=%s", key);
	if (r->set.model) {
		strvec_pushf(env, "ANTHROPIC_MODEL=%s", r->set.model);
		strvec_pushf(env, "ANTHROPIC_SMALL_FAST_MODEL=%s", r->set.model);
		strvec_pushf(env, "ANTHROPIC_DEFAULT_OPUS_MODEL=%s",
			     r->set.model);
		strvec_pushf(env, "ANTHROPIC_DEFAULT_SONNET_MODEL=%s",
			     r->set.model);
		strvec_pushf(env, "ANTHROPIC_DEFAULT_HAIKU_MODEL=%s",
			     r->set.model);
	}
	strvec_push(env, "API_TIMEOUT_MS=600000");
}

static void deepseek_event(struct cli_run *r, const cJSON *ev)
{
	cli_claude_event(r, ev);
	r->cost_reported = false;	/* priced as Claude: recomputed */
}

static const char *const deepseek_native[] = { ".claude/projects", NULL };

const struct cli_agent cli_deepseek = {
	.name = "deepseek_harness",
	.cli = "claude",
	.bin_env = "ARENA_DEEPSEEK_BIN",
	.bin_env_fallback = "ARENA_CLAUDE_BIN",
	.package = "@anthropic-ai/claude-code",
	.install_hint = "it runs on the claude CLI; scripts/install-agents.sh "
			"installs it",
	.auth_files = NULL,
	.auth_env = deepseek_auth_env,
	.pass_env = deepseek_pass_env,
	.native_dirs = deepseek_native,
	.efforts = deepseek_efforts,
	.default_model = "deepseek-chat",
	.has_budget = false,
	.has_max_turns = true,
	.has_mcp = true,
	.build_argv = cli_claude_argv,
	.build_env = deepseek_env,
	.prepare = cli_claude_prepare,
	.parse_event = deepseek_event,
};

static int deepseek_validate(const struct agent_config *c, struct errbuf *err)
{
	return cli_agent_validate(&cli_deepseek, c, err);
}

static int deepseek_launch(const struct agent_launch *l,
			   struct agent_outcome *out, struct errbuf *err)
{
	return cli_agent_launch(&cli_deepseek, l, out, err);
}

const struct agent_ops agent_deepseek = {
	.name = "deepseek_harness",
	.summary = "DeepSeek models through the Claude Code harness "
		   "(Anthropic-compatible API), sandboxed",
	.validate = deepseek_validate,
	.launch = deepseek_launch,
};

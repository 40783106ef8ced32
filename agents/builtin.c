/*
 * builtin.c - registers the built-in agents, and the `noop` agent, which
 * changes nothing: a run with it measures the evaluator's own noise (every
 * speedup should be 1 within the noise floor).
 */
#include "agents.h"
#include "cli/cli_agent.h"

static int noop_launch(const struct agent_launch *l, struct agent_outcome *out,
		       struct errbuf *err)
{
	out->status = xstrdup("completed");
	out->summary = xstrdup("no change (noop)");
	out->cost_known = true; /* calls no model */
	return 0;
}

const struct agent_ops agent_noop = {
	.name = "noop",
	.summary = "changes nothing; measures the evaluator's noise (A/A)",
	.launch = noop_launch,
};

void agents_register_builtin(void)
{
	agent_register(&agent_noop);
	agent_register(&agent_command);
	agent_register(&agent_replay);
	agent_register(&agent_autotune);
	agent_register(&agent_claude_code);
	agent_register(&agent_codex);
	agent_register(&agent_cursor);
	agent_register(&agent_gemini);
	agent_register(&agent_deepseek);
}

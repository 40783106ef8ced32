/*
 * test_agents_cli.c - the agent CLI launchers against a fake CLI
 * (tests/agents/fake_cli.sh) that replays each CLI's documented output,
 * with a stub evaluator behind the evaluation bridge (no real evaluation:
 * fast).  What is proved: argv, environment, cwd, stdin, the sandbox
 * (when bubblewrap works here), parsed turns/tokens/cost, the
 * classification of failures (non-zero exit, is_error with exit 0, no
 * final result, hang past the deadline, megabytes of output), the trace,
 * the settings validation, the MCP protocol layer, and the sweep of
 * scratch directories that killed launches left behind.
 *
 * Run from the repository root (as `make test` does); $B names the build
 * directory whose `arena` the fake CLI calls to evaluate.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agents.h"
#include "cli/cli_agent.h"
#include "bridge/mcp_server.h"
#include "bridge/trace.h"
#include "sandbox/sandbox.h"
#include "sandbox/scratch.h"
#include "arena/proc.h"

static char root[4096];
static struct task *saxpy;
static int stub_evals;

struct fixture {
	char dir[64];
	char *ws, *logs, *prompt_file;
	struct agent_config cfg;
	struct agent_launch l;
	struct agent_outcome out;
	char *log;	/* agent.log after the launch */
	char *trace;	/* trace.jsonl after the launch */
};

static int stub_evaluate(void *ctx, const struct strvec *defines, bool quick,
			 struct task_result *out, struct errbuf *err)
{
	stub_evals++;
	out->pass_compilation = true;
	out->pass_correctness = true;
	out->status = RS_OK;
	out->speedup_ratio = 1.5;
	out->speedup_ci_lo = 1.4;
	out->speedup_ci_hi = 1.6;
	return 0;
}

static char *slurp(const char *path)
{
	char *text = NULL;

	if (file_read_all(path, 64 << 20, &text, NULL, NULL) != 0)
		return xstrdup("");
	return text;
}

static void fx_init(struct fixture *f, const char *agent, double timeout)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/arena-ut-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->ws = path_join(f->dir, "workspace");
	f->logs = path_join(f->dir, "logs");
	f->prompt_file = path_join(f->logs, "prompt.txt");
	assert_int_equal(mkdir_p(f->ws, NULL), 0);
	assert_int_equal(mkdir_p(f->logs, NULL), 0);
	char *k = path_join(f->ws, "kernel.c");
	assert_int_equal(file_write_atomic_str(k, "int x;\n", NULL), 0);
	free(k);
	assert_int_equal(file_write_atomic_str(f->prompt_file,
					       "PROMPT-MARKER: make it fast\n",
					       NULL), 0);
	f->cfg.template_name = xstrdup(agent);
	strvec_init(&f->cfg.command);
	strvec_init(&f->cfg.options);
	strvec_push(&f->cfg.options, "env_pass=FAKE_CLI,FAKE_SCENARIO");
	f->l.task = saxpy;
	f->l.config = &f->cfg;
	f->l.workspace = f->ws;
	f->l.prompt = "PROMPT-MARKER: make it fast\n";
	f->l.prompt_file = f->prompt_file;
	f->l.log_dir = f->logs;
	f->l.timeout_s = timeout;
	f->cfg.timeout_seconds = (int)timeout;
	f->l.evaluate = stub_evaluate;
	agent_outcome_init(&f->out);
}

static void fx_option(struct fixture *f, const char *kv)
{
	strvec_push(&f->cfg.options, kv);
}

/* Launches agent `name` with the fake CLI in scenario; returns the rc. */
static int fx_launch(struct fixture *f, const char *cli, const char *scenario)
{
	const struct agent_ops *ops = agent_find(f->cfg.template_name);
	struct errbuf err;
	int rc;

	setenv("FAKE_CLI", cli, 1);
	setenv("FAKE_SCENARIO", scenario, 1);
	errbuf_init(&err);
	assert_non_null(ops);
	rc = ops->launch(&f->l, &f->out, &err);
	if (rc)
		print_message("launch: %s\n", errbuf_str(&err));
	char *p = path_join(f->logs, "agent.log");
	f->log = slurp(p);
	free(p);
	p = path_join(f->logs, "trace.jsonl");
	f->trace = slurp(p);
	free(p);
	return rc;
}

static void fx_release(struct fixture *f)
{
	rm_rf(f->dir);
	free(f->ws);
	free(f->logs);
	free(f->prompt_file);
	free(f->cfg.template_name);
	strvec_release(&f->cfg.command);
	strvec_release(&f->cfg.options);
	agent_outcome_release(&f->out);
	free(f->log);
	free(f->trace);
}

#define assert_contains(hay, needle)                                         \
	do {                                                                 \
		if (!strstr((hay), (needle)))                                \
			fail_msg("expected '%s' in:\n%.3000s", (needle),     \
				 (hay));                                     \
	} while (0)
#define assert_lacks(hay, needle)                                            \
	do {                                                                 \
		if (strstr((hay), (needle)))                                 \
			fail_msg("did not expect '%s' in:\n%.3000s",         \
				 (needle), (hay));                           \
	} while (0)

/* ---- claude_code ----------------------------------------------------- */

static void test_claude_ok_runs_sandboxed_evaluates_and_parses_usage(void **s)
{
	struct fixture f;
	bool sb = sandbox_available(NULL);

	const char *ld = getenv("LD_LIBRARY_PATH");
	char *saved_ld = ld ? xstrdup(ld) : NULL;

	fx_init(&f, "claude_code", 60);
	stub_evals = 0;
	/* Where arena's own libraries may be: `arena mcp call` runs inside. */
	setenv("LD_LIBRARY_PATH", "/usr/lib", 1);
	assert_int_equal(fx_launch(&f, "claude", "ok"), 0);
	if (saved_ld)
		setenv("LD_LIBRARY_PATH", saved_ld, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	free(saved_ld);
	assert_contains(f.log, "FAKE env LD_LIBRARY_PATH=/usr/lib\n");
	assert_string_equal(f.out.status, "completed");
	assert_null(f.out.error);
	assert_int_equal(f.out.turns, 4);
	assert_int_equal(f.out.input_tokens, 1600);	/* 1200 + 100 + 300 */
	assert_int_equal(f.out.output_tokens, 345);
	assert_true(f.out.cost_usd > 0.04209 && f.out.cost_usd < 0.04211);
	assert_string_equal(f.out.summary,
			    "Done: the kernel is as fast as it gets.");
	assert_int_equal(f.out.sandboxed, sb);
	/* argv, cwd, stdin, environment */
	assert_contains(f.log, "FAKE argv: -p --output-format stream-json "
			"--verbose");
	char *cwd = xasprintf("FAKE cwd: %s\n", f.ws);
	assert_contains(f.log, cwd);
	free(cwd);
	assert_contains(f.log, "FAKE env ARENA_TASK_ID=c2c/saxpy");
	assert_contains(f.log, "FAKE env SECRET_NOT_PASSED is unset");
	assert_contains(f.log, "FAKE env CLAUDE_CONFIG_DIR=/tmp/arena-agent-");
	assert_lacks(f.log, "FAKE stdin bytes: 0\n");
	char *pp = path_join(f.logs, "agent_prompt.txt");
	char *prompt = slurp(pp);
	assert_contains(prompt, "PROMPT-MARKER");
	assert_contains(prompt, "arena mcp call evaluate");
	free(prompt);
	free(pp);
	if (sb) {
		assert_contains(f.log, "--dangerously-skip-permissions");
		assert_contains(f.log, "FAKE env IS_SANDBOX=1");
		if (geteuid() == 0)
			assert_contains(f.log, "FAKE uid: 1000");
	}
	/* The evaluation went through the bridge to the stub. */
	assert_contains(f.log, "FAKE evaluate rc: 0");
	assert_contains(f.log, "Verdict: correct (status ok); speedup 1.500");
	assert_int_equal(stub_evals, 1);
	/* The agent's edit is in the workspace. */
	char *k = path_join(f.ws, "kernel.c");
	char *kt = slurp(k);
	assert_contains(kt, "edited by the fake agent");
	free(kt);
	free(k);
	/* The trace, in order. */
	assert_contains(f.trace, "\"type\":\"episode_start\"");
	assert_contains(f.trace, "\"type\":\"tool_call\",\"id\":\"tu_1\","
			"\"name\":\"Bash\"");
	assert_contains(f.trace, "\"type\":\"evaluation\",\"via\":\"bridge\"");
	assert_contains(f.trace, "\"type\":\"tool_result\",\"id\":\"tu_1\"");
	assert_contains(f.trace, "\"type\":\"file_change\"");
	assert_contains(f.trace, "\"type\":\"reasoning\"");
	assert_contains(f.trace, "\"type\":\"outcome\",\"status\":"
			"\"completed\"");
	assert_true(strstr(f.trace, "episode_start") <
		    strstr(f.trace, "\"type\":\"outcome\""));
	fx_release(&f);
}

static void test_claude_without_sandbox_as_root_uses_tool_allowlist(void **s)
{
	struct fixture f;

	fx_init(&f, "claude_code", 60);
	fx_option(&f, "sandbox=off");
	assert_int_equal(fx_launch(&f, "claude", "ok"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_false(f.out.sandboxed);
	assert_contains(f.log, "FAKE env IS_SANDBOX=<unset>");
	if (geteuid() == 0) {
		assert_contains(f.log, "--permission-mode acceptEdits "
				"--allowedTools");
		assert_lacks(f.log, "--dangerously-skip-permissions");
	}
	fx_release(&f);
}

static void test_claude_is_error_with_exit_0_is_a_failure(void **s)
{
	struct fixture f;

	fx_init(&f, "claude_code", 60);
	assert_int_equal(fx_launch(&f, "claude", "is_error"), 0);
	assert_string_equal(f.out.status, "failed");
	assert_contains(f.out.error, "reported an error (exit status 0)");
	assert_contains(f.out.error, "API status 529");
	assert_contains(f.out.error, "API Error: 529 Overloaded");
	fx_release(&f);
}

static void test_claude_nonzero_exit_reports_stderr(void **s)
{
	struct fixture f;

	fx_init(&f, "claude_code", 60);
	assert_int_equal(fx_launch(&f, "claude", "exit1"), 0);
	assert_string_equal(f.out.status, "failed");
	assert_contains(f.out.error, "exited with status 1");
	assert_contains(f.out.error, "cannot be used with root/sudo");
	fx_release(&f);
}

static void test_claude_without_result_line_is_a_failure(void **s)
{
	struct fixture f;

	fx_init(&f, "claude_code", 60);
	assert_int_equal(fx_launch(&f, "claude", "noresult"), 0);
	assert_string_equal(f.out.status, "failed");
	assert_contains(f.out.error, "without a final result event");
	assert_int_equal(f.out.turns, 1);	/* counted from messages */
	assert_int_equal(f.out.input_tokens, 5);
	fx_release(&f);
}

static void test_hang_ignoring_sigterm_is_killed_at_the_deadline(void **s)
{
	struct fixture f;

	fx_init(&f, "claude_code", 2);
	fx_option(&f, "sandbox=off");	/* the slowest path: SIGTERM, grace,
					 * SIGKILL of the process group */
	uint64_t t0 = now_ns();
	assert_int_equal(fx_launch(&f, "claude", "hang"), 0);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_string_equal(f.out.status, "timeout");
	assert_contains(f.out.error, "deadline of 2 s reached");
	assert_true(took >= 2.0);
	assert_true(took < 2.0 + PROC_KILL_GRACE_S + 3.0);
	assert_contains(f.trace, "\"status\":\"timeout\"");
	fx_release(&f);
}

static void test_hang_in_the_sandbox_dies_with_it(void **s)
{
	struct fixture f;

	if (!sandbox_available(NULL))
		skip();
	fx_init(&f, "claude_code", 2);
	uint64_t t0 = now_ns();
	assert_int_equal(fx_launch(&f, "claude", "hang"), 0);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_string_equal(f.out.status, "timeout");
	assert_true(took < 2.0 + PROC_KILL_GRACE_S + 3.0);
	fx_release(&f);
}

/* True from its second poll on: the run was cancelled while the agent
 * worked. */
static bool cancelled_on_second_poll(void *ctx)
{
	int *polls = ctx;

	return ++*polls >= 2;
}

static void test_cancel_stops_the_cli_and_keeps_its_workspace(void **s)
{
	struct fixture f;
	int polls = 0;

	fx_init(&f, "claude_code", 60);
	f.l.cancelled = cancelled_on_second_poll;
	f.l.cancelled_ctx = &polls;
	char *mark = path_join(f.ws, "notes.txt");
	assert_int_equal(file_write_atomic_str(mark, "kept\n", NULL), 0);
	uint64_t t0 = now_ns();
	assert_int_equal(fx_launch(&f, "claude", "hang"), 0);
	double took = (double)(now_ns() - t0) / 1e9;
	assert_string_equal(f.out.status, "cancelled");
	assert_contains(f.out.error, "its run was cancelled");
	assert_int_equal(polls, 2);	/* about once a second */
	assert_true(took >= 0.9);
	assert_true(took < 1.5 + 3 * PROC_KILL_GRACE_S);
	/* Not a quota stop: nothing of the workspace is removed. */
	assert_int_equal(access(mark, F_OK), 0);
	free(mark);
	fx_release(&f);
}

static void test_megabytes_of_output_are_drained_and_capped(void **s)
{
	struct fixture f;
	struct stat st;

	fx_init(&f, "claude_code", 120);
	assert_int_equal(fx_launch(&f, "claude", "flood"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_int_equal(f.out.turns, 2);
	assert_true(f.out.cost_usd > 0.49 && f.out.cost_usd < 0.51);
	char *p = path_join(f.logs, "agent_stdout.jsonl");
	assert_int_equal(stat(p, &st), 0);
	assert_true((size_t)st.st_size <= ((size_t)16 << 20) + 256);
	free(p);
	assert_contains(f.trace, "\"non_json_lines\":20002");
	fx_release(&f);
}

/* ---- codex, gemini, cursor -------------------------------------------- */

static void test_codex_events_and_computed_cost(void **s)
{
	struct fixture f;

	setenv("ARENA_CODEX_BIN", getenv("ARENA_CLAUDE_BIN"), 1);
	fx_init(&f, "codex", 60);
	fx_option(&f, "price_input_per_mtok=1");
	fx_option(&f, "price_cached_input_per_mtok=0.1");
	fx_option(&f, "price_output_per_mtok=10");
	assert_int_equal(fx_launch(&f, "codex", "ok"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_int_equal(f.out.turns, 3);
	assert_int_equal(f.out.input_tokens, 1500);
	assert_int_equal(f.out.output_tokens, 345);
	/* (1200 * 1 + 300 * 0.1 + 345 * 10) / 1e6 */
	assert_true(f.out.cost_usd > 0.004679 && f.out.cost_usd < 0.004681);
	assert_contains(f.log, "FAKE argv: exec --json --skip-git-repo-check");
	assert_contains(f.log, "FAKE env CODEX_HOME=/tmp/arena-agent-");
	assert_contains(f.log, "FAKE evaluate rc: 0");
	assert_contains(f.trace, "\"name\":\"shell\"");
	fx_release(&f);
}

static void test_codex_turn_failed_is_a_failure(void **s)
{
	struct fixture f;

	setenv("ARENA_CODEX_BIN", getenv("ARENA_CLAUDE_BIN"), 1);
	fx_init(&f, "codex", 60);
	assert_int_equal(fx_launch(&f, "codex", "turn_failed"), 0);
	assert_string_equal(f.out.status, "failed");
	assert_contains(f.out.error, "stream disconnected before completion");
	fx_release(&f);
}

static void test_gemini_stream_json(void **s)
{
	struct fixture f;

	setenv("ARENA_GEMINI_BIN", getenv("ARENA_CLAUDE_BIN"), 1);
	fx_init(&f, "gemini", 60);
	assert_int_equal(fx_launch(&f, "gemini", "ok"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_int_equal(f.out.turns, 2);
	assert_int_equal(f.out.input_tokens, 1500);
	assert_int_equal(f.out.output_tokens, 345);
	assert_string_equal(f.out.summary, "Done.");
	assert_contains(f.trace, "\"text\":\"I will evaluate.\"");
	assert_contains(f.log, "--yolo");
	fx_release(&f);
}

static void test_cursor_stream_json(void **s)
{
	struct fixture f;

	setenv("ARENA_CURSOR_BIN", getenv("ARENA_CLAUDE_BIN"), 1);
	fx_init(&f, "cursor", 60);
	assert_int_equal(fx_launch(&f, "cursor", "ok"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_int_equal(f.out.turns, 2);
	assert_int_equal(f.out.input_tokens, 1500);
	assert_int_equal(f.out.output_tokens, 345);
	assert_contains(f.log, "--force --trust --workspace");
	assert_contains(f.trace, "\"name\":\"shellToolCall\"");
	fx_release(&f);
}

static void test_deepseek_sends_no_anthropic_credentials(void **s)
{
	struct fixture f;

	setenv("ANTHROPIC_API_KEY", "sk-anthropic", 1);
	setenv("DEEPSEEK_API_KEY", "sk-deepseek", 1);
	fx_init(&f, "deepseek_harness", 60);
	assert_int_equal(fx_launch(&f, "claude", "ok"), 0);
	assert_string_equal(f.out.status, "completed");
	assert_contains(f.log, "FAKE env ANTHROPIC_API_KEY is unset");
	assert_contains(f.log, "FAKE env ANTHROPIC_AUTH_TOKEN is set");
	assert_contains(f.log, "FAKE env ANTHROPIC_BASE_URL="
			"https://api.deepseek.com/anthropic");
	/* Claude's $0.0421 is ignored; DeepSeek prices from the yaml:
	 * (1300 * 0.27 + 300 * 0.07 + 345 * 1.10) / 1e6 */
	assert_true(f.out.cost_usd > 0.0007514 && f.out.cost_usd < 0.0007516);
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("DEEPSEEK_API_KEY");
	fx_release(&f);
}

static void test_missing_cli_cannot_start(void **s)
{
	struct fixture f;
	char *saved = xstrdup(getenv("ARENA_CLAUDE_BIN"));

	setenv("ARENA_CLAUDE_BIN", "/nonexistent/claude", 1);
	fx_init(&f, "claude_code", 60);
	assert_int_equal(fx_launch(&f, "claude", "ok"), -ENOENT);
	setenv("ARENA_CLAUDE_BIN", saved, 1);
	free(saved);
	fx_release(&f);
}

/* ---- settings -------------------------------------------------------- */

static int validate(const char *agent, const char *effort, const char *opt,
		    struct errbuf *err)
{
	struct agent_config c = { 0 };
	int rc;

	c.template_name = (char *)agent;
	c.effort = (char *)effort;
	strvec_init(&c.options);
	if (opt)
		strvec_push(&c.options, opt);
	errbuf_init(err);
	rc = agent_find(agent)->validate(&c, err);
	strvec_release(&c.options);
	return rc;
}

static void test_settings_are_validated(void **s)
{
	struct errbuf err;

	assert_int_equal(validate("claude_code", "high", "mcp=true", &err), 0);
	assert_int_not_equal(validate("cursor", "high", NULL, &err), 0);
	assert_contains(errbuf_str(&err), "cursor has no effort setting");
	assert_int_not_equal(validate("codex", NULL, "colour=blue", &err), 0);
	assert_contains(errbuf_str(&err), "unknown option 'colour'");
	assert_int_not_equal(validate("gemini", NULL, "sandbox=maybe", &err),
			     0);
	assert_contains(errbuf_str(&err), "sandbox must be auto, on or off");
	assert_int_not_equal(validate("claude_code", NULL, "max_turns=-1",
				      &err), 0);
	assert_int_not_equal(validate("claude_code", NULL,
				      "env_pass=A;rm -rf", &err), 0);
	assert_int_equal(validate("codex", "xhigh", "mcp=on", &err), 0);
}

static void test_agent_config_yaml_defaults_apply(void **s)
{
	struct cli_settings set;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(cli_settings_load(&cli_deepseek, NULL, &set, &err), 0);
	assert_string_equal(set.model, "deepseek-chat");
	assert_true(set.price_output > 1.09 && set.price_output < 1.11);
	assert_int_equal(set.timeout_seconds, 3600);
	cli_settings_release(&set);
}

/* ---- MCP protocol ------------------------------------------------------ */

static int stub_tool(void *ctx, const char *name, const cJSON *args,
		     struct mcp_reply *out, struct errbuf *err)
{
	if (!strcmp(name, "evaluate")) {
		bool quick = cJSON_IsTrue(cJSON_GetObjectItem(args, "quick"));
		out->text = xasprintf("verdict quick=%d", quick);
		out->is_error = !quick;
		return 0;
	}
	if (!strcmp(name, "show_task")) {
		return errf(err, "bridge gone");
	}
	return -ENOENT;
}

static char *rpc(struct mcp_session *m, const char *line)
{
	return mcp_handle_line(m, line, strlen(line));
}

static void test_mcp_session(void **s)
{
	struct mcp_session m;
	char *r;

	mcp_session_init(&m, stub_tool, NULL);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	assert_contains(r, "\"code\":-32002");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		"\"params\":{\"protocolVersion\":\"2025-06-18\"}}");
	assert_contains(r, "\"protocolVersion\":\"2025-06-18\"");
	assert_contains(r, "\"tools\":{\"listChanged\":false}");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":"
		"\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}");
	assert_contains(r, "\"id\":\"a\"");
	assert_contains(r, "\"protocolVersion\":\"" MCP_LATEST_VERSION "\"");
	free(r);
	assert_null(rpc(&m, "{\"jsonrpc\":\"2.0\",\"method\":"
			"\"notifications/initialized\"}"));
	assert_null(rpc(&m, "   "));
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
	assert_string_equal(r, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	assert_contains(r, "\"name\":\"evaluate\"");
	assert_contains(r, "\"name\":\"show_task\"");
	assert_contains(r, "\"name\":\"last_result\"");
	assert_contains(r, "\"readOnlyHint\":true");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"evaluate\",\"arguments\":{\"quick\":"
		"true}}}");
	assert_contains(r, "\"text\":\"verdict quick=1\"");
	assert_contains(r, "\"isError\":false");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"evaluate\"}}");
	assert_contains(r, "\"isError\":true");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"show_task\"}}");
	assert_contains(r, "arena could not run show_task: bridge gone");
	assert_contains(r, "\"isError\":true");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"nope\"}}");
	assert_contains(r, "\"code\":-32602");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":"
		"\"server/discover\"}");
	assert_contains(r, "\"code\":-32601");
	free(r);
	r = rpc(&m, "{not json");
	assert_string_equal(r, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
			    "{\"code\":-32700,\"message\":\"Parse error\"}}");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"1.0\",\"id\":9,\"method\":\"ping\"}");
	assert_contains(r, "\"code\":-32600");
	free(r);
	r = rpc(&m, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	assert_contains(r, "\"code\":-32600");
	free(r);
	r = rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":12345678901234567,"
		"\"method\":\"ping\"}");
	assert_contains(r, "\"id\":12345678901234567");
	free(r);
	/* A response sent by the client is not answered. */
	assert_null(rpc(&m, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}"));
	assert_int_equal(m.calls, 4);
	mcp_session_release(&m);
}

/* ---- sandbox argv ------------------------------------------------------ */

static void test_sandbox_mount_order(void **s)
{
	struct sandbox_spec sp;
	struct strvec argv = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	char dir[] = "/tmp/arena-test-sbx-XXXXXX";

	(void)s;
	assert_non_null(mkdtemp(dir));
	char *store = path_join(dir, "store");
	char *ws = path_join(dir, "store/runs/r/tasks/t/workspace");
	char *tasks = path_join(dir, "src/tasks");
	char *build = path_join(dir, "src/build");
	char *scratch = path_join(dir, "agent-x");
	assert_int_equal(mkdir_p(ws, NULL), 0);
	assert_int_equal(mkdir_p(tasks, NULL), 0);
	assert_int_equal(mkdir_p(build, NULL), 0);
	assert_int_equal(mkdir_p(scratch, NULL), 0);
	sandbox_spec_init(&sp);
	sp.workspace = ws;
	strvec_push(&sp.hide, store);
	strvec_push(&sp.hide, tasks);
	strvec_push(&sp.expose_ro, build);
	strvec_push(&sp.bind_rw, scratch);
	sandbox_argv(&sp, &argv);
	for (size_t i = 0; i < argv.n; i++)
		strbuf_addf(&sb, "%s ", argv.v[i]);
	const char *a = sb.buf;
	/* An allow-list on an empty root, not the whole root read-only. */
	assert_lacks(a, "--ro-bind / / ");
	assert_contains(a, "--ro-bind /usr /usr ");
	const char *tmp = strstr(a, "--tmpfs /tmp ");
	char *want = xasprintf("--ro-bind %s %s ", build, build);
	const char *expose = strstr(a, want);
	free(want);
	want = xasprintf("--bind %s %s ", scratch, scratch);
	const char *rw = strstr(a, want);
	free(want);
	want = xasprintf("--bind %s %s ", ws, ws);
	const char *wsb = strstr(a, want);
	free(want);
	assert_non_null(strstr(a, "--dev /dev "));
	assert_non_null(strstr(a, "--proc /proc "));
	assert_non_null(tmp);
	assert_non_null(expose);
	assert_non_null(rw);
	assert_non_null(wsb);
	/* /tmp first (the exposures may lie under it), the workspace last. */
	assert_true(tmp < expose && expose < rw && rw < wsb);
	/* The store and the catalogue are nowhere: not bound, so not there. */
	want = xasprintf("--ro-bind %s ", store);
	assert_lacks(a, want);
	free(want);
	want = xasprintf("%s ", tasks);
	assert_lacks(a, want);
	free(want);
	assert_contains(a, "--die-with-parent");
	assert_contains(a, "--unshare-pid");
	assert_lacks(a, "--unshare-net");
	assert_true(!strcmp(argv.v[argv.n - 1], "--"));
	strbuf_release(&sb);
	strvec_release(&argv);
	sandbox_spec_release(&sp);
	rm_rf(dir);
	free(store);
	free(ws);
	free(tasks);
	free(build);
	free(scratch);
	assert_true(path_is_under("/a/b", "/a"));
	assert_false(path_is_under("/ab", "/a"));
	assert_true(path_is_under("/a", "/a/"));
}

/* $ARENA_<CLI>_BIN as a bare name is looked up in $PATH (it was once
 * looked up in /usr/local/bin:/usr/bin:/bin only); as a path it is taken
 * as it is, and a missing one is not replaced by the CLI's usual name. */
static void test_bin_override_by_name_searches_path(void **state)
{
	static const struct cli_agent a = { .name = "test_cli",
					    .cli = "arena-test-no-such-cli",
					    .bin_env = "ARENA_TEST_CLI_BIN" };
	char dir[] = "/tmp/arena-test-bin-XXXXXX";
	char *old_path = getenv("PATH") ? xstrdup(getenv("PATH")) : NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	char *exe = path_join(dir, "my-cli-dev");
	assert_int_equal(file_write_atomic_str(exe, "#!/bin/sh\n", NULL), 0);
	assert_int_equal(chmod(exe, 0755), 0);
	setenv("PATH", dir, 1);
	setenv("ARENA_TEST_CLI_BIN", "my-cli-dev", 1);
	char *found = cli_find_bin(&a);
	assert_non_null(found);
	assert_string_equal(found, exe);
	free(found);
	setenv("ARENA_TEST_CLI_BIN", "/nonexistent/my-cli-dev", 1);
	assert_null(cli_find_bin(&a));
	unsetenv("ARENA_TEST_CLI_BIN");
	assert_null(cli_find_bin(&a));	/* its usual name is nowhere */
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	rm_rf(dir);
	free(exe);
}

/* A launch killed before it removed its scratch directory (kill -9 of
 * the executor) leaves it in /tmp; the next launch sweeps it, and only
 * it: a live launch's (locked), a young one, and other names stay. */
static void test_scratch_of_a_dead_launch_is_swept_and_no_other(void **state)
{
	char dir[] = "/tmp/arena-test-scratch-XXXXXX";
	struct agent_scratch mine;
	struct errbuf err;
	(void)state;

	assert_non_null(mkdtemp(dir));
	char *dead = path_join(dir, AGENT_SCRATCH_PREFIX "dead");
	char *live = path_join(dir, AGENT_SCRATCH_PREFIX "live");
	char *other = path_join(dir, "arena-other");
	char *inner = path_join(dead, "home");
	assert_int_equal(mkdir(dead, 0700), 0);
	assert_int_equal(mkdir(inner, 0700), 0);
	assert_int_equal(mkdir(live, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	int fd = open(live, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);

	/* Young: nothing goes. */
	assert_int_equal(agent_scratch_sweep(dir, AGENT_SCRATCH_STALE_S), 0);
	assert_true(dir_exists(dead));
	/* Old enough: the unheld one goes, with what is in it. */
	assert_int_equal(agent_scratch_sweep(dir, 0), 1);
	assert_false(dir_exists(dead));
	assert_true(dir_exists(live));
	assert_true(dir_exists(other));
	close(fd);
	assert_int_equal(agent_scratch_sweep(dir, 0), 1);
	assert_false(dir_exists(live));
	assert_true(dir_exists(other));

	/* A launch's own is held while it lives and removed at its end. */
	errbuf_init(&err);
	assert_int_equal(agent_scratch_make_in(dir, &mine, &err), 0);
	assert_non_null(strstr(mine.path, "/" AGENT_SCRATCH_PREFIX));
	assert_int_equal(agent_scratch_sweep(dir, 0), 0);
	assert_true(dir_exists(mine.path));
	char *made = xstrdup(mine.path);
	agent_scratch_remove(&mine);
	assert_false(dir_exists(made));
	assert_null(mine.path);
	free(made);
	rm_rf(dir);
	free(dead);
	free(live);
	free(other);
	free(inner);
}

/* An evaluation event says why a result is not ok (a verdict given
 * while timing keeps the speedup measured so far, so the status and the
 * speedup alone do not say it), and says nothing of the kind when ok. */
static void test_trace_evaluation_says_why_a_result_is_not_ok(void **s)
{
	char dir[] = "/tmp/arena-ut-trace-XXXXXX";
	struct task_result r;
	struct trace *t;
	struct errbuf err;

	(void)s;
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "trace.jsonl");
	errbuf_init(&err);
	assert_int_equal(trace_open(path, &t, &err), 0);
	result_init(&r);
	r.pass_compilation = r.pass_correctness = true;
	r.status = RS_OK;
	r.speedup_ratio = 1.2;
	trace_evaluation(t, "bridge", false, &r, NULL, 1.0);
	r.status = RS_REJECTED;
	r.speedup_ratio = 0.999;
	r.speedup_calculation_error_message =
		xstrdup("reported times inconsistent with the controller's "
			"clock in case 'big'");
	trace_evaluation(t, "bridge", true, &r, NULL, 1.0);
	trace_close(t);
	result_release(&r);
	char *text = slurp(path);
	char *second = strchr(text, '\n');
	assert_non_null(second);
	*second++ = '\0';
	assert_lacks(text, "\"why\"");
	assert_contains(second, "\"status\":\"rejected\"");
	assert_contains(second, "\"why\":\"reported times inconsistent with "
				"the controller's clock in case 'big'\"");
	free(text);
	unlink(path);
	free(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bin_override_by_name_searches_path),
		cmocka_unit_test(
			test_trace_evaluation_says_why_a_result_is_not_ok),
		cmocka_unit_test(
			test_claude_ok_runs_sandboxed_evaluates_and_parses_usage),
		cmocka_unit_test(
			test_claude_without_sandbox_as_root_uses_tool_allowlist),
		cmocka_unit_test(test_claude_is_error_with_exit_0_is_a_failure),
		cmocka_unit_test(test_claude_nonzero_exit_reports_stderr),
		cmocka_unit_test(test_claude_without_result_line_is_a_failure),
		cmocka_unit_test(
			test_hang_ignoring_sigterm_is_killed_at_the_deadline),
		cmocka_unit_test(test_hang_in_the_sandbox_dies_with_it),
		cmocka_unit_test(
			test_cancel_stops_the_cli_and_keeps_its_workspace),
		cmocka_unit_test(
			test_megabytes_of_output_are_drained_and_capped),
		cmocka_unit_test(test_codex_events_and_computed_cost),
		cmocka_unit_test(test_codex_turn_failed_is_a_failure),
		cmocka_unit_test(test_gemini_stream_json),
		cmocka_unit_test(test_cursor_stream_json),
		cmocka_unit_test(test_deepseek_sends_no_anthropic_credentials),
		cmocka_unit_test(test_missing_cli_cannot_start),
		cmocka_unit_test(test_settings_are_validated),
		cmocka_unit_test(test_agent_config_yaml_defaults_apply),
		cmocka_unit_test(test_mcp_session),
		cmocka_unit_test(test_sandbox_mount_order),
		cmocka_unit_test(
			test_scratch_of_a_dead_launch_is_swept_and_no_other),
	};
	const char *b = getenv("B") ? getenv("B") : "build";
	struct errbuf err;

	if (!getcwd(root, sizeof(root)))
		return 1;
	char *fake = xasprintf("%s/tests/agents/fake_cli.sh", root);
	char *agents = xasprintf("%s/agents", root);
	char *tasks = xasprintf("%s/tasks", root);
	char *path = xasprintf("%s/%s:%s", root, b, getenv("PATH"));
	char *arena = xasprintf("%s/%s/arena", root, b);
	if (!file_exists(fake) || !file_exists(arena)) {
		printf("run from the repository root after building %s\n",
		       arena);
		return 1;
	}
	setenv("ARENA_CLAUDE_BIN", fake, 1);
	setenv("ARENA_AGENTS_DIR", agents, 1);
	setenv("PATH", path, 1);
	/* The arena the agents call is build/arena, not this test binary:
	 * its directory must stay visible in the sandbox (a checkout under
	 * /tmp sits below the sandbox's private /tmp). */
	setenv("ARENA_EXE", arena, 1);
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("DEEPSEEK_API_KEY");
	setenv("SECRET_NOT_PASSED", "x", 1);
	agents_register_builtin();
	errbuf_init(&err);
	if (task_load(tasks, "c2c/saxpy", &saxpy, &err) != 0) {
		printf("%s\n", errbuf_str(&err));
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	task_free(saxpy);
	free(fake);
	free(agents);
	free(tasks);
	free(path);
	free(arena);
	return rc;
}

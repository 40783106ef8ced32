/*
 * cmd_mcp.c - `arena mcp`: arena's evaluator as MCP tools on stdio, and
 * `arena mcp call TOOL`: one tool call from a shell (what an agent without
 * MCP runs to evaluate).
 *
 * Where evaluations run:
 *   - $ARENA_EVAL_SOCKET set (an agent launched by arena, sandboxed or
 *     not): through the launcher's evaluation bridge, which evaluates the
 *     attempt's workspace against its frozen baseline; this process needs
 *     no store and no task package;
 *   - otherwise: in this process, engine_eval_dir on the task
 *     (--task / $ARENA_TASK_ID) and workspace (--workspace /
 *     $ARENA_WORKSPACE / the current directory), with the store of
 *     --store.  With --run (and --attempt), last_result shows that
 *     attempt's current result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bridge/mcp_server.h"
#include "cli.h"

struct mcp_local {
	struct cli *c;
	struct engine *e;
	const char *task_id;
	const char *workspace;
	const char *run_id;
	int attempt;
	char *last_text;
};

static int local_engine(struct mcp_local *m, struct errbuf *err)
{
	if (m->e)
		return 0;
	return engine_open(m->c->store_dir, m->c->tasks_dir, &m->e, err);
}

static int local_call(void *ctx, const char *name, const cJSON *args,
		      struct mcp_reply *out, struct errbuf *err)
{
	struct mcp_local *m = ctx;
	struct task_result r;
	int rc;

	if (strcmp(name, "evaluate") && strcmp(name, "show_task") &&
	    strcmp(name, "last_result"))
		return -ENOENT;
	if (!strcmp(name, "last_result") && (m->last_text || !m->run_id)) {
		out->text = xstrdup(m->last_text ? m->last_text
				    : "No evaluation yet in this session; "
				      "call evaluate.");
		return 0;
	}
	if (!m->task_id)
		return errf(err, "arena mcp was started without a task: pass "
			    "--task ID or set ARENA_TASK_ID");
	if ((rc = local_engine(m, err)) != 0)
		return rc;
	if (!strcmp(name, "show_task")) {
		struct task *t;
		if ((rc = task_load(engine_tasks_root(m->e), m->task_id, &t,
				    err)) != 0)
			return rc;
		out->text = task_doc_render(t);
		task_free(t);
		return 0;
	}
	result_init(&r);
	if (!strcmp(name, "last_result")) {
		rc = engine_task_result(m->e, m->run_id, m->task_id,
					m->attempt, &r, err);
		if (!rc) {
			out->text = result_to_yaml(&r);
			out->is_error = r.status != RS_OK;
		}
		result_release(&r);
		return rc;
	}
	struct eval_options opt = { 0 };
	opt.quick = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args,
								  "quick"));
	rc = engine_eval_dir(m->e, m->task_id, m->workspace, &opt, &r, err);
	if (!rc) {
		result_score(&r);
		mcp_reply_from_result(&r, opt.quick, out);
		free(m->last_text);
		m->last_text = xstrdup(out->text);
	}
	result_release(&r);
	return rc;
}

int cmd_mcp(struct cli *c, int argc, char **argv)
{
	struct mcp_local m = { .c = c };
	const char *sock = getenv("ARENA_EVAL_SOCKET");
	const char *tool = NULL;
	bool call = false, quick = false;
	int i = 1, rc;

	m.task_id = getenv("ARENA_TASK_ID");
	m.workspace = getenv("ARENA_WORKSPACE");
	if (argc > 1 && !strcmp(argv[1], "tools")) {
		if (argc > 2)
			return cli_usage_error("mcp",
					       "'mcp tools' takes no "
					       "argument ('%s')",
					       argv[2]);
		cJSON *t = mcp_tools_list();
		char *s = cJSON_Print(t);
		puts(s);
		free(s);
		cJSON_Delete(t);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "call")) {
		if (argc < 3)
			return cli_usage_error("mcp", "name the tool to call: "
						      "evaluate, show_task or "
						      "last_result");
		call = true;
		tool = argv[2];
		i = 3;
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--task") && i + 1 < argc)
			m.task_id = argv[++i];
		else if (!strcmp(argv[i], "--workspace") && i + 1 < argc)
			m.workspace = argv[++i];
		else if (!strcmp(argv[i], "--run") && i + 1 < argc)
			m.run_id = argv[++i];
		else if (!strcmp(argv[i], "--attempt") && i + 1 < argc) {
			int64_t k;
			if (parse_i64(argv[++i], &k) || k < 1 || k > 1000000)
				return cli_usage_error("mcp",
						       "--attempt needs "
						       "a number from 1, got "
						       "'%s'",
						       argv[i]);
			m.attempt = (int)k;
		} else if (!strcmp(argv[i], "--quick") && call)
			quick = true;
		else
			return cli_usage_error("mcp",
					       "unexpected argument or "
					       "missing value: '%s'",
					       argv[i]);
	}
	if (!m.workspace)
		m.workspace = ".";

	struct mcp_session s;
	if (sock && *sock)
		mcp_session_init(&s, mcp_bridge_call, (void *)sock);
	else
		mcp_session_init(&s, local_call, &m);
	if (call) {
		struct mcp_reply reply = { 0 };
		struct errbuf err;
		cJSON *args = cJSON_CreateObject();
		if (quick)
			cJSON_AddBoolToObject(args, "quick", true);
		errbuf_init(&err);
		rc = s.call(s.ctx, tool, args, &reply, &err);
		cJSON_Delete(args);
		if (rc == -ENOENT) {
			rc = cli_usage_error("mcp",
					     "unknown tool '%s'; the "
					     "tools are evaluate, show_task, "
					     "last_result",
					     tool);
		} else if (rc) {
			rc = cli_fail("%s", errbuf_str(&err)) + 1;
		} else {
			fputs(reply.text ? reply.text : "", stdout);
			if (reply.text && *reply.text &&
			    reply.text[strlen(reply.text) - 1] != '\n')
				fputc('\n', stdout);
			rc = reply.is_error ? 1 : 0;
		}
		mcp_reply_release(&reply);
	} else {
		rc = mcp_serve(&s, 0, stdout);
	}
	mcp_session_release(&s);
	free(m.last_text);
	if (m.e)
		engine_close(m.e);
	return rc;
}

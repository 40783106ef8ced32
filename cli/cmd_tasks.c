/*
 * cmd_tasks.c - `arena tasks` (the catalogue) and `arena eval` (evaluate
 * any directory against a task and print its task_result.yaml).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "bridge/mcp_server.h"
#include "arena/eval.h"
#include "cli.h"

/* `arena tasks --check SELECTOR [--device D]`: what arena finds of each
 * AgentKernelArena task (eval_aka_judge): one line each; exit 1 when a
 * task is flagged (its harness fails the kernel as shipped, says nothing
 * about a corrupted one, or arena cannot record it). */
static int tasks_check(struct cli *c, const char *sel, const char *device)
{
	const char *root = c->tasks_dir ? c->tasks_dir : task_default_root();
	struct strvec ids = STRVEC_INIT;
	struct engine *e;
	struct errbuf err;
	int flagged = 0;

	errbuf_init(&err);
	if (task_select(root, sel, &ids, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	if (cli_open(c, &e))
		return 1;
	for (size_t i = 0; i < ids.n; i++) {
		struct task *t;
		struct aka_judgement j;
		errbuf_init(&err);
		if (task_load(root, ids.v[i], &t, &err) != 0) {
			printf("%s INVALID: %s\n", ids.v[i], errbuf_str(&err));
			flagged++;
			continue;
		}
		if (!t->aka) {
			task_free(t);
			continue;
		}
		char *dev = NULL;
		if (eval_resolve_device(device, t, &dev, &err) != 0 ||
		    eval_aka_judge(t, dev, engine_cache_dir(e), &j, &err) !=
			    0) {
			printf("%s ERROR: %s\n", t->id, errbuf_str(&err));
			flagged++;
		} else if (j.skip_reason) {
			printf("%s SKIPPED: %s\n", t->id, j.skip_reason);
		} else if (j.error) {
			printf("%s FLAGGED: %s\n", t->id, j.error);
			flagged++;
		} else if (j.catches_wrong == 0) {
			printf("%s FLAGGED: its correctness check passes a "
			       "corrupted kernel too (it checks nothing); arena "
			       "checks candidates against the kernel as shipped\n",
			       t->id);
			flagged++;
		} else {
			printf("%s OK: %s harness, %d cases (%d checked only)%s%s\n",
			       t->id, j.style, j.ncases, j.ncheck_only,
			       j.notes ? "; " : "", j.notes ? j.notes : "");
		}
		if (dev)
			aka_judgement_release(&j);
		free(dev);
		task_free(t);
	}
	strvec_release(&ids);
	engine_close(e);
	return flagged ? 1 : 0;
}

int cmd_tasks(struct cli *c, int argc, char **argv)
{
	const char *root = c->tasks_dir ? c->tasks_dir : task_default_root();
	const char *sel = "all", *device = NULL;
	bool check = false, have_sel = false;
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check")) {
			check = true;
			continue;
		}
		if (!strcmp(argv[i], "--device")) {
			if (i + 1 >= argc)
				return cli_usage_error(
					"tasks", "--device needs a device "
						 "(cuda:0, hip:0, host)");
			device = argv[++i];
			continue;
		}
		if (argv[i][0] == '-')
			return cli_usage_error("tasks", "unknown option '%s'",
					       argv[i]);
		if (have_sel)
			return cli_usage_error("tasks",
					       "one selector at a "
					       "time ('%s' is a second one)",
					       argv[i]);
		sel = argv[i];
		have_sel = true;
	}
	if (device && !check)
		return cli_usage_error("tasks", "--device goes with --check");
	if (check)
		return tasks_check(c, sel, device);
	errbuf_init(&err);
	if (task_select(root, sel, &ids, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	printf("%-28s %-10s %-5s %-13s %s\n", "TASK", "FAMILY", "LANG",
	       "CASES(+HELD)", "DESCRIPTION");
	for (size_t i = 0; i < ids.n; i++) {
		struct task *t;
		errbuf_init(&err);
		if (task_load(root, ids.v[i], &t, &err) != 0) {
			printf("%-28s INVALID: %s\n", ids.v[i], errbuf_str(&err));
			bad++;
			continue;
		}
		char cases[32];
		snprintf(cases, sizeof(cases), "%d(+%d)", t->nvisible,
			 t->ncases - t->nvisible);
		/* An AgentKernelArena folder: its cases come from its own
		 * harness when it is evaluated; say its style, or why it
		 * cannot run here. */
		if (t->aka) {
			snprintf(cases, sizeof(cases), "aka:%s",
				 aka_style_name(t->aka->style));
			if (t->aka->skip_reason) {
				printf("%-28s %-10s %-5s %-13s SKIPPED: %s\n",
				       t->id, t->family,
				       language_name(t->language), cases,
				       t->aka->skip_reason);
				task_free(t);
				continue;
			}
		}
		const char *nl = strchr(t->description, '\n');
		int dlen = nl ? (int)(nl - t->description)
			      : (int)strlen(t->description);
		if (dlen > 60)
			dlen = 60;
		printf("%-28s %-10s %-5s %-13s %.*s\n", t->id, t->family,
		       language_name(t->language), cases, dlen, t->description);
		task_free(t);
	}
	strvec_release(&ids);
	return bad ? 1 : 0;
}

/* Inside an agent's sandbox the store is invisible; the launch's
 * evaluation bridge ($ARENA_EVAL_SOCKET) evaluates that workspace instead.
 * Exit 0 when correct, 1 when not, 2 when it could not run. */
static int eval_through_bridge(const char *sock, bool quick)
{
	struct mcp_reply reply = { 0 };
	struct errbuf err;
	cJSON *args = cJSON_CreateObject();
	int rc;

	errbuf_init(&err);
	cJSON_AddBoolToObject(args, "quick", quick);
	rc = mcp_bridge_call((void *)sock, "evaluate", args, &reply, &err);
	cJSON_Delete(args);
	if (rc) {
		cli_fail("evaluation bridge %s: %s", sock, errbuf_str(&err));
		return 2;
	}
	if (reply.text)
		fputs(reply.text, stdout);
	rc = reply.is_error ? 1 : 0;
	mcp_reply_release(&reply);
	return rc;
}

int cmd_eval(struct cli *c, int argc, char **argv)
{
	struct eval_options opt = { 0 };
	struct strvec defines = STRVEC_INIT;
	const char *task = NULL, *ws = NULL;
	struct engine *e;
	struct task_result res;
	struct errbuf err;
	int rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--workspace") && i + 1 < argc)
			ws = argv[++i];
		else if (!strcmp(argv[i], "--quick"))
			opt.quick = true;
		else if (!strcmp(argv[i], "--held-out"))
			opt.held_out = true;
		else if (!strcmp(argv[i], "--no-cache"))
			opt.no_cache = true;
		else if (!strcmp(argv[i], "--aa"))
			opt.aa = true;
		else if (!strcmp(argv[i], "--logs") && i + 1 < argc)
			opt.log_dir = argv[++i];
		else if (!strcmp(argv[i], "--case-budget") && i + 1 < argc) {
			char *end;
			opt.case_budget_s = strtod(argv[++i], &end);
			if (*end || !(opt.case_budget_s > 0 &&
				      opt.case_budget_s <= 3600))
				return cli_usage_error("eval",
						       "--case-budget "
						       "needs seconds (0 to "
						       "3600), got '%s'",
						       argv[i]);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			int64_t s;
			if (parse_i64(argv[++i], &s) != 0 || s < 0)
				return cli_usage_error("eval",
						       "--seed needs a "
						       "non-negative integer, "
						       "got '%s'",
						       argv[i]);
			opt.has_seed = true;
			opt.seed = (uint64_t)s;
		} else if (!strcmp(argv[i], "-D") && i + 1 < argc)
			strvec_push(&defines, argv[++i]);
		else if (argv[i][0] != '-' && !task)
			task = argv[i];
		else
			return cli_usage_error("eval",
					       "unexpected argument or "
					       "missing value: '%s'",
					       argv[i]);
	}
	const char *sock = getenv("ARENA_EVAL_SOCKET");
	if (sock && *sock)
		return eval_through_bridge(sock, opt.quick);
	if (!task || (!ws && !opt.aa) || (ws && opt.aa))
		return cli_usage_error(
			"eval", "%s",
			!task	 ? "name the task to evaluate against"
			: opt.aa ? "--aa times the task's baseline "
				   "against itself: no --workspace"
				 : "--workspace DIR names the candidate");
	opt.defines = &defines;
	if (cli_open(c, &e))
		return 1;
	errbuf_init(&err);
	result_init(&res);
	rc = engine_eval_dir(e, task, ws, &opt, &res, &err);
	if (rc == 0) {
		char *yaml = result_to_yaml(&res);
		fputs(yaml, stdout);
		free(yaml);
	} else {
		cli_fail("%s", errbuf_str(&err));
	}
	result_release(&res);
	strvec_release(&defines);
	engine_close(e);
	return rc ? 1 : 0;
}

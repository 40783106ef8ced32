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

/* `arena tasks --suites`: every suite, validated; exit 1 when one is not
 * valid. */
static int list_suites(const char *root)
{
	struct strvec names = STRVEC_INIT;
	struct errbuf err;
	int bad = 0;

	errbuf_init(&err);
	if (task_suite_list(root, &names, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	printf("%-16s %-6s %s\n", "SUITE", "TASKS", "PURPOSE");
	for (size_t i = 0; i < names.n; i++) {
		struct task_suite s;
		errbuf_init(&err);
		if (task_suite_load(root, names.v[i], &s, &err) != 0) {
			printf("%-16s INVALID: %s\n", names.v[i],
			       errbuf_str(&err));
			bad++;
			continue;
		}
		const char *nl = strchr(s.purpose, '\n');
		int plen = nl ? (int)(nl - s.purpose) : (int)strlen(s.purpose);
		printf("%-16s %-6zu %.*s%s\n", names.v[i], s.ids.n,
		       plen > 70 ? 70 : plen, s.purpose,
		       plen > 70 ? "..." : "");
		task_suite_release(&s);
	}
	if (names.n == 0)
		printf("(no suites under %s/suites)\n", root);
	strvec_release(&names);
	return bad ? 1 : 0;
}

/* The task's difficulty as measured.yaml records it: the baseline's
 * fraction of the roofline on the device the task targets (the host for
 * c tasks, else the first GPU recorded), e.g. "12% H200"; "-" when none
 * is recorded. */
static void difficulty(const struct task *t, char *buf, size_t n)
{
	struct task_measured m;
	struct errbuf err;

	snprintf(buf, n, "-");
	errbuf_init(&err);
	if (task_measured_read(t->dir, &m, &err) != 0) {
		snprintf(buf, n, "invalid");
		return;
	}
	for (int i = 0; i < m.n; i++) {
		const char *d = m.v[i].device;
		bool host = str_starts_with(d, "host");
		if (host != (t->language == LANG_C) || !(m.v[i].fraction > 0))
			continue;
		/* "NVIDIA H200 (sm_90)" -> "H200", "AMD Instinct MI300X
		 * (gfx942)" -> "MI300X": the model's last word. */
		char word[24] = "host";
		if (!host) {
			size_t end = strcspn(d, "(");
			while (end > 0 && d[end - 1] == ' ')
				end--;
			size_t start = end;
			while (start > 0 && d[start - 1] != ' ')
				start--;
			snprintf(word, sizeof(word), "%.*s", (int)(end - start),
				 d + start);
		}
		const char *w = word;
		snprintf(buf, n, "%.3g%% %s", 100 * m.v[i].fraction, w);
		break;
	}
	task_measured_release(&m);
}

int cmd_tasks(struct cli *c, int argc, char **argv)
{
	const char *root = c->tasks_dir ? c->tasks_dir : task_default_root();
	const char *sel = "all";
	bool have_sel = false, suites = false;
	struct strvec ids = STRVEC_INIT;
	struct errbuf err;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--suites")) {
			suites = true;
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
	if (suites)
		return list_suites(root);
	errbuf_init(&err);
	if (task_select(root, sel, &ids, &err) != 0)
		return cli_fail("%s", errbuf_str(&err));
	/* Columns as wide as the longest id and family listed. */
	int wid = 4, wfam = 6;
	for (size_t i = 0; i < ids.n; i++) {
		/* aka/<family>/<name>: an AgentKernelArena folder's task. */
		const char *f = str_starts_with(ids.v[i], "aka/") ? ids.v[i] + 4
								    : ids.v[i];
		const char *slash = strchr(f, '/');
		int len = (int)strlen(ids.v[i]);
		int fam = slash ? (int)(slash - f) : (int)strlen(f);
		if (len > wid)
			wid = len;
		if (fam > wfam)
			wfam = fam;
	}
	printf("%-*s %-*s %-6s %-13s %-12s %s\n", wid, "TASK", wfam, "FAMILY",
	       "LANG", "CASES(+HELD)", "ROOFLINE", "DESCRIPTION");
	for (size_t i = 0; i < ids.n; i++) {
		struct task *t;
		errbuf_init(&err);
		if (task_load(root, ids.v[i], &t, &err) != 0) {
			printf("%-*s INVALID: %s\n", wid, ids.v[i],
			       errbuf_str(&err));
			bad++;
			continue;
		}
		char cases[32], roof[48];
		snprintf(cases, sizeof(cases), "%d(+%d)", t->nvisible,
			 t->ncases - t->nvisible);
		difficulty(t, roof, sizeof(roof));
		/* An AgentKernelArena folder: its cases come from its own
		 * harness when it is evaluated; say its style, or why it
		 * cannot run here. */
		if (t->aka) {
			snprintf(cases, sizeof(cases), "aka:%s",
				 aka_style_name(t->aka->style));
			if (t->aka->skip_reason) {
				printf("%-*s %-*s %-6s %-13s %-12s SKIPPED: %s\n",
				       wid, t->id, wfam, t->family,
				       language_name(t->language), cases, roof,
				       t->aka->skip_reason);
				task_free(t);
				continue;
			}
		}
		const char *nl = strchr(t->description, '\n');
		int dlen = nl ? (int)(nl - t->description)
			      : (int)strlen(t->description);
		if (dlen > 50)
			dlen = 50;
		printf("%-*s %-*s %-6s %-13s %-12s %.*s\n", wid, t->id, wfam,
		       t->family,
		       language_name(t->language), cases, roof, dlen,
		       t->description);
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
		else if (!strcmp(argv[i], "--timing-only"))
			opt.timing_only = true;
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
	if (opt.timing_only && !opt.aa)
		return cli_usage_error("eval",
				       "--timing-only times the "
				       "task's baseline against itself without "
				       "checks: it needs --aa");
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

/*
 * cmd_check_tasks.c - `arena check-tasks [SELECTOR...]`: the checks of
 * arena/check.h over every task selected (default: all, and every suite),
 * a report per task in words or, with --json, one JSON document; exit 1
 * when any check failed, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "arena/check.h"
#include "arena/eval.h"
#include "cli.h"

static void print_task(const struct task_check *c)
{
	int skipped = 0;

	for (int i = 0; i < c->nitems; i++)
		skipped += c->items[i].status == CHECK_SKIP;
	printf("%s: %s (%s, %.1f s)\n", c->task_id,
	       c->failed ? "FAIL"
	       : skipped ? "ok, partly checked"
			 : "ok",
	       c->device ? c->device : "no device", c->seconds);
	for (int i = 0; i < c->nitems; i++)
		printf("  %-10s %-4s %s\n", c->items[i].name,
		       check_status_name(c->items[i].status),
		       c->items[i].detail);
	for (int i = 0; i < c->nmutants; i++) {
		const struct check_mutant *m = &c->mutants[i];
		if (strcmp(m->outcome, "too_weak") == 0)
			printf("    mutant %-9s on '%s': too weak\n", m->kind,
			       m->arg);
	}
	for (size_t i = 0; i < c->rule_notes.n; i++)
		printf("    note: %s\n", c->rule_notes.v[i]);
	fflush(stdout);
}

static cJSON *task_json(const struct task_check *c)
{
	cJSON *o = cJSON_CreateObject(), *items = cJSON_CreateArray();
	cJSON *mut = cJSON_CreateArray(), *gen = cJSON_CreateArray();
	cJSON *notes = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "task", c->task_id);
	cJSON_AddStringToObject(o, "status", c->failed ? "fail" : "ok");
	if (c->device)
		cJSON_AddStringToObject(o, "device", c->device);
	else
		cJSON_AddNullToObject(o, "device");
	cJSON_AddNumberToObject(o, "seconds", c->seconds);
	for (int i = 0; i < c->nitems; i++) {
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "check", c->items[i].name);
		cJSON_AddStringToObject(it, "status",
					c->items[i].status == CHECK_OK ? "ok"
					: c->items[i].status == CHECK_FAIL
						? "fail"
						: "skip");
		cJSON_AddStringToObject(it, "detail", c->items[i].detail);
		cJSON_AddItemToArray(items, it);
	}
	cJSON_AddItemToObject(o, "checks", items);
	for (int i = 0; i < c->nmutants; i++) {
		const struct check_mutant *m = &c->mutants[i];
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "output", m->arg);
		cJSON_AddStringToObject(it, "mutant", m->kind);
		cJSON_AddStringToObject(it, "outcome", m->outcome);
		if (m->where)
			cJSON_AddStringToObject(it, "caught_in", m->where);
		if (m->detail)
			cJSON_AddStringToObject(it, "finding", m->detail);
		cJSON_AddItemToArray(mut, it);
	}
	cJSON_AddItemToObject(o, "mutants", mut);
	for (int i = 0; i < c->ngenerated; i++) {
		cJSON *it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "id", c->generated[i].id);
		cJSON_AddStringToObject(it, "rule", c->generated[i].rule);
		cJSON_AddStringToObject(it, "params", c->generated[i].params);
		cJSON_AddItemToArray(gen, it);
	}
	cJSON_AddItemToObject(o, "generated_cases", gen);
	for (size_t i = 0; i < c->rule_notes.n; i++)
		cJSON_AddItemToArray(notes,
				     cJSON_CreateString(c->rule_notes.v[i]));
	cJSON_AddItemToObject(o, "rule_notes", notes);
	if (c->fraction > 0) {
		cJSON *d = cJSON_CreateObject(), *cs = cJSON_CreateArray();
		cJSON_AddStringToObject(d, "device", c->measured.device);
		cJSON_AddNumberToObject(d, "fraction", c->fraction);
		for (int i = 0; i < c->measured.ncases; i++) {
			const struct task_measured_case *mc =
				&c->measured.cases[i];
			cJSON *it = cJSON_CreateObject();
			cJSON_AddStringToObject(it, "id", mc->id);
			cJSON_AddNumberToObject(it, "base_ms", mc->base_ms);
			cJSON_AddNumberToObject(it, "roofline_ms",
						mc->roofline_ms);
			cJSON_AddItemToArray(cs, it);
		}
		cJSON_AddItemToObject(d, "cases", cs);
		cJSON_AddItemToObject(o, "difficulty", d);
	} else {
		cJSON_AddNullToObject(o, "difficulty");
	}
	return o;
}

/* Every suite must load (its members resolve); failures are counted and
 * said, in words or into arr. */
static int check_suites(const char *root, bool json, cJSON *arr)
{
	struct strvec names = STRVEC_INIT;
	struct errbuf err;
	int bad = 0;

	errbuf_init(&err);
	if (task_suite_list(root, &names, &err) != 0) {
		cli_fail("%s", errbuf_str(&err));
		return 1;
	}
	for (size_t i = 0; i < names.n; i++) {
		struct task_suite s;
		errbuf_init(&err);
		int rc = task_suite_load(root, names.v[i], &s, &err);
		bad += rc != 0;
		if (json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "suite", names.v[i]);
			cJSON_AddStringToObject(o, "status",
						rc ? "fail" : "ok");
			if (rc)
				cJSON_AddStringToObject(o, "detail",
							errbuf_str(&err));
			else
				cJSON_AddNumberToObject(o, "tasks",
							(double)s.ids.n);
			cJSON_AddItemToArray(arr, o);
		} else if (rc) {
			printf("suite:%s: FAIL %s\n", names.v[i],
			       errbuf_str(&err));
		} else {
			printf("suite:%s: ok (%zu tasks)\n", names.v[i],
			       s.ids.n);
		}
		task_suite_release(&s);
	}
	strvec_release(&names);
	return bad;
}

static int parse_args(int argc, char **argv, struct check_options *o,
		      bool *json, struct strvec *sels)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int64_t v;
		if (!strcmp(a, "--json"))
			*json = true;
		else if (!strcmp(a, "--static"))
			o->static_only = true;
		else if (!strcmp(a, "--aa-quick"))
			o->aa_quick = true;
		else if (!strcmp(a, "--no-aa"))
			o->no_aa = true;
		else if (!strcmp(a, "--record"))
			o->record = true;
		else if (!strcmp(a, "--progress"))
			o->progress = stderr;
		else if (!strcmp(a, "--device") && i + 1 < argc)
			o->device = argv[++i];
		else if (!strcmp(a, "--case-budget") && i + 1 < argc) {
			char *end;
			o->case_budget_s = strtod(argv[++i], &end);
			if (*end ||
			    !(o->case_budget_s > 0 && o->case_budget_s <= 3600))
				return cli_usage_error(
					"check-tasks",
					"--case-budget needs seconds "
					"(0 to 3600), got '%s'",
					argv[i]);
		} else if (!strcmp(a, "--seeds") && i + 1 < argc) {
			if (parse_i64(argv[++i], &v) || v < 1 || v > 100)
				return cli_usage_error(
					"check-tasks",
					"--seeds needs 1 to 100, not "
					"'%s'",
					argv[i]);
			o->seeds = (int)v;
		} else if (!strcmp(a, "--seed") && i + 1 < argc) {
			if (parse_i64(argv[++i], &v) || v < 0)
				return cli_usage_error(
					"check-tasks",
					"--seed needs a non-negative "
					"integer, not '%s'",
					argv[i]);
			o->has_seed = true;
			o->seed = (uint64_t)v;
		} else if (a[0] != '-')
			strvec_push(sels, a);
		else {
			return cli_usage_error("check-tasks",
					       "unknown option '%s'", a);
		}
	}
	return 0;
}

int cmd_check_tasks(struct cli *c, int argc, char **argv)
{
	struct check_options o = { 0 };
	struct strvec sels = STRVEC_INIT, ids = STRVEC_INIT;
	bool json = false, all;
	struct engine *e;
	struct errbuf err;
	int rc, failed = 0, partial = 0;

	if ((rc = parse_args(argc, argv, &o, &json, &sels)) != 0) {
		strvec_release(&sels);
		return rc;
	}
	if (sels.n == 0)
		strvec_push(&sels, "all");
	all = sels.n == 1 && !strcmp(sels.v[0], "all");
	if (cli_open(c, &e)) {
		strvec_release(&sels);
		return 1;
	}
	for (size_t i = 0; i < sels.n; i++) {
		struct strvec some = STRVEC_INIT;
		errbuf_init(&err);
		if (task_select(engine_tasks_root(e), sels.v[i], &some, &err)) {
			cli_fail("%s", errbuf_str(&err));
			strvec_release(&some);
			strvec_release(&sels);
			strvec_release(&ids);
			engine_close(e);
			return 1;
		}
		for (size_t j = 0; j < some.n; j++)
			if (!strvec_contains(&ids, some.v[j]))
				strvec_push(&ids, some.v[j]);
		strvec_release(&some);
	}
	cJSON *doc = cJSON_CreateObject(), *tasks = cJSON_CreateArray();
	cJSON *suites = cJSON_CreateArray();
	for (size_t i = 0; i < ids.n; i++) {
		struct task_check tc;
		errbuf_init(&err);
		if (engine_check_task(e, ids.v[i], &o, &tc, &err) != 0) {
			cli_fail("%s: %s", ids.v[i], errbuf_str(&err));
			failed++;
			continue;
		}
		failed += tc.failed;
		partial += !tc.failed && !tc.device;
		if (json)
			cJSON_AddItemToArray(tasks, task_json(&tc));
		else
			print_task(&tc);
		task_check_release(&tc);
	}
	int bad_suites = all ? check_suites(engine_tasks_root(e), json, suites)
			     : 0;
	if (json) {
		cJSON_AddItemToObject(doc, "tasks", tasks);
		cJSON_AddItemToObject(doc, "suites", suites);
		cJSON_AddNumberToObject(doc, "failed", failed + bad_suites);
		char *s = cJSON_Print(doc);
		puts(s);
		free(s);
	} else {
		printf("check-tasks: %zu task%s, %d failed, %d without their "
		       "device (static checks only)%s\n",
		       ids.n, ids.n == 1 ? "" : "s", failed, partial,
		       bad_suites ? ", and a suite failed" : "");
		cJSON_Delete(tasks);
		cJSON_Delete(suites);
		tasks = suites = NULL;
	}
	cJSON_Delete(doc);
	strvec_release(&sels);
	strvec_release(&ids);
	engine_close(e);
	return failed || bad_suites ? 1 : 0;
}

/*
 * main.c - the `arena` binary: global options, agent registration and
 * dispatch to subcommands.  Every subcommand is a thin front end on
 * engine/; nothing here computes a result.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents.h"
#include "arena/eval.h"
#include "cli.h"

#define ARENA_VERSION "0.1.0"

static void usage(FILE *f)
{
	fputs("usage: arena [--store DIR] [--tasks-dir DIR] COMMAND [ARGS]\n"
	      "\n"
	      "  tasks [SELECTOR]                 list tasks (family, language,"
	      " cases)\n"
	      "  run CONFIG [--run-suffix NAME] [--gpus 0,1,...]\n"
	      "                                   create and execute a run\n"
	      "  resume RUN | --latest [--gpus 0,1,...]\n"
	      "                                   finish an interrupted run\n"
	      "  status [RUN]                     runs, or one run's progress\n"
	      "  eval TASK --workspace DIR        evaluate a directory; prints"
	      " task_result.yaml\n"
	      "  report RUN                       rewrite and print a run's "
	      "report\n"
	      "  cancel RUN                       stop a run after its current"
	      " step\n"
	      "  worker RUN [--index K] [--gpu N] one more worker on a run "
	      "(leases keep workers\n"
	      "                                   apart; --index: one attempt)"
	      "\n"
	      "  slurm CONFIG|RUN [--partition P] [--time MIN]\n"
	      "                                   run it as a Slurm job array,"
	      " one attempt per element\n"
	      "  compare A B | RUN [--json]       is B better than A? runs or "
	      "RUN:CONFIG; effects\n"
	      "                                   with intervals, per-task "
	      "verdicts (FDR)\n"
	      "  plan [SELECTOR...] [--noise RUN] [--past RUN]\n"
	      "                                   tasks and repeats an A/B "
	      "comparison needs\n"
	      "  mount MOUNTPOINT [--foreground]  the store as a filesystem "
	      "(fusermount3 -u to stop)\n"
	      "  doctor                           devices, compilers, peaks, "
	      "sandbox\n"
	      "  check-agents [--all|--agents a,b] agent CLIs: installed, "
	      "version, auth\n"
	      "  mcp                              stdio MCP server: the "
	      "evaluator as a tool\n"
	      "  export RUN --format jsonl        one episode per task, for RL"
	      "\n"
	      "  version                          print the version\n"
	      "\n"
	      "The store defaults to $ARENA_STORE or ./arena-data; tasks to "
	      "$ARENA_TASKS_DIR\nor the tasks/ shipped with arena.\n", f);
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int i;

	agents_register_builtin();
	c.store_dir = getenv("ARENA_STORE") ? getenv("ARENA_STORE")
					     : "arena-data";
	c.tasks_dir = getenv("ARENA_TASKS_DIR");
	c.tty = isatty(1);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--store") && i + 1 < argc)
			c.store_dir = argv[++i];
		else if (!strcmp(argv[i], "--tasks-dir") && i + 1 < argc)
			c.tasks_dir = argv[++i];
		else
			break;
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[i];
	int sub_argc = argc - i;
	char **sub_argv = argv + i;
	static const struct {
		const char *name;
		int (*fn)(struct cli *, int, char **);
	} cmds[] = {
		{ "tasks", cmd_tasks }, { "eval", cmd_eval },
		{ "run", cmd_run }, { "resume", cmd_resume },
		{ "status", cmd_status }, { "report", cmd_report },
		{ "cancel", cmd_cancel }, { "compare", cmd_compare },
		{ "plan", cmd_plan },
		{ "mcp", cmd_mcp }, { "check-agents", cmd_check_agents },
		{ "export", cmd_export }, { "mount", cmd_mount },
		{ "doctor", cmd_doctor }, { "worker", cmd_worker },
		{ "slurm", cmd_slurm },
	};
	for (size_t k = 0; k < ARRAY_SIZE(cmds); k++)
		if (!strcmp(cmd, cmds[k].name))
			return cmds[k].fn(&c, sub_argc, sub_argv);
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("arena %s (%s)\n", ARENA_VERSION,
		       ARENA_EVALUATOR_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return cli_fail("unknown command '%s'", cmd) + 1;
}

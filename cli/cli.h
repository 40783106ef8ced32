/*
 * cli.h - shared pieces of the `arena` command line: global options and the
 * subcommand entry points (one file per group of subcommands).
 */
#ifndef ARENA_CLI_H
#define ARENA_CLI_H

#include <stdbool.h>
#include "arena/engine.h"

struct cli {
	const char *store_dir;	/* --store, $ARENA_STORE, ./arena-data */
	const char *tasks_dir;	/* --tasks-dir, $ARENA_TASKS_DIR, default */
	bool tty;		/* stdout is a terminal */
};

/* Prints "arena: <msg>" to stderr; returns exit status 1. */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens the engine from the global options or prints why not. */
int cli_open(const struct cli *c, struct engine **e);
/* An engine_observer's event: one line "HH:MM:SSZ kind task message". */
void cli_print_event(void *ctx, const char *run_id, const char *task_id,
		     const char *kind, const char *message);

int cmd_tasks(struct cli *c, int argc, char **argv);
int cmd_eval(struct cli *c, int argc, char **argv);
int cmd_run(struct cli *c, int argc, char **argv);
int cmd_resume(struct cli *c, int argc, char **argv);
int cmd_status(struct cli *c, int argc, char **argv);
int cmd_report(struct cli *c, int argc, char **argv);
int cmd_cancel(struct cli *c, int argc, char **argv);
int cmd_compare(struct cli *c, int argc, char **argv);
int cmd_plan(struct cli *c, int argc, char **argv);
int cmd_mount(struct cli *c, int argc, char **argv);
int cmd_mcp(struct cli *c, int argc, char **argv);
int cmd_check_agents(struct cli *c, int argc, char **argv);
int cmd_export(struct cli *c, int argc, char **argv);
int cmd_doctor(struct cli *c, int argc, char **argv);
int cmd_worker(struct cli *c, int argc, char **argv);
int cmd_slurm(struct cli *c, int argc, char **argv);

#endif /* ARENA_CLI_H */

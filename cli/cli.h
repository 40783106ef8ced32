/*
 * cli.h - shared pieces of the `arena` command line: global options and the
 * subcommand entry points (one file per group of subcommands).
 */
#ifndef ARENA_CLI_H
#define ARENA_CLI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "arena/engine.h"

#define ARENA_VERSION "0.1.0"

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

/* One subcommand and its help (commands.c holds the table; help.c the
 * convention every subcommand follows: --help answered before it runs,
 * usage errors exit 2).  synopsis: one usage a line, each starting with
 * "arena"; options: "OPTION\tMEANING" lines, a meaning continued on
 * lines that start with a tab; examples: one command a line. */
struct cli_command {
	const char *name;
	int (*fn)(struct cli *c, int argc, char **argv);
	const char *synopsis;
	const char *summary; /* one line, for the command list */
	const char *description;
	const char *options; /* NULL: none */
	const char *examples;
};
extern const struct cli_command cli_commands[]; /* ends with name NULL */

/* The command called name, or NULL. */
const struct cli_command *cli_command_find(const char *name);
/* True when argv[1..] holds --help or -h (before a "--"). */
bool cli_wants_help(int argc, char **argv);
/* Prints the command's usage, description, options and examples to f;
 * returns 0, the exit status of `arena COMMAND --help`. */
int cli_help(const struct cli_command *k, FILE *f);
/* A usage error: the command's usage and "arena: <msg>" on stderr;
 * returns 2, the exit status of every usage error. */
int cli_usage_error(const char *command, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int cli_usage_verror(const char *command, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* The list of commands (`arena help`, `arena` alone on stderr). */
void cli_usage(FILE *f);
/* The man page in roff: arena(1) with every command when only is NULL,
 * else arena-<only>(1). */
void cli_man(struct strbuf *sb, const struct cli_command *only);

/* The observer of a run's execution (progress.c): plain event lines when
 * tty is false; on a terminal the same lines and a status line (attempts
 * done, elapsed, ETA, what runs now).  Fills *obs; stop it after the
 * execution returns. */
struct cli_progress;
struct cli_progress *cli_progress_start(struct engine *e, const char *run_id,
					bool tty, struct engine_observer *obs);
void cli_progress_stop(struct cli_progress *p);

#define CLI_MAX_GPUS 64

/* "--gpus 0,1,3": device indices as the runtime counts them (after
 * CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), each once.  A malformed
 * list is a usage error of cmd (returns 2). */
int cli_parse_gpus(const char *cmd, const char *list, int *gpus, int *n);

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
int cmd_help(struct cli *c, int argc, char **argv);
int cmd_version(struct cli *c, int argc, char **argv);
int cmd_check_tasks(struct cli *c, int argc, char **argv);
int cmd_serve(struct cli *c, int argc, char **argv);

#endif /* ARENA_CLI_H */

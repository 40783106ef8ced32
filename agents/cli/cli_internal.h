/*
 * cli_internal.h - what the files of agents/cli share besides their
 * public header (cli_agent.h): private to agents/cli.
 *
 *   cli_agent.c     the launch, step by step (its opening comment)
 *   cli_settings.c  settings (agent_config.yaml, the run's agent section)
 *                   and locations (the agents' data, the CLI binary, its
 *                   authentication)
 *   cli_output.c    reading a CLI's output: JSON lines into the trace and
 *                   the outcome, and how the CLI ended
 */
#ifndef ARENA_AGENTS_CLI_INTERNAL_H
#define ARENA_AGENTS_CLI_INTERNAL_H

#include "cli_agent.h"

#include "arena/proc.h"

/* ---- cli_settings.c ---------------------------------------------------- */

/* The arena binary agents call ($ARENA_EXE or this program). */
const char *cli_arena_exe(void);
/* The invoking user's real home directory (from the password database). */
const char *cli_real_home(void);

/* ---- cli_output.c ------------------------------------------------------ */

/* One complete stdout line of the CLI: into the trace and the outcome. */
void cli_process_line(struct cli_run *r);
cJSON *cli_argv_json(const struct strvec *argv, size_t from);
/* How the CLI ended, into the outcome: timeout, exit status, or its own
 * error events. */
void cli_classify(struct cli_run *r, const struct proc_spawn_result *res,
	      const char *log_path, long log_offset,
	      struct agent_outcome *out);

#endif /* ARENA_AGENTS_CLI_INTERNAL_H */

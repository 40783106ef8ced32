/*
 * agents.h - the built-in agents (DESIGN.md §8), each an agent_ops table
 * implementing arena/agent.h.  The CLI calls agents_register_builtin() once
 * at start-up; nothing in the engine names an agent.
 */
#ifndef ARENA_AGENTS_H
#define ARENA_AGENTS_H

#include "arena/agent.h"

extern const struct agent_ops agent_noop;
extern const struct agent_ops agent_command;
extern const struct agent_ops agent_replay;
extern const struct agent_ops agent_autotune;

void agents_register_builtin(void);

#endif /* ARENA_AGENTS_H */

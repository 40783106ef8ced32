/*
 * config.h - run configs: the YAML file that describes one experiment.
 *
 * Accepts AgentKernelArena's keys (agent.template, agent.model,
 * agent.effort, agent.timeout_seconds, agent.max_iterations, tasks,
 * target_gpu_model, log_directory, workspace_directory_prefix) and arena's
 * own (device, seed, repeats, timing, agent.command, agent.replay_dir,
 * agent.options).  Everything is validated before anything runs: unknown
 * keys, bad values and task selectors that match nothing are errors that
 * name the file, the field and the fix.  docs/config.md is the reference.
 */
#ifndef ARENA_CONFIG_H
#define ARENA_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/util.h"

#define RUNCONFIG_MAX_BYTES (256 * 1024)

struct timing_budget {
	double case_budget_s;	/* wall budget for timing one case */
	double target_ci;	/* stop when the CI half-width is below this */
	int min_pairs;		/* per block */
	int max_pairs;		/* per case, over all blocks */
	int blocks;		/* fresh runner pairs per case */
	int correctness_trials;	/* fresh input sets per case, >= 3 */
	double runner_timeout_s;	/* deadline for one runner request */
	double compile_timeout_s;
	int compile_memory_mb; /* the candidate compiler's address space;
				 * 0: 4096 (cc), 16384 (nvcc, hipcc) */
};

void timing_budget_defaults(struct timing_budget *t);

struct agent_config {
	char *template_name;	/* "noop", "autotune", "command", ... */
	char *model;		/* optional */
	char *effort;		/* optional */
	int timeout_seconds;	/* 0 = default */
	int max_iterations;	/* 0 = default */
	double max_budget_usd;	/* 0 = none */
	struct strvec command;	/* argv for the `command` agent */
	char *replay_dir;	/* for `replay` */
	/* Limits of one launch of an agent that runs programs (command and
	 * the CLIs): its workspace's disk quota and each process's memory;
	 * 0: the defaults (AGENT_DEFAULT_*). */
	int disk_quota_mb;
	int memory_mb;
	/* Free-form agent options (key=value strings), validated by the agent. */
	struct strvec options;
};

#define AGENT_DEFAULT_DISK_QUOTA_MB 256
#define AGENT_DEFAULT_MEMORY_MB 16384

#define RUNCONFIG_MAX_VARIANTS 8

/* One agent configuration of a run.  A config with `agent:` has one
 * variant named ""; one with `agents:` has 2..8, each named. */
struct agent_variant {
	char *name;
	struct agent_config agent;
};

#define RUNCONFIG_MAX_GPUS 64

struct runconfig {
	char *path;		/* file it came from (or "<runs/new>") */
	char *text;		/* the YAML as given, owned */
	struct agent_config agent;	/* the first (or only) variant's */
	int nvariants;		/* >= 1 */
	struct agent_variant *variants;
	struct strvec selectors;	/* as written */
	struct strvec task_ids;		/* expanded, sorted, unique */
	char *target_gpu_model;	/* optional */
	char *log_directory;	/* AKA's: where the run's log goes */
	char *workspace_directory_prefix; /* AKA's: a link to the workspaces */
	char *device;		/* "auto" | "host" | "cuda:0" ... */
	int gpus[RUNCONFIG_MAX_GPUS];	/* `gpus:` one worker per device */
	int ngpus;		/* 0: one worker on `device` */
	bool has_seed;
	uint64_t seed;
	int repeats;		/* attempts per task, >= 1 */
	struct timing_budget timing;
};

/* Parses and validates text; task selectors are expanded against
 * tasks_root (so a selector that matches nothing fails here).  `source`
 * names the file in messages. */
int runconfig_parse(const char *source, const char *text, size_t len,
		    const char *tasks_root, struct runconfig **out,
		    struct errbuf *err);
int runconfig_load(const char *path, const char *tasks_root,
		   struct runconfig **out, struct errbuf *err);
void runconfig_free(struct runconfig *c);
/* Deep copy and release of one agent configuration. */
void agent_config_copy(struct agent_config *dst,
		       const struct agent_config *src);
void agent_config_release(struct agent_config *a);

#endif /* ARENA_CONFIG_H */

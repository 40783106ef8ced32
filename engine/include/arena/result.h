/*
 * result.h - the verdict of one evaluation (task_result.yaml), its score
 * and reward, and its serialisations.
 *
 * The keys of task_result.yaml start with AgentKernelArena's (aka.md §3.8,
 * same names, same order, same meaning) and continue with arena's own:
 * status, speedup CI, pairs, per-case times, evaluated source hashes, seed,
 * runtime identity and integrity findings.  The JSON form (result_to_json /
 * result_from_json) is what the store keeps; the YAML form is what users
 * and agents read.  docs/results.md documents every key.
 */
#ifndef ARENA_RESULT_H
#define ARENA_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include "arena/util.h"

/* Why an evaluation ended where it did.  Order matters: later stages. */
enum result_status {
	RS_NOT_EVALUATED = 0, /* nothing ran yet */
	RS_COMPILE_ERROR,     /* the candidate did not compile */
	RS_RUNTIME_ERROR,     /* crashed, exited, killed, OOM, returned != 0 */
	RS_TIMEOUT,	      /* a runner missed its deadline */
	RS_INCORRECT,	      /* wrong, unwritten or NaN outputs */
	RS_REJECTED,	      /* integrity finding: input modified, forged
				 * time, work left running, protocol abuse */
	RS_OK,		      /* correct and timed */
	RS_INFRA_ERROR,	      /* baseline/reference/evaluator failed: not
				 * the candidate's fault */
	RS_SKIPPED,	      /* the task cannot run on this machine (an
				 * AgentKernelArena task needing an AMD GPU,
				 * FlyDSL, ...): no verdict, no score */
};

const char *result_status_name(enum result_status s);
int result_status_parse(const char *s, enum result_status *out);

struct case_result {
	char *id;
	bool held_out;
	bool correct;
	char *error;		/* why not correct / not timed, or NULL */
	double max_abs_err;	/* worst |candidate - reference| seen */
	bool timed;
	bool correctness_only;	/* checked, not timed: below the floor */
	char *timing_note;	/* why not timed, or NULL */
	double base_ms;		/* median of baseline samples */
	double cand_ms;		/* median of candidate samples */
	double speedup;		/* median of per-pair ratios */
	double ci_lo, ci_hi;
	int pairs;
	int blocks;
	double roofline_ms; /* one call at the device's measured peaks
				 * (cost / peak, no margin), 0 unknown */
};

/* Where an evaluation's wall time went (eval_phases in task_result.yaml,
 * docs/results.md): each second of eval_seconds is charged to exactly one
 * phase, the innermost one running, so the phases add up to it. */
enum result_phase {
	RPH_SETUP,	  /* device, sandbox plans, scratch, the snapshot */
	RPH_BUILD,	  /* compiling (Python: the bundle and its check) */
	RPH_RUNNER_START, /* starting runners, up to ready (and loaded) */
	RPH_CORRECTNESS,  /* candidate and baseline calls of the trials,
			   * staging, comparing */
	RPH_REFERENCE,	  /* calls of the reference runner */
	RPH_LOCK_WAIT,	  /* waiting for another evaluation's device lock,
			   * or for device memory it holds */
	RPH_PEAKS,	  /* measuring the device's peaks (roofline) */
	RPH_TIMING,	  /* the timing phase's own work */
	RPH_TEARDOWN,	  /* ending the runners, removing the scratch */
	RESULT_NPHASES
};
extern const char *const result_phase_names[RESULT_NPHASES];

struct source_hash {
	char *path;		/* relative to the workspace */
	char sha256[65];
};

struct task_result {
	/* AgentKernelArena's keys */
	char *task_name;
	bool pass_compilation;
	char *compilation_error_message;
	bool pass_correctness;
	char *correctness_error_message;
	double base_execution_time;		/* ms, mean over timed cases */
	double best_optimized_execution_time;	/* ms, mean over timed cases */
	double speedup_ratio;			/* geomean over visible cases */
	char *benchmark_method; /* e.g. "host_cpu_time_flushed" */
	int valid_baseline_cases;
	int valid_optimized_cases;
	char *speedup_calculation_error_message;
	char *optimization_summary;
	bool candidate_accepted;
	double score;				/* 0 / 20 / 120 + 100 * speedup */

	/* agent_execution (filled by the run, not the evaluator) */
	char *agent_status;	/* "completed" | "failed" | "timeout" |
				 * "not_run" */
	char *agent_error;
	double agent_duration_s;
	int agent_turns;
	int64_t agent_input_tokens;
	int64_t agent_output_tokens;
	int64_t agent_cached_tokens; /* of the input tokens, cached */
	double agent_cost_usd;
	bool agent_cost_known; /* false: the cost is not known (0) */
	int agent_restarts;
	bool agent_sandboxed;	/* the agent ran inside its sandbox */
	char *agent_variant;	/* agent configuration name, "" if one */

	/* arena's own */
	enum result_status status;
	double reward;			/* capped, log-scaled, 0 inside noise */
	double speedup_ci_lo, speedup_ci_hi;
	double speedup_arith_mean;	/* AgentKernelArena's aggregation */
	double noise_floor;		/* relative, e.g. 0.01 */
	int pairs;			/* over all visible cases */
	int ncases;
	struct case_result *cases;	/* visible then held-out */
	bool held_out_evaluated;
	bool held_out_correct;
	double held_out_speedup;	/* geomean over held-out cases, 0 if
					 * not timed */
	int nsources;
	struct source_hash *sources;
	char sources_hash[65];		/* over (path, sha) pairs */
	uint64_t seed;
	char *device;
	char *host;
	char *compiler;
	char *evaluator_version;
	char *evaluated_at;		/* ISO 8601 UTC */
	double eval_seconds;
	double phase_s[RESULT_NPHASES]; /* seconds per result_phase; all
					 * 0 when not measured */
	bool sandboxed;
	struct strvec integrity;	/* findings, one sentence each */
	struct strvec defines;		/* -D values the candidate was built with */
};

void result_init(struct task_result *r);
void result_release(struct task_result *r);
/* Deep copy. */
void result_copy(struct task_result *dst, const struct task_result *src);
struct case_result *result_add_case(struct task_result *r, const char *id,
				    bool held_out);
void result_add_source(struct task_result *r, const char *path,
		       const char sha256[65]);
/* Recomputes sources_hash from sources[] (sorted by path). */
void result_hash_sources(struct task_result *r);

/* Fills score and reward from the other fields (AgentKernelArena's default
 * score; the reward is docs/results.md's capped log-scaled formula, 0 when
 * the speedup's interval lies inside [1 - noise_floor, 1 + noise_floor]). */
void result_score(struct task_result *r);
double score_aka(bool compiled, bool correct, double speedup);
/* The "compiled" and "correct" that the score, the reward and the reports
 * use: the flags, overridden by a failing status (runtime_error, timeout,
 * incorrect and rejected are not correct; rejected counts as compiled),
 * and correct also requires candidate_accepted. */
bool result_compiled(const struct task_result *r);
bool result_correct(const struct task_result *r);
/* Correct and timed (a finite positive speedup): what every speedup
 * statistic of a report counts. */
bool result_timed(const struct task_result *r);
double reward_capped_log(bool compiled, bool correct, double speedup,
			 double ci_lo, double ci_hi, double noise_floor);

/* YAML rendering of task_result.yaml (caller frees; NULL only if libyaml
 * fails internally). */
char *result_to_yaml(const struct task_result *r);
/* The single line `cat score` prints: the score with 4 decimals. */
char *result_score_line(const struct task_result *r);
/* JSON (caller frees) and back.  result_from_json initialises *r itself
 * (previous content is not freed) and on error leaves it empty, so
 * result_release is always safe; keys absent from the JSON keep
 * result_init's defaults, a key of the wrong type is an error (err may be
 * NULL).  Non-finite numbers are written as null and read back as NaN. */
char *result_to_json(const struct task_result *r);
int result_from_json(const char *json, struct task_result *r,
		     struct errbuf *err);

/* The short summary of a result that agents, traces and exported
 * episodes show, added to the cJSON object o in this order: status,
 * compiled, correct (result_compiled / result_correct, as the score
 * counts them), speedup, speedup_ci_lo, speedup_ci_hi; with
 * RESULT_SUMMARY_HELD_OUT noise_floor, held_out_evaluated,
 * held_out_correct, held_out_speedup; score; with RESULT_SUMMARY_REWARD
 * reward and sources_hash; with RESULT_SUMMARY_IDENTITY device and
 * evaluator_version (when known) and sandboxed.  (result/summary.c) */
#define RESULT_SUMMARY_HELD_OUT 1u
#define RESULT_SUMMARY_REWARD 2u
#define RESULT_SUMMARY_IDENTITY 4u
struct cJSON;
void result_summary_add(struct cJSON *o, const struct task_result *r,
			unsigned what);
/* Why a result is what it is, in the evaluator's own message: the
 * correctness check's, else the compiler's, else the timing's where the
 * verdict was given while timing (which keeps the speedup measured so
 * far) or nothing was timed (every case below the timing floor); NULL
 * for a timed result with nothing to say.  (result/summary.c) */
const char *result_why(const struct task_result *r);

/* A copy of s (caller frees; NULL for NULL) in which every byte that does
 * not start a valid UTF-8 sequence is replaced by U+FFFD.  Both renderings
 * above and the reports pass agent-influenced text through it. */
char *result_utf8_sanitize(const char *s);

#endif /* ARENA_RESULT_H */

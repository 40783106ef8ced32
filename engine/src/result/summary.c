/*
 * summary.c - the short summary of a result (arena/result.h:
 * result_summary_add), the one rendering that the MCP tool, agent traces
 * and exported episodes share, so that "correct" means the same thing
 * wherever an agent or a training pipeline reads it: what the score
 * counts (result_correct), not the correctness phase's flag alone; and
 * the one message that says why (result_why), for the run's events and
 * the traces alike.
 */
#include "arena/result.h"

#include <cJSON.h>

const char *result_why(const struct task_result *r)
{
	if (r->correctness_error_message)
		return r->correctness_error_message;
	if (r->compilation_error_message)
		return r->compilation_error_message;
	if (r->speedup_ratio <= 0 || r->status != RS_OK)
		return r->speedup_calculation_error_message;
	return NULL;
}

void result_summary_add(cJSON *o, const struct task_result *r, unsigned what)
{
	cJSON_AddStringToObject(o, "status", result_status_name(r->status));
	cJSON_AddBoolToObject(o, "compiled", result_compiled(r));
	cJSON_AddBoolToObject(o, "correct", result_correct(r));
	cJSON_AddNumberToObject(o, "speedup", r->speedup_ratio);
	cJSON_AddNumberToObject(o, "speedup_ci_lo", r->speedup_ci_lo);
	cJSON_AddNumberToObject(o, "speedup_ci_hi", r->speedup_ci_hi);
	if (what & RESULT_SUMMARY_HELD_OUT) {
		cJSON_AddNumberToObject(o, "noise_floor", r->noise_floor);
		cJSON_AddBoolToObject(o, "held_out_evaluated",
				      r->held_out_evaluated);
		cJSON_AddBoolToObject(o, "held_out_correct",
				      r->held_out_correct);
		cJSON_AddNumberToObject(o, "held_out_speedup",
					r->held_out_speedup);
	}
	cJSON_AddNumberToObject(o, "score", r->score);
	if (what & RESULT_SUMMARY_REWARD) {
		cJSON_AddNumberToObject(o, "reward", r->reward);
		cJSON_AddStringToObject(o, "sources_hash", r->sources_hash);
	}
	if (what & RESULT_SUMMARY_IDENTITY) {
		if (r->device)
			cJSON_AddStringToObject(o, "device", r->device);
		if (r->evaluator_version)
			cJSON_AddStringToObject(o, "evaluator_version",
						r->evaluator_version);
		cJSON_AddBoolToObject(o, "sandboxed", r->sandboxed);
	}
}

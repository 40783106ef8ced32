/*
 * eval_check.h - what the evaluation tests (test_eval.c, test_gpu_eval.c,
 * test_python_eval.c, ...) do alike with an evaluation: run it (eval_run
 * must succeed), print one summary of what it decided and why, assert its
 * verdict and a phrase of its stated reason, and read its trace.  Include
 * after <cmocka.h>.
 */
#ifndef ARENA_TEST_EVAL_CHECK_H
#define ARENA_TEST_EVAL_CHECK_H

#include <stdio.h>
#include <string.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/util.h"

static const char *or_dash(const char *s)
{
	return s ? s : "-";
}

/* The last evaluation's log directory, where a caller keeps one ("" when
 * none): a failed expectation prints its trace's marks, so that a verdict
 * that came out otherwise under a CI machine's load says why. */
static char eval_check_logs[4096];

/* The marks (the lines starting with "# ") of <eval_check_logs>/timing.tsv,
 * on stderr, at most 400 of them. */
static void eval_check_print_trace(void)
{
	char path[4200], line[2048];
	FILE *f;
	int n = 0;

	if (!eval_check_logs[0])
		return;
	snprintf(path, sizeof(path), "%s/timing.tsv", eval_check_logs);
	if (!(f = fopen(path, "r")))
		return;
	fprintf(stderr, "  its trace's marks (%s):\n", path);
	while (n < 400 && fgets(line, sizeof(line), f))
		if (strncmp(line, "# ", 2) == 0 && ++n)
			fprintf(stderr, "    %s", line);
	fclose(f);
}

/* Runs req into res (initialised here) and prints what it decided. */
static void eval_checked(const struct eval_request *req, const char *label,
			 struct task_result *res)
{
	struct errbuf err;
	uint64_t t0 = now_ns();

	errbuf_init(&err);
	result_init(res);
	int rc = eval_run(req, res, &err);
	if (rc != 0)
		fprintf(stderr, "eval_run failed: %s\n", errbuf_str(&err));
	assert_int_equal(rc, 0);
	fprintf(stderr,
		"  %s: status %s, speedup %.3f [%.3f, %.3f], pairs %d, %.2f s\n"
		"    device: %s\n    method: %s\n    compile: %s\n"
		"    correctness: %s\n    timing: %s\n",
		label, result_status_name(res->status), res->speedup_ratio,
		res->speedup_ci_lo, res->speedup_ci_hi, res->pairs,
		(double)(now_ns() - t0) / 1e9, or_dash(res->device),
		or_dash(res->benchmark_method),
		or_dash(res->compilation_error_message),
		or_dash(res->correctness_error_message),
		or_dash(res->speedup_calculation_error_message));
	/* Where its time went (eval_phases), and that the phases add up to
	 * the whole: each is charged exclusively, rounded to 1 ms. */
	double sum = 0;
	fprintf(stderr, "    phases:");
	for (int i = 0; i < RESULT_NPHASES; i++) {
		fprintf(stderr, " %s %.3f", result_phase_names[i],
			res->phase_s[i]);
		sum += res->phase_s[i];
	}
	fprintf(stderr, "\n");
	assert_true(sum <= res->eval_seconds + 0.01 &&
		    sum >= res->eval_seconds - 0.01);
}

/* Asserts the status, that the stated reason mentions phrase or, when
 * `other` is not NULL, other (phrase NULL or "": anything), and that
 * only an ok candidate is accepted. */
static void expect_either(const struct task_result *res, enum result_status st,
			  const char *phrase, const char *other)
{
	struct strbuf all = STRBUF_INIT;

	strbuf_addf(&all, "%s | %s | %s",
		    res->compilation_error_message
			    ? res->compilation_error_message : "",
		    res->correctness_error_message
			    ? res->correctness_error_message : "",
		    res->speedup_calculation_error_message
			    ? res->speedup_calculation_error_message : "");
	bool named = !phrase || strstr(all.buf, phrase) ||
		     (other && strstr(all.buf, other));
	if (res->status != st || !named) {
		fprintf(stderr,
			"expected %s mentioning \"%s\"%s%s%s, got %s: %s\n",
			result_status_name(st), phrase ? phrase : "",
			other ? " or \"" : "", other ? other : "",
			other ? "\"" : "", result_status_name(res->status),
			all.buf);
		eval_check_print_trace();
	}
	assert_int_equal(res->status, st);
	assert_true(named);
	assert_false(st != RS_OK && res->candidate_accepted);
	strbuf_release(&all);
}

static void expect(const struct task_result *res, enum result_status st,
		   const char *phrase)
{
	expect_either(res, st, phrase, NULL);
}

/* Of <dir>/timing.tsv's timed pairs, how many ran from batches captured
 * before their inputs existed (its graph column, the one before the
 * last, checked: 1) and how many were launched live. */
static inline void eval_check_graph_pairs(const char *dir, int *captured,
					  int *live)
{
	char *path = path_join(dir, "timing.tsv"), line[4096];
	FILE *f = fopen(path, "r");

	free(path);
	*captured = *live = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *kind = strchr(line, '\t');
		kind = kind ? strchr(kind + 1, '\t') : NULL;
		char *last = strrchr(line, '\t');
		if (!kind || !last || strncmp(kind + 1, "timed\t", 6) != 0)
			continue;
		*last = '\0';
		last = strrchr(line, '\t');
		if (last && atoi(last + 1) == 1)
			(*captured)++;
		else
			(*live)++;
	}
	fclose(f);
}

#endif /* ARENA_TEST_EVAL_CHECK_H */

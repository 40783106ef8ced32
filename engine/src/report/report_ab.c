/*
 * report_ab.c - a run's own A/B comparisons (report_ab.h).
 *
 * The configurations are taken in the order their rows first appear: rows
 * come in run order (task, then attempt number), and attempt numbers
 * count the (repeat, configuration) slots in config order, so the first
 * configuration seen is the config's first, the control.  Every attempt
 * of the control and of the compared configuration with a verdict is one
 * observation; tasks are indexed in order of first appearance.
 */
#include "report_ab.h"

#include <stdlib.h>
#include <string.h>

static const char *row_variant(const struct report_row *row)
{
	return row->variant && *row->variant ? row->variant : NULL;
}

static int index_of(const char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return i;
	return -1;
}

void report_ab_build(struct report_ab *ab, const struct report_row *rows,
		     int n, const char *run_id)
{
	const char **names = xcalloc((size_t)n + 1, sizeof(*names));
	int *task_of = xcalloc((size_t)n + 1, sizeof(int));
	int *var_of = xcalloc((size_t)n + 1, sizeof(int));
	struct ab_obs *obs = xcalloc((size_t)n + 1, sizeof(*obs));
	int nvar = 0;

	memset(ab, 0, sizeof(*ab));
	ab->task_ids = xcalloc((size_t)n + 1, sizeof(*ab->task_ids));
	for (int i = 0; i < n; i++) {
		const char *v = row_variant(&rows[i]);
		/* Rows come task by task: the last task is the usual hit. */
		int t = ab->ntasks &&
				!strcmp(ab->task_ids[ab->ntasks - 1],
					rows[i].task_id)
			? ab->ntasks - 1
			: index_of(ab->task_ids, ab->ntasks, rows[i].task_id);

		if (t < 0) {
			t = ab->ntasks++;
			ab->task_ids[t] = rows[i].task_id;
		}
		task_of[i] = t;
		var_of[i] = -1;
		if (!v)
			continue;
		var_of[i] = index_of(names, nvar, v);
		if (var_of[i] < 0) {
			var_of[i] = nvar;
			names[nvar++] = v;
		}
	}
	if (nvar >= 2) {
		ab->ncmp = nvar - 1;
		ab->cmp = xcalloc((size_t)ab->ncmp, sizeof(*ab->cmp));
	}
	for (int k = 0; k < ab->ncmp; k++) {
		struct ab_options opt;
		int nobs = 0;

		for (int i = 0; i < n; i++) {
			int arm = var_of[i] == 0 ? AB_A
				  : var_of[i] == k + 1 ? AB_B : -1;

			if (arm >= 0 && ab_obs_from_result(rows[i].result,
							   task_of[i], arm,
							   &obs[nobs]))
				nobs++;
		}
		ab_options_init(&opt);
		opt.label_a = names[0];
		opt.label_b = names[k + 1];
		opt.seed = hash64_str(hash64_str(hash64_str(0x72657074,
							    run_id ? run_id
								   : ""),
						 names[0]),
				      names[k + 1]);
		/* The indices are built above; only sizes beyond abtest's
		 * caps (100000 tasks, 10^7 attempts) are refused, and then
		 * the comparison stays empty: no headline, no effects. */
		ab_analyze(obs, nobs, ab->ntasks, &opt, &ab->cmp[k], NULL);
	}
	free(names);
	free(task_of);
	free(var_of);
	free(obs);
}

void report_ab_release(struct report_ab *ab)
{
	for (int k = 0; k < ab->ncmp; k++)
		ab_result_release(&ab->cmp[k]);
	free(ab->cmp);
	free(ab->task_ids);
	memset(ab, 0, sizeof(*ab));
}

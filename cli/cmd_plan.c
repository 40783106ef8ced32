/*
 * cmd_plan.c - `arena plan`: before an A/B experiment, how many tasks and
 * repeats detect a given effect with a given power (engine/src/plan.c does
 * the arithmetic; docs/statistics.md §9 the model).  Selectors (or a run
 * config) give the tasks; --noise names an A/A run for the timing noise,
 * --past the runs of the agent whose spread between attempts, pass rates
 * and (with two configurations) spread of effects are measured; options
 * override any component.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/config.h"
#include "arena/plan.h"
#include "arena/task.h"
#include "cli.h"

#define PLAN_MAX_PAST 16

/* A usage error: the usage, then why, on stderr; exit status 2. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = cli_usage_verror("plan", fmt, ap);
	va_end(ap);
	return rc;
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_repeats(const char *s, struct plan_inputs *in)
{
	char *copy = xstrdup(s), *p = copy, *comma;
	int n = 0;

	for (;; p = comma + 1) {
		char *end;
		long k;

		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		errno = 0;
		k = strtol(p, &end, 10);
		if (errno || !*p || *end || k < 1 || k > 100 ||
		    n == PLAN_MAX_REPEATS) {
			free(copy);
			return false;
		}
		in->repeats[n++] = (int)k;
		if (!comma)
			break;
	}
	in->nrepeats = n;
	free(copy);
	return true;
}

static void add_repeats(struct plan_inputs *in, int k)
{
	for (int i = 0; i < in->nrepeats; i++)
		if (in->repeats[i] == k)
			return;
	if (in->nrepeats < PLAN_MAX_REPEATS)
		in->repeats[in->nrepeats++] = k;
}

static void push_unique(struct strvec *sv, const char *s)
{
	if (!strvec_contains(sv, s))
		strvec_push(sv, s);
}

/* Options read before the engine is open. */
struct plan_args {
	struct strvec selectors;
	const char *config, *noise;
	const char *past[PLAN_MAX_PAST];
	int npast;
	bool json;
	const char *repeats;
	double effect, pass_effect, alpha, power;
	double timing_sd, agent_sd, effect_sd, pass_rate, pass_effect_sd;
};

static int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct {
		const char *name;
		double lo, hi;
		size_t off;
	} nums[] = {
		{ "--effect", 1e-3, 1e3, offsetof(struct plan_args, effect) },
		{ "--pass-effect", 1e-3, 100,
		  offsetof(struct plan_args, pass_effect) },
		{ "--alpha", 1e-6, 0.499, offsetof(struct plan_args, alpha) },
		{ "--power", 0.501, 0.9999, offsetof(struct plan_args, power) },
		{ "--timing-sd", 0, 10, offsetof(struct plan_args, timing_sd) },
		{ "--agent-sd", 0, 10, offsetof(struct plan_args, agent_sd) },
		{ "--effect-sd", 0, 10, offsetof(struct plan_args, effect_sd) },
		{ "--pass-rate", 0, 1, offsetof(struct plan_args, pass_rate) },
		{ "--pass-effect-sd", 0, 1,
		  offsetof(struct plan_args, pass_effect_sd) },
	};

	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		bool known = false;

		if (!strcmp(o, "--json")) {
			a->json = true;
			continue;
		}
		if (o[0] != '-') {
			strvec_push(&a->selectors, o);
			continue;
		}
		if (i + 1 >= argc)
			return bad("option %s needs a value", o);
		const char *v = argv[++i];
		if (!strcmp(o, "--config")) {
			a->config = v;
			continue;
		}
		if (!strcmp(o, "--noise")) {
			a->noise = v;
			continue;
		}
		if (!strcmp(o, "--past")) {
			if (a->npast == PLAN_MAX_PAST)
				return bad("at most 16 --past runs (%s is one "
					   "too many)", v);
			a->past[a->npast++] = v;
			continue;
		}
		if (!strcmp(o, "--repeats")) {
			a->repeats = v;
			continue;
		}
		for (size_t k = 0; k < ARRAY_SIZE(nums); k++) {
			double *dst = (double *)((char *)a + nums[k].off);

			if (strcmp(o, nums[k].name))
				continue;
			known = true;
			if (!parse_num(v, nums[k].lo, nums[k].hi, dst))
				return bad("%s %s: give a number in [%g, %g]",
					   o, v, nums[k].lo, nums[k].hi);
		}
		if (!known)
			return bad("unknown option '%s'", o);
	}
	return 0;
}

/* The selected tasks (selectors and --config), with the config's repeats
 * added to the list. */
static int select_tasks(struct engine *e, struct plan_args *a,
			struct strvec *ids, struct plan_inputs *in)
{
	struct errbuf err;

	errbuf_init(&err);
	if (a->config) {
		struct runconfig *cfg;

		if (engine_config_load(e, a->config, &cfg, &err) != 0)
			return cli_fail("%s", errbuf_str(&err));
		for (size_t i = 0; i < cfg->task_ids.n; i++)
			push_unique(ids, cfg->task_ids.v[i]);
		add_repeats(in, cfg->repeats);
		runconfig_free(cfg);
	}
	if (!a->config && !a->selectors.n)
		strvec_push(&a->selectors, "all");
	for (size_t i = 0; i < a->selectors.n; i++) {
		struct strvec sel = STRVEC_INIT;

		if (task_select(engine_tasks_root(e), a->selectors.v[i], &sel,
				&err) != 0) {
			strvec_release(&sel);
			return cli_fail("%s", errbuf_str(&err));
		}
		for (size_t k = 0; k < sel.n; k++)
			push_unique(ids, sel.v[k]);
		strvec_release(&sel);
	}
	return 0;
}

static int measure(struct engine *e, const struct plan_args *a,
		   struct plan_inputs *in)
{
	struct errbuf err;
	struct run_rows rr;
	struct plan_past past;
	int rc = 0;

	errbuf_init(&err);
	if (a->noise) {
		if (!store_run_id_valid(a->noise))
			return cli_fail("--noise %s: not a run id (they look "
					"like run_20261129_093000)", a->noise);
		if (engine_run_rows(e, a->noise, &rr, &err) != 0)
			return cli_fail("--noise: %s", errbuf_str(&err));
		rc = plan_measure_noise(in, a->noise, rr.run.agent, rr.rows,
					rr.n, &err);
		run_rows_release(&rr);
		if (rc)
			return cli_fail("--noise: %s", errbuf_str(&err));
	}
	plan_past_init(&past);
	for (int i = 0; i < a->npast && !rc; i++) {
		if (!store_run_id_valid(a->past[i])) {
			rc = cli_fail("--past %s: not a run id (they look like "
				      "run_20261129_093000)", a->past[i]);
			break;
		}
		if (engine_run_rows(e, a->past[i], &rr, &err) != 0) {
			rc = cli_fail("--past: %s", errbuf_str(&err));
			break;
		}
		plan_past_add(&past, a->past[i], rr.rows, rr.n);
		run_rows_release(&rr);
	}
	if (!rc)
		plan_past_finish(&past, in);
	plan_past_release(&past);
	return rc;
}

static void overrides(const struct plan_args *a, struct plan_inputs *in)
{
	if (a->timing_sd >= 0)
		plan_set(&in->sd_timing, a->timing_sd, "given: --timing-sd");
	if (a->agent_sd >= 0)
		plan_set(&in->sd_agent, a->agent_sd, "given: --agent-sd");
	if (a->effect_sd >= 0)
		plan_set(&in->sd_effect, a->effect_sd, "given: --effect-sd");
	if (a->pass_effect_sd >= 0)
		plan_set(&in->sd_pass_effect, a->pass_effect_sd,
			 "given: --pass-effect-sd");
	if (a->pass_rate >= 0) {
		plan_set(&in->pass_rate, a->pass_rate, "given: --pass-rate");
		plan_set(&in->pass_within, a->pass_rate * (1 - a->pass_rate),
			 "from --pass-rate: p(1-p), the largest it can be");
		free(in->pass_probs);
		in->pass_probs = NULL;
		in->npass_probs = 0;
	}
	if (a->effect > 0)
		in->effect_ratio = a->effect;
	if (a->pass_effect > 0)
		in->pass_effect = a->pass_effect / 100;
	if (a->alpha > 0)
		in->alpha = a->alpha;
	if (a->power > 0)
		in->power = a->power;
}

int cmd_plan(struct cli *c, int argc, char **argv)
{
	struct plan_args a = {
		.selectors = STRVEC_INIT, .timing_sd = -1, .agent_sd = -1,
		.effect_sd = -1, .pass_rate = -1, .pass_effect_sd = -1,
	};
	struct strvec ids = STRVEC_INIT;
	struct plan_inputs in;
	struct plan_row rows[PLAN_MAX_REPEATS];
	struct engine *e;
	struct errbuf err;
	char *out;
	int rc = parse_args(argc, argv, &a);

	if (rc) {
		strvec_release(&a.selectors);
		return rc;
	}
	plan_inputs_init(&in, 0);
	if (a.repeats && !parse_repeats(a.repeats, &in)) {
		plan_inputs_release(&in);
		strvec_release(&a.selectors);
		return bad("--repeats %s: give 1 to 16 numbers in 1..100, "
			   "comma-separated (e.g. 1,2,3,5)", a.repeats);
	}
	if (cli_open(c, &e)) {
		plan_inputs_release(&in);
		strvec_release(&a.selectors);
		return 1;
	}
	rc = select_tasks(e, &a, &ids, &in);
	if (!rc)
		rc = measure(e, &a, &in);
	if (!rc) {
		in.ntasks = (int)ids.n;
		overrides(&a, &in);
		errbuf_init(&err);
		if (plan_compute(&in, rows, &err) != 0) {
			rc = cli_fail("%s", errbuf_str(&err));
		} else {
			out = a.json ? plan_json(&in, rows)
				     : plan_text(&in, rows);
			fputs(out, stdout);
			if (a.json)
				fputc('\n', stdout);
			free(out);
		}
	}
	plan_inputs_release(&in);
	strvec_release(&ids);
	strvec_release(&a.selectors);
	engine_close(e);
	return rc;
}

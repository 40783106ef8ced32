/*
 * timing_floor.c - which cases are timed: the timing floor (a case whose
 * baseline call is shorter is checked, not timed: issue 10, item 10) and
 * its decision, kept per machine so that every evaluation of a task here
 * times the same cases.
 *
 * The baseline's call is measured in each evaluation (host: its fastest
 * warm-up call; GPU: its call while the batches are sized), and near the
 * floor the measurement decides differently from one evaluation to the
 * next: c2c/int8_gemm's held-out rule.scale_down (baseline calls of 15-18
 * us) was timed in one evaluation and correctness-only in the next
 * (2026-12-02), so two candidates' speedups were means over different
 * cases.  The first evaluation on this machine that measures the call
 * decides; the decision goes to <cache_dir>/timing-floor/<key>, the key
 * the SHA-256 of everything the decision is a function of (evaluator
 * version, device model, task id and config hash, the baseline
 * artifact's content-addressed name, the case's id and params, the
 * floor), and every later evaluation reads it.
 *
 * Trust: the decision rests on the baseline alone, never on a candidate,
 * so a candidate cannot choose which of its cases are timed; only the
 * controller writes the cache directory (the store is hidden from agents
 * and runners); a record that does not parse is decided again and
 * written over.  Two evaluations deciding at once both write a decision
 * (atomically); either is one the measurement allowed.
 */
#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double ev_timing_floor_ns(const struct task *t)
{
	return t->timing_floor_us >= 0 ? t->timing_floor_us * 1e3
				       : TIMING_FLOOR_NS;
}

/* <cache_dir>/timing-floor/<hex key>, or NULL without a cache. */
static char *record_path(const struct eval_ctx *x, const struct task_case *c,
			 double floor_ns)
{
	const struct task *t = x->t;
	char device[192], hex[65];
	struct sha256 h;
	unsigned char key[32];

	if (!x->req->cache_dir)
		return NULL;
	if (x->gpu)
		snprintf(device, sizeof(device), "%s (%s)", x->gi.name,
			 x->gi.arch);
	else
		host_cpu_model(device, sizeof(device));
	char *k = xasprintf("arena-timing-floor/1|%s|%s|%s|%s|%s|%s|%.0f",
			    ARENA_EVALUATOR_VERSION, device, t->id,
			    t->config_sha256 ? t->config_sha256 : "",
			    path_last(x->so[ROLE_BASE]), c->id, floor_ns);
	sha256_init(&h);
	sha256_update(&h, k, strlen(k) + 1);
	sha256_update(&h, c->params, sizeof(c->params[0]) * (size_t)t->nparams);
	sha256_final(&h, key);
	free(k);
	sha256_to_hex(key, hex);
	return xasprintf("%s/timing-floor/%s", x->req->cache_dir, hex);
}

/* The kept decision: 1 below the floor, 0 timed, -1 none (or unreadable). */
static int record_read(const char *path, double *base_ns)
{
	char *text = NULL, word[16];
	size_t len;
	struct errbuf e;
	int below = -1;

	errbuf_init(&e);
	if (file_read_all(path, 256, &text, &len, &e) != 0)
		return -1;
	if (sscanf(text, "%15s %lf", word, base_ns) == 2 && *base_ns > 0) {
		if (!strcmp(word, "untimed"))
			below = 1;
		else if (!strcmp(word, "timed"))
			below = 0;
	}
	free(text);
	return below;
}

static void record_write(const struct eval_ctx *x, const char *path,
			 bool below, double base_ns)
{
	struct errbuf e;
	char *dir = xasprintf("%s/timing-floor", x->req->cache_dir);
	char *text = xasprintf("%s %.1f\n", below ? "untimed" : "timed",
			       base_ns);

	errbuf_init(&e);
	if (mkdir_p(dir, &e) == 0)
		file_write_atomic_str(path, text, &e); /* best effort */
	free(text);
	free(dir);
}

int ev_floor_decision(struct eval_ctx *x, const struct task_case *c,
		      double measured_ns, double *base_ns)
{
	double floor_ns = ev_timing_floor_ns(x->t);
	char *path = record_path(x, c, floor_ns);
	int below = path ? record_read(path, base_ns) : -1;

	if (below >= 0) {
		/* Worth a line only where this measurement disagrees. */
		if (measured_ns > 0 && (measured_ns < floor_ns) != below)
			ev_trace_mark(x,
				      "case %s: %s, as decided on this "
				      "machine before (the baseline's call "
				      "took %.2f us then, %.2f us now; floor "
				      "%.1f us)",
				      c->id, below ? "not timed" : "timed",
				      *base_ns / 1e3, measured_ns / 1e3,
				      floor_ns / 1e3);
	} else if (measured_ns > 0) {
		below = measured_ns < floor_ns;
		*base_ns = measured_ns;
		if (path)
			record_write(x, path, below, measured_ns);
	}
	free(path);
	return below;
}

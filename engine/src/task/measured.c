/*
 * measured.c - a task's measured.yaml: how far its baseline is from the
 * roofline on each device it was measured on (arena/task.h:
 * task_measured_*), which `arena check-tasks --record` writes and `arena
 * tasks` shows as the task's difficulty.
 *
 *     # Written by `arena check-tasks --record` ...
 *     measurements:
 *       - device: "NVIDIA H200 (sm_90)"
 *         measured_at: "2026-12-02T10:00:00Z"
 *         evaluator: "arena-eval/2"
 *         fraction: 0.412
 *         cases:
 *           - {id: n16m, base_ms: 0.0571, roofline_ms: 0.0203}
 *
 * One entry per device; recording again on a device replaces its entry.
 * The file is not part of the task's identity (config_sha256 covers
 * config.yaml and the held-out file only): a measurement describes the
 * task, it does not change it.  It is read with the same bounded YAML
 * parser as a config, and written atomically.
 */
#include "task_parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEASURED_MAX_BYTES (256 * 1024)
#define MEASURED_MAX_ENTRIES 32

static void case_release(struct task_measured_case *c)
{
	free(c->id);
}

static void entry_release(struct task_measurement *m)
{
	free(m->device);
	free(m->measured_at);
	free(m->evaluator);
	for (int i = 0; i < m->ncases; i++)
		case_release(&m->cases[i]);
	free(m->cases);
	memset(m, 0, sizeof(*m));
}

void task_measured_release(struct task_measured *m)
{
	for (int i = 0; i < m->n; i++)
		entry_release(&m->v[i]);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static char *str_or_null(const struct ynode *n)
{
	const char *s = ynode_str(n);

	return s ? xstrdup(s) : NULL;
}

static double num_or_zero(const struct ynode *n)
{
	double v = 0;

	return n && ynode_double(n, &v) == 0 && isfinite(v) ? v : 0;
}

static int entry_parse(const char *path, const struct ynode *n,
		       struct task_measurement *m, struct errbuf *err)
{
	const struct ynode *cases = ynode_get(n, "cases");

	if (!n || n->kind != YNODE_MAP || !ynode_str(ynode_get(n, "device")))
		return ynode_errf(err, path, n,
				  "each measurement must be a "
				  "map with a device");
	m->device = str_or_null(ynode_get(n, "device"));
	m->measured_at = str_or_null(ynode_get(n, "measured_at"));
	m->evaluator = str_or_null(ynode_get(n, "evaluator"));
	m->fraction = num_or_zero(ynode_get(n, "fraction"));
	if (!cases)
		return 0;
	if (cases->kind != YNODE_SEQ || cases->n > TASK_MAX_CASES)
		return ynode_errf(err, path, cases,
				  "cases must be a list of at "
				  "most %d entries",
				  TASK_MAX_CASES);
	m->cases = xcalloc(cases->n ? cases->n : 1, sizeof(*m->cases));
	for (size_t i = 0; i < cases->n; i++) {
		const struct ynode *c = cases->items[i];
		if (!ynode_str(ynode_get(c, "id")))
			return ynode_errf(err, path, c,
					  "each case needs an id");
		struct task_measured_case *mc = &m->cases[m->ncases++];
		mc->id = str_or_null(ynode_get(c, "id"));
		mc->base_ms = num_or_zero(ynode_get(c, "base_ms"));
		mc->roofline_ms = num_or_zero(ynode_get(c, "roofline_ms"));
	}
	return 0;
}

int task_measured_read(const char *task_dir, struct task_measured *out,
		       struct errbuf *err)
{
	char *path = path_join(task_dir, "measured.yaml"), *text = NULL;
	const struct ynode *list;
	struct ydoc doc;
	size_t len;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!file_exists(path)) {
		free(path);
		return 0;
	}
	if ((rc = file_read_all(path, MEASURED_MAX_BYTES, &text, &len, err)) ||
	    (rc = ydoc_parse(&doc, path, text, len, err))) {
		free(text);
		free(path);
		return rc;
	}
	list = ynode_get(doc.root, "measurements");
	if (!list || list->kind != YNODE_SEQ || list->n > MEASURED_MAX_ENTRIES)
		rc = ynode_errf(err, path, doc.root,
				"measured.yaml must hold "
				"measurements: a list of at most %d entries",
				MEASURED_MAX_ENTRIES);
	else {
		out->v = xcalloc(list->n ? list->n : 1, sizeof(*out->v));
		for (size_t i = 0; i < list->n && !rc; i++)
			rc = entry_parse(path, list->items[i],
					 &out->v[out->n++], err);
	}
	if (rc)
		task_measured_release(out);
	ydoc_release(&doc);
	free(text);
	free(path);
	return rc;
}

/* A YAML double-quoted scalar of s (device names, times: printable
 * ASCII; anything else becomes '?'). */
static void add_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, ch >= 0x20 && ch < 0x7f ? (char)ch : '?');
	}
	strbuf_addch(sb, '"');
}

static void render_entry(struct strbuf *sb, const struct task_measurement *m)
{
	strbuf_addstr(sb, "  - device: ");
	add_quoted(sb, m->device);
	strbuf_addstr(sb, "\n    measured_at: ");
	add_quoted(sb, m->measured_at);
	strbuf_addstr(sb, "\n    evaluator: ");
	add_quoted(sb, m->evaluator);
	strbuf_addf(sb, "\n    fraction: %.4g\n    cases:\n", m->fraction);
	for (int i = 0; i < m->ncases; i++) {
		strbuf_addstr(sb, "      - {id: ");
		add_quoted(sb, m->cases[i].id);
		strbuf_addf(sb, ", base_ms: %.6g, roofline_ms: %.6g}\n",
			    m->cases[i].base_ms, m->cases[i].roofline_ms);
	}
}

int task_measured_record(const char *task_dir,
			 const struct task_measurement *add, struct errbuf *err)
{
	struct task_measured old;
	struct strbuf sb = STRBUF_INIT;
	char *path;
	int rc = task_measured_read(task_dir, &old, err);

	if (rc)
		return rc;
	strbuf_addstr(&sb,
		      "# Written by `arena check-tasks --record`: the "
		      "baseline's time against the\n# roofline of the device "
		      "(fraction = roofline time / baseline time,\n# the "
		      "geometric mean over the timed visible cases). One "
		      "entry per device.\nmeasurements:\n");
	render_entry(&sb, add);
	for (int i = 0; i < old.n; i++)
		if (strcmp(old.v[i].device, add->device) != 0)
			render_entry(&sb, &old.v[i]);
	path = path_join(task_dir, "measured.yaml");
	rc = file_write_atomic_str(path, sb.buf, err);
	free(path);
	strbuf_release(&sb);
	task_measured_release(&old);
	return rc;
}

/*
 * trace.c - see trace.h.  Lines are written with one write(2) each on an
 * O_APPEND descriptor, so a reader never sees half a line and two writers
 * (the launcher and the evaluation bridge) never interleave inside one.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

struct trace {
	int fd;			/* -1: records nothing */
	int64_t seq;
	pthread_mutex_t lock;
};

int trace_open(const char *path, struct trace **out, struct errbuf *err)
{
	struct trace *t = xcalloc(1, sizeof(*t));

	t->fd = -1;
	pthread_mutex_init(&t->lock, NULL);
	if (path) {
		t->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			     0644);
		if (t->fd < 0) {
			int e = errno;
			pthread_mutex_destroy(&t->lock);
			free(t);
			return errf_code(err, e, "%s: cannot open trace: %s",
					 path, strerror(e));
		}
	}
	*out = t;
	return 0;
}

void trace_close(struct trace *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void iso_ms(char out[96])
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(out, 96, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ts.tv_nsec / 1000000));
}

void trace_emit(struct trace *t, const char *type, cJSON *ev)
{
	char ts[96], *line;

	if (!ev)
		ev = cJSON_CreateObject();
	if (!t || t->fd < 0) {
		cJSON_Delete(ev);
		return;
	}
	pthread_mutex_lock(&t->lock);
	iso_ms(ts);
	/* ts, seq and type first, so lines read well. */
	cJSON *head = cJSON_CreateObject();
	cJSON_AddStringToObject(head, "ts", ts);
	cJSON_AddNumberToObject(head, "seq", (double)++t->seq);
	cJSON_AddStringToObject(head, "type", type);
	while (ev->child) {
		cJSON *it = cJSON_DetachItemViaPointer(ev, ev->child);
		cJSON_AddItemToObject(head, it->string, it);
	}
	cJSON_Delete(ev);
	line = cJSON_PrintUnformatted(head);
	cJSON_Delete(head);
	if (line) {
		size_t n = strlen(line);
		line[n] = '\n';	/* replaces the NUL; written with length */
		ssize_t w = write(t->fd, line, n + 1);
		(void)w;
		free(line);
	}
	pthread_mutex_unlock(&t->lock);
}

char *trace_cap(const char *s, size_t max)
{
	size_t n;

	if (!s)
		return xstrdup("");
	n = strlen(s);
	if (n <= max)
		return result_utf8_sanitize(s);
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;	/* do not cut a UTF-8 sequence */
	char *cut = xstrndup(s, max);
	char *clean = result_utf8_sanitize(cut);
	char *r = xasprintf("%s\n[... %zu bytes more]", clean, n - max);
	free(cut);
	free(clean);
	return r;
}

static void add_capped(cJSON *o, const char *k, const char *s, size_t max)
{
	char *c = trace_cap(s, max);

	cJSON_AddStringToObject(o, k, c);
	free(c);
}

void trace_message(struct trace *t, const char *role, const char *text)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "role", role);
	add_capped(o, "text", text, TRACE_TEXT_MAX);
	trace_emit(t, "message", o);
}

void trace_reasoning(struct trace *t, const char *text)
{
	cJSON *o = cJSON_CreateObject();

	add_capped(o, "text", text, TRACE_TEXT_MAX);
	trace_emit(t, "reasoning", o);
}

void trace_tool_call(struct trace *t, const char *id, const char *name,
		     const cJSON *input)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", id ? id : "");
	cJSON_AddStringToObject(o, "name", name ? name : "");
	cJSON_AddItemToObject(o, "input", input ? cJSON_Duplicate(input, 1)
						: cJSON_CreateObject());
	trace_emit(t, "tool_call", o);
}

void trace_tool_result(struct trace *t, const char *id, bool is_error,
		       const char *content)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", id ? id : "");
	cJSON_AddBoolToObject(o, "is_error", is_error);
	add_capped(o, "content", content, TRACE_RESULT_MAX);
	trace_emit(t, "tool_result", o);
}

void trace_file_change(struct trace *t, const char *path, const char *kind)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", path ? path : "");
	cJSON_AddStringToObject(o, "kind", kind ? kind : "update");
	trace_emit(t, "file_change", o);
}

void trace_error(struct trace *t, const char *message)
{
	cJSON *o = cJSON_CreateObject();

	add_capped(o, "message", message, TRACE_RESULT_MAX);
	trace_emit(t, "error", o);
}

void trace_evaluation(struct trace *t, const char *via, bool quick,
		      const struct task_result *r, const char *error,
		      double served_s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "via", via);
	cJSON_AddBoolToObject(o, "quick", quick);
	if (error) {
		add_capped(o, "error", error, TRACE_RESULT_MAX);
	} else {
		result_summary_add(o, r, RESULT_SUMMARY_REWARD);
		/* Why it is not ok, in the evaluator's words. */
		const char *why = r->status != RS_OK ? result_why(r) : NULL;
		if (why)
			add_capped(o, "why", why, TRACE_RESULT_MAX);
		cJSON_AddNumberToObject(o, "eval_seconds", r->eval_seconds);
		cJSON *ph = cJSON_AddObjectToObject(o, "eval_phases");
		for (int i = 0; ph && i < RESULT_NPHASES; i++)
			cJSON_AddNumberToObject(ph, result_phase_names[i],
						r->phase_s[i]);
	}
	if (served_s >= 0)
		cJSON_AddNumberToObject(o, "served_seconds", served_s);
	trace_emit(t, "evaluation", o);
}

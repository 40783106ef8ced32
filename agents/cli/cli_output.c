/*
 * cli_output.c - reading an agent CLI's output (cli_agent.h): JSON helpers
 * the launchers share, stdout cut into lines as it arrives and each line
 * handed to the launcher's parser (into the trace and the outcome), and
 * the classification of how the CLI ended: timeout, exit status, or its
 * own error events (an is_error result with exit 0, turn.failed, no final
 * result), with the tail of its stderr.
 */
#include "cli_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- parsing helpers ------------------------------------------------ */

const char *cli_json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double cli_json_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble
							     : dflt;
}

char *cli_content_text(const cJSON *content)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *it;

	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	cJSON_ArrayForEach(it, content) {
		const char *t = cli_json_str(it, "text");
		if (t) {
			if (sb.len)
				strbuf_addch(&sb, '\n');
			strbuf_addstr(&sb, t);
		}
	}
	return strbuf_detach(&sb);
}

void cli_toml_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\u%04x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

void cli_process_line(struct cli_run *r)
{
	const char *s = strbuf_str(&r->line);
	size_t n = r->line.len;

	if (r->line_too_long) {
		r->other_lines++;
		trace_error(r->trace, "a line of the CLI's output longer than "
			    "8 MiB was skipped");
		return;
	}
	while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == ' '))
		n--;
	if (n == 0)
		return;
	cJSON *ev = s[0] == '{' ? cJSON_ParseWithLength(s, n) : NULL;
	if (!cJSON_IsObject(ev)) {
		r->other_lines++;	/* noise: progress text, warnings */
		cJSON_Delete(ev);
		return;
	}
	r->json_lines++;
	int turns = r->turns;
	r->agent->parse_event(r, ev);
	cJSON_Delete(ev);
	/* A status line follows the agent's turns (arena run on a
	 * terminal). */
	if (r->turns != turns && r->l->progress) {
		char what[48];

		snprintf(what, sizeof(what), "agent turn %d", r->turns);
		r->l->progress(r->l->progress_ctx, what);
	}
}

void cli_feed_stdout(void *ctx, const char *data, size_t n)
{
	struct cli_run *r = ctx;

	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t chunk = nl ? (size_t)(nl - data) : n;
		if (!r->line_too_long) {
			if (r->line.len + chunk > CLI_LINE_MAX) {
				r->line_too_long = true;
				strbuf_reset(&r->line);
			} else {
				strbuf_add(&r->line, data, chunk);
			}
		}
		if (!nl)
			break;
		cli_process_line(r);
		strbuf_reset(&r->line);
		r->line_too_long = false;
		data = nl + 1;
		n -= chunk + 1;
	}
}

static char *stderr_tail(const char *path, long offset)
{
	FILE *f = fopen(path, "re");
	char buf[4096];
	size_t n = 0;
	long end;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	if (end > offset) {
		long from = end - (long)sizeof(buf) + 1 > offset
				    ? end - (long)sizeof(buf) + 1 : offset;
		fseek(f, from, SEEK_SET);
		n = fread(buf, 1, sizeof(buf) - 1, f);
	}
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\r'))
		buf[--n] = '\0';
	if (n == 0)
		return NULL;
	char *nl = strrchr(buf, '\n');
	char *line = nl ? nl + 1 : buf;
	return trace_cap(line, 300);
}

cJSON *cli_argv_json(const struct strvec *argv, size_t from)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = from; i < argv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv->v[i]));
	return a;
}

void cli_classify(struct cli_run *r, const struct proc_spawn_result *res,
	      const char *log_path, long log_offset,
	      struct agent_outcome *out)
{
	const char *cli = r->agent->cli;
	bool exit0 = WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0;
	char why[128];

	out->duration_s = res->seconds;
	out->sandboxed = r->sandboxed;
	out->turns = r->turns;
	out->input_tokens = r->input_tokens;
	out->output_tokens = r->output_tokens;
	out->cached_tokens = r->cached_tokens;
	out->cost_known = r->cost_reported || r->set.price_input > 0 ||
			  r->set.price_output > 0;
	if (!r->cost_reported && (r->set.price_input > 0 ||
				  r->set.price_output > 0)) {
		double cached_price = r->set.price_cached_input > 0
					      ? r->set.price_cached_input
					      : r->set.price_input;
		int64_t fresh = r->input_tokens - r->cached_tokens;
		r->cost_usd = ((double)(fresh > 0 ? fresh : 0) *
				       r->set.price_input +
			       (double)r->cached_tokens * cached_price +
			       (double)r->output_tokens * r->set.price_output) /
			      1e6;
	}
	out->cost_usd = r->cost_usd;
	proc_describe_status(res->status, why, sizeof(why));
	if (res->timed_out) {
		out->status = xstrdup("timeout");
		out->error = xasprintf("deadline of %.0f s reached; %s was "
				       "stopped (SIGTERM, then SIGKILL)",
				       r->l->timeout_s, cli);
	} else if (!exit0) {
		char *tail = r->error_text ? NULL
					   : stderr_tail(log_path, log_offset);
		out->status = xstrdup("failed");
		if (r->error_text)
			out->error = xasprintf("%s %s: %s", cli, why,
					       r->error_text);
		else
			out->error = xasprintf("%s %s%s%s", cli, why,
					       tail ? ": " : "",
					       tail ? tail : "");
		free(tail);
	} else if (r->final_error) {
		out->status = xstrdup("failed");
		out->error = xasprintf("%s reported an error (exit status 0): "
				       "%s", cli, r->error_text ? r->error_text
							       : "no detail");
	} else if (!r->saw_final) {
		char *tail = stderr_tail(log_path, log_offset);
		out->status = xstrdup("failed");
		out->error = xasprintf("%s exited 0 without a final result "
				       "event (%d JSON lines seen)%s%s", cli,
				       r->json_lines, tail ? "; stderr: " : "",
				       tail ? tail : "");
		free(tail);
	} else {
		out->status = xstrdup("completed");
	}
	if (r->final_text && *r->final_text) {
		size_t n = strcspn(r->final_text, "\n");
		char *first = xstrndup(r->final_text, n > 200 ? 200 : n);
		out->summary = result_utf8_sanitize(first);
		free(first);
	}
}

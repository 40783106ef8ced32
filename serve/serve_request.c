/*
 * serve_request.c - parsing the body of POST /v1/batches (serve_request.h).
 *
 * The body is whatever a client sent, capped by the HTTP layer; cJSON
 * parses it (bounded nesting), then every field is checked here before
 * anything is copied: types, known keys, counts and sizes.  A string
 * holding "\u0000" is refused (cJSON would cut it at the NUL, and a
 * source file that differs from what the client sent must not be
 * evaluated in its place).  The first problem found is reported, with
 * its field's JSON path.
 */
#include "serve_request.h"

#include <cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void serve_error_init(struct serve_error *e)
{
	e->field[0] = '\0';
	errbuf_init(&e->err);
}

static int bad(struct serve_error *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(struct serve_error *e, const char *field, const char *fmt, ...)
{
	va_list ap;
	char msg[ERRBUF_SIZE];

	snprintf(e->field, sizeof(e->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return errf(&e->err, "%s", msg);
}

void serve_batch_req_release(struct serve_batch_req *b)
{
	for (int i = 0; b->items && i < b->n; i++) {
		struct serve_item *it = &b->items[i];
		for (int k = 0; k < it->nfiles; k++) {
			free(it->files[k].name);
			free(it->files[k].data);
		}
		free(it->files);
		free(it->task_id);
	}
	free(b->items);
	free(b->client_key);
	memset(b, 0, sizeof(*b));
}

static bool holds_escaped_nul(const char *s, size_t len)
{
	for (size_t i = 0; i + 6 <= len; i++)
		if (s[i] == '\\' && s[i + 1] == 'u' && s[i + 2] == '0' &&
		    s[i + 3] == '0' && s[i + 4] == '0' && s[i + 5] == '0')
			return true;
	return false;
}

static bool key_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct serve_file *)a)->name,
		      ((const struct serve_file *)b)->name);
}

/* sources: an object of 1..SERVE_MAX_FILES string members. */
static int parse_sources(const cJSON *src, const char *path,
			 struct serve_item *it, struct serve_error *e)
{
	const cJSON *f;
	char field[160];
	int n = 0;

	if (!cJSON_IsObject(src))
		return bad(e, path,
			   "sources must be an object mapping each "
			   "editable file's name to its text");
	cJSON_ArrayForEach(f, src) n++;
	if (n == 0)
		return bad(e, path,
			   "sources is empty; give the text of every "
			   "editable file of the task");
	if (n > SERVE_MAX_FILES)
		return bad(e, path,
			   "sources has %d files; at most %d are "
			   "accepted",
			   n, SERVE_MAX_FILES);
	it->files = xcalloc((size_t)n, sizeof(*it->files));
	cJSON_ArrayForEach(f, src)
	{
		const char *name = f->string ? f->string : "";
		size_t nl = strlen(name);
		snprintf(field, sizeof(field), "%s.%.100s", path, name);
		if (nl == 0 || nl > SERVE_MAX_NAME ||
		    !path_is_safe_relative(name))
			return bad(e, field,
				   "'%.100s' is not a file name a "
				   "task can have (a relative path without "
				   "'..', at most %d bytes)",
				   name, SERVE_MAX_NAME);
		if (!cJSON_IsString(f) || !f->valuestring)
			return bad(e, field,
				   "the text of a source file must "
				   "be a string");
		size_t len = strlen(f->valuestring);
		if (len > SERVE_MAX_FILE_BYTES)
			return bad(e, field,
				   "the file is %zu bytes; at most "
				   "%d are accepted",
				   len, SERVE_MAX_FILE_BYTES);
		for (int k = 0; k < it->nfiles; k++)
			if (!strcmp(it->files[k].name, name))
				return bad(e, field,
					   "the file '%.100s' is "
					   "given twice",
					   name);
		it->files[it->nfiles].name = xstrdup(name);
		it->files[it->nfiles].data = xstrndup(f->valuestring, len);
		it->files[it->nfiles].len = len;
		it->nfiles++;
	}
	qsort(it->files, (size_t)it->nfiles, sizeof(*it->files), cmp_file);
	return 0;
}

static int parse_item(const cJSON *o, int i, struct serve_item *it,
		      struct serve_error *e)
{
	char path[64], field[160];
	const cJSON *m;
	bool has_task = false, has_sources = false;

	snprintf(path, sizeof(path), "items[%d]", i);
	if (!cJSON_IsObject(o))
		return bad(e, path,
			   "each item must be an object with task "
			   "and sources");
	cJSON_ArrayForEach(m, o)
	{
		const char *k = m->string ? m->string : "";
		snprintf(field, sizeof(field), "%s.%.40s", path, k);
		if (!strcmp(k, "task")) {
			if (has_task)
				return bad(e, field, "task is given twice");
			has_task = true;
			if (!cJSON_IsString(m) || !m->valuestring ||
			    !*m->valuestring)
				return bad(e, field,
					   "task must be a task id "
					   "such as \"c2c/saxpy\"");
			if (strlen(m->valuestring) > SERVE_MAX_NAME ||
			    !path_is_safe_relative(m->valuestring))
				return bad(e, field,
					   "'%.100s' is not a task "
					   "id (a relative path under the "
					   "tasks directory, at most %d "
					   "bytes)",
					   m->valuestring, SERVE_MAX_NAME);
			it->task_id = xstrdup(m->valuestring);
		} else if (!strcmp(k, "sources")) {
			if (has_sources)
				return bad(e, field, "sources is given twice");
			has_sources = true;
			int rc = parse_sources(m, field, it, e);
			if (rc)
				return rc;
		} else if (!strcmp(k, "priority")) {
			double v = m->valuedouble;
			/* The range first: converting a double beyond int
			 * is undefined. */
			if (!cJSON_IsNumber(m) || !(v >= -SERVE_MAX_PRIORITY) ||
			    !(v <= SERVE_MAX_PRIORITY) || v != (double)(int)v)
				return bad(e, field,
					   "priority must be an "
					   "integer from %d to %d (higher "
					   "first)",
					   -SERVE_MAX_PRIORITY,
					   SERVE_MAX_PRIORITY);
			it->priority = (int)v;
		} else if (!strcmp(k, "quick")) {
			if (!cJSON_IsBool(m))
				return bad(e, field,
					   "quick must be true or "
					   "false");
			it->quick = cJSON_IsTrue(m);
		} else {
			return bad(e, field,
				   "unknown key '%.40s'; an item "
				   "has task, sources, priority and quick",
				   k);
		}
	}
	if (!has_task) {
		snprintf(field, sizeof(field), "%s.task", path);
		return bad(e, field, "task is missing");
	}
	if (!has_sources) {
		snprintf(field, sizeof(field), "%s.sources", path);
		return bad(e, field, "sources is missing");
	}
	return 0;
}

int serve_request_parse(const char *body, size_t len,
			struct serve_batch_req *out, struct serve_error *e)
{
	cJSON *root;
	const cJSON *m, *items = NULL;
	int rc = 0, n = 0;

	memset(out, 0, sizeof(*out));
	if (!body || len == 0)
		return bad(e, "",
			   "the body is empty; send a JSON object "
			   "{\"items\": [...]}");
	if (holds_escaped_nul(body, len))
		return bad(e, "",
			   "a string holds \\u0000; sources and ids "
			   "are text without NUL characters");
	root = cJSON_ParseWithLength(body, len);
	if (!root)
		return bad(e, "", "the body is not valid JSON (near byte %td)",
			   cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - body
					       : (ptrdiff_t)0);
	if (!cJSON_IsObject(root)) {
		rc = bad(e, "",
			 "the body must be a JSON object {\"items\": "
			 "[...]}");
		goto out;
	}
	cJSON_ArrayForEach(m, root)
	{
		const char *k = m->string ? m->string : "";
		if (!strcmp(k, "items") && !items) {
			items = m;
		} else if (!strcmp(k, "client_key") && !out->client_key) {
			const char *v = cJSON_IsString(m) ? m->valuestring
							  : NULL;
			size_t kl = v ? strlen(v) : 0;
			bool ok = kl > 0 && kl <= SERVE_MAX_CLIENT_KEY;
			for (size_t i = 0; ok && i < kl; i++)
				ok = key_char_ok(v[i]);
			if (!ok) {
				rc = bad(e, "client_key",
					 "client_key must be "
					 "1 to %d characters of A-Z a-z 0-9 "
					 "'.' '_' '-'",
					 SERVE_MAX_CLIENT_KEY);
				goto out;
			}
			out->client_key = xstrdup(v);
		} else {
			rc = bad(e, k,
				 "unknown or repeated key '%.40s'; a "
				 "batch has items and, optionally, "
				 "client_key",
				 k);
			goto out;
		}
	}
	if (!items) {
		rc = bad(e, "items",
			 "items is missing; send {\"items\": "
			 "[{\"task\": ..., \"sources\": {...}}]}");
		goto out;
	}
	if (!cJSON_IsArray(items)) {
		rc = bad(e, "items", "items must be an array");
		goto out;
	}
	n = cJSON_GetArraySize(items);
	if (n == 0 || n > SERVE_MAX_ITEMS) {
		rc = bad(e, "items",
			 "items has %d requests; a batch holds "
			 "1 to %d",
			 n, SERVE_MAX_ITEMS);
		goto out;
	}
	out->items = xcalloc((size_t)n, sizeof(*out->items));
	for (const cJSON *it = items->child; it && rc == 0; it = it->next) {
		rc = parse_item(it, out->n, &out->items[out->n], e);
		out->n++;
	}
out:
	cJSON_Delete(root);
	return rc;
}

char *serve_item_sources_json(const struct serve_item *it)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	for (int k = 0; k < it->nfiles; k++)
		cJSON_AddStringToObject(o, it->files[k].name,
					it->files[k].data);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		abort(); /* out of memory, as xmalloc */
	char *r = xstrdup(s);
	cJSON_free(s);
	return r;
}

int serve_sources_from_json(const char *json, struct serve_item *it,
			    struct errbuf *err)
{
	struct serve_error e;
	cJSON *o = cJSON_Parse(json ? json : "");
	int rc;

	serve_error_init(&e);
	if (!o)
		return errf(err, "a queued request's sources are not valid "
				 "JSON");
	rc = parse_sources(o, "sources", it, &e);
	cJSON_Delete(o);
	if (rc)
		return errf(err, "%s: %s", e.field, errbuf_str(&e.err));
	return 0;
}

void serve_item_key(const struct serve_item *it, char key[65])
{
	static const char hex[] = "0123456789abcdef";
	struct sha256 h;
	unsigned char d[32];
	char q = it->quick ? '1' : '0';

	sha256_init(&h);
	sha256_update(&h, "arena-serve/1", 14);
	sha256_update(&h, it->task_id, strlen(it->task_id) + 1);
	sha256_update(&h, &q, 1);
	for (int k = 0; k < it->nfiles; k++) {
		char lenbuf[24];
		int l = snprintf(lenbuf, sizeof(lenbuf),
				 "%zu:", it->files[k].len);
		sha256_update(&h, it->files[k].name,
			      strlen(it->files[k].name) + 1);
		sha256_update(&h, lenbuf, (size_t)l);
		sha256_update(&h, it->files[k].data, it->files[k].len);
	}
	sha256_final(&h, d);
	for (int i = 0; i < 32; i++) {
		key[2 * i] = hex[d[i] >> 4];
		key[2 * i + 1] = hex[d[i] & 15];
	}
	key[64] = '\0';
}

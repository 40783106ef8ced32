/*
 * mcp_server.c - see mcp_server.h.
 *
 * Dispatch (agents.md §5.4): parse (failure: -32700 with id null) -> an
 * object with jsonrpc "2.0" and a string method (else -32600) -> no id:
 * a notification, never answered -> initialize, ping, tools/list,
 * tools/call, anything else -32601 (which keeps dual-era clients that
 * probe server/discover first working: they fall back to initialize).
 * tools/ methods before initialize are refused with -32002.  Ids are copied node
 * for node, so a string id stays a string and a big number is not
 * reformatted.  Tool failures (does not compile, wrong, bad arguments)
 * are results with isError; an unknown tool is -32602.
 */
#include "mcp_server.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *const known_versions[] = {
	"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25",
};

void mcp_reply_release(struct mcp_reply *r)
{
	free(r->text);
	cJSON_Delete(r->structured);
	memset(r, 0, sizeof(*r));
}

void mcp_session_init(struct mcp_session *s, mcp_tool_fn call, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->call = call;
	s->ctx = ctx;
}

void mcp_session_release(struct mcp_session *s)
{
	free(s->protocol);
	s->protocol = NULL;
}

static cJSON *schema_object(void)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "type", "object");
	return o;
}

static void add_tool(cJSON *arr, const char *name, const char *title,
		     const char *desc, cJSON *schema, bool read_only)
{
	cJSON *t = cJSON_CreateObject();
	cJSON *ann = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "name", name);
	cJSON_AddStringToObject(t, "title", title);
	cJSON_AddStringToObject(t, "description", desc);
	cJSON_AddItemToObject(t, "inputSchema", schema);
	cJSON_AddStringToObject(ann, "title", title);
	/* Evaluating writes nothing the agent owns: Codex lets read-only
	 * tools through without an approval prompt. */
	cJSON_AddBoolToObject(ann, "readOnlyHint", true);
	cJSON_AddBoolToObject(ann, "destructiveHint", false);
	cJSON_AddBoolToObject(ann, "idempotentHint", read_only);
	cJSON_AddBoolToObject(ann, "openWorldHint", false);
	cJSON_AddItemToObject(t, "annotations", ann);
	cJSON_AddItemToArray(arr, t);
}

cJSON *mcp_tools_list(void)
{
	cJSON *arr = cJSON_CreateArray();
	cJSON *ev = schema_object();
	cJSON *props = cJSON_AddObjectToObject(ev, "properties");
	cJSON *quick = cJSON_AddObjectToObject(props, "quick");

	cJSON_AddStringToObject(quick, "type", "boolean");
	cJSON_AddStringToObject(quick, "description", "a faster, rougher "
				"timing (one block of paired samples); "
				"correctness is checked in full either way");
	cJSON_AddBoolToObject(ev, "additionalProperties", false);
	add_tool(arr, "evaluate", "Evaluate the workspace",
		 "Compiles the editable files of your workspace as they are "
		 "now, checks them against the reference on fresh random "
		 "inputs for every visible case, and times them against the "
		 "original baseline. Returns the verdict (compiled, correct, "
		 "speedup with its confidence interval, score) and the full "
		 "task_result.yaml.", ev, false);
	cJSON *none = schema_object();
	cJSON_AddBoolToObject(none, "additionalProperties", false);
	add_tool(arr, "show_task", "Show the task",
		 "Returns TASK.md: the objective, the files you may change, "
		 "the kernel signature, the visible cases, the tolerance and "
		 "the rules.", none, true);
	none = schema_object();
	cJSON_AddBoolToObject(none, "additionalProperties", false);
	add_tool(arr, "last_result", "Show the last result",
		 "Returns the task_result.yaml of the last evaluation in this "
		 "session, without evaluating again.", none, true);
	return arr;
}

void mcp_reply_from_result(const struct task_result *r, bool quick,
			   struct mcp_reply *out)
{
	char *yaml = result_to_yaml(r);
	const char *verdict;
	cJSON *st = cJSON_CreateObject();

	if (r->status == RS_OK)
		verdict = "correct";
	else if (!r->pass_compilation)
		verdict = "does not compile";
	else if (!r->pass_correctness)
		verdict = "compiles but is not correct";
	else if (r->status == RS_REJECTED)
		verdict = "rejected (see integrity)";
	else
		verdict = "not scored";
	out->text = xasprintf("Verdict: %s (status %s); speedup %.3f "
			      "[%.3f, %.3f]; score %.2f%s.\n\n%s", verdict,
			      result_status_name(r->status), r->speedup_ratio,
			      r->speedup_ci_lo, r->speedup_ci_hi, r->score,
			      quick ? "; quick timing" : "",
			      yaml ? yaml : "");
	out->is_error = r->status != RS_OK;
	result_summary_add(st, r, 0);
	cJSON_AddBoolToObject(st, "quick", quick);
	out->structured = st;
	free(yaml);
}

/* ---- JSON-RPC ------------------------------------------------------- */

static char *print_and_free(cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	cJSON_Delete(o);
	return s;
}

static cJSON *envelope(const cJSON *id)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1)
					  : cJSON_CreateNull());
	return o;
}

static char *rpc_error(const cJSON *id, int code, const char *msg)
{
	cJSON *o = envelope(id);
	cJSON *e = cJSON_AddObjectToObject(o, "error");

	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return print_and_free(o);
}

static char *rpc_result(const cJSON *id, cJSON *result)
{
	cJSON *o = envelope(id);

	cJSON_AddItemToObject(o, "result", result);
	return print_and_free(o);
}

static cJSON *initialize(struct mcp_session *s, const cJSON *params)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(params,
							  "protocolVersion");
	const char *version = MCP_LATEST_VERSION;
	cJSON *r = cJSON_CreateObject();

	for (size_t i = 0; cJSON_IsString(v) && i < ARRAY_SIZE(known_versions);
	     i++)
		if (!strcmp(v->valuestring, known_versions[i]))
			version = known_versions[i];
	free(s->protocol);
	s->protocol = xstrdup(version);
	s->initialized = true;
	cJSON_AddStringToObject(r, "protocolVersion", version);
	cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON *tools = cJSON_AddObjectToObject(caps, "tools");
	cJSON_AddBoolToObject(tools, "listChanged", false);
	cJSON *info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", MCP_SERVER_NAME);
	cJSON_AddStringToObject(info, "title", "arena evaluator");
	cJSON_AddStringToObject(info, "version", "0.1.0");
	cJSON_AddStringToObject(r, "instructions", "arena's trusted "
				"evaluator for this task. Call evaluate after "
				"each change to learn whether your kernel "
				"compiles, is correct, and how fast it is; "
				"show_task repeats the task.");
	return r;
}

static char *tools_call(struct mcp_session *s, const cJSON *id,
			const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(params,
							     "arguments");
	cJSON *empty = cJSON_CreateObject();
	struct mcp_reply reply = { 0 };
	struct errbuf err;
	char *resp;
	int rc;

	if (!cJSON_IsString(name)) {
		cJSON_Delete(empty);
		return rpc_error(id, -32602, "tools/call needs params.name");
	}
	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		cJSON_Delete(empty);
		return rpc_error(id, -32602, "tools/call: arguments must be "
				 "an object");
	}
	errbuf_init(&err);
	s->calls++;
	rc = s->call(s->ctx, name->valuestring,
		     cJSON_IsObject(args) ? args : empty, &reply, &err);
	cJSON_Delete(empty);
	if (rc == -ENOENT) {
		char *m = xasprintf("Unknown tool: %.100s", name->valuestring);
		resp = rpc_error(id, -32602, m);
		free(m);
		return resp;
	}
	if (rc) {
		/* Could not run at all (bridge gone, store unreadable): still
		 * a tool result the model can read, not a protocol error. */
		reply.text = xasprintf("arena could not run %s: %s",
				       name->valuestring, errbuf_str(&err));
		reply.is_error = true;
	}
	cJSON *r = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(r, "content");
	cJSON *block = cJSON_CreateObject();
	cJSON_AddStringToObject(block, "type", "text");
	cJSON_AddStringToObject(block, "text", reply.text ? reply.text : "");
	cJSON_AddItemToArray(content, block);
	/* No structuredContent: Claude Code shows a model the structured
	 * form instead of the text when both are present, and the text (the
	 * verdict and the whole task_result.yaml) is what helps it. */
	cJSON_AddBoolToObject(r, "isError", reply.is_error);
	mcp_reply_release(&reply);
	return rpc_result(id, r);
}

/* The id as it must be echoed: a number keeps its exact digits (cJSON
 * holds numbers as doubles, so 2^53 + 1 would come back changed), found
 * by scanning the line for "id": followed by a number of the same
 * value. */
static cJSON *id_copy(const char *line, size_t len, const cJSON *id)
{
	if (!cJSON_IsNumber(id))
		return cJSON_Duplicate(id, 1);
	for (const char *p = line; p && p < line + len;) {
		p = memmem(p, (size_t)(line + len - p), "\"id\"", 4);
		if (!p)
			break;
		const char *q = p + 4;
		while (q < line + len && (*q == ' ' || *q == '\t' || *q == ':'))
			q++;
		/* The line is not NUL-terminated: the span stops at its
		 * end. */
		size_t n = 0;
		while (q + n < line + len && q[n] != '\0' &&
		       strchr("-0123456789", q[n]))
			n++;
		if (n > 0 && n < 40 && (q + n >= line + len ||
					!strchr(".eE", q[n]))) {
			char digits[48];
			memcpy(digits, q, n);
			digits[n] = '\0';
			if (strtod(digits, NULL) == id->valuedouble)
				return cJSON_CreateRaw(digits);
		}
		p += 4;
	}
	return cJSON_Duplicate(id, 1);
}

char *mcp_handle_line(struct mcp_session *s, const char *line, size_t len)
{
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t' ||
			   line[i] == '\r' || line[i] == '\n'))
		i++;
	if (i == len)
		return NULL;
	cJSON *req = cJSON_ParseWithLength(line, len);
	if (!req)
		return rpc_error(NULL, -32700, "Parse error");
	if (cJSON_IsArray(req)) {
		cJSON_Delete(req);
		return rpc_error(NULL, -32600, "Invalid Request: batches are "
				 "not supported");
	}
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(req, "jsonrpc");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(req, "method");
	const cJSON *id0 = cJSON_GetObjectItemCaseSensitive(req, "id");
	cJSON *id = id0 ? id_copy(line, len, id0) : NULL;
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(req, "params");
	char *resp = NULL;
	bool id_ok = id0 && (cJSON_IsString(id0) || cJSON_IsNumber(id0));

	if (!cJSON_IsObject(req) || !cJSON_IsString(ver) ||
	    strcmp(ver->valuestring, "2.0") || !cJSON_IsString(method) ||
	    (id && !id_ok)) {
		/* A response from the client (result/error, no method) is
		 * not ours to answer. */
		if (cJSON_IsObject(req) && !method && id_ok)
			resp = NULL;
		else
			resp = rpc_error(id_ok ? id : NULL, -32600,
					 "Invalid Request");
		cJSON_Delete(id);
		cJSON_Delete(req);
		return resp;
	}
	const char *m = method->valuestring;
	if (!id) {
		/* Notifications: initialized, cancelled, ...; never
		 * answered. */
		cJSON_Delete(req);
		return NULL;
	}
	if (!strcmp(m, "initialize"))
		resp = rpc_result(id, initialize(s, params));
	else if (!strcmp(m, "ping"))
		resp = rpc_result(id, cJSON_CreateObject());
	else if (!strncmp(m, "tools/", 6) && !s->initialized)
		resp = rpc_error(id, -32002, "Server not initialized: send "
				 "initialize first");
	else if (!strcmp(m, "tools/list")) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "tools", mcp_tools_list());
		resp = rpc_result(id, r);
	} else if (!strcmp(m, "tools/call"))
		resp = tools_call(s, id, params);
	else {
		char *msg = xasprintf("Method not found: %.100s", m);
		resp = rpc_error(id, -32601, msg);
		free(msg);
	}
	cJSON_Delete(id);
	cJSON_Delete(req);
	return resp;
}

int mcp_serve(struct mcp_session *s, int in_fd, FILE *out)
{
	struct strbuf buf = STRBUF_INIT;
	char chunk[65536];
	bool overflow = false;

	for (;;) {
		ssize_t n = read(in_fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t k = 0; k < n; k++) {
			if (chunk[k] != '\n') {
				if (buf.len < MCP_LINE_MAX)
					strbuf_addch(&buf, chunk[k]);
				else
					overflow = true;
				continue;
			}
			char *resp = overflow
				? rpc_error(NULL, -32600, "Invalid Request: "
					    "line too long")
				: mcp_handle_line(s, buf.buf ? buf.buf : "",
						  buf.len);
			if (resp) {
				fputs(resp, out);
				fputc('\n', out);
				fflush(out);
				free(resp);
			}
			strbuf_reset(&buf);
			overflow = false;
		}
	}
	if (buf.len > 0 && !overflow) {
		char *resp = mcp_handle_line(s, buf.buf, buf.len);
		if (resp) {
			fprintf(out, "%s\n", resp);
			fflush(out);
			free(resp);
		}
	}
	strbuf_release(&buf);
	return 0;
}

/* ---- the bridge client ---------------------------------------------- */

int mcp_bridge_call(void *ctx, const char *name, const cJSON *args,
		    struct mcp_reply *out, struct errbuf *err)
{
	const char *path = ctx;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct strbuf resp = STRBUF_INIT;
	char buf[65536];
	int fd, rc = 0;

	if (!path || strlen(path) >= sizeof(addr.sun_path))
		return errf(err, "no evaluation bridge socket");
	memcpy(addr.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr,
			      sizeof(addr)) != 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return errf_code(err, e, "cannot reach arena's evaluator at "
				 "%s: %s", path, strerror(e));
	}
	cJSON *req = cJSON_CreateObject();
	cJSON_AddStringToObject(req, "tool", name);
	cJSON_AddItemToObject(req, "arguments", cJSON_Duplicate(args, 1));
	char *line = print_and_free(req);
	size_t len = strlen(line), off = 0;
	while (off < len) {
		ssize_t w = send(fd, line + off, len - off, MSG_NOSIGNAL);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(line);
	if (send(fd, "\n", 1, MSG_NOSIGNAL) != 1 || off < len) {
		close(fd);
		return errf(err, "cannot send to arena's evaluator at %s",
			    path);
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strbuf_add(&resp, buf, (size_t)n);
		if (memchr(buf, '\n', (size_t)n))
			break;
	}
	close(fd);
	cJSON *r = cJSON_ParseWithLength(strbuf_str(&resp), resp.len);
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(r, "text");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(r, "error");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r,
							  "unknown_tool"))) {
		rc = -ENOENT;
	} else if (cJSON_IsString(e)) {
		rc = errf(err, "%s", e->valuestring);
	} else if (!cJSON_IsString(text)) {
		rc = errf(err, "arena's evaluator gave no answer (did the "
			  "run stop?)");
	} else {
		out->text = xstrdup(text->valuestring);
		out->is_error = cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(r, "is_error"));
		cJSON *st = cJSON_GetObjectItemCaseSensitive(r, "structured");
		if (st)
			out->structured = cJSON_Duplicate(st, 1);
	}
	cJSON_Delete(r);
	strbuf_release(&resp);
	return rc;
}

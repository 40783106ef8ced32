/*
 * fuzz_mcp.c - libFuzzer harness for the MCP server's line handler
 * (agents/bridge/mcp_server.c), which reads whatever an agent's MCP
 * client writes on stdin.
 *
 * Input: lines separated by '\n', handed in order to one session, so that
 * initialize can be followed by tools/list and tools/call.  The tools are
 * a stand-in that answers from a fixed result (nothing is evaluated); a
 * call of "fail" fails as a tool that could not run, of "none" as an
 * unknown tool.  Beyond "no crash, no leak, no UB", every reply must be
 * one line of JSON-RPC 2.0: an object with "jsonrpc": "2.0" and either a
 * result or an error with an integer code, and no notification (a message
 * without an id) is ever answered.
 */
#include "bridge/mcp_server.h"

#include <cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_tool(void *ctx, const char *name, const cJSON *args,
		     struct mcp_reply *out, struct errbuf *err)
{
	struct task_result r;

	(void)ctx;
	if (!args || !cJSON_IsObject(args))
		abort();
	if (!strcmp(name, "none"))
		return -ENOENT;
	if (!strcmp(name, "fail"))
		return errf(err, "the evaluation could not run");
	result_init(&r);
	r.status = RS_OK;
	r.pass_compilation = r.pass_correctness = r.candidate_accepted = true;
	r.speedup_ratio = 1.5;
	result_score(&r);
	mcp_reply_from_result(
		&r,
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "quick")),
		out);
	result_release(&r);
	return 0;
}

static void fuzz_check_reply(const char *line, size_t len, const char *reply)
{
	cJSON *req = cJSON_ParseWithLength(line, len);
	cJSON *o = cJSON_Parse(reply);
	const cJSON *v, *e;

	if (strchr(reply, '\n') || !cJSON_IsObject(o))
		abort();
	v = cJSON_GetObjectItemCaseSensitive(o, "jsonrpc");
	if (!cJSON_IsString(v) || strcmp(v->valuestring, "2.0"))
		abort();
	e = cJSON_GetObjectItemCaseSensitive(o, "error");
	if (!e == !cJSON_GetObjectItemCaseSensitive(o, "result"))
		abort();
	if (e && !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "code")))
		abort();
	/* A well-formed notification (jsonrpc "2.0", a string method, no
	 * id; keys match case-sensitively, as the server reads them) is
	 * never answered; an invalid request without an id is (-32600, id
	 * null). */
	v = cJSON_GetObjectItemCaseSensitive(req, "jsonrpc");
	if (cJSON_IsObject(req) && cJSON_IsString(v) &&
	    !strcmp(v->valuestring, "2.0") &&
	    cJSON_IsString(cJSON_GetObjectItemCaseSensitive(req, "method")) &&
	    !cJSON_GetObjectItemCaseSensitive(req, "id"))
		abort();
	cJSON_Delete(req);
	cJSON_Delete(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_session s;
	const char *p = (const char *)data, *end = p + size;

	mcp_session_init(&s, fuzz_tool, NULL);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *reply = mcp_handle_line(&s, p, len);
		if (reply) {
			fuzz_check_reply(p, len, reply);
			free(reply);
		}
		p += len + 1;
	}
	mcp_session_release(&s);
	return 0;
}

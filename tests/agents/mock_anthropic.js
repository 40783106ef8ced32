#!/usr/bin/env node
// tests/agents/mock_anthropic.js - a scripted Anthropic Messages API for
// running the real Claude Code CLI offline (tests/e2e/agents_real_claude.sh).
//
//   node mock_anthropic.js PORT_FILE LOG_FILE [--mcp] [--max-requests N]
//                          [--lifetime S]
//
// Listens on 127.0.0.1 (a free port, written to PORT_FILE), answers
// POST /v1/messages (streaming SSE or plain JSON) and count_tokens, and
// stops by itself after N requests or S seconds.  Requests that offer the
// Bash tool are the agent loop: the reply is chosen by how many assistant
// turns the conversation already holds, following SCRIPT below (read
// TASK.md, evaluate, rewrite the kernel, evaluate, finish).  Any other
// request (titles, summaries) gets a short text.  Every request is logged
// to LOG_FILE as one JSON line: {step, tools, last_tool_result}.
'use strict';
const { mcp, log, serve } = require('./mock_server');

const evaluate = mcp
	? { name: 'mcp__arena__evaluate', input: { quick: true } }
	: { name: 'Bash', input: { command: 'arena mcp call evaluate --quick', description: 'evaluate' } };
const SCRIPT = [
	{ text: 'I will read the task first.', tool: { name: 'Bash', input: { command: 'head -n 3 TASK.md', description: 'read the task' } } },
	{ text: 'Now the baseline verdict.', tool: evaluate },
	{ text: 'Rewriting the kernel.', tool: { name: 'Bash', input: { command: "printf '\\n/* tuned by the scripted model */\\n' >> kernel.c", description: 'edit' } } },
	{ text: 'Checking the new version.', tool: evaluate },
	{ text: 'Done: the kernel is correct and kept.' },
];
const USAGE = (step) => ({ input_tokens: 100 * (step + 1), output_tokens: 10 * (step + 1), cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });


function lastToolResult(messages) {
	const last = messages[messages.length - 1];
	if (!last || !Array.isArray(last.content)) return null;
	for (const b of last.content)
		if (b.type === 'tool_result') {
			const c = b.content;
			return typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => x.text || '').join('\n') : '';
		}
	return null;
}

function reply(body) {
	const tools = (body.tools || []).map((t) => t.name);
	const messages = body.messages || [];
	const agentLoop = tools.includes('Bash');
	const step = messages.filter((m) => m.role === 'assistant').length;
	log({ step, agentLoop, model: body.model, tools, stream: !!body.stream, last_tool_result: lastToolResult(messages) });
	if (!agentLoop)
		return { content: [{ type: 'text', text: 'Kernel optimisation' }], stop: 'end_turn', usage: { input_tokens: 5, output_tokens: 2 } };
	const s = SCRIPT[Math.min(step, SCRIPT.length - 1)];
	const content = [{ type: 'text', text: s.text }];
	if (s.tool)
		content.push({ type: 'tool_use', id: `toolu_${step}`, name: s.tool.name, input: s.tool.input });
	return { content, stop: s.tool ? 'tool_use' : 'end_turn', usage: USAGE(step) };
}

function sse(res, event, data) {
	res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

serve((req, body, res, served) => {
	const url = req.url.split('?')[0];
	if (req.method === 'POST' && url.endsWith('/count_tokens')) {
		res.writeHead(200, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ input_tokens: 100 }));
	}
	if (req.method !== 'POST' || !url.endsWith('/v1/messages')) {
		res.writeHead(404, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'mock: ' + url } }));
	}
	const r = reply(body);
	const id = `msg_mock_${served}`;
	const model = body.model || 'claude-mock';
	if (!body.stream) {
		res.writeHead(200, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: r.content, stop_reason: r.stop, stop_sequence: null, usage: r.usage }));
	}
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...r.usage, output_tokens: 1 } } });
	r.content.forEach((b, i) => {
		if (b.type === 'text') {
			sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
			sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text } });
		} else {
			sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
			const json = JSON.stringify(b.input);
			const half = Math.floor(json.length / 2);
			sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
			sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
		}
		sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
	});
	sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: r.stop, stop_sequence: null }, usage: { output_tokens: r.usage.output_tokens } });
	sse(res, 'message_stop', { type: 'message_stop' });
	res.end();
});

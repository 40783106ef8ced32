#!/usr/bin/env node
// tests/agents/mock_openai.js - a scripted OpenAI Responses API for running
// the real Codex CLI offline (tests/e2e/agents_real_codex.sh).
//
//   node mock_openai.js PORT_FILE LOG_FILE [--mcp] [--max-requests N]
//                       [--lifetime S]
//
// Listens on 127.0.0.1 (a free port, written to PORT_FILE), answers
// POST .../responses with a streamed (SSE) response, and stops by itself
// after N requests or S seconds.  The reply follows SCRIPT by how many
// tool outputs the request's input already holds: read TASK.md, evaluate
// (`arena mcp call evaluate`, or the MCP tool with --mcp), rewrite the
// kernel, evaluate, finish.  The shell tool is called in whichever form
// the request offers (shell_command, exec_command or shell).  A command
// still running when exec_command's yield time ends ("Process running with
// session ID N", an evaluation on a loaded machine) is waited for with
// write_stdin, as a model would, without moving the script on; those
// polls report no tokens.  Each request is logged to LOG_FILE as one JSON
// line.
'use strict';
const { mcp, log, serve } = require('./mock_server');

const EVAL = { shell: 'arena mcp call evaluate --quick' };
const SCRIPT = [
	{ text: 'I will read the task first.', shell: 'head -n 3 TASK.md' },
	mcp ? { text: 'Now the baseline verdict.', mcpTool: 'evaluate' } : { text: 'Now the baseline verdict.', ...EVAL },
	{ text: 'Rewriting the kernel.', shell: "printf '\\n/* tuned by the scripted model */\\n' >> kernel.c" },
	mcp ? { text: 'Checking the new version.', mcpTool: 'evaluate' } : { text: 'Checking the new version.', ...EVAL },
	{ text: 'Done: the kernel is correct and kept.' },
];
const USAGE = (step) => ({ input_tokens: 100 * (step + 1), input_tokens_details: { cached_tokens: 10 * step }, output_tokens: 10 * (step + 1), output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 * (step + 1) });


function toolNames(tools) {
	const names = [];
	for (const t of tools || []) {
		if (t.name) names.push(t.name);
		if (t.type === 'namespace' && Array.isArray(t.tools))
			for (const u of t.tools) names.push(`${t.name}.${u.name}`);
	}
	return names;
}

function shellCall(names, cmd, step) {
	const call_id = `call_${step}`;
	if (names.includes('shell_command'))
		return { type: 'function_call', name: 'shell_command', arguments: JSON.stringify({ command: cmd }), call_id };
	if (names.includes('exec_command'))
		return { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, yield_time_ms: 30000 }), call_id };
	return { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', cmd] }), call_id };
}

function mcpCall(names, tool, step) {
	const call_id = `call_${step}`;
	const full = names.find((n) => n.endsWith(`arena__${tool}`) || n === `mcp__arena__${tool}` || n.endsWith(`.${tool}`)) || `mcp__arena__${tool}`;
	const dot = full.lastIndexOf('.');
	if (dot > 0)
		return { type: 'function_call', namespace: full.slice(0, dot), name: full.slice(dot + 1), arguments: JSON.stringify({ quick: true }), call_id };
	return { type: 'function_call', name: full, arguments: JSON.stringify({ quick: true }), call_id };
}

function outputs(input) {
	const outs = [];
	for (const it of input || [])
		if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output')
			outs.push(typeof it.output === 'string' ? it.output : JSON.stringify(it.output));
	return outs;
}

const RUNNING = /Process running with session ID (\d+)/;

function pollCall(session, served) {
	return { type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: Number(session), chars: '', yield_time_ms: 30000 }), call_id: `poll_${served}` };
}

function sse(res, data) {
	res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

serve((req, body, res, served) => {
	const url = req.url.split('?')[0];
	if (req.method === 'GET' && url.endsWith('/models')) {
		res.writeHead(200, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
	}
	if (req.method !== 'POST' || !url.endsWith('/responses')) {
		log({ unexpected: req.method + ' ' + url });
		res.writeHead(404, { 'content-type': 'application/json' });
		return res.end(JSON.stringify({ error: { message: 'mock: ' + url } }));
	}
	const names = toolNames(body.tools);
	const outs = outputs(body.input);
	const step = outs.filter((o) => !RUNNING.test(o)).length;
	const last = outs.length ? outs[outs.length - 1] : null;
	const running = last && RUNNING.exec(last);
	log({ step, poll: !!running, model: body.model, tools: names, last_output: last });
	const s = SCRIPT[Math.min(step, SCRIPT.length - 1)];
	const id = `resp_${served}`;
	const items = [];
	if (running) {
		items.push(pollCall(running[1], served));
	} else {
		items.push({ type: 'message', role: 'assistant', id: `msg_${served}`, content: [{ type: 'output_text', text: s.text, annotations: [] }] });
		if (s.shell) items.push(shellCall(names, s.shell, step));
		if (s.mcpTool) items.push(mcpCall(names, s.mcpTool, step));
	}
	const usage = running ? { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 } : USAGE(step);
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	sse(res, { type: 'response.created', response: { id } });
	items.forEach((item, i) => {
		sse(res, { type: 'response.output_item.added', output_index: i, item });
		sse(res, { type: 'response.output_item.done', output_index: i, item });
	});
	sse(res, { type: 'response.completed', response: { id, usage } });
	res.end();
});
